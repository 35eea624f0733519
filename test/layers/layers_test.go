package layers

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/synth-data/synth/"

// order lists the packages from the bottom up, as the code layout table
// of docs/development.md does; a package may import only those before it.
// Packages not listed (internal helpers, tests) may import anything listed.
var order = []string{
	"record", "schemas", "tools", "pack", "domains/tau2", "domains/airline", "domains/retail", "model", "domain", "domains",
	"dialog", "blueprints", "usersim", "agent", "verify", "credit", "dpo", "llm",
	"engine", "engine/embedded", "engine/llm", "engine/hybrid",
	"export", "release", "corpus", "pipeline", "intake", "openapi", "audit", "emulate", "serve", "mcp", "cmd/synth",
}

func TestImportsRunOneWay(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	rank := map[string]int{}
	for i, p := range order {
		rank[p] = i
	}
	seen := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		me, listed := rank[pkg]
		if !listed {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		seen++
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			dep, ok := strings.CutPrefix(p, module)
			if !ok {
				continue
			}
			if r, listed := rank[dep]; listed && r >= me {
				t.Errorf("%s imports %s, which comes after it (order: %s)", filepath.Join(rel, filepath.Base(path)), dep, strings.Join(order[min(r, me):max(r, me)+1], " < "))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatal("read no package: the test no longer finds the repository")
	}
	for _, p := range order {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("%s is in the order but not in the repository", p)
		}
	}
}
