package emulate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/record"
)

func getMetrics(t testing.TB, url string) Metrics {
	t.Helper()
	res, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m Metrics
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// classify names the fault a go-openai call ran into from what the
// client saw alone.
func classify(t *testing.T, res openai.ChatCompletionResponse, err error, took time.Duration, tools []openai.Tool) string {
	var api *openai.APIError
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &api) && api.HTTPStatusCode == http.StatusTooManyRequests:
		return faultRateLimit
	case errors.As(err, &api) && api.HTTPStatusCode == http.StatusInternalServerError:
		return faultServer
	case errors.Is(err, io.ErrUnexpectedEOF):
		return faultTruncated
	case errors.As(err, &syn):
		return faultMalformed
	case err != nil:
		t.Fatalf("unexpected error %T: %v", err, err)
	}
	if len(res.Choices) != 1 {
		t.Fatalf("%d choices", len(res.Choices))
	}
	for _, c := range res.Choices[0].Message.ToolCalls {
		known := false
		for _, tl := range tools {
			known = known || tl.Function.Name == c.Function.Name
		}
		if !known {
			return faultUnknownTool
		}
	}
	if took >= slowFloor {
		return faultSlow
	}
	return ""
}

func TestFaultClasses(t *testing.T) {
	f := loadRetail(t)
	for _, tc := range []struct {
		name  string
		agent bool
	}{{"agent", true}, {"customer", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, ts, c := start(t, Options{ErrorRate: 0.75, Seed: 7})
			bp := f.bps[1]
			session := llm.SessionID(bp.ID, 0)
			// Register the session with a fault-free server state: retry
			// the first customer turn until it succeeds.
			first := ""
			for first == "" {
				res, err := c.CreateChatCompletion(context.Background(), customerRequest(t, bp, session, nil))
				if err == nil && len(res.Choices) == 1 {
					first = res.Choices[0].Message.Content
				}
			}
			before := getMetrics(t, ts.URL)
			history := []record.Message{{Role: "system", Content: f.d.Policy}, {Role: "user", Content: first}}
			const n = 90
			var mu sync.Mutex
			seen := map[string]int{}
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() {
					req := customerRequest(t, bp, session, history[1:])
					if tc.agent {
						req = agentRequest(f, session, history)
					}
					t0 := time.Now()
					res, err := c.CreateChatCompletion(context.Background(), req)
					class := classify(t, res, err, time.Since(t0), req.Tools)
					mu.Lock()
					seen[class]++
					mu.Unlock()
				})
			}
			wg.Wait()
			after := getMetrics(t, ts.URL)
			classes := faultClasses
			if !tc.agent {
				classes = faultClasses[:len(faultClasses)-1]
				if seen[faultUnknownTool] > 0 {
					t.Errorf("a customer request got an unknown-tool fault")
				}
			}
			for _, class := range classes {
				got := after.Faults[class] - before.Faults[class]
				if got == 0 {
					t.Errorf("no %s fault in %d requests at error rate 0.75", class, n)
				}
				if int64(seen[class]) != got {
					t.Errorf("%s: client saw %d, /metrics counts %d", class, seen[class], got)
				}
			}
			if after.Responses["429"]-before.Responses["429"] != int64(seen[faultRateLimit]) {
				t.Errorf("429s: /metrics %d, client %d", after.Responses["429"]-before.Responses["429"], seen[faultRateLimit])
			}
			if seen[""] == 0 {
				t.Errorf("no clean response at error rate 0.75")
			}
		})
	}
}

