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
// folders (domains/tau2); emulate serves the emulate package. main parses
// flags, prints and picks the exit status: 0 done, 1 failed, 2 called
// wrongly.
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
// garbage collector is tuned for synth's small live heap and heavy
// allocation unless GOGC or GOMEMLIMIT say otherwise.
package main
