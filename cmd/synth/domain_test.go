package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDomainInitValidateShow: a scaffolded pack validates and shows; a
// broken one lists every problem with its file and line and fails.
func TestDomainInitValidateShow(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "desk")
	code, stdout, stderr := synth(t, "domain", "init", dir, "--name", "desk")
	if code != 0 || !strings.Contains(stdout, "synth domain validate "+dir) {
		t.Fatalf("init exit %d: %s%s", code, stdout, stderr)
	}
	code, stdout, stderr = synth(t, "domain", "validate", dir)
	if want := "ok: desk 0.1.0, 7 tools (3 read, 3 write, 1 generic), 2 collections, 250 records\n"; code != 0 || stdout != want {
		t.Errorf("validate exit %d: %q (want %q) %s", code, stdout, want, stderr)
	}
	code, stdout, _ = synth(t, "domain", "show", dir)
	if code != 0 || !strings.HasPrefix(stdout, "domain desk 0.1.0\n\ntools:\n") ||
		!regexp.MustCompile(`(?m)^  close_ticket +write +Close an open ticket`).MatchString(stdout) ||
		!strings.Contains(stdout, "policy:\n# desk support agent policy") {
		t.Errorf("show exit %d:\n%s", code, stdout)
	}

	// Refuses to scaffold over existing files.
	code, _, stderr = synth(t, "domain", "init", dir)
	if code != 1 || !strings.Contains(stderr, "not empty") {
		t.Errorf("init over a pack: exit %d: %s", code, stderr)
	}

	// Break three files; validate names each problem.
	edit := func(name, old, new string) {
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b), old) {
			t.Fatalf("%s: %v or %q not found", name, err, old)
		}
		os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644)
	}
	edit("domain.yaml", "    noun: ticket\n", "    nuon: ticket\n")
	edit("tools.json", `"x-kind": "generic"`, `"x-kind": "other"`)
	edit("handlers.star", "def close_ticket(db, args):", "def close_ticket(db, args)")
	code, stdout, stderr = synth(t, "domain", "validate", dir)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	want := []*regexp.Regexp{
		regexp.MustCompile(`^` + regexp.QuoteMeta(filepath.Join(dir, "domain.yaml")) + `:\d+: collections\.tickets\.nuon: unknown key "nuon" \(did you mean "noun"\?\)$`),
		regexp.MustCompile(`^` + regexp.QuoteMeta(filepath.Join(dir, "handlers.star")) + `:\d+: syntax error`),
		regexp.MustCompile(`^` + regexp.QuoteMeta(filepath.Join(dir, "tools.json")) + `:\d+: tool transfer_to_human_agents: x-kind is "other"`),
	}
	if code != 1 || len(lines) != len(want) || !strings.Contains(stderr, "3 problem(s)") {
		t.Fatalf("validate broken: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for i, re := range want {
		if !re.MatchString(lines[i]) {
			t.Errorf("line %d: %q does not match %v", i, lines[i], re)
		}
	}
	// show refuses a broken pack with the same problems.
	if code, _, stderr := synth(t, "domain", "show", dir); code != 1 || !strings.Contains(stderr, "3 problem(s)") {
		t.Errorf("show broken: exit %d: %s", code, stderr)
	}
}

func TestDomainErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"domain"}, 2, "give a subcommand"},
		{[]string{"domain", "frobnicate"}, 2, `unknown subcommand "frobnicate"`},
		{[]string{"domain", "init"}, 2, "give the folder for the new pack"},
		{[]string{"domain", "init", "x", "y"}, 2, `unexpected argument "y"`},
		{[]string{"domain", "init", filepath.Join(t.TempDir(), "p"), "--name", "Bad Name"}, 1, "--name"},
		{[]string{"domain", "validate", filepath.Join(t.TempDir(), "none")}, 1, "is not a folder"},
		{[]string{"domain", "show"}, 2, "give a domain name or a pack folder"},
		{[]string{"domain", "show", "nosuch"}, 1, `unknown domain "nosuch"`},
		{[]string{"domain", "init", "--bogus"}, 2, "unknown flag --bogus"},
	}
	for _, c := range cases {
		code, _, stderr := synth(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
	if code, stdout, _ := synth(t, "domain", "list"); code != 0 || !strings.Contains(stdout, "retail\n") {
		t.Errorf("list: exit %d: %s", code, stdout)
	}
}
