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

func TestEmulateServesUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"emulate", "--addr", "127.0.0.1:0", "--latency", "1ms", "--mistake-rate", "0"}, &out, &errb)
	}()
	listening := regexp.MustCompile(`listening on (http://[0-9.:]+)`)
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == ""; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no address printed; stdout %q stderr %q", out.String(), errb.String())
		}
		if m := listening.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
	}
	cfg := openai.DefaultConfig("sk-test")
	cfg.BaseURL = base + "/v1"
	res, err := openai.NewClientWithConfig(cfg).CreateChatCompletion(ctx, openai.ChatCompletionRequest{
		Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hello there"}}})
	if err != nil || len(res.Choices) != 1 || res.Choices[0].Message.Content == "" {
		t.Fatalf("chat completion through the command's server: %+v, %v", res, err)
	}
	cancel()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d: %s", c, errb.String())
	}
	if !strings.Contains(out.String(), "stopped") {
		t.Errorf("stdout %q", out.String())
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
