package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportCommand(t *testing.T) {
	dir := makeRelease(t)
	code, stdout, stderr := synth(t, "report", dir)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	def := filepath.Join(dir, "report.html")
	if !strings.Contains(stdout, def) {
		t.Errorf("report does not say where it wrote: %s", stdout)
	}
	page, err := os.ReadFile(def)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(page), "<!DOCTYPE html>") || !strings.Contains(string(page), `id="chart-writes"`) {
		t.Errorf("%s is not a report", def)
	}
	// The report beside the data does not make the release invalid.
	if code, stdout, _ := synth(t, "validate", dir); code != 0 {
		t.Errorf("validate after report: exit %d\n%s", code, stdout)
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

	if code, _, _ := synth(t, "report", t.TempDir()); code != 1 {
		t.Errorf("report of a folder without a release: exit %d, want 1", code)
	}
}
