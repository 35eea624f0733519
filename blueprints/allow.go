package blueprints

import (
	"fmt"

	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/record"
)

// allowGoal holds a write goal to its allow rules (pack.RuleAllow): the
// facts the customer will state are drawn into its slots, and the rules
// run on the plan's state with the write's arguments. A granted write
// the policy refuses is no task; a forbidden request (refuse) it allows
// is none either. A refusal records the condition the rule names as the
// goal's output, which the agent must cite.
func (p *gplan) allowGoal(w *model.WriteModel, goal *record.Goal, args map[string]any, refuse bool, label string) error {
	facts := map[string]string{}
	for _, f := range w.Facts() {
		v := f.Choices[p.rng.IntN(len(f.Choices))]
		goal.Slots[f.Name] = v
		facts[f.Name] = v
	}
	rule, why, err := w.Permit(p.ctx, p.st, args, facts)
	switch {
	case err != nil:
		return err
	case refuse && rule == nil:
		return fmt.Errorf("the policy allows %s on %s", w.Name, label)
	case !refuse && rule != nil:
		return fmt.Errorf("rule %s refuses %s on %s: %s", rule.Rule.Name, w.Name, label, why)
	case refuse:
		p.outputs = append(p.outputs, record.Output{Goal: len(p.goals), Name: rule.Rule.Name, Value: why})
	}
	return nil
}
