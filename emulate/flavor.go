package emulate

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
)

// Flavor is the server whose wire behaviour the emulator reproduces:
// where a model's reasoning comes back, which request fields it refuses
// or ignores, how it reports a tool call its parser could not read, its
// error bodies, finish reasons and usage. Each rule names the file of the
// server's source (or the documentation or issue) it was read from, so it
// can be checked again when the server changes.
type Flavor string

// Flavors. FlavorGeneric is no one server: OpenAI's error shape, every
// field accepted, reasoning in reasoning_content, token limits ignored.
// It is the default because it is what synth emulate answered before
// flavors existed, and the tests and dry runs written against it still
// hold.
const (
	FlavorGeneric  Flavor = "generic"
	FlavorOpenAI   Flavor = "openai"
	FlavorVLLM     Flavor = "vllm"
	FlavorSGLang   Flavor = "sglang"
	FlavorOllama   Flavor = "ollama"
	FlavorLlamaCPP Flavor = "llamacpp"
)

// Flavors lists every flavor, the default first.
func Flavors() []Flavor {
	return []Flavor{FlavorGeneric, FlavorOpenAI, FlavorVLLM, FlavorSGLang, FlavorOllama, FlavorLlamaCPP}
}

// ParseFlavor reads a --flavor value; "" is the default.
func ParseFlavor(s string) (Flavor, error) {
	if s == "" {
		return FlavorGeneric, nil
	}
	f := Flavor(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(Flavors(), f) {
		return f, nil
	}
	names := make([]string, 0, len(Flavors()))
	for _, f := range Flavors() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("flavor %q: want one of %s (--flavor)", s, strings.Join(names, ", "))
}

// hasToolSwitch reports whether the flavor's server can run without tool
// calling, which Options.NoToolParser reproduces.
func (f Flavor) hasToolSwitch() bool {
	switch f {
	case FlavorVLLM, FlavorSGLang, FlavorOllama, FlavorLlamaCPP:
		return true
	}
	return false
}

// hasReasoningParser reports whether the flavor's server separates
// reasoning only when a parser is configured, which
// Options.NoReasoningParser turns off. OpenAI never returns reasoning and
// Ollama always parses it.
func (f Flavor) hasReasoningParser() bool {
	switch f {
	case FlavorGeneric, FlavorVLLM, FlavorSGLang, FlavorLlamaCPP:
		return true
	}
	return false
}

// readReasoning takes each assistant message's earlier reasoning from
// the field the flavor's server reads on input into Thought, and counts
// the messages whose reasoning it read and those whose reasoning came
// in a field it drops without a word:
//
//	vllm      reasoning (0.20 on: entrypoints/chat_utils.py reads
//	          message["reasoning"] only; reasoning_content is dropped,
//	          vllm-project/vllm#38488)
//	ollama    reasoning (openai/openai.go: Message.Reasoning → Thinking)
//	sglang    reasoning_content (entrypoints/openai/protocol.py,
//	          ChatCompletionMessageGenericParam)
//	llamacpp  reasoning_content (common/chat.cpp, OpenAI message parser)
//	openai    neither: the Chat Completions API takes no reasoning back
//	generic   either, reasoning_content first
func (f Flavor) readReasoning(req *chatRequest) (read, ignored int) {
	for i := range req.Messages {
		m := &req.Messages[i]
		if m.Role != "assistant" || m.Reasoning == "" && m.ReasoningContent == "" {
			continue
		}
		switch f {
		case FlavorVLLM, FlavorOllama:
			m.Thought = m.Reasoning
		case FlavorSGLang, FlavorLlamaCPP:
			m.Thought = m.ReasoningContent
		case FlavorGeneric:
			m.Thought = m.ReasoningContent
			m.Thought = cmp.Or(m.Thought, m.Reasoning)
		}
		if m.Thought != "" {
			read++
		} else {
			ignored++
		}
	}
	return read, ignored
}

// apiError is a refusal, written in the flavor's error shape.
type apiError struct {
	status  int
	kind    string // OpenAI's error.type; the flavors that name types otherwise map the status
	message string
	param   string // "" is null
	code    string // OpenAI's string code; "" is null
}

func invalid(format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, kind: "invalid_request_error", message: fmt.Sprintf(format, args...)}
}

