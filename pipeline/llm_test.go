package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/internal/testplay"
	"github.com/synth-data/synth/internal/testtree"
	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/release"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/verify"
)

// llmConfig is a small run on an LLM engine against the fake.
func llmConfig(t *testing.T, engine string, n int) Config {
	t.Helper()
	cfg := smallConfig(t, n)
	cfg.Engine = engine
	cfg.LLM = llm.Config{BaseURL: "http://fake.invalid/v1", Model: "fake-model", APIKeyEnv: llm.NoKey, Cache: llm.CacheOff}
	cfg.SetOption("instructions", "template")
	return cfg
}

// fixture is one domain with its generator and verifier.
type fixture struct {
	d   *domain.Domain
	gen blueprints.Generator
	ver *verify.Verifier
	cfg Config
}

func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	cfg = cfg.resolved()
	spec, err := cfg.Spec()
	if err != nil {
		t.Fatal(err)
	}
	d, err := domains.Load(cfg.Domain, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := blueprints.NewGeneric(d.Model, spec)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schemas.Compile()
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{d: d, gen: gen, ver: verify.ForDomain(d, sch), cfg: cfg}
}

// The LLM engine with a faithful agent and customer reproduces the
// embedded dialogue message for message; a flawed first trial is
// rejected, labelled and paired with the verified second one.
func TestLLMRunTrials(t *testing.T) {
	cfg := llmConfig(t, EngineLLM, 24)
	cfg.DPO = true
	fx := newFixture(t, cfg)
	fake := testplay.NewFake(fx.d)
	fake.Flaw = func(session string) string {
		if strings.HasSuffix(session, "/t0") {
			return agent.FlawNoConfirmation
		}
		return ""
	}
	res, err := RunWith(context.Background(), cfg, nil, RunOptions{Chatter: fake})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	if m.Counts.Blueprints != 24 || m.Counts.SFTRows+m.Counts.Duplicates["exact"]+m.Counts.Duplicates["near"] != 24 {
		t.Fatalf("counts %+v: every blueprint passes by its second trial", m.Counts)
	}
	l := m.LLM
	if l == nil || l.Engine != EngineLLM || l.Models["agent"] != "fake-model" || l.Total.Responses == 0 || l.Usage["agent/simulate"] == nil {
		t.Fatalf("llm section %+v", l)
	}
	if l.TrialsToPass["2"] == 0 || l.TrialsToPass["1"]+l.TrialsToPass["2"] != 24 || l.TrialRuns["1"] != 24 {
		t.Errorf("trials %v runs %v", l.TrialsToPass, l.TrialRuns)
	}
	if m.Counts.Rejected != l.TrialsToPass["2"] || m.Counts.Simulated != 24+m.Counts.Rejected || m.Failures[verify.CheckConfirmation] != m.Counts.Rejected {
		t.Errorf("rejected %d, failures %v, simulated %d, trials %v", m.Counts.Rejected, m.Failures, m.Counts.Simulated, l.TrialsToPass)
	}
	if l.Failures[agent.FlawNoConfirmation] != m.Counts.Rejected {
		t.Errorf("failure labels %v", l.Failures)
	}
	if m.DPO == nil || m.DPO.Pairs == 0 || m.DPO.ByFailure[agent.FlawNoConfirmation] != m.DPO.Pairs {
		t.Errorf("dpo %+v", m.DPO)
	}
	// Passing dialogues are the embedded ones, word for word.
	rows := readSFT(t, cfg.Out, m)
	for _, r := range rows {
		var idx int
		fmt.Sscanf(r.BlueprintID[strings.LastIndex(r.BlueprintID, "-")+1:], "%d", &idx)
		bp, _ := fx.gen.Generate(context.Background(), idx)
		want, err := embedded.Simulate(context.Background(), fx.d, bp, 60)
		if err != nil {
			t.Fatal(err)
		}
		if r.Engine != EngineLLM || !reflect.DeepEqual(r.Messages, want.Messages) {
			t.Fatalf("%s: engine %s; messages differ from the embedded dialogue", r.ID, r.Engine)
		}
	}
}

