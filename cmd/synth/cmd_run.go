package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/release"
)

func version() string { return pipeline.Version }

// runOpts are synth run's flags that set no config key.
type runOpts struct {
	config     string
	quiet      bool
	logFormat  string
	cpuProfile string
	memProfile string
}

// runArgs is a parsed synth run command line.
type runArgs struct {
	cfg        pipeline.Config
	quiet      bool
	logFormat  string
	cpuProfile string
	memProfile string
}

func runVerb(o *runOpts, flags []runFlag) *verb {
	v := newVerb("run", "", "", 0, 0, "make a release: verified dialogues as Parquet",
		"Each flag sets the config key in brackets and overrides it in --config FILE, whose other keys (the LLM client's, docs/llm.md) have no flag. "+
			"The same config and seed give a byte-identical release, whatever --workers; rerunning an interrupted command continues it.")
	v.fs.StringVar(&o.config, "config", "", "YAML config `FILE`; flags given here override its keys")
	v.fs.BoolVar(&o.quiet, "quiet", false, "no progress on stderr")
	v.fs.StringVar(&o.logFormat, "log-format", "text", "progress and summary on stderr: `F` is text (bars on a terminal) or json")
	v.fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to `FILE` (go tool pprof; docs/performance.md)")
	v.fs.StringVar(&o.memProfile, "memprofile", "", "write an allocation profile of the run to `FILE` (go tool pprof)")
	v.order = []string{"config", "quiet", "log-format"}
	for _, f := range flags {
		v.fs.Var(f.value, f.name, f.usage)
		v.meta[f.name], v.keys[f.name] = f.arg, f.key
		v.order = append(v.order, f.name)
	}
	return v
}

// parseRun builds a run's config: the defaults, then the --config file,
// then the flags given on the command line.
func parseRun(ctx context.Context, args []string, stdout io.Writer) (*runArgs, error) {
	var o runOpts
	flags := runFlags(pipeline.Defaults())
	v := runVerb(&o, flags)
	if _, err := v.parse(args, stdout); err != nil {
		return nil, err
	}
	r := &runArgs{cfg: pipeline.Defaults(), quiet: o.quiet, logFormat: o.logFormat, cpuProfile: o.cpuProfile, memProfile: o.memProfile}
	if o.config != "" {
		if err := pipeline.LoadFileContext(ctx, o.config, &r.cfg); err != nil {
			return nil, err
		}
	}
	override(v.fs, flags, &r.cfg)
	return r, nil
}

func cmdRun(ctx context.Context, e env, args []string) error {
	stdout, stderr := e.stdout, e.stderr
	ra, err := parseRun(ctx, args, stdout)
	if err != nil {
		return err
	}
	final := ra.cfg
	rep, err := newReporter(stderr, ra.logFormat)
	if err != nil {
		return err
	}
	var prog pipeline.Progress = rep
	if ra.quiet {
		prog = nil
	}
	stopProfile, err := startProfiles(ra.cpuProfile, ra.memProfile)
	if err != nil {
		return err
	}
	res, err := pipeline.Run(ctx, final, prog)
	if perr := stopProfile(); err == nil {
		err = perr
	}
	if !ra.quiet {
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
		for _, n := range res.Notes {
			fmt.Fprintf(stderr, "synth: note: %s\n", n)
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
	if res.Stopped == release.StoppedBudget {
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
