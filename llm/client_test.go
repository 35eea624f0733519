package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

func TestRoleSettingsReachTheWire(t *testing.T) {
	cases := []struct {
		name string
		role RoleConfig
		req  openai.ChatCompletionRequest
		want map[string]any // keys that must be present with these values
		none []string       // keys that must be absent
	}{
		{
			name: "temperature and top_p zero survive omitempty",
			role: RoleConfig{Model: "m-agent", Temperature: f32(0), TopP: f32(0)},
			want: map[string]any{"model": "m-agent", "temperature": 0.0, "top_p": 0.0},
		},
		{
			name: "unset sampling stays unset",
			role: RoleConfig{Model: "m-agent"},
			want: map[string]any{"model": "m-agent"},
			none: []string{"temperature", "top_p", "seed", "max_tokens"},
		},
		{
			name: "role settings fill the request",
			role: RoleConfig{Model: "m-user", Temperature: f32(0.5), TopP: f32(0.25), Seed: intp(7), MaxTokens: 100},
			want: map[string]any{"model": "m-user", "temperature": 0.5, "top_p": 0.25, "seed": 7.0, "max_tokens": 100.0},
		},
		{
			name: "the caller's seed wins, the role's model wins",
			role: RoleConfig{Model: "m-judge", Seed: intp(7)},
			req:  openai.ChatCompletionRequest{Model: "caller-model", Seed: intp(3), User: "bp-1/t0"},
			want: map[string]any{"model": "m-judge", "seed": 3.0, "user": "bp-1/t0"},
		},
		{
			name: "a seed of 0 is a seed",
			role: RoleConfig{Model: "m", Seed: intp(0)},
			want: map[string]any{"seed": 0.0},
		},
		{
			name: "max_completion_tokens when the role says so",
			role: RoleConfig{Model: "any-name", MaxTokens: 64, MaxTokensField: FieldMaxCompletionTokens},
			want: map[string]any{"max_completion_tokens": 64.0},
			none: []string{"max_tokens"},
		},
		{
			name: "max_tokens for a reasoning model's name unless the role says otherwise",
			role: RoleConfig{Model: "o3-mini", MaxTokens: 64},
			want: map[string]any{"max_tokens": 64.0},
			none: []string{"max_completion_tokens"},
		},
		{
			name: "reasoning_effort and extra_body",
			role: RoleConfig{Model: "m", ReasoningEffort: "low", ExtraBody: map[string]any{
				"chat_template_kwargs": map[string]any{"enable_thinking": false}, "top_k": 20, "temperature": 0.9}},
			want: map[string]any{"reasoning_effort": "low", "chat_template_kwargs": map[string]any{"enable_thinking": false}, "top_k": 20.0, "temperature": 0.9},
		},
		{
			name: "tool_choice and parallel_tool_calls only with tools",
			role: RoleConfig{Model: "m", ToolChoice: "required", ParallelToolCalls: boolp(false)},
			none: []string{"tool_choice", "parallel_tool_calls"},
		},
		{
			name: "tool_choice and parallel_tool_calls with tools",
			role: RoleConfig{Model: "m", ToolChoice: "required", ParallelToolCalls: boolp(false)},
			req: openai.ChatCompletionRequest{Tools: []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
				Name: "f", Parameters: json.RawMessage(`{"type":"object"}`)}}}},
			want: map[string]any{"tool_choice": "required", "parallel_tool_calls": false},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t, echo)
			cfg := testConfig(t, srv)
			cfg.Model = ""
			cfg.Roles = map[Role]RoleConfig{Agent: tc.role, User: {Model: "u"}, Judge: {Model: "j"}, Writer: {Model: "w"}}
			c := newTestClient(t, cfg)
			req := tc.req
			req.Messages = ask("hello <b>&</b>").Messages
			if _, err := c.Chat(context.Background(), Agent, StageSimulate, req); err != nil {
				t.Fatal(err)
			}
			got := bodyMap(t, srv.requests()[0].body)
			for k, v := range tc.want {
				if fmt.Sprint(got[k]) != fmt.Sprint(v) {
					t.Errorf("%s = %v, want %v (body %s)", k, got[k], v, srv.requests()[0].body)
				}
			}
			for _, k := range tc.none {
				if _, ok := got[k]; ok {
					t.Errorf("%s sent (%v), want it absent", k, got[k])
				}
			}
		})
	}
}

