//go:build unix

package limitio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestPipes: a named pipe is read when a user names it and refused
// inside a release, and no read waits for a writer that never comes.
func TestPipes(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	// Nobody writes: refused at once, where a plain open would block.
	for name, read := range map[string]func(string, int64) ([]byte, error){"ReadFileContext": readFile, "ReadRegular": ReadRegular} {
		if _, err := read(fifo, 1<<20); err == nil || !strings.Contains(err.Error(), "fifo") {
			t.Errorf("%s of a pipe nobody writes to: %v", name, err)
		}
	}
	if _, err := OpenRegular(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file (a named pipe)") {
		t.Errorf("OpenRegular of a pipe: %v", err)
	}
	if _, err := OpenNamed(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file (a named pipe)") {
		t.Errorf("OpenNamed of a pipe: %v", err)
	}
	// A pipe as --config <(...) gives it (/dev/fd/N): its writer sent
	// and closed, so it is read whole.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	byFD := fmt.Sprintf("/proc/self/fd/%d", r.Fd())
	if _, err := os.Stat(byFD); err != nil {
		t.Skipf("no /proc/self/fd here: %v", err)
	}
	w.WriteString("n: 3\n")
	w.Close()
	if got, err := readFile(byFD, 1<<20); err != nil || string(got) != "n: 3\n" {
		t.Fatalf("a pipe whose writer is done: %q, %v", got, err)
	}
	// A writer that never finishes: an interrupt ends the read.
	r, w, err = os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	w.WriteString("n: ")
	byFD = fmt.Sprintf("/proc/self/fd/%d", r.Fd())
	ctx, cancel := context.WithCancel(context.Background())
	go cancel()
	if _, err := ReadFileContext(ctx, byFD, 1<<20); !errors.Is(err, context.Canceled) {
		t.Errorf("an interrupted read of an endless pipe: %v", err)
	}
}
