package llm

import (
	"encoding/json"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

func TestWireBodyIsCanonical(t *testing.T) {
	withParams := func(p string) openai.ChatCompletionRequest {
		req := ask("find my order")
		req.Tools = []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: "get_order", Parameters: json.RawMessage(p),
		}}}
		return req
	}
	rc := RoleConfig{Model: "m"}
	key := func(req openai.ChatCompletionRequest, rc RoleConfig) string {
		body, err := wireBody(finalRequest(rc, req), rc, FieldReasoningContent, newCanonicalizer())
		if err != nil {
			t.Fatal(err)
		}
		return cacheKey("http://h/v1", body)
	}
	a := key(withParams(`{"type":"object","properties":{"id":{"type":"string"}}}`), rc)
	b := key(withParams(`{ "properties": { "id": {"type": "string"} },
		"type": "object" }`), rc)
	if a != b {
		t.Error("the same tool parameters, spaced and ordered differently, gave two keys")
	}
	cases := []struct {
		name string
		req  openai.ChatCompletionRequest
		rc   RoleConfig
	}{
		{"another parameter", withParams(`{"type":"object","properties":{"id":{"type":"integer"}}}`), rc},
		{"another model", withParams(`{"type":"object","properties":{"id":{"type":"string"}}}`), RoleConfig{Model: "m2"}},
		{"temperature 0 against the server default", withParams(`{"type":"object","properties":{"id":{"type":"string"}}}`), RoleConfig{Model: "m", Temperature: f32(0)}},
		{"another session", func() openai.ChatCompletionRequest {
			r := withParams(`{"type":"object","properties":{"id":{"type":"string"}}}`)
			r.User = SessionID("bp-1", 2)
			return r
		}(), rc},
	}
	for _, tc := range cases {
		if key(tc.req, tc.rc) == a {
			t.Errorf("%s: same key as the original request", tc.name)
		}
	}
}

// An assistant message's reasoning goes out in the field asked for, or
// not at all, and the rest of the body is what it was.
func TestWireBodyReasoningField(t *testing.T) {
	req := openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{
		{Role: "user", Content: "hi"},
		{Role: "assistant", Content: "hello", ReasoningContent: "greet back"},
		{Role: "user", Content: "bye"},
	}}
	for _, tc := range []struct{ field, want, not string }{
		{FieldReasoningContent, `"reasoning_content":"greet back"`, `"reasoning":`},
		{FieldReasoning, `"reasoning":"greet back"`, `"reasoning_content"`},
		{FieldNone, `"content":"hello"`, `greet back`},
	} {
		body, err := wireBody(req, RoleConfig{}, tc.field, newCanonicalizer())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(body), tc.want) || strings.Contains(string(body), tc.not) {
			t.Errorf("%s: %s", tc.field, body)
		}
	}
}
