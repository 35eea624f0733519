package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// shared is the small release with DPO pairs most tests read, made once
// per test binary: each test gets a copy of its own (makeRelease), which
// it may change.
var shared struct {
	once sync.Once
	dir  string // the release, in a folder TestMain removes
	err  string
}

// makeRelease returns a copy of the shared release, made through the CLI
// the first time a test asks for it.
func makeRelease(t *testing.T) string {
	t.Helper()
	shared.once.Do(func() {
		root, err := os.MkdirTemp("", "synth-cmd-test-")
		if err != nil {
			shared.err = err.Error()
			return
		}
		out := filepath.Join(root, "rel")
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{"run", "-n", "30", "--seed", "4", "--dpo", "--quiet", "--out", out}, &stdout, &stderr); code != 0 {
			shared.err = fmt.Sprintf("run exit %d: %s", code, stderr.String())
		}
		shared.dir = out
	})
	if shared.err != "" {
		t.Fatal(shared.err)
	}
	dst := filepath.Join(t.TempDir(), "rel")
	copyTree(t, shared.dir, dst)
	return dst
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
