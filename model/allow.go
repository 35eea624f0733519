package model

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/tools"
)

// AllowModel is an allow rule of a write (pack.RuleAllow): the policy's
// function that allows or refuses it, and the facts the customer states
// for it.
type AllowModel struct {
	Rule  pack.Rule
	Check pack.AllowFunc
	// Facts are asked as slots are: no tool takes them, or one is a
	// slot argument with the values a customer may state.
	Facts []*ParamModel
	// onBase keeps the rule's answers on the base's records, by the JSON
	// of the arguments and facts, with what each answer read: generator,
	// agent and verifier ask it of the same targets in task after task,
	// and each answer runs the pack's Starlark. An answer serves any
	// state that holds what it read as the base does. Arguments the
	// customer states (an address, items) make new keys task after task,
	// so it keeps at most mostAnswers of those: unbounded, it held a
	// hundred megabytes of a 20,000-row retail run. The answers on a
	// record's own arguments (MayPermit's) are as many as the base's
	// records times the fact sets, whatever -n, and are kept apart up to
	// mostOwnAnswers: bounded with the others, the memo was full before
	// the first task (the generator's index asks them of every record)
	// and a third of its misses were those.
	onBase  *sync.Map
	kept    atomic.Int64
	keptOwn atomic.Int64
}

// mostAnswers bounds an allow rule's memo of answers on arguments a
// customer states; mostOwnAnswers of those on a record's own (21,479
// over all of retail's rules).
const (
	mostAnswers    = 1 << 11
	mostOwnAnswers = 1 << 16
)

// permitted is one answer of an allow rule, and what it read.
type permitted struct {
	v     pack.Verdict
	err   error
	trace *tools.Trace
}

// check runs the rule on st, from its memo when st holds what the kept
// answer read as the base does. own says the arguments are a base
// record's own (MayPermit's), whose answers the memo keeps apart.
func (a *AllowModel) check(ctx context.Context, st *tools.State, args, facts map[string]any, own bool) (pack.Verdict, error) {
	rawArgs, err := tools.Marshal(args)
	if err != nil {
		return pack.Verdict{}, err
	}
	rawFacts, err := tools.Marshal(facts)
	if err != nil {
		return pack.Verdict{}, err
	}
	key := string(rawArgs) + "\x00" + string(rawFacts)
	if e, ok := a.onBase.Load(key); ok {
		if p := e.(permitted); st.Holds(p.trace) {
			return p.v, p.err
		}
	}
	f := st.Fork()
	var v pack.Verdict
	tr := f.Traced(func() { v, err = a.Check(ctx, f, args, facts) })
	if ctx.Err() == nil && tr.Reusable() && st.Holds(tr) && a.keep(own) {
		a.onBase.Store(key, permitted{v, err, tr})
	}
	return v, err
}

// keep counts one more answer kept, of a record's own arguments or
// not, and reports whether the memo has room for it.
func (a *AllowModel) keep(own bool) bool {
	if own {
		return a.keptOwn.Add(1) <= mostOwnAnswers
	}
	return a.kept.Add(1) <= mostAnswers
}

// compileAllows gives each write its allow rules. A rule about a write
// the pack leaves out has nothing to hold.
func (m *Model) compileAllows(fns map[string]pack.AllowFunc) error {
	for _, r := range m.RulesFor(pack.RuleAllow, "") {
		w := m.writeBy[r.Tool]
		if w == nil {
			continue
		}
		fn := fns[r.Name]
		if fn == nil {
			return fmt.Errorf("domain.yaml: rule %s: no function %s in the policy code", r.Name, r.Check)
		}
		am := &AllowModel{Rule: r, Check: fn, onBase: new(sync.Map)}
		for _, f := range r.Asks {
			p := w.param[f.Name]
			if p != nil && p.Source == SrcSlot && slices.Contains(w.Params, p) {
				// A slot argument asked as a fact (a retail
				// cancellation's reason): the customer may state any of
				// the fact's values, those the rule refuses too, while
				// the argument's own choices stay what a granted write
				// passes (the agent offers those).
				fact := *p
				fact.Choices = f.Values()
				p = &fact
			}
			if p == nil {
				vals := f.Values()
				enum := make([]any, len(vals))
				for i, v := range vals {
					enum[i] = v
				}
				p = &ParamModel{Name: f.Name, Source: SrcSlot, Required: true, Choices: vals, Schema: map[string]any{"type": "string", "enum": enum}}
				w.param[f.Name] = p
			}
			am.Facts = append(am.Facts, p)
		}
		w.Allows = append(w.Allows, am)
	}
	return nil
}

