package limitio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// Limits of the release files read by validate, stats, inspect, report,
// merge and a resumed run.
const (
	// Manifest bounds manifest.json. A manifest lists every file with its
	// size and sha256: a release of a million files needs about 200 MiB.
	Manifest = 256 << 20
	// SmallFile bounds the other release files read whole (domain/*.json).
	SmallFile = 256 << 20
	// Line bounds one line of a JSON-lines file (a blueprint, a rejected
	// dialogue with its trajectory); synth writes lines of kilobytes.
	Line = 64 << 20
)

// TooLarge is the error of an input longer than its limit.
type TooLarge struct {
	Path  string
	Limit int64
}

func (e *TooLarge) Error() string {
	return fmt.Sprintf("%s is larger than %s, the most synth reads of it", e.Path, Bytes(e.Limit))
}

// Bytes renders a size for people: 1 MiB, 256 MiB, 1.5 GiB, 700 bytes.
func Bytes(n int64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB"}
	f, u := float64(n), 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%d bytes", n)
	}
	if f == float64(int64(f)) {
		return fmt.Sprintf("%d %s", int64(f), units[u])
	}
	return fmt.Sprintf("%.1f %s", f, units[u])
}

// PipeTimeout bounds the reading of a pipe a user named (--config
// <(...)): a writer that never ends its output must not hold synth for
// good.
const PipeTimeout = time.Minute

// ReadFileContext reads path whole if it holds at most limit bytes, and
// fails with a *TooLarge error otherwise. It suits a file a user names (a
// config, a spec): a link is followed, and a pipe is read too, for at
// most PipeTimeout or until ctx ends, so that an interrupt ends the wait
// on a pipe; a device, a socket or a folder is refused.
func ReadFileContext(ctx context.Context, path string, limit int64) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	switch m := info.Mode(); {
	case m.IsDir():
		return nil, fmt.Errorf("%s is a folder, not a file", path)
	case m&fs.ModeNamedPipe != 0:
		return readPipe(ctx, path, limit)
	case !m.IsRegular():
		return nil, fmt.Errorf("%s is not a regular file or a pipe (%s)", path, Kind(m))
	}
	f, err := OpenNamed(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, path, limit)
}

// readPipe reads a named pipe without ever blocking for good: opened
// without waiting for a writer (one that has none reads as empty and is
// refused), then read up to PipeTimeout or until ctx ends.
func readPipe(ctx context.Context, path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := f.SetReadDeadline(time.Now().Add(PipeTimeout)); err != nil {
		return nil, fmt.Errorf("%s: a pipe synth cannot read with a time limit: %w; save it to a file and give that", path, err)
	}
	stop := context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Now()) })
	defer stop()
	raw, err := readAll(f, path, limit)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() != nil:
		return nil, fmt.Errorf("%s: %w", path, ctx.Err())
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, fmt.Errorf("%s is a pipe whose writer did not finish within %s; save its output to a file and give that", path, PipeTimeout)
	case err == nil && len(raw) == 0:
		return nil, fmt.Errorf("%s is a pipe with nothing to read: no process writes to it", path)
	}
	return raw, err
}

// ReadRegular is ReadFileContext for a file that must be a plain file: a
// link, a device or a pipe in a release is refused, so that a release
// cannot make synth read /proc/self/environ or /dev/zero, or wait on a
// fifo.
func ReadRegular(path string, limit int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Size() > limit {
		return nil, &TooLarge{Path: path, Limit: limit}
	}
	return readAll(f, path, limit)
}

// OpenRegular opens a file found inside a release or an input folder:
// only a plain file, never a link, a pipe, a device or a socket, so that
// a release can neither lead synth outside it nor make it wait on a fifo
// or read without end.
func OpenRegular(path string) (*os.File, error) { return openRegular(path, os.Lstat) }

// OpenNamed opens a file a user named: a link is followed, and what it
// leads to must be a plain file.
func OpenNamed(path string) (*os.File, error) { return openRegular(path, os.Stat) }

func openRegular(path string, stat func(string) (fs.FileInfo, error)) (*os.File, error) {
	info, err := stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, Kind(info.Mode()))
	}
	// Opened without waiting: a file swapped for a fifo since the check
	// must not block the open; the open file is checked again.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	got, err := f.Stat()
	if err == nil && (!got.Mode().IsRegular() || !os.SameFile(info, got)) {
		err = fmt.Errorf("%s is not a regular file (%s; it changed while synth opened it)", path, Kind(got.Mode()))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Kind names what a file that is not a plain file is, for messages: a
// symbolic link, a folder, a named pipe, a device, a socket.
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}

func readAll(r io.Reader, path string, limit int64) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(raw)) > limit {
		return nil, &TooLarge{Path: path, Limit: limit}
	}
	return raw, nil
}

// Clip bounds a text synth prints or passes on (an error that quotes what
// it read, a message a pack's code made): at most max bytes of it, cut at
// a character's start, and a note of how much was left out.
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%s more)", s[:cut], Bytes(int64(len(s)-cut)))
}

// ErrLongLine is returned by ReadLine for a line longer than its limit.
var ErrLongLine = errors.New("line too long")

// ReadLine returns the next line of br, its newline included, holding
// at most limit bytes of it: a longer line fails with ErrLongLine, its
// rest read and dropped, so the next call reads the next line. At the
// end of the input it returns what is left (no newline) and io.EOF.
func ReadLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > limit {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			return nil, fmt.Errorf("%w: more than %s", ErrLongLine, Bytes(int64(limit)))
		}
		line = append(line, frag...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, err
	}
}

// ParseBytes reads a size as people write it: 8GiB, 512MiB, 64M, 1.5G or
// a plain number of bytes. K, M, G and T are binary units with or without
// "iB" or "B".
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	num := strings.TrimRightFunc(t, func(r rune) bool { return r >= 'A' && r <= 'z' })
	unit := strings.ToUpper(strings.TrimSpace(t[len(num):]))
	shift := map[string]uint{"": 0, "B": 0, "K": 10, "KB": 10, "KIB": 10, "M": 20, "MB": 20, "MIB": 20, "G": 30, "GB": 30, "GIB": 30, "T": 40, "TB": 40, "TIB": 40}
	sh, ok := shift[unit]
	f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if !ok || err != nil || f < 0 || f*float64(int64(1)<<sh) >= 1<<62 {
		return 0, fmt.Errorf("%q is not a size (want e.g. 8GiB, 512MiB or a number of bytes)", s)
	}
	return int64(f * float64(int64(1)<<sh)), nil
}