func TestTemperatureZeroOnTheWireLiterally(t *testing.T) {
	srv := newFakeServer(t, echo)
	cfg := testConfig(t, srv)
	cfg.Roles = map[Role]RoleConfig{Judge: {Temperature: f32(0)}}
	c := newTestClient(t, cfg)
	if _, err := c.Chat(context.Background(), Judge, StageReview, ask("x")); err != nil {
		t.Fatal(err)
	}
	if body := srv.requests()[0].body; !bytes.Contains(body, []byte(`"temperature":0`)) {
		t.Fatalf(`the server did not see "temperature":0 in %s`, body)
	}
}

func TestHeadersAndKey(t *testing.T) {
	cases := []struct {
		name    string
		keyEnv  string
		headers map[string]string
		want    map[string]string
	}{
		{
			name: "bearer key and extra headers", keyEnv: "SYNTH_TEST_KEY",
			headers: map[string]string{"X-Team": "data", "X-Secret": "tok ${SYNTH_TEST_HEADER}"},
			want:    map[string]string{"Authorization": "Bearer " + testKey, "X-Team": "data", "X-Secret": "tok hdr-SECRET-42"},
		},
		{
			name: "no key", keyEnv: NoKey,
			want: map[string]string{"Authorization": ""},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t, echo)
			cfg := testConfig(t, srv)
			cfg.APIKeyEnv, cfg.Headers = tc.keyEnv, tc.headers
			c := newTestClient(t, cfg)
			if _, err := c.Chat(context.Background(), Agent, StageSimulate, ask("x")); err != nil {
				t.Fatal(err)
			}
			h := srv.requests()[0].header
			for k, v := range tc.want {
				if h.Get(k) != v {
					t.Errorf("header %s = %q, want %q", k, h.Get(k), v)
				}
			}
		})
	}
}

func TestMissingKeyNamesTheVariable(t *testing.T) {
	srv := newFakeServer(t, echo)
	cfg := testConfig(t, srv)
	cfg.APIKeyEnv = "SYNTH_NOT_SET_ANYWHERE"
	_, err := New(cfg, WithLookupEnv(testEnv))
	if err == nil || !strings.Contains(err.Error(), "SYNTH_NOT_SET_ANYWHERE") || !strings.Contains(err.Error(), "llm.api_key_env") {
		t.Fatalf("err = %v, want one naming llm.api_key_env and SYNTH_NOT_SET_ANYWHERE", err)
	}
	cfg.APIKeyEnv = "SYNTH_TEST_KEY"
	cfg.Headers = map[string]string{"X-Org": "${SYNTH_NO_HEADER}"}
	_, err = New(cfg, WithLookupEnv(testEnv))
	if err == nil || !strings.Contains(err.Error(), "SYNTH_NO_HEADER") || !strings.Contains(err.Error(), "llm.headers.X-Org") {
		t.Fatalf("err = %v, want one naming llm.headers.X-Org and SYNTH_NO_HEADER", err)
	}
}

// retryCase answers the first request with a fault, the second with a
// completion.
type retryCase struct {
	name  string
	fault func(w http.ResponseWriter, r *http.Request)
	class string
	opts  func(*Config)
}

