package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/pipeline"
)

func version() string { return pipeline.Version }

type floatList []float64

func (f *floatList) String() string { return fmt.Sprint(*f) }
func (f *floatList) Set(s string) error {
	*f = nil
	for _, p := range strings.Split(s, ",") {
		var v float64
		if _, err := fmt.Sscan(strings.TrimSpace(p), &v); err != nil {
			return fmt.Errorf("%q is not a number", p)
		}
		*f = append(*f, v)
	}
	return nil
}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	d := pipeline.Defaults()
	var (
		configPath    = fs.String("config", "", "YAML config file; flags override its keys")
		cfg           pipeline.Config
		quiet         = fs.Bool("quiet", false, "no progress on stderr")
		logFormat     = fs.String("log-format", "text", "progress and summary on stderr: text (bars on a terminal) or json")
		behaviors     string
		dpoMix        string
		writeW, readW floatList
		lc            llm.Config
		roleModels    = map[llm.Role]*string{}
	)
	fs.StringVar(&cfg.Domain, "domain", d.Domain, "built-in domain (retail, airline) or a domain pack folder")
	fs.IntVar(&cfg.N, "n", d.N, "number of blueprints (tasks); each yields one dialogue")
	fs.Uint64Var(&cfg.Seed, "seed", d.Seed, "seed: same config and seed give byte-identical output")
	fs.StringVar(&cfg.Out, "out", d.Out, "output directory for the release")
	fs.StringVar(&cfg.Engine, "engine", d.Engine, "dialogue engine: embedded (offline), llm (an OpenAI-compatible endpoint plays agent and customer) or hybrid (embedded dialogues, lines rewritten by the LLM)")
	fs.StringVar(&cfg.User, "user", d.User, "customer of the llm engine: llm, or embedded (the rule-based user)")
	fs.IntVar(&cfg.Trials, "trials", d.Trials, "llm engine: dialogues per blueprint at most; the first that verifies is kept")
	fs.IntVar(&cfg.Judges, "judges", d.Judges, "judges reviewing each LLM-written instruction (0: no review)")
	fs.IntVar(&cfg.Rewrites, "rewrites", d.Rewrites, "rewrites of a rejected instruction before the template one is kept")
	fs.StringVar(&cfg.Instructions, "instructions", "", "customer instructions: template or llm (default: llm for the llm engine, template otherwise)")
	fs.IntVar(&cfg.MaxToolErrors, "max-tool-errors", d.MaxToolErrors, "llm engine: failed tool calls that end a dialogue")
	fs.IntVar(&cfg.Dialogues, "dialogues", 0, "LLM dialogues played at once (default: 2 x --max-concurrency); output does not depend on it")
	fs.StringVar(&lc.BaseURL, "base-url", "", "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8089/v1 (synth emulate) or https://api.openai.com/v1")
	fs.StringVar(&lc.Model, "model", "", "model of every LLM role")
	for _, r := range llm.Roles() {
		roleModels[r] = fs.String("model-"+string(r), "", "model of the "+string(r)+" role (overrides --model)")
	}
	fs.StringVar(&lc.APIKeyEnv, "api-key-env", "", "environment variable holding the API key (default OPENAI_API_KEY; none: send no key)")
	fs.StringVar(&lc.Cache, "llm-cache", "", "LLM response cache folder (default: the user cache dir; off: no cache)")
	fs.IntVar(&lc.MaxConcurrency, "max-concurrency", 0, "most LLM requests in flight (default 64)")
	fs.Float64Var(&lc.MaxCost, "max-cost", 0, "stop taking new blueprints once this many USD are billed (llm.prices); 0: no limit")
	fs.Int64Var(&lc.MaxTokens, "max-tokens", 0, "stop taking new blueprints once this many tokens are billed; 0: no limit")
	fs.StringVar(&cfg.Writes, "writes", d.Writes, "write intensity MIN-MAX: write decisions per task (default weights follow tau2 retail)")
	fs.Var(&writeW, "write-weights", "comma-separated weights, one per value of --writes (default: even, or tau2's for the default range)")
	fs.StringVar(&cfg.Reads, "reads", d.Reads, "read intensity MIN-MAX: read calls needed before each write's arguments are identifiable")
	fs.Var(&readW, "read-weights", "comma-separated weights, one per value of --reads (default: even)")
	fs.StringVar(&behaviors, "behaviors", "", "comma-separated behaviour profiles (default: all)")
	fs.IntVar(&cfg.Workers, "workers", d.Workers, "concurrent workers (output does not depend on it)")
	fs.IntVar(&cfg.MaxTurns, "max-turns", d.MaxTurns, "maximum user turns per dialogue")
	fs.IntVar(&cfg.ChunkSize, "chunk-size", d.ChunkSize, "blueprints per chunk: the unit of resume and sharding, and of Parquet files")
	fs.StringVar(&cfg.Shard, "shard", "", "produce only shard I of N (I/N), for synth merge")
	fs.Float64Var(&cfg.Validation, "validation", d.Validation, "share of blueprints in the validation split")
	fs.Float64Var(&cfg.Test, "test", d.Test, "share of blueprints in the test split")
	fs.StringVar(&cfg.License, "license", d.License, "license written into the dataset card")
	fs.BoolVar(&cfg.DPO, "dpo", false, "also write DPO preference pairs from verified failures (dpo/)")
	fs.StringVar(&cfg.DPOMode, "dpo-mode", d.DPOMode, "pair shape: segment (next assistant segment), session (whole conversations) or equal (equal-length segments)")
	fs.IntVar(&cfg.DPOPairs, "dpo-pairs", d.DPOPairs, "most DPO pairs per blueprint")
	fs.StringVar(&dpoMix, "dpo-mix", "", "failure mix as type=weight,... (default: every type equally)")
	fs.BoolVar(&cfg.Force, "force", false, "replace a release made with another config in --out")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "synth run: unexpected argument %q (flags come as --name value)\n", fs.Arg(0))
		return errUsage
	}
	final := d
	var mixErr error
	if *configPath != "" {
		if err := pipeline.LoadFile(*configPath, &final); err != nil {
			return err
		}
	}
	// Flags given on the command line override the file.
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "domain":
			final.Domain = cfg.Domain
		case "n":
			final.N = cfg.N
		case "seed":
			final.Seed = cfg.Seed
		case "out":
			final.Out = cfg.Out
		case "engine":
			final.Engine = cfg.Engine
		case "writes":
			final.Writes = cfg.Writes
		case "write-weights":
			final.WriteWeights = writeW
		case "reads":
			final.Reads = cfg.Reads
		case "read-weights":
			final.ReadWeights = readW
		case "behaviors":
			final.Behaviors = strings.Split(behaviors, ",")
		case "workers":
			final.Workers = cfg.Workers
		case "max-turns":
			final.MaxTurns = cfg.MaxTurns
		case "chunk-size":
			final.ChunkSize = cfg.ChunkSize
		case "shard":
			final.Shard = cfg.Shard
		case "validation":
			final.Validation = cfg.Validation
		case "test":
			final.Test = cfg.Test
		case "license":
			final.License = cfg.License
		case "force":
			final.Force = cfg.Force
		case "dpo":
			final.DPO = cfg.DPO
		case "dpo-mode":
			final.DPOMode = cfg.DPOMode
		case "dpo-pairs":
			final.DPOPairs = cfg.DPOPairs
		case "user":
			final.User = cfg.User
		case "trials":
			final.Trials = cfg.Trials
		case "judges":
			final.Judges = cfg.Judges
		case "rewrites":
			final.Rewrites = cfg.Rewrites
		case "instructions":
			final.Instructions = cfg.Instructions
		case "max-tool-errors":
			final.MaxToolErrors = cfg.MaxToolErrors
		case "dialogues":
			final.Dialogues = cfg.Dialogues
		case "base-url":
			final.LLM.BaseURL = lc.BaseURL
		case "model":
			// Every role: a model named in the file for one role yields too.
			final.LLM.Model = lc.Model
			final.LLM.Roles = maps.Clone(final.LLM.Roles)
			for r, rc := range final.LLM.Roles {
				rc.Model = lc.Model
				final.LLM.Roles[r] = rc
			}
		case "api-key-env":
			final.LLM.APIKeyEnv = lc.APIKeyEnv
		case "llm-cache":
			final.LLM.Cache = lc.Cache
		case "max-concurrency":
			final.LLM.MaxConcurrency = lc.MaxConcurrency
		case "max-cost":
			final.LLM.MaxCost = lc.MaxCost
		case "max-tokens":
			final.LLM.MaxTokens = lc.MaxTokens
		case "dpo-mix":
			final.DPOMix = map[string]float64{}
			for _, kv := range strings.Split(dpoMix, ",") {
				k, v, _ := strings.Cut(kv, "=")
				var w float64
				if _, err := fmt.Sscan(v, &w); err != nil {
					mixErr = fmt.Errorf("--dpo-mix %q: want type=weight,... e.g. wrong_target=2,no_confirmation=1", kv)
				}
				final.DPOMix[strings.TrimSpace(k)] = w
			}
		}
	})
	if mixErr != nil {
		return mixErr
	}
	// Per-role models after --model, so that they win over it.
	fs.Visit(func(f *flag.Flag) {
		for _, r := range llm.Roles() {
			if f.Name == "model-"+string(r) {
				final.LLM.Roles = maps.Clone(final.LLM.Roles)
				if final.LLM.Roles == nil {
					final.LLM.Roles = map[llm.Role]llm.RoleConfig{}
				}
				rc := final.LLM.Roles[r]
				rc.Model = *roleModels[r]
				final.LLM.Roles[r] = rc
			}
		}
	})
	rep, err := newReporter(stderr, *logFormat)
	if err != nil {
		return err
	}
	var prog pipeline.Progress = rep
	if *quiet {
		prog = nil
	}
	res, err := pipeline.Run(ctx, final, prog)
	if !*quiet {
		rep.Finish(res, err)
	}
	if res != nil && res.LLM != nil {
		// Billed figures differ on a cached rerun: they go here, never
		// into the release.
		b := res.LLM
		fmt.Fprintf(stdout, "LLM: %d requests sent (%d retries), %d cache hits, %d tokens billed, $%.4f billed, mean %.1f requests in flight (peak %d)\n",
			b.Requests, b.Retries, b.CacheHits, b.Tokens, b.CostUSD, b.MeanInFlight, b.PeakInFlight)
	}
	if res != nil {
		for _, r := range res.Redone {
			fmt.Fprintf(stderr, "synth: %s\n", r)
		}
	}
	if err != nil {
		return err
	}
	m := res.Manifest
	if m == nil {
		fmt.Fprintf(stdout, "shard %s done in %s: %d chunks (%d were already finished); combine all shards with: synth merge OUT... -o DIR\n",
			final.Shard, res.Elapsed.Round(time.Millisecond), res.Chunks, res.Resumed)
		return nil
	}
	if res.Existing {
		fmt.Fprintf(stdout, "%s already holds this release (%d rows); nothing to do\n", res.Dir, m.Counts.SFTRows)
		return nil
	}
	if res.Stopped == pipeline.StoppedBudget {
		fmt.Fprintf(stdout, "stopped: the LLM budget (--max-cost / --max-tokens) ran out; the release holds the first %d of %d blueprints. "+
			"Rerun the same command with a larger budget to complete it (cached responses are not paid again).\n", res.Done, final.N)
	}
	rate := float64(m.Counts.Verified) / res.Elapsed.Seconds()
	fmt.Fprintf(stdout, "wrote %s: %d blueprints, %d verified, %d rejected, %d SFT rows (train %d, validation %d, test %d) in %s (%.0f rows/s)\n",
		res.Dir, m.Counts.Blueprints, m.Counts.Verified, m.Counts.Rejected, m.Counts.SFTRows,
		m.Counts.BySplit["train"], m.Counts.BySplit["validation"], m.Counts.BySplit["test"], res.Elapsed.Round(time.Millisecond), rate)
	if res.Resumed > 0 {
		fmt.Fprintf(stdout, "  resumed: %d of %d chunks were already finished\n", res.Resumed, res.Chunks)
	}
	for _, name := range slices.Sorted(maps.Keys(m.Failures)) {
		fmt.Fprintf(stdout, "  rejected by %s: %d\n", name, m.Failures[name])
	}
	if m.DPO != nil {
		fmt.Fprintf(stdout, "  DPO pairs: %d from %d flawed attempts\n", m.DPO.Pairs, m.DPO.Attempts)
	}
	if l := m.LLM; l != nil {
		fmt.Fprintf(stdout, "  LLM (%s): %d responses used, %d prompt + %d completion tokens, estimated $%.4f at llm.prices\n",
			l.Engine, l.Total.Responses, l.Total.PromptTokens, l.Total.CompletionTokens, l.Total.CostUSD)
	}
	return nil
}
