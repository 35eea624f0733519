package main

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/synth-data/synth/mcp"
)

// docCommands are the synth command lines of a docs page's ```sh blocks.
func docCommands(t *testing.T, page string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", page))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "```"):
			in = line == "```sh"
		case in && strings.HasPrefix(line, "synth "):
			args, err := mcp.SplitCommand(line)
			if err != nil {
				t.Fatalf("%s: %q: %v", page, line, err)
			}
			out = append(out, args[1:])
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s has no synth command in a ```sh block", page)
	}
	return out
}

// Every synth command docs/rl.md and docs/mcp.md show works as shown:
// the servers start on the flags given and stop cleanly, and the import
// of a real server's tool list validates, runs and gives a release that
// validates. Paths under packs/ and out/ go to a temporary folder; the
// tool list is ../shared/mcp's.
func TestDocumentedCommands(t *testing.T) {
	for _, args := range docCommands(t, "rl.md") {
		switch args[0] {
		case "serve":
			for i, a := range args {
				if a == "127.0.0.1:8090" {
					args[i] = "127.0.0.1:0"
				}
			}
			_, stop := startCommand(t, args...)
			if out := stop(); !strings.Contains(out, "/mcp") {
				t.Errorf("synth %v: %q does not say where MCP is served", args, out)
			}
		case "mcp":
			// The client closes stdin at once: the server stops, exit 0.
			var out, errb strings.Builder
			if err := cmdMCP(context.Background(), env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, args[1:]); err != nil || out.Len() > 0 {
				t.Errorf("synth %v: %v, stdout %q, stderr %q", args, err, out.String(), errb.String())
			}
		default:
			t.Errorf("docs/rl.md shows synth %v, which this test does not run", args)
		}
	}
	list := filepath.Join("..", "..", "..", "shared", "mcp", "memory.tools.json")
	if _, err := os.Stat(list); err != nil {
		t.Skipf("docs/mcp.md's commands need ../shared/mcp/memory.tools.json (outside the repo): %v", err)
	}
	tmp := t.TempDir()
	for _, args := range docCommands(t, "mcp.md") {
		for i, a := range args {
			switch {
			case a == "memory.tools.json":
				args[i] = list
			case strings.HasPrefix(a, "packs/"), strings.HasPrefix(a, "out/"):
				args[i] = filepath.Join(tmp, a)
			}
		}
		if code, _, stderr := synth(t, args...); code != 0 {
			t.Fatalf("synth %v: exit %d: %s", args, code, stderr)
		}
	}
}
