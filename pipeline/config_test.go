package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/synth-data/synth/pack"
)

func TestLoadFile(t *testing.T) {
	cases := []struct {
		name, yaml, want string
		check            func(Config) bool
	}{
		{"keys", "n: 12\nseed: 4\nwrites: 1-2\nreads: '3-5'\nbehaviors: [minimal, typos]\nwrite_weights: [1, 3]\n", "",
			func(c Config) bool {
				return c.N == 12 && c.Seed == 4 && c.Writes == "1-2" && c.Reads == "3-5" && len(c.Behaviors) == 2 && c.WriteWeights[1] == 3
			}},
		{"empty file keeps defaults", "", "", func(c Config) bool { return c.N == Defaults().N }},
		{"comment only", "# nothing\n", "", func(c Config) bool { return c.N == Defaults().N }},
		{"unknown key", "n: 3\nworkerz: 2\n", `c.yaml:2: workerz: unknown key "workerz" (did you mean "workers"?)`, nil},
		{"wrong type", "n: many\n", "Config.n", nil},
		{"not a mapping", "- n: 3\n", "want a mapping", nil},
		{"malformed", "n: [1,\n", "not valid YAML", nil},
		{"a second document", "n: 3\n---\nn: 4\n", "more than one YAML document", nil},
		{"a second document that is broken", "n: 3\n---\nn: [\n", "document 2 is not valid YAML", nil},
		{"a stray separator", "n: 3\n---\n", "", func(c Config) bool { return c.N == 3 }},
		{"larger than the limit", "n: 3\n" + strings.Repeat("#", MaxConfigBytes) + "\n", "larger than 1 MiB", nil},
		// JSON has no NaN: the key is named here, not by the encoder.
		{"NaN", "validation: .nan\n", "validation: not a finite number", nil},
		{"infinity in a list", "write_weights: [1, -.inf]\n", "write_weights[1]: not a finite number", nil},
		{"infinity nested", "llm:\n  max_cost: .inf\n", "llm.max_cost: not a finite number", nil},
		// JSON keys are strings: another key is named, not the encoder's type.
		{"a number as a key", "llm:\n  1: 2\n", "llm: the key 1 is not a name", nil},
		{"a number as a top-level key", "1: 2\n", "the top level: the key 1 is not a name", nil},
		{"a tagged key", "llm: {!x max_retries: 3}\n", "", func(c Config) bool { return c.LLM.MaxRetries == 3 }},
		// An engine's keys are top-level keys, held for the engine.
		{"engine keys", "trials: 5\nrecovery_share: 0.3\n", "", func(c Config) bool {
			return c.Option("trials") == 5.0 && c.Option("recovery_share") == 0.3 && c.Option("judges") == Defaults().Option("judges")
		}},
		{"an engine key misspelt", "trails: 5\n", `trails: unknown key "trails" (did you mean "trials"?)`, nil},
		{"an engine key at the wrong level", "llm:\n  trials: 5\n", `llm.trials: unknown key "trials" (did you mean "trials"?)`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := Defaults()
			err := LoadFile(path, &cfg)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
					t.Fatalf("error %v, want one naming %s and containing %q", err, path, tc.want)
				}
				return
			}
			if err != nil || !tc.check(cfg) {
				t.Fatalf("err %v, config %+v", err, cfg)
			}
		})
	}
}