func TestRateLimitFaultHasRetryAfter(t *testing.T) {
	_, ts, _ := start(t, Options{ErrorRate: 1, Seed: 3})
	for i := 0; ; i++ {
		if i > 200 {
			t.Fatal("no 429 in 200 requests at error rate 1")
		}
		res, err := http.Post(ts.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusTooManyRequests {
			continue
		}
		if got := res.Header.Get("Retry-After"); got != "1" {
			t.Errorf("Retry-After %q, want 1", got)
		}
		var e openAIError
		if err := json.Unmarshal(body, &e); err != nil || e.Error.Message == "" || e.Error.Type == "" {
			t.Errorf("429 body %s is not an OpenAI error (%v)", body, err)
		}
		return
	}
}

func TestFaultsDoNotDependOnContent(t *testing.T) {
	// The same request, sent again after a fault, can succeed: faults are
	// drawn per request, not from the request.
	_, _, c := start(t, Options{ErrorRate: 0.5, Seed: 11})
	req := openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hello"}}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	outcomes := map[bool]int{}
	for range 40 {
		wg.Go(func() {
			_, err := c.CreateChatCompletion(context.Background(), req)
			mu.Lock()
			outcomes[err == nil]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if outcomes[true] == 0 || outcomes[false] == 0 {
		t.Errorf("40 identical requests at error rate 0.5: %v; want both failures and successes", outcomes)
	}
}

func TestLatency(t *testing.T) {
	const latency = 150 * time.Millisecond
	_, _, c := start(t, Options{Latency: latency})
	req := openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hello"}}}
	t0 := time.Now()
	if _, err := c.CreateChatCompletion(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(t0); took < latency {
		t.Errorf("response after %s, want at least the latency %s", took, latency)
	}
	// A client that gives up ends the wait.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.CreateChatCompletion(ctx, req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v, want a deadline error", err)
	}
}

func TestConcurrencyCap(t *testing.T) {
	const limit = 4
	_, ts, c := start(t, Options{MaxConcurrency: limit, Latency: 60 * time.Millisecond})
	req := openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hello"}}}
	var wg sync.WaitGroup
	errs := make(chan error, 3*limit)
	for range 3 * limit {
		wg.Go(func() {
			_, err := c.CreateChatCompletion(context.Background(), req)
			errs <- err
		})
	}
	time.Sleep(30 * time.Millisecond)
	mid := getMetrics(t, ts.URL)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	m := getMetrics(t, ts.URL)
	if m.Peak > limit || m.Peak < 1 {
		t.Errorf("peak in flight %d, want 1..%d", m.Peak, limit)
	}
	if mid.InFlight > limit {
		t.Errorf("in flight %d mid-run, over the cap %d", mid.InFlight, limit)
	}
	if m.MaxConcurrency != limit || m.Requests != 3*limit || m.Responses["200"] != 3*limit || m.InFlight != 0 || m.Queued != 0 {
		t.Errorf("metrics %+v", m)
	}
	if m.MeanInFlight <= 0 || m.MeanInFlight > limit {
		t.Errorf("mean in flight %.2f, want in (0, %d]", m.MeanInFlight, limit)
	}
	if m.Tokens.Total == 0 || m.Tokens.Total != m.Tokens.Prompt+m.Tokens.Completion {
		t.Errorf("tokens %+v", m.Tokens)
	}
}

func TestUnknownSessionGetsWeakAgent(t *testing.T) {
	f := loadRetail(t)
	_, _, c := start(t, Options{})
	msgs := []record.Message{{Role: "system", Content: f.d.Policy}, {Role: "user", Content: "I want to cancel my order #W0000000."}}
	res, err := c.CreateChatCompletion(context.Background(), agentRequest(f, "never-seen/t0", msgs))
	if err != nil {
		t.Fatal(err)
	}
	m := res.Choices[0].Message
	if len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Name != transferTool || res.Choices[0].FinishReason != openai.FinishReasonToolCalls {
		t.Fatalf("weak agent replied %+v", m)
	}
	if !strings.Contains(m.Content, "sorry") {
		t.Errorf("weak agent did not apologise: %q", m.Content)
	}
	call := m.ToolCalls[0]
	if _, _, err := f.d.Tools.ParseArgs(call.Function.Name, call.Function.Arguments); err != nil {
		t.Errorf("transfer arguments: %v", err)
	}
	msgs = append(msgs, fromOpenAI(m), record.Message{Role: "tool", ToolCallID: call.ID, Name: call.Function.Name, Content: "Transfer successful"})
	res, err = c.CreateChatCompletion(context.Background(), agentRequest(f, "never-seen/t0", msgs))
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Choices[0].Message; len(m.ToolCalls) != 0 || !strings.Contains(m.Content, "transferred") {
		t.Errorf("after the transfer the weak agent said %+v", m)
	}
}

func TestAgentFindsSessionByCustomerLines(t *testing.T) {
	f := loadRetail(t)
	s, _, c := start(t, Options{})
	// Two sessions whose customers open alike; the agent's history
	// (second line included) tells them apart.
	var lines [2][]string
	for i, bp := range f.bps[:2] {
		ss := s.sessions.register(bp.ID, bp.ID, bp)
		rp, err := s.replayOf(context.Background(), ss)
		if err != nil {
			t.Fatal(err)
		}
		lines[i] = rp.users
		rp.users = append([]string{"Hello."}, rp.users[1:]...) // the same opening line
		s.sessions.indexFirst(ss)
	}
	for i, bp := range f.bps[:2] {
		want, _ := s.sessions.lookup(bp.ID)
		msgs := []record.Message{{Role: "system", Content: f.d.Policy}, {Role: "user", Content: "Hello."}, {Role: "assistant", Content: "Hi."}, {Role: "user", Content: lines[i][1]}}
		res, err := c.CreateChatCompletion(context.Background(), agentRequest(f, "", msgs))
		if err != nil {
			t.Fatal(err)
		}
		got := fromOpenAI(res.Choices[0].Message)
		if !reflect.DeepEqual(got, want.rp.agents[1]) {
			t.Errorf("session %d: the agent said %+v, want its second message %+v", i, got, want.rp.agents[1])
		}
	}
}

func TestBadRequests(t *testing.T) {
	f := loadRetail(t)
	unknown := *f.bps[0]
	unknown.Domain = "no-such-domain"
	sys, err := llm.UserPrompt(&unknown, "minimal")
	if err != nil {
		t.Fatal(err)
	}
	msg := func(role, content string) map[string]string {
		return map[string]string{"role": role, "content": content}
	}
	body := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	for _, tc := range []struct {
		name, body, want string
	}{
		{"not json", `{"model": "m", "messages": [`, "not a valid chat completion request"},
		{"wrong type", `{"model": 3, "messages": []}`, "not a valid chat completion request"},
		{"no messages", `{"model": "m", "messages": []}`, "messages"},
		{"bad role", body(map[string]any{"messages": []any{msg("robot", "hi")}}), "robot"},
		{"stream", body(map[string]any{"stream": true, "messages": []any{msg("user", "hi")}}), "stream"},
		{"customer without scenario", body(map[string]any{"messages": []any{msg("system", llm.UserHeader+"\nhello"), msg("user", llm.Kickoff)}}), "scenario"},
		{"customer of an unknown domain", body(map[string]any{"messages": []any{msg("system", sys), msg("user", llm.Kickoff)}}), "--domain"},
		{"writer without blueprint", body(map[string]any{"messages": []any{msg("system", llm.WriterHeader), msg("user", "write")}}), "<blueprint>"},
		{"judge without instruction", body(map[string]any{"messages": []any{msg("system", llm.JudgeHeader), msg("user", llm.Tag("blueprint", "{}"))}}), "<instruction>"},
		{"judge with bad blueprint", body(map[string]any{"messages": []any{msg("system", llm.JudgeHeader), msg("user", llm.Tag("blueprint", "[1,")+llm.Tag("instruction", "x"))}}), "<blueprint>"},
		{"refine without line", body(map[string]any{"messages": []any{msg("system", llm.RefineHeader), msg("user", "x")}}), "<line>"},
		{"refine with bad entities", body(map[string]any{"messages": []any{msg("system", llm.RefineHeader), msg("user", llm.Tag("line", "hi")+llm.Tag("entities", "{"))}}), "<entities>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ts, _ := start(t, Options{})
			res, err := http.Post(ts.URL+"/v1/chat/completions", "application/json", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var e openAIError
			if err := json.NewDecoder(res.Body).Decode(&e); err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != http.StatusBadRequest || e.Error.Type != "invalid_request_error" || !strings.Contains(e.Error.Message, tc.want) {
				t.Errorf("status %d, error %+v; want 400 mentioning %q", res.StatusCode, e.Error, tc.want)
			}
		})
	}
}

func TestBadRequestThroughGoOpenAI(t *testing.T) {
	_, _, c := start(t, Options{})
	_, err := c.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "robot", Content: "x"}}})
	var api *openai.APIError
	if !errors.As(err, &api) || api.HTTPStatusCode != http.StatusBadRequest || !strings.Contains(api.Message, "robot") {
		t.Errorf("err %v, want a 400 APIError naming the role", err)
	}
}

