package llm

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/synth-data/synth/tools"
)

// finalRequest fills a role's settings into the caller's request. The
// role decides model, temperature, top_p and max_tokens; a seed the
// caller set wins over the role's (a trial may pin its own).
func finalRequest(rc RoleConfig, req openai.ChatCompletionRequest) openai.ChatCompletionRequest {
	req.Model = rc.Model
	if rc.Temperature != nil {
		req.Temperature = *rc.Temperature
	}
	if rc.TopP != nil {
		req.TopP = *rc.TopP
	}
	if req.Seed == nil && rc.Seed != nil {
		s := *rc.Seed
		req.Seed = &s
	}
	if rc.MaxTokens > 0 {
		// OpenAI's reasoning models refuse max_tokens; most other servers
		// (Ollama, llama.cpp) know only max_tokens: the role says which.
		if rc.MaxTokensField == FieldMaxCompletionTokens {
			req.MaxTokens, req.MaxCompletionTokens = 0, rc.MaxTokens
		} else {
			req.MaxTokens, req.MaxCompletionTokens = rc.MaxTokens, 0
		}
	}
	if rc.ReasoningEffort != "" {
		req.ReasoningEffort = rc.ReasoningEffort
	}
	if len(req.Tools) > 0 {
		if req.ToolChoice == nil && rc.ToolChoice != nil {
			req.ToolChoice = rc.ToolChoice
		}
		if req.ParallelToolCalls == nil && rc.ParallelToolCalls != nil {
			req.ParallelToolCalls = *rc.ParallelToolCalls
		}
	}
	return req
}

// reviewSchema is the JSON schema of a judge's reply (Review), sent as
// response_format when the judge role asks for json_schema.
const reviewSchema = `{"type":"object","properties":{"entails":{"type":"boolean"},"realistic":{"type":"boolean"},"feedback":{"type":"string"}},"required":["entails","realistic","feedback"],"additionalProperties":false}`

// withResponseFormat sets the judge's structured-output request.
func withResponseFormat(req openai.ChatCompletionRequest, format string) openai.ChatCompletionRequest {
	switch format {
	case "json_schema":
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name: "review", Schema: json.RawMessage(reviewSchema), Strict: true,
			},
		}
	case "json_object":
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	return req
}

// mergeExtraBody sets extra's keys in the encoded body (extra wins), in
// canonical form: the result is re-encoded with sorted keys, so the cache
// key does not depend on map order.
func mergeExtraBody(body []byte, extra map[string]any, canon *canonicalizer) ([]byte, error) {
	if len(extra) == 0 {
		return body, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	for k, v := range extra {
		cv, err := canon.value(v)
		if err != nil {
			return nil, fmt.Errorf("extra_body.%s: %w", k, err)
		}
		m[k] = cv.(json.RawMessage)
	}
	return tools.MarshalUnescaped(m)
}

// wireBody is the JSON the server receives and the cache key hashes.
// encoding/json writes a struct's fields in a fixed order and a map's
// keys sorted, so the encoding is canonical except for the free-form
// values a caller may hand over as raw JSON (tool parameters, response
// schemas, tool choice); those are put in canonical form first (keys
// sorted, no insignificant space, numbers as written), so that the key
// does not depend on how the caller spelled them. A temperature or top_p
// of 0 that the role asked for is put back, since go-openai's omitempty
// drops it and the server would sample at its default instead.
//
// An assistant message's reasoning goes back in field, the one the
// server reads (Config.ReasoningFieldOf): go-openai writes it as
// reasoning_content, which vLLM 0.20 on and Ollama silently drop.
func wireBody(req openai.ChatCompletionRequest, rc RoleConfig, field string, canon *canonicalizer) ([]byte, error) {
	req, err := canon.request(req)
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	body, err := tools.MarshalUnescaped(req)
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	if needsContent(req.Messages) {
		if body, err = withContent(body); err != nil {
			return nil, fmt.Errorf("encoding the request: %w", err)
		}
	}
	if field != FieldReasoningContent && hasReasoning(req.Messages) {
		if body, err = reasoningIn(body, field); err != nil {
			return nil, fmt.Errorf("encoding the request: %w", err)
		}
	}
	var zeros []byte
	if rc.Temperature != nil && *rc.Temperature == 0 {
		zeros = append(zeros, `"temperature":0,`...)
	}
	if rc.TopP != nil && *rc.TopP == 0 {
		zeros = append(zeros, `"top_p":0,`...)
	}
	if len(zeros) == 0 {
		return mergeExtraBody(body, rc.ExtraBody, canon)
	}
	// The object is never empty (model is required), so a member
	// inserted after its brace keeps it valid; omitempty left the key
	// out, so it is not repeated.
	out := make([]byte, 0, len(body)+len(zeros))
	out = append(out, '{')
	out = append(out, zeros...)
	return mergeExtraBody(append(out, body[1:]...), rc.ExtraBody, canon)
}

// needsContent reports whether a message would go out with no content:
// go-openai's omitempty drops an empty one, and a message with neither
// content nor tool calls is refused by every server (llama.cpp "All
// non-assistant messages must contain 'content'", Ollama "invalid message
// content type: <nil>", OpenAI "Missing required parameter"). A tool
// that returns nothing makes one.
func needsContent(msgs []openai.ChatCompletionMessage) bool {
	return slices.ContainsFunc(msgs, func(m openai.ChatCompletionMessage) bool {
		return m.Content == "" && len(m.MultiContent) == 0 && len(m.ToolCalls) == 0 && m.FunctionCall == nil
	})
}

// withContent gives each message of an encoded request that has no
// content, tool calls or function call an empty content.
func withContent(body []byte) ([]byte, error) {
	return editMessages(body, func(m map[string]json.RawMessage) {
		_, content := m["content"]
		_, calls := m["tool_calls"]
		_, fn := m["function_call"]
		if !content && !calls && !fn {
			m["content"] = json.RawMessage(`""`)
		}
	})
}

func hasReasoning(msgs []openai.ChatCompletionMessage) bool {
	for i := range msgs {
		if msgs[i].ReasoningContent != "" {
			return true
		}
	}
	return false
}

// reasoningIn moves each message's reasoning_content of an encoded
// request to field, or drops it when field is none.
func reasoningIn(body []byte, field string) ([]byte, error) {
	return editMessages(body, func(m map[string]json.RawMessage) {
		v, ok := m[FieldReasoningContent]
		if !ok {
			return
		}
		delete(m, FieldReasoningContent)
		if field != FieldNone {
			m[field] = v
		}
	})
}

// editMessages applies edit to each message of an encoded request and
// encodes it again (keys sorted, as wireBody's other rewrites).
func editMessages(body []byte, edit func(map[string]json.RawMessage)) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, err
	}
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(top["messages"], &msgs); err != nil {
		return nil, err
	}
	for _, m := range msgs {
		edit(m)
	}
	var err error
	if top["messages"], err = tools.MarshalUnescaped(msgs); err != nil {
		return nil, err
	}
	return tools.MarshalUnescaped(top)
}

