package layers

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// contracts are the packages others build on: the file format, the
// verifier, the credit labels and the engine interface. They know no
// concrete domain and no concrete engine, even through another package,
// so a new domain or engine never changes what they mean.
var contracts = []string{"release", "verify", "credit", "engine", "domain", "dpo"}

// concrete reports whether a package is a built-in domain (or their
// registry) or an engine implementation.
func concrete(pkg string) bool {
	return pkg == "domains" || strings.HasPrefix(pkg, "domains/") || strings.HasPrefix(pkg, "engine/")
}

func TestContractsKnowNoConcretes(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	graph, err := importGraph(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range contracts {
		if _, ok := graph[c]; !ok {
			t.Errorf("%s is a contract but no package of the repository", c)
			continue
		}
		for _, path := range concretePaths(graph, c) {
			t.Errorf("%s depends on %s (a built-in domain or an engine implementation): %s", c, path[len(path)-1], strings.Join(path, " → "))
		}
	}
}

// concretePaths walks the packages from depends on and returns, for each
// concrete one it reaches, the import path that reaches it first.
func concretePaths(graph map[string][]string, from string) [][]string {
	var out [][]string
	seen := map[string]bool{from: true}
	queue := [][]string{{from}}
	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]
		for _, dep := range graph[path[len(path)-1]] {
			if seen[dep] {
				continue
			}
			seen[dep] = true
			next := append(slices.Clone(path), dep)
			if concrete(dep) {
				out = append(out, next)
				continue
			}
			queue = append(queue, next)
		}
	}
	return out
}

// importGraph maps each package of the repository (its path below the
// module) to the packages of the module its non-test files import.
func importGraph(root string) (map[string][]string, error) {
	graph := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
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
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		deps := graph[pkg]
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if dep, ok := strings.CutPrefix(p, module); ok && !slices.Contains(deps, dep) {
				deps = append(deps, dep)
			}
		}
		graph[pkg] = deps
		return nil
	})
	return graph, err
}
