package llm

import (
	"strings"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2024, 5, 15, 15, 0, 0, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{" 2 ", 2 * time.Second},
		{"0.5", 500 * time.Millisecond},
		{"0", 0},
		{"-4", 0},
		{"NaN", 0},
		{"86400", 24 * time.Hour},
		{"999999", 999999 * time.Second},
		{"1e12", maxRetryAfter},
		{"Wed, 15 May 2024 15:00:07 GMT", 7 * time.Second},
		{"Wednesday, 15-May-24 15:00:30 GMT", 30 * time.Second}, // RFC 850
		{"Wed May 15 15:01:00 2024", time.Minute},               // ANSI C
		{"Wed, 15 May 2024 14:00:00 GMT", 0},                    // in the past
		{"Wed, 15 May 2025 15:00:00 GMT", 365 * 24 * time.Hour},
		{"Thu, 01 Jan 2099 00:00:00 GMT", maxRetryAfter},
		{"soon", 0},
	}
	for _, tc := range cases {
		if got := parseRetryAfter(tc.in, now); got != tc.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestBackoffBounds(t *testing.T) {
	base, ceiling := 250*time.Millisecond, 20*time.Second
	for n := 1; n <= 12; n++ {
		limit := min(ceiling, base<<(n-1))
		var top time.Duration
		for range 2000 {
			d := backoff(n, base, ceiling, 0)
			if d < 0 || d > limit {
				t.Fatalf("retry %d waited %v, outside 0-%v", n, d, limit)
			}
			top = max(top, d)
		}
		// Full jitter spreads over the whole range.
		if top < limit/2 {
			t.Errorf("retry %d: the longest of 2000 waits was %v, under half of %v", n, top, limit)
		}
	}
	for range 100 {
		if d := backoff(1, base, ceiling, 3*time.Second); d < 3*time.Second || d > 3*time.Second+base {
			t.Fatalf("a Retry-After of 3s gave %v", d)
		}
	}
}

func TestErrorText(t *testing.T) {
	cases := []struct {
		err  Error
		want []string
	}{
		{Error{Role: Agent, Stage: StageSimulate, Attempts: 9, Status: 503, Fault: FaultServer, Message: "overloaded"},
			[]string{"llm agent (simulate)", "gave up after 9 attempt(s)", "HTTP 503 Service Unavailable", "overloaded"}},
		{Error{Role: Judge, Stage: StageReview, Attempts: 1, Status: 401, Fault: FaultClient, Message: "bad key"},
			[]string{"llm judge (review)", "request refused", "HTTP 401", "bad key", "llm.api_key_env"}},
		{Error{Role: User, Stage: StageSimulate, Attempts: 3, Fault: FaultTimeout, Message: "no complete response within 2s (llm.timeout)"},
			[]string{"gave up after 3 attempt(s): timeout: no complete response within 2s"}},
		{Error{Role: Agent, Stage: StageSimulate, Attempts: 9, Status: 200, Fault: FaultMalformed, Message: "invalid character"},
			[]string{"gave up after 9 attempt(s): malformed: invalid character"}},
		{Error{Role: Writer, Stage: StageInstruct, Attempts: 1, Status: 404, Fault: FaultClient},
			[]string{"HTTP 404", "llm.base_url"}},
	}
	for _, tc := range cases {
		got := tc.err.Error()
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q does not contain %q", got, w)
			}
		}
	}
}
