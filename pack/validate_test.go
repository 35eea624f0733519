package pack

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// TestValidateBroken: Validate finds every problem seeded in each broken
// pack under testdata/broken, at the right file and line, and nothing
// else.
func TestValidateBroken(t *testing.T) {
	cases := []struct {
		dir  string
		want []string // file:line of every problem
		// contains are message fragments some problem must carry.
		contains []string
	}{
		{"valid", nil, nil},
		{"yaml_syntax", []string{"domain.yaml:10"}, []string{"YAML syntax"}},
		{"schema", []string{
			"domain.yaml:1", "domain.yaml:2", "domain.yaml:3", "domain.yaml:4", "domain.yaml:8", "domain.yaml:9",
			"domain.yaml:12", "domain.yaml:13", "domain.yaml:17", "domain.yaml:19", "domain.yaml:21", "domain.yaml:21", "domain.yaml:21",
		}, []string{`unknown key "descripton" (did you mean "description"?)`, `missing required key "key"`, "not both", "RFC 3339", `quote it`,
			"tasks.write_weights: maxItems: got 7, want 6", "write_weights[1]: minimum: got -1", "every weight is 0"}},
		{"tools", []string{
			"tools.json:6", "tools.json:7", "tools.json:8", "tools.json:9", "tools.json:10",
			"tools.json:11", "tools.json:12", "tools.json:13", "tools.json:13",
		}, []string{"defined twice", `x-kind is "mutate"`, "x-kind is missing", "not a valid JSON Schema", "Starlark identifier", `"paramters"`}},
		{"json_syntax", []string{"db.json:8", "tools.json:6"}, []string{"JSON syntax"}},
		{"handlers_missing", []string{"handlers.star:20", "tools.json:4"}, []string{"has no handler", "want exactly two"}},
		{"handlers_syntax", []string{"handlers.star:3"}, []string{"syntax error"}},
		{"handlers_resolve", []string{"handlers.star:17", "handlers.star:18"}, []string{"undefined: failed", "undefined: ordr"}},
		{"handlers_toplevel", []string{"handlers.star:1"}, []string{"division by zero"}},
		{"refs", []string{
			"domain.yaml:9", "domain.yaml:10", "domain.yaml:11", "domain.yaml:14", "domain.yaml:17", "domain.yaml:17",
			"domain.yaml:21", "domain.yaml:22", "domain.yaml:22", "domain.yaml:23", "domain.yaml:23", "domain.yaml:24", "domain.yaml:26", "domain.yaml:28",
		}, []string{`"get_ordr" is not a tool`, "want a read tool", "want a write tool", `no parameter "mail"`, `"colour"`, "neither a collection nor a search",
			`get_user acts on "", not on this write's target "invoices"`}},
		{"db", []string{"db.json:4", "db.json:7", "db.json:8", "db.json:11"}, []string{`key field "user_id" is "u3"`, "is not a key of users", `no key field "order_id"`, "not declared"}},
		{"generator_error", []string{"gen.star:9"}, []string{`key "u7" not in dict`}},
		{"generator_nonjson", []string{"generator.star:1"}, []string{"non-JSON value: a value of type set"}},
		{"missing_files", []string{"domain.yaml:1", "domain.yaml:4", "handlers.star:0"}, []string{"no database", "missing.md does not exist", "not found"}},
		{"failures", []string{"domain.yaml:29", "domain.yaml:37"}, []string{"the alternative recovery needs the argument the customer chooses again", `choice is for the alternative recovery only; this failure's recovery is "retry"`}},
		{"duplicates", []string{"db.json:9", "domain.yaml:15"}, []string{`duplicate key "o1" (first at line 7)`, `duplicate key "key" (first at line 10)`}},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.dir] = true
		t.Run(c.dir, func(t *testing.T) {
			dir := filepath.Join("testdata", "broken", c.dir)
			probs := Validate(context.Background(), os.DirFS(dir), Options{})
			var got, msgs []string
			for _, p := range probs {
				got = append(got, p.File+":"+strconv.Itoa(p.Line))
				msgs = append(msgs, p.String())
				if p.Message == "" || p.File == "" {
					t.Errorf("incomplete problem %+v", p)
				}
			}
			want := slices.Clone(c.want)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("problems at %v, want %v:\n%s", got, want, strings.Join(msgs, "\n"))
			}
			all := strings.Join(msgs, "\n")
			for _, frag := range c.contains {
				if !strings.Contains(all, frag) {
					t.Errorf("no problem says %q:\n%s", frag, all)
				}
			}
			// Load fails with exactly these problems (or succeeds).
			_, err := Load(context.Background(), os.DirFS(dir), 1, Options{})
			var ps Problems
			switch {
			case len(probs) == 0 && err != nil:
				t.Errorf("valid pack does not load: %v", err)
			case len(probs) > 0 && (!errors.As(err, &ps) || len(ps) != len(probs)):
				t.Errorf("Load error %v, want %d problems", err, len(probs))
			}
		})
	}
	dirs, _ := os.ReadDir(filepath.Join("testdata", "broken"))
	for _, d := range dirs {
		if !seen[d.Name()] {
			t.Errorf("testdata/broken/%s has no test case", d.Name())
		}
	}
}

