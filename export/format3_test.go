package export

import (
	"path/filepath"
	"testing"
)

// TestReadFormat2: a format-2 file (synth 0.4–0.6, before the kind
// column) still reads, every row with no kind. The fixture was written by
// synth 0.6.0's first build: synth run --domain retail -n 6 --seed 9.
func TestReadFormat2(t *testing.T) {
	rows, err := ReadSFT(filepath.Join("testdata", "v2", "sft-train.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("no rows")
	}
	for _, r := range rows {
		if r.Kind != "" || r.ID == "" || len(r.Messages) == 0 {
			t.Errorf("row %q: kind %q, %d messages", r.ID, r.Kind, len(r.Messages))
		}
	}
}

// TestKindRoundTrip: the kind column holds what the row says.
func TestKindRoundTrip(t *testing.T) {
	dir := t.TempDir()
	w, err := NewWriter(dir, "sft", SFTSchema(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := []SFTRow{sampleSFT(1), sampleSFT(2)}
	in[1].Kind = "recovery"
	for _, r := range in {
		if err := w.WriteSFT("train", r); err != nil {
			t.Fatal(err)
		}
	}
	files, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Fatalf("files %+v", files)
	}
	out, err := ReadSFT(filepath.Join(dir, filepath.FromSlash(files[0].Path)))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].Kind != "" || out[1].Kind != "recovery" {
		t.Fatalf("kinds read back: %q, %q", out[0].Kind, out[1].Kind)
	}
}
