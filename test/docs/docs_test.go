package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pending are pages other branches write; a link to one may come before
// the page does.
var pending = map[string]bool{"docs/mcp.md": true, "docs/rl.md": true, "docs/trainers.md": true, "docs/architecture.md": true}

// pages returns the README and every page of docs/, by path from the
// repository root.
func pages(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	paths, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(paths, filepath.Join("..", "..", "README.md")) {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(filepath.Join("..", ".."), p)
		out[filepath.ToSlash(rel)] = string(raw)
	}
	if len(out) < 5 {
		t.Fatalf("found %d pages: the test no longer finds the repository", len(out))
	}
	return out
}

func TestREADMEIsAFrontPage(t *testing.T) {
	readme := pages(t)["README.md"]
	if n := strings.Count(readme, "\n"); n > 300 {
		t.Errorf("README.md has %d lines, more than 300: move the detail into docs/", n)
	}
	for _, want := range []string{"make demo", "make test", "## Quickstart", "## Read more", "docs/cli.md"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
}

// slug is the anchor GitHub makes of a heading.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

var (
	link    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile("(?m)^#{1,6} (.+)$")
	fence   = regexp.MustCompile("(?s)```.*?```")
)

// TestLinksResolve: every relative link of the README and docs/ names a
// file that exists, and an anchor a heading it has.
func TestLinksResolve(t *testing.T) {
	all := pages(t)
	anchors := map[string]map[string]bool{}
	for path, text := range all {
		anchors[path] = map[string]bool{}
		for _, h := range heading.FindAllStringSubmatch(fence.ReplaceAllString(text, ""), -1) {
			anchors[path][slug(strings.ReplaceAll(h[1], "`", ""))] = true
		}
	}
	for path, text := range all {
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			dest := path
			if file != "" {
				dest = filepath.ToSlash(filepath.Join(filepath.Dir(path), file))
			}
			if pending[dest] {
				continue
			}
			if _, err := os.Stat(filepath.Join("..", "..", dest)); err != nil {
				t.Errorf("%s links to %s, which does not exist", path, target)
				continue
			}
			if a, ok := anchors[dest]; ok && anchor != "" && !a[anchor] {
				t.Errorf("%s links to %s, but %s has no heading #%s", path, target, dest, anchor)
			}
		}
	}
}

// measured matches what reads as a measured figure: a rate, a size of
// memory used, a duration, a share of a run's rows.
var measured = regexp.MustCompile(`\d[\d,.]*\s*(rows/s|dialogues/s|sessions/s|rows per second|MB\b|GB\b|ms\b|s \()|\d+ in 100\b|\d+(\.\d+)?% (tool errors|unavailable|of (the )?rows)`)

// sourced names what produced a figure.
var sourced = regexp.MustCompile(`\b(Test|Benchmark)[A-Z]\w*|make (bench|chaos|test)|scripts/\w[\w-]*\.sh|\w+_check\.mjs|go test`)

// TestFiguresHaveSources: a measured figure in the README or docs/ names,
// in its paragraph, the test, benchmark or script that produces it; one
// nothing produces goes stale unseen (the README once said recovery rows
// were about 4 in 100 of a retail run's; a run had 94 in 1,000).
func TestFiguresHaveSources(t *testing.T) {
	for path, text := range pages(t) {
		for _, para := range strings.Split(fence.ReplaceAllString(text, ""), "\n\n") {
			for _, line := range strings.Split(para, "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "|") {
					// A table row is its own paragraph.
					if f := measured.FindString(line); f != "" && !sourced.MatchString(line) {
						t.Errorf("%s: the figure %q names no test, benchmark or script: %.120s", path, f, line)
					}
					continue
				}
				if f := measured.FindString(line); f != "" && !sourced.MatchString(para) {
					t.Errorf("%s: the figure %q names no test, benchmark or script: %.120s", path, f, line)
				}
			}
		}
	}
}

// TestCIRunsTheREADMECommands: .ci/run is the README's set-up commands
// (then make bench-short, whose figures CI prints, and make test-long), with nothing a newcomer would have to know
// besides: CI adds only environment variables, and make test installs
// what it needs itself, before anything long.
func TestCIRunsTheREADMECommands(t *testing.T) {
	readme := pages(t)["README.md"]
	start := strings.Index(readme, "## Set-up")
	block := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(readme[max(start, 0):])
	if start < 0 || block == nil {
		t.Fatal("README.md has no ## Set-up section with a sh block")
	}
	var want []string
	for _, line := range strings.Split(strings.TrimSpace(block[1]), "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		want = append(want, strings.TrimSpace(cmd))
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"), strings.HasPrefix(line, "set "), strings.HasPrefix(line, "export "), strings.HasPrefix(line, "cd "):
			continue
		}
		got = append(got, line)
	}
	if strings.Join(got, "\n") != strings.Join(append(want, "make bench-short", "make test-long"), "\n") {
		t.Errorf(".ci/run runs %q; the README's commands are %q (then make bench-short and make test-long)", got, want)
	}
	mk, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^test: setup\b`).Match(mk) {
		t.Error("make test does not run make setup first: a missing piece would be found only after the long steps")
	}
}