// Facts are the facts the write's allow rules have the agent ask, each
// once, in the rules' order.
func (w *WriteModel) Facts() []*ParamModel {
	var out []*ParamModel
	for _, a := range w.Allows {
		for _, f := range a.Facts {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// Permit runs the write's allow rules on st, the state the write would
// run on: the first rule that does not allow it and its verdict, nil
// when every rule allows it.
func (w *WriteModel) Permit(ctx context.Context, st *tools.State, args map[string]any, facts map[string]string) (*AllowModel, pack.Verdict, error) {
	in := make(map[string]any, len(facts))
	for k, v := range facts {
		in[k] = v
	}
	for _, a := range w.Allows {
		v, err := a.check(ctx, st, args, in, false)
		if err != nil {
			return nil, pack.Verdict{}, fmt.Errorf("rule %s: %w", a.Rule.Name, err)
		}
		if !v.Allowed() {
			return a, v, nil
		}
	}
	return nil, pack.Verdict{}, nil
}

// RefusalScope tells whether a forbidden request of a write with allow
// rules may be on a target: one meeting Refuse where the pack gives it
// (a cabin change on any reservation not cancelled, flown or not), else
// one meeting the preconditions. The allow rules then decide.
func (w *WriteModel) RefusalScope(obj map[string]any) bool {
	if len(w.Refuse) > 0 {
		return len(unmet(w.Refuse, obj)) == 0
	}
	return w.Allowed(obj)
}

// mostFactSets bounds the sets of facts tried on one write.
const mostFactSets = 16

// FactSets is how many sets of the facts' values FactSet counts: all
// of them, up to mostFactSets.
func (w *WriteModel) FactSets() int {
	n := 1
	for _, f := range w.Facts() {
		n = min(n*len(f.Choices), mostFactSets)
	}
	return n
}

// FactSet is the k-th set of the facts' values, counting in mixed radix
// over each fact's values.
func (w *WriteModel) FactSet(k int) map[string]string {
	out := map[string]string{}
	for _, f := range w.Facts() {
		out[f.Name] = f.Choices[k%len(f.Choices)]
		k /= len(f.Choices)
	}
	return out
}

// MayPermit tells whether the write's allow rules may allow it on the
// target obj, on st: for some set of facts, no rule refuses it given
// the arguments the target alone gives (its key and the fields it
// copies). A rule that needs another argument fails without it and
// refuses nothing here: the write built on the target is held to every
// rule (Permit). Goals are drawn on targets it keeps, so an order the
// policy refuses every write of is never tried for one.
func (w *WriteModel) MayPermit(ctx context.Context, st *tools.State, obj map[string]any) bool {
	if len(w.Allows) == 0 {
		return true
	}
	args := w.targetArgs(obj)
	for k := range w.FactSets() {
		facts := w.factsAt(k)
		if !slices.ContainsFunc(w.Allows, func(a *AllowModel) bool {
			v, err := a.check(ctx, st, args, facts, true)
			return err == nil && !v.Allowed()
		}) {
			return true
		}
	}
	return false
}

// factsAt is FactSet(k) as the rules take it.
func (w *WriteModel) factsAt(k int) map[string]any {
	facts := map[string]any{}
	for name, v := range w.FactSet(k) {
		facts[name] = v
	}
	return facts
}

// targetArgs are the arguments the target obj alone gives: its key and
// the fields the write copies from it.
func (w *WriteModel) targetArgs(obj map[string]any) map[string]any {
	args := map[string]any{}
	for _, p := range w.Params {
		switch p.Source {
		case SrcTargetKey:
			args[p.Name] = Typed(p.Schema, tools.Text(obj[w.Coll.Key]))
		case SrcTarget:
			if v, ok := p.TargetValue(obj); ok {
				args[p.Name] = v
			}
		}
	}
	return args
}

// RefusedOnTarget tells whether the allow rules refuse the write on the
// target obj whatever the customer would say: for every set of facts
// the same rule is the first to refuse it, with the same condition,
// given the arguments the target alone gives. A careful agent refuses
// such a request as soon as it has read the record, before it asks for
// anything else, and the generator's ground truth does the same (a
// cancelled order is refused before its reason is asked; an order
// delivered before the items to change are named or looked up). A rule
// that needs another argument fails without it and decides nothing
// here; a hand-over to a human is not refused.
func (w *WriteModel) RefusedOnTarget(ctx context.Context, st *tools.State, obj map[string]any) (*AllowModel, pack.Verdict, bool) {
	if len(w.Allows) == 0 || w.TargetKind != TargetColl {
		return nil, pack.Verdict{}, false
	}
	args := w.targetArgs(obj)
	var rule *AllowModel
	var verdict pack.Verdict
	for k := range w.FactSets() {
		facts := w.factsAt(k)
		var r *AllowModel
		var v pack.Verdict
		for _, a := range w.Allows {
			got, err := a.check(ctx, st, args, facts, true)
			if err == nil && !got.Allowed() {
				r, v = a, got
				break
			}
		}
		switch {
		case r == nil || v.Transfer:
			return nil, pack.Verdict{}, false
		case rule == nil:
			rule, verdict = r, v
		case r != rule || v.Why != verdict.Why:
			return nil, pack.Verdict{}, false
		}
	}
	return rule, verdict, rule != nil
}
