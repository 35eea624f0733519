package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Retry-After comes from any server.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"1", "0.25", "-1", "1e9", "NaN", "Inf", "0x10", "Wed, 15 May 2024 15:00:07 GMT", "", "garbage"} {
		f.Add(s)
	}
	now := time.Date(2024, 5, 15, 15, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		if d := parseRetryAfter(s, now); d < 0 || d > maxRetryAfter {
			t.Fatalf("parseRetryAfter(%q) = %v, outside 0-%v", s, d, maxRetryAfter)
		}
	})
}

// Cache entries are files anyone could have damaged.
func FuzzDecodeEntry(f *testing.F) {
	f.Add(completion("hi", 1, 2))
	f.Add([]byte(`{"choices":[]}`))
	f.Add([]byte(`{"choices":[{"message":{"tool_calls":[{"id":"a","function":{"name":"x","arguments":"{}"}}]}}]}`))
	f.Add([]byte(`{"choices":[{}]} trailing`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, raw []byte) {
		resp, err := decodeEntry(raw)
		if err == nil && len(resp.Choices) == 0 {
			t.Fatal("an entry without choices was accepted")
		}
	})
}

// A request body must be valid JSON whatever the caller put in it.
func FuzzWireBody(f *testing.F) {
	f.Add("hello", "get_order", `{"type":"object"}`, float32(0))
	f.Add("<tag>&\u2028</tag>", "x", `{"b":1,"a":[1.50,2e3]}`, float32(0.7))
	f.Fuzz(func(t *testing.T, content, tool, params string, temp float32) {
		if temp != temp || temp < 0 || temp > 2 {
			return
		}
		req := ask(content)
		req.Tools = []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: tool, Parameters: rawOrString(params)}}}
		rc := RoleConfig{Model: "m", Temperature: &temp}
		canon := newCanonicalizer()
		body, err := wireBody(finalRequest(rc, req), rc, FieldReasoningContent, canon)
		if err != nil {
			return // parameters that are not JSON cannot be encoded
		}
		// Served from the memo, and from a fresh canonicalizer.
		for _, cz := range []*canonicalizer{canon, newCanonicalizer()} {
			again, err := wireBody(finalRequest(rc, req), rc, FieldReasoningContent, cz)
			if err != nil || string(again) != string(body) {
				t.Fatalf("wire body not stable: %v\n%s\n%s", err, body, again)
			}
		}
		m, err := decodeJSONMap(body)
		if err != nil {
			t.Fatalf("wire body %q is not JSON: %v", body, err)
		}
		if _, ok := m["temperature"]; !ok && temp == 0 {
			t.Fatalf("temperature 0 missing from %s", body)
		}
	})
}

func rawOrString(s string) json.RawMessage { return json.RawMessage(s) }

func decodeJSONMap(raw []byte) (map[string]any, error) {
	var m map[string]any
	err := json.Unmarshal(raw, &m)
	return m, err
}

// A judge's reply is model output: any text must give a review or an
// error, never a panic.
func FuzzParseReview(f *testing.F) {
	for _, s := range []string{`{"entails":true,"realistic":false,"feedback":"x"}`, "```json\n{\"entails\":1}\n```", "}{", "no"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if r, err := ParseReview(s); err != nil && (r.Entails || r.Realistic || r.Feedback != "") {
			t.Fatalf("an error came with a review: %+v", r)
		}
	})
}

// A customer prompt comes back from the wire in the emulator: parsing it
// must fail cleanly on anything.
func FuzzParseScenario(f *testing.F) {
	f.Add(UserHeader + "\n" + Tag("scenario", `{"id":"b","goals":[]}`))
	f.Add(UserHeader + "<scenario>{</scenario>")
	f.Fuzz(func(t *testing.T, s string) {
		if bp, err := ParseScenario(s); err == nil && bp == nil {
			t.Fatal("nil scenario without an error")
		}
	})
}

// FuzzSplitThink: any content splits without panicking, and what it
// returns is made of the content's own text.
func FuzzSplitThink(f *testing.F) {
	for _, s := range []string{"<think>a</think>b", "a</think>b", "x <think>", "</think>", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		thought, rest, ok := splitThink(s)
		if !ok && rest != s {
			t.Fatalf("unsplit content changed: %q -> %q", s, rest)
		}
		if ok && (len(thought)+len(rest) > len(s)) {
			t.Fatalf("split of %q grew: %q + %q", s, thought, rest)
		}
	})
}

