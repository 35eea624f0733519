package pack

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
)

// allowPolicy is a policy code file for allow rules: a function that
// allows the write when the customer's fact is "ok", one with two
// parameters, one that returns a number.
const allowPolicy = `def allowed(db, args, facts):
    if facts.get("why") == "ok":
        return None
    if facts.get("why") == "human":
        return {"transfer": "only a human can"}
    return "the reason is " + facts.get("why", "missing")

def two(db, args):
    return None

def number(db, args, facts):
    return 3
`

// TestAllowRuleChecked: an allow rule needs a function of the policy
// code taking (db, args, facts) and facts the tool does not take (or
// its hint has the customer state), each with its values; each broken
// rule is one problem saying so.
func TestAllowRuleChecked(t *testing.T) {
	cases := []struct{ name, rule, want string }{
		{"valid", `{name: r1, kind: allow, tool: f, check: allowed, asks: [{fact: why, slot: "ok|bad"}], policy: Be helpful.}`, ""},
		{"no check", `{name: r1, kind: allow, tool: f, policy: Be helpful.}`, "rule r1 (allow) needs check"},
		{"no such function", `{name: r1, kind: allow, tool: f, check: missing, policy: Be helpful.}`, "define def missing(db, args, facts): in policy.star"},
		{"two parameters", `{name: r1, kind: allow, tool: f, check: two, policy: Be helpful.}`, "two takes 2 parameter(s); want exactly three"},
		{"a fact the tool takes", `{name: r1, kind: allow, tool: f, check: allowed, asks: [{fact: n, slot: "1|2"}], policy: Be helpful.}`, "fact n is a parameter of f"},
		{"a fact the hint has the customer state", `{name: r1, kind: allow, tool: f, check: allowed, asks: [{fact: n, slot: "1|2|3"}], policy: Be helpful.}
hints:
  writes:
    f:
      target: items
      args:
        n: "slot:1|2"`, ""},
		{"a fact without values", `{name: r1, kind: allow, tool: f, check: allowed, asks: [{fact: why, slot: "ok||bad"}], policy: Be helpful.}`, "fact why needs its values"},
		{"a fact asked twice", `{name: r1, kind: allow, tool: f, check: allowed, asks: [{fact: why, slot: ok}, {fact: why, slot: ok}], policy: Be helpful.}`, "asks fact why twice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fsys := allowFS(c.rule)
			probs := check(context.Background(), fsys, 1, Options{}).problems
			switch {
			case c.want == "" && len(probs) > 0:
				t.Fatalf("problems %v, want none", probs)
			case c.want != "" && (len(probs) != 1 || !strings.Contains(probs[0].String(), c.want)):
				t.Fatalf("problems %v, want one containing %q", probs, c.want)
			}
		})
	}
}

// TestAllowFunc: a loaded pack's allow function gives "" where the
// policy allows the write, the condition where it refuses, a transfer
// where it hands the request to a human, and an error for anything else.
func TestAllowFunc(t *testing.T) {
	fsys := allowFS(`{name: r1, kind: allow, tool: f, check: allowed, asks: [{fact: why, slot: "ok|bad"}], policy: Be helpful.}
  - {name: r2, kind: allow, tool: f, check: number, policy: Be helpful.}`)
	p := mustLoad(t, fsys, DefaultLimits())
	ctx := context.Background()
	st := p.Base.NewState()
	for facts, want := range map[string]Verdict{"ok": {}, "bad": {Why: "the reason is bad"}, "human": {Why: "only a human can", Transfer: true}} {
		got, err := p.Allows["r1"](ctx, st, map[string]any{"n": 1}, map[string]any{"why": facts})
		if err != nil || got != want {
			t.Errorf("r1 with why %s: %+v, %v; want %+v", facts, got, err, want)
		}
	}
	if _, err := p.Allows["r2"](ctx, st, map[string]any{}, nil); err == nil || !strings.Contains(err.Error(), "want None (allowed), a string") {
		t.Errorf("r2 returning a number: %v", err)
	}
}

// allowFS is the mini pack with policy code and one tool f taking n,
// holding the given rules (YAML flow mappings, one a line).
func allowFS(rules string) fstest.MapFS {
	fs := miniFS("def f(db, args):\n    return 1\n")
	fs["domain.yaml"].Data = []byte(miniManifest + "policy_code: policy.star\nrules:\n  - " + rules + "\n")
	fs["policy.star"] = &fstest.MapFile{Data: []byte(allowPolicy)}
	fs["tools.json"].Data = []byte(strings.Replace(string(fs["tools.json"].Data), `"type": "object"`, `"type": "object", "properties": {"n": {"type": "integer"}}`, 1))
	return fs
}
