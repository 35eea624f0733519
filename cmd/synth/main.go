package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/synth-data/synth/pipeline"
)

func main() {
	// First: a child started under a memory bound caps itself before it
	// allocates anything worth counting.
	if err := applyBound(); err != nil {
		fmt.Fprintln(os.Stderr, "synth:", err)
		os.Exit(1)
	}
	if os.Getenv("GOGC") == "" && os.Getenv(memoryEnv) == "" && os.Getenv("GOMEMLIMIT") == "" {
		// The collector keeps Go's GOGC of 100, which keeps a 20,000-row
		// retail run under 400 MB where 150 did not (docs/performance.md
		// has the figures): 400 took a fifth less CPU for more than twice
		// the peak memory, and users pay for memory on every shard. The
		// soft limit caps the heap on a machine without much memory. It
		// must sit well above the live heap (airline's is about 160 MB), or
		// the collector runs back to back and takes up to half the CPU.
		debug.SetMemoryLimit(softLimit(physicalMemory()))
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

// runWith runs a synth command; b, when not nil, runs the commands that
// execute someone else's code again under a memory bound.
func runWith(ctx context.Context, args []string, stdout, stderr io.Writer, b *bounder) int {
	cmds := commands()
	switch {
	case len(args) == 0:
		mainUsage(stderr, cmds)
		return 2
	case isHelp(args[0]) && args[0] != "help":
		mainUsage(stdout, cmds)
		return 0
	case args[0] == "--version":
		args = []string{"version"}
	}
	name, err := dispatch(ctx, cmds, "", args, env{stdin: os.Stdin, stdout: stdout, stderr: stderr, b: b})
	return exitCode(name, err, stderr)
}

// mainUsage prints synth's own help: every command with its summary.
func mainUsage(w io.Writer, cmds []command) {
	fmt.Fprint(w, "synth — verified multi-turn training data for tool-using agents\n\nUsage: synth COMMAND [arguments] [flags]\n\nCommands:\n")
	for _, c := range cmds {
		if c.subs == nil {
			listCommands(w, []command{c})
			continue
		}
		listCommands(w, c.subs)
	}
	fmt.Fprint(w, "\nRun 'synth COMMAND --help' for a command's flags and arguments;\ndocs/cli.md lists them all.\n")
}

// commands are synth's verbs, in the order its help lists them.
func commands() []command {
	return []command{
		{verb: func() *verb { return runVerb(new(runOpts), runFlags(pipeline.Defaults())) }, run: cmdRun},
		{verb: func() *verb { return mergeVerb(new(mergeOpts)) }, run: cmdMerge},
		{verb: func() *verb { return inspectVerb(new(inspectOpts)) }, run: cmdInspect},
		{verb: func() *verb { return statsVerb(new(statsOpts)) }, run: cmdStats},
		{verb: func() *verb { return validateVerb(new(validateOpts)) }, run: cmdValidate},
		{verb: func() *verb { return verifyVerb(new(verifyOpts)) }, run: cmdVerify},
		{verb: func() *verb { return reportVerb(new(reportOpts)) }, run: cmdReport},
		{verb: domainVerb, subs: domainCommands()},
		{verb: func() *verb { return exportVerb(new(exportOpts)) }, run: cmdExport},
		{verb: func() *verb { return emulateVerb(new(emulateOpts)) }, run: cmdEmulate},
		{verb: func() *verb { return serveVerb(new(serveOpts)) }, run: cmdServe},
		{verb: func() *verb { return mcpVerb(new(mcpOpts)) }, run: cmdMCP},
		{verb: versionVerb, run: cmdVersion},
		{verb: func() *verb { return helpVerb(new(bool)) }, run: cmdHelp},
	}
}

func versionVerb() *verb {
	return newVerb("version", "", "", 0, 0, "print synth's version", "")
}

func cmdVersion(_ context.Context, e env, args []string) error {
	if _, err := versionVerb().parse(args, e.stdout); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "synth", version())
	return nil
}

func helpVerb(markdown *bool) *verb {
	v := newVerb("help", "[COMMAND [SUBCOMMAND]]", "", 0, 2, "the help of synth or of a command", "")
	v.fs.BoolVar(markdown, "markdown", false, "print every command's help as one Markdown page (docs/cli.md)")
	return v
}

func cmdHelp(_ context.Context, e env, args []string) error {
	var markdown bool
	pos, err := helpVerb(&markdown).parse(args, e.stdout)
	switch {
	case err != nil:
		return err
	case markdown:
		_, err := io.WriteString(e.stdout, cliReference())
		return err
	case len(pos) == 0:
		mainUsage(e.stdout, commands())
		return nil
	}
	return helpFor(commands(), pos, e.stdout)
}
