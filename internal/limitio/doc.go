// Package limitio opens and reads the files synth is given, bounded, so
// that an input that never ends (--config /dev/zero, a pipe fed forever),
// one that blocks (a fifo nobody writes to, named like a Parquet shard) or
// one far larger than its kind ever is fails with a message naming the
// file and the limit, instead of filling the memory or hanging. The
// limits of the release files live here, in one place; a pack's limits
// are pack.Limits.
//
// Every input is opened here. OpenRegular suits a file found inside a
// release or an input folder, which synth did not choose: only a plain
// file, never a link, a fifo, a device or a socket, checked before the
// open and again on the open file, and the open itself never waits, so a
// release can neither make synth read /proc/self/environ through a link
// nor block it on a fifo. OpenNamed suits a file a user names (a dialogue
// file for verify): a link is followed, and what it leads to must be a
// plain file. ReadRegular reads a whole file through OpenRegular.
// ReadFile and ReadFileContext suit a file a user names where a pipe is
// the point (--config <(...), a spec piped from curl): a plain file or a
// pipe, the pipe opened without waiting for a writer and read for at most
// PipeTimeout or until the context ends (an interrupt must stop it); a
// device or a socket is refused. All fail with a *TooLarge naming the
// path and the limit, which commands pass on as is.
//
// ReadLine is the bounded form of bufio's line reading for JSON-lines
// files: an overlong line fails with ErrLongLine and is skipped, so a
// reader can report it and carry on with the next line rather than stop.
// Clip bounds a text synth prints or passes on (an error quoting a file,
// a pack's fail() message). Bytes and ParseBytes turn sizes into words
// and back, for the limits in messages and for flags such as
// --max-memory.
//
// The package only reads: it never decides what a limit should be for a
// caller's own inputs (pipeline, intake and pack set theirs) and holds no
// state, so concurrent readers need nothing from it.
package limitio
