package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBoundedChild is not a test: it is synth's main when this test
// binary is started as a bounded child by TestMemoryBound.
func TestBoundedChild(t *testing.T) {
	if os.Getenv(memoryEnv) == "" {
		t.Skip("runs only as the child of TestMemoryBound")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	if err := applyBound(); err != nil {
		t.Fatal(err)
	}
	os.Exit(run(context.Background(), args, os.Stdout, os.Stderr))
}

// TestMemoryBound: validate runs a release's Starlark in a child whose
// heap is capped; a handler that allocates gigabytes in a few steps stops
// at the bound with a message naming it and --max-memory, and a sound
// release validates under the same bound.
func TestMemoryBound(t *testing.T) {
	if !boundSupported {
		t.Skip("no memory bound on this system")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory does not fit under the bound")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b := &bounder{exe: exe, prefix: []string{"-test.run=^TestBoundedChild$", "--"}}
	dir := brokenPack(t, "get_ticket_details", "    return db.get('tickets', args['ticket_id'])")
	out := filepath.Join(t.TempDir(), "rel")
	if code, _, stderr := synth(t, "run", "--domain", dir, "-n", "20", "--quiet", "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	validate := func(t *testing.T) (int, string, string) {
		var stdout, stderr bytes.Buffer
		b.stderr = &stderr
		code := runWith(context.Background(), []string{"validate", out, "--max-memory", "512MiB"}, &stdout, &stderr, b)
		return code, stdout.String(), stderr.String()
	}
	if code, stdout, stderr := validate(t); code != 0 || !strings.Contains(stdout, "OK: no defects") {
		t.Fatalf("a sound release under the bound: exit %d\n%s%s", code, stdout, stderr)
	}

	handlers := filepath.Join(out, "domain", "handlers.star")
	src, err := os.ReadFile(handlers)
	if err != nil {
		t.Fatal(err)
	}
	hostile := strings.Replace(string(src), "def get_ticket_details(db, args):\n",
		"def get_ticket_details(db, args):\n    x = \"x\" * (1 << 29)\n    y = \"\".join([x] * 64)\n", 1)
	if err := os.WriteFile(handlers, []byte(hostile), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := validate(t)
	if code != 1 || !strings.Contains(stderr, "stopped at the memory bound of 512 MiB while checking the release "+out+": its Starlark code or its data needs more memory") ||
		!strings.Contains(stderr, "--max-memory 1GiB") {
		t.Fatalf("a handler that eats memory: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "fatal error") {
		t.Errorf("the child's crash dump reached stderr:\n%s", stderr)
	}
}

func TestSoftLimit(t *testing.T) {
	for _, c := range []struct {
		physical, want int64
	}{
		{0, 256 << 20},       // unknown
		{1 << 30, 256 << 20}, // a small machine: the floor
		{4 << 30, 512 << 20}, // an eighth
		{64 << 30, 1 << 30},  // a large machine: the cap
	} {
		if got := softLimit(c.physical); got != c.want {
			t.Errorf("softLimit(%d) = %d, want %d", c.physical, got, c.want)
		}
	}
}

// TestOutOfMemory: the crash dumps a bounded child leaves are told apart:
// the runtime's own deaths at the cap read as the bound, synth's bugs are
// passed on as they are.
func TestOutOfMemory(t *testing.T) {
	for _, tc := range []struct {
		file string
		want bool
	}{
		{"gc_fault.txt", true},   // Go 1.26's collector faulting on a mapping the cap refused
		{"nil_panic.txt", false}, // a bug of synth's: a nil pointer in its own code
		{"map_race.txt", false},  // a bug of synth's: a fatal error that is not memory
	} {
		dump, err := os.ReadFile(filepath.Join("testdata", "crash", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := outOfMemory(string(dump)); got != tc.want {
			t.Errorf("%s: outOfMemory = %v, want %v", tc.file, got, tc.want)
		}
	}
	if !outOfMemory("fatal error: runtime: out of memory\n\nruntime stack:\n") {
		t.Error("the runtime's own out-of-memory death is not recognised")
	}
}
