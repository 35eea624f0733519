package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// makeRelease makes a small release with DPO pairs through the CLI.
func makeRelease(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "rel")
	if code, _, stderr := synth(t, "run", "-n", "30", "--seed", "4", "--dpo", "--quiet", "--out", out); code != 0 {
		t.Fatalf("run exit %d: %s", code, stderr)
	}
	return out
}

func TestValidateCommand(t *testing.T) {
	dir := makeRelease(t)
	code, stdout, stderr := synth(t, "validate", dir)
	if code != 0 || !strings.Contains(stdout, "OK: no defects") {
		t.Fatalf("fresh release: exit %d\n%s%s", code, stdout, stderr)
	}

	code, stdout, _ = synth(t, "validate", "--json", dir)
	var v struct {
		SFTRows int               `json:"sft_rows"`
		Defects []json.RawMessage `json:"defects"`
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil || code != 0 || v.SFTRows != 30 || len(v.Defects) != 0 {
		t.Errorf("--json: exit %d, %+v, %v\n%s", code, v, err, stdout)
	}

	// Damage one Parquet file: the exit status says so, and the output
	// names the file and the reason.
	const file = "sft/train-00000-of-00001.parquet"
	p := filepath.Join(dir, filepath.FromSlash(file))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/3] ^= 0xff
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = synth(t, "validate", dir)
	if code != 1 {
		t.Errorf("damaged release: exit %d, want 1", code)
	}
	if !strings.Contains(stdout, file+": sha256: the file's sha256 is") || !strings.Contains(stderr, "defects") {
		t.Errorf("damaged release: the output does not name the file and reason:\n%s%s", stdout, stderr)
	}
}

func TestValidateCommandUsage(t *testing.T) {
	if code, _, _ := synth(t, "validate"); code == 0 {
		t.Error("validate without a folder exits 0")
	}
	if code, _, _ := synth(t, "validate", filepath.Join(t.TempDir(), "absent")); code != 1 {
		t.Errorf("validate of a missing folder: exit %d, want 1", code)
	}
	code, stdout, _ := synth(t, "validate", t.TempDir())
	if code != 1 || !strings.Contains(stdout, "manifest.json") {
		t.Errorf("validate of an empty folder: exit %d\n%s", code, stdout)
	}
}
