package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A saved tool list imports into a pack that validates and runs; the
// command says what it made and how to run it.
func TestImportMCPFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "notes")
	code, stdout, stderr := synth(t, "domain", "import-mcp", "testdata/notes.tools.json", "-o", dir)
	if code != 0 || !strings.Contains(stdout, "5 tools (5 mapped to data") || !strings.Contains(stdout, "notes") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, f := range []string{"IMPORT.md", "tools.json", "handlers.star", "db.json", "domain.yaml", "policy.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if code, _, stderr := synth(t, "domain", "validate", dir); code != 0 {
		t.Fatalf("domain validate: %d %s", code, stderr)
	}
	out := filepath.Join(t.TempDir(), "release")
	if code, _, stderr := synth(t, "run", "--domain", dir, "-n", "20", "--quiet", "--out", out); code != 0 {
		t.Fatalf("run: %d %s", code, stderr)
	}
	if code, stdout, stderr := synth(t, "validate", out); code != 0 {
		t.Fatalf("validate: %d %s %s", code, stdout, stderr)
	}
}

func TestImportMCPErrors(t *testing.T) {
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"tools": [{"name": ""}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"domain", "import-mcp", "-o", "x"}, 2, "either a saved tools/list file or --command"},
		{[]string{"domain", "import-mcp", "testdata/notes.tools.json", "--command", "node s.js", "-o", "x"}, 2, "not both"},
		{[]string{"domain", "import-mcp", "testdata/notes.tools.json"}, 2, "-o DIR is required"},
		// A full -o is refused before the server is started.
		{[]string{"domain", "import-mcp", "--command", "/nonexistent/server", "-o", full}, 1, "nothing was run or written"},
		{[]string{"domain", "import-mcp", "--command", "/nonexistent/server", "-o", filepath.Join(t.TempDir(), "p")}, 1, "/nonexistent/server"},
		{[]string{"domain", "import-mcp", "--command", `node "x`, "-o", filepath.Join(t.TempDir(), "p")}, 1, "unclosed quote"},
		{[]string{"domain", "import-mcp", bad, "-o", filepath.Join(t.TempDir(), "p")}, 1, "bad.json: tools[0]: no name"},
		{[]string{"domain", "import-mcp", "/nonexistent.json", "-o", filepath.Join(t.TempDir(), "p")}, 1, "/nonexistent.json"},
		{[]string{"domain", "import-mcp", "testdata/notes.tools.json", "--timeout", "0s", "-o", filepath.Join(t.TempDir(), "p")}, 2, "--timeout"},
	} {
		code, _, stderr := synth(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
	if code, stdout, _ := synth(t, "domain", "import-mcp", "-h"); code != 0 || !strings.Contains(stdout, "--command") {
		t.Errorf("-h: %d %q", code, stdout)
	}
}