func TestRoutes(t *testing.T) {
	_, ts, c := start(t, Options{})
	models, err := c.ListModels(context.Background())
	if err != nil || len(models.Models) != 1 {
		t.Fatalf("models %+v, %v", models, err)
	}
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{"POST", "/chat/completions", http.StatusOK},
		{"GET", "/v1/chat/completions", http.StatusMethodNotAllowed},
		{"GET", "/metrics", http.StatusOK},
		{"GET", "/models", http.StatusOK},
		{"POST", "/v1/embeddings", http.StatusNotFound},
	} {
		req, _ := http.NewRequest(tc.method, ts.URL+tc.path, bytes.NewReader([]byte(`{"messages":[{"role":"user","content":"hi"}]}`)))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tc.status {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, res.StatusCode, tc.status)
		}
	}
}

func TestResponseWireFormat(t *testing.T) {
	f := loadRetail(t)
	_, ts, _ := start(t, Options{})
	bp := f.bps[0]
	post := func(v any) map[string]any {
		b, _ := json.Marshal(v)
		res, err := http.Post(ts.URL+"/v1/chat/completions", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		var out map[string]any
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		return out
	}
	creq := customerRequest(t, bp, "s/t0", nil)
	a, b := post(creq), post(creq)
	if !reflectEqualJSON(a, b) {
		t.Errorf("the same request got different responses:\n%v\n%v", a, b)
	}
	if a["object"] != "chat.completion" || a["model"] != "user-model" || a["created"] != float64(created) {
		t.Errorf("response header fields %v", a)
	}
	usage := a["usage"].(map[string]any)
	if usage["prompt_tokens"].(float64) <= 0 || usage["total_tokens"] != usage["prompt_tokens"].(float64)+usage["completion_tokens"].(float64) {
		t.Errorf("usage %v", usage)
	}
	// The agent's first reply after the first line is text; find a tool
	// call further on and check content is null beside it.
	first := a["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"].(string)
	msgs := []record.Message{{Role: "system", Content: f.d.Policy}, {Role: "user", Content: first}}
	for range 6 {
		out := post(agentRequest(f, "s/t0", msgs))
		ch := out["choices"].([]any)[0].(map[string]any)
		m := ch["message"].(map[string]any)
		if calls, ok := m["tool_calls"].([]any); ok {
			if m["content"] != nil || ch["finish_reason"] != "tool_calls" {
				t.Errorf("tool-call message %v, finish %v: want null content and finish_reason tool_calls", m, ch["finish_reason"])
			}
			call := calls[0].(map[string]any)
			if call["type"] != "function" || len(call["id"].(string)) != 9 {
				t.Errorf("tool call %v", call)
			}
			return
		}
		if ch["finish_reason"] != "stop" {
			t.Errorf("text message finish %v", ch["finish_reason"])
		}
		msgs = append(msgs, record.Message{Role: "assistant", Content: m["content"].(string)}, record.Message{Role: "user", Content: "everly.wang5175@example.com"})
	}
	t.Error("no tool call in six agent turns")
}

func reflectEqualJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestOptionsChecked(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{ErrorRate: 1.5}, "--error-rate"},
		{Options{MistakeRate: -0.1}, "--mistake-rate"},
		{Options{Latency: -time.Second}, "--latency"},
		{Options{MaxConcurrency: -1}, "--max-concurrency"},
		{Options{Domain: "/no/such/pack"}, "--domain"},
		{Options{Flavor: "tgi"}, "--flavor"},
		{Options{Flavor: FlavorOpenAI, NoToolParser: true}, "--no-tool-parser"},
		{Options{NoToolParser: true}, "--no-tool-parser"},
		{Options{Flavor: FlavorOllama, NoReasoningParser: true}, "--no-reasoning-parser"},
		{Options{Flavor: FlavorOpenAI, NoReasoningParser: true}, "--no-reasoning-parser"},
		{Options{ToolParseRate: 2}, "--tool-parse-failures"},
	} {
		if _, err := New(tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want an error naming %s", tc.opts, err, tc.want)
		}
	}
	s, err := New(Options{})
	if err != nil || s.opts.MaxConcurrency != defaultConcurrency {
		t.Errorf("zero options: %v, concurrency %d", err, s.opts.MaxConcurrency)
	}
}

func TestServeShutsDownOnCancel(t *testing.T) {
	s, err := New(Options{Latency: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { done <- s.Serve(ctx, ln) }()
	url := "http://" + ln.Addr().String()
	// A request in flight when the server stops still gets its answer.
	got := make(chan int, 1)
	go func() {
		res, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(`{"messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			got <- 0
			return
		}
		res.Body.Close()
		got <- res.StatusCode
	}()
	for s.metrics.snapshot().InFlight == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if status := <-got; status != http.StatusOK {
		t.Errorf("in-flight request got %d", status)
	}
	if _, err := http.Get(url + "/metrics"); err == nil {
		t.Error("server still answers after shutdown")
	}
}
