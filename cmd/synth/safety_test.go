package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"io/fs"
	"maps"
)

// snapshot maps every file and folder below dir to its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			out[p] = "dir"
			return nil
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// write creates a file and its folders.
func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestForceKeepsForeignFiles: --force replaces only what synth provably
// wrote; a folder holding anything else is refused, naming the first
// foreign path, and nothing in it changes.
func TestForceKeepsForeignFiles(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		dirs  []string
		want  string // the foreign path named
		link  bool   // --out is a link to the folder
	}{
		{"user files and folders", map[string]string{
			"README.md":                    "my notes",
			"sft/my-training-data.parquet": "PAR1 mine",
			"rejected/why.txt":             "because",
		}, []string{"Documents", ".config"}, ".config", false},
		{"hidden temporaries", map[string]string{
			"sft/.notes.tmp-1":       "x",
			"rejected/.a.tmp-link":   "y",
			"deep/down/.cache.tmp-2": "z",
		}, nil, "deep", false},
		{"an empty folder", nil, []string{"Documents"}, "Documents", false},
		{"a fake work dir", map[string]string{".synth-work/notes.txt": "mine"}, nil, ".synth-work", false},
		{"a fake manifest", map[string]string{"manifest.json": `{"mine": true}`}, nil, "manifest.json", false},
		// The link is judged by the folder it leads to, every file of
		// whose names synth also writes.
		{"a link to a folder of user files", map[string]string{
			"README.md": "MY OWN README", "manifest.json": "{}", "sft/train-00000-of-00001.parquet": "PAR1 mine",
		}, nil, "README.md", true},
		{"a link to a folder of other files", map[string]string{"notes.txt": "x"}, nil, "notes.txt", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "F")
			for p, data := range c.files {
				write(t, filepath.Join(out, filepath.FromSlash(p)), data)
			}
			for _, d := range c.dirs {
				if err := os.MkdirAll(filepath.Join(out, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			before := snapshot(t, out)
			arg := out
			if c.link {
				arg = filepath.Join(filepath.Dir(out), "L")
				if err := os.Symlink(out, arg); err != nil {
					t.Fatal(err)
				}
			}
			code, _, stderr := synth(t, "run", "-n", "20", "--quiet", "--force", "--out", arg)
			if code == 0 {
				t.Fatalf("exit 0: --force replaced a folder holding files synth never wrote")
			}
			if want := filepath.Join(arg, filepath.FromSlash(c.want)); !strings.Contains(stderr, want) {
				t.Errorf("the error does not name %s:\n%s", want, stderr)
			}
			if after := snapshot(t, out); !maps.Equal(after, before) {
				t.Errorf("the folder changed although the run was refused")
			}
		})
	}
}

