package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/synth-data/synth/emulate"
)

// emulateCommand starts `synth emulate` with args, as a user would, and
// returns its base URL; it stops with the test.
func emulateCommand(t *testing.T, args ...string) string {
	t.Helper()
	base, _ := startCommand(t, append([]string{"emulate", "--addr", "127.0.0.1:0"}, args...)...)
	return base + "/v1"
}

// TestRunLLMEveryFlavor runs the llm engine end to end, over HTTP,
// against synth emulate answering as each server: the run must finish,
// its rows pass `synth validate`, and the model's reasoning must reach
// the rows exactly when the server returns it.
func TestRunLLMEveryFlavor(t *testing.T) {
	for _, tc := range []struct {
		name      string
		emulate   []string
		model     string
		llm       string // the config file's llm section, JSON
		reasoning bool   // rows carry reasoning_content
		// seen is an HTTP status or fault class the emulator must have
		// answered with at least once: the path the case is about ran.
		seen string
	}{
		{"generic", nil, "emulated", `{}`, true, ""},
		{"openai chat model", []string{"--flavor", "openai"}, "gpt-4o-mini", `{}`, false, ""},
		// A reasoning model: max_tokens is refused, and sent again as
		// max_completion_tokens; the reasoning stays on OpenAI's side.
		{"openai reasoning model", []string{"--flavor", "openai"}, "o4-mini",
			`{"roles": {"writer": {"max_tokens": 2000}, "agent": {"max_tokens": 2000}}}`, false, "400"},
		{"vllm", []string{"--flavor", "vllm"}, "qwen3-32b", `{}`, true, ""},
		{"vllm without a reasoning parser", []string{"--flavor", "vllm", "--no-reasoning-parser"}, "qwen3-32b", `{}`, true, ""},
		{"vllm with thinking off", []string{"--flavor", "vllm"}, "qwen3-32b",
			`{"roles": {"agent": {"extra_body": {"chat_template_kwargs": {"enable_thinking": false}}}}}`, false, ""},
		{"vllm with malformed tool calls", []string{"--flavor", "vllm", "--tool-parse-failures", "0.2"}, "qwen3-32b", `{}`, true, "tool_parse"},
		{"sglang", []string{"--flavor", "sglang"}, "qwen3-32b", `{"roles": {"agent": {"reasoning_effort": "high"}}}`, true, ""},
		{"ollama", []string{"--flavor", "ollama"}, "qwen3:32b", `{"roles": {"writer": {"max_tokens": 2000}}}`, true, ""},
		{"llamacpp", []string{"--flavor", "llamacpp"}, "qwen3", `{}`, true, ""},
		// llama.cpp answers 500 for a call its parser cannot read.
		{"llamacpp with malformed tool calls", []string{"--flavor", "llamacpp", "--tool-parse-failures", "0.2"}, "qwen3", `{}`, true, "500"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && tc.seen == "" && tc.name != "generic" {
				// make test keeps the cases whose faults retry
				// concurrently; the wire formats run in make test-long.
				t.Skip(shortSkip)
			}
			base := emulateCommand(t, append([]string{"--mistake-rate", "0"}, tc.emulate...)...)
			dir := t.TempDir()
			cfg := filepath.Join(dir, "run.yaml")
			if err := os.WriteFile(cfg, []byte(`{"llm": `+tc.llm+`}`), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "rel")
			// The wire formats' own faults only: a declared tool failure
			// adds a retry call, one more for a malformed-call rate to cut.
			code, stdout, stderr := synth(t, "run", "--config", cfg, "--engine", "llm", "--base-url", base, "--model", tc.model,
				"--api-key-env", "none", "--llm-cache", "off", "--max-concurrency", "8", "--trials", "3", "--tool-failures", "0",
				"-n", "8", "--seed", "3", "--out", out, "--quiet")
			if code != 0 {
				t.Fatalf("run exit %d:\n%s\n%s", code, stdout, stderr)
			}
			if code, stdout, _ := synth(t, "validate", out); code != 0 {
				t.Fatalf("validate exit %d:\n%s", code, stdout)
			}
			exported := filepath.Join(dir, "jsonl")
			if code, stdout, stderr := synth(t, "export", out, "--format", "jsonl", "-o", exported); code != 0 {
				t.Fatalf("export exit %d:\n%s\n%s", code, stdout, stderr)
			}
			rows, reasoned, thinkTags := 0, 0, 0
			err := filepath.WalkDir(exported, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") || !strings.Contains(p, "sft") {
					return err
				}
				raw, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
					if line == "" {
						continue
					}
					var row struct {
						Messages []struct {
							Role             string `json:"role"`
							Content          string `json:"content"`
							ReasoningContent string `json:"reasoning_content"`
						} `json:"messages"`
					}
					if err := json.Unmarshal([]byte(line), &row); err != nil {
						return err
					}
					rows++
					for _, m := range row.Messages {
						if m.ReasoningContent != "" {
							reasoned++
						}
						if strings.Contains(m.Content, "<think>") || strings.Contains(m.Content, "</think>") {
							thinkTags++
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d SFT rows, %d messages with reasoning", rows, reasoned)
			if rows < 4 {
				t.Fatalf("%d SFT rows of 8 blueprints", rows)
			}
			if (reasoned > 0) != tc.reasoning {
				t.Errorf("%d messages with reasoning_content in %d rows; want some: %v", reasoned, rows, tc.reasoning)
			}
			if thinkTags > 0 {
				t.Errorf("%d messages keep <think> tags in their content", thinkTags)
			}
			if tc.seen != "" {
				m := emulatorMetrics(t, base)
				if m.Responses[tc.seen] == 0 && m.Faults[tc.seen] == 0 {
					t.Errorf("the emulator never answered %s: responses %v, faults %v", tc.seen, m.Responses, m.Faults)
				}
			}
		})
	}
}

// emulatorMetrics reads /metrics of the synth emulate at base (its /v1 URL).
func emulatorMetrics(t *testing.T, base string) emulate.Metrics {
	t.Helper()
	res, err := http.Get(strings.TrimSuffix(base, "/v1") + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m emulate.Metrics
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}
