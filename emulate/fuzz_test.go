package emulate

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/synth-data/synth/llm"
)

// FuzzChat sends arbitrary bodies: the server answers 200 or 400 with an
// OpenAI error body, never a panic or a 500.
func FuzzChat(f *testing.F) {
	fx := loadRetail(f)
	sys, err := llm.UserPrompt(fx.bps[0], "minimal")
	if err != nil {
		f.Fatal(err)
	}
	seed := func(v any) []byte { b, _ := json.Marshal(v); return b }
	msg := func(role, content string) map[string]string {
		return map[string]string{"role": role, "content": content}
	}
	f.Add([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`))
	f.Add(seed(map[string]any{"user": "s/t0", "messages": []any{msg("system", sys), msg("user", llm.Kickoff), msg("assistant", "hello")}}))
	f.Add(seed(map[string]any{"user": "s/t0", "tools": fx.tools, "messages": []any{msg("system", "policy"), msg("user", "hello")}}))
	f.Add(seed(map[string]any{"messages": []any{msg("system", llm.JudgeHeader), msg("user", llm.Tag("blueprint", `{"id":"x","goals":[{"target":{"label":"a"}}]}`)+llm.Tag("instruction", "a"))}}))
	f.Add(seed(map[string]any{"messages": []any{msg("system", llm.WriterHeader), msg("user", llm.Tag("blueprint", `{"id":"x","instruction":"You want a."}`))}}))
	f.Add(seed(map[string]any{"messages": []any{msg("system", llm.RefineHeader), msg("user", llm.Tag("line", "Yes, order #W1 please")+llm.Tag("entities", `["#W1"]`))}}))
	s, err := New(Options{MistakeRate: 0.5})
	if err != nil {
		f.Fatal(err)
	}
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", bytes.NewReader(body)))
		switch rec.Code {
		case http.StatusOK:
			var res wireResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil || len(res.Choices) != 1 {
				t.Fatalf("200 with body %s: %v", rec.Body, err)
			}
		case http.StatusBadRequest:
			var e openAIError
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error.Message == "" {
				t.Fatalf("400 with body %s: %v", rec.Body, err)
			}
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	})
}

// FuzzRewrite checks the rewording machinery on arbitrary text: every
// entity survives, and nothing panics.
func FuzzRewrite(f *testing.F) {
	f.Add("Could you tell me the email on your account, please?", "email", "user")
	f.Add("Yes, go ahead with order #W4467996.", "#W4467996", "assistant")
	f.Add("Hi! Thanks. That's all", "Thanks", "user")
	f.Add("ÀÉ yes \xff Can you", "\xff", "user")
	s, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line, entity, speaker string) {
		ents := []string{entity}
		raw, _ := json.Marshal(ents)
		req := &chatRequest{Messages: nil}
		body := llm.Tag("speaker", speaker) + llm.Tag("behavior", "verbose") + llm.Tag("entities", string(raw)) + llm.Tag("line", line)
		req.Messages = append(req.Messages, message{Role: "system", Content: llm.RefineHeader}, message{Role: "user", Content: body})
		rp, err := s.refine(req)
		if err != nil {
			return // the tags did not survive arbitrary text; a 400
		}
		inLine, _ := llm.Between(body, "line")
		for _, e := range present(inLine, ents) {
			if !strings.Contains(strings.ToLower(rp.Content), strings.ToLower(strings.TrimSpace(e))) {
				t.Fatalf("rewrite of %q lost %q: %q", inLine, e, rp.Content)
			}
		}
	})
}
