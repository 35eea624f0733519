package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// errLocked is what tryLock returns when another process holds the lock.
var errLocked = errors.New("locked")

// lockOut takes the exclusive lock of an out dir: a lock file in its work
// dir, held for the whole run, so two runs (or a run and a merge) never
// write one folder at once. The returned release drops it, and removes the
// work dir again when lockOut created it and nothing else was put there.
func lockOut(flag, out string) (release func(), err error) {
	work := filepath.Join(out, workDirName)
	_, statErr := os.Stat(work)
	created := errors.Is(statErr, os.ErrNotExist)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, fmt.Errorf("%s %s cannot be created: %w", flag, out, err)
	}
	path := filepath.Join(work, lockName)
	for range 10 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", flag, out, err)
		}
		unlock, err := tryLock(f)
		if err != nil {
			f.Close()
			if errors.Is(err, errLocked) {
				return nil, busy(flag, out, path)
			}
			return nil, fmt.Errorf("%s %s: lock %s: %w", flag, out, path, err)
		}
		// The holder before us may have removed the file (a finished run
		// removes its work dir) after we opened it: then we hold a lock
		// nobody else sees, so take the new file's instead.
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 != nil || err2 != nil || !os.SameFile(held, now) {
			unlock()
			f.Close()
			continue
		}
		f.Truncate(0)
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		return func() {
			unlock()
			if created && onlyLock(work) {
				os.Remove(path)
				os.Remove(work)
			}
			f.Close()
		}, nil
	}
	return nil, busy(flag, out, path)
}

// busy names the process holding the lock, from the pid in the lock file.
func busy(flag, out, path string) error {
	who := "another synth process"
	if raw, err := os.ReadFile(path); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(raw))); err == nil && pid > 0 {
			who = fmt.Sprintf("another synth run (pid %d)", pid)
		}
	}
	return fmt.Errorf("%s is writing %s: wait for it to finish or stop it, or choose another %s", who, out, flag)
}