func readSFT(t *testing.T, dir string, m *release.Manifest) []export.SFTRow {
	t.Helper()
	var out []export.SFTRow
	for _, f := range m.Files {
		if strings.HasPrefix(f.Path, "sft/") {
			rows, err := export.ReadSFT(filepath.Join(dir, f.Path))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, rows...)
		}
	}
	return out
}

func TestHybrid(t *testing.T) {
	cfg := llmConfig(t, EngineHybrid, 20)
	fx := newFixture(t, cfg)
	fake := testplay.NewFake(fx.d)
	// Every third rewrite loses its entities (and digits): rejected, retried.
	fake.Refine = func(line string, seed int) string {
		if seed%3 == 0 {
			return "So, something."
		}
		return "So, " + line
	}
	res, err := RunWith(context.Background(), cfg, nil, RunOptions{Chatter: fake})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	r := m.LLM.Refine
	if r == nil || r.Lines == 0 || r.Kept == 0 || r.Kept+r.Rejected != r.Lines || r.Retries == 0 {
		t.Fatalf("refine stats %+v", r)
	}
	if m.Counts.Rejected != 0 || m.Counts.Verified != 20 {
		t.Fatalf("counts %+v", m.Counts)
	}
	rows := readSFT(t, cfg.Out, m)
	refined := 0
	for _, row := range rows {
		if row.Engine != EngineHybrid {
			t.Errorf("%s: engine %s", row.ID, row.Engine)
		}
		for _, msg := range row.Messages {
			if strings.HasPrefix(msg.Content, "So, ") {
				refined++
			}
		}
	}
	if refined == 0 {
		t.Error("no refined line in the release")
	}
}

// Results do not depend on how many dialogues run at once.
func TestLLMDeterministicAcrossDialogues(t *testing.T) {
	var trees []map[string]string
	for _, n := range []int{1, 16} {
		cfg := llmConfig(t, EngineLLM, 30)
		cfg.SetOption("dialogues", n)
		cfg.SetOption("instructions", "llm")
		cfg.DPO = true
		fx := newFixture(t, cfg)
		fake := testplay.NewFake(fx.d)
		fake.Flaw = func(s string) string {
			if strings.HasSuffix(s, "/t0") && len(s)%2 == 0 {
				return agent.FlawWrongArgument
			}
			return ""
		}
		if _, err := RunWith(context.Background(), cfg, nil, RunOptions{Chatter: fake}); err != nil {
			t.Fatal(err)
		}
		trees = append(trees, testtree.Hashes(t, cfg.Out))
	}
	if !reflect.DeepEqual(trees[0], trees[1]) {
		t.Error("releases differ between --dialogues 1 and 16")
	}
}

func TestLLMBudgetStop(t *testing.T) {
	cfg := llmConfig(t, EngineLLM, 40)
	cfg.ChunkSize = 16
	// Two dialogues at a time, so the first blueprint is done before the
	// budget runs out however the machine schedules them; 40 at once
	// could spend it all on their first turns.
	cfg.SetOption("dialogues", 2)
	fx := newFixture(t, cfg)
	fake := testplay.NewFake(fx.d)
	fake.Budget = 600
	res, err := RunWith(context.Background(), cfg, nil, RunOptions{Chatter: fake})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	if res.Stopped != release.StoppedBudget || m.Stopped != release.StoppedBudget || m.BlueprintsDone != res.Done || res.Done <= 0 || res.Done >= 40 {
		t.Fatalf("stopped %q/%q after %d (manifest %d)", res.Stopped, m.Stopped, res.Done, m.BlueprintsDone)
	}
	if m.Counts.Blueprints != res.Done {
		t.Errorf("blueprints %d, done %d", m.Counts.Blueprints, res.Done)
	}
	// A rerun with the budget lifted replaces the partial release.
	fake2 := testplay.NewFake(fx.d)
	res2, err := RunWith(context.Background(), cfg, nil, RunOptions{Chatter: fake2})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Existing || res2.Manifest.Stopped != "" || res2.Manifest.Counts.Blueprints != 40 {
		t.Errorf("rerun: existing %v stopped %q blueprints %d", res2.Existing, res2.Manifest.Stopped, res2.Manifest.Counts.Blueprints)
	}
}

