package audit

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzValidateManifest feeds the manifest parser arbitrary bytes, then
// runs the file checks on what it accepted, in a release folder that
// sits next to a file it must never reach. Properties: no panic, every
// accepted entry is a clean relative path of a known kind, and no file
// outside the release is opened.
func FuzzValidateManifest(f *testing.F) {
	real, err := os.ReadFile(filepath.Join(makeRelease(f, 5), "manifest.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real)
	for _, s := range []string{
		`{}`, `null`, `[]`, `{"files":null}`,
		`{"files":[{"path":"../outside","sha256":"` + sixtyFour + `","bytes":1}]}`,
		`{"files":[{"path":"/etc/passwd","sha256":"` + sixtyFour + `"}]}`,
		`{"files":[{"path":"sft/.hidden-00000-of-00001.parquet","sha256":"` + sixtyFour + `"}]}`,
		`{"files":[{"path":"sft/train-00001-of-00001.parquet","sha256":"` + sixtyFour + `","rows":-1}]}`,
		`{"files":[{"path":"sft/train-00000-of-00002.parquet","sha256":"` + sixtyFour + `"}]}`,
		`{"files":[{"path":"domain/../../outside","sha256":"` + sixtyFour + `"}]}`,
		`{"files":[{"path":"rejected/other-00000-of-00001.jsonl.gz","sha256":"` + sixtyFour + `"}]}`,
		`{"config":{"max_turns":1e300},"counts":{"sft_rows":-5}}`,
		`{"config":{"max_turns":"sixty"}}`,
	} {
		f.Add([]byte(s))
	}
	root := f.TempDir()
	if err := os.WriteFile(filepath.Join(root, "outside"), []byte("secret"), 0o644); err != nil {
		f.Fatal(err)
	}
	dir := filepath.Join(root, "rel")
	for _, d := range dataDirs {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		doc, err := parseManifest(raw)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, e := range doc.entries {
			if err := safeRel(e.Path); err != nil {
				t.Fatalf("accepted an unsafe path: %v", err)
			}
			if e.kind == "" || seen[e.Path] {
				t.Fatalf("entry %q: kind %q, listed before: %v", e.Path, e.kind, seen[e.Path])
			}
			seen[e.Path] = true
		}
		s := newState(dir, 2)
		s.doc = doc
		if err := s.checkFiles(context.Background()); err != nil {
			t.Fatal(err)
		}
		s.checkUnlisted()
		// The release folder holds no file at all: any sum means a path
		// led somewhere else.
		if len(s.sums) > 0 {
			t.Fatalf("read files outside the release: %v", s.sums)
		}
	})
}

const sixtyFour = "0000000000000000000000000000000000000000000000000000000000000000"
