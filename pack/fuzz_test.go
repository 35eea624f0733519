package pack

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// FuzzLoad mutates the manifest, the tools, the handlers and the database
// of a small pack: loading must never panic or hang, every problem must be
// located, and the tools of a pack that loads must answer every call.
func FuzzLoad(f *testing.F) {
	f.Add(miniManifest, miniTools("f", "g"), "def f(db, args):\n    return db.get(\"items\", \"a\")\n\ndef g(db, args):\n    fail(\"no\")\n", miniDB)
	f.Add(miniManifest, miniTools("f"), "def f(db, args):\n    while True:\n        pass\n", miniDB)
	f.Add("name: x\nversion: \"1\"\ncollections: {items: {key: id}}\nx: &a [*a]\n", "[{", "def f(db args):", `{"items": []}`)
	dirs, _ := filepath.Glob(filepath.Join("testdata", "broken", "*"))
	for _, d := range dirs {
		read := func(name string) string {
			b, _ := os.ReadFile(filepath.Join(d, name))
			return string(b)
		}
		f.Add(read("domain.yaml"), read("tools.json"), read("handlers.star"), read("db.json"))
	}
	lim := Limits{Steps: 10_000, GeneratorSteps: 100_000, ArgBytes: 4 << 10, ResultBytes: 64 << 10, DatabaseBytes: 1 << 20}
	f.Fuzz(func(t *testing.T, manifest, toolsJSON, handlers, db string) {
		fsys := fstest.MapFS{
			"domain.yaml":   {Data: []byte(manifest)},
			"policy.md":     {Data: []byte("Be helpful.\n")},
			"tools.json":    {Data: []byte(toolsJSON)},
			"handlers.star": {Data: []byte(handlers)},
			"db.json":       {Data: []byte(db)},
		}
		ctx := context.Background()
		c := check(ctx, fsys, 1, Options{Limits: lim})
		for _, p := range c.problems {
			if p.File == "" || p.Message == "" || p.Line < 0 {
				t.Fatalf("unlocated problem %+v", p)
			}
			if strings.Contains(p.Message, "internal error") {
				t.Fatalf("recovered panic: %s", p)
			}
		}
		p, err := Load(ctx, fsys, 1, Options{Limits: lim})
		if err != nil {
			if len(c.problems) == 0 {
				t.Fatalf("no problems but Load failed: %v", err)
			}
			return
		}
		if len(c.problems) > 0 {
			t.Fatalf("problems %v but Load succeeded", c.problems)
		}
		for _, tl := range p.Tools.Tools() {
			st := p.Base.NewState()
			for _, args := range []string{"{}", `{"id": "a", "n": 1}`} {
				p.Tools.Call(ctx, st, tl.Name, args)
			}
		}
	})
}