func TestRetriesEachFault(t *testing.T) {
	cases := []retryCase{
		{name: "500", class: FaultServer, fault: func(w http.ResponseWriter, _ *http.Request) {
			apiError(w, 500, "boom")
		}},
		{name: "502 with a non-JSON body", class: FaultServer, fault: func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "bad gateway from the proxy", http.StatusBadGateway)
		}},
		{name: "503 with an empty error object", class: FaultServer, fault: func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(503)
			w.Write([]byte(`{"error":{}}`))
		}},
		{name: "500 whose error object does not decode", class: FaultServer, fault: func(w http.ResponseWriter, _ *http.Request) {
			// go-openai returns a RequestError wrapping an empty APIError.
			w.WriteHeader(500)
			w.Write([]byte(`{"error":{"message":123}}`))
		}},
		{name: "429", class: FaultThrottled, fault: func(w http.ResponseWriter, _ *http.Request) {
			apiError(w, 429, "slow down")
		}},
		{name: "timeout", class: FaultTimeout, opts: func(c *Config) { c.Timeout = "100ms" },
			fault: func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-time.After(2 * time.Second):
				}
			}},
		{name: "timeout mid-body", class: FaultTimeout, opts: func(c *Config) { c.Timeout = "100ms" },
			fault: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", "1000")
				w.WriteHeader(200)
				w.Write([]byte(`{"id":"x",`))
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
				case <-time.After(2 * time.Second):
				}
			}},
		{name: "truncated body", class: FaultTruncated, fault: func(w http.ResponseWriter, _ *http.Request) {
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n")
			buf.Write(completion("cut", 1, 1)[:40])
			buf.Flush()
			conn.Close()
		}},
		{name: "connection dropped", class: FaultConnection, fault: func(w http.ResponseWriter, _ *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}},
		{name: "malformed JSON", class: FaultMalformed, fault: func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"id": "x", "choices": [{"message": {"content": nope}}]}`))
		}},
		{name: "no choices", class: FaultEmpty, fault: func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"id":"x","object":"chat.completion","choices":[],"usage":{"prompt_tokens":3}}`))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
				if n == 0 {
					tc.fault(w, r)
					return
				}
				reply(w, "fine")
			})
			cfg := testConfig(t, srv)
			if tc.opts != nil {
				tc.opts(&cfg)
			}
			c := newTestClient(t, cfg)
			resp, err := c.Chat(context.Background(), User, StageSimulate, ask("x"))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Choices[0].Message.Content != "fine" {
				t.Errorf("content %q, want fine", resp.Choices[0].Message.Content)
			}
			st := c.Stats()
			if st.Requests != 2 || st.Retries != 1 || st.Faults[tc.class] != 1 {
				t.Errorf("stats: requests %d, retries %d, faults %v; want 2, 1 and one %s", st.Requests, st.Retries, st.Faults, tc.class)
			}
			u := c.Usage().BilledTotal()
			if u.Requests != 2 || u.Retries != 1 || u.PromptTokens != 10 {
				t.Errorf("billed %+v, want 2 requests, 1 retry, 10 prompt tokens", u)
			}
		})
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	srv := newFakeServer(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 0 {
			w.Header().Set("Retry-After", "1")
			apiError(w, 429, "rate limited")
			return
		}
		reply(w, "ok")
	})
	c := newTestClient(t, testConfig(t, srv))
	if _, err := c.Chat(context.Background(), Agent, StageSimulate, ask("x")); err != nil {
		t.Fatal(err)
	}
	reqs := srv.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if gap := reqs[1].at.Sub(reqs[0].at); gap < time.Second {
		t.Fatalf("retried after %v, before the server's Retry-After of 1s", gap)
	}
}