// TestUnknownKeys: every unknown key of a config is reported at once,
// each with its line and the closest valid key, at any depth; a key put
// at the wrong level is pointed to where it belongs.
func TestUnknownKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.yaml")
	yaml := "n: 10\nwirtes: 1-2\nredas: 2-3\nllm:\n  modle: m\n  roles:\n    agent: {temprature: 0}\n" +
		"  extra_body_anything: 1\nbase_url: http://x\nzzzzzzzz: 1\n"
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Defaults()
	err := LoadFile(path, &cfg)
	want := "config " + path + ": 7 unknown keys (synth run --help lists every key with its flag):\n" +
		"  " + path + `:2: wirtes: unknown key "wirtes" (did you mean "writes"?)` + "\n" +
		"  " + path + `:3: redas: unknown key "redas" (did you mean "reads"?)` + "\n" +
		"  " + path + `:5: llm.modle: unknown key "modle" (did you mean "llm.model"?)` + "\n" +
		"  " + path + `:7: llm.roles.agent.temprature: unknown key "temprature" (did you mean "llm.roles.agent.temperature"?)` + "\n" +
		"  " + path + `:8: llm.extra_body_anything: unknown key "extra_body_anything"` + "\n" +
		"  " + path + `:9: base_url: unknown key "base_url" (did you mean "llm.base_url"?)` + "\n" +
		"  " + path + `:10: zzzzzzzz: unknown key "zzzzzzzz"`
	if err == nil || err.Error() != want {
		t.Fatalf("got\n%v\nwant\n%s", err, want)
	}
	// The user's own keys (roles' extra_body, prices by model, headers)
	// are not the config's to refuse.
	ok := "llm:\n  headers: {X-Any: y}\n  prices: {my-model: {input: 1, output: 2}}\n  roles:\n    agent: {extra_body: {whatever: {deep: 1}}}\ndpo_mix: {wrong_target: 1}\n"
	if err := os.WriteFile(path, []byte(ok), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := LoadFile(path, &cfg); err != nil {
		t.Errorf("free-form keys refused: %v", err)
	}
}

func FuzzLoadFile(f *testing.F) {
	for _, s := range []string{"n: 3\n", "writes: 1-2\nreads: 2-3\n", "behaviors: [a]\n", "{", "- 1\n", "n: !!binary xx\n", "&a [*a]\n",
		"validation: .nan\n", "write_weights: [1e308, 1e308, 1e308, 1e308, 1e308, 1e308]\n", "llm: {max_cost: .inf}\n", "dpo_mix: {wrong_tool: -.inf}\n"} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := Defaults()
		if err := LoadFile(path, &cfg); err != nil {
			if strings.Contains(err.Error(), "json: unsupported") {
				t.Fatalf("an error that names no key: %v", err)
			}
			return
		}
		// Must not panic on anything a file can hold; a config it passes
		// is one a manifest can record.
		if _, err := cfg.Spec(); err != nil {
			return
		}
		if key := nonFinite(reflect.ValueOf(cfg), ""); key != "" {
			t.Fatalf("Spec passed a config whose %s is not finite", key)
		}
		if _, err := json.Marshal(cfg.outputConfig()); err != nil {
			t.Fatalf("Spec passed a config the manifest cannot record: %v", err)
		}
	})
}

// TestLoadFileUnbounded: a config that never ends (/dev/zero, a pipe fed
// forever) is refused, not read into memory: a device before it is read,
// a pipe after MaxConfigBytes.
func TestLoadFileUnbounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	cfg := Defaults()
	err := LoadFile("/dev/zero", &cfg)
	if err == nil || !strings.Contains(err.Error(), "/dev/zero is not a regular file or a pipe (a device)") {
		t.Fatalf("LoadFile(/dev/zero): %v", err)
	}
	dir := t.TempDir()
	if err := LoadFile(dir, &cfg); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("LoadFile(a folder): %v", err)
	}
}