func TestLLMBudgetBeforeAnything(t *testing.T) {
	cfg := llmConfig(t, EngineLLM, 5)
	fx := newFixture(t, cfg)
	fake := testplay.NewFake(fx.d)
	fake.Budget = 1
	_, err := RunWith(context.Background(), cfg, nil, RunOptions{Chatter: fake})
	if !errors.Is(err, llm.ErrBudget) || !strings.Contains(err.Error(), "nothing to release") {
		t.Fatalf("err %v", err)
	}
}

func TestLLMConfig(t *testing.T) {
	base := llmConfig(t, EngineLLM, 10).resolved()
	fp := base.Fingerprint()
	for name, change := range map[string]func(c *Config){
		"max cost":        func(c *Config) { c.LLM.MaxCost = 3 },
		"max tokens":      func(c *Config) { c.LLM.MaxTokens = 1000 },
		"cache":           func(c *Config) { c.LLM.Cache = "/elsewhere" },
		"concurrency":     func(c *Config) { c.LLM.MaxConcurrency = 7 },
		"dialogues":       func(c *Config) { c.SetOption("dialogues", 3) },
		"base url":        func(c *Config) { c.LLM.BaseURL = "http://other:1/v1" },
		"api key env":     func(c *Config) { c.LLM.APIKeyEnv = "OTHER_KEY" },
		"headers":         func(c *Config) { c.LLM.Headers = map[string]string{"X-Team": "a"} },
		"workers and out": func(c *Config) { c.Workers, c.Out = 3, "/x" },
	} {
		c := base
		change(&c)
		if c.resolved().Fingerprint() != fp {
			t.Errorf("%s changes the fingerprint", name)
		}
	}
	for name, change := range map[string]func(c *Config){
		"model":  func(c *Config) { c.LLM.Roles = map[llm.Role]llm.RoleConfig{llm.Agent: {Model: "other"}} },
		"trials": func(c *Config) { c.SetOption("trials", 5) },
		"judges": func(c *Config) { c.SetOption("judges", 0) },
		"user":   func(c *Config) { c.SetOption("user", "embedded") },
	} {
		c := base
		change(&c)
		if c.resolved().Fingerprint() == fp {
			t.Errorf("%s does not change the fingerprint", name)
		}
	}
	emb := smallConfig(t, 10).outputConfig()
	for _, k := range []string{"llm", "user", "trials", "judges", "rewrites", "instructions", "max_tool_errors", "dialogues"} {
		if _, ok := emb[k]; ok {
			t.Errorf("embedded config records %s", k)
		}
	}
	raw, _ := json.Marshal(base.outputConfig())
	for _, k := range []string{"base_url", "api_key_env", "cache", "max_concurrency", "dialogues"} {
		if strings.Contains(string(raw), `"`+k+`"`) {
			t.Errorf("recorded config holds %s: %s", k, raw)
		}
	}
	bad := []struct {
		change func(c *Config)
		want   string
	}{
		{func(c *Config) { c.Engine = "gpt" }, "want embedded, llm or hybrid"},
		{func(c *Config) { c.SetOption("user", "robot") }, "--user"},
		{func(c *Config) { c.Engine = EngineHybrid; c.SetOption("user", "embedded") }, "--user embedded"},
		{func(c *Config) { c.SetOption("trials", 0) }, "--trials"},
		{func(c *Config) { c.SetOption("judges", -1) }, "--judges"},
		{func(c *Config) { c.SetOption("instructions", "magic") }, "--instructions"},
		{func(c *Config) { c.LLM.BaseURL = "" }, "llm.base_url"},
		{func(c *Config) { c.Engine, c.DPO = EngineHybrid, true }, "--dpo with --engine hybrid"},
		{func(c *Config) { c.Engine = EngineEmbedded; c.SetOption("instructions", "llm") }, "--instructions llm"},
	}
	for _, tc := range bad {
		c := llmConfig(t, EngineLLM, 10)
		tc.change(&c)
		c = c.resolved()
		if _, err := c.Spec(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}
