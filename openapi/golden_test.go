package openapi

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden packs under testdata/golden")

// The packs two fixtures import to, byte for byte: what a user reads
// (IMPORT.md, policy.md) and runs (handlers, tools, data). Run with
// -update after a deliberate change and review the diff.
func TestGolden(t *testing.T) {
	for name, spec := range map[string]string{
		"clinic":  filepath.Join("testdata", "multifile", "ok", "api.yaml"),
		"billing": filepath.Join("testdata", "seed", "billing.yaml"),
		// Prose in the API's words, not its one example sentence.
		"events": filepath.Join("testdata", "prose", "events.yaml"),
	} {
		t.Run(name, func(t *testing.T) {
			res, err := ImportFile(context.Background(), spec, filepath.Join(t.TempDir(), "p"), Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join("testdata", "golden", name)
			if *update {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range sortedKeys(res.Files) {
				path := filepath.Join(dir, f)
				if *update {
					if err := os.WriteFile(path, res.Files[f], 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test ./openapi -run TestGolden -update)", err)
				}
				if !bytes.Equal(res.Files[f], want) {
					t.Errorf("%s differs from %s (run with -update if the change is meant)", f, path)
				}
			}
		})
	}
}
