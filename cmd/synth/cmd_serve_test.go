package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// synth serve listens, answers a reset, and stops on cancel with exit 0.
func TestServeServesUntilCancelled(t *testing.T) {
	base, stop := startCommand(t, "serve", "--addr", "127.0.0.1:0", "--root", "")
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
	if out := stop(); !strings.Contains(out, "stopped") {
		t.Errorf("stdout %q", out)
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
