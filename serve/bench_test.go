package serve_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/synth-data/synth/serve"
)

// BenchmarkServe is the load test: 1 to 256 (the default most)
// sessions at once replay the oracle's dialogues against a server on
// 127.0.0.1 over TCP, each one reset, every assistant turn a step, then
// deleted. It reports sessions/s and
// the p50/p99 latency of a step as the client sees it. b.N sessions in
// all, at most benchLimit of wall time.
//
//	go test ./serve -run '^$' -bench BenchmarkServe -benchtime 400x
func BenchmarkServe(b *testing.B) {
	dialogues := oracles(b, "retail", 7, 64)
	for _, conc := range []int{1, 16, 128, 256} {
		b.Run(fmt.Sprintf("sessions=%d", conc), func(b *testing.B) {
			benchServe(b, dialogues, conc)
		})
	}
}

const benchLimit = 2 * time.Minute

func benchServe(b *testing.B, dialogues []oracle, conc int) {
	opts := serve.Defaults()
	opts.MaxSessions = conc
	s, err := serve.New(opts)
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), benchLimit)
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	defer func() {
		cancel()
		<-served
	}()
	base := "http://" + ln.Addr().String()
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc}}
	// Load the domain before the clock starts.
	if _, _, err := replay(c, base, dialogues[0], dialogues[0].tr.Messages); err != nil {
		b.Fatal(err)
	}
	var (
		next atomic.Int64
		mu   sync.Mutex
		lat  []time.Duration
		wg   sync.WaitGroup
		fail atomic.Value
	)
	b.ResetTimer()
	start := time.Now()
	for range conc {
		wg.Go(func() {
			var mine []time.Duration
			for {
				i := int(next.Add(1)) - 1
				if i >= b.N || ctx.Err() != nil {
					break
				}
				ls, err := session(c, base, dialogues[i%len(dialogues)])
				if err != nil {
					fail.Store(err)
					break
				}
				mine = append(mine, ls...)
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err, ok := fail.Load().(error); ok {
		b.Fatal(err)
	}
	if int(next.Load()) < b.N {
		b.Fatalf("stopped after %d of %d sessions at the %v limit", next.Load(), b.N, benchLimit)
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "sessions/s")
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "steps/s")
	b.ReportMetric(pct(0.5), "p50_step_ms")
	b.ReportMetric(pct(0.99), "p99_step_ms")
	b.ReportMetric(float64(conc), "sessions_at_once")
}

// session plays one oracle dialogue and returns its steps' latencies.
func session(c *http.Client, base string, o oracle) ([]time.Duration, error) {
	seed, index := o.seed, o.index
	var reset serve.ResetResponse
	if err := post(c, base+"/v1/sessions", serve.ResetRequest{Domain: o.domain, Seed: &seed, Index: &index}, &reset); err != nil {
		return nil, err
	}
	var ls []time.Duration
	var st serve.StepResponse
	for _, m := range o.tr.Messages {
		if m.Role != "assistant" {
			continue
		}
		t0 := time.Now()
		st = serve.StepResponse{}
		if err := post(c, base+"/v1/sessions/"+reset.SessionID+"/step", map[string]any{"message": m}, &st); err != nil {
			return nil, err
		}
		ls = append(ls, time.Since(t0))
	}
	if !st.Done || st.OutcomeReward == nil || *st.OutcomeReward != 1 {
		return nil, fmt.Errorf("%s: done %v outcome %v", o.bp.ID, st.Done, st.OutcomeReward)
	}
	req, err := http.NewRequest(http.MethodDelete, base+"/v1/sessions/"+reset.SessionID, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	return ls, nil
}
