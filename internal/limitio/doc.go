// Package limitio reads the files synth is given up to a limit, so that an
// input that never ends (--config /dev/zero, a pipe fed forever) or one
// far larger than its kind ever is fails with a message naming the file
// and the limit, instead of filling the memory. The limits of the release
// files live here, in one place; a pack's limits are pack.Limits.
//
// There are two ways to read a whole file. ReadFile suits a file a user
// names on the command line (a config, a spec): pipes and devices are read
// too, up to the limit. ReadRegular suits a file found inside a release or
// an input folder, which synth did not choose: anything but a plain file
// is refused before it is opened, so a release cannot make synth read
// /proc/self/environ through a link, or block on a fifo. Both fail with a
// *TooLarge naming the path and the limit, which commands pass on as is.
//
// ReadLine is the bounded form of bufio's line reading for JSON-lines
// files: an overlong line fails with ErrLongLine and is skipped, so a
// reader can report it and carry on with the next line rather than stop.
// Bytes and ParseBytes turn sizes into words and back, for the limits in
// messages and for flags such as --max-memory.
//
// The package only reads: it never decides what a limit should be for a
// caller's own inputs (pipeline, intake and pack set theirs) and holds no
// state, so concurrent readers need nothing from it.
package limitio
