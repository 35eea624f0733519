package emulate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// errorOf decodes an error body in the shape flavor f's server writes,
// and fails when the body has another shape: each flavor must answer in
// its own.
func errorOf(t *testing.T, f Flavor, status int, raw []byte) (message string, param *string) {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		t.Fatalf("%s: error body %s is not JSON: %v", f, raw, err)
	}
	if f == FlavorSGLang {
		var e struct {
			Object, Message, Type string
			Param                 *string
			Code                  int
		}
		_ = json.Unmarshal(raw, &e)
		if _, wrapped := top["error"]; wrapped || e.Object != "error" || e.Code != status || e.Type == "" {
			t.Errorf("sglang error body %s: want the flat {object: error, message, type, param, code: %d}", raw, status)
		}
		return e.Message, e.Param
	}
	var inner map[string]json.RawMessage
	if err := json.Unmarshal(top["error"], &inner); err != nil || len(top) != 1 {
		t.Fatalf("%s: error body %s: want {\"error\": {...}} alone", f, raw)
	}
	var e struct {
		Message string
		Type    string
		Param   *string
		Code    json.RawMessage
	}
	_ = json.Unmarshal(top["error"], &e)
	keys := []string{}
	for k := range inner {
		keys = append(keys, k)
	}
	switch f {
	case FlavorVLLM:
		if string(e.Code) != itoa(status) || len(inner) != 4 || e.Type == "" {
			t.Errorf("vllm error body %s: want message, type, param and code %d", raw, status)
		}
	case FlavorLlamaCPP:
		if _, hasParam := inner["param"]; hasParam || string(e.Code) != itoa(status) || len(inner) != 3 {
			t.Errorf("llama.cpp error body %s: want code %d, message and type, no param", raw, status)
		}
	case FlavorOllama:
		if string(e.Code) != "null" || len(inner) != 4 {
			t.Errorf("ollama error body %s: want message, type, param null and code null", raw)
		}
	default:
		if len(inner) != 4 || (string(e.Code) != "null" && !bytes.HasPrefix(e.Code, []byte(`"`))) {
			t.Errorf("%s error body %s: want message, type, param and a string or null code (keys %v)", f, raw, keys)
		}
	}
	return e.Message, e.Param
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// chatBody is a small request body with the given fields set on top.
func chatBody(t *testing.T, model string, extra map[string]any) []byte {
	t.Helper()
	m := map[string]any{"model": model, "messages": []any{map[string]any{"role": "user", "content": "hello there"}}}
	for k, v := range extra {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var oneTool = []any{map[string]any{"type": "function", "function": map[string]any{"name": "get_order_details",
	"parameters": map[string]any{"type": "object", "properties": map[string]any{"order_id": map[string]any{"type": "string"}}}}}}

func TestFlavorRefusals(t *testing.T) {
	noContent := []any{map[string]any{"role": "user", "content": "hi"}, map[string]any{"role": "tool", "tool_call_id": "a"}}
	badArgs := []any{map[string]any{"role": "user", "content": "hi"},
		map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "a", "type": "function", "function": map[string]any{"name": "get_order_details", "arguments": `{"order_id": "#W1`}}}},
		map[string]any{"role": "tool", "tool_call_id": "a", "content": "Error: malformed"}}
	kwargs := map[string]any{"enable_thinking": false}
	for _, tc := range []struct {
		name    string
		flavor  Flavor
		noTools bool
		model   string
		extra   map[string]any
		status  int
		want    string // in the message; "" for a 200
		param   string
	}{
		// OpenAI refuses what it does not know and what its reasoning
		// models do not take.
		{"openai refuses chat_template_kwargs", FlavorOpenAI, false, "gpt-4o-mini", map[string]any{"chat_template_kwargs": kwargs}, 400, "Unrecognized request argument supplied: chat_template_kwargs", ""},
		{"openai names every unknown field", FlavorOpenAI, false, "gpt-4o-mini", map[string]any{"top_k": 20, "min_p": 0.1}, 400, "Unrecognized request arguments supplied: min_p, top_k", ""},
		{"openai o-series refuses max_tokens", FlavorOpenAI, false, "o4-mini", map[string]any{"max_tokens": 50}, 400, "Use 'max_completion_tokens' instead", "max_tokens"},
		{"openai o-series takes max_completion_tokens", FlavorOpenAI, false, "o4-mini", map[string]any{"max_completion_tokens": 500}, 200, "", ""},
		{"openai gpt-5 refuses temperature 0", FlavorOpenAI, false, "gpt-5-mini", map[string]any{"temperature": 0}, 400, "'temperature' does not support 0 with this model", "temperature"},
		{"openai gpt-5 takes temperature 1", FlavorOpenAI, false, "gpt-5-mini", map[string]any{"temperature": 1}, 200, "", ""},
		{"openai chat model refuses reasoning_effort", FlavorOpenAI, false, "gpt-4o-mini", map[string]any{"reasoning_effort": "low"}, 400, "Unrecognized request argument supplied: reasoning_effort", ""},
		{"openai reasoning model takes reasoning_effort", FlavorOpenAI, false, "o3", map[string]any{"reasoning_effort": "low"}, 200, "", ""},
		{"openai wants content", FlavorOpenAI, false, "gpt-4o-mini", map[string]any{"messages": noContent}, 400, "Missing required parameter: 'messages[1].content'", "messages[1].content"},
		// vLLM ignores unknown fields, validates its enums, and refuses
		// tools without --enable-auto-tool-choice.
		{"vllm ignores unknown fields", FlavorVLLM, false, "m", map[string]any{"top_k": 20, "some_vendor_field": true}, 200, "", ""},
		{"vllm takes chat_template_kwargs", FlavorVLLM, false, "m", map[string]any{"chat_template_kwargs": kwargs}, 200, "", ""},
		{"vllm refuses an unknown effort", FlavorVLLM, false, "m", map[string]any{"reasoning_effort": "extreme"}, 400, "reasoning_effort", ""},
		{"vllm without a tool parser", FlavorVLLM, true, "m", map[string]any{"tools": oneTool}, 400, `"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`, ""},
		{"vllm without a tool parser, tool_choice none", FlavorVLLM, true, "m", map[string]any{"tools": oneTool, "tool_choice": "none"}, 200, "", ""},
		{"vllm json_schema without its schema", FlavorVLLM, false, "m", map[string]any{"response_format": map[string]any{"type": "json_schema"}}, 400, "'json_schema' field must be provided", "response_format"},
		// SGLang: flat error bodies; efforts as tiers or numbers.
		{"sglang takes a numeric effort", FlavorSGLang, false, "m", map[string]any{"reasoning_effort": 0.5}, 200, "", ""},
		{"sglang refuses an unknown effort", FlavorSGLang, false, "m", map[string]any{"reasoning_effort": "extreme"}, 400, "reasoning_effort", ""},
		{"sglang without a tool parser answers", FlavorSGLang, true, "m", map[string]any{"tools": oneTool}, 200, "", ""},
		// Ollama ignores what its OpenAI layer has no field for.
		{"ollama ignores chat_template_kwargs", FlavorOllama, false, "qwen3", map[string]any{"chat_template_kwargs": kwargs, "max_completion_tokens": 5}, 200, "", ""},
		{"ollama refuses an unknown effort", FlavorOllama, false, "qwen3", map[string]any{"reasoning_effort": "extreme"}, 400, `invalid reasoning value: "extreme"`, ""},
		{"ollama wants content", FlavorOllama, false, "qwen3", map[string]any{"messages": noContent}, 400, "invalid message content type: <nil>", ""},
		{"ollama reads replayed arguments", FlavorOllama, false, "qwen3", map[string]any{"messages": badArgs}, 400, "invalid tool call arguments", ""},
		{"ollama model without tools", FlavorOllama, true, "gemma3", map[string]any{"tools": oneTool}, 400, "registry.ollama.ai/library/gemma3:latest does not support tools", ""},
		// llama.cpp: runtime errors are 500s.
		{"llama.cpp without --jinja", FlavorLlamaCPP, true, "m", map[string]any{"tools": oneTool}, 500, "tools param requires --jinja flag", ""},
		{"llama.cpp without --jinja, tool_choice", FlavorLlamaCPP, true, "m", map[string]any{"tool_choice": "required"}, 500, "tool_choice param requires --jinja flag", ""},
		{"llama.cpp wants content", FlavorLlamaCPP, false, "m", map[string]any{"messages": noContent}, 400, "All non-assistant messages must contain 'content'", ""},
		{"llama.cpp response_format type", FlavorLlamaCPP, false, "m", map[string]any{"response_format": map[string]any{"type": "xml"}}, 400, "response_format type must be one of", ""},
		{"llama.cpp enable_thinking as a string", FlavorLlamaCPP, false, "m", map[string]any{"chat_template_kwargs": map[string]any{"enable_thinking": "false"}}, 400, `invalid type for "enable_thinking"`, ""},
		{"llama.cpp reads replayed arguments", FlavorLlamaCPP, false, "m", map[string]any{"messages": badArgs}, 500, "Failed to parse tool call arguments as JSON", ""},
		// Generic takes everything, as before flavors.
		{"generic takes anything", FlavorGeneric, false, "m", map[string]any{"chat_template_kwargs": kwargs, "top_k": 2, "messages": noContent}, 200, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ts, _ := start(t, Options{Flavor: tc.flavor, NoToolParser: tc.noTools})
			res, err := http.Post(ts.URL+"/v1/chat/completions", "application/json", bytes.NewReader(chatBody(t, tc.model, tc.extra)))
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != tc.status {
				t.Fatalf("status %d (%s), want %d", res.StatusCode, raw, tc.status)
			}
			if tc.status == http.StatusOK {
				return
			}
			msg, param := errorOf(t, tc.flavor, tc.status, raw)
			if !strings.Contains(msg, tc.want) {
				t.Errorf("message %q, want it to contain %q", msg, tc.want)
			}
			if tc.param != "" && (param == nil || *param != tc.param) {
				t.Errorf("param %v, want %q", param, tc.param)
			}
		})
	}
}