// TestCheck: every value a flag or a file can hold that cannot run is
// refused by Check, naming the flag or key and what to do.
func TestCheck(t *testing.T) {
	cases := []struct {
		name string
		set  func(c *Config)
		want string
	}{
		{"dpo mode", func(c *Config) { c.DPO, c.DPOMode = true, "bogus" }, `--dpo-mode "bogus": want one of segment, session, equal`},
		{"dpo mode without --dpo", func(c *Config) { c.DPOMode = "bogus" }, `--dpo-mode "bogus"`},
		{"dpo mix", func(c *Config) { c.DPOMix = map[string]float64{"nosuch": 1} }, `dpo_mix: unknown failure type "nosuch"`},
		{"an empty dpo mix", func(c *Config) { c.DPOMix = map[string]float64{} }, ""},
		{"dpo pairs", func(c *Config) { c.DPOPairs = 0 }, "dpo_pairs 0: need at least 1"},
		{"write weights count", func(c *Config) { c.WriteWeights = []float64{1, 2} }, "--write-weights 1,2: 2 weights given for range 0-5, which has 6 values; give one weight per value of --writes 0-5"},
		{"read weights count", func(c *Config) { c.Reads, c.ReadWeights = "2-3", []float64{1} }, "--read-weights 1: 1 weights given for range 2-3"},
		{"negative weight", func(c *Config) { c.Writes, c.WriteWeights = "1-2", []float64{1, -1} }, "weights must be finite and >= 0"},
		{"reads beyond the bound", func(c *Config) { c.Reads = "0-99" }, "--reads 0-99: at most 64 reads before each write; use e.g. --reads 0-64"},
		{"reads overflow", func(c *Config) { c.Reads = "0-9223372036854775807" }, "at most 64 reads"},
		{"writes beyond the bound", func(c *Config) { c.Writes = "20-30" }, "--writes 20-30: at most 16 write decisions per task; use e.g. --writes 16-16"},
		{"validation NaN", func(c *Config) { c.Validation = math.NaN() }, "--validation: not a finite number"},
		{"test infinite", func(c *Config) { c.Test = math.Inf(1) }, "--test: not a finite number"},
		{"weight NaN", func(c *Config) { c.Writes, c.WriteWeights = "1-2", []float64{1, math.NaN()} }, "--write-weights (value 2): not a finite number"},
		{"max cost NaN", func(c *Config) { c.LLM.MaxCost = math.NaN() }, "llm.max_cost: not a finite number"},
		{"shares", func(c *Config) { c.Validation, c.Test = 0.6, 0.5 }, "shares must be >= 0 and sum below 1"},
		{"n overflow", func(c *Config) { c.N = math.MaxInt64 }, "-n 9223372036854775807: at most 1000000000 blueprints"},
		{"n zero", func(c *Config) { c.N = 0 }, "-n 0: the number of blueprints must be at least 1"},
		{"too many chunks", func(c *Config) { c.N, c.ChunkSize = MaxN, 1 }, "raise --chunk-size to 10001 or more"},
		{"workers", func(c *Config) { c.Workers = 10_000_000 }, "--workers 10000000: at most 1024"},
		{"max turns", func(c *Config) { c.MaxTurns = 1 << 40 }, "max_turns 1099511627776: at most 10000"},
		{"shard", func(c *Config) { c.Shard = "3/2" }, `--shard "3/2": want I/N`},
		{"dialogues", func(c *Config) {
			c.Engine, c.LLM.BaseURL, c.LLM.Model = EngineLLM, "http://127.0.0.1:1/v1", "m"
			c.SetOption("dialogues", 1_000_000_000)
		}, "--dialogues 1000000000: at most 4096"},
		{"max concurrency", func(c *Config) {
			c.Engine, c.LLM.BaseURL, c.LLM.Model, c.LLM.MaxConcurrency = EngineLLM, "http://127.0.0.1:1/v1", "m", 1<<30
		}, "llm.max_concurrency: 1073741824: at most 4096"},
		{"write weights summing past the largest number", func(c *Config) {
			c.WriteWeights = []float64{1e308, 1e308, 1e308, 1e308, 1e308, 1e308}
		}, "--write-weights 1e+308,1e+308,1e+308,1e+308,1e+308,1e+308: weights for range 0-5 sum past the largest number"},
		{"dpo mix summing past the largest number", func(c *Config) {
			c.DPOMix = map[string]float64{"wrong_target": math.MaxFloat64, "wrong_tool": math.MaxFloat64}
		}, "dpo_mix: weights for range"},
		{"max retries negative", func(c *Config) { setLLM(c); c.LLM.MaxRetries = -2 }, "llm.max_retries: -2: want -1 (no retries), 0 (the default 8) or up to 100"},
		{"max retries absurd", func(c *Config) { setLLM(c); c.LLM.MaxRetries = 1_000_000_000 }, "llm.max_retries: 1000000000"},
		{"timeout absurd", func(c *Config) { setLLM(c); c.LLM.Timeout = "100000h" }, "llm.timeout: 100000h: at most 1h0m0s"},
		{"rpm absurd", func(c *Config) { setLLM(c); c.LLM.RPM = math.MaxInt }, "llm.rpm"},
		{"response bytes absurd", func(c *Config) { setLLM(c); c.LLM.MaxResponseBytes = math.MaxInt64 }, "llm.max_response_bytes"},
		{"trials absurd", func(c *Config) { setLLM(c); c.SetOption("trials", 1<<40) }, "--trials 1099511627776: want 1 to 100"},
		{"judges absurd", func(c *Config) { setLLM(c); c.SetOption("judges", 1<<40) }, "--judges 1099511627776: want 0 to 16"},
		{"the defaults", func(*Config) {}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Defaults()
			tc.set(&cfg)
			cfg = cfg.resolved()
			err := cfg.Check()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check: %v\nwant an error containing %q", err, tc.want)
			}
		})
	}
}

