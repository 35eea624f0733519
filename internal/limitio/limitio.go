package limitio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
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

// ReadFile reads path whole if it holds at most limit bytes, and fails
// with a *TooLarge error otherwise. Pipes and devices are read too (up to
// the limit), so it suits files a user names.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.IsDir() {
		return nil, fmt.Errorf("%s is a folder, not a file", path)
	}
	return readAll(f, path, limit)
}

// ReadRegular is ReadFile for a file that must be a plain file: a link, a
// device or a pipe in a release is refused, so that a release cannot make
// synth read /proc/self/environ or /dev/zero.
func ReadRegular(path string, limit int64) ([]byte, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, kind(info.Mode()))
	}
	if info.Size() > limit {
		return nil, &TooLarge{Path: path, Limit: limit}
	}
	return ReadFile(path, limit)
}

func kind(m fs.FileMode) string {
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
