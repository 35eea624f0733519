package llm

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rawReply answers with body as a chat completion's bytes.
func rawReply(body string) func(int, http.ResponseWriter, *http.Request) {
	return func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}
}

func TestReasoningFromEveryServerShape(t *testing.T) {
	msg := func(fields string) string {
		return `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant",` +
			fields + `}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	}
	tests := []struct {
		name, body            string
		wantContent, wantReas string
	}{
		{"vLLM reasoning field", msg(`"content":"Hello.","reasoning":"Think first."`), "Hello.", "Think first."},
		{"reasoning_content field", msg(`"content":"Hello.","reasoning_content":"Think first."`), "Hello.", "Think first."},
		{"think block left in content", msg(`"content":"<think>\nThink first.\n</think>\n\nHello."`), "Hello.", "Think first."},
		{"only the closing tag", msg(`"content":"Think first.\n</think>\n\nHello."`), "Hello.", "Think first."},
		{"a field wins over the content's block", msg(`"content":"<think>old</think>Hello.","reasoning":"field"`), "Hello.", "field"},
		{"no reasoning", msg(`"content":"Hello."`), "Hello.", ""},
		{"tags in the middle are text", msg(`"content":"Use <think> and </think> tags."`), "Use <think> and </think> tags.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, rawReply(tt.body))
			cfg := testConfig(t, srv)
			for _, round := range []string{"live", "cached"} {
				resp, err := newTestClient(t, cfg).Chat(context.Background(), Agent, StageSimulate, ask("hi"))
				if err != nil {
					t.Fatal(err)
				}
				m := resp.Choices[0].Message
				if m.Content != tt.wantContent || m.ReasoningContent != tt.wantReas {
					t.Errorf("%s: content %q, reasoning %q; want %q, %q", round, m.Content, m.ReasoningContent, tt.wantContent, tt.wantReas)
				}
			}
			if srv.count() != 1 {
				t.Errorf("%d requests, want 1 (the second from the cache)", srv.count())
			}
		})
	}
}

// TestKeyEncodingsRedacted: an endpoint that echoes the key, encoded, in
// its replies and errors leaves it nowhere synth writes or prints.
func TestKeyEncodingsRedacted(t *testing.T) {
	bearer := "Bearer " + testKey
	forms := map[string]string{
		"plain":       testKey,
		"upper":       strings.ToUpper(testKey),
		"reversed":    reverse(testKey),
		"base64":      base64.StdEncoding.EncodeToString([]byte(testKey)),
		"base64 url":  base64.RawURLEncoding.EncodeToString([]byte(testKey)),
		"bearer b64":  base64.StdEncoding.EncodeToString([]byte(bearer)),
		"url-escaped": url.QueryEscape(testKey),
		// Split by whitespace or punctuation, put in or taken out.
		"spaced":        testKey[:8] + " " + testKey[8:],
		"dashes gone":   strings.ReplaceAll(testKey, "-", ""),
		"dotted":        strings.Join(strings.Split(testKey, ""), "."),
		"line breaks":   testKey[:5] + "\n" + testKey[5:12] + "\r\n\t" + testKey[12:],
		"quoted pieces": testKey[:10] + `", "` + testKey[10:],
		"wrapped b64":   base64.StdEncoding.EncodeToString([]byte(testKey))[:20] + "\n" + base64.StdEncoding.EncodeToString([]byte(testKey))[20:],
	}
	for name, form := range forms {
		t.Run(name, func(t *testing.T) {
			for _, kind := range []string{"reply", "error"} {
				srv := newFakeServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
					if kind == "error" {
						apiError(w, http.StatusBadRequest, "bad key "+form)
						return
					}
					reply(w, "your key is "+form+" ok")
				})
				cfg := testConfig(t, srv)
				resp, err := newTestClient(t, cfg).Chat(context.Background(), Agent, StageSimulate, ask("hi"))
				var out string
				if kind == "error" {
					if err == nil {
						t.Fatal("want an error")
					}
					out = err.Error()
				} else {
					if err != nil {
						t.Fatal(err)
					}
					out = resp.Choices[0].Message.Content
				}
				if strings.Contains(skeleton(out), skeleton(form)) || !strings.Contains(out, Redacted) {
					t.Errorf("%s: %q still holds the key's %s form", kind, out, name)
				}
				// Nothing in the cache holds it either.
				filepath.WalkDir(cfg.Cache, func(p string, d fs.DirEntry, err error) error {
					if err == nil && !d.IsDir() {
						b, _ := os.ReadFile(p)
						if strings.Contains(skeleton(string(b)), skeleton(form)) {
							t.Errorf("cache entry %s holds the key's %s form", p, name)
						}
					}
					return nil
				})
			}
		})
	}
}

func TestRedactorLeavesShortValuesAlone(t *testing.T) {
	r := newRedactor([]string{"abc", ""})
	if got := r.String("abc def"); got != "abc def" {
		t.Errorf("a 3-character value redacted: %q", got)
	}
}

// TestOversizedReplyFailsOnce: a reply over llm.max_response_bytes is
// neither retried nor cached, and the error names the key that raises it.
func TestOversizedReplyFailsOnce(t *testing.T) {
	big := strings.Repeat("x", 10<<20)
	srv := newFakeServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { reply(w, big) })
	cfg := testConfig(t, srv)
	_, err := newTestClient(t, cfg).Chat(context.Background(), Agent, StageSimulate, ask("hi"))
	var e *Error
	if !errors.As(err, &e) || e.Fault != FaultTooLarge {
		t.Fatalf("error = %v, want a %s fault", err, FaultTooLarge)
	}
	if !strings.Contains(err.Error(), "llm.max_response_bytes") {
		t.Errorf("error does not name llm.max_response_bytes: %v", err)
	}
	if srv.count() != 1 {
		t.Errorf("%d requests, want 1 (not retried)", srv.count())
	}
	entries := 0
	filepath.WalkDir(cfg.Cache, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			entries++
		}
		return nil
	})
	if entries != 0 {
		t.Errorf("%d cache entries, want none", entries)
	}
	// Raised, the same reply goes through.
	cfg.MaxResponseBytes = 16 << 20
	if _, err := newTestClient(t, cfg).Chat(context.Background(), Agent, StageSimulate, ask("hi")); err != nil {
		t.Errorf("with llm.max_response_bytes raised: %v", err)
	}
}

func TestStreamingReplyIsNamed(t *testing.T) {
	for _, ct := range []string{"text/event-stream", "application/json"} {
		t.Run(ct, func(t *testing.T) {
			srv := newFakeServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", ct)
				fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n")
			})
			_, err := newTestClient(t, testConfig(t, srv)).Chat(context.Background(), Agent, StageSimulate, ask("hi"))
			if err == nil || !strings.Contains(err.Error(), "event stream") || strings.Contains(err.Error(), "invalid character") {
				t.Fatalf("error = %v, want one naming the event stream", err)
			}
			if srv.count() != 1 {
				t.Errorf("%d requests, want 1", srv.count())
			}
		})
	}
}

// TestJudgeResponseFormatFallback: the judge asks for its JSON schema;
// a server that refuses response_format is asked again without it, and
// is not sent it again.
func TestJudgeResponseFormatFallback(t *testing.T) {
	var srv *fakeServer
	srv = newFakeServer(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if strings.Contains(string(srv.requests()[n].body), "response_format") {
			apiError(w, http.StatusBadRequest, "response_format json_schema is not supported by this server")
			return
		}
		reply(w, `{"entails":true,"realistic":true,"feedback":""}`)
	})
	cfg := testConfig(t, srv)
	cfg.Roles = map[Role]RoleConfig{Judge: {ResponseFormat: "json_schema"}}
	c := newTestClient(t, cfg)
	for i := range 2 {
		resp, err := c.Chat(context.Background(), Judge, StageReview, ask(fmt.Sprint("review ", i)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseReview(resp.Choices[0].Message.Content); err != nil {
			t.Fatal(err)
		}
	}
	reqs := srv.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (refused, without, without)", len(reqs))
	}
	first := bodyMap(t, reqs[0].body)
	rf, _ := first["response_format"].(map[string]any)
	if rf["type"] != "json_schema" {
		t.Errorf("first request's response_format = %v, want json_schema", first["response_format"])
	}
	for _, r := range reqs[1:] {
		if _, ok := bodyMap(t, r.body)["response_format"]; ok {
			t.Error("response_format sent again after the server refused it")
		}
	}
}

// TestErrorShapesRead: the error bodies that are not OpenAI's
// {"error": {...}} still give the server's message, not raw JSON.
func TestErrorShapesRead(t *testing.T) {
	for _, tc := range []struct {
		name, body, want, param string
	}{
		{"openai", `{"error":{"message":"Unrecognized request argument supplied: top_k","type":"invalid_request_error","param":null,"code":null}}`, "Unrecognized request argument supplied: top_k", ""},
		{"vllm", `{"error":{"message":"bad effort","type":"BadRequestError","param":"reasoning_effort","code":400}}`, "bad effort", "reasoning_effort"},
		{"llama.cpp", `{"error":{"code":400,"message":"All non-assistant messages must contain 'content'","type":"invalid_request_error"}}`, "All non-assistant messages must contain 'content'", ""},
		{"sglang flat", `{"object":"error","message":"Messages cannot be empty.","type":"BadRequestError","param":"messages","code":400}`, "Messages cannot be empty.", "messages"},
		{"a bare error string", `{"error":"model \"x\" not found, try pulling it first"}`, `model "x" not found, try pulling it first`, ""},
		{"fastapi detail", `{"detail":"Not authenticated"}`, "Not authenticated", ""},
		{"not json", `upstream connect error`, "upstream connect error", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprint(w, tc.body)
			})
			_, err := newTestClient(t, testConfig(t, srv)).Chat(context.Background(), Agent, StageSimulate, ask("hi"))
			var e *Error
			if !errors.As(err, &e) || e.Message != tc.want || e.Param != tc.param || e.Attempts != 1 {
				t.Fatalf("err %#v, want message %q, param %q, one attempt", err, tc.want, tc.param)
			}
		})
	}
}
