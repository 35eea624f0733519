package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/pipeline"
)

// reporter shows a run's progress on stderr: live bars on a terminal,
// a plain line every few seconds otherwise, JSON lines for machines.
type reporter interface {
	pipeline.Progress
	// Finish ends the display and reports the run's summary.
	Finish(res *pipeline.Result, err error)
}

func newReporter(w io.Writer, format string) (reporter, error) {
	switch format {
	case "json":
		return &jsonReporter{enc: json.NewEncoder(w), start: time.Now()}, nil
	case "text", "":
		if isTerminal(w) {
			return &barReporter{w: w}, nil
		}
		return &lineReporter{w: w, start: time.Now()}, nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func rate(n int, since time.Time) float64 {
	s := time.Since(since).Seconds()
	if s <= 0 {
		return 0
	}
	return float64(n) / s
}

func eta(done, total int, since time.Time) time.Duration {
	r := rate(done, since)
	if r <= 0 || done >= total {
		return 0
	}
	return time.Duration(float64(total-done) / r * float64(time.Second)).Round(time.Second)
}

// barReporter draws mpb bars: one per stage, acceptance and speed.
type barReporter struct {
	w      io.Writer
	p      *mpb.Progress
	bars   []*mpb.Bar
	mu     sync.Mutex
	latest pipeline.Snapshot
}

func (r *barReporter) Start(total, done int) {
	r.p = mpb.New(mpb.WithOutput(r.w), mpb.WithWidth(32), mpb.WithRefreshRate(150*time.Millisecond))
	if done > 0 {
		fmt.Fprintf(r.w, "resuming: %d blueprints already done\n", done)
	}
	stage := func(name string, extra ...decor.Decorator) *mpb.Bar {
		return r.p.AddBar(int64(total),
			mpb.PrependDecorators(decor.Name(name, decor.WC{W: 11, C: decor.DindentRight}), decor.CountersNoUnit("%d / %d", decor.WC{W: 16})),
			mpb.AppendDecorators(extra...))
	}
	r.bars = []*mpb.Bar{
		stage("blueprints"),
		stage("dialogues"),
		stage("verified", decor.Any(func(decor.Statistics) string {
			r.mu.Lock()
			defer r.mu.Unlock()
			return fmt.Sprintf(" %5.1f%% accepted", 100*float64(r.latest.Verified)/float64(max(r.latest.Written, 1)))
		})),
		stage("written", decor.AverageSpeed(0, " %.0f rows/s"), decor.Name(" ETA "), decor.AverageETA(decor.ET_STYLE_GO)),
	}
}

func (r *barReporter) Update(s pipeline.Snapshot) {
	r.mu.Lock()
	r.latest = s
	r.mu.Unlock()
	for i, v := range []int{s.Generated, s.Simulated, s.Written, s.Written} {
		r.bars[i].SetCurrent(int64(v))
	}
}

func (r *barReporter) Finish(res *pipeline.Result, err error) {
	if r.p != nil {
		for _, b := range r.bars {
			if !b.Completed() {
				b.Abort(false)
			}
		}
		r.p.Wait()
	}
}

// lineReporter prints a status line every few seconds, for logs.
type lineReporter struct {
	w      io.Writer
	start  time.Time
	last   time.Time
	total  int
	latest pipeline.Snapshot
}

func (r *lineReporter) Start(total, done int) {
	r.total, r.start, r.last = total, time.Now(), time.Now()
	if done > 0 {
		fmt.Fprintf(r.w, "synth: resuming: %d blueprints already done, %d to go\n", done, total)
	}
}

func (r *lineReporter) Update(s pipeline.Snapshot) {
	r.latest = s
	if time.Since(r.last) < 5*time.Second && s.Written != r.total {
		return
	}
	r.last = time.Now()
	llmPart := ""
	if b := s.LLM; b != nil {
		llmPart = fmt.Sprintf(", LLM %d requests / %d cache hits / $%.4f billed", b.Requests, b.CacheHits, b.CostUSD)
	}
	fmt.Fprintf(r.w, "synth: %d/%d written (generated %d, simulated %d, verified %d = %.1f%%), %.0f rows/s, ETA %s%s\n",
		s.Written, r.total, s.Generated, s.Simulated, s.Verified, 100*float64(s.Verified)/float64(max(s.Written, 1)),
		rate(s.Written, r.start), eta(s.Written, r.total, r.start), llmPart)
}

func (r *lineReporter) Finish(*pipeline.Result, error) {}

// jsonReporter writes one JSON object per progress tick and at the end.
type jsonReporter struct {
	enc   *json.Encoder
	start time.Time
	last  time.Time
	total int
}

func (r *jsonReporter) Start(total, done int) {
	r.total = total
	r.enc.Encode(map[string]any{"event": "start", "total": total, "already_done": done})
}

func (r *jsonReporter) Update(s pipeline.Snapshot) {
	if time.Since(r.last) < 2*time.Second && s.Written != r.total {
		return
	}
	r.last = time.Now()
	ev := map[string]any{"event": "progress", "total": r.total, "generated": s.Generated, "simulated": s.Simulated,
		"verified": s.Verified, "written": s.Written, "dpo_pairs": s.Pairs,
		"rows_per_second": rate(s.Written, r.start), "eta_seconds": eta(s.Written, r.total, r.start).Seconds()}
	if s.LLM != nil {
		ev["llm"] = s.LLM
	}
	r.enc.Encode(ev)
}

func (r *jsonReporter) Finish(res *pipeline.Result, err error) {
	ev := map[string]any{"event": "summary", "elapsed_seconds": time.Since(r.start).Seconds()}
	if err != nil {
		ev["error"] = limitio.Clip(err.Error(), maxErrorBytes)
	}
	if res != nil && res.LLM != nil {
		ev["llm_billed"] = res.LLM
	}
	if res != nil && res.Stopped != "" {
		ev["stopped"], ev["blueprints_done"] = res.Stopped, res.Done
	}
	if res != nil && res.Manifest != nil {
		m := res.Manifest
		ev["dir"], ev["counts"], ev["failures"], ev["checks"] = res.Dir, m.Counts, m.Failures, m.Checks
		if m.DPO != nil {
			ev["dpo"] = m.DPO
		}
		if m.LLM != nil {
			ev["llm"] = m.LLM
		}
	}
	r.enc.Encode(ev)
}
