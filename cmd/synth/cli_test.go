package main

import (
	"bytes"
	"flag"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// allVerbs lists every verb synth has, sub-commands included, with the
// command line that reaches it.
func allVerbs() []*verb {
	var out []*verb
	var walk func([]command)
	walk = func(cmds []command) {
		for _, c := range cmds {
			out = append(out, c.verb())
			walk(c.subs)
		}
	}
	walk(commands())
	return out
}

// TestEveryVerbHelp: -h and --help print the verb's help to stdout and
// exit 0, with every flag written as it is typed (--name, or -x for one
// letter), for every verb and sub-verb.
func TestEveryVerbHelp(t *testing.T) {
	for _, v := range allVerbs() {
		for _, h := range []string{"-h", "--help"} {
			args := append(strings.Fields(v.name), h)
			code, stdout, stderr := synth(t, args...)
			if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "Usage: synth "+v.name) {
				t.Errorf("synth %s: exit %d, stderr %q, stdout %.60q", strings.Join(args, " "), code, stderr, stdout)
				continue
			}
			v.fs.VisitAll(func(f *flag.Flag) {
				if !strings.Contains(stdout, "\n  "+dashed(f.Name)) {
					t.Errorf("synth %s: the help does not list %s", strings.Join(args, " "), dashed(f.Name))
				}
			})
			if regexp.MustCompile(`(?m)^  -[a-z]{2,}`).MatchString(stdout) {
				t.Errorf("synth %s: a long flag with one dash:\n%s", strings.Join(args, " "), stdout)
			}
		}
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}, {"help", "domain"}, {"help", "domain", "show"}} {
		if code, stdout, stderr := synth(t, args...); code != 0 || stderr != "" || !strings.HasPrefix(stdout, "synth") && !strings.HasPrefix(stdout, "Usage: synth") {
			t.Errorf("synth %v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// TestEveryVerbWrongFlag: a misspelt flag is a short error naming the
// closest flag and the verb's help, exit 2; so is a flag missing its
// value.
func TestEveryVerbWrongFlag(t *testing.T) {
	for _, v := range allVerbs() {
		var long string
		v.fs.VisitAll(func(f *flag.Flag) {
			if long == "" && len(f.Name) > 3 {
				long = f.Name
			}
		})
		args := strings.Fields(v.name)
		if long == "" {
			args = append(args, "--bogus-flag")
		} else {
			// Two letters swapped: the closest flag is the one meant.
			b := []byte(long)
			i := 1
			for b[i] == b[i+1] {
				i++
			}
			b[i], b[i+1] = b[i+1], b[i]
			args = append(args, "--"+string(b))
		}
		code, stdout, stderr := synth(t, args...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		want := "see synth " + v.name + " --help"
		if code != 2 || stdout != "" || len(lines) > 3 || lines[len(lines)-1] != want || strings.Count(stderr, "synth "+v.name+":") != 1 {
			t.Errorf("synth %s: exit %d, stderr:\n%s", strings.Join(args, " "), code, stderr)
		}
		if long != "" && !strings.Contains(stderr, "(did you mean --"+long+"?)") {
			t.Errorf("synth %s: no suggestion of --%s: %s", strings.Join(args, " "), long, stderr)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "x", "-o"}, "synth report: -o needs a value: -o FILE\nsee synth report --help\n"},
		{[]string{"run", "--seed"}, "synth run: --seed needs a value: --seed S\nsee synth run --help\n"},
		{[]string{"inspect", "x", "--width", "wide"}, "synth inspect: invalid value \"wide\" for --width: parse error\nsee synth inspect --help\n"},
		{[]string{"run", "-n", "many"}, "synth run: invalid value \"many\" for -n: want a whole number\nsee synth run --help\n"},
	} {
		if code, _, stderr := synth(t, tc.args...); code != 2 || stderr != tc.want {
			t.Errorf("synth %v: exit %d, stderr %q, want %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestUnknownVerb: a wrong verb or sub-verb names the closest one, in at
// most three lines, exit 2.
func TestUnknownVerb(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"stat", "x"}, "synth: unknown command \"stat\" (did you mean stats?)\nsee synth --help\n"},
		{[]string{"frobnicate"}, "synth: unknown command \"frobnicate\"\nsee synth --help\n"},
		{[]string{"domain", "shwo", "retail"}, "synth domain: unknown subcommand \"shwo\" (did you mean show?)\nsee synth domain --help\n"},
		{[]string{"domain"}, "synth domain: give a subcommand: list, show, init, validate, import-openapi, import-tau2, import-mcp\nsee synth domain --help\n"},
		{[]string{"help", "repot"}, "synth help: no command \"repot\" to show the help of (did you mean report?)\nsee synth help --help\n"},
		{[]string{"inspect"}, "synth inspect: give the release folder: synth inspect DIR\nsee synth inspect --help\n"},
		{[]string{"run", "extra"}, "synth run: unexpected argument \"extra\": synth run takes no arguments (flags come as --name value)\nsee synth run --help\n"},
	} {
		if code, stdout, stderr := synth(t, tc.args...); code != 2 || stdout != "" || stderr != tc.want {
			t.Errorf("synth %v: exit %d, stderr %q, want %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestNoDoubledPrefix: an error from a package that names itself
// ("report: ...") is printed with the verb once.
func TestNoDoubledPrefix(t *testing.T) {
	var b bytes.Buffer
	if code := exitCode("report", errorString("report: x is not a synth release"), &b); code != 1 || b.String() != "synth report: x is not a synth release\n" {
		t.Errorf("exit %d: %q", code, b.String())
	}
	dir := t.TempDir()
	for _, args := range [][]string{{"report", dir}, {"validate", filepath.Join(dir, "absent")}, {"report", filepath.Join(dir, "absent")}, {"stats", dir}, {"inspect", dir}} {
		code, _, stderr := synth(t, args...)
		verb := args[0]
		if code != 1 || strings.Contains(stderr, verb+": "+verb+":") || strings.Count(stderr, verb+":") != 1 {
			t.Errorf("synth %v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// TestCLIReference: docs/cli.md is what synth prints for --help, verb by
// verb (synth help --markdown), so the reference cannot drift from the
// flags. go test -run TestCLIReference -update rewrites it.
func TestCLIReference(t *testing.T) {
	code, got, stderr := synth(t, "help", "--markdown")
	if code != 0 || stderr != "" {
		t.Fatalf("help --markdown: exit %d: %s", code, stderr)
	}
	goldenFile(t, filepath.Join("..", "..", "docs", "cli.md"), got)
}