// respondTo renders a reply under flavor f for a request body, as the
// handler does after the role answered.
func respondTo(t *testing.T, f Flavor, body []byte, g generation, inline bool) (map[string]any, *apiError) {
	t.Helper()
	req, err := parseRequest(body, f == FlavorOpenAI)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{opts: Options{Flavor: f}, metrics: newMetrics(1)}
	gen := s.generate(req, g.reply)
	gen.malformed = gen.malformed || g.malformed
	out, _, refusal := f.respond(req, body, gen, inline)
	if refusal != nil {
		return nil, refusal
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("%s: %s: %v", f, out, err)
	}
	return m, nil
}

func messageOf(t *testing.T, resp map[string]any) (map[string]any, string) {
	t.Helper()
	ch := resp["choices"].([]any)[0].(map[string]any)
	return ch["message"].(map[string]any), ch["finish_reason"].(string)
}

func TestFlavorReasoning(t *testing.T) {
	thought := reply{Content: "Your order is on its way.", ReasoningContent: "The order shipped yesterday."}
	for _, tc := range []struct {
		flavor Flavor
		model  string
		extra  map[string]any
		inline bool
		field  string // where the reasoning is; "" when nowhere
		inText bool   // as <think>…</think> at the head of the content
	}{
		{FlavorGeneric, "m", nil, false, "reasoning_content", false},
		{FlavorVLLM, "m", nil, false, "reasoning", false},
		{FlavorSGLang, "m", nil, false, "reasoning_content", false},
		{FlavorLlamaCPP, "m", nil, false, "reasoning_content", false},
		{FlavorOllama, "qwen3", nil, false, "reasoning", false},
		{FlavorOpenAI, "o4-mini", nil, false, "", false},
		{FlavorOpenAI, "gpt-4o-mini", nil, false, "", false},
		// Without a reasoning parser the thinking stays in the text.
		{FlavorVLLM, "m", nil, true, "", true},
		{FlavorSGLang, "m", nil, true, "", true},
		{FlavorLlamaCPP, "m", nil, true, "", true},
		// Thinking turned off per request.
		{FlavorVLLM, "m", map[string]any{"chat_template_kwargs": map[string]any{"enable_thinking": false}}, false, "", false},
		{FlavorVLLM, "m", map[string]any{"reasoning_effort": "none"}, false, "", false},
		{FlavorSGLang, "m", map[string]any{"reasoning_effort": "none"}, false, "", false},
		{FlavorLlamaCPP, "m", map[string]any{"chat_template_kwargs": map[string]any{"enable_thinking": false}}, false, "", false},
		{FlavorOllama, "qwen3", map[string]any{"reasoning_effort": "none"}, false, "", false},
		// Ollama's OpenAI layer has no chat_template_kwargs: still thinks.
		{FlavorOllama, "qwen3", map[string]any{"chat_template_kwargs": map[string]any{"enable_thinking": false}}, false, "reasoning", false},
	} {
		name := string(tc.flavor) + "/" + tc.model
		if tc.inline {
			name += "/no-reasoning-parser"
		}
		if tc.extra != nil {
			b, _ := json.Marshal(tc.extra)
			name += "/" + string(b)
		}
		t.Run(name, func(t *testing.T) {
			resp, refusal := respondTo(t, tc.flavor, chatBody(t, tc.model, tc.extra), generation{reply: thought}, tc.inline)
			if refusal != nil {
				t.Fatal(refusal)
			}
			m, finish := messageOf(t, resp)
			if finish != "stop" {
				t.Errorf("finish %q", finish)
			}
			for _, f := range []string{"reasoning", "reasoning_content"} {
				got, _ := m[f].(string)
				if f == tc.field && got != thought.ReasoningContent {
					t.Errorf("%s = %q, want the reasoning", f, got)
				}
				if f != tc.field && got != "" {
					t.Errorf("%s = %q, want none there", f, got)
				}
			}
			content := m["content"].(string)
			if tc.inText != strings.HasPrefix(content, "<think>\n"+thought.ReasoningContent+"\n</think>") || !strings.HasSuffix(content, thought.Content) {
				t.Errorf("content %q", content)
			}
			if tc.flavor == FlavorOpenAI {
				details := resp["usage"].(map[string]any)["completion_tokens_details"].(map[string]any)
				if n := details["reasoning_tokens"].(float64); (n > 0) != openAIReasoningModel(tc.model) {
					t.Errorf("%s: %v reasoning tokens", tc.model, n)
				}
			}
		})
	}
}

