package main

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/synth-data/synth/pack"
)

// TestReportKeepsReleaseFiles: report -o never writes over a file or into
// a folder of the release, however the path is spelled.
func TestReportKeepsReleaseFiles(t *testing.T) {
	dir := makeRelease(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	for _, out := range []string{
		filepath.Join(dir, "manifest.json"),
		filepath.Join(dir, "README.md"),
		filepath.Join(dir, "sft", "train-00000-of-00001.parquet"),
		filepath.Join(dir, "sft", "report.html"),
		filepath.Join(dir, "domain", "policy.md"),
		filepath.Join(dir, ".", "blueprints", "..", "manifest.json"),
		filepath.Join(link, "manifest.json"),
		filepath.Join(link, "rejected", "new.html"),
		dir,
	} {
		code, _, stderr := synth(t, "report", dir, "-o", out)
		if code != 1 || !strings.Contains(stderr, "never writes over a release's files") {
			t.Errorf("report -o %s: exit %d: %s", out, code, stderr)
		}
	}
	if after := snapshot(t, dir); !maps.Equal(before, after) {
		t.Fatal("a refused report changed the release")
	}
	if code, stdout, _ := synth(t, "validate", dir); code != 0 {
		t.Fatalf("validate: %s", stdout)
	}
	// Beside the data is fine: the default, or any other top-level name.
	for _, out := range []string{filepath.Join(dir, "report.html"), filepath.Join(link, "notes.html")} {
		if code, _, stderr := synth(t, "report", dir, "-o", out); code != 0 {
			t.Errorf("report -o %s: exit %d: %s", out, code, stderr)
		}
	}
}

// TestOutputHasNoEscapes: text a pack puts into the rows (here ticket
// subjects with terminal escape sequences, a bidirectional override and a
// carriage return) is shown escaped by inspect, stats and validate, and
// by domain show.
func TestOutputHasNoEscapes(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "pack")
	if err := pack.Init(dir, ""); err != nil {
		t.Fatal(err)
	}
	gen := filepath.Join(dir, "generator.star")
	src, err := os.ReadFile(gen)
	if err != nil {
		t.Fatal(err)
	}
	hostile := strings.NewReplacer(
		`"Charged twice this month"`, `"Charged \x1b]0;pwned\x07twice \x1b[2J"`,
		`"Refund not received"`, `"Refund \u202edeviecer ton\u202c"`,
		`"Please add dark mode"`, `"Please\radd dark mode"`,
	).Replace(string(src))
	if hostile == string(src) {
		t.Fatal("the starter pack's generator changed: update the subjects this test replaces")
	}
	if err := os.WriteFile(gen, []byte(hostile), 0o644); err != nil {
		t.Fatal(err)
	}
	pol := filepath.Join(dir, "policy.md")
	if err := os.WriteFile(pol, []byte("Be kind.\x1b[8m hidden\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "rel")
	if code, _, stderr := synth(t, "run", "--domain", dir, "-n", "40", "--quiet", "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	seen := false
	for _, args := range [][]string{{"inspect", out}, {"stats", out}, {"validate", out}, {"domain", "show", dir}} {
		code, stdout, stderr := synth(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		for _, bad := range []string{"\x1b", "\x07", "\u202e", "\r"} {
			if strings.Contains(stdout+stderr, bad) {
				t.Errorf("%v prints %q raw", args, bad)
			}
		}
		seen = seen || strings.Contains(stdout, `\x1b`)
	}
	if !seen {
		t.Error("no output showed the escaped sequence: the test does not reach the hostile text")
	}
}
