package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/synth-data/synth/internal/limitio"
)

// Starlark has no memory limit: one step of a handler can allocate
// gigabytes ("x" * (1 << 29), then a join of a list of those), and Go
// gives up with "fatal error: out of memory", which no recover catches.
// So the commands that run someone else's Starlark (validate on a
// release's domain/, domain validate and domain show on a pack) run it in
// a child process of synth whose heap the kernel caps: when the code
// overeats, the child dies and this process says which bound it hit and
// which flag raises it. The same cap covers a damaged file that makes a
// decoder allocate without end.

// memoryEnv carries the bound, in bytes, to the child: a synth started
// with it caps its own heap before it does anything else.
const memoryEnv = "SYNTH_MEMORY_BOUND"

// exitStatus is an error that only sets the exit status: the child
// already printed what went wrong.
type exitStatus int

func (e exitStatus) Error() string { return "exit status " + strconv.Itoa(int(e)) }

// bounder runs a command of synth again under a memory bound.
type bounder struct {
	exe    string   // synth's own executable
	prefix []string // arguments before the command's (a test binary's own)
	stderr io.Writer
}

// newBounder returns a bounder for this process, or nil where none can be
// made (no bound on this system, the executable cannot be found, or this
// process is already the bounded child).
func newBounder(stderr io.Writer) *bounder {
	if !boundSupported || os.Getenv(memoryEnv) != "" {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return &bounder{exe: exe, stderr: stderr}
}

// memoryFlag is the --max-memory flag of a bounded command.
type memoryFlag struct{ n int64 }

func (m *memoryFlag) String() string {
	if m == nil || m.n == 0 {
		return ""
	}
	return limitio.Bytes(m.n)
}

func (m *memoryFlag) Set(s string) error {
	n, err := limitio.ParseBytes(s)
	if err != nil {
		return err
	}
	if n < 64<<20 {
		return fmt.Errorf("%s is below 64 MiB, which synth itself needs", limitio.Bytes(n))
	}
	m.n = n
	return nil
}

// defaultBound is the bound without --max-memory: 8 GiB, or three
// quarters of the memory where there is less, so that the bound is hit
// before the machine runs out.
func defaultBound() int64 {
	b := int64(8 << 30)
	if total := physicalMemory(); total > 0 {
		b = min(b, total/4*3)
	}
	return b
}

// run runs synth with args in a child capped at limit bytes of heap,
// streaming its output to stdout. what names the release or pack whose
// code runs there ("the release out/x"), for the message at the bound.
func (b *bounder) run(ctx context.Context, args []string, limit int64, what string, stdout io.Writer) error {
	cmd := exec.CommandContext(ctx, b.exe, append(slices.Clone(b.prefix), args...)...)
	cmd.Env = append(os.Environ(), memoryEnv+"="+strconv.FormatInt(limit, 10))
	cmd.Stdout = stdout
	// The child's stderr is held back: a normal error is passed on as it
	// is, but a Go crash dump at the bound is replaced by one sentence.
	errb := &headBuffer{max: 64 << 10}
	cmd.Stderr = errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		b.stderr.Write(errb.Bytes())
		return nil
	case !errors.As(err, &ee):
		return fmt.Errorf("run synth under a memory bound: %w", err)
	case outOfMemory(errb.String()):
		// The crash dump cannot say whether Starlark or a decoder ate the
		// memory: the thread that dies is often not the one that allocated
		// (a failed pthread_create, the collector's metadata), so the
		// message names both.
		return fmt.Errorf("stopped at the memory bound of %s while checking %s: its Starlark code or its data needs more memory than any synth pack or release should; "+
			"it may be damaged or hostile. If you trust it, give it more with --max-memory (e.g. --max-memory %s)",
			limitio.Bytes(limit), what, strings.ReplaceAll(limitio.Bytes(2*limit), " ", ""))
	case ee.ExitCode() < 0:
		return fmt.Errorf("synth checking %s was stopped: %v", what, ee)
	}
	b.stderr.Write(errb.Bytes())
	return exitStatus(ee.ExitCode())
}

// outOfMemory recognises the Go runtime's death at the bound: the heap
// cannot grow, a new thread's stack cannot be mapped, or the runtime
// faults inside itself.
func outOfMemory(stderr string) bool {
	for _, sign := range []string{"out of memory", "cannot allocate memory", "pthread_create failed", "failed to create new OS thread"} {
		if strings.Contains(stderr, sign) {
			return true
		}
	}
	return runtimeFault(stderr)
}

// runtimeFault reports a segmentation fault whose faulting frame is the
// runtime's own code. synth has no cgo and no unsafe code of its own, so
// its bugs die as "panic: runtime error"; a raw SIGSEGV in the runtime is
// what Go 1.26's collector does now and then when the kernel refuses it a
// mapping at the cap (a nil work buffer in the mark phase).
func runtimeFault(stderr string) bool {
	if !strings.HasPrefix(stderr, "SIGSEGV: segmentation violation") &&
		!strings.HasPrefix(stderr, "unexpected signal during runtime execution") {
		return false
	}
	_, stack, ok := strings.Cut(stderr, "\ngoroutine ")
	if !ok {
		return false
	}
	_, frames, ok := strings.Cut(stack, "\n")
	return ok && strings.HasPrefix(frames, "runtime.")
}

// headBuffer keeps the first max bytes written to it and drops the rest.
type headBuffer struct {
	bytes.Buffer
	max int
}

func (h *headBuffer) Write(p []byte) (int, error) {
	if room := h.max - h.Len(); room > 0 {
		h.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// applyBound caps this process's heap at the bound its parent set, if
// any; it runs first in main. The collector then works to stay well below
// the cap, which a Go program cannot exceed and survive.
func applyBound() error {
	v := os.Getenv(memoryEnv)
	if v == "" {
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return fmt.Errorf("%s=%q is not a number of bytes", memoryEnv, v)
	}
	return capHeap(n)
}
