package realpath

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Resolve returns path absolute and cleaned, with every symbolic link in
// its longest existing prefix resolved; the part that does not exist yet
// is appended as written. It fails only when the working directory is
// unknown or a link on the way cannot be read (a loop, no permission).
func Resolve(path string) (string, error) {
	return resolve(path, 0)
}

// maxLinks bounds the dangling links followed, as the kernel's 40 does.
const maxLinks = 40

func resolve(path string, links int) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	head, rest := abs, ""
	for {
		real, err := filepath.EvalSymlinks(head)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		// A missing part: resolve what is above it. Any other error (a
		// loop, no permission) is the answer.
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		// A dangling link names where a write through it would land.
		if target, lerr := os.Readlink(head); lerr == nil {
			if links >= maxLinks {
				return "", &fs.PathError{Op: "resolve", Path: path, Err: syscall.ELOOP}
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(head), target)
			}
			return resolve(filepath.Join(target, rest), links+1)
		}
		up := filepath.Dir(head)
		if up == head {
			return abs, nil
		}
		head, rest = up, filepath.Join(filepath.Base(head), rest)
	}
}

// Within reports whether path lies in dir or is dir, both resolved, and
// the path relative to dir ("." for dir itself). Paths that cannot be
// resolved are compared as written, made absolute.
func Within(dir, path string) (string, bool) {
	d, err := Resolve(dir)
	if err != nil {
		d, _ = filepath.Abs(dir)
	}
	p, err := Resolve(path)
	if err != nil {
		p, _ = filepath.Abs(path)
	}
	rel, err := filepath.Rel(d, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}