func TestValidateMissingManifest(t *testing.T) {
	probs := Validate(context.Background(), os.DirFS(t.TempDir()), Options{})
	var got []string
	for _, p := range probs {
		got = append(got, p.String())
	}
	want := []string{
		"domain.yaml: not found: a pack folder holds domain.yaml (synth domain init DIR makes a pack)",
		"domain.yaml:1: the pack has no database: add db.json or generator.star, or name one with database: or generator:",
		"handlers.star: not found: the pack needs this file (or name another with handlers: in domain.yaml)",
		"policy.md: not found: the pack needs this file (or name another with policy: in domain.yaml)",
		"tools.json: not found: the pack needs this file (or name another with tools: in domain.yaml)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestValidateMore covers problems that need a pack of their own.
func TestValidateMore(t *testing.T) {
	cases := []struct {
		name string
		edit func(fs map[string]string)
		want string // a problem's String() contains it
		// many allows other problems (the unknown keys x0...x8).
		many bool
	}{
		{"path escapes", func(f map[string]string) {
			f["domain.yaml"] = strings.Replace(f["domain.yaml"], "clock:", "policy: ../etc/passwd\nclock:", 1)
		}, `domain.yaml:3: policy: "../etc/passwd" is not a file name inside the pack folder (no leading /, no ..)`, false},
		{"external ref", func(f map[string]string) {
			f["tools.json"] = strings.Replace(f["tools.json"], `"type": "object"`, `"type": "object", "$ref": "file:///etc/passwd"`, 1)
		}, "tool f: parameters are not a valid JSON Schema (Draft 2020-12): failing loading \"file:///etc/passwd\"", false},
		{"alias bomb", func(f map[string]string) {
			var b strings.Builder
			b.WriteString(f["domain.yaml"] + "x0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n")
			for i := 1; i < 9; i++ {
				b.WriteString("x" + strconv.Itoa(i) + ": &a" + strconv.Itoa(i) + " [")
				for j := range 10 {
					if j > 0 {
						b.WriteString(", ")
					}
					b.WriteString("*a" + strconv.Itoa(i-1))
				}
				b.WriteString("]\n")
			}
			f["domain.yaml"] = b.String()
		}, "too large or too deeply nested", true},
		{"non-mapping manifest", func(f map[string]string) { f["domain.yaml"] = "- a\n- b\n" }, "domain.yaml:1: the manifest must be a mapping", false},
		{"empty policy", func(f map[string]string) { f["policy.md"] = "  \n" }, "policy.md:1: the policy is empty", false},
		{"db not an object", func(f map[string]string) { f["db.json"] = "[1, 2]" }, "db.json:1: the database must be an object", false},
		{"trailing data", func(f map[string]string) { f["db.json"] = miniDB + "\n{}" }, "db.json:6: JSON syntax", false},
		{"handler not a function", func(f map[string]string) { f["handlers.star"] = "f = 3\n" }, "handlers.star:1: f is a int, not a function", false},
		{"generate missing", func(f map[string]string) {
			delete(f, "db.json")
			f["generator.star"] = "def gen(seed):\n    return {}\n"
		}, "generator.star:1: generator.star must define def generate(seed)", false},
		{"rule of an unknown kind", func(f map[string]string) {
			f["domain.yaml"] += "rules:\n  - {name: r1, kind: vibes, policy: Be helpful.}\n"
		}, "rules[0].kind", true},
		{"rule naming no sentence of the policy", func(f map[string]string) {
			f["domain.yaml"] += "rules:\n  - {name: r1, kind: refuse, policy: Be rude.}\n"
		}, `rule r1: give the sentence of policy.md it enforces, word for word ("Be rude." is not in it)`, false},
		{"rule on a tool that is not there", func(f map[string]string) {
			f["domain.yaml"] += "rules:\n  - {name: r1, kind: say, tool: g, phrases: [hi], text: hi there, policy: Be helpful.}\n"
		}, `rules[0].tool: "g" is not a tool of tools.json`, false},
		{"disclosed figure that is not an output", func(f map[string]string) {
			f["domain.yaml"] += "rules:\n  - {name: r1, kind: disclose, tool: f, figures: [refund], policy: Be helpful.}\n"
		}, `rule r1: "refund" is not an output of hints.writes.f`, false},
		{"message not in the policy", func(f map[string]string) {
			f["domain.yaml"] += "rules:\n  - {name: r1, kind: message, after: f, text: GOODBYE, policy: Be helpful.}\n"
		}, `rule r1: the message "GOODBYE" is not in policy.md word for word`, false},
		{"say text without its phrase", func(f map[string]string) {
			f["domain.yaml"] += "rules:\n  - {name: r1, kind: say, tool: f, phrases: [only once], text: Hello., policy: Be helpful.}\n"
		}, `rule r1: text "Hello." says none of its phrases`, false},
		{"rule named like a default one", func(f map[string]string) {
			f["domain.yaml"] += "rules:\n  - {name: only_requested_writes, kind: refuse, policy: Be helpful.}\n"
		}, `rule "only_requested_writes" is declared twice`, false},
		{"unchecked without why", func(f map[string]string) {
			f["domain.yaml"] += "unchecked:\n  - {policy: Be helpful., why: \" \"}\n"
		}, "unchecked[0].why: say why no rule checks it", false},
		{"say for a value the slot does not take", func(f map[string]string) {
			f["domain.yaml"] += "hints:\n  writes:\n    f:\n      target: items\n      args:\n        n: {slot: \"1|2\", say: {\"3\": three things}}\n"
		}, `say: "3" is not one of the slot's values (1, 2); use one of them or "*" for any value`, true},
		{"refusals without a target collection", func(f map[string]string) {
			f["domain.yaml"] += "hints:\n  writes:\n    f:\n      refusals: [cannot be done]\n"
		}, "hints.writes.f.refusals: refusals need a target collection: set target: to one", true},
		{"a refusal rule that is no allow rule of the write", func(f map[string]string) {
			f["domain.yaml"] += "hints:\n  writes:\n    f:\n      target: items\n      refusals: [cannot be done]\n      refusal_rule: nope\n"
		}, `hints.writes.f.refusal_rule: refusal_rule "nope" names no allow rule of f in rules:`, true},
		{"a refusal rule without refusals", func(f map[string]string) {
			f["domain.yaml"] += "hints:\n  writes:\n    f:\n      target: items\n      refusal_rule: nope\n"
		}, "refusal_rule goes with refusals", true},
		{"checks without a target collection", func(f map[string]string) {
			f["domain.yaml"] += "hints:\n  writes:\n    f:\n      checks: [{tool: f, each: tags, args: {n: n}}]\n"
		}, "domain.yaml:10: hints.writes.f.checks[0]: checks need a target collection: set target: to one", false},
		{"a check by a write", func(f map[string]string) {
			f["domain.yaml"] += "hints:\n  writes:\n    f:\n      target: items\n      checks: [{tool: f, each: nested, args: {k: k}}]\n"
		}, "hints.writes.f.checks[0].tool: tool f is write; want a read tool", true},
		{"a check on a field no record has", func(f map[string]string) {
			f["domain.yaml"] += "hints:\n  writes:\n    f:\n      target: items\n      checks: [{tool: f, each: nested, args: {k: missing}}]\n"
		}, `hints.writes.f.checks[0].args.k: no record of items has the field "nested.missing"`, true},
		{"a checked rule on a write without checks", func(f map[string]string) {
			f["domain.yaml"] += "rules:\n  - name: looked\n    kind: checked\n    tool: f\n    policy: Be helpful.\n"
		}, "rule looked: hints.writes.f has no checks to hold the agent to", false},
		{"a say for a field the records are not described by", func(f map[string]string) {
			f["domain.yaml"] = strings.Replace(f["domain.yaml"], "    key: id\n", "    key: id\n    describe: [n]\n    say: {tags=x: \"tagged x\"}\n", 1)
		}, `domain.yaml:8: collections.items.say.tags=x: "tags=x" words "tags", which is under neither describe nor compare: add it to one or remove this key`, false},
		{"a say for an order not compared by", func(f map[string]string) {
			f["domain.yaml"] = strings.Replace(f["domain.yaml"], "    key: id\n", "    key: id\n    compare: [n]\n    say: {max:tags: \"the most tagged\"}\n", 1)
		}, `collections.items.say.max:tags: "max:tags" orders by "tags", which is not under compare`, false},
		{"a search's say for a field it does not describe", func(f map[string]string) {
			f["domain.yaml"] += "hints:\n  searches:\n    - name: finds\n      tools: [f]\n      describe: [n]\n      say: {stops=0: \"with no stops\"}\n"
		}, `hints.searches[0].say.stops=0: "stops=0" words "stops", which is under neither describe nor compare`, true},
		{"say without a slot", func(f map[string]string) {
			f["domain.yaml"] += "hints:\n  writes:\n    f:\n      target: items\n      args:\n        n: {say: {\"3\": three things}}\n"
		}, `missing required key "slot"`, true},
		{"a computed argument naming no function", func(f map[string]string) {
			f["domain.yaml"] += "hints:\n  writes:\n    f:\n      target: items\n      args:\n        n: compute:amount\n"
		}, "hints.writes.f.args.n: compute:amount: define def amount(db, args): in handlers.star, returning the argument's value", true},
		{"a computed argument naming a tool", func(f map[string]string) {
			f["domain.yaml"] += "hints:\n  writes:\n    f:\n      target: items\n      args:\n        n: compute:f\n"
		}, "compute:f names a tool", true},
		{"a computed argument of the wrong arity", func(f map[string]string) {
			f["handlers.star"] += "\ndef amount(db):\n    return 1\n"
			f["domain.yaml"] += "hints:\n  writes:\n    f:\n      target: items\n      args:\n        n: compute:amount\n"
		}, "compute:amount takes 1 parameter(s); want exactly two: def amount(db, args):", true},
		{"a computed rule on an argument that is not computed", func(f map[string]string) {
			f["domain.yaml"] += "rules:\n  - {name: r1, kind: computed, tool: f, args: [n], policy: Be helpful.}\n"
		}, "rule r1: hints.writes.f.args.n is not a computed argument (compute:FUNCTION)", false},
		{"generator loops", func(f map[string]string) {
			delete(f, "db.json")
			f["generator.star"] = "def generate(seed):\n    while True:\n        pass\n"
		}, "generate(1) ran past its step limit of 100000 steps", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{}
			for name, f := range miniFS("def f(db, args):\n    return 1\n") {
				files[name] = string(f.Data)
			}
			c.edit(files)
			fsys := fsOf(files)
			lim := DefaultLimits()
			lim.GeneratorSteps = 100_000
			probs := check(context.Background(), fsys, 1, Options{Limits: lim}).problems
			found := false
			for _, p := range probs {
				found = found || strings.Contains(p.String(), c.want)
			}
			if !found || (len(probs) != 1 && !c.many) {
				t.Errorf("problems %v, want one containing %q", probs, c.want)
			}
		})
	}
}

func TestLookupAny(t *testing.T) {
	rec := map[string]any{"a": map[string]any{"b": 1}, "items": []any{map[string]any{"price": 3}, map[string]any{"sku": "x"}}}
	for path, want := range map[string]bool{
		"a": true, "a.b": true, "a.c": false, "items.price": true, "items.sku": true,
		"items.colour": false, "a.b.c": false, "": true,
	} {
		if got := lookupAny(rec, path); got != want {
			t.Errorf("lookupAny(%s) = %v", path, got)
		}
	}
}

// TestFileLimits: a pack file over its limit is refused without being
// read whole, with its size, the limit and why the limit is there; so is
// a generator that builds a database over the limit.
func TestFileLimits(t *testing.T) {
	lim := DefaultLimits()
	lim.DatabaseBytes = 4 << 10
	cases := []struct {
		name string
		edit func(fstest.MapFS)
		want string
	}{
		{"policy", func(f fstest.MapFS) {
			f["policy.md"] = &fstest.MapFile{Data: bytes.Repeat([]byte("a"), maxPolicyBytes+1)}
		},
			"policy.md: is 1048577 bytes, more than the 1 MiB a pack's policy file may hold (the policy is the system message of every row"},
		{"database", func(f fstest.MapFS) {
			f["db.json"] = &fstest.MapFile{Data: append([]byte(`{"items": {}, "pad": "`), append(bytes.Repeat([]byte("x"), 5<<10), `"}`...)...)}
		}, "db.json: is 5144 bytes, more than the 4 KiB a pack's database file may hold"},
		{"generator", func(f fstest.MapFS) {
			delete(f, "db.json")
			f["generator.star"] = &fstest.MapFile{Data: []byte("def generate(seed):\n    return {\"items\": {\"a\": {\"id\": \"a\", \"pad\": \"x\" * 8192}}}\n")}
		}, "returned more than 4 KiB, the most a pack's database may hold"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fsys := miniFS("def t(db, args):\n    return 1\n")
			tc.edit(fsys)
			_, err := Load(context.Background(), fsys, 1, Options{Limits: lim})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("load: %v\nwant a problem containing %q", err, tc.want)
			}
		})
	}
}
