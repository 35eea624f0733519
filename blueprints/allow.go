package blueprints

import (
	"fmt"
	"maps"
	"strings"

	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
)

// targetsFor tells the targets a goal of w may be on: those meeting its
// preconditions and that its allow rules may allow it on; for a
// forbidden request, any target, or with allow rules (which refuse it)
// one in the refusal scope.
func (p *gplan) targetsFor(w *model.WriteModel, refuse bool) func(map[string]any) bool {
	switch {
	case refuse && len(w.Allows) > 0:
		return w.RefusalScope
	case refuse:
		return nil
	case len(w.Allows) > 0:
		return func(obj map[string]any) bool { return w.Allowed(obj) && w.MayPermit(p.ctx, p.st, obj) }
	}
	return w.Allowed
}

// refusedByRules keeps goal as a forbidden request its allow rules
// refuse, or hand to a human.
func (p *gplan) refusedByRules(w *model.WriteModel, t *target, goal record.Goal, args map[string]any, needs []int) error {
	v, err := p.allowGoal(w, &goal, args, true, t.sel.Label)
	if err != nil {
		return err
	}
	if v.Transfer {
		// What the policy reads before it hands the request over (each
		// flight's status, to know one has flown) is in the ground truth,
		// as before a refusal.
		checks, err := p.checks(w, t)
		if err != nil {
			return err
		}
		return p.handOver(t, goal, append(needs, checks...))
	}
	// allowGoal recorded the condition the rule names.
	return p.keepRefusal(w, t, goal, "")
}

// allowedByRules holds a granted goal to its write's allow rules, if it
// has any.
func (p *gplan) allowedByRules(w *model.WriteModel, goal *record.Goal, args map[string]any, label string) error {
	if len(w.Allows) == 0 {
		return nil
	}
	_, err := p.allowGoal(w, goal, args, false, label)
	return err
}

// allowGoal holds a write goal to its allow rules (pack.RuleAllow): the
// rules run on the plan's state with the write's arguments and the
// facts the customer will state, drawn into the goal's slots. A granted
// write needs facts the rules allow it with, a forbidden request facts
// they refuse it with or hand it to a human with (only in a task with
// no write after it: a transfer ends the conversation); the sets of
// facts are tried from a random one on, so a target (an insured
// reservation) gets the facts its kind of task needs (health or
// weather to be granted, another reason to be refused), and one none
// serve is no task. A refusal records the condition the rule names as
// the goal's output, which the agent must cite.
func (p *gplan) allowGoal(w *model.WriteModel, goal *record.Goal, args map[string]any, refuse bool, label string) (pack.Verdict, error) {
	n := w.FactSets()
	start := p.rng.IntN(n)
	var last error
	for k := range n {
		facts := w.FactSet((start + k) % n)
		for name, val := range facts {
			// A fact the tool takes (a retail cancellation's reason) is
			// one value: what the customer states is what the call passes.
			if pm := w.Param(name); pm != nil && pm.Source == model.SrcSlot {
				if _, ok := args[name]; ok {
					args[name] = model.Typed(pm.Schema, val)
				}
			}
		}
		rule, v, err := w.Permit(p.ctx, p.st, args, facts)
		switch {
		case err != nil:
			return v, err
		case refuse && rule == nil:
			last = fmt.Errorf("the policy allows %s on %s", w.Name, label)
			continue
		case !refuse && rule != nil:
			last = fmt.Errorf("rule %s does not allow %s on %s: %s", rule.Rule.Name, w.Name, label, v.Why)
			continue
		case v.Transfer && (!p.handover || p.m.Transfer == nil):
			last = fmt.Errorf("rule %s hands %s on %s to a human, and the task goes on after it", rule.Rule.Name, w.Name, label)
			continue
		case refuse && !v.Transfer:
			p.outputs = append(p.outputs, record.Output{Goal: len(p.goals), Name: rule.Rule.Name, Value: v.Why})
		}
		maps.Copy(goal.Slots, facts)
		return v, nil
	}
	return pack.Verdict{}, last
}

// handOver keeps goal as a request the policy hands to a human: the
// ground truth transfers the customer, with the summary the agent gives
// of the request it cannot serve.
func (p *gplan) handOver(t *target, goal record.Goal, needs []int) error {
	gi := len(p.goals)
	p.call(gi, p.m.Transfer.Name, map[string]any{p.m.TransferParam: p.handoverSummary(strings.ReplaceAll(goal.Intent, "_", " "))}, needs)
	goal.Kind = record.GoalTransfer
	goal.Revised, goal.RevisedItems = nil, nil
	if t.key != "" {
		p.used[p.usedKey(t.sel.Collection, t.key)] = true
	}
	p.goals = append(p.goals, goal)
	return nil
}