// Each flavor reads an earlier turn's reasoning, sent back on input,
// from the field its server reads, drops the other without a word, and
// counts the reasoning it read into the prompt.
func TestFlavorReadsReplayedReasoning(t *testing.T) {
	for _, tc := range []struct {
		flavor        Flavor
		reads, misses string // the field read, and one dropped ("" for none)
	}{
		{FlavorVLLM, "reasoning", "reasoning_content"},
		{FlavorOllama, "reasoning", "reasoning_content"},
		{FlavorSGLang, "reasoning_content", "reasoning"},
		{FlavorLlamaCPP, "reasoning_content", "reasoning"},
		{FlavorGeneric, "reasoning_content", ""},
		{FlavorGeneric, "reasoning", ""},
		{FlavorOpenAI, "", "reasoning"},
		{FlavorOpenAI, "", "reasoning_content"},
	} {
		for _, field := range []string{tc.reads, tc.misses} {
			if field == "" {
				continue
			}
			body := fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello",%q:"they greeted me"},{"role":"user","content":"bye"}]}`, field)
			req, err := parseRequest([]byte(body), false)
			if err != nil {
				t.Fatal(err)
			}
			before := promptChars(req)
			read, ignored := tc.flavor.readReasoning(req)
			want := field == tc.reads
			if (read == 1) != want || (ignored == 1) == want || (promptChars(req) > before) != want {
				t.Errorf("%s, reasoning in %s: read %d, ignored %d, prompt %d → %d chars; want read: %v", tc.flavor, field, read, ignored, before, promptChars(req), want)
			}
		}
	}
}

