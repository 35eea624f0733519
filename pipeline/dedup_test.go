package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/release"
)

func dialogue(user []string, calls ...string) *record.Trajectory {
	tr := &record.Trajectory{Messages: []record.Message{msg("system", "policy")}}
	for i, u := range user {
		tr.Messages = append(tr.Messages, msg("user", u))
		if i < len(calls) {
			tr.Messages = append(tr.Messages, record.Message{Role: "assistant", ToolCalls: []record.ToolCall{{ID: "abcdefghi", Type: "function",
				Function: record.FunctionCall{Name: calls[i], Arguments: `{"order_id":"#W1"}`}}}})
		}
		tr.Messages = append(tr.Messages, msg("assistant", "ok"))
	}
	return tr
}

func TestDeduper(t *testing.T) {
	base := []string{"Hi, I would like to cancel my most recent pending order because I no longer need it at all.",
		"My email is jane.doe1234@example.com and the reason is that it is no longer needed.", "Yes, please go ahead with the cancellation."}
	near := append([]string(nil), base...)
	near[2] = "Yes, please go ahead with the cancellation now."
	other := []string{"Could you change the shipping address on order #W7 to 12 Elm Street, Springfield?", "It's 12 Elm Street.", "Yes."}
	calls := []string{"find_user_id_by_email", "get_user_details", "cancel_pending_order"}
	cases := []struct {
		name string
		tr   *record.Trajectory
		want string
	}{
		{"first", dialogue(base, calls...), ""},
		{"exact copy", dialogue(base, calls...), "exact"},
		{"near copy", dialogue(near, calls...), "near"},
		{"same words, other tools", dialogue(base, "get_order_details", "modify_pending_order_address", "calculate"), ""},
		{"other dialogue", dialogue(other, "get_order_details", "modify_pending_order_address"), ""},
	}
	d := newDeduper(100)
	for i, tc := range cases {
		s := signTrajectory(i, tc.name, "train", tc.tr)
		var buf bytes.Buffer
		if err := writeSignature(&buf, s); err != nil {
			t.Fatal(err)
		}
		back, err := readSignature(&buf)
		if err != nil || back != s {
			t.Fatalf("%s: signature round trip: %v", tc.name, err)
		}
		got := d.check(s)
		switch {
		case tc.want == "" && got != nil:
			t.Errorf("%s: flagged as %s duplicate of %d", tc.name, got.Reason, got.KeptIndex)
		case tc.want != "" && (got == nil || got.Reason != tc.want || got.KeptIndex != 0):
			t.Errorf("%s: got %+v, want a %s duplicate of blueprint 0", tc.name, got, tc.want)
		}
	}
	if _, err := readSignature(bytes.NewReader([]byte{1, 2, 3})); err == nil {
		t.Error("a truncated signature must be an error")
	}
}

