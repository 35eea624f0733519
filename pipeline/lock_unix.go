//go:build unix

package pipeline

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock without waiting; closing f drops it.
// On Linux NFS emulates flock with a POSIX lock, which works because the
// file is open for writing.
func tryLock(f *os.File) (unlock func(), err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, errLocked
	}
	if err != nil {
		return nil, err
	}
	return func() {}, nil
}
