// Package hostile runs a table of hostile inputs against the built synth
// binary and checks each outcome: the exit status, the message, that
// nothing outside the paths the command may write changed, and that no
// secret of the environment reached any output. It runs when SYNTH_BIN
// names the binary (make hostile; make test runs its short pass) and
// skips otherwise. Cases live in cases_test.go; each says what it sets up,
// the command line and what must come of it.
package hostile
