package realpath

import (
	"os"
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mk := func(p string) string {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(target, name string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	data := mk("userdata/sft")
	link(filepath.Dir(data), "F")
	link("userdata", "rel")
	link(filepath.Join(dir, "gone", "deeper"), "dangling")
	link("loop", "loop")
	cases := []struct {
		in, want string
		fails    bool
	}{
		{filepath.Join(dir, "F"), filepath.Join(dir, "userdata"), false},
		{filepath.Join(dir, "F", "sft", "new", "x"), filepath.Join(data, "new", "x"), false},
		{filepath.Join(dir, "rel") + "/", filepath.Join(dir, "userdata"), false},
		{filepath.Join(dir, "F", "..", "userdata"), filepath.Join(dir, "userdata"), false},
		{filepath.Join(dir, "dangling", "x"), filepath.Join(dir, "gone", "deeper", "x"), false},
		{filepath.Join(dir, "none", "x"), filepath.Join(dir, "none", "x"), false},
		{filepath.Join(dir, "loop", "x"), "", true},
	}
	for _, c := range cases {
		got, err := Resolve(c.in)
		if c.fails {
			if err == nil {
				t.Errorf("Resolve(%s) = %s, want an error", c.in, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Resolve(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	if rel, ok := Within(filepath.Join(dir, "rel"), filepath.Join(dir, "F", "sft", "x.parquet")); !ok || rel != filepath.Join("sft", "x.parquet") {
		t.Errorf("Within through two links: %q, %v", rel, ok)
	}
	if _, ok := Within(filepath.Join(dir, "userdata"), filepath.Join(dir, "userdata-2")); ok {
		t.Error("a sibling sharing a prefix counts as inside")
	}
	if rel, ok := Within(filepath.Join(dir, "F"), filepath.Join(dir, "userdata")); !ok || rel != "." {
		t.Errorf("a folder and a link to it: %q, %v", rel, ok)
	}
}