// TestForceReplacesRelease: --force replaces synth's own release, but not
// once a user file was added to it or one of its files was edited.
func TestForceReplacesRelease(t *testing.T) {
	out := filepath.Join(t.TempDir(), "rel")
	if code, _, stderr := synth(t, "run", "-n", "20", "--quiet", "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := synth(t, "run", "-n", "25", "--quiet", "--force", "--out", out); code != 0 {
		t.Fatalf("--force over synth's own release: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := synth(t, "validate", out); code != 0 {
		t.Fatalf("the replaced release does not validate: %s%s", stdout, stderr)
	}
	write(t, filepath.Join(out, "sft", "mine.parquet"), "PAR1")
	code, _, stderr := synth(t, "run", "-n", "20", "--quiet", "--force", "--out", out)
	if code == 0 || !strings.Contains(stderr, filepath.Join(out, "sft", "mine.parquet")) {
		t.Errorf("a user file in the release: exit %d: %s", code, stderr)
	}
	os.Remove(filepath.Join(out, "sft", "mine.parquet"))
	f, err := os.OpenFile(filepath.Join(out, "README.md"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\nmy own notes\n")
	f.Close()
	code, _, stderr = synth(t, "run", "-n", "20", "--quiet", "--force", "--out", out)
	if code == 0 || !strings.Contains(stderr, "changed after synth wrote it") {
		t.Errorf("an edited card: exit %d: %s", code, stderr)
	}
}

// TestWrongTargets: folders no release can be meant for are refused
// before anything is looked at.
func TestWrongTargets(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, out := range []string{"/", home, filepath.Dir(home), "/tmp", "/usr"} {
		code, _, stderr := synth(t, "run", "-n", "5", "--quiet", "--force", "--out", out)
		if code == 0 || !strings.Contains(stderr, "give a folder of its own") {
			t.Errorf("--out %s: exit %d: %s", out, code, stderr)
		}
	}
}

// TestPackSymlinks: a pack file that is a symbolic link leading outside
// the pack is refused by every command that reads packs, so no secret
// reaches a release; a link that stays inside is followed.
func TestPackSymlinks(t *testing.T) {
	secretDir := t.TempDir()
	const secret = "SYNTH_TEST_SECRET=sk-live-0123456789"
	write(t, filepath.Join(secretDir, "policy.md"), "# Policy\n"+secret+"\n")
	cases := []struct {
		name  string
		setup func(t *testing.T, pack string)
		ok    bool
	}{
		{"file link outside", func(t *testing.T, pack string) {
			os.Remove(filepath.Join(pack, "policy.md"))
			if err := os.Symlink(filepath.Join(secretDir, "policy.md"), filepath.Join(pack, "policy.md")); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"environ", func(t *testing.T, pack string) {
			os.Remove(filepath.Join(pack, "policy.md"))
			if err := os.Symlink("/proc/self/environ", filepath.Join(pack, "policy.md")); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"folder link outside", func(t *testing.T, pack string) {
			if err := os.Symlink(secretDir, filepath.Join(pack, "docs")); err != nil {
				t.Fatal(err)
			}
			setPolicy(t, pack, "docs/policy.md")
		}, false},
		{"link to the root", func(t *testing.T, pack string) {
			if err := os.Symlink("/", filepath.Join(pack, "root")); err != nil {
				t.Fatal(err)
			}
			setPolicy(t, pack, "root/etc/passwd")
		}, false},
		{"link inside the pack", func(t *testing.T, pack string) {
			if err := os.Rename(filepath.Join(pack, "policy.md"), filepath.Join(pack, "real-policy.md")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("real-policy.md", filepath.Join(pack, "policy.md")); err != nil {
				t.Fatal(err)
			}
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("SYNTH_TEST_SECRET", "sk-live-0123456789")
			pack := filepath.Join(t.TempDir(), "pack")
			if code, _, stderr := synth(t, "domain", "init", pack); code != 0 {
				t.Fatal(stderr)
			}
			c.setup(t, pack)
			out := filepath.Join(t.TempDir(), "out")
			runs := [][]string{
				{"run", "--domain", pack, "-n", "5", "--quiet", "--out", out},
				{"domain", "validate", pack},
				{"domain", "show", pack},
			}
			for _, args := range runs {
				code, stdout, stderr := synth(t, args...)
				if strings.Contains(stdout+stderr, "sk-live-0123456789") {
					t.Errorf("%s printed the secret", args[0])
				}
				if c.ok != (code == 0) {
					t.Errorf("synth %s: exit %d\n%s%s", strings.Join(args[:2], " "), code, stdout, stderr)
				}
				if !c.ok && !strings.Contains(stdout+stderr, "symbolic link") {
					t.Errorf("synth %s does not say why: %s", strings.Join(args[:2], " "), stderr)
				}
			}
			if !c.ok {
				if _, err := os.Stat(out); err == nil {
					t.Errorf("a refused run left %s", out)
				}
				return
			}
			// The release ships the pack; a release whose domain/ was made a
			// link outside is refused by validate.
			if code, stdout, stderr := synth(t, "validate", out); code != 0 {
				t.Fatalf("validate: %s%s", stdout, stderr)
			}
			pol := filepath.Join(out, "domain", "policy.md")
			os.Remove(pol)
			if err := os.Symlink(filepath.Join(secretDir, "policy.md"), pol); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := synth(t, "validate", out)
			if code == 0 || strings.Contains(stdout+stderr, "sk-live-0123456789") {
				t.Errorf("validate of a release with a linked policy: exit %d\n%s%s", code, stdout, stderr)
			}
		})
	}
}

// setPolicy points the pack's domain.yaml at another policy file.
func setPolicy(t *testing.T, pack, name string) {
	t.Helper()
	p := filepath.Join(pack, "domain.yaml")
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	found := false
	for i, l := range lines {
		if strings.HasPrefix(l, "policy:") {
			lines[i], found = "policy: "+name, true
		}
	}
	if !found {
		t.Fatalf("no policy: line in %s", p)
	}
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}