// errorBody renders e as the flavor's server writes errors.
func (f Flavor) errorBody(e *apiError) []byte {
	param := nullable(e.param)
	var v any
	switch f {
	case FlavorVLLM:
		// vllm/entrypoints/openai/engine/protocol.py: ErrorResponse{error:
		// ErrorInfo{message, type, param, code: int}}, code set to the HTTP
		// status and type to the status's exception name (BadRequestError).
		type info struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Param   *string `json:"param"`
			Code    int     `json:"code"`
		}
		v = struct {
			Error info `json:"error"`
		}{info{e.message, exceptionName(e.status), param, e.status}}
	case FlavorSGLang:
		// python/sglang/srt/entrypoints/openai/protocol.py: ErrorResponse is
		// flat, with no "error" wrapper: {object: "error", message, type,
		// param, code: int}.
		v = struct {
			Object  string  `json:"object"`
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Param   *string `json:"param"`
			Code    int     `json:"code"`
		}{"error", e.message, exceptionName(e.status), param, e.status}
	case FlavorOllama:
		// ollama openai/openai.go NewError: {error: {message, type, param:
		// null, code: null}}, type invalid_request_error for 400,
		// not_found_error for 404, api_error otherwise.
		kind := "api_error"
		switch e.status {
		case http.StatusBadRequest:
			kind = "invalid_request_error"
		case http.StatusNotFound:
			kind = "not_found_error"
		}
		var e2 openAIError
		e2.Error.Message, e2.Error.Type = e.message, kind
		v = e2
	case FlavorLlamaCPP:
		// tools/server/server-common.cpp format_error_response, wrapped by
		// ex_wrapper in tools/server/server.cpp: {error: {code: int,
		// message, type}}; no param.
		type info struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Type    string `json:"type"`
		}
		v = struct {
			Error info `json:"error"`
		}{info{e.status, e.message, llamaErrorType(e.status)}}
	default:
		// OpenAI's shape (and the generic flavor's): {error: {message,
		// type, param, code}}, code a string such as
		// "unsupported_parameter" or null.
		var e2 openAIError
		e2.Error.Message, e2.Error.Type, e2.Error.Param, e2.Error.Code = e.message, e.kind, param, nullable(e.code)
		v = e2
	}
	b, _ := json.Marshal(v)
	return b
}

// openAIError is OpenAI's error body.
type openAIError struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// exceptionNames are the error types vLLM and SGLang write for a
// status: the name of the status, as their create_error_response callers
// pass it; any other status is an InternalServerError.
var exceptionNames = map[int]string{
	http.StatusBadRequest: "BadRequestError", http.StatusNotFound: "NotFoundError",
	http.StatusMethodNotAllowed: "MethodNotAllowedError", http.StatusTooManyRequests: "TooManyRequestsError",
	http.StatusServiceUnavailable: "ServiceUnavailableError",
}

func exceptionName(status int) string { return cmp.Or(exceptionNames[status], "InternalServerError") }

// llamaErrorTypes are format_error_response's types by status
// (tools/server/server-common.cpp); any other status is a server_error.
var llamaErrorTypes = map[int]string{
	http.StatusBadRequest: "invalid_request_error", http.StatusUnauthorized: "authentication_error",
	http.StatusForbidden: "permission_error", http.StatusNotFound: "not_found_error",
	http.StatusNotImplemented: "not_supported_error", http.StatusServiceUnavailable: "unavailable_error",
	http.StatusTooManyRequests: "unavailable_error",
}

func llamaErrorType(status int) string { return cmp.Or(llamaErrorTypes[status], "server_error") }

// openAIParams are the request fields OpenAI's chat completions take
// (openai-python src/openai/types/chat/completion_create_params.py); the
// API refuses any other top-level field with "Unrecognized request
// argument supplied" (openai/openai-python#1354, and
// TutteInstitute/toponymy#148 for chat_template_kwargs).
var openAIParams = []string{
	"audio", "frequency_penalty", "function_call", "functions", "logit_bias", "logprobs",
	"max_completion_tokens", "max_tokens", "messages", "metadata", "modalities", "model", "n",
	"parallel_tool_calls", "prediction", "presence_penalty", "prompt_cache_key", "prompt_cache_retention",
	"reasoning_effort", "response_format", "safety_identifier", "seed", "service_tier", "stop", "store",
	"stream", "stream_options", "temperature", "tool_choice", "tools", "top_logprobs", "top_p", "user",
	"verbosity", "web_search_options",
}

