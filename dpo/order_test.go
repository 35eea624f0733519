package dpo

import (
	"slices"
	"testing"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/record"
)

// TestOrder: a blueprint is tried only on flaws it gives a chance to
// fire, and the flaws any task can show come last, so they do not take
// the share of every task whose allocated flaw does not fit.
func TestOrder(t *testing.T) {
	p, err := NewPlan(3, agent.Flaws(), nil, PairModes()[0], "", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		goals []string
		never []string
	}{
		{"an answer", []string{record.GoalInform}, []string{agent.FlawWrongArgument, agent.FlawNoConfirmation, agent.FlawUndisclosed, agent.FlawSilentRefusal}},
		{"a refusal", []string{record.GoalRefuse}, []string{agent.FlawNoOpWrite, agent.FlawMiscomputed}},
		{"a write", []string{record.GoalWrite}, []string{agent.FlawSilentRefusal}},
	} {
		for i := range 40 {
			bp := &record.Blueprint{Index: i, Seed: 3, Domain: "d"}
			for _, k := range tc.goals {
				bp.Goals = append(bp.Goals, record.Goal{Kind: k})
			}
			order := p.Order(bp)
			for _, k := range tc.never {
				if slices.Contains(order, k) {
					t.Errorf("%s, blueprint %d: %s tried (%v)", tc.name, i, k, order)
				}
			}
			if !slices.Contains(order, agent.FlawUnnecessaryTransfer) {
				t.Errorf("%s, blueprint %d: no %s in %v", tc.name, i, agent.FlawUnnecessaryTransfer, order)
			}
			// Past the allocated one, the flaws any task shows are last.
			tail := order[1:]
			if j := slices.Index(tail, agent.FlawUnnecessaryTransfer); j >= 0 && j < len(tail)-2 {
				t.Errorf("%s, blueprint %d: %s tried before others: %v", tc.name, i, agent.FlawUnnecessaryTransfer, order)
			}
		}
	}
}