// TestRetryAfterOverBudget: a server asking to wait longer than the
// request's budget (llm.timeout per attempt) fails the request at once,
// naming the wait, in seconds or as a date; one that fits is waited for.
func TestRetryAfterOverBudget(t *testing.T) {
	for _, v := range []string{"999999", "Thu, 01 Jan 2099 00:00:00 GMT", "21"} {
		t.Run(v, func(t *testing.T) {
			srv := newFakeServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Retry-After", v)
				apiError(w, 429, "slow down")
			})
			cfg := testConfig(t, srv) // 5s × 4 attempts
			c := newTestClient(t, cfg)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, err := c.Chat(ctx, Agent, StageSimulate, ask("x"))
			var e *Error
			if !errors.As(err, &e) || e.Attempts != 1 || srv.count() != 1 {
				t.Fatalf("err = %v after %d requests; want an *Error after 1", err, srv.count())
			}
			for _, want := range []string{"slow down", "(Retry-After)", "budget of 20s", "llm.timeout 5s × 4 attempts", "raise llm.timeout or llm.max_retries"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

func TestRetriesExhausted(t *testing.T) {
	cases := []struct {
		name     string
		status   int
		attempts int
		fault    string
	}{
		{"server keeps failing", 503, 3, FaultServer},
		{"throttled to the end", 429, 3, FaultThrottled},
		{"refused requests are not retried", 400, 1, FaultClient},
		{"unknown model", 404, 1, FaultClient},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
				apiError(w, tc.status, "the backend says no")
			})
			cfg := testConfig(t, srv)
			cfg.MaxRetries = 2
			c := newTestClient(t, cfg)
			_, err := c.Chat(context.Background(), Writer, StageInstruct, ask("x"))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), want *Error", err, err)
			}
			if e.Attempts != tc.attempts || e.Status != tc.status || e.Fault != tc.fault || srv.count() != tc.attempts {
				t.Errorf("%+v after %d requests; want %d attempts, status %d, fault %s", e, srv.count(), tc.attempts, tc.status, tc.fault)
			}
			for _, want := range []string{"writer", "instruct", fmt.Sprint(tc.status), "the backend says no"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}

func TestCancelledContextStopsRetrying(t *testing.T) {
	srv := newFakeServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "30")
		apiError(w, 429, "later")
	})
	cfg := testConfig(t, srv)
	cfg.Timeout = "60s" // a budget the server's 30s fits in
	c := newTestClient(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := c.Chat(ctx, Agent, StageSimulate, ask("x"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if srv.count() != 1 {
		t.Fatalf("%d requests, want 1", srv.count())
	}
}

func TestKeyNeverLeaks(t *testing.T) {
	// A hostile server echoes the credentials back in every error.
	srv := newFakeServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		echoed := r.Header.Get("Authorization") + " " + r.Header.Get("X-Secret")
		switch n % 3 {
		case 0:
			apiError(w, 500, "bad key "+echoed)
		case 1:
			http.Error(w, "plain text: "+echoed, 401)
		default:
			apiError(w, 401, "Incorrect API key provided: "+echoed)
		}
	})
	var logs bytes.Buffer
	cfg := testConfig(t, srv)
	cfg.Headers = map[string]string{"X-Secret": "${SYNTH_TEST_HEADER}"}
	cfg.MaxRetries = 1
	cfg.Prices = map[string]Price{"m": {Input: 1, Output: 2}}
	c := newTestClient(t, cfg, WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	var texts []string
	for i := range 3 {
		_, err := c.Chat(context.Background(), Agent, StageSimulate, ask(fmt.Sprint(i)))
		if err == nil {
			t.Fatal("want an error")
		}
		texts = append(texts, err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err))
	}
	for _, v := range []any{c.Usage(), c.Stats(), c.Config(), cfg} {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(raw))
	}
	texts = append(texts, fmt.Sprintf("%v", c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprintf("%s", c), fmt.Sprintf("%v", *c.http), logs.String())
	if !strings.Contains(logs.String(), "[redacted]") {
		t.Errorf("the retry log does not show the scrubbed server message: %s", logs.String())
	}
	for _, s := range texts {
		for _, secret := range []string{testKey, "hdr-SECRET-42"} {
			if strings.Contains(s, secret) {
				t.Errorf("secret %q leaked into %q", secret, s)
			}
		}
	}
}

