package blueprints

import (
	"fmt"
	"strings"

	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
)

// allowGoal holds a write goal to its allow rules (pack.RuleAllow): the
// facts the customer will state are drawn into its slots, and the rules
// run on the plan's state with the write's arguments. A granted write
// the policy does not allow is no task; a forbidden request (refuse) it
// allows is none either, nor one it hands to a human in a task with
// writes after it (a transfer ends the conversation). A refusal records
// the condition the rule names as the goal's output, which the agent
// must cite.
func (p *gplan) allowGoal(w *model.WriteModel, goal *record.Goal, args map[string]any, refuse bool, label string) (pack.Verdict, error) {
	facts := map[string]string{}
	for _, f := range w.Facts() {
		v := f.Choices[p.rng.IntN(len(f.Choices))]
		goal.Slots[f.Name] = v
		facts[f.Name] = v
	}
	rule, v, err := w.Permit(p.ctx, p.st, args, facts)
	switch {
	case err != nil:
		return v, err
	case refuse && rule == nil:
		return v, fmt.Errorf("the policy allows %s on %s", w.Name, label)
	case !refuse && rule != nil:
		return v, fmt.Errorf("rule %s does not allow %s on %s: %s", rule.Rule.Name, w.Name, label, v.Why)
	case !refuse:
		return v, nil
	case v.Transfer && (!p.handover || p.m.Transfer == nil):
		return v, fmt.Errorf("rule %s hands %s on %s to a human, and the task goes on after it", rule.Rule.Name, w.Name, label)
	case !v.Transfer:
		p.outputs = append(p.outputs, record.Output{Goal: len(p.goals), Name: rule.Rule.Name, Value: v.Why})
	}
	return v, nil
}

// handOver keeps goal as a request the policy hands to a human: the
// ground truth transfers the customer, with the summary the agent gives
// of the request it cannot serve.
func (p *gplan) handOver(t *target, goal record.Goal, needs []int) error {
	gi := len(p.goals)
	who := "The customer"
	if p.user != "" {
		who = "Customer " + p.user
	}
	what := strings.ReplaceAll(goal.Intent, "_", " ")
	p.call(gi, p.m.Transfer.Name, map[string]any{p.m.TransferParam: who + " wants to " + what + "; this is outside what I can handle."}, needs)
	goal.Kind = record.GoalTransfer
	goal.Revised, goal.RevisedItems = nil, nil
	if t.key != "" {
		p.used[p.usedKey(t.sel.Collection, t.key)] = true
	}
	p.goals = append(p.goals, goal)
	return nil
}