// setLLM makes c a run of the llm engine, so its llm keys are checked.
func setLLM(c *Config) {
	c.Engine, c.LLM.BaseURL, c.LLM.Model = EngineLLM, "http://127.0.0.1:1/v1", "m"
}

// TestBadConfigWritesNothing: a run refused for its config leaves no out
// dir, so the corrected command is not told that --out holds another
// config.
func TestBadConfigWritesNothing(t *testing.T) {
	for name, set := range map[string]func(c *Config){
		"dpo mode":      func(c *Config) { c.DPO, c.DPOMode = true, "bogus" },
		"write weights": func(c *Config) { c.WriteWeights = []float64{1, 2} },
		"reads":         func(c *Config) { c.Reads = "0-99" },
		"infeasible":    func(c *Config) { c.Reads = "20-20" },
	} {
		t.Run(name, func(t *testing.T) {
			cfg := smallConfig(t, 20)
			set(&cfg)
			if _, err := Run(context.Background(), cfg, nil); err == nil {
				t.Fatal("the run was not refused")
			}
			if _, err := os.Stat(cfg.Out); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the refused run left %s behind (%v)", cfg.Out, err)
			}
		})
	}
}

// TestFailedStartIsReplaced: a run that failed before finishing a chunk
// does not block the corrected command (no --force needed); one that
// finished a chunk does.
func TestFailedStartIsReplaced(t *testing.T) {
	cfg := smallConfig(t, 20)
	work := filepath.Join(cfg.Out, workDirName)
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	other := cfg
	other.N = 30
	raw := []byte(`{"fingerprint": "` + other.Fingerprint() + `", "synth_version": "` + Version + `", "config": {"n": 30}}`)
	if err := os.WriteFile(filepath.Join(work, "run.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), cfg, nil); err != nil {
		t.Fatalf("a work dir without a finished chunk blocks the run: %v", err)
	}

	// A finished chunk of another config is kept: refused without --force.
	busy := smallConfig(t, 300)
	busy.ChunkSize = 100
	interrupted(t, busy, 150)
	busy.N = 250
	if _, err := Run(context.Background(), busy, nil); err == nil || !strings.Contains(err.Error(), "made with another config") {
		t.Fatalf("another config over finished chunks: %v", err)
	}
}

// TestPackPathSpelling: a pack named by a relative or an absolute path is
// the same config; an edited pack is not.
func TestPackPathSpelling(t *testing.T) {
	dir := t.TempDir()
	packDir := filepath.Join(dir, "pack")
	if err := pack.Init(packDir, ""); err != nil {
		t.Fatal(err)
	}
	cfg := smallConfig(t, 20)
	cfg.Domain = packDir
	if _, err := Run(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	rel := cfg
	rel.Domain = "pack"
	res, err := Run(context.Background(), rel, nil)
	if err != nil || !res.Existing {
		t.Fatalf("the same pack by a relative path: existing %v, err %v", res != nil && res.Existing, err)
	}
	policy := filepath.Join(packDir, "policy.md")
	b, err := os.ReadFile(policy)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(policy, append(b, "\nBe brief.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), cfg, nil); err == nil || !strings.Contains(err.Error(), "differ from those it was made with") {
		t.Fatalf("an edited pack: %v", err)
	}
}

// TestPackShardsMerge: shards of a pack run merge, their fingerprints
// following the pack's content; a pack edited between the shards and the
// merge is refused.
func TestPackShardsMerge(t *testing.T) {
	root := t.TempDir()
	packDir := filepath.Join(root, "pack")
	if err := pack.Init(packDir, ""); err != nil {
		t.Fatal(err)
	}
	var outs []string
	for i := range 2 {
		cfg := smallConfig(t, 40)
		cfg.Domain, cfg.ChunkSize, cfg.Shard = packDir, 20, fmt.Sprintf("%d/2", i)
		cfg.Out = filepath.Join(root, fmt.Sprintf("shard-%d", i))
		if _, err := Run(context.Background(), cfg, nil); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, cfg.Out)
	}
	if _, err := Merge(outs, filepath.Join(root, "merged"), false); err != nil {
		t.Fatal(err)
	}
	policy := filepath.Join(packDir, "policy.md")
	if err := os.WriteFile(policy, []byte("Another policy.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(outs, filepath.Join(root, "edited"), false); err == nil || !strings.Contains(err.Error(), "edited") {
		t.Fatalf("merging shards of a pack edited since: %v", err)
	}
}

// TestEngineKeysRecorded: a release records the keys its engine reads
// (or lists in Kind.Recorded) at the top level of its config, and no
// other engine's, so a key moves with its engine and an embedded
// release's fingerprint does not follow the LLM engines' keys.
func TestEngineKeysRecorded(t *testing.T) {
	cases := []struct {
		engine    string
		want, not []string
	}{
		{EngineEmbedded, []string{"recovery_share"}, []string{"trials", "user", "judges", "dialogues", "llm"}},
		{EngineLLM, []string{"user", "trials", "judges", "rewrites", "instructions", "max_tool_errors", "recovery_share", "llm"}, []string{"dialogues"}},
		{EngineHybrid, []string{"user", "trials", "judges", "rewrites", "instructions", "max_tool_errors", "recovery_share", "llm"}, []string{"dialogues"}},
	}
	for _, tc := range cases {
		t.Run(tc.engine, func(t *testing.T) {
			c := Defaults()
			c.Engine = tc.engine
			c.SetOption("trials", 7)
			oc := c.resolved().outputConfig()
			for _, k := range tc.want {
				if _, ok := oc[k]; !ok {
					t.Errorf("recorded config lacks %s: %v", k, oc)
				}
			}
			for _, k := range tc.not {
				if _, ok := oc[k]; ok {
					t.Errorf("recorded config holds %s: %v", k, oc)
				}
			}
			raw, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			var back Config
			if err := json.Unmarshal(raw, &back); err != nil || back.Option("trials") != 7.0 {
				t.Fatalf("config %s does not read back its engine keys: trials %v, %v", raw, back.Option("trials"), err)
			}
		})
	}
	a := Defaults()
	b := a
	b.SetOption("trials", 9)
	if a.Option("trials") == b.Option("trials") {
		t.Error("SetOption on a copy changed the original config")
	}
}
