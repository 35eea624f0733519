package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportCommand(t *testing.T) {
	dir := makeRelease(t)
	before := snapshot(t, dir)
	code, stdout, stderr := synth(t, "report", dir)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	// By default the report goes beside the release, never into it, and
	// synth says where.
	def := dir + "-report.html"
	if stdout != "wrote "+def+" (open it in a browser)\n" {
		t.Errorf("report does not say where it wrote: %q", stdout)
	}
	page, err := os.ReadFile(def)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(page), "<!DOCTYPE html>") || !strings.Contains(string(page), `id="chart-writes"`) {
		t.Errorf("%s is not a report", def)
	}
	if after := snapshot(t, dir); len(after) != len(before) {
		t.Errorf("the report wrote into the release: %d files before, %d after", len(before), len(after))
	}

	// An existing file is replaced only with --force.
	code, _, stderr = synth(t, "report", dir)
	if code != 1 || stderr != "synth report: -o "+def+" already exists: give --force to replace it, or another -o\n" {
		t.Errorf("report over an existing file: exit %d: %q", code, stderr)
	}
	if err := os.WriteFile(def, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := synth(t, "report", dir, "-o", def); code != 1 {
		t.Errorf("report -o over a file: exit %d, want 1", code)
	}
	if b, _ := os.ReadFile(def); string(b) != "mine" {
		t.Error("a refused report changed the file")
	}
	if code, _, stderr := synth(t, "report", dir, "--force"); code != 0 {
		t.Errorf("report --force: exit %d: %s", code, stderr)
	}

	other := filepath.Join(t.TempDir(), "r.html")
	if code, _, stderr := synth(t, "report", dir, "-o", other, "--rows", "2"); code != 0 {
		t.Fatalf("report -o: exit %d: %s", code, stderr)
	}
	page, err = os.ReadFile(other)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), `<details class="dialogue"`); n != 2 {
		t.Errorf("--rows 2 shows %d dialogues", n)
	}
}

// TestReportNotARelease: a folder that is no release, or no folder at
// all, is named as such, and nothing is written.
func TestReportNotARelease(t *testing.T) {
	root := t.TempDir()
	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{empty, filepath.Join(root, "absent")} {
		code, _, stderr := synth(t, "report", dir)
		if want := "synth report: " + dir + " is not a synth release (no readable manifest.json)"; code != 1 || !strings.HasPrefix(stderr, want) || strings.Contains(stderr, ".tmp") {
			t.Errorf("report %s: exit %d: %q", dir, code, stderr)
		}
		if _, err := os.Stat(dir + "-report.html"); err == nil {
			t.Errorf("report %s wrote a file", dir)
		}
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 {
		t.Errorf("report left files behind: %v", entries)
	}
}
