package llm_test

// The client against every flavor of synth emulate over real HTTP: each
// server's error bodies are read, its set-up refusals are named with the
// fix and not retried, its tool-parser failures become a turn instead of
// a failed run, and what it refuses synth does not send twice.

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/synth-data/synth/emulate"
	"github.com/synth-data/synth/llm"
)

// transferTool is the handover tool the emulator's weak agent calls for
// a session it does not know, so any agent request gets a tool call.
var transferTool = openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
	Name:       "transfer_to_human_agents",
	Parameters: json.RawMessage(`{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"]}`),
}}

func agentAsk(text string) openai.ChatCompletionRequest {
	return openai.ChatCompletionRequest{User: "no-such-blueprint/t0", Tools: []openai.Tool{transferTool},
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: "You are a customer service agent."},
			{Role: openai.ChatMessageRoleUser, Content: text},
		}}
}

func flavorConfig(t *testing.T, url, model string, roles map[llm.Role]llm.RoleConfig) llm.Config {
	cfg := llm.Config{BaseURL: url, APIKeyEnv: llm.NoKey, Model: model, Cache: t.TempDir(), MaxRetries: 3, Roles: roles}
	return cfg
}

func TestServerRefusalsNamedAndNotRetried(t *testing.T) {
	zero := float32(0)
	for _, tc := range []struct {
		name      string
		opts      emulate.Options
		model     string
		rc        llm.RoleConfig
		status    int
		message   string // the server's own message, decoded from its error shape
		hint      string
		permanent bool
	}{
		{"vllm without --enable-auto-tool-choice", emulate.Options{Flavor: emulate.FlavorVLLM, NoToolParser: true}, "qwen3-32b", llm.RoleConfig{},
			400, `"auto" tool choice requires --enable-auto-tool-choice`, "--enable-auto-tool-choice --tool-call-parser", true},
		{"llama.cpp without --jinja, a 500", emulate.Options{Flavor: emulate.FlavorLlamaCPP, NoToolParser: true}, "qwen3", llm.RoleConfig{},
			500, "tools param requires --jinja flag", "start it with --jinja", true},
		{"ollama model without tools", emulate.Options{Flavor: emulate.FlavorOllama, NoToolParser: true}, "gemma3", llm.RoleConfig{},
			400, "registry.ollama.ai/library/gemma3:latest does not support tools", "tools capability", true},
		{"sglang's flat error body", emulate.Options{Flavor: emulate.FlavorSGLang}, "qwen3", llm.RoleConfig{ReasoningEffort: "extreme"},
			400, "Input should be 'none'", "", true},
		{"openai refuses vLLM's extra_body", emulate.Options{Flavor: emulate.FlavorOpenAI}, "gpt-4o-mini",
			llm.RoleConfig{ExtraBody: map[string]any{"chat_template_kwargs": map[string]any{"enable_thinking": false}}},
			400, "Unrecognized request argument supplied: chat_template_kwargs", "llm.roles.agent.extra_body.chat_template_kwargs", true},
		{"openai chat model refuses reasoning_effort", emulate.Options{Flavor: emulate.FlavorOpenAI}, "gpt-4o-mini", llm.RoleConfig{ReasoningEffort: "low"},
			400, "Unrecognized request argument supplied: reasoning_effort", "llm.roles.agent.reasoning_effort", true},
		{"openai reasoning model refuses temperature 0", emulate.Options{Flavor: emulate.FlavorOpenAI}, "o4-mini", llm.RoleConfig{Temperature: &zero},
			400, "'temperature' does not support 0", "remove llm.roles.agent.temperature", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := startEmulator(t, tc.opts)
			rc := tc.rc
			rc.Model = tc.model
			c := emulatorClient(t, flavorConfig(t, url, tc.model, map[llm.Role]llm.RoleConfig{llm.Agent: rc}))
			_, err := c.Chat(context.Background(), llm.Agent, llm.StageSimulate, agentAsk("my order has not arrived"))
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("err %v, want an *llm.Error", err)
			}
			if e.Status != tc.status || !strings.Contains(e.Message, tc.message) || strings.Contains(e.Message, `{"`) {
				t.Errorf("status %d, message %q; want %d and the server's message %q", e.Status, e.Message, tc.status, tc.message)
			}
			if !strings.Contains(e.Hint, tc.hint) || !strings.Contains(err.Error(), tc.hint) {
				t.Errorf("hint %q (error %q), want it to say %q", e.Hint, err, tc.hint)
			}
			if tc.permanent && (e.Attempts != 1 || c.Stats().Requests != 1) {
				t.Errorf("%d attempts, %d requests: a refused set-up is not retried", e.Attempts, c.Stats().Requests)
			}
		})
	}
}

