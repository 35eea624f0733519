package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tau2Folder returns τ²-bench's domain folder in ../shared/tau2 (or
// $SYNTH_TAU2_DIR), skipping when it is absent.
func tau2Folder(t *testing.T, domain string) string {
	t.Helper()
	root := os.Getenv("SYNTH_TAU2_DIR")
	if root == "" {
		root = filepath.Join("..", "..", "..", "shared", "tau2")
	}
	dir := filepath.Join(root, domain)
	if _, err := os.Stat(filepath.Join(dir, "db.json")); err != nil {
		t.Skipf("τ²'s %s data is not at %s (../shared/tau2 outside the repo, or set SYNTH_TAU2_DIR): %v", domain, dir, err)
	}
	return dir
}

// importTau2 runs synth domain import-tau2 into a new folder.
func importTau2(t *testing.T, domain string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "tau2-"+domain)
	code, stdout, stderr := synth(t, "domain", "import-tau2", tau2Folder(t, domain), "-o", out)
	if code != 0 {
		t.Fatalf("import-tau2 %s: exit %d\n%s%s", domain, code, stdout, stderr)
	}
	if !strings.Contains(stdout, "held out") {
		t.Errorf("import-tau2 says nothing of the holdout: %s", stdout)
	}
	return out
}

// TestTau2Packs: the packs import-tau2 makes of τ²'s retail and airline
// run with every control and engine, verify, re-validate from the
// release's own domain/, say in the manifest and the card that they were
// checked against τ²'s tasks, and a release holding one of those tasks
// fails validation.
func TestTau2Packs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs τ²'s environments")
	}
	for _, domain := range []string{"retail", "airline"} {
		t.Run(domain, func(t *testing.T) {
			pk := importTau2(t, domain)
			base := emulateCommand(t, "--mistake-rate", "0", "--domain", pk)
			runs := map[string][]string{
				"defaults":       nil,
				"writes 2":       {"--writes", "2"},
				"reads 3-4":      {"--writes", "1", "--reads", "3-4"},
				"behaviours":     {"--behaviors", "changes_mind,typos"},
				"dpo":            {"--dpo"},
				"llm engine":     {"--engine", "llm", "--base-url", base, "--model", "emulated", "--api-key-env", "none", "--llm-cache", "off", "--trials", "2"},
				"hybrid engine":  {"--engine", "hybrid", "--base-url", base, "--model", "emulated", "--api-key-env", "none", "--llm-cache", "off"},
				"llm with users": {"--engine", "llm", "--user", "embedded", "--base-url", base, "--model", "emulated", "--api-key-env", "none", "--llm-cache", "off", "--trials", "2"},
			}
			for name, extra := range runs {
				t.Run(name, func(t *testing.T) {
					out := filepath.Join(t.TempDir(), "rel")
					args := append([]string{"run", "--domain", pk, "-n", "12", "--seed", "5", "--out", out, "--quiet"}, extra...)
					if code, stdout, stderr := synth(t, args...); code != 0 {
						t.Fatalf("%v: exit %d\n%s%s", args, code, stdout, stderr)
					}
					if code, stdout, _ := synth(t, "validate", out); code != 0 {
						t.Fatalf("validate: exit %d\n%s", code, stdout)
					}
					raw, err := os.ReadFile(filepath.Join(out, "manifest.json"))
					if err != nil {
						t.Fatal(err)
					}
					var m struct {
						Holdout *struct{ Tasks, Dropped int } `json:"holdout"`
					}
					if err := json.Unmarshal(raw, &m); err != nil || m.Holdout == nil || m.Holdout.Tasks == 0 {
						t.Errorf("the manifest does not say the release was checked against τ²'s tasks: %s", raw)
					}
					card, _ := os.ReadFile(filepath.Join(out, "README.md"))
					if !strings.Contains(string(card), "Contamination guard") {
						t.Error("the card does not say the release was checked against τ²'s tasks")
					}
				})
			}
		})
	}
}

// TestTau2HoldoutValidated: a release whose domain holds out one of its
// own tasks fails validation naming the task.
func TestTau2HoldoutValidated(t *testing.T) {
	pk := importTau2(t, "retail")
	out := filepath.Join(t.TempDir(), "rel")
	if code, stdout, stderr := synth(t, "run", "--domain", pk, "-n", "6", "--writes", "1", "--out", out, "--quiet"); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	raw, err := os.ReadFile(filepath.Join(out, "blueprints", "train-00000-of-00001.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	bps := gunzipLines(t, raw)
	var bp struct {
		ID      string `json:"id"`
		Actions []struct {
			Tool string          `json:"tool"`
			Kind string          `json:"kind"`
			Args json.RawMessage `json:"arguments"`
		} `json:"actions"`
	}
	if err := json.Unmarshal([]byte(bps[0]), &bp); err != nil {
		t.Fatal(err)
	}
	var writes []map[string]any
	for _, a := range bp.Actions {
		if a.Kind == "write" {
			var args map[string]any
			if err := json.Unmarshal(a.Args, &args); err != nil {
				t.Fatal(err)
			}
			writes = append(writes, map[string]any{"name": a.Tool, "arguments": args})
		}
	}
	hold, _ := json.Marshal([]any{map[string]any{"id": "planted", "writes": writes}})
	if err := os.WriteFile(filepath.Join(out, "domain", "holdout.json"), hold, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := synth(t, "validate", out)
	if code == 0 || !strings.Contains(stdout, "held-out task planted") {
		t.Fatalf("validate of a release holding a held-out task: exit %d\n%s", code, stdout)
	}
}

func gunzipLines(t *testing.T, raw []byte) []string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}
