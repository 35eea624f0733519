package main

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// synth serve listens, answers a reset, and stops on cancel with exit 0.
func TestServeServesUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	code := make(chan int, 1)
	go func() { code <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--root", ""}, &out, &errb) }()
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
	resp, err := http.Post(base+"/v1/sessions", "application/json", strings.NewReader(`{"domain": "retail", "seed": 7, "index": 0}`))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		SessionID   string `json:"session_id"`
		Observation []struct {
			Role, Content string
		} `json:"observation"`
	}
	err = json.NewDecoder(resp.Body).Decode(&r)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 201 || r.SessionID == "" || len(r.Observation) != 1 || r.Observation[0].Role != "user" {
		t.Fatalf("reset: %d %+v %v", resp.StatusCode, r, err)
	}
	cancel()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d: %s", c, errb.String())
	}
	if !strings.Contains(out.String(), "stopped") {
		t.Errorf("stdout %q", out.String())
	}
}

func TestServeFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"serve", "--max-sessions", "0"}, 1, "--max-sessions"},
		{[]string{"serve", "--idle-timeout", "0s"}, 1, "--idle-timeout"},
		{[]string{"serve", "--user", "robot"}, 1, "--user"},
		{[]string{"serve", "--user", "llm"}, 1, "--user llm"},
		{[]string{"serve", "--max-turns", "2"}, 1, "max_turns"},
		{[]string{"serve", "--addr", "256.0.0.1:bad"}, 1, "--addr"},
		{[]string{"serve", "--config", "/nonexistent.yaml"}, 1, "--config"},
		{[]string{"serve", "extra"}, 2, "unexpected argument"},
	} {
		code, _, stderr := synth(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}
