package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/synth-data/synth/pack"
)

// brokenPack is the starter pack with the first line of one handler's
// body replaced by body.
func brokenPack(t *testing.T, handler, body string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pack")
	if err := pack.Init(dir, ""); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "handlers.star")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head := "def " + handler + "(db, args):\n"
	if !strings.Contains(string(src), head) {
		t.Fatalf("the starter pack has no handler %s", handler)
	}
	out := strings.Replace(string(src), head, head+body+"\n", 1)
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestReadFailuresSayWhy: a read handler that loops, recurses or returns
// what is not a record fails the run with the handler's own reason, and a
// run without writes is not told to lower --writes.
func TestReadFailuresSayWhy(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	cases := []struct {
		name, handler, body string
		args                []string
		want                string
	}{
		{"loops", "get_ticket_details", "    while True:\n        pass", nil, "ran past its step limit of 1000000 steps"},
		{"recurses", "get_ticket_details", "    return get_ticket_details(db, args)", nil, "called recursively"},
		{"not JSON", "get_ticket_details", "    return set([1])", nil, "returned a non-JSON value"},
		{"not a record", "get_ticket_details", "    return 'text'", nil, `returned "text", not an object`},
		{"no writes", "get_customer_details", "    fail('the records are locked')", []string{"--writes", "0"}, "cannot build a task without writes (last attempt: get_customer_details fails: the records are locked)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := brokenPack(t, tc.handler, tc.body)
			out := filepath.Join(t.TempDir(), "rel")
			args := append([]string{"run", "--domain", dir, "-n", "5", "--quiet", "--out", out}, tc.args...)
			code, _, stderr := synth(t, args...)
			if code != 1 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, want 1 and an error containing %q:\n%s", code, tc.want, stderr)
			}
			if strings.Contains(stderr, "lower --writes") && len(tc.args) > 0 {
				t.Errorf("--writes 0 is told to lower --writes: %s", stderr)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("the refused run left %s behind", out)
			}
		})
	}
}
