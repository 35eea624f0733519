package pack

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/synth-data/synth/tools"
)

// builtinFS is a pack whose handlers come from the Go set name.
func builtinFS(set string, tools ...string) fstest.MapFS {
	return fstest.MapFS{
		"domain.yaml": {Data: []byte(miniManifest + "handlers: " + BuiltinPrefix + set + "\n")},
		"policy.md":   {Data: []byte("Be helpful.\n")},
		"tools.json":  {Data: []byte(miniTools(tools...))},
		"db.json":     {Data: []byte(miniDB)},
	}
}

func TestBuiltinHandlers(t *testing.T) {
	touch := func(_ context.Context, st *tools.State, args map[string]any) (any, error) {
		return "touched " + tools.Text(args["id"]), st.Put("items", "a", map[string]any{"id": "a", "n": 9})
	}
	sets := map[string]HandlerSet{"mini": {"touch": touch, "other": touch}}
	cases := []struct {
		name  string
		fsys  fstest.MapFS
		want  string // a problem; "" for a pack that loads
		calls bool
	}{
		{"a known set", builtinFS("mini", "touch"), "", true},
		{"an unknown set", builtinFS("nosuch", "touch"), `"builtin:nosuch" names no built-in handler set (known: mini)`, false},
		{"a tool the set lacks", builtinFS("mini", "touch", "absent"), "tool absent has no handler in the built-in set mini", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Load(context.Background(), c.fsys, 1, Options{Builtins: sets})
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("got %v, want a problem %q", err, c.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			st := p.Base.NewState()
			res := p.Tools.Call(context.Background(), st, "touch", `{"id": "a"}`)
			if res.Err || res.Output != "touched a" {
				t.Fatalf("call: %+v", res)
			}
			if st.Hash() == p.Base.Hash() {
				t.Error("the Go handler's write did not reach the state")
			}
			if _, ok := p.Files["handlers.star"]; ok {
				t.Error("a pack with built-in handlers ships a handlers.star")
			}
		})
	}
}
