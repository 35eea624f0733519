package export

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// filePerm is the mode of committed files. Temporary files start as 0600
// (os.CreateTemp), which would make a shared release unreadable to others.
const filePerm = 0o644

// AtomicFile is a file that appears under its final name only once it is
// complete: it is written under a hidden temporary name in the same
// directory (so the rename cannot cross file systems) and renamed by Commit.
// A crash at any point leaves either the old file or the new one under the
// final name, never a partial one; at worst a hidden temporary stays behind.
//
// An AtomicFile is not safe for concurrent use.
type AtomicFile struct {
	f         *os.File
	path      string // final name
	closed    bool   // the temporary file is closed (finished or aborted)
	published bool   // renamed to its final name, or deliberately discarded
	err       error  // first write error, so Commit cannot publish a short file
}

// CreateAtomic starts writing the file that Commit will publish at path.
func CreateAtomic(path string) (*AtomicFile, error) {
	return CreateAtomicIn("", path)
}

// CreateAtomicIn is CreateAtomic with the temporary file in stage, a
// directory on the same file system (a run's work dir), so a crash
// leaves nothing half-written beside the published files; "" is path's
// own directory.
func CreateAtomicIn(stage, path string) (*AtomicFile, error) {
	dir, base := filepath.Split(path)
	if base == "" {
		return nil, fmt.Errorf("export: create %q: not a file name", path)
	}
	if dir == "" {
		dir = "."
	}
	if stage != "" {
		dir = stage
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("export: create %s: %w", path, err)
	}
	return &AtomicFile{f: f, path: path}, nil
}

// Write writes to the temporary file.
func (a *AtomicFile) Write(p []byte) (int, error) {
	if a.closed {
		return 0, fmt.Errorf("export: write %s: file already committed or aborted", a.path)
	}
	if a.err != nil {
		return 0, a.err
	}
	n, err := a.f.Write(p)
	if err != nil {
		a.err = fmt.Errorf("export: write %s: %w", a.path, err)
		return n, a.err
	}
	return n, nil
}

// Name returns the path Commit publishes the file at.
func (a *AtomicFile) Name() string { return a.path }

// Commit flushes the data to stable storage and publishes the file under
// its final name, replacing any file there. On error nothing is published
// and the temporary file is removed.
func (a *AtomicFile) Commit() error {
	if err := a.finish(); err != nil {
		return err
	}
	if err := a.publish(a.path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(a.path))
}

// Abort discards the temporary file. It does nothing after a successful
// Commit and may be called more than once, so it can be deferred.
func (a *AtomicFile) Abort() {
	if a.published {
		return
	}
	a.published = true
	if !a.closed {
		a.closed = true
		_ = a.f.Close()
	}
	_ = os.Remove(a.f.Name())
}

// finish makes the temporary file durable and closes it. It is separate
// from publish so that a caller publishing many files can choose their
// final names late and sync the directory once for all of them.
func (a *AtomicFile) finish() error {
	if a.closed {
		return fmt.Errorf("export: commit %s: file already committed or aborted", a.path)
	}
	if a.err != nil {
		err := a.err
		a.Abort()
		return err
	}
	a.closed = true
	err := a.f.Chmod(filePerm)
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		a.Abort()
		return fmt.Errorf("export: commit %s: %w", a.path, err)
	}
	return nil
}

// publish renames the finished temporary file to path without syncing the
// directory.
func (a *AtomicFile) publish(path string) error {
	if a.published {
		return fmt.Errorf("export: commit %s: file already committed or aborted", path)
	}
	if err := os.Rename(a.f.Name(), path); err != nil {
		a.Abort()
		return fmt.Errorf("export: commit %s: %w", path, err)
	}
	a.published = true
	return nil
}

// WriteFileAtomic writes data to path so that path holds either its old
// content or all of data, even across a crash.
func WriteFileAtomic(path string, data []byte) error {
	return WriteFileAtomicIn("", path, data)
}

// WriteFileAtomicIn is WriteFileAtomic with the temporary file in stage
// (see CreateAtomicIn).
func WriteFileAtomicIn(stage, path string, data []byte) error {
	a, err := CreateAtomicIn(stage, path)
	if err != nil {
		return err
	}
	defer a.Abort()
	if _, err := a.Write(data); err != nil {
		return err
	}
	return a.Commit()
}

// syncDir makes renames in dir durable: without it a crash can lose the
// directory entry even though the file's data reached the disk.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("export: sync directory %s: %w", dir, err)
	}
	err = d.Sync()
	// Some file systems (and Windows) refuse fsync on directories; the
	// rename itself already happened, so that is not worth failing over.
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, errors.ErrUnsupported) {
		err = nil
	}
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("export: sync directory %s: %w", dir, err)
	}
	return nil
}
