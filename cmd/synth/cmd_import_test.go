package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestImportOpenAPI(t *testing.T) {
	spec := filepath.Join("..", "..", "openapi", "testdata", "resilient.yaml")
	out := filepath.Join(t.TempDir(), "shop")
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"imports", []string{spec, "-o", out, "--seed", "3"}, 0, "13 tools (8 mapped to data, 5 unmapped", "warning: GET /categories/{id}"},
		{"flags first", []string{"-o", filepath.Join(t.TempDir(), "p"), "--include", "/products/**", spec}, 0, "7 tools", ""},
		{"existing folder", []string{spec, "-o", out}, 1, "", "not empty"},
		{"no -o", []string{spec}, 2, "", "-o DIR is required"},
		{"no spec", []string{"-o", filepath.Join(t.TempDir(), "q")}, 2, "", "usage:"},
		{"bad max", []string{spec, "-o", filepath.Join(t.TempDir(), "r"), "--max-operations", "0"}, 1, "", "--max-operations 0"},
		{"too many", []string{spec, "-o", filepath.Join(t.TempDir(), "s"), "--max-operations", "5"}, 1, "", "13 operations, more than --max-operations 5"},
		{"swagger", []string{filepath.Join("..", "..", "openapi", "testdata", "swagger2.yaml"), "-o", filepath.Join(t.TempDir(), "u")}, 1, "", "swagger: 2.0 (line 1) is not supported"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append([]string{"domain", "import-openapi"}, c.args...), &stdout, &stderr)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), c.stdout) {
				t.Errorf("stdout %q lacks %q", stdout.String(), c.stdout)
			}
			if !strings.Contains(stderr.String(), c.stderr) {
				t.Errorf("stderr %q lacks %q", stderr.String(), c.stderr)
			}
		})
	}
	for _, f := range []string{"domain.yaml", "tools.json", "handlers.star", "db.json", "policy.md", "IMPORT.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("pack file %s: %v", f, err)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"domain", "validate", out}, &stdout, &stderr); code != 0 {
		t.Errorf("synth domain validate on the imported pack: exit %d: %s%s", code, stdout.String(), stderr.String())
	}
}