// openAIReasoningModel reports whether OpenAI serves model as a
// reasoning model: the o-series and gpt-5 (its chat variant excepted).
// They refuse max_tokens and any temperature but 1, and return no
// reasoning text, only its token count.
func openAIReasoningModel(model string) bool {
	m := strings.ToLower(model)
	for _, p := range []string{"o1", "o3", "o4"} {
		if m == p || strings.HasPrefix(m, p+"-") {
			return true
		}
	}
	return strings.HasPrefix(m, "gpt-5") && !strings.Contains(m, "chat")
}

// Reasoning-effort values each server takes.
var (
	// vllm/entrypoints/openai/chat_completion/protocol.py reasoning_effort.
	vllmEfforts = []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}
	// ollama openai/openai.go thinkFromReasoningEffort.
	ollamaEfforts = []string{"none", "minimal", "low", "medium", "high", "max", "xhigh", "ultra"}
)

// check refuses what the flavor's server refuses before it generates
// anything. It returns nil for a request the server would take.
func (f Flavor) check(req *chatRequest, noTools bool) *apiError {
	switch f {
	case FlavorOpenAI:
		return checkOpenAI(req)
	case FlavorVLLM:
		return checkVLLM(req, noTools)
	case FlavorSGLang:
		return checkSGLang(req)
	case FlavorOllama:
		return checkOllama(req, noTools)
	case FlavorLlamaCPP:
		return checkLlamaCPP(req, noTools)
	}
	return nil
}

