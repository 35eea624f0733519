//go:build !unix

package pipeline

import (
	"errors"
	"os"
	"path/filepath"
)

// tryLock without flock: a marker created exclusively next to the lock
// file and removed on unlock. A crash leaves it behind, and the next run
// is refused until someone removes it.
func tryLock(f *os.File) (unlock func(), err error) {
	path := filepath.Join(filepath.Dir(f.Name()), lockName+".held")
	m, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil, errLocked
	}
	if err != nil {
		return nil, err
	}
	m.Close()
	return func() { os.Remove(path) }, nil
}
