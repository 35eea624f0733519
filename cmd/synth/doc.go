// Command synth synthesizes verified multi-turn training data for
// tool-using agents.
//
// Each subcommand is a thin layer over the packages that do the work:
// run is pipeline.Run and merge pipeline.Merge; validate and report are
// audit; inspect and stats read a release's files; verify reads outside
// dialogues with intake, judges them with verify and, with --keep, writes
// the passing ones as a release through pipeline's Keeper; export is
// export.ExportRelease; domain lists, shows, scaffolds and validates packs
// (pack), and imports them from OpenAPI specs (openapi) or τ²-bench
// folders (domains/tau2); emulate serves the emulate package.
//
// Every verb is a verb (cli.go): its synopsis, help and flags, listed in
// commands() (main.go) or a group's sub-commands. Its parse answers -h and
// --help on stdout with exit 0, and a wrong flag, a missing value or
// argument, or an unknown verb with a short usageError that names the
// closest valid name and the verb's help, exit 2; other errors exit 1,
// each printed once with the verb's name (a package's own prefix that
// repeats it is dropped). docs/cli.md is every verb's help (synth help
// --markdown), and a test keeps the two equal.
//
// synth run's flags are declared once, in flags.go, each bound to the
// config key it sets, so a flag overrides the key read from --config and
// its default is the config's. Whatever synth prints that came from
// outside — a release's rows, a pack's text, an error quoting a file — goes
// through internal/termtext, so it is shown and never obeyed by the
// terminal. The commands that run someone else's Starlark (validate on a
// release's domain/, domain show and domain validate, verify on a pack)
// run again as a child process whose heap the kernel caps (bound.go):
// Starlark has no memory limit, and a Go out-of-memory cannot be
// recovered, so the child dies and the parent names the bound and the
// --max-memory flag that raises it.
//
// Interrupts cancel the context every command runs under: an interrupted
// run keeps its finished chunks, and the same command continues it. The
// garbage collector keeps Go's GOGC under a soft memory limit unless GOGC
// or GOMEMLIMIT say otherwise.
package main