func checkOpenAI(req *chatRequest) *apiError {
	var unknown []string
	for _, k := range req.keys {
		if !slices.Contains(openAIParams, k) {
			unknown = append(unknown, k)
		}
	}
	switch len(unknown) {
	case 0:
	case 1:
		return invalid("Unrecognized request argument supplied: %s", unknown[0])
	default:
		return invalid("Unrecognized request arguments supplied: %s", strings.Join(unknown, ", "))
	}
	if openAIReasoningModel(req.Model) {
		// The issues quote these bodies verbatim: max_tokens
		// (vscode-copilot-release#8065, gpt-5 in griptape-ai/ComfyUI-Griptape#312),
		// temperature (johny-b/llmcomp#69, QwenLM/qwen-code#921).
		if req.MaxTokens != nil {
			return &apiError{status: http.StatusBadRequest, kind: "invalid_request_error", param: "max_tokens", code: "unsupported_parameter",
				message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."}
		}
		var temp float64
		if t := bytes.TrimSpace(req.Temperature); hasValue(t) && (json.Unmarshal(t, &temp) != nil || temp != 1) {
			return &apiError{status: http.StatusBadRequest, kind: "invalid_request_error", param: "temperature", code: "unsupported_value",
				message: fmt.Sprintf("Unsupported value: 'temperature' does not support %s with this model. Only the default (1) value is supported.", t)}
		}
	} else if hasValue(req.ReasoningEffort) {
		// gpt-4o-mini refusing it: davidmigloz/langchain_dart#712.
		return invalid("Unrecognized request argument supplied: reasoning_effort")
	}
	for i, m := range req.Messages {
		// OpenAI's "Missing required parameter" errors carry the
		// parameter's path and code missing_required_parameter
		// (SilasMarvin/lsp-ai#108, neuron-core/neuron-ai#76).
		if m.Role != "assistant" && len(m.RawContent) == 0 {
			p := fmt.Sprintf("messages[%d].content", i)
			return &apiError{status: http.StatusBadRequest, kind: "invalid_request_error", param: p, code: "missing_required_parameter",
				message: fmt.Sprintf("Missing required parameter: '%s'.", p)}
		}
	}
	return nil
}

func checkVLLM(req *chatRequest, noTools bool) *apiError {
	if e, ok := stringField(req.ReasoningEffort); ok && !slices.Contains(vllmEfforts, e) {
		// Pydantic's validation error, which vLLM returns as a 400.
		return invalid("1 validation error for ChatCompletionRequest\nreasoning_effort\n  Input should be %s [type=literal_error, input_value=%q, input_type=str]",
			quotedList(vllmEfforts), e)
	}
	if rf := responseFormatType(req.ResponseFormat); rf == "json_schema" && !hasKey(req.ResponseFormat, "json_schema") {
		// protocol.py validate_response_format.
		return &apiError{status: http.StatusBadRequest, kind: "invalid_request_error", param: "response_format",
			message: "When response_format type is 'json_schema', the 'json_schema' field must be provided."}
	}
	// check_tool_usage in protocol.py makes tool_choice "auto" when tools
	// come without one; serving then refuses "auto" unless the server was
	// started with --enable-auto-tool-choice and a --tool-call-parser.
	if noTools && len(req.Tools) > 0 {
		if tc, _ := stringField(req.ToolChoice); !hasValue(req.ToolChoice) || tc == "auto" {
			return invalid(`"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`)
		}
	}
	return nil
}

func checkSGLang(req *chatRequest) *apiError {
	// protocol.py ReasoningEffortType: a tier, or a float in [0, 0.99];
	// booleans are refused by validate_reasoning_effort_type.
	raw := bytes.TrimSpace(req.ReasoningEffort)
	if !hasValue(raw) {
		return nil
	}
	if s, ok := stringField(raw); ok {
		if !slices.Contains(vllmEfforts, s) {
			return invalid("1 validation error for ChatCompletionRequest\nreasoning_effort\n  Input should be %s or a number between 0.0 and 0.99 [input_value=%q]", quotedList(vllmEfforts), s)
		}
		return nil
	}
	var x float64
	if err := json.Unmarshal(raw, &x); err != nil || x < 0 || x > 0.99 {
		return invalid("1 validation error for ChatCompletionRequest\nreasoning_effort\n  reasoning_effort must be a tier or a number between 0.0 and 0.99, got %s", raw)
	}
	return nil
}

func checkOllama(req *chatRequest, noTools bool) *apiError {
	// middleware/openai.go ChatMiddleware turns FromChatRequest's errors
	// (openai/openai.go) into 400s, before the model is looked at.
	for _, m := range req.Messages {
		if len(m.ToolCalls) == 0 && !hasValue(m.RawContent) {
			return invalid("invalid message content type: <nil>")
		}
		for _, c := range m.ToolCalls {
			var args map[string]any
			if json.Unmarshal([]byte(c.Function.Arguments), &args) != nil {
				return invalid("invalid tool call arguments")
			}
		}
	}
	if e, ok := stringField(req.ReasoningEffort); ok && e != "" && !slices.Contains(ollamaEfforts, e) {
		return invalid(`invalid reasoning value: %q (must be "minimal", "low", "medium", "high", "xhigh", "ultra", "max", or "none")`, e)
	}
	// server/routes.go ChatHandler asks for the tools capability when
	// tools are sent; server/images.go CheckCapabilities fails with the
	// model's full name, and handleScheduleError answers 400.
	if noTools && len(req.Tools) > 0 {
		return invalid("%s does not support tools", ollamaName(req.Model))
	}
	return nil
}

// ollamaName is a model's full name as Ollama prints it.
func ollamaName(model string) string {
	model = cmp.Or(model, "synth-emulate")
	if !strings.Contains(model, ":") {
		model += ":latest"
	}
	if !strings.Contains(model, "/") {
		model = "library/" + model
	}
	return "registry.ollama.ai/" + model
}

func checkLlamaCPP(req *chatRequest, noTools bool) *apiError {
	// tools/server/server-common.cpp oaicompat_chat_params_parse, in its
	// order. std::runtime_error becomes a 500 and std::invalid_argument a
	// 400 (ex_wrapper, tools/server/server.cpp).
	if noTools {
		if len(req.Tools) > 0 {
			return &apiError{status: http.StatusInternalServerError, message: "tools param requires --jinja flag"}
		}
		// json_value(body, "tool_choice", "auto") reads only a string.
		if tc, ok := stringField(req.ToolChoice); ok && tc != "auto" {
			return &apiError{status: http.StatusInternalServerError, message: "tool_choice param requires --jinja flag"}
		}
	}
	if rf := responseFormatType(req.ResponseFormat); rf != "" && rf != "text" && rf != "json_object" && rf != "json_schema" {
		return invalid(`response_format type must be one of "text" or "json_object", but got: %s`, rf)
	}
	for _, m := range req.Messages {
		if m.Role != "assistant" && len(m.RawContent) == 0 {
			return invalid("All non-assistant messages must contain 'content'")
		}
		if m.Role == "assistant" && len(m.RawContent) == 0 && len(m.ToolCalls) == 0 {
			return invalid("Assistant message must contain either 'content' or 'tool_calls'!")
		}
	}
	if raw, ok := req.ChatTemplateKwargs["enable_thinking"]; ok && bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`"`)) {
		return invalid(`invalid type for "enable_thinking" (expected boolean, got string)`)
	}
	// common/chat.cpp reads a replayed call's arguments as JSON and throws
	// std::runtime_error when they are not (ggml-org/llama.cpp#25510).
	for _, m := range req.Messages {
		for _, c := range m.ToolCalls {
			var v any
			if err := json.Unmarshal([]byte(c.Function.Arguments), &v); err != nil {
				return &apiError{status: http.StatusInternalServerError, message: "Failed to parse tool call arguments as JSON: " + err.Error()}
			}
		}
	}
	return nil
}

