package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/internal/termtext"
)

const usage = `synth — verified multi-turn training data for tool-using agents

Usage:
  synth run      [--config FILE] [--domain NAME|DIR] [-n N] [--seed S] [--out DIR] [flags]
  synth merge    OUT... -o DIR        merge the outputs of synth run --shard I/N
  synth inspect  DIR [--id ID] [--split SPLIT] [--dpo]
  synth stats    DIR [--json] [--language [--sample N] [--top K]]
  synth validate DIR [--json]         re-check a release on its own
  synth verify   --domain NAME|PACK [--tasks T] FILE...   verify dialogues made elsewhere (JSONL, τ²/τ-bench files)
  synth report   DIR [-o FILE]        self-contained HTML report with plots
  synth domain   list | show NAME|DIR | init DIR [--name NAME] | validate DIR
  synth domain   import-openapi SPEC -o DIR [--include GLOB]   an OpenAPI 3.0/3.1 spec as a pack
  synth domain   import-tau2 DIR -o PACK   τ²-bench's retail or airline as a pack
  synth export   DIR --format openai|sharegpt|jsonl -o OUT   rows for trainers without the Hub layout
  synth emulate  [--addr HOST:PORT] [--flavor F] [flags]   OpenAI-compatible server for tests and dry runs
  synth serve    [--addr HOST:PORT] [--config FILE] [flags]   HTTP environment for RL rollouts (reset, step, rewards)
  synth version

Run 'synth COMMAND -h' for a command's flags.
`

// errUsage marks errors caused by how synth was called (exit status 2).
var errUsage = errors.New("usage")

func main() {
	// First: a child started under a memory bound caps itself before it
	// allocates anything worth counting.
	if err := applyBound(); err != nil {
		fmt.Fprintln(os.Stderr, "synth:", err)
		os.Exit(1)
	}
	if os.Getenv("GOGC") == "" && os.Getenv(memoryEnv) == "" {
		// Allocation is heavy and the live heap moderate (the base
		// database, a bounded window of dialogues, the Parquet row groups
		// being built): trading memory for fewer collections buys
		// throughput. The soft limit caps the trade. It must sit well above
		// the live heap (airline's is about 160 MB), or the collector runs
		// back to back and takes up to half the CPU.
		debug.SetGCPercent(400)
		if os.Getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(softLimit(physicalMemory()))
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first signal cancels the work, which stops cleanly; a second
	// one ends the process at once, whatever it waits on.
	context.AfterFunc(ctx, stop)
	os.Exit(runWith(ctx, os.Args[1:], os.Stdout, os.Stderr, newBounder(os.Stderr)))
}

// softLimit is the heap a run may grow to before the collector works
// harder: an eighth of the machine's memory, between 256 MiB and 1 GiB
// (256 MiB where the size is unknown). GOMEMLIMIT overrides it.
func softLimit(physical int64) int64 {
	const lo, hi = 256 << 20, 1 << 30
	return min(max(physical/8, lo), hi)
}

// run runs a synth command in this process, with no memory bound.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runWith(ctx, args, stdout, stderr, nil)
}

// runWith runs a synth command; b, when not nil, runs the commands that
// execute someone else's code again under a memory bound.
func runWith(ctx context.Context, args []string, stdout, stderr io.Writer, b *bounder) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "run":
		err = cmdRun(ctx, args[1:], stdout, stderr)
	case "merge":
		err = cmdMerge(args[1:], stdout, stderr)
	case "inspect":
		// Rows come from the release: their text is shown, never obeyed.
		err = cmdInspect(args[1:], termtext.Writer(stdout))
	case "stats":
		err = cmdStats(ctx, args[1:], stdout)
	case "validate", "report":
		err = cmdAudit(ctx, args[0], args[1:], stdout, b)
	case "domain":
		// A pack's policy, descriptions and problems are someone else's text.
		err = cmdDomain(ctx, args[1:], termtext.Writer(stdout), stderr, b)
	case "verify":
		err = cmdVerify(ctx, args[1:], stdout, stderr, b)
	case "export":
		err = cmdExport(ctx, args[1:], stdout, stderr)
	case "emulate":
		err = cmdEmulate(ctx, args[1:], stdout, stderr)
	case "serve":
		err = cmdServe(ctx, args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "synth", version())
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "synth: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if err == nil {
		return 0
	}
	if errors.Is(err, errUsage) {
		return 2
	}
	if es, ok := errors.AsType[exitStatus](err); ok {
		return int(es)
	}
	// Errors quote what synth read (ids, file contents, paths): shown,
	// never obeyed, and bounded.
	fmt.Fprintf(stderr, "synth %s: %s\n", args[0], errorText(err))
	return 1
}

// maxErrorBytes bounds the error text synth prints: a message that
// quotes megabytes of someone's text says no more than its start does.
const maxErrorBytes = 64 << 10

// errorText is an error as synth prints it: bounded and safe for a
// terminal.
func errorText(err error) string {
	return termtext.Clean(limitio.Clip(err.Error(), maxErrorBytes))
}
