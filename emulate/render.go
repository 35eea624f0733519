package emulate

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// generation is a reply as the model wrote it, before the server's
// parsers read it: what the flavor's server does with it decides the
// response.
type generation struct {
	reply
	// malformed marks tool calls the model wrote so that they do not
	// parse: the --tool-parse-failures fault, or calls cut at the token
	// limit.
	malformed bool
	// unparsed marks tool calls the server does not look for (SGLang
	// without --tool-call-parser): they stay text.
	unparsed bool
	finish   string // "length" when cut at the token limit; "" otherwise
}

// markup is the text of tool calls as a Hermes-style model (Qwen2.5,
// Qwen3) writes them, which the servers' default parsers read (vLLM and
// SGLang hermes/qwen25, llama.cpp's Qwen format, Ollama's <tool_call>
// tag). cut drops the last call's closing brace, the way a model that
// ran out of tokens or lost track of its braces leaves it.
func markup(calls []openai.ToolCall, cut bool) string {
	var b strings.Builder
	for i, c := range calls {
		args := c.Function.Arguments
		args = cmp.Or(args, "{}")
		if cut && i == len(calls)-1 {
			args = strings.TrimSuffix(strings.TrimSpace(args), "}")
		}
		fmt.Fprintf(&b, "<tool_call>\n{\"name\": %q, \"arguments\": %s}\n</tool_call>", c.Function.Name, args)
		if i < len(calls)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// thinkBlock is reasoning as a model writes it inline.
func thinkBlock(reasoning string) string {
	if reasoning == "" {
		return ""
	}
	return "<think>\n" + reasoning + "\n</think>\n\n"
}

// limit cuts a generation at max completion tokens (about four
// characters each, as the emulator counts): reasoning first, then the
// content, then the tool calls, which are left malformed.
func limit(g generation, maxTokens int64) generation {
	budget := int(maxTokens) * 4
	if budget <= 0 || tokens(replyChars(g.reply)) <= int(maxTokens) {
		return g
	}
	g.finish = "length"
	take := func(s string) string {
		n := utf8.RuneCountInString(s)
		if n <= budget {
			budget -= n
			return s
		}
		r := []rune(s)[:budget]
		budget = 0
		return string(r)
	}
	g.ReasoningContent = take(g.ReasoningContent)
	g.Content = take(g.Content)
	if len(g.ToolCalls) > 0 {
		// A call cut short is one no parser reads.
		g.malformed = true
	}
	return g
}

// respond renders g as the flavor's server answers, or the error it
// answers with instead; usage counts what the model generated.
func (f Flavor) respond(req *chatRequest, body []byte, g generation, inline bool) ([]byte, wireUsage, *apiError) {
	model := req.Model
	model = cmp.Or(model, "synth-emulate")
	prompt := tokens(promptChars(req))
	completion := tokens(replyChars(g.reply))
	if g.finish == "length" {
		if n, ok := f.maxTokens(req); ok {
			completion = int(n)
		}
	}
	u := wireUsage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
	id := newIDs(body, g)

	content, reasoning, calls, finish := g.Content, g.ReasoningContent, g.ToolCalls, g.finish
	if inline {
		// No reasoning parser: the thinking stays in the text.
		content, reasoning = thinkBlock(reasoning)+content, ""
	}
	switch {
	case g.malformed && f == FlavorLlamaCPP:
		// The PEG chat parser (common/chat.cpp) throws on output it cannot
		// read and the server answers 500 with the text from the failing
		// position (ggml-org/llama.cpp#24644, #20532).
		return nil, u, &apiError{status: http.StatusInternalServerError,
			message: fmt.Sprintf("Failed to parse input at pos %d: %s", len(content), markup(calls, true))}
	case g.malformed && f == FlavorOllama:
		// tools/tools.go: text after the <tool_call> tag is buffered while
		// it parses; Parser.Content returns an unparsed buffer only for
		// the "{" and "[" tags, so the broken call is dropped and the
		// text before it is the whole reply.
		calls = nil
	case g.malformed && (f == FlavorOpenAI || f == FlavorGeneric):
		// OpenAI's function calling documents that a model may write
		// arguments that are not valid JSON: the call comes back as it is.
		if len(calls) > 0 {
			calls = append([]openai.ToolCall(nil), calls...)
			last := &calls[len(calls)-1]
			last.Function.Arguments = strings.TrimSuffix(strings.TrimSpace(last.Function.Arguments), "}")
		}
	case g.malformed || g.unparsed:
		// vLLM's tool parsers (tool_parsers/hermes_tool_parser.py) return
		// the whole output as content when extraction fails; SGLang
		// (serving_chat.py _process_tool_calls) likewise, restoring the
		// finish reason, and without --tool-call-parser it never parses.
		if content != "" {
			content += "\n"
		}
		content += markup(calls, g.malformed)
		calls = nil
	}
	if finish == "" {
		finish = "stop"
		if len(calls) > 0 {
			finish = "tool_calls"
		}
	}
	if f == FlavorLlamaCPP && len(calls) > 1 && !isTrue(req.ParallelToolCalls) {
		// server-common.cpp: parallel_tool_calls defaults to false, and the
		// grammar then admits one call.
		calls = calls[:1]
	}
	calls = f.callIDs(calls, id)
	if f == FlavorOpenAI {
		// OpenAI's reasoning models return only the reasoning's token
		// count (completion_tokens_details.reasoning_tokens), never its
		// text.
		reasoning = ""
	}
	out, err := f.body(model, id, req, content, reasoning, calls, finish, u, g)
	if err != nil {
		return nil, u, &apiError{status: http.StatusInternalServerError, kind: "server_error", message: "synth emulate: " + err.Error()}
	}
	return out, u, nil
}

func isTrue(b *bool) bool { return b != nil && *b }

// ids are the hash of a request and its reply, from which every id of a
// response is drawn: the same request always gets the same bytes.
type ids [32]byte

func newIDs(body []byte, g generation) ids {
	h := sha256.New()
	h.Write(body)
	h.Write([]byte{0})
	h.Write([]byte(g.Content))
	for _, c := range g.ToolCalls {
		h.Write([]byte{0})
		h.Write([]byte(c.ID + c.Function.Name + c.Function.Arguments))
	}
	var out ids
	copy(out[:], h.Sum(nil))
	return out
}

// alnum draws n characters of alphabet from the hash, salted.
func (x ids) alnum(salt string, n int, alphabet string) string {
	out := make([]byte, 0, n)
	for block := 0; len(out) < n; block++ {
		sum := sha256.Sum256(fmt.Appendf(x[:], "%s/%d", salt, block))
		for _, b := range sum {
			if len(out) == n {
				break
			}
			out = append(out, alphabet[int(b)%len(alphabet)])
		}
	}
	return string(out)
}

func (x ids) hex(salt string, n int) string {
	h := sha256.Sum256(append(x[:], salt...))
	return hex.EncodeToString(h[:])[:n]
}

const (
	base62    = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	lowerNums = "abcdefghijklmnopqrstuvwxyz0123456789"
)

// callIDs gives tool calls the ids the flavor's server makes up.
func (f Flavor) callIDs(calls []openai.ToolCall, x ids) []openai.ToolCall {
	if len(calls) == 0 || f == FlavorGeneric {
		// Generic keeps the replay's ids, as before flavors.
		return calls
	}
	out := make([]openai.ToolCall, len(calls))
	copy(out, calls)
	for i := range out {
		salt := fmt.Sprint("call", i)
		switch f {
		case FlavorOpenAI:
			out[i].ID = "call_" + x.alnum(salt, 24, base62)
		case FlavorVLLM:
			// vllm/entrypoints/chat_utils.py make_tool_call_id:
			// chatcmpl-tool-<uuid4 hex>.
			out[i].ID = "chatcmpl-tool-" + x.hex(salt, 32)
		case FlavorSGLang:
			// serving_chat.py _process_tool_call_id: call_<24 hex>.
			out[i].ID = "call_" + x.hex(salt, 24)
		case FlavorOllama:
			// server/routes.go toolCallId: call_ and 8 of [a-z0-9].
			out[i].ID = "call_" + x.alnum(salt, 8, lowerNums)
		case FlavorLlamaCPP:
			// server-common.cpp gen_tool_call_id: 32 alphanumerics.
			out[i].ID = x.alnum(salt, 32, base62)
		}
		if f == FlavorSGLang || f == FlavorOllama {
			// Their non-streamed calls carry an index (SGLang's ToolCall,
			// Ollama's openai.ToolCall); OpenAI's, vLLM's and llama.cpp's
			// do not.
			idx := i
			out[i].Index = &idx
		}
	}
	return out
}

// body writes the response JSON in the flavor's server's field order and
// with its own fields.
func (f Flavor) body(model string, x ids, req *chatRequest, content, reasoning string, calls []openai.ToolCall, finish string, u wireUsage, g generation) ([]byte, error) {
	var nullContent *string // null beside tool calls, as most servers write it
	if content != "" || len(calls) == 0 {
		c := content
		nullContent = &c
	}
	switch f {
	case FlavorOpenAI:
		r := openAIResponse{ID: "chatcmpl-" + x.alnum("id", 29, base62), Object: "chat.completion", Created: created, Model: model,
			Choices:     []openAIChoice{{Message: openAIMessage{Role: "assistant", Content: nullContent, Annotations: []struct{}{}, ToolCalls: calls}, FinishReason: finish}},
			ServiceTier: "default", SystemFingerprint: "fp_" + x.hex("fp", 10)}
		r.Usage.wireUsage = u
		if openAIReasoningModel(req.Model) {
			// Reasoning models think but return only the count.
			r.Usage.CompletionTokensDetails.ReasoningTokens = tokens(utf8.RuneCountInString(g.ReasoningContent))
		}
		return json.Marshal(r)
	case FlavorVLLM:
		r := vllmResponse{ID: "chatcmpl-" + x.hex("id", 32), Object: "chat.completion", Created: created, Model: model,
			Choices: []vllmChoice{{Message: vllmMessage{Role: "assistant", Content: nullContent, ToolCalls: calls, Reasoning: nullable(reasoning)}, FinishReason: finish}}}
		r.Usage.PromptTokens, r.Usage.TotalTokens, r.Usage.CompletionTokens = u.PromptTokens, u.TotalTokens, u.CompletionTokens
		return json.Marshal(r)
	case FlavorSGLang:
		// matched_stop is the token that stopped the generation: Qwen's
		// <|im_end|> (151645); none after a tool call or at the limit.
		var matched *int
		if finish == "stop" {
			eos := 151645
			matched = &eos
		}
		// serving_base.py _generate_request_id: chatcmpl-<uuid4>.
		r := sglangResponse{ID: "chatcmpl-" + uuidish(x), Object: "chat.completion", Created: created, Model: model,
			Choices: []sglangChoice{{Message: sglangMessage{Role: "assistant", Content: nullable(content), ReasoningContent: nullable(reasoning), ToolCalls: calls},
				FinishReason: finish, MatchedStop: matched}}}
		r.Usage.PromptTokens, r.Usage.TotalTokens, r.Usage.CompletionTokens = u.PromptTokens, u.TotalTokens, u.CompletionTokens
		r.Usage.ReasoningTokens = tokens(utf8.RuneCountInString(reasoning))
		return json.Marshal(r)
	case FlavorOllama:
		// id: "chatcmpl-%d" of rand.Intn(999) (middleware/openai.go).
		n := int(binary.BigEndian.Uint16(x[:2])) % 999
		return json.Marshal(ollamaResponse{ID: fmt.Sprintf("chatcmpl-%d", n), Object: "chat.completion", Created: created, Model: model,
			SystemFingerprint: "fp_ollama",
			Choices:           []ollamaChoice{{Message: ollamaMessage{Role: "assistant", Content: content, Reasoning: reasoning, ToolCalls: calls}, FinishReason: finish}},
			Usage:             u})
	case FlavorLlamaCPP:
		r := llamaResponse{Created: created, Model: model, SystemFingerprint: "b0-synth-emulate", Object: "chat.completion",
			Choices: []llamaChoice{{FinishReason: finish, Message: llamaMessage{Role: "assistant", Content: nullContent, ReasoningContent: reasoning, ToolCalls: calls}}},
			ID:      "chatcmpl-" + x.alnum("id", 32, base62)}
		r.Usage.CompletionTokens, r.Usage.PromptTokens, r.Usage.TotalTokens = u.CompletionTokens, u.PromptTokens, u.TotalTokens
		r.Timings.PromptN, r.Timings.PredictedN = u.PromptTokens, u.CompletionTokens
		return json.Marshal(r)
	}
	// Generic: the shape synth emulate always wrote.
	return json.Marshal(wireResponse{
		ID:      fmt.Sprintf("chatcmpl-%x", x[:12]),
		Object:  "chat.completion",
		Created: created,
		Model:   model,
		Choices: []wireChoice{{Index: 0, Message: wireMessage{Role: "assistant", Content: nullContent, ReasoningContent: reasoning, ToolCalls: calls},
			FinishReason: finish}},
		Usage:             u,
		SystemFingerprint: "fp_synth_emulate",
	})
}

// OpenAI's chat completion: message with refusal and annotations, usage
// with its token details, service_tier and system_fingerprint.
type (
	openAIResponse struct {
		ID                string         `json:"id"`
		Object            string         `json:"object"`
		Created           int64          `json:"created"`
		Model             string         `json:"model"`
		Choices           []openAIChoice `json:"choices"`
		Usage             openAIUsage    `json:"usage"`
		ServiceTier       string         `json:"service_tier"`
		SystemFingerprint string         `json:"system_fingerprint"`
	}
	openAIChoice struct {
		Index        int           `json:"index"`
		Message      openAIMessage `json:"message"`
		Logprobs     *struct{}     `json:"logprobs"`
		FinishReason string        `json:"finish_reason"`
	}
	openAIMessage struct {
		Role        string            `json:"role"`
		Content     *string           `json:"content"`
		Refusal     *string           `json:"refusal"`
		Annotations []struct{}        `json:"annotations"`
		ToolCalls   []openai.ToolCall `json:"tool_calls,omitempty"`
	}
	openAIUsage struct {
		wireUsage
		PromptTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
			AudioTokens  int `json:"audio_tokens"`
		} `json:"prompt_tokens_details"`
		CompletionTokensDetails struct {
			ReasoningTokens          int `json:"reasoning_tokens"`
			AudioTokens              int `json:"audio_tokens"`
			AcceptedPredictionTokens int `json:"accepted_prediction_tokens"`
			RejectedPredictionTokens int `json:"rejected_prediction_tokens"`
		} `json:"completion_tokens_details"`
	}
)

// vLLM's ChatCompletionResponse, ChatCompletionResponseChoice and
// ChatMessage (vllm/entrypoints/openai/chat_completion/protocol.py),
// dumped with their None fields; tool_calls is dropped when empty
// (ChatMessage._serialize), reasoning is vLLM's own field.
type (
	vllmResponse struct {
		ID                string       `json:"id"`
		Object            string       `json:"object"`
		Created           int64        `json:"created"`
		Model             string       `json:"model"`
		Choices           []vllmChoice `json:"choices"`
		ServiceTier       *string      `json:"service_tier"`
		SystemFingerprint *string      `json:"system_fingerprint"`
		Usage             struct {
			PromptTokens        int       `json:"prompt_tokens"`
			TotalTokens         int       `json:"total_tokens"`
			CompletionTokens    int       `json:"completion_tokens"`
			PromptTokensDetails *struct{} `json:"prompt_tokens_details"`
		} `json:"usage"`
		PromptLogprobs   *struct{} `json:"prompt_logprobs"`
		PromptTokenIDs   *[]int    `json:"prompt_token_ids"`
		KVTransferParams *struct{} `json:"kv_transfer_params"`
	}
	vllmChoice struct {
		Index        int         `json:"index"`
		Message      vllmMessage `json:"message"`
		Logprobs     *struct{}   `json:"logprobs"`
		FinishReason string      `json:"finish_reason"`
		StopReason   *int        `json:"stop_reason"`
		TokenIDs     *[]int      `json:"token_ids"`
	}
	vllmMessage struct {
		Role         string            `json:"role"`
		Content      *string           `json:"content"`
		Refusal      *string           `json:"refusal"`
		Annotations  *struct{}         `json:"annotations"`
		Audio        *struct{}         `json:"audio"`
		FunctionCall *struct{}         `json:"function_call"`
		ToolCalls    []openai.ToolCall `json:"tool_calls,omitempty"`
		Reasoning    *string           `json:"reasoning"`
	}
)

// SGLang's ChatCompletionResponse, choice with matched_stop, ChatMessage
// {role, content, reasoning_content, tool_calls} (null when absent) and
// UsageInfo with reasoning_tokens
// (python/sglang/srt/entrypoints/openai/protocol.py).
type (
	sglangResponse struct {
		ID      string         `json:"id"`
		Object  string         `json:"object"`
		Created int64          `json:"created"`
		Model   string         `json:"model"`
		Choices []sglangChoice `json:"choices"`
		Usage   struct {
			PromptTokens        int       `json:"prompt_tokens"`
			TotalTokens         int       `json:"total_tokens"`
			CompletionTokens    int       `json:"completion_tokens"`
			PromptTokensDetails *struct{} `json:"prompt_tokens_details"`
			ReasoningTokens     int       `json:"reasoning_tokens"`
		} `json:"usage"`
		Metadata *struct{} `json:"metadata"`
	}
	sglangChoice struct {
		Index        int           `json:"index"`
		Message      sglangMessage `json:"message"`
		Logprobs     *struct{}     `json:"logprobs"`
		FinishReason string        `json:"finish_reason"`
		MatchedStop  *int          `json:"matched_stop"`
	}
	sglangMessage struct {
		Role             string            `json:"role"`
		Content          *string           `json:"content"`
		ReasoningContent *string           `json:"reasoning_content"`
		ToolCalls        []openai.ToolCall `json:"tool_calls"`
	}
)

// Ollama's ChatCompletion (openai/openai.go ToChatCompletion): content is
// the string, empty beside tool calls; reasoning under "reasoning",
// omitted when empty; fp_ollama.
type (
	ollamaResponse struct {
		ID                string         `json:"id"`
		Object            string         `json:"object"`
		Created           int64          `json:"created"`
		Model             string         `json:"model"`
		SystemFingerprint string         `json:"system_fingerprint"`
		Choices           []ollamaChoice `json:"choices"`
		Usage             wireUsage      `json:"usage"`
	}
	ollamaChoice struct {
		Index        int           `json:"index"`
		Message      ollamaMessage `json:"message"`
		FinishReason string        `json:"finish_reason"`
	}
	ollamaMessage struct {
		Role      string            `json:"role"`
		Content   string            `json:"content"`
		Reasoning string            `json:"reasoning,omitempty"`
		ToolCalls []openai.ToolCall `json:"tool_calls,omitempty"`
	}
)

// llama.cpp's chat completion (tools/server/server-task.cpp
// to_json_oaicompat_chat): choices first, content null beside tool calls,
// reasoning_content only when there is some, usage with
// prompt_tokens_details, then the id and the timings.
type (
	llamaResponse struct {
		Choices           []llamaChoice `json:"choices"`
		Created           int64         `json:"created"`
		Model             string        `json:"model"`
		SystemFingerprint string        `json:"system_fingerprint"`
		Object            string        `json:"object"`
		Usage             struct {
			CompletionTokens    int `json:"completion_tokens"`
			PromptTokens        int `json:"prompt_tokens"`
			TotalTokens         int `json:"total_tokens"`
			PromptTokensDetails struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
		ID      string `json:"id"`
		Timings struct {
			PromptN     int     `json:"prompt_n"`
			PromptMS    float64 `json:"prompt_ms"`
			PredictedN  int     `json:"predicted_n"`
			PredictedMS float64 `json:"predicted_ms"`
		} `json:"timings"`
	}
	llamaChoice struct {
		FinishReason string       `json:"finish_reason"`
		Index        int          `json:"index"`
		Message      llamaMessage `json:"message"`
	}
	llamaMessage struct {
		Role             string            `json:"role"`
		Content          *string           `json:"content"`
		ReasoningContent string            `json:"reasoning_content,omitempty"`
		ToolCalls        []openai.ToolCall `json:"tool_calls,omitempty"`
	}
)

// uuidish formats hash bytes as a UUID.
func uuidish(x ids) string {
	h := hex.EncodeToString(x[16:32])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