// thinks reports whether the model reasons for this request: a thinking
// switch the flavor's server honours turns reasoning off.
func (f Flavor) thinks(req *chatRequest) bool {
	effort, _ := stringField(req.ReasoningEffort)
	kwarg, hasKwarg := req.ChatTemplateKwargs["enable_thinking"]
	off := hasKwarg && bytes.Equal(bytes.TrimSpace(kwarg), []byte("false"))
	switch f {
	case FlavorVLLM, FlavorSGLang:
		// vLLM's protocol.py build_chat_params (enable_thinking = effort
		// != "none") and SGLang's normalize_reasoning_inputs (effort "none"
		// sets enable_thinking false): unless chat_template_kwargs sets it.
		if hasKwarg {
			return !off
		}
		return effort != "none"
	case FlavorLlamaCPP:
		// README: reasoning_effort "none" disables thinking;
		// chat_template_kwargs.enable_thinking overrides the default.
		return effort != "none" && !off
	case FlavorOllama:
		// openai.go: reasoning_effort "none" is think=false; Ollama's
		// OpenAI layer has no chat_template_kwargs, so those are ignored.
		return effort != "none"
	case FlavorOpenAI:
		// Only the reasoning models reason (and hide it).
		return openAIReasoningModel(req.Model)
	}
	return true
}

// maxTokens is the completion limit the flavor's server reads from the
// request, and whether it reads one at all.
func (f Flavor) maxTokens(req *chatRequest) (int64, bool) {
	first := func(vs ...*int64) (int64, bool) {
		for _, v := range vs {
			if v != nil && *v > 0 {
				return *v, true
			}
		}
		return 0, false
	}
	switch f {
	case FlavorOpenAI, FlavorVLLM, FlavorSGLang:
		// OpenAI: max_completion_tokens supersedes max_tokens
		// (completion_create_params.py); vLLM build_tok_params and SGLang
		// to_sampling_params take max_completion_tokens first.
		return first(req.MaxCompletionTokens, req.MaxTokens)
	case FlavorLlamaCPP:
		// tools/server/server-task.cpp: n_predict, else
		// max_completion_tokens, else max_tokens.
		return first(req.NPredict, req.MaxCompletionTokens, req.MaxTokens)
	case FlavorOllama:
		// openai.go ChatCompletionRequest has max_tokens (num_predict) and
		// no max_completion_tokens: that one is silently ignored.
		return first(req.MaxTokens)
	}
	// Generic: no limit, as before flavors.
	return 0, false
}

// hasValue reports whether a raw JSON value is there and not null.
func hasValue(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && !bytes.Equal(t, []byte("null"))
}

// stringField decodes a raw JSON string.
func stringField(raw json.RawMessage) (string, bool) {
	var s string
	if !hasValue(raw) || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func responseFormatType(raw json.RawMessage) string {
	var rf struct {
		Type string `json:"type"`
	}
	if hasValue(raw) {
		_ = json.Unmarshal(raw, &rf)
	}
	return rf.Type
}

func hasKey(raw json.RawMessage, key string) bool {
	var m map[string]json.RawMessage
	if !hasValue(raw) || json.Unmarshal(raw, &m) != nil {
		return false
	}
	return hasValue(m[key])
}

func quotedList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = "'" + v + "'"
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// topLevelKeys lists a JSON object's keys, sorted.
func topLevelKeys(body []byte) ([]string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(m)), nil
}