// FuzzRedact: whatever a server wraps around the key — text, JSON with
// escapes, the key split by any whitespace or punctuation — the key's
// letters and digits in order are gone from the text and from every
// string of a JSON body, and a JSON body stays JSON.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{testKey, "your key is " + testKey[:9] + " " + testKey[9:], `\u0073k-synth`, `"` + testKey + `"`, "x\\", ""} {
		f.Add(s, 3)
	}
	r := newRedactor([]string{testKey})
	key := skeleton(testKey)
	f.Fuzz(func(t *testing.T, s string, at int) {
		// The key is put in at a place the input picks, with the input's
		// own text around it.
		at = min(max(at, 0), len(s))
		text := s[:at] + testKey + s[at:]
		if out := r.String(text); strings.Contains(skeleton(out), key) {
			t.Fatalf("String(%q) = %q still holds the key", text, out)
		}
		body, _ := json.Marshal(map[string]string{"content": text, "other": s})
		out := r.Bytes(body)
		var back map[string]string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("Bytes(%s) = %s is no longer JSON: %v", body, out, err)
		}
		for k, v := range back {
			if strings.Contains(skeleton(v), key) {
				t.Fatalf("Bytes(%s): %s = %q still holds the key", body, k, v)
			}
		}
	})
}

// fixedReply is a transport that answers every request with one status,
// Retry-After and body, without a network.
type fixedReply struct {
	status     int
	retryAfter string
	body       []byte
}

func (f fixedReply) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	h := http.Header{"Content-Type": {"application/json"}}
	if f.retryAfter != "" {
		h.Set("Retry-After", f.retryAfter)
	}
	return &http.Response{StatusCode: f.status, Header: h, Body: io.NopCloser(bytes.NewReader(f.body)), Request: r}, nil
}

// FuzzChatResponse: whatever a server answers — status, Retry-After,
// body, the key echoed in it — a request ends in a response with a
// choice or an *Error, never a panic, and neither holds the key.
func FuzzChatResponse(f *testing.F) {
	f.Add(200, "", completion("hi", 1, 2))
	f.Add(200, "", []byte(`{"choices":[{"message":{"role":"assistant","content":"","tool_calls":[{"id":"a","type":"function","function":{"name":"x","arguments":"{"}}]}}]}`))
	f.Add(200, "", []byte(`{"choices":[{"message":{"content":"<think>a</think>b","reasoning_content":"r"}}],"usage":{"prompt_tokens":-5}}`))
	f.Add(500, "", []byte(`{"error":{"message":"Failed to parse tool call arguments as JSON","code":500}}`))
	f.Add(429, "999999", []byte(`{"error":"slow down"}`))
	f.Add(400, "", []byte(`{"object":"error","message":"bad `+testKey+`","param":"tools"}`))
	f.Add(200, "", []byte("data: {}\n\n"))
	f.Add(401, "Thu, 01 Jan 2099 00:00:00 GMT", []byte(`{"detail":"`+testKey[:9]+` `+testKey[9:]+`"}`))
	f.Fuzz(func(t *testing.T, status int, retryAfter string, body []byte) {
		if status < 100 || status > 599 {
			return
		}
		cfg := Config{BaseURL: "http://fuzz.invalid/v1", APIKeyEnv: "SYNTH_TEST_KEY", Timeout: "1s", Model: "m", MaxRetries: -1, Cache: CacheOff}
		c, err := New(cfg, WithLookupEnv(testEnv), WithTransport(fixedReply{status, retryAfter, body}), WithBackoff(time.Microsecond, time.Microsecond))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		resp, err := c.Chat(context.Background(), Agent, StageSimulate, ask("hi"))
		key := skeleton(testKey)
		if err != nil {
			if _, ok := errors.AsType[*Error](err); !ok {
				t.Fatalf("a failed request gave %T, not *Error: %v", err, err)
			}
			if strings.Contains(skeleton(err.Error()), key) {
				t.Fatalf("the error holds the key: %v", err)
			}
			return
		}
		if len(resp.Choices) == 0 {
			t.Fatal("a response without choices was returned")
		}
		for _, ch := range resp.Choices {
			m := ch.Message
			if strings.Contains(skeleton(m.Content+m.ReasoningContent), key) {
				t.Fatalf("the reply holds the key: %+v", m)
			}
		}
	})
}
