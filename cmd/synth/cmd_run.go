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
	)
	fs.StringVar(&cfg.Domain, "domain", d.Domain, "domain name (built in: retail)")
	fs.IntVar(&cfg.N, "n", d.N, "number of blueprints (tasks); each yields one dialogue")
	fs.Uint64Var(&cfg.Seed, "seed", d.Seed, "seed: same config and seed give byte-identical output")
	fs.StringVar(&cfg.Out, "out", d.Out, "output directory for the release")
	fs.StringVar(&cfg.Engine, "engine", d.Engine, "dialogue engine: embedded")
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
	return nil
}
