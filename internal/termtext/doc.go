// Package termtext makes text from outside synth — a release's rows, a
// pack's files, names in a manifest — safe to print on a terminal: control
// characters (ESC starts the sequences that recolour, retitle or rewrite a
// terminal), C1 controls, invalid UTF-8 and the bidirectional overrides
// that make a line read other than it is are shown as Go escapes (\x1b,
// \u202e). Newlines and tabs stay, so tables and multi-line reports keep
// their shape.
//
// Writer wraps the writer a command prints to, so that inspect, stats,
// validate and domain cannot forget to clean one field among many; Clean
// escapes one string, such as an error message that quotes a file. Text
// that needs no escaping is passed through without a copy, since nearly
// all of it is plain.
//
// The escaping is one-way and for people: it is not a quoting that can be
// parsed back, and it is never applied to the files synth writes, which
// keep the bytes they were given. Writer cleans each Write on its own, so
// callers print whole lines; a character split across two writes is shown
// as the invalid bytes it then is.
package termtext
