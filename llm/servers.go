package llm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/synth-data/synth/tools"
)

// What synth must know about each server it talks to, read from the
// servers' sources (see docs/llm.md and emulate/flavor.go,
// which reproduces each behaviour for the tests):
//
//   - vLLM refuses tools when it was started without
//     --enable-auto-tool-choice and a --tool-call-parser (400),
//     llama.cpp without --jinja (500: a std::runtime_error), and Ollama
//     for a model whose template has no tools (400). None of these gets
//     better by retrying, llama.cpp's 500 included.
//   - OpenAI refuses any top-level field it does not know ("Unrecognized
//     request argument supplied"), so extra_body keys meant for vLLM or
//     SGLang, and reasoning_effort sent to a model that does not reason.
//   - An assistant turn's reasoning goes back on the next turns in the
//     field the server reads (Config.ReasoningFieldOf): vLLM 0.20 on and
//     Ollama read "reasoning", SGLang, llama.cpp and older vLLM
//     "reasoning_content"; each drops the other without an error, so a
//     wrong guess costs the model its earlier thinking, not the request.
//   - When the model's tool call does not parse, vLLM and SGLang return
//     the text as content, Ollama drops it, and llama.cpp answers 500
//     "Failed to parse input at pos N: <text>": synth reads the last as
//     the first two, so a bad call is a bad turn, not a failed run.

// diagnose names the change that fixes a refused request, from what the
// server said, and reports whether retrying cannot help even though the
// status says it might (llama.cpp's 500 for tools without --jinja).
func diagnose(o outcome, role Role, rc RoleConfig) (hint string, permanent bool) {
	msg := o.message
	switch {
	case strings.Contains(msg, "--enable-auto-tool-choice"):
		return "vLLM serves tools only when started with --enable-auto-tool-choice --tool-call-parser NAME " +
			"(hermes for Qwen, llama3_json, mistral, openai for gpt-oss; see docs/llm.md for each server's flags)", true
	case strings.Contains(msg, "requires --jinja flag"):
		return "llama-server serves tools only with its Jinja templates: start it with --jinja (the default in current builds, so drop --no-jinja)", true
	case strings.Contains(msg, "does not support tools"):
		return "this Ollama model's template has no tools: pick a model with the tools capability (ollama show MODEL lists them)", true
	case strings.Contains(msg, "Failed to parse tool call arguments as JSON"):
		return "the conversation replays a tool call whose arguments are not JSON, which llama.cpp cannot put in its template", true
	case strings.Contains(msg, "does not support thinking"):
		return fmt.Sprintf("this model does not think: remove llm.roles.%s.reasoning_effort, or pick a thinking model", role), true
	case o.param == "temperature" && o.code == "unsupported_value":
		return fmt.Sprintf("this model takes only its default temperature: remove llm.roles.%s.temperature", role), true
	case o.param == "max_tokens" || strings.Contains(msg, "'max_completion_tokens' instead"):
		return fmt.Sprintf("set llm.roles.%s.max_tokens_field: max_completion_tokens", role), true
	}
	if m := unrecognized.FindStringSubmatch(msg); m != nil {
		var keys []string
		for _, f := range strings.Split(m[1], ",") {
			keys = append(keys, configKeyOf(strings.TrimSpace(strings.TrimSuffix(f, ".")), role, rc))
		}
		return "this server does not take " + strings.Join(keys, ", ") + ": remove it from the config", true
	}
	return "", false
}

// unrecognized is OpenAI's refusal of fields it does not know.
var unrecognized = regexp.MustCompile(`Unrecognized request arguments? supplied: ([A-Za-z0-9_.,\s]+)`)

// configKeyOf names the config key that put a request field on the wire.
func configKeyOf(field string, role Role, rc RoleConfig) string {
	base := "llm.roles." + string(role) + "."
	if _, ok := rc.ExtraBody[field]; ok {
		return base + "extra_body." + field
	}
	switch field {
	case "reasoning_effort", "tool_choice", "parallel_tool_calls", "response_format", "seed", "top_p", "temperature":
		return base + field
	case "max_tokens", "max_completion_tokens":
		return base + "max_tokens"
	}
	return field
}

// parseFailurePrefix opens llama.cpp's error for model output its chat
// parser could not read (common/chat.cpp; ggml-org/llama.cpp#24644).
const parseFailurePrefix = "Failed to parse input at pos "

// unparsedReply reads a llama.cpp tool-parser failure out of an error
// body and returns the chat completion the servers that do not fail
// would have sent: the unparsed text as the reply's content. The error
// carries the text from the failing position on, which is the broken
// call. The server reports no usage for it, so there is none.
func unparsedReply(status int, raw []byte, model string) (openai.ChatCompletionResponse, []byte, bool) {
	if status != http.StatusInternalServerError {
		return openai.ChatCompletionResponse{}, nil, false
	}
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &e) != nil || !strings.HasPrefix(e.Error.Message, parseFailurePrefix) {
		return openai.ChatCompletionResponse{}, nil, false
	}
	rest := strings.TrimPrefix(e.Error.Message, parseFailurePrefix)
	_, text, ok := strings.Cut(rest, ": ")
	if !ok {
		return openai.ChatCompletionResponse{}, nil, false
	}
	// The shape of llama.cpp's own replies, so the cache holds a body
	// like any other.
	body, err := tools.MarshalUnescaped(map[string]any{
		"id": "synth-unparsed-tool-call", "object": "chat.completion", "model": model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": text}}},
		"usage": map[string]any{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
	})
	if err != nil {
		return openai.ChatCompletionResponse{}, nil, false
	}
	var resp openai.ChatCompletionResponse
	if json.Unmarshal(body, &resp) != nil {
		return openai.ChatCompletionResponse{}, nil, false
	}
	return resp, body, true
}

// toolMarkup are the openings of tool calls as models write them: a
// reply to a request with tools that holds one in its text, and no tool
// calls, is a call the server did not parse (no parser configured, or
// the call was malformed).
var toolMarkup = []string{"<tool_call>", "[TOOL_CALLS]", "<|python_tag|>", "<function=", "<|tool_call_begin|>", "<｜tool▁call▁begin｜>"}

// hasUnparsedCall reports whether a reply carries tool-call markup as
// text.
func hasUnparsedCall(m openai.ChatCompletionMessage) bool {
	if len(m.ToolCalls) > 0 {
		return false
	}
	return slices.ContainsFunc(toolMarkup, func(t string) bool { return strings.Contains(m.Content, t) })
}
