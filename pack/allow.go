package pack

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.starlark.net/starlark"

	"github.com/synth-data/synth/tools"
)

// RuleAllow: a write of Tool is allowed only where the policy's function
// Check (def NAME(db, args, facts): in the policy code) allows it, on
// the state before the write, given the write's arguments and the facts
// the customer states when asked (Asks: a cancellation's reason). The
// function returns None when the write is allowed, else the condition
// that refuses it, in the words the agent cites, or {"transfer": WHY}
// when the policy hands the request to a human instead.
const RuleAllow = "allow"

// Verdict is an allow rule's answer: the zero Verdict allows the write;
// else Why is the condition that refuses it, and Transfer says the
// policy sends the customer to a human rather than refusing.
type Verdict struct {
	Why      string
	Transfer bool
}

// Allowed reports whether the verdict lets the write go ahead.
func (v Verdict) Allowed() bool { return v == Verdict{} }

// Fact is what an allow rule has the agent ask the customer before the
// write: a value that decides whether the policy allows it, either no
// argument of the tool (an airline cancellation's reason) or one the
// write's hint has the customer state as a slot (a retail
// cancellation's reason, which the tool takes). Its values are all a
// customer may give, those the rule refuses too: the generator makes
// refusals of these, and a granted write gets only a value the rule
// allows.
type Fact struct {
	// Name names the fact, as a slot of the task's goal.
	Name string `json:"fact"`
	// Slot lists the values the customer may give: "A|B|C".
	Slot string `json:"slot"`
}

// Values are the values the customer may give.
func (f Fact) Values() []string { return strings.Split(f.Slot, "|") }

// AllowFunc is an allow rule's function: its verdict on the write on st
// with those arguments and facts.
type AllowFunc func(ctx context.Context, st *tools.State, args, facts map[string]any) (Verdict, error)

// checkAllow checks an allow rule: a function of the policy code taking
// (db, args, facts), and facts that are no argument of the tool, each
// with its values.
func (c *checker) checkAllow(i int, r Rule) {
	at := loc("rules", strconv.Itoa(i))
	if r.Check == "" {
		c.addY(at, "rule %s (allow) needs check: the policy code's function that allows the write", r.Name)
		return
	}
	fns, file := c.computeFns()
	fn, ok := fns[r.Check].(*starlark.Function)
	switch {
	case c.man.PolicyCode == "" && strings.HasPrefix(file, BuiltinPrefix):
		c.addY(child(at, "check"), "rule %s: check %s needs a Starlark function, and the handlers are built in: name a file of the policy's functions with policy_code: policy.star", r.Name, r.Check)
	case !ok:
		c.addY(child(at, "check"), "rule %s: define def %s(db, args, facts): in %s, returning None when the write is allowed, else the condition that refuses it", r.Name, r.Check, file)
	case fn.NumParams() != 3 || fn.HasVarargs() || fn.HasKwargs():
		c.addY(child(at, "check"), "rule %s: %s takes %d parameter(s); want exactly three: def %s(db, args, facts):", r.Name, r.Check, fn.NumParams(), r.Check)
	}
	td := c.byName[r.Tool]
	seen := map[string]bool{}
	for k, f := range r.Asks {
		fat := loc("rules", strconv.Itoa(i), "asks", strconv.Itoa(k))
		switch {
		case !ruleName.MatchString(f.Name):
			c.addY(child(fat, "fact"), "rule %s: fact %q: use lower case letters, digits and _", r.Name, f.Name)
		case seen[f.Name]:
			c.addY(child(fat, "fact"), "rule %s asks fact %s twice", r.Name, f.Name)
		case td != nil && td.props[f.Name] && !c.slotArg(r.Tool, f.Name):
			c.addY(child(fat, "fact"), "rule %s: fact %s is a parameter of %s that its hint does not have the customer state (hints.writes.%s.args.%s: \"slot:A|B\"); a fact is what the tool does not take, or a slot argument", r.Name, f.Name, r.Tool, r.Tool, f.Name)
		}
		seen[f.Name] = true
		if f.Slot == "" || slices.Contains(f.Values(), "") {
			c.addY(child(fat, "slot"), "rule %s: fact %s needs its values: slot: \"A|B|C\"", r.Name, f.Name)
		}
	}
}

// slotArg reports whether the hint of a write has the customer state
// the argument as a slot.
func (c *checker) slotArg(tool, arg string) bool {
	a, ok := c.man.Hints.Writes[tool].Args[arg]
	return ok && strings.HasPrefix(a.SlotSource(), "slot")
}

// allows are the allow rules' functions, by rule name.
func (c *checker) allows(sb *sandbox) map[string]AllowFunc {
	out := map[string]AllowFunc{}
	fns, _ := c.computeFns()
	for _, r := range c.man.Rules {
		fn, ok := fns[r.Check].(*starlark.Function)
		if r.Kind != RuleAllow || !ok {
			continue
		}
		name := r.Check
		out[r.Name] = func(ctx context.Context, st *tools.State, args, facts map[string]any) (Verdict, error) {
			v, err := sb.call(ctx, "allow rule "+name, name, fn, st, args, facts)
			if err != nil {
				return Verdict{}, err
			}
			return verdictOf(name, v)
		}
	}
	return out
}

// verdictOf reads what an allow rule's function returned.
func verdictOf(name string, v any) (Verdict, error) {
	switch x := v.(type) {
	case nil:
		return Verdict{}, nil
	case string:
		return Verdict{Why: strings.TrimSuffix(strings.TrimSpace(x), ".")}, nil
	case map[string]any:
		if why, ok := x["transfer"].(string); ok && len(x) == 1 && strings.TrimSpace(why) != "" {
			return Verdict{Why: strings.TrimSuffix(strings.TrimSpace(why), "."), Transfer: true}, nil
		}
	}
	return Verdict{}, fmt.Errorf("%s returned %s: want None (allowed), a string naming the condition that refuses the write, or {\"transfer\": WHY}", name, tools.Text(v))
}
