package export

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAtomicFile(t *testing.T) {
	tests := []struct {
		name      string
		old       string // content of the final file before, "" for none
		commit    bool
		wantFinal string // "" means absent
	}{
		{"commit creates", "", true, "new"},
		{"commit replaces", "old", true, "new"},
		{"abort creates nothing", "", false, ""},
		{"abort keeps the old file", "old", false, "old"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "manifest.json")
			if tt.old != "" {
				if err := os.WriteFile(path, []byte(tt.old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			a, err := CreateAtomic(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.Write([]byte("new")); err != nil {
				t.Fatal(err)
			}
			// Until it is committed, the final name shows the old state.
			assertContent(t, path, tt.old)
			if tt.commit {
				if err := a.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			a.Abort() // deferred in real code: harmless after Commit
			a.Abort()
			assertContent(t, path, tt.wantFinal)
			for _, name := range listDir(t, dir) {
				if strings.HasPrefix(name, ".") {
					t.Errorf("temporary file %s left behind", name)
				}
			}
			if tt.commit {
				if err := a.Commit(); err == nil {
					t.Error("second Commit succeeded")
				}
				if info, err := os.Stat(path); err != nil || info.Mode().Perm() != filePerm {
					t.Errorf("mode %v (%v), want %v", info.Mode().Perm(), err, os.FileMode(filePerm))
				}
			}
		})
	}
}

func assertContent(t *testing.T, path, want string) {
	t.Helper()
	data, err := os.ReadFile(path)
	switch {
	case want == "" && os.IsNotExist(err):
	case want == "":
		t.Fatalf("%s exists (%q, %v), want absent", path, data, err)
	case err != nil:
		t.Fatal(err)
	case string(data) != want:
		t.Fatalf("%s holds %q, want %q", path, data, want)
	}
}

func TestAtomicTempName(t *testing.T) {
	dir := t.TempDir()
	a, err := CreateAtomic(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Abort()
	names := listDir(t, dir)
	if len(names) != 1 || !strings.HasPrefix(names[0], ".README.md.tmp-") {
		t.Fatalf("directory holds %v, want one hidden .README.md.tmp-* file", names)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "manifest.json")
	for _, content := range []string{"first", "second"} {
		if err := WriteFileAtomic(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		assertContent(t, path, content)
	}
	mustEqual(t, "directory", listDir(t, dir), []string{"manifest.json"})

	err := WriteFileAtomic(filepath.Join(dir, "missing", "x.json"), []byte("x"))
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "missing", "x.json")) {
		t.Fatalf("error = %v, want one naming the path", err)
	}
}