func TestCacheServesRepeats(t *testing.T) {
	srv := newFakeServer(t, echo)
	cfg := testConfig(t, srv)
	c := newTestClient(t, cfg)
	ctx := context.Background()
	first, err := c.Chat(ctx, Agent, StageSimulate, ask("same"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Chat(ctx, Agent, StageSimulate, ask("same"))
	if err != nil {
		t.Fatal(err)
	}
	if srv.count() != 1 {
		t.Fatalf("%d requests for two identical calls, want 1", srv.count())
	}
	// A new client on the same directory with other headers: they do not
	// belong to the key (the base URL does; see TestCacheKeyHasBaseURL).
	cfg2 := cfg
	cfg2.Headers = map[string]string{"X-Run": "2"}
	c2 := newTestClient(t, cfg2)
	third, err := c2.Chat(ctx, Agent, StageSimulate, ask("same"))
	if err != nil {
		t.Fatal(err)
	}
	if srv.count() != 1 {
		t.Fatalf("a new client on the same cache sent %d requests, want 0", srv.count()-1)
	}
	for _, r := range []openai.ChatCompletionResponse{again, third} {
		if !sameResponse(t, first, r) {
			t.Errorf("cached response differs from the live one")
		}
	}
	if st := c2.Stats(); st.CacheHits != 1 || st.Requests != 0 {
		t.Errorf("stats %+v, want 1 cache hit and 0 requests", st)
	}
	// Anything that changes the request is another entry.
	for _, role := range []Role{User, Judge} {
		if _, err := c.Chat(ctx, role, StageSimulate, ask("same")); err != nil {
			t.Fatal(err)
		}
	}
	cfg3 := cfg
	cfg3.Roles = map[Role]RoleConfig{Agent: {Temperature: f32(0)}}
	if _, err := newTestClient(t, cfg3).Chat(ctx, Agent, StageSimulate, ask("same")); err != nil {
		t.Fatal(err)
	}
	// User and judge share the model and request here, so only the
	// temperature change is new.
	if srv.count() != 2 {
		t.Errorf("%d requests, want 2 (only the temperature 0 request is new)", srv.count())
	}
}

func sameResponse(t *testing.T, a, b openai.ChatCompletionResponse) bool {
	t.Helper()
	ra, _ := json.Marshal(a)
	rb, _ := json.Marshal(b)
	return bytes.Equal(ra, rb)
}

func TestCacheOff(t *testing.T) {
	srv := newFakeServer(t, echo)
	cfg := testConfig(t, srv)
	cfg.Cache = CacheOff
	c := newTestClient(t, cfg)
	for range 2 {
		if _, err := c.Chat(context.Background(), Agent, StageSimulate, ask("same")); err != nil {
			t.Fatal(err)
		}
	}
	if srv.count() != 2 {
		t.Fatalf("%d requests with the cache off, want 2", srv.count())
	}
}

func TestCacheConcurrentWriters(t *testing.T) {
	// Every live response differs; the callers must still agree.
	srv := newFakeServer(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		time.Sleep(5 * time.Millisecond)
		reply(w, fmt.Sprintf("sample %d", n))
	})
	cfg := testConfig(t, srv)
	clients := []*Client{newTestClient(t, cfg), newTestClient(t, cfg)} // two "processes"
	const callers = 32
	got := make([]string, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			resp, err := clients[i%2].Chat(context.Background(), User, StageSimulate, ask("race"))
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = resp.Choices[0].Message.Content
		})
	}
	wg.Wait()
	for i, g := range got {
		if g != got[0] {
			t.Fatalf("caller %d got %q, caller 0 %q: identical requests must get one response", i, g, got[0])
		}
	}
	resp, err := newTestClient(t, cfg).Chat(context.Background(), User, StageSimulate, ask("race"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Choices[0].Message.Content != got[0] {
		t.Fatalf("rerun got %q, the run %q", resp.Choices[0].Message.Content, got[0])
	}
	u0, u1 := clients[0].Usage().UsedTotal(), clients[1].Usage().UsedTotal()
	if u0.Responses+u1.Responses != callers {
		t.Errorf("used responses %d + %d, want %d", u0.Responses, u1.Responses, callers)
	}
}

func TestCacheCorruptEntryRecovered(t *testing.T) {
	srv := newFakeServer(t, echo)
	cfg := testConfig(t, srv)
	c := newTestClient(t, cfg)
	ctx := context.Background()
	if _, err := c.Chat(ctx, Agent, StageSimulate, ask("x")); err != nil {
		t.Fatal(err)
	}
	final := finalRequest(c.cfg.Roles[Agent], ask("x"))
	body, err := wireBody(final, c.cfg.Roles[Agent], c.cfg.ReasoningFieldOf(), c.canon)
	if err != nil {
		t.Fatal(err)
	}
	path := c.cache.path(cacheKey(c.cfg.BaseURL, body))
	for _, junk := range []string{`{"id": "x", "choi`, `{"id":"x","choices":[]}`, ""} {
		if err := writeFile(path, junk); err != nil {
			t.Fatal(err)
		}
		before := srv.count()
		resp, err := c.Chat(ctx, Agent, StageSimulate, ask("x"))
		if err != nil {
			t.Fatal(err)
		}
		if srv.count() != before+1 {
			t.Fatalf("corrupt entry %q: %d requests, want 1", junk, srv.count()-before)
		}
		if _, err := c.Chat(ctx, Agent, StageSimulate, ask("x")); err != nil || srv.count() != before+1 {
			t.Fatalf("the rewritten entry was not served: err %v, %d requests", err, srv.count()-before)
		}
		if len(resp.Choices) == 0 {
			t.Fatal("no choices")
		}
	}
}

func TestBudget(t *testing.T) {
	cases := []struct {
		name string
		set  func(*Config)
	}{
		{"max cost", func(c *Config) { c.MaxCost = 0.00001 }},
		{"max tokens", func(c *Config) { c.MaxTokens = 15 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t, echo) // 15 tokens a response
			cfg := testConfig(t, srv)
			cfg.Prices = map[string]Price{"m": {Input: 1, Output: 2}} // 10+10 µ$ = 0.00002
			tc.set(&cfg)
			c := newTestClient(t, cfg)
			ctx := context.Background()
			if _, err := c.Chat(ctx, Agent, StageSimulate, ask("first")); err != nil {
				t.Fatal(err)
			}
			_, err := c.Chat(ctx, Agent, StageSimulate, ask("second"))
			if !errors.Is(err, ErrBudget) {
				t.Fatalf("err = %v, want ErrBudget", err)
			}
			if _, err := c.Chat(ctx, Agent, StageSimulate, ask("first")); err != nil {
				t.Fatalf("a cached call after the budget: %v", err)
			}
			if srv.count() != 1 {
				t.Fatalf("%d requests, want 1", srv.count())
			}
			if c.Spent() == nil {
				t.Fatal("Spent() = nil after the budget ran out")
			}
			// Work admitted before the budget ran out finishes.
			if _, err := c.Chat(Admitted(ctx), Agent, StageSimulate, ask("third")); err != nil {
				t.Fatalf("an admitted call after the budget: %v", err)
			}
			if srv.count() != 2 {
				t.Fatalf("%d requests, want 2", srv.count())
			}
		})
	}
}

