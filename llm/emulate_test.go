package llm_test

// The client against `synth emulate` over real HTTP: the emulator injects
// every fault class a real endpoint shows, and go-openai speaks to it
// through the client. (An external test package: emulate imports llm.)

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/synth-data/synth/emulate"
	"github.com/synth-data/synth/llm"
)

func startEmulator(tb testing.TB, opts emulate.Options) string {
	tb.Helper()
	s, err := emulate.New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	tb.Cleanup(ts.Close)
	return ts.URL + "/v1"
}

func emulatorClient(tb testing.TB, cfg llm.Config) *llm.Client {
	tb.Helper()
	c, err := llm.New(cfg, llm.WithBackoff(5*time.Millisecond, 50*time.Millisecond))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

func question(i int) openai.ChatCompletionRequest {
	return openai.ChatCompletionRequest{Messages: []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleUser, Content: fmt.Sprintf("question number %d, with %s", i, "some words")},
	}}
}

// callAll sends n distinct requests from `callers` goroutines and returns
// the answers in request order.
func callAll(tb testing.TB, c *llm.Client, n, callers int) []string {
	tb.Helper()
	out := make([]string, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			for i := range next {
				resp, err := c.Chat(context.Background(), llm.Agent, llm.StageSimulate, question(i))
				if err != nil {
					tb.Error(err)
					continue
				}
				raw, _ := json.Marshal(resp)
				out[i] = string(raw)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

func TestEmulatorFaultsRetriedAndCachedRerunSilent(t *testing.T) {
	url := startEmulator(t, emulate.Options{ErrorRate: 0.15, Seed: 3, Latency: 2 * time.Millisecond})
	cfg := llm.Config{BaseURL: url, APIKeyEnv: llm.NoKey, Model: "synth-emulate", Cache: t.TempDir(), MaxRetries: 12}
	live := emulatorClient(t, cfg)
	const n = 300
	first := callAll(t, live, n, 32)
	st := live.Stats()
	if st.Calls != n || st.Requests <= n {
		t.Fatalf("stats %+v: want %d answers and some retries", st, n)
	}
	for _, class := range []string{llm.FaultThrottled, llm.FaultServer, llm.FaultMalformed} {
		if st.Faults[class] == 0 {
			t.Errorf("no %s fault seen in %d requests at a 15%% error rate: %v", class, st.Requests, st.Faults)
		}
	}
	seen := map[string]bool{}
	for i, a := range first {
		if a == "" {
			t.Fatalf("request %d got no answer", i)
		}
		seen[a] = true
	}
	rerun := emulatorClient(t, cfg)
	again := callAll(t, rerun, n, 7)
	if st := rerun.Stats(); st.Requests != 0 || st.CacheHits != n {
		t.Fatalf("cached rerun: %d requests, %d cache hits; want 0 and %d", st.Requests, st.CacheHits, n)
	}
	for i := range first {
		if first[i] != again[i] {
			t.Fatalf("request %d answered differently on the cached rerun", i)
		}
	}
	a, _ := json.Marshal(live.Usage().Used)
	b, _ := json.Marshal(rerun.Usage().Used)
	if string(a) != string(b) {
		t.Fatalf("used tokens differ on the cached rerun:\n%s\n%s", a, b)
	}
}

// BenchmarkEmulatorConcurrency is the load figure: against the
// emulator at 200 ms latency with a 64-request cap on both sides, 128
// callers keep the client busy and mean-inflight/cap is the share of the
// cap in flight over the run (target ≥ 0.9 without faults); with 10%
// injected faults every call must still be answered. Run it with a
// fixed count, e.g. -benchtime 3000x, so the tail of the last slow
// responses weighs little.
func BenchmarkEmulatorConcurrency(b *testing.B) {
	for _, rate := range []float64{0, 0.1} {
		b.Run(fmt.Sprintf("faults=%v", rate), func(b *testing.B) {
			url := startEmulator(b, emulate.Options{Latency: 200 * time.Millisecond, MaxConcurrency: 64, ErrorRate: rate, Seed: 1})
			cfg := llm.Config{BaseURL: url, APIKeyEnv: llm.NoKey, Model: "synth-emulate", Cache: llm.CacheOff, MaxConcurrency: 64}
			c, err := llm.New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for range 128 {
				wg.Go(func() {
					for i := next.Add(1) - 1; i < int64(b.N); i = next.Add(1) - 1 {
						if _, err := c.Chat(context.Background(), llm.Agent, llm.StageSimulate, question(int(i))); err != nil {
							b.Error(err)
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			st := c.Stats()
			if st.Calls != int64(b.N) {
				b.Fatalf("%d of %d calls answered", st.Calls, b.N)
			}
			b.ReportMetric(st.MeanInFlight/64, "mean-inflight/cap")
			b.ReportMetric(float64(st.Retries)/float64(b.N), "retries/call")
			b.ReportMetric(float64(st.Cuts), "cuts")
		})
	}
}
