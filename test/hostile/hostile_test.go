//go:build linux

package hostile

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// crashSigns are what a Go crash prints; no case may end in one.
var crashSigns = []string{"panic:", "goroutine ", "fatal error:", "SIGSEGV", "SIGABRT"}

// TestHostile runs every case of the table against $SYNTH_BIN; with
// -short only the cases marked short (make test's pass).
func TestHostile(t *testing.T) {
	bin := os.Getenv("SYNTH_BIN")
	if bin == "" {
		t.Skip("set SYNTH_BIN to a built synth binary to run the hostile inputs (make hostile)")
	}
	if !filepath.IsAbs(bin) {
		t.Fatalf("SYNTH_BIN=%s: give an absolute path (the cases run in their own folders)", bin)
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("two cases are named %q", c.name)
		}
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && !c.short {
				t.Skip("not in the short pass")
			}
			s := newSandbox(t, bin)
			args := c.setup(t, s)
			before := s.snapshot()
			var r result
			if c.serve != nil {
				r = s.runServer(c.serve, args...)
			} else {
				r = s.run(args...)
			}
			after := s.snapshot()
			check(t, s, c, r, changed(before, after))
		})
	}
}

// check fails the case for every way the command missed its outcome.
func check(t *testing.T, s *sandbox, c hostile, r result, diff []string) {
	t.Helper()
	probs := problems(s, c, r, diff)
	if len(probs) > 0 {
		t.Errorf("%s\nstdout:\n%s\nstderr:\n%s", strings.Join(probs, "\n"), clip(r.stdout), clip(r.stderr))
		return
	}
	if c.after != nil {
		c.after(t, s, r)
	}
}

// problems lists how a command's result differs from its case's outcome.
func problems(s *sandbox, c hostile, r result, diff []string) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if r.code != c.code {
		bad("exit status %d, want %d", r.code, c.code)
	}
	for _, w := range c.stderr {
		if !strings.Contains(r.stderr, w) {
			bad("stderr does not say %q", w)
		}
	}
	for _, w := range c.stdout {
		if !strings.Contains(r.stdout, w) {
			bad("stdout does not say %q", w)
		}
	}
	for _, w := range append(append([]string{}, c.absent...), crashSigns...) {
		if strings.Contains(r.stdout, w) || strings.Contains(r.stderr, w) {
			bad("the output holds %q", w)
		}
	}
	var allowed []string
	for _, w := range c.writes {
		allowed = append(allowed, s.path(w))
	}
	for _, p := range diff {
		if !under(p, allowed) {
			bad("changed %s, which this command must not touch (it may write %v)", p, c.writes)
		}
	}
	if leak := s.leaks(r, diff); leak != "" {
		bad("secret leaked: %s", leak)
	}
	if c.maxRSS > 0 && r.maxRSS > c.maxRSS {
		bad("peak memory %d MiB, want at most %d MiB", r.maxRSS>>20, c.maxRSS>>20)
	}
	return out
}

func under(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

func clip(s string) string {
	if len(s) > 4000 {
		return s[:4000] + "\n..."
	}
	return s
}

// TestProblems: the checker itself catches each way a command can miss
// its outcome, so a case cannot pass by checking nothing.
func TestProblems(t *testing.T) {
	s := newSandbox(t, "")
	c := hostile{code: 1, stderr: []string{"refused"}, absent: []string{"lower --writes"}, writes: []string{"out"}, maxRSS: 1 << 20}
	good := result{code: 1, stderr: "synth run: refused"}
	if p := problems(s, c, good, []string{s.path("out/x")}); len(p) != 0 {
		t.Fatalf("a good result: %v", p)
	}
	outside := filepath.Join(s.root, "home", ".bashrc")
	os.WriteFile(outside, []byte(s.secret), 0o644)
	for name, tc := range map[string]struct {
		r    result
		diff []string
		want string
	}{
		"exit":     {result{code: 0, stderr: "refused"}, nil, "exit status 0, want 1"},
		"message":  {result{code: 1, stderr: "nope"}, nil, `stderr does not say "refused"`},
		"absent":   {result{code: 1, stderr: "refused; lower --writes"}, nil, `the output holds "lower --writes"`},
		"crash":    {result{code: 1, stderr: "refused\npanic: boom\ngoroutine 1"}, nil, `the output holds "panic:"`},
		"outside":  {good, []string{outside}, "changed " + outside},
		"secret":   {result{code: 1, stderr: "refused " + s.secret}, nil, "secret leaked: stderr"},
		"encoded":  {result{code: 1, stdout: base64.StdEncoding.EncodeToString([]byte(s.secret)), stderr: "refused"}, nil, "secret leaked: stdout"},
		"split":    {result{code: 1, stderr: "refused " + split(s.secret)}, nil, "secret leaked: stderr"},
		"in JSON":  {result{code: 1, stdout: strings.ReplaceAll(strconv.Quote(split(s.secret)), " ", `\t`), stderr: "refused"}, nil, "secret leaked: stdout"},
		"in files": {good, []string{outside}, "secret leaked: " + outside},
		"memory":   {result{code: 1, stderr: "refused", maxRSS: 2 << 20}, nil, "peak memory 2 MiB"},
	} {
		got := strings.Join(problems(s, c, tc.r, tc.diff), "\n")
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: problems %q, want one containing %q", name, got, tc.want)
		}
	}
}
