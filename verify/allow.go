package verify

import (
	"context"
	"strconv"
	"strings"

	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// permitter runs a write's allow rules on the state the replay held
// before it, with its arguments, for the facts the customer stated.
type permitter func(facts map[string]string) (*model.AllowModel, pack.Verdict, error)

// permitOn is a permitter for a call of w on a fork of st, nil when no
// allow rule is on w.
func permitOn(ctx context.Context, w *model.WriteModel, st *tools.State, args map[string]any) permitter {
	if w == nil || len(w.Allows) == 0 {
		return nil
	}
	pre := st.Fork()
	return func(facts map[string]string) (*model.AllowModel, pack.Verdict, error) {
		return w.Permit(ctx, pre, args, facts)
	}
}

// allowed: each call of the rule's tool, granted or not, is one the
// rule's function allows on the state before it, for the facts the task gives
// the customer, and came after the customer stated them; and each
// forbidden request of the tool the rule refuses is refused citing the
// condition it names (the goal's output of the rule's name), once the
// customer stated the facts. A goal without the facts (a task made
// elsewhere that records none) is judged with none.
func allowed(r pack.Rule, bp *record.Blueprint, tr *record.Trajectory, calls []call) string {
	k := 0
	for _, c := range calls {
		if c.name != r.Tool || !c.write {
			continue
		}
		// A call the tool rejected was tried all the same: the policy
		// has the agent check before it calls (its goal is the next
		// ground-truth write's, as for disclose).
		gi := nthGoal(bp, r.Tool, k)
		if !c.failed {
			k++
		}
		at := "message " + strconv.Itoa(c.msg) + ": " + c.name
		facts := factsOf(r, bp, gi)
		if f := unstated(r, facts, tr, c.msg); f != "" {
			return at + " was called before the customer stated the " + model.Words(f)
		}
		if c.permit == nil {
			continue
		}
		rule, v, err := c.permit(facts)
		switch {
		case err != nil:
			return at + ": the policy's function gives no answer: " + err.Error()
		case rule != nil && rule.Rule.Name == r.Name && v.Transfer:
			return at + " was called where the policy hands the request to a human: " + v.Why
		case rule != nil && rule.Rule.Name == r.Name:
			return at + " was called though the policy refuses it: " + v.Why
		}
	}
	for gi, g := range bp.Goals {
		if g.Kind != record.GoalRefuse || strings.TrimPrefix(g.Intent, model.IntentRefusePrefix) != r.Tool {
			continue
		}
		for _, o := range bp.Outputs {
			if o.Goal != gi || o.Name != r.Name {
				continue
			}
			i := citing(tr, o.Value)
			if i < 0 {
				return "the forbidden request (goal " + strconv.Itoa(gi) + ") was never refused with the condition the policy names: " + strconv.Quote(o.Value)
			}
			if f := unstated(r, factsOf(r, bp, gi), tr, i); f != "" {
				return "message " + strconv.Itoa(i) + ": the request was refused before the customer stated the " + model.Words(f)
			}
		}
	}
	return ""
}

// factsOf are the facts the rule asks that goal gi gives the customer.
func factsOf(r pack.Rule, bp *record.Blueprint, gi int) map[string]string {
	facts := map[string]string{}
	if gi < 0 || gi >= len(bp.Goals) {
		return facts
	}
	for _, f := range r.Asks {
		if v, ok := bp.Goals[gi].Slots[f.Name]; ok {
			facts[f.Name] = v
		}
	}
	return facts
}

// unstated is a fact the customer had not stated before message i, in
// the words a value is said by ("change of plan" for change_of_plan);
// "" when every one was.
func unstated(r pack.Rule, facts map[string]string, tr *record.Trajectory, i int) string {
	var heard strings.Builder
	for _, m := range tr.Messages[:min(i, len(tr.Messages))] {
		if m.Role == "user" {
			heard.WriteString(strings.ToLower(m.Content))
			heard.WriteByte('\n')
		}
	}
	for _, f := range r.Asks {
		v, ok := facts[f.Name]
		if ok && !strings.Contains(heard.String(), strings.ToLower(model.ValueWords(v))) {
			return f.Name
		}
	}
	return ""
}

// citing is the first agent message that says the condition (case and
// spacing aside), -1 for none.
func citing(tr *record.Trajectory, condition string) int {
	want := strings.ToLower(strings.Join(strings.Fields(condition), " "))
	for i, m := range tr.Messages {
		if m.Role == "assistant" && strings.Contains(strings.ToLower(strings.Join(strings.Fields(m.Content), " ")), want) {
			return i
		}
	}
	return -1
}
