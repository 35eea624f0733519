package pack

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"
)

// miniManifest declares one collection, items, keyed by id.
const miniManifest = `name: mini
version: "1"
clock: "2024-05-15T15:00:00Z"
collections:
  items:
    key: id
`

const miniDB = `{"items": {
  "a": {"id": "a", "n": 3, "tags": ["x"], "nested": {"k": 1}},
  "b": {"id": "b", "n": 4.5, "tags": [], "nested": {"k": 2}},
  "c": {"id": "c", "n": 3, "tags": ["y"], "nested": {"k": 1}}
}}`

// miniTools makes a tools.json of write tools that accept any arguments.
func miniTools(names ...string) string {
	var defs []any
	for _, n := range names {
		defs = append(defs, map[string]any{
			"type": "function",
			"function": map[string]any{
				"name": n, "description": "test tool " + n,
				"parameters": map[string]any{"type": "object"},
				"x-kind":     "write",
			},
		})
	}
	b, _ := json.MarshalIndent(defs, "", "  ")
	return string(b)
}

// miniFS is a small valid pack whose handlers are the given source; the
// tools are the functions it defines at the start of a line.
func miniFS(handlers string) fstest.MapFS {
	var names []string
	for _, line := range strings.Split(handlers, "\n") {
		if name, ok := strings.CutPrefix(line, "def "); ok {
			if i := strings.IndexByte(name, '('); i > 0 && !strings.HasPrefix(name, "_") {
				names = append(names, name[:i])
			}
		}
	}
	return fstest.MapFS{
		"domain.yaml":   {Data: []byte(miniManifest)},
		"policy.md":     {Data: []byte("Be helpful.\n")},
		"tools.json":    {Data: []byte(miniTools(names...))},
		"handlers.star": {Data: []byte(handlers)},
		"db.json":       {Data: []byte(miniDB)},
	}
}

func mustLoad(t testing.TB, fsys fstest.MapFS, lim Limits) *Pack {
	t.Helper()
	p, err := Load(context.Background(), fsys, 1, Options{Limits: lim})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return p
}

func fsOf(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}
