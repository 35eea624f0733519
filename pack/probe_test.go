package pack

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestProbe: domain validate's call of every handler reports a handler
// the sandbox stops whatever it is asked, and not one whose error the
// made-up arguments explain.
func TestProbe(t *testing.T) {
	lim := DefaultLimits()
	lim.Steps = 10_000
	cases := []struct {
		name, handlers string
		want           string // a part of the problem, "" for none
	}{
		{"answers", "def get(db, args):\n    return db.get('items', 'a')\n", ""},
		{"fails on its arguments", "def get(db, args):\n    fail('no item', args)\n", ""},
		{"a key error on made-up arguments", "def get(db, args):\n    return args['missing']\n", ""},
		{"loops", "def get(db, args):\n    while True:\n        pass\n", "ran past its step limit of 10000 steps"},
		{"returns a set", "def get(db, args):\n    return set([1])\n", "returned a non-JSON value: a value of type set"},
		{"returns stray bytes", "def get(db, args):\n    return 'caf' + '\u00e9'[:1]\n", "a string that is not valid UTF-8"},
		{"returns too much", "def get(db, args):\n    return 'x' * (2 << 20)\n", "returned more than 1048576 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustLoad(t, miniFS(c.handlers), lim)
			got := Probe(context.Background(), p)
			if c.want == "" {
				if len(got) != 0 {
					t.Fatalf("problems %v, want none", got)
				}
				return
			}
			if len(got) != 1 || got[0].File != "handlers.star" || got[0].Field != "get" || !strings.Contains(got[0].Message, c.want) {
				t.Fatalf("problems %v, want one of handlers.star, tool get, saying %q", got, c.want)
			}
		})
	}
}

// TestProbeArgs: a key field gets a key of its collection, a field the
// records hold a record's value, anything else what its schema allows.
func TestProbeArgs(t *testing.T) {
	p := mustLoad(t, miniFS("def get(db, args):\n    return None\n"), DefaultLimits())
	params := map[string]any{
		"properties": map[string]any{
			"id":   map[string]any{"type": "string"},
			"n":    map[string]any{"type": "number"},
			"mode": map[string]any{"type": "string", "enum": []any{"fast", "slow"}},
			"on":   map[string]any{"type": "boolean"},
			"note": map[string]any{"type": "string"},
		},
		"required": []any{"id", "n", "mode", "on", "note"},
	}
	got := probeArgs(p, params)
	want := map[string]any{"id": "a", "n": 3.0, "mode": "fast", "on": false, "note": "x"}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v && !(k == "n" && toFloat(g) == 3) {
			t.Errorf("%s = %#v, want %#v (all: %v)", k, g, v, got)
		}
	}
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	case int:
		return float64(x)
	}
	return -1
}

// TestPolicyNotUTF8: a policy that is not UTF-8 is refused at load,
// naming the file and the line, instead of failing the release's rows.
func TestPolicyNotUTF8(t *testing.T) {
	fsys := miniFS("def get(db, args):\n    return None\n")
	fsys["policy.md"].Data = []byte("Be helpful.\nNever say caf\xe9.\n")
	_, err := Load(context.Background(), fs.FS(fsys), 1, Options{})
	if err == nil || !strings.Contains(err.Error(), "policy.md:2: the policy is not UTF-8 text") || !strings.Contains(err.Error(), "column 14") {
		t.Fatalf("load: %v", err)
	}
}

// TestMessagesBounded: what a pack's code says in fail() or quotes in an
// error reaches the agent, the logs and stderr bounded and as UTF-8.
func TestMessagesBounded(t *testing.T) {
	for name, body := range map[string]string{
		"fail":        "    fail('x' * (20 << 20))\n",
		"eval error":  "    return int('x' * (20 << 20))\n",
		"stray bytes": "    fail('caf' + '\u00e9'[:1])\n",
	} {
		t.Run(name, func(t *testing.T) {
			p := mustLoad(t, miniFS("def get(db, args):\n"+body), DefaultLimits())
			res := p.Tools.Call(context.Background(), p.Base.NewState(), "get", "{}")
			if !res.Err || len(res.Output) > maxMessageBytes+200 || !utf8.ValidString(res.Output) {
				t.Fatalf("a %d-byte observation (valid UTF-8 %v): %.200q", len(res.Output), utf8.ValidString(res.Output), res.Output)
			}
		})
	}
}
