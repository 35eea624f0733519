// Package hostile runs a table of hostile inputs against the built synth
// binary and checks each outcome: the exit status, the message, that
// nothing outside the paths the command may write changed, and that no
// secret of the environment reached any output. It runs when SYNTH_BIN
// names the binary (make hostile; make test runs its short pass) and
// skips otherwise. Cases live in cases_test.go; each says what it sets up,
// the command line and what must come of it.
//
// The binary is tested from outside, as a user meets it, because what
// these cases guard — exit statuses, the text on stderr, files left
// behind, crashes — only shows in a separate process. Each case runs in
// its own sandbox folder with its own HOME, TMPDIR and cache, snapshotted
// before and after, so a stray write anywhere the command could reach is
// seen; the environment carries planted secrets that must appear in no
// output, a case may bound the command's peak memory, and no case may end
// in a Go panic or fatal error. TestProblems holds the checker itself to
// each way a command can miss, so a case cannot pass because the check is
// blind.
//
// The package has no code outside its tests; this file gives it its name.
// The tests build only on Linux: the cases lean on /proc/self/environ,
// /dev/zero and the kernel's memory bound, which is what they attack.
package hostile