func TestFlavorToolCallsAndParserFailures(t *testing.T) {
	call := openai.ToolCall{ID: "abcDEF123", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "get_order_details", Arguments: `{"order_id":"#W2378156"}`}}
	body := func(f Flavor) []byte {
		return chatBody(t, "m", map[string]any{"tools": oneTool})
	}
	for _, tc := range []struct {
		flavor Flavor
		idOK   func(string) bool
	}{
		{FlavorGeneric, func(id string) bool { return id == call.ID }},
		{FlavorOpenAI, func(id string) bool { return strings.HasPrefix(id, "call_") && len(id) == 29 }},
		{FlavorVLLM, func(id string) bool { return strings.HasPrefix(id, "chatcmpl-tool-") && len(id) == 46 }},
		{FlavorSGLang, func(id string) bool { return strings.HasPrefix(id, "call_") && len(id) == 29 }},
		{FlavorOllama, func(id string) bool { return strings.HasPrefix(id, "call_") && len(id) == 13 }},
		{FlavorLlamaCPP, func(id string) bool { return len(id) == 32 }},
	} {
		t.Run(string(tc.flavor), func(t *testing.T) {
			// A call that parses.
			resp, refusal := respondTo(t, tc.flavor, body(tc.flavor), generation{reply: reply{ToolCalls: []openai.ToolCall{call}}}, false)
			if refusal != nil {
				t.Fatal(refusal)
			}
			m, finish := messageOf(t, resp)
			calls, _ := m["tool_calls"].([]any)
			if finish != "tool_calls" || len(calls) != 1 {
				t.Fatalf("finish %q, calls %v", finish, m["tool_calls"])
			}
			c := calls[0].(map[string]any)
			if id, _ := c["id"].(string); !tc.idOK(id) {
				t.Errorf("tool call id %q is not %s's", id, tc.flavor)
			}
			if c["function"].(map[string]any)["arguments"] != call.Function.Arguments {
				t.Errorf("arguments %v", c["function"])
			}
			// Content beside a call: "" for Ollama, null elsewhere.
			if want := tc.flavor == FlavorOllama; (m["content"] == "") != want || (!want && m["content"] != nil) {
				t.Errorf("content beside a tool call: %#v", m["content"])
			}

			// The same call, malformed: each server reports it its way.
			g := generation{reply: reply{Content: "Let me look.", ToolCalls: []openai.ToolCall{call}}, malformed: true}
			resp, refusal = respondTo(t, tc.flavor, body(tc.flavor), g, false)
			switch tc.flavor {
			case FlavorLlamaCPP:
				if refusal == nil || refusal.status != http.StatusInternalServerError || !strings.HasPrefix(refusal.message, "Failed to parse input at pos 12: <tool_call>") {
					t.Fatalf("refusal %+v, want llama.cpp's 500 from the call's position", refusal)
				}
				return
			case FlavorOllama:
				m, finish = messageOf(t, resp)
				if m["content"] != "Let me look." || m["tool_calls"] != nil || finish != "stop" {
					t.Errorf("ollama drops the unparsed call: %v, finish %s", m, finish)
				}
			case FlavorVLLM, FlavorSGLang:
				m, finish = messageOf(t, resp)
				content, _ := m["content"].(string)
				if !strings.HasPrefix(content, "Let me look.\n<tool_call>\n{\"name\": \"get_order_details\"") || m["tool_calls"] != nil || finish != "stop" {
					t.Errorf("%s leaves the call's text as content: %v, finish %s", tc.flavor, m, finish)
				}
			default:
				m, finish = messageOf(t, resp)
				calls, _ := m["tool_calls"].([]any)
				if finish != "tool_calls" || len(calls) != 1 {
					t.Fatalf("%s: finish %q, calls %v", tc.flavor, finish, m["tool_calls"])
				}
				args := calls[0].(map[string]any)["function"].(map[string]any)["arguments"].(string)
				if json.Valid([]byte(args)) {
					t.Errorf("%s: malformed arguments %s parse", tc.flavor, args)
				}
			}
		})
	}
}

