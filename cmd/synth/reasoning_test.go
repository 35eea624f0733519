package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// exchange is one chat completion that went through a recorder.
type exchange struct{ request, response []byte }

// recorder is a proxy in front of synth emulate that keeps every chat
// completion it forwards, in the order they were answered.
type recorder struct {
	upstream string
	mu       sync.Mutex
	seen     []exchange
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, rc.upstream+r.URL.Path, bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	req.Header = r.Header.Clone()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if strings.HasSuffix(r.URL.Path, "/chat/completions") && res.StatusCode == http.StatusOK {
		rc.mu.Lock()
		rc.seen = append(rc.seen, exchange{body, out})
		rc.mu.Unlock()
	}
	w.Header().Set("Content-Type", res.Header.Get("Content-Type"))
	w.WriteHeader(res.StatusCode)
	_, _ = w.Write(out)
}

// agentTurn is what the test reads of an agent request and its reply.
type agentTurn struct {
	session  string
	messages []map[string]json.RawMessage
	thought  string // the reply's reasoning, in whichever field the server wrote it
}

// agentTurns returns the agent's requests (the ones with tools), in the
// order they were answered.
func (rc *recorder) agentTurns(t *testing.T) []agentTurn {
	t.Helper()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []agentTurn
	for _, x := range rc.seen {
		var req struct {
			User     string                       `json:"user"`
			Tools    []json.RawMessage            `json:"tools"`
			Messages []map[string]json.RawMessage `json:"messages"`
		}
		var res struct {
			Choices []struct {
				Message struct {
					Reasoning        string `json:"reasoning"`
					ReasoningContent string `json:"reasoning_content"`
				} `json:"message"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(x.request, &req); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(x.response, &res); err != nil || len(res.Choices) == 0 {
			t.Fatalf("reply %s: %v", x.response, err)
		}
		if len(req.Tools) == 0 {
			continue
		}
		m := res.Choices[0].Message
		out = append(out, agentTurn{session: req.User, messages: req.Messages, thought: m.Reasoning + m.ReasoningContent})
	}
	return out
}

// TestAgentReplaysReasoningPerServer runs the LLM engine over HTTP
// against synth emulate answering as each server, through a proxy that
// records the traffic: each agent request after a reply that reasoned
// must carry that reasoning back in the field the server reads
// (reasoning for vLLM 0.20 on and Ollama, reasoning_content for SGLang
// and llama.cpp), and the emulator, reading as the server does, must
// have read every replayed reasoning. Told the wrong server, the agent
// sends a field vLLM drops, and the emulator says so.
func TestAgentReplaysReasoningPerServer(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	for _, tc := range []struct {
		name, flavor, server, model string
		field, other                string // the field the agent must use, and the one it must not
		read                        bool   // the emulator reads what comes back
	}{
		{"vllm", "vllm", "vllm", "qwen3-32b", "reasoning", "reasoning_content", true},
		{"ollama", "ollama", "ollama", "qwen3:32b", "reasoning", "reasoning_content", true},
		{"sglang", "sglang", "sglang", "qwen3-32b", "reasoning_content", "reasoning", true},
		{"llamacpp", "llamacpp", "llamacpp", "qwen3", "reasoning_content", "reasoning", true},
		{"vllm told sglang", "vllm", "sglang", "qwen3-32b", "reasoning_content", "reasoning", false},
		// No server named: reasoning_content, as synth always sent it.
		{"generic", "generic", "", "emulated", "reasoning_content", "reasoning", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := emulateCommand(t, "--flavor", tc.flavor, "--mistake-rate", "0")
			rc := &recorder{upstream: strings.TrimSuffix(base, "/v1")}
			proxy := httptest.NewServer(rc)
			t.Cleanup(proxy.Close)
			out := filepath.Join(t.TempDir(), "rel")
			code, stdout, stderr := synth(t, "run", "--engine", "llm", "--base-url", proxy.URL+"/v1", "--server", tc.server, "--model", tc.model,
				"--api-key-env", "none", "--llm-cache", "off", "--max-concurrency", "4", "--trials", "1",
				"-n", "2", "--seed", "3", "--out", out, "--quiet")
			if code != 0 {
				t.Fatalf("run exit %d:\n%s\n%s", code, stdout, stderr)
			}
			checkReplayed(t, rc.agentTurns(t), tc.field, tc.other)
			m := emulatorMetrics(t, base)
			if got := m.Reasoning.Read > 0 && m.Reasoning.Ignored == 0; got != tc.read {
				t.Errorf("the %s emulator read %d replayed reasonings and ignored %d; want all read: %v", tc.flavor, m.Reasoning.Read, m.Reasoning.Ignored, tc.read)
			}
		})
	}
}

// checkReplayed checks that every agent request following a reply that
// reasoned sends that reasoning back on the reply's message, in field
// and nothing in other.
func checkReplayed(t *testing.T, turns []agentTurn, field, other string) {
	t.Helper()
	last := map[string]agentTurn{}
	checked := 0
	for _, turn := range turns {
		prev, seen := last[turn.session]
		last[turn.session] = turn
		if !seen || prev.thought == "" {
			continue
		}
		// The reply to the previous request is the first message after
		// that request's own.
		reply := turn.messages[len(prev.messages)]
		var got string
		if raw, ok := reply[field]; !ok || json.Unmarshal(raw, &got) != nil {
			t.Fatalf("session %s: the assistant message sent back has no %s: %v", turn.session, field, keys(reply))
		}
		if got != strings.TrimSpace(prev.thought) {
			t.Errorf("session %s: %s is %q, the reply reasoned %q", turn.session, field, got, prev.thought)
		}
		if _, ok := reply[other]; ok {
			t.Errorf("session %s: the request also sends %s", turn.session, other)
		}
		checked++
	}
	if checked == 0 {
		t.Fatalf("no agent reply that reasoned was followed by another request, among %d agent requests", len(turns))
	}
}

func keys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
