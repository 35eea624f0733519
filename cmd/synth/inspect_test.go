package main

import (
	"strings"
	"testing"

	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/record"
)

// TestInspectLabels: a row's labels are shown under each assistant turn,
// a class that misses its gold and the pivotal and correcting turns
// marked, and a row without labels (formats 1-3) shows none.
func TestInspectLabels(t *testing.T) {
	msgs := []record.Message{
		{Role: "user", Content: "Cancel order #W1."},
		{Role: "assistant", Content: "Shall I cancel order #W2?"},
		{Role: "user", Content: "No, #W1."},
		{Role: "assistant", Content: "Shall I cancel order #W1?"},
	}
	labels := `{"chain_length":2,"progress":0,"coverage":0,"pivotal":1,"correcting":3,"outcome":1,"steps":[],` +
		`"turns":[{"message":1,"class":"confirm","gold":"read","on_chain":false,"serves":-1,"progress":0,"calls":[]},` +
		`{"message":3,"class":"confirm","gold":"confirm","on_chain":true,"serves":1,"progress":0,"calls":[]}]}`
	var b strings.Builder
	printRow(&b, export.SFTRow{ID: "r", Messages: msgs, Labels: []byte(labels)}, 100)
	got := b.String()
	for _, want := range []string{
		"labels: chain 2  progress 0  coverage 0  gold 1/2 turns  pivotal [1]  correcting [3]\n",
		"Shall I cancel order #W2?\n    ⟨class confirm ≠ gold read  off chain  progress 0/2  ← pivotal⟩\n",
		"Shall I cancel order #W1?\n    ⟨class confirm  gold confirm  on chain  progress 0/2  ← correcting⟩\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("inspect lacks %q:\n%s", want, got)
		}
	}
	b.Reset()
	printRow(&b, export.SFTRow{ID: "r", Messages: msgs}, 100)
	if strings.Contains(b.String(), "⟨") || strings.Contains(b.String(), "labels:") {
		t.Errorf("a row without labels shows some:\n%s", b.String())
	}
}

// TestInspectSplit: a split the release has narrows the search; one it
// does not have is named as such, with the splits it has, instead of the
// release seeming to have no rows.
func TestInspectSplit(t *testing.T) {
	dir := makeRelease(t)
	if code, stdout, stderr := synth(t, "inspect", dir, "--split", "test"); code != 0 || !strings.HasPrefix(stdout, "id ") {
		t.Errorf("--split test: exit %d: %s", code, stderr)
	}
	code, _, stderr := synth(t, "inspect", dir, "--split", "dev")
	if want := "synth inspect: --split dev: " + dir + " has no split \"dev\"; its splits are train, validation, test\n"; code != 1 || stderr != want {
		t.Errorf("--split dev: exit %d, stderr %q, want %q", code, stderr, want)
	}
	if code, _, stderr := synth(t, "inspect", dir, "--split", "test", "--id", "nope"); code != 1 || !strings.Contains(stderr, `no row with id "nope" in the test split of`) {
		t.Errorf("--split test --id nope: exit %d: %s", code, stderr)
	}
}