func TestFlavorTokenLimits(t *testing.T) {
	long := reply{Content: strings.Repeat("word ", 100)}
	for _, tc := range []struct {
		flavor Flavor
		extra  map[string]any
		cut    bool
	}{
		{FlavorGeneric, map[string]any{"max_tokens": 5}, false},
		{FlavorOpenAI, map[string]any{"max_completion_tokens": 5}, true},
		{FlavorVLLM, map[string]any{"max_tokens": 5}, true},
		{FlavorVLLM, map[string]any{"max_completion_tokens": 5}, true},
		{FlavorSGLang, map[string]any{"max_completion_tokens": 5}, true},
		{FlavorLlamaCPP, map[string]any{"n_predict": 5}, true},
		{FlavorLlamaCPP, map[string]any{"max_completion_tokens": 5}, true},
		{FlavorOllama, map[string]any{"max_tokens": 5}, true},
		// Ollama's OpenAI layer has no max_completion_tokens.
		{FlavorOllama, map[string]any{"max_completion_tokens": 5}, false},
	} {
		b, _ := json.Marshal(tc.extra)
		t.Run(string(tc.flavor)+string(b), func(t *testing.T) {
			resp, refusal := respondTo(t, tc.flavor, chatBody(t, "m", tc.extra), generation{reply: long}, false)
			if refusal != nil {
				t.Fatal(refusal)
			}
			m, finish := messageOf(t, resp)
			content := m["content"].(string)
			if tc.cut != (finish == "length") || tc.cut != (len(content) == 20) {
				t.Errorf("finish %q, %d characters; want cut %v", finish, len(content), tc.cut)
			}
			if usage := resp["usage"].(map[string]any); tc.cut && usage["completion_tokens"].(float64) != 5 {
				t.Errorf("usage %v, want 5 completion tokens", usage)
			}
		})
	}
	// A tool call cut at the limit is one that does not parse.
	call := openai.ToolCall{ID: "abcDEF123", Type: "function", Function: openai.FunctionCall{Name: "get_order_details", Arguments: `{"order_id":"#W2378156","reason":"` + strings.Repeat("x", 80) + `"}`}}
	resp, refusal := respondTo(t, FlavorVLLM, chatBody(t, "m", map[string]any{"tools": oneTool, "max_tokens": 10}), generation{reply: reply{ToolCalls: []openai.ToolCall{call}}}, false)
	if refusal != nil {
		t.Fatal(refusal)
	}
	if m, finish := messageOf(t, resp); finish != "length" || m["tool_calls"] != nil || !strings.Contains(m["content"].(string), "<tool_call>") {
		t.Errorf("a call cut short: %v, finish %s", m, finish)
	}
}

