package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// syncBuffer is a bytes.Buffer safe to read while the command writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startCommand starts `synth args...` (a command that serves until
// cancelled and prints "listening on URL"), as a user would, and returns
// the URL and stop: stop cancels the command, requires exit 0 and returns
// its stdout. stop also runs when the test ends.
func startCommand(t *testing.T, args ...string) (base string, stop func() string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	code := make(chan int, 1)
	go func() { code <- run(ctx, args, &out, &errb) }()
	var once sync.Once
	stop = func() string {
		once.Do(func() {
			cancel()
			if c := <-code; c != 0 {
				t.Errorf("synth %v exited %d: %s", args, c, errb.String())
			}
		})
		return out.String()
	}
	t.Cleanup(func() { stop() })
	listening := regexp.MustCompile(`listening on (http://[0-9.:]+)`)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if m := listening.FindStringSubmatch(out.String()); m != nil {
			return m[1], stop
		}
		if time.Now().After(deadline) {
			t.Fatalf("synth %v printed no address; stdout %q stderr %q", args, out.String(), errb.String())
		}
	}
}

func TestEmulateServesUntilCancelled(t *testing.T) {
	ctx := context.Background()
	base, stop := startCommand(t, "emulate", "--addr", "127.0.0.1:0", "--latency", "1ms", "--mistake-rate", "0")
	cfg := openai.DefaultConfig("sk-test")
	cfg.BaseURL = base + "/v1"
	res, err := openai.NewClientWithConfig(cfg).CreateChatCompletion(ctx, openai.ChatCompletionRequest{
		Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hello there"}}})
	if err != nil || len(res.Choices) != 1 || res.Choices[0].Message.Content == "" {
		t.Fatalf("chat completion through the command's server: %+v, %v", res, err)
	}
	if out := stop(); !strings.Contains(out, "stopped") {
		t.Errorf("stdout %q", out)
	}
}

func TestEmulateFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"emulate", "--error-rate", "2"}, 1, "--error-rate"},
		{[]string{"emulate", "--mistake-rate", "-1"}, 1, "--mistake-rate"},
		{[]string{"emulate", "--max-concurrency", "-3"}, 1, "--max-concurrency"},
		{[]string{"emulate", "--addr", "256.0.0.1:bad"}, 1, "--addr"},
		{[]string{"emulate", "--latency", "soon"}, 2, "invalid value"},
		{[]string{"emulate", "extra"}, 2, "unexpected argument"},
		{[]string{"emulate", "--flavor", "tgi"}, 1, "--flavor"},
		{[]string{"emulate", "--no-tool-parser"}, 1, "--no-tool-parser"},
		{[]string{"emulate", "--flavor", "openai", "--no-reasoning-parser"}, 1, "--no-reasoning-parser"},
		{[]string{"emulate", "--tool-parse-failures", "1.5"}, 1, "--tool-parse-failures"},
	} {
		code, _, stderr := synth(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}
