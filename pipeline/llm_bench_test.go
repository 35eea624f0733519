package pipeline_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/synth-data/synth/emulate"
	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/pipeline"
)

// poll samples the emulator's metrics every 200 ms until stop closes.
func poll(url string, stop <-chan struct{}) <-chan []emulate.Metrics {
	out := make(chan []emulate.Metrics, 1)
	go func() {
		var samples []emulate.Metrics
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				out <- samples
				return
			case <-t.C:
			}
			resp, err := http.Get(url + "/metrics")
			if err != nil {
				continue
			}
			var m emulate.Metrics
			if json.NewDecoder(resp.Body).Decode(&m) == nil {
				samples = append(samples, m)
			}
			resp.Body.Close()
		}
	}()
	return out
}

// sustained is the time-weighted mean of requests in flight between the
// samples where 20% and 80% of the requests had arrived: the run at
// cruise, without the ramp-up and the last dialogues' tail.
func sustained(samples []emulate.Metrics, total int64) float64 {
	var from, to *emulate.Metrics
	for i := range samples {
		if from == nil && samples[i].Requests*5 >= total {
			from = &samples[i]
		}
		if to == nil && samples[i].Requests*5 >= 4*total {
			to = &samples[i]
		}
	}
	if from == nil || to == nil || to.ElapsedSeconds <= from.ElapsedSeconds {
		return 0
	}
	return (to.MeanInFlight*to.ElapsedSeconds - from.MeanInFlight*from.ElapsedSeconds) / (to.ElapsedSeconds - from.ElapsedSeconds)
}

// BenchmarkLLMConcurrency runs the llm engine against synth emulate at
// 200 ms latency and a 64-request cap. It reports the sustained mean of
// requests in flight as a share of the cap (target >= 0.9) and the
// client's own time per call, without network and waits (target < 1 ms).
func BenchmarkLLMConcurrency(b *testing.B) {
	for range b.N {
		opts := emulate.DefaultOptions()
		opts.Latency, opts.MaxConcurrency, opts.MistakeRate = 200*time.Millisecond, 64, 0
		s, err := emulate.New(opts)
		if err != nil {
			b.Fatal(err)
		}
		srv := httptestServer(b, s.Handler())
		cfg := pipeline.Defaults()
		cfg.N, cfg.Engine = 400, pipeline.EngineLLM
		cfg.SetOption("instructions", "template")
		cfg.Out = filepath.Join(b.TempDir(), "out")
		cfg.LLM = llm.Config{BaseURL: srv + "/v1", Model: "emulated", APIKeyEnv: llm.NoKey, Cache: llm.CacheOff, MaxConcurrency: 64}
		stop := make(chan struct{})
		samples := poll(srv, stop)
		res, err := pipeline.Run(context.Background(), cfg, nil)
		close(stop)
		if err != nil {
			b.Fatal(err)
		}
		mean := sustained(<-samples, res.LLM.Requests)
		if mean == 0 {
			b.Fatal("the run was too short to sample")
		}
		b.ReportMetric(mean/64, "inflight/cap")
		b.ReportMetric(float64(res.LLM.Overhead.Microseconds()), "overhead-µs/call")
		b.ReportMetric(float64(res.LLM.Requests)/res.Elapsed.Seconds(), "requests/s")
	}
}