func TestUsageSeparatesUsedFromBilled(t *testing.T) {
	srv := newFakeServer(t, echo)
	cfg := testConfig(t, srv)
	cfg.Prices = map[string]Price{"m": {Input: 3, Output: 15}}
	run := func() Usage {
		c := newTestClient(t, cfg)
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() {
				stage := []string{StageSimulate, StageReview}[i%2]
				role := []Role{Agent, User, Judge}[i%3]
				if _, err := c.Chat(context.Background(), role, stage, ask(fmt.Sprint(i))); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		return c.Usage()
	}
	live, cached := run(), run()
	a, _ := json.Marshal(live.Used)
	b, _ := json.Marshal(cached.Used)
	if !bytes.Equal(a, b) {
		t.Fatalf("used usage differs on a cached rerun:\n%s\n%s", a, b)
	}
	if lt, ct := live.BilledTotal(), cached.BilledTotal(); lt.Requests != 20 || lt.CacheHits != 0 || ct.Requests != 0 || ct.CacheHits != 20 || ct.CostUSD != 0 {
		t.Fatalf("billed live %+v, cached %+v", lt, ct)
	}
	ut := live.UsedTotal()
	if ut.Responses != 20 || ut.PromptTokens != 200 || ut.CompletionTokens != 100 || fmt.Sprintf("%.6f", ut.CostUSD) != "0.002100" {
		t.Fatalf("used total %+v, want 20 responses, 200+100 tokens, $0.0021", ut)
	}
	if len(live.Unpriced) != 0 {
		t.Fatalf("unpriced %v", live.Unpriced)
	}
}

func TestRoleNotConfigured(t *testing.T) {
	srv := newFakeServer(t, echo)
	c := newTestClient(t, testConfig(t, srv))
	_, err := c.Chat(context.Background(), Role("critic"), StageReview, ask("x"))
	if err == nil || !strings.Contains(err.Error(), "llm.roles.critic.model") {
		t.Fatalf("err = %v, want one naming llm.roles.critic.model", err)
	}
}

func TestAdaptiveConcurrencyThroughTheClient(t *testing.T) {
	// A server that throttles its first 6 requests, then serves.
	srv := newFakeServer(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n < 6 {
			apiError(w, 429, "busy")
			return
		}
		reply(w, fmt.Sprint(n))
	})
	cfg := testConfig(t, srv)
	cfg.MaxConcurrency = 16
	cfg.MaxRetries = 10
	cfg.Cache = CacheOff
	c := newTestClient(t, cfg, WithAIMD(3, time.Minute, 1))
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			if _, err := c.Chat(context.Background(), Agent, StageSimulate, ask(fmt.Sprint(i))); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	st := c.Stats()
	if st.Cuts != 1 || st.Throttled != 6 {
		t.Fatalf("stats %+v: want one cut (one per window) after 6 throttled", st)
	}
	for i := range 40 {
		if _, err := c.Chat(context.Background(), Agent, StageSimulate, ask(fmt.Sprint("more", i))); err != nil {
			t.Fatal(err)
		}
	}
	if st := c.Stats(); st.Limit != 16 {
		t.Fatalf("limit %d after 46 successes, want it back at 16", st.Limit)
	}
}