// TestDedupEndToEnd makes the dialogues of one chunk exact copies of
// another's (by rewriting their signatures) and checks that the merged
// release drops them everywhere and records them.
func TestDedupEndToEnd(t *testing.T) {
	cfg := smallConfig(t, 80)
	cfg.ChunkSize = 40
	cfg.DPO = true
	// A two-shard job into one folder keeps its chunks for the merge.
	for _, sh := range []string{"0/2", "1/2"} {
		c := cfg
		c.Shard = sh
		if _, err := Run(context.Background(), c, nil); err != nil {
			t.Fatal(err)
		}
	}
	chunks := filepath.Join(cfg.Out, workDirName, "chunks")
	read := func(name string) []signature {
		f, err := os.Open(filepath.Join(chunks, name, sigFileName))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var out []signature
		r := bufio.NewReader(f)
		for {
			s, err := readSignature(r)
			if errors.Is(err, io.EOF) {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
	}
	first, second := read(chunkName(0)), read(chunkName(1))
	var buf bytes.Buffer
	dupIDs := map[string]bool{}
	for i, s := range second {
		if i%2 == 0 {
			s.Exact = first[i%len(first)].Exact
			dupIDs[s.ID] = true
		}
		if err := writeSignature(&buf, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(chunks, chunkName(1), sigFileName), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// The chunk's summary records its signatures' hash: keep it true, or
	// the merge refuses the chunk as damaged.
	sum, err := release.ReadSummary(filepath.Join(chunks, chunkName(1)))
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(buf.Bytes())
	sum.SignaturesSHA256 = hex.EncodeToString(h[:])
	raw, _ := json.Marshal(sum)
	if err := os.WriteFile(filepath.Join(chunks, chunkName(1), "summary.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	m, err := Merge([]string{cfg.Out}, merged, false)
	if err != nil {
		t.Fatal(err)
	}
	if m.Counts.Duplicates["exact"] != len(dupIDs) || m.Counts.SFTRows != m.Counts.Verified-len(dupIDs) {
		t.Fatalf("counts %+v after removing %d duplicates", m.Counts, len(dupIDs))
	}
	rows, pairs := 0, 0
	for _, f := range m.Files {
		switch filepath.Dir(f.Path) {
		case "sft":
			got, err := export.ReadSFT(filepath.Join(merged, f.Path))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range got {
				if dupIDs[r.ID] {
					t.Errorf("duplicate %s still in %s", r.ID, f.Path)
				}
			}
			rows += len(got)
		case "dpo":
			got, err := export.ReadDPO(filepath.Join(merged, f.Path))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range got {
				if dupIDs[r.BlueprintID] {
					t.Errorf("a pair of duplicate %s is still in %s", r.BlueprintID, f.Path)
				}
			}
			pairs += len(got)
		}
	}
	if rows != m.Counts.SFTRows || pairs != m.Counts.DPOPairs || pairs != m.DPO.Pairs {
		t.Errorf("files hold %d rows and %d pairs; manifest says %d and %d/%d", rows, pairs, m.Counts.SFTRows, m.Counts.DPOPairs, m.DPO.Pairs)
	}
	recs := readJSONL[Duplicate](t, filepath.Join(merged, "rejected", "duplicates.jsonl.gz"))
	if len(recs) != len(dupIDs) {
		t.Fatalf("%d duplicate records, want %d", len(recs), len(dupIDs))
	}
	for _, r := range recs {
		if !dupIDs[r.ID] || r.Reason != "exact" || r.KeptIndex >= 40 {
			t.Errorf("duplicate record %+v", r)
		}
	}
	if _, err := os.Stat(filepath.Join(merged, ".synth-dedup")); err == nil {
		t.Error("the dedup scratch folder was left behind")
	}
}

// BenchmarkDedup100k: signing 100,000 dialogues (done by the workers) and
// checking them in order (done at finalisation), with the tables sized
// for 100,000 rows. Reports seconds per 100k dialogues.
func BenchmarkDedup100k(b *testing.B) {
	d := loadRetail(b)
	var trs []*record.Trajectory
	for i := 0; i < 200; i++ {
		bp, err := d.gen.Generate(context.Background(), i)
		if err != nil {
			b.Fatal(err)
		}
		tr, err := embedded.Simulate(context.Background(), d.dom, bp, 60)
		if err != nil {
			b.Fatal(err)
		}
		trs = append(trs, tr)
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		dd := newDeduper(100000)
		for i := 0; i < 100000; i++ {
			tr := trs[i%len(trs)]
			s := signTrajectory(i, tr.ID, "train", tr)
			s.Exact ^= uint64(i) // distinct dialogues: only near-matches of the 200 originals
			dd.check(s)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/100k")
}

type retailFixture struct {
	dom *domain.Domain
	gen blueprints.Generator
}

func loadRetail(tb testing.TB) retailFixture {
	tb.Helper()
	d, err := domains.Load("retail", 1)
	if err != nil {
		tb.Fatal(err)
	}
	cfg := Defaults()
	spec, err := cfg.Spec()
	if err != nil {
		tb.Fatal(err)
	}
	g, err := blueprints.NewGeneric(d.Model, spec)
	if err != nil {
		tb.Fatal(err)
	}
	return retailFixture{dom: d, gen: g}
}

func msg(role, content string) record.Message { return record.Message{Role: role, Content: content} }
