package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// interopScript returns node and the DuckDB check script, or skips the test
// when they are not installed (fails instead under SYNTH_REQUIRE_INTEROP=1,
// so CI cannot pass by silently skipping).
func interopScript(t *testing.T) (node, script string) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "test", "interop"))
	if err != nil {
		t.Fatal(err)
	}
	var missing string
	node, err = exec.LookPath("node")
	if err != nil {
		missing = "node is not on PATH"
	} else if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api")); err != nil {
		missing = "@duckdb/node-api is not installed in test/interop"
	}
	if missing != "" {
		msg := missing + "; run `npm ci --prefix test/interop` to enable the DuckDB interop check"
		if os.Getenv("SYNTH_REQUIRE_INTEROP") == "1" {
			t.Fatal(msg + " (required: SYNTH_REQUIRE_INTEROP=1)")
		}
		t.Skip(msg)
	}
	return node, filepath.Join(dir, "duckdb_check.mjs")
}

func TestDuckDBInterop(t *testing.T) {
	node, script := interopScript(t)

	// 26 rows over two splits and several files, including a row without
	// tool calls or evidence first, so DuckDB's schema comes from a file
	// whose first row is bare.
	good := func() map[string][]SFTRow {
		rows := map[string][]SFTRow{"train": {{ID: "bare", Messages: sampleMessages(0)[:2], Tools: "[]"}}}
		for i := range 20 {
			rows["train"] = append(rows["train"], sampleSFT(i))
		}
		for i := range 5 {
			rows["validation"] = append(rows["validation"], sampleSFT(100+i))
		}
		return rows
	}
	tests := []struct {
		name    string
		mutate  func(map[string][]SFTRow)
		args    []string
		wantOK  bool
		wantErr string
	}{
		{name: "valid release", args: []string{"--rows", "26"}, wantOK: true},
		{name: "count from manifest", args: nil, wantOK: true},
		{name: "wrong count", args: []string{"--rows", "27"}, wantErr: "sft has 26 rows, --rows says 27"},
		{name: "bad tool-call id", args: []string{"--rows", "26"}, mutate: func(rows map[string][]SFTRow) {
			rows["train"][3].Messages[2].ToolCalls[0].ID = "call_1"
		}, wantErr: "1 tool calls have an id that is not 9 alphanumerics"},
		{name: "arguments not JSON", args: []string{"--rows", "26"}, mutate: func(rows map[string][]SFTRow) {
			rows["validation"][0].Messages[7].ToolCalls[0].Function.Arguments = "{order_id:"
		}, wantErr: "1 tool calls have arguments that are not a JSON object"},
		{name: "tool message without name", args: []string{"--rows", "26"}, mutate: func(rows map[string][]SFTRow) {
			rows["train"][5].Messages[3].Name = ""
		}, wantErr: "1 tool messages lack tool_call_id or name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			rows := good()
			if tt.mutate != nil {
				tt.mutate(rows)
			}
			files := writeSFT(t, dir, Options{RowsPerFile: 8, RowsPerGroup: 3}, rows)
			if len(files) != 4 {
				t.Fatalf("want 4 files, got %v", fileNames(files))
			}
			if err := WriteFileAtomic(filepath.Join(dir, "manifest.json"), []byte(`{"counts":{"sft_rows":26}}`)); err != nil {
				t.Fatal(err)
			}

			cmd := exec.CommandContext(t.Context(), node, append([]string{script, dir}, tt.args...)...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatalf("running %s: %v", script, err)
			}
			var summary struct {
				OK        bool `json:"ok"`
				Files     int  `json:"files"`
				Rows      int  `json:"rows"`
				ToolCalls int  `json:"tool_calls"`
			}
			if jerr := json.Unmarshal(stdout.Bytes(), &summary); jerr != nil {
				t.Fatalf("summary is not one JSON line: %v\nstdout: %s\nstderr: %s", jerr, stdout.String(), stderr.String())
			}
			if tt.wantOK {
				if err != nil || !summary.OK {
					t.Fatalf("check failed: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
				}
				// sampleMessages makes 3 tool calls per dialogue.
				want := fmt.Sprintf("%d files, %d rows, %d tool calls", 4, 26, 25*3)
				if got := fmt.Sprintf("%d files, %d rows, %d tool calls", summary.Files, summary.Rows, summary.ToolCalls); got != want {
					t.Errorf("summary: %s, want %s", got, want)
				}
				return
			}
			if err == nil || summary.OK {
				t.Fatalf("check passed, want a failure\nstdout: %s", stdout.String())
			}
			if !strings.Contains(stderr.String(), tt.wantErr) {
				t.Fatalf("stderr does not contain %q:\n%s", tt.wantErr, stderr.String())
			}
		})
	}
}
