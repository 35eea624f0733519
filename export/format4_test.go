package export

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestReadFormat3: a format-3 file (synth before the labels column)
// still reads, every row with no labels. The fixture was written by the
// synth of commit 38015a6: synth run --domain retail -n 6 --seed 9.
func TestReadFormat3(t *testing.T) {
	rows, err := ReadSFT(filepath.Join("testdata", "v3", "sft-train.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("no rows")
	}
	for _, r := range rows {
		if r.Labels != nil || r.ID == "" || len(r.Messages) == 0 {
			t.Errorf("row %q: labels %s, %d messages", r.ID, r.Labels, len(r.Messages))
		}
	}
}

// TestLabelsRoundTrip: the labels column holds the row's labels object
// as it was given, and a row without labels reads back without.
func TestLabelsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	in := []SFTRow{sampleSFT(1), sampleSFT(2)}
	in[1].Labels = nil
	files := writeSFT(t, dir, Options{}, map[string][]SFTRow{"train": in})
	out, err := ReadSFT(abs(dir, files[0]))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || string(out[0].Labels) != string(in[0].Labels) || out[1].Labels != nil {
		t.Fatalf("labels read back: %s, %s", out[0].Labels, out[1].Labels)
	}
	w, err := NewWriter(t.TempDir(), "sft", SFTSchema(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	bad := sampleSFT(3)
	bad.Labels = json.RawMessage(`{"turns":`)
	if err := w.WriteSFT("train", bad); err == nil {
		t.Error("a row whose labels are not JSON was written")
	}
}