// canonicalizer puts free-form JSON values in canonical form. Agent
// requests carry the same tool schemas call after call, so results are
// remembered (up to canonMemo distinct values).
type canonicalizer struct {
	mu   sync.Mutex
	memo map[string]json.RawMessage
}

const canonMemo = 4096

func newCanonicalizer() *canonicalizer {
	return &canonicalizer{memo: map[string]json.RawMessage{}}
}

// request returns req with its free-form values canonical. Slices and
// pointers that change are copied: the caller's request is not touched.
func (c *canonicalizer) request(req openai.ChatCompletionRequest) (openai.ChatCompletionRequest, error) {
	var err error
	if len(req.Tools) > 0 {
		tools := make([]openai.Tool, len(req.Tools))
		copy(tools, req.Tools)
		for i, t := range tools {
			if t.Function != nil && t.Function.Parameters != nil {
				fn := *t.Function
				if fn.Parameters, err = c.value(fn.Parameters); err != nil {
					return req, fmt.Errorf("tool %s parameters: %w", fn.Name, err)
				}
				tools[i].Function = &fn
			}
		}
		req.Tools = tools
	}
	if len(req.Functions) > 0 {
		fns := make([]openai.FunctionDefinition, len(req.Functions))
		copy(fns, req.Functions)
		for i := range fns {
			if fns[i].Parameters != nil {
				if fns[i].Parameters, err = c.value(fns[i].Parameters); err != nil {
					return req, fmt.Errorf("function %s parameters: %w", fns[i].Name, err)
				}
			}
		}
		req.Functions = fns
	}
	if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil && rf.JSONSchema.Schema != nil {
		js := *rf.JSONSchema
		v, err := c.value(js.Schema)
		if err != nil {
			return req, fmt.Errorf("response_format schema: %w", err)
		}
		js.Schema = v.(json.RawMessage)
		f := *rf
		f.JSONSchema = &js
		req.ResponseFormat = &f
	}
	for _, p := range []*any{&req.ToolChoice, &req.FunctionCall, &req.ParallelToolCalls} {
		if *p != nil {
			if *p, err = c.value(*p); err != nil {
				return req, err
			}
		}
	}
	return req, nil
}

// value returns v as canonical raw JSON.
func (c *canonicalizer) value(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	out, ok := c.memo[string(raw)]
	c.mu.Unlock()
	if ok {
		return out, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	if out, err = tools.MarshalUnescaped(tree); err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.memo) < canonMemo {
		c.memo[string(raw)] = out
	}
	c.mu.Unlock()
	return out, nil
}

// estimateTokens guesses a request's token cost before it is sent, for
// the TPM limit: about four bytes a token for the prompt, plus the
// completion allowance.
func estimateTokens(body []byte, req openai.ChatCompletionRequest) float64 {
	completion := max(req.MaxTokens, req.MaxCompletionTokens)
	completion = cmp.Or(completion, 512)
	return float64(len(body)/4 + completion)
}