func TestLlamaCPPOneCallUnlessParallel(t *testing.T) {
	calls := []openai.ToolCall{
		{ID: "a", Type: "function", Function: openai.FunctionCall{Name: "get_order_details", Arguments: `{"order_id":"#W1"}`}},
		{ID: "b", Type: "function", Function: openai.FunctionCall{Name: "get_order_details", Arguments: `{"order_id":"#W2"}`}},
	}
	for _, parallel := range []bool{false, true} {
		resp, refusal := respondTo(t, FlavorLlamaCPP, chatBody(t, "m", map[string]any{"tools": oneTool, "parallel_tool_calls": parallel}), generation{reply: reply{ToolCalls: calls}}, false)
		if refusal != nil {
			t.Fatal(refusal)
		}
		m, _ := messageOf(t, resp)
		if got, want := len(m["tool_calls"].([]any)), map[bool]int{false: 1, true: 2}[parallel]; got != want {
			t.Errorf("parallel_tool_calls %v: %d calls, want %d", parallel, got, want)
		}
	}
}

func TestSGLangWithoutToolParserLeavesCallsAsText(t *testing.T) {
	call := openai.ToolCall{ID: "a", Type: "function", Function: openai.FunctionCall{Name: "get_order_details", Arguments: `{"order_id":"#W1"}`}}
	req, err := parseRequest(chatBody(t, "m", map[string]any{"tools": oneTool}), false)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{opts: Options{Flavor: FlavorSGLang, NoToolParser: true}, metrics: newMetrics(1)}
	g := s.generate(req, reply{ToolCalls: []openai.ToolCall{call}})
	out, _, refusal := FlavorSGLang.respond(req, nil, g, false)
	if refusal != nil {
		t.Fatal(refusal)
	}
	var resp map[string]any
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatal(err)
	}
	m, finish := messageOf(t, resp)
	want := markup([]openai.ToolCall{call}, false)
	if m["content"] != want || m["tool_calls"] != nil || finish != "stop" {
		t.Errorf("message %v, finish %s; want the call as text %q", m, finish, want)
	}
	if !json.Valid([]byte(strings.TrimSuffix(strings.TrimPrefix(want, "<tool_call>\n"), "\n</tool_call>"))) {
		t.Errorf("the call's text %q holds invalid JSON", want)
	}
}

func TestParseFlavor(t *testing.T) {
	for _, f := range Flavors() {
		if got, err := ParseFlavor(" " + strings.ToUpper(string(f)) + " "); err != nil || got != f {
			t.Errorf("%s: %v, %v", f, got, err)
		}
	}
	if got, err := ParseFlavor(""); err != nil || got != FlavorGeneric {
		t.Errorf("empty: %v, %v", got, err)
	}
	if _, err := ParseFlavor("tgi"); err == nil || !strings.Contains(err.Error(), "--flavor") {
		t.Errorf("tgi: %v", err)
	}
}
