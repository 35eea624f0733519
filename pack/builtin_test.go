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

// loadOrProblem loads a pack on the sets; with want, the load must fail
// with that problem, and nil is returned.
func loadOrProblem(t *testing.T, fsys fstest.MapFS, sets map[string]HandlerSet, want string) *Pack {
	t.Helper()
	p, err := Load(context.Background(), fsys, 1, Options{Builtins: sets})
	if want != "" {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v, want a problem %q", err, want)
		}
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
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
			p := loadOrProblem(t, c.fsys, sets, c.want)
			if p == nil {
				return
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

// A pack on built-in handlers keeps its policy's functions in its
// policy code (policy_code:), which compute: arguments name.
func TestPolicyCode(t *testing.T) {
	set := map[string]HandlerSet{"mini": {"touch": func(context.Context, *tools.State, map[string]any) (any, error) { return "ok", nil }}}
	hint := "hints:\n  writes:\n    touch:\n      target: items\n      args:\n        n: {compute: double, say: {\"*\": \"{value} items\"}}\n"
	with := func(manifest, code string) fstest.MapFS {
		fsys := builtinFS("mini", "touch")
		fsys["domain.yaml"] = &fstest.MapFile{Data: []byte(miniManifest + "handlers: builtin:mini\n" + manifest + hint)}
		fsys["tools.json"] = &fstest.MapFile{Data: []byte(`[{"type": "function", "function": {"name": "touch", "description": "test tool touch", "x-kind": "write",
			"parameters": {"type": "object", "properties": {"id": {"type": "string"}, "n": {"type": "integer"}}, "required": ["id", "n"]}}}]`)}
		if code != "" {
			fsys["policy.star"] = &fstest.MapFile{Data: []byte(code)}
		}
		return fsys
	}
	for _, c := range []struct {
		name, manifest, code, want string
	}{
		{"policy code", "policy_code: policy.star\n", "def double(db, args):\n    return 2 * db.get(\"items\", args[\"id\"])[\"n\"]\n", ""},
		{"no policy code", "", "", "name a file of the policy's functions with policy_code: policy.star"},
		{"no such function", "policy_code: policy.star\n", "def triple(db, args):\n    return 3\n", "compute:double: define def double(db, args): in policy.star"},
		{"missing file", "policy_code: policy.star\n", "", "policy.star does not exist"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := loadOrProblem(t, with(c.manifest, c.code), set, c.want)
			if p == nil {
				return
			}
			v, err := p.Computes["double"](context.Background(), p.Base.NewState(), map[string]any{"id": "a"})
			if err != nil || tools.Text(v) != "6" {
				t.Errorf("double = %v, %v; want 6", v, err)
			}
			if _, ok := p.Files["policy.star"]; !ok {
				t.Error("the pack's files lack its policy code")
			}
		})
	}
}