func TestMaxTokensRefusedThenMaxCompletionTokens(t *testing.T) {
	url := startEmulator(t, emulate.Options{Flavor: emulate.FlavorOpenAI})
	cfg := flavorConfig(t, url, "o4-mini", map[llm.Role]llm.RoleConfig{llm.Writer: {Model: "o4-mini", MaxTokens: 800}})
	cfg.Cache = llm.CacheOff
	c := emulatorClient(t, cfg)
	for i := range 2 {
		resp, err := c.Chat(context.Background(), llm.Writer, llm.StageInstruct, question(i))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Choices[0].Message.Content == "" {
			t.Fatal("empty reply")
		}
	}
	// The first call: refused, then sent again; the second goes right.
	if st := c.Stats(); st.Requests != 3 || st.Faults[llm.FaultClient] != 1 {
		t.Errorf("%d requests, faults %v; want 3 requests, one refusal", st.Requests, st.Faults)
	}
}

func TestToolParserFailuresBecomeTurns(t *testing.T) {
	for _, tc := range []struct {
		flavor   emulate.Flavor
		text     bool // the call's text comes back as content
		calls    int  // tool calls in the reply
		badArgs  bool // the call's arguments do not parse
		unparsed int64
		faults   int64 // tool_parse faults the client counted
	}{
		{emulate.FlavorVLLM, true, 0, false, 1, 0},
		{emulate.FlavorSGLang, true, 0, false, 1, 0},
		// llama.cpp answers 500; the client reads it as the others do.
		{emulate.FlavorLlamaCPP, true, 0, false, 1, 1},
		// Ollama drops the call; the text before it is the reply.
		{emulate.FlavorOllama, false, 0, false, 0, 0},
		{emulate.FlavorOpenAI, false, 1, true, 0, 0},
		{emulate.FlavorGeneric, false, 1, true, 0, 0},
	} {
		t.Run(string(tc.flavor), func(t *testing.T) {
			url := startEmulator(t, emulate.Options{Flavor: tc.flavor, ToolParseRate: 1})
			cfg := flavorConfig(t, url, "qwen3-32b", nil)
			c := emulatorClient(t, cfg)
			resp, err := c.Chat(context.Background(), llm.Agent, llm.StageSimulate, agentAsk("please help"))
			if err != nil {
				t.Fatalf("a malformed tool call must be a turn, not an error: %v", err)
			}
			m := resp.Choices[0].Message
			if strings.Contains(m.Content, "<tool_call>") != tc.text || len(m.ToolCalls) != tc.calls {
				t.Errorf("content %q, %d calls", m.Content, len(m.ToolCalls))
			}
			if tc.calls > 0 && json.Valid([]byte(m.ToolCalls[0].Function.Arguments)) != !tc.badArgs {
				t.Errorf("arguments %q", m.ToolCalls[0].Function.Arguments)
			}
			if !tc.text && tc.calls == 0 && !strings.Contains(m.Content, "transfer you") {
				t.Errorf("content %q, want the text before the dropped call", m.Content)
			}
			st := c.Stats()
			if st.Requests != 1 || st.UnparsedCalls != tc.unparsed || st.Faults[llm.FaultToolParse] != tc.faults {
				t.Errorf("requests %d, unparsed %d, faults %v; want 1, %d, %d tool_parse", st.Requests, st.UnparsedCalls, st.Faults, tc.unparsed, tc.faults)
			}
			// Cached like any reply: a rerun sends nothing and reads the same.
			again, err := emulatorClient(t, cfg).Chat(context.Background(), llm.Agent, llm.StageSimulate, agentAsk("please help"))
			if err != nil || again.Choices[0].Message.Content != m.Content {
				t.Errorf("cached rerun: %q, %v", again.Choices[0].Message.Content, err)
			}
		})
	}
}

// TestEmptyToolResultSent: a tool that returned nothing makes a message
// go-openai would send without content, which llama.cpp, Ollama and
// OpenAI refuse; the client sends it with an empty one.
func TestEmptyToolResultSent(t *testing.T) {
	for _, f := range emulate.Flavors() {
		t.Run(string(f), func(t *testing.T) {
			url := startEmulator(t, emulate.Options{Flavor: f})
			c := emulatorClient(t, flavorConfig(t, url, "qwen3", nil))
			req := agentAsk("cancel it")
			req.Messages = append(req.Messages,
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: "abcDEF123", Type: openai.ToolTypeFunction,
					Function: openai.FunctionCall{Name: "transfer_to_human_agents", Arguments: `{"summary":"x"}`}}}},
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: "abcDEF123", Content: ""})
			if _, err := c.Chat(context.Background(), llm.Agent, llm.StageSimulate, req); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestEveryFlavorAnswers: a plain request through each flavor decodes,
// with its usage counted.
func TestEveryFlavorAnswers(t *testing.T) {
	for _, f := range emulate.Flavors() {
		t.Run(string(f), func(t *testing.T) {
			url := startEmulator(t, emulate.Options{Flavor: f})
			c := emulatorClient(t, flavorConfig(t, url, "gpt-4o-mini", nil))
			resp, err := c.Chat(context.Background(), llm.User, llm.StageSimulate, question(1))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Choices[0].Message.Content == "" || resp.Usage.PromptTokens == 0 || resp.Usage.CompletionTokens == 0 {
				t.Errorf("reply %+v", resp)
			}
			if u := c.Usage().UsedTotal(); u.Responses != 1 || u.PromptTokens == 0 {
				t.Errorf("usage %+v", u)
			}
		})
	}
}