func TestRPMSpacesRequests(t *testing.T) {
	srv := newFakeServer(t, echo)
	cfg := testConfig(t, srv)
	cfg.RPM = 240 // 4 a second, bursts of 4
	cfg.Cache = CacheOff
	c := newTestClient(t, cfg)
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() {
			if _, err := c.Chat(context.Background(), Agent, StageSimulate, ask(fmt.Sprint(i))); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	reqs := srv.requests()
	start := reqs[0].at
	for i, r := range reqs {
		// Request i may go once i-3 tokens have been earned at 4 a second.
		earliest := time.Duration(float64(max(0, i-3)) / 4 * float64(time.Second))
		if got := r.at.Sub(start); got < earliest-20*time.Millisecond {
			t.Errorf("request %d sent %v after the first, want at least %v", i, got, earliest)
		}
	}
}

func TestStatsInFlight(t *testing.T) {
	release := make(chan struct{})
	var arrived sync.WaitGroup
	arrived.Add(8)
	srv := newFakeServer(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		arrived.Done()
		<-release
		reply(w, fmt.Sprint(n))
	})
	cfg := testConfig(t, srv)
	cfg.MaxConcurrency = 8
	cfg.Cache = CacheOff
	c := newTestClient(t, cfg)
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Go(func() {
			if _, err := c.Chat(context.Background(), Agent, StageSimulate, ask(fmt.Sprint(i))); err != nil {
				t.Error(err)
			}
		})
	}
	arrived.Wait()
	if st := c.Stats(); st.InFlight != 8 || st.PeakInFlight != 8 {
		t.Errorf("in flight %d, peak %d; want 8 and 8 (the cap)", st.InFlight, st.PeakInFlight)
	}
	if srv.count() != 8 {
		t.Errorf("%d requests reached the server past a cap of 8", srv.count())
	}
	arrived.Add(4)
	close(release)
	wg.Wait()
	st := c.Stats()
	if st.InFlight != 0 || st.PeakInFlight != 8 || st.MeanInFlight <= 0 || st.MeanInFlight > 8 || st.Calls != 12 {
		t.Errorf("stats %+v", st)
	}
}

func TestBudgetStopsQueuedCalls(t *testing.T) {
	srv := newFakeServer(t, echo) // 15 tokens a response
	cfg := testConfig(t, srv)
	cfg.MaxConcurrency = 1
	cfg.MaxTokens = 15
	c := newTestClient(t, cfg)
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = c.Chat(context.Background(), Agent, StageSimulate, ask(fmt.Sprint(i)))
		})
	}
	wg.Wait()
	spent := 0
	for _, err := range errs {
		switch {
		case err == nil:
			spent++
		case !errors.Is(err, ErrBudget):
			t.Fatalf("err = %v, want ErrBudget", err)
		}
	}
	if spent != 1 || srv.count() != 1 {
		t.Fatalf("%d calls answered and %d requests sent with a budget one response spends; want 1 and 1", spent, srv.count())
	}
}

func boolp(b bool) *bool { return &b }

// TestCacheKeyHasBaseURL: the same request to another server is another
// answer (two servers may serve different weights under one model name).
func TestCacheKeyHasBaseURL(t *testing.T) {
	srv := newFakeServer(t, echo)
	cfg := testConfig(t, srv)
	c := newTestClient(t, cfg)
	ctx := context.Background()
	if _, err := c.Chat(ctx, Agent, StageSimulate, ask("same")); err != nil {
		t.Fatal(err)
	}
	cfg2 := cfg
	cfg2.BaseURL = strings.Replace(cfg.BaseURL, "127.0.0.1", "localhost", 1)
	if _, err := newTestClient(t, cfg2).Chat(ctx, Agent, StageSimulate, ask("same")); err != nil {
		t.Fatal(err)
	}
	if srv.count() != 2 {
		t.Fatalf("%d requests, want 2: another base URL must not be served from the first one's cache", srv.count())
	}
}
