package llm

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// testKey is recognisable, so a leak shows up in a plain substring search.
const testKey = "sk-synthTESTKEY-7c1f0e9a2b4d6e8f"

// seen is one request as the fake server received it.
type seen struct {
	at     time.Time
	body   []byte
	header http.Header
}

// fakeServer is an OpenAI-compatible endpoint whose answer to the n-th
// request (0-based) is up to the test.
type fakeServer struct {
	*httptest.Server
	mu     sync.Mutex
	seen   []seen
	handle func(n int, w http.ResponseWriter, r *http.Request)
}

func newFakeServer(t testing.TB, handle func(n int, w http.ResponseWriter, r *http.Request)) *fakeServer {
	t.Helper()
	f := &fakeServer{handle: handle}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.Error(w, `{"error":{"message":"no such route"}}`, http.StatusNotFound)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		n := len(f.seen)
		f.seen = append(f.seen, seen{at: time.Now(), body: body, header: r.Header.Clone()})
		f.mu.Unlock()
		f.handle(n, w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.seen...)
}

func (f *fakeServer) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.seen)
}

// completion is a chat completion body answering content.
func completion(content string, prompt, compl int) []byte {
	// A map of plain values always encodes.
	raw, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "m",
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content},
		}},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": compl, "total_tokens": prompt + compl},
	})
	return raw
}

func reply(w http.ResponseWriter, content string) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(completion(content, 10, 5))
}

// echo answers with the n-th reply, so each response is distinct.
func echo(n int, w http.ResponseWriter, _ *http.Request) { reply(w, fmt.Sprintf("reply %d", n)) }

func apiError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":%q,"type":"test"}}`, msg)
}

func f32(v float32) *float32 { return &v }
func intp(v int) *int        { return &v }

// testConfig is a config for srv with the cache in a test directory.
func testConfig(t testing.TB, srv *fakeServer) Config {
	t.Helper()
	return Config{
		BaseURL:    srv.URL + "/v1",
		APIKeyEnv:  "SYNTH_TEST_KEY",
		Timeout:    "5s",
		Model:      "m",
		MaxRetries: 3,
		Cache:      t.TempDir(),
	}
}

func testEnv(name string) (string, bool) {
	switch name {
	case "SYNTH_TEST_KEY":
		return testKey, true
	case "SYNTH_TEST_HEADER":
		return "hdr-SECRET-42", true
	}
	return "", false
}

func newTestClient(t testing.TB, cfg Config, opts ...Option) *Client {
	t.Helper()
	opts = append([]Option{WithLookupEnv(testEnv), WithBackoff(time.Millisecond, 5*time.Millisecond)}, opts...)
	c, err := New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func ask(text string) openai.ChatCompletionRequest {
	return openai.ChatCompletionRequest{Messages: []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "You are a test."},
		{Role: openai.ChatMessageRoleUser, Content: text},
	}}
}

// bodyMap decodes a request body the server saw.
func bodyMap(t testing.TB, raw []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("request body %q: %v", raw, err)
	}
	return m
}

func writeFile(path, content string) error {
	return os.WriteFile(path, []byte(content), 0o644)
}

// fakeClock is a settable time source.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2024, 5, 15, 15, 0, 0, 0, time.UTC)} }

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
