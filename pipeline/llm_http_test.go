package pipeline_test

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/synth-data/synth/audit"
	"github.com/synth-data/synth/emulate"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/internal/testtree"
	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/release"
)

// The LLM engines over real HTTP: go-openai, through synth's llm
// client, talking to synth emulate.

// emulator starts synth emulate in process.
func emulator(t *testing.T, opts emulate.Options) *httptest.Server {
	t.Helper()
	s, err := emulate.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return srv
}

func httptestServer(tb testing.TB, h http.Handler) string {
	tb.Helper()
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return srv.URL
}

func metrics(t *testing.T, srv *httptest.Server) emulate.Metrics {
	t.Helper()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m emulate.Metrics
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func httpConfig(t *testing.T, srv *httptest.Server, engine string, n int) pipeline.Config {
	t.Helper()
	cfg := pipeline.Defaults()
	cfg.N, cfg.Engine = n, engine
	cfg.Out = filepath.Join(t.TempDir(), "out")
	cfg.LLM = llm.Config{BaseURL: srv.URL + "/v1", Model: "emulated", APIKeyEnv: llm.NoKey, Cache: filepath.Join(t.TempDir(), "cache"),
		MaxConcurrency: 16, Prices: map[string]llm.Price{"emulated": {Input: 0.5, Output: 2}}}
	return cfg
}

func validate(t *testing.T, dir string) *audit.Validation {
	t.Helper()
	v, err := (audit.Validator{}).Validate(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range v.Defects {
		t.Errorf("validate %s: %s", dir, d)
	}
	return v
}

// indices lists, per blueprint index, where it ended up: "sft" or
// "rejected" (once per blueprint, however many trials failed).
func outcomes(t *testing.T, dir string, m *release.Manifest) map[int][]string {
	t.Helper()
	out := map[int][]string{}
	index := func(id string) int {
		var i int
		fmt.Sscanf(id[strings.LastIndex(id, "-")+1:], "%d", &i)
		return i
	}
	final := map[int]bool{}
	for _, f := range m.Files {
		p := filepath.Join(dir, f.Path)
		switch {
		case strings.HasPrefix(f.Path, "sft/"):
			rows, err := export.ReadSFT(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				out[index(r.BlueprintID)] = append(out[index(r.BlueprintID)], "sft")
			}
		case strings.HasPrefix(f.Path, "rejected/duplicates"):
			for _, line := range jsonLines(t, p) {
				var d struct{ ID string }
				json.Unmarshal(line, &d)
				out[index(d.ID)] = append(out[index(d.ID)], "duplicate")
			}
		case strings.HasPrefix(f.Path, "rejected/rejected-"):
			for _, line := range jsonLines(t, p) {
				var r struct {
					BlueprintID string `json:"blueprint_id"`
					Trial       *int   `json:"trial"`
				}
				json.Unmarshal(line, &r)
				final[index(r.BlueprintID)] = true
			}
		}
	}
	for i := range final {
		if len(out[i]) == 0 {
			out[i] = append(out[i], "rejected")
		}
	}
	return out
}

func jsonLines(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var raw strings.Builder
	buf := make([]byte, 1<<16)
	for {
		n, err := gz.Read(buf)
		raw.Write(buf[:n])
		if err != nil {
			break
		}
	}
	var out [][]byte
	for _, l := range strings.Split(strings.TrimSpace(raw.String()), "\n") {
		if l != "" {
			out = append(out, []byte(l))
		}
	}
	return out
}

// An llm run with mistakes and DPO, and a hybrid run, make releases that
// synth validate accepts; a cached rerun sends nothing and is identical.
func TestHTTPReleases(t *testing.T) {
	for _, engine := range []string{pipeline.EngineLLM, pipeline.EngineHybrid} {
		t.Run(engine, func(t *testing.T) {
			opts := emulate.DefaultOptions()
			opts.MistakeRate = 0.3
			srv := emulator(t, opts)
			cfg := httpConfig(t, srv, engine, 40)
			cfg.DPO = engine == pipeline.EngineLLM
			cfg.SetOption("instructions", "llm")
			res, err := pipeline.Run(context.Background(), cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			m := res.Manifest
			if m.LLM == nil || m.LLM.Total.Responses == 0 || m.LLM.Total.CostUSD <= 0 || m.LLM.Review == nil || m.LLM.Review.Written != 40 {
				t.Fatalf("llm section %+v", m.LLM)
			}
			if engine == pipeline.EngineLLM && (m.Counts.Rejected == 0 || m.DPO == nil || m.DPO.Pairs == 0) {
				t.Errorf("mistake rate 0.3 yields no failed trial or pair: counts %+v dpo %+v", m.Counts, m.DPO)
			}
			if engine == pipeline.EngineHybrid && (m.LLM.Refine == nil || m.LLM.Refine.Kept == 0 || m.LLM.Refine.Rejected+m.LLM.Refine.Retries == 0) {
				t.Errorf("refine %+v", m.LLM.Refine)
			}
			validate(t, cfg.Out)
			first := testtree.Hashes(t, cfg.Out)
			before := metrics(t, srv).Requests

			// The same command after moving the release away: all from the cache.
			if err := os.Rename(cfg.Out, cfg.Out+".first"); err != nil {
				t.Fatal(err)
			}
			res2, err := pipeline.Run(context.Background(), cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if sent := metrics(t, srv).Requests - before; sent != 0 || res2.LLM == nil || res2.LLM.Requests != 0 || res2.LLM.CacheHits == 0 {
				t.Errorf("cached rerun sent %d requests (client: %+v)", sent, res2.LLM)
			}
			if second := testtree.Hashes(t, cfg.Out); !reflect.DeepEqual(first, second) {
				for k, v := range first {
					if second[k] != v {
						t.Errorf("%s differs on the cached rerun", k)
					}
				}
			}
		})
	}
}

// With faults injected, every blueprint ends up exactly once in the
// release: an SFT row, a duplicate record, or rejected.
func TestHTTPFaults(t *testing.T) {
	opts := emulate.DefaultOptions()
	opts.ErrorRate = 0.1
	opts.Latency = 5 * time.Millisecond
	srv := emulator(t, opts)
	cfg := httpConfig(t, srv, pipeline.EngineLLM, 40)
	cfg.SetOption("instructions", "template")
	// Retry-After: 1 on 429s and 2 s slow responses: keep the test short
	// with more dialogues than faults can stall.
	cfg.LLM.Timeout = "1s"
	res, err := pipeline.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := outcomes(t, cfg.Out, res.Manifest)
	for i := range 40 {
		if len(got[i]) != 1 {
			t.Errorf("blueprint %d: %v", i, got[i])
		}
	}
	if len(got) != 40 {
		t.Errorf("%d blueprints in the release", len(got))
	}
	faults := metrics(t, srv).Faults
	for _, class := range []string{"rate_limit", "server_error", "slow", "truncated", "malformed", "unknown_tool"} {
		if faults[class] == 0 {
			t.Errorf("no %s fault was injected (faults %v): the run did not face every class", class, faults)
		}
	}
	validate(t, cfg.Out)
}

func TestHTTPBudgetStop(t *testing.T) {
	srv := emulator(t, emulate.DefaultOptions())
	cfg := httpConfig(t, srv, pipeline.EngineLLM, 60)
	cfg.ChunkSize = 25
	cfg.SetOption("instructions", "template")
	// About 90,000 tokens a blueprint (the policy and the tools go with
	// every agent request): room for a prefix, with 4 dialogues at once.
	cfg.LLM.MaxTokens = 1_500_000
	cfg.SetOption("dialogues", 4)
	res, err := pipeline.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	if m.Stopped != release.StoppedBudget || m.BlueprintsDone == 0 || m.BlueprintsDone >= 60 || m.Counts.Blueprints != m.BlueprintsDone {
		t.Fatalf("stopped %q after %d, blueprints %d", m.Stopped, m.BlueprintsDone, m.Counts.Blueprints)
	}
	validate(t, cfg.Out)
}

// The same run gives the same files with 1 and 16 dialogues at once:
// requests depend on the blueprint and the trial, never on scheduling.
func TestHTTPDeterministicAcrossDialogues(t *testing.T) {
	var trees []map[string]string
	for _, n := range []int{1, 16} {
		opts := emulate.DefaultOptions()
		opts.MistakeRate = 0.3
		srv := emulator(t, opts)
		cfg := httpConfig(t, srv, pipeline.EngineLLM, 16)
		cfg.DPO = true
		cfg.SetOption("dialogues", n)
		if _, err := pipeline.Run(context.Background(), cfg, nil); err != nil {
			t.Fatal(err)
		}
		trees = append(trees, testtree.Hashes(t, cfg.Out))
	}
	if !reflect.DeepEqual(trees[0], trees[1]) {
		t.Error("releases differ between --dialogues 1 and 16")
	}
}

// With --user embedded no customer request tells the emulator the task;
// given the run's config it rebuilds each blueprint from the session in
// the agent's requests and plays a competent agent, so the rule-based
// customer and the emulated agent complete the dialogues. Without the
// config it can only answer as a weak agent, and only the requests a
// human must take (out of scope) verify.
func TestHTTPEmbeddedUser(t *testing.T) {
	for _, withTasks := range []bool{true, false} {
		t.Run(fmt.Sprintf("tasks=%v", withTasks), func(t *testing.T) {
			srv := httptest.NewServer(http.NotFoundHandler())
			t.Cleanup(srv.Close)
			cfg := httpConfig(t, srv, pipeline.EngineLLM, 20)
			cfg.SetOption("user", "embedded")
			cfg.SetOption("instructions", "template")
			cfg.SetOption("trials", 1)
			opts := emulate.DefaultOptions()
			opts.MistakeRate = 0
			if withTasks {
				opts.Tasks = pipeline.Tasks(cfg)
			}
			s, err := emulate.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			srv.Config.Handler = s.Handler()
			res, err := pipeline.Run(context.Background(), cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			verified := res.Manifest.Counts.Verified
			if withTasks {
				if verified != 20 {
					t.Fatalf("%d of 20 dialogues verified with the config", verified)
				}
				validate(t, cfg.Out)
			} else if handed := res.Manifest.Stats.Endings[record.EndTransfer]; verified != handed {
				// The weak agent hands every conversation over, which is
				// right only for a request nothing can serve.
				t.Fatalf("%d dialogues verified against a weak agent, %d of them handovers", verified, handed)
			}
		})
	}
}

func TestTasksRebuildsBlueprints(t *testing.T) {
	cfg := pipeline.Defaults()
	cfg.N = 10
	tasks := pipeline.Tasks(cfg)
	ctx := context.Background()
	bp, err := tasks(ctx, "retail-0000000000000001-0000007")
	if err != nil {
		t.Fatal(err)
	}
	if bp.Index != 7 || bp.ID != "retail-0000000000000001-0000007" {
		t.Fatalf("rebuilt %s (index %d)", bp.ID, bp.Index)
	}
	for _, id := range []string{"retail-0000000000000002-0000007", "retail-0000000000000001-0000010", "nonsense", "retail-0000000000000001-x"} {
		if _, err := tasks(ctx, id); err == nil {
			t.Errorf("%s: rebuilt a blueprint that is not this run's", id)
		}
	}
}
