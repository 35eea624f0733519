package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestToolsFlag: --tools relevant+2 gives rows (SFT and DPO) that carry
// fewer tools than the domain has, every one of them valid by synth
// validate; the manifest and the card say which choice was made; a
// default run of a small domain carries every tool.
func TestToolsFlag(t *testing.T) {
	dir := t.TempDir()
	rel := filepath.Join(dir, "rel")
	if code, stdout, stderr := synth(t, "run", "-n", "30", "--seed", "2", "--tools", "relevant+2", "--dpo", "--out", rel, "--quiet"); code != 0 {
		t.Fatalf("run: %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := synth(t, "validate", rel); code != 0 {
		t.Fatalf("validate: %d\n%s%s", code, stdout, stderr)
	}
	raw, err := os.ReadFile(filepath.Join(rel, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Config map[string]any `json:"config"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if m.Config["tools"] != "relevant+2" {
		t.Errorf("manifest config tools = %v", m.Config["tools"])
	}
	card, _ := os.ReadFile(filepath.Join(rel, "README.md"))
	if !strings.Contains(string(card), "**Tools per row** (`tools`): the tools the task's ground truth uses, the generic ones (transfer, calculator) and 2 others") {
		t.Errorf("the card does not say which tools rows carry")
	}
	ex := filepath.Join(dir, "ex")
	if code, _, stderr := synth(t, "export", rel, "--format", "jsonl", "-o", ex); code != 0 {
		t.Fatalf("export: %s", stderr)
	}
	for _, f := range []string{"sft/train.jsonl", "dpo/train.jsonl"} {
		data, err := os.ReadFile(filepath.Join(ex, f))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var row struct {
				Tools []any `json:"tools"`
			}
			if err := json.Unmarshal([]byte(line), &row); err != nil {
				t.Fatal(err)
			}
			if n := len(row.Tools); n == 0 || n >= 16 {
				t.Errorf("%s line %d: %d tools, want fewer than retail's 16", f, i+1, n)
			}
		}
	}
	if code, _, stderr := synth(t, "run", "-n", "5", "--tools", "some", "--out", filepath.Join(dir, "bad")); code == 0 || !strings.Contains(stderr, `--tools "some"`) {
		t.Errorf("a bad --tools: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad")); err == nil {
		t.Error("a bad --tools wrote its out dir")
	}
	def := filepath.Join(dir, "def")
	if code, _, stderr := synth(t, "run", "-n", "5", "--out", def, "--quiet"); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	raw, _ = os.ReadFile(filepath.Join(def, "manifest.json"))
	if err := json.Unmarshal(raw, &m); err != nil || m.Config["tools"] != "all" {
		t.Errorf("a small domain's default --tools: %v (%v)", m.Config["tools"], err)
	}
}
