package release

import (
	"slices"
	"testing"

	"github.com/synth-data/synth/record"
)

// Each situation is read from the goals that make it, and only from them.
func TestSituations(t *testing.T) {
	write := record.Goal{Intent: "w", Kind: record.GoalWrite}
	cases := []struct {
		name  string
		goals []record.Goal
		want  []string
	}{
		{"plain write", []record.Goal{write}, nil},
		{"refusal with a plan B", []record.Goal{{Kind: record.GoalRefuse}, {Kind: record.GoalWrite, Instead: true}}, []string{"refusal", "conditional", "several_requests"}},
		{"change of mind", []record.Goal{{Kind: record.GoalWrite, RevisedItems: []record.Selector{{Collection: "p"}}}}, []string{"change_of_mind"}},
		{"tool error", []record.Goal{{Kind: record.GoalWrite, FailingItems: []record.Selector{{Collection: "payment_method_id", Label: "my gift card"}}}}, []string{"tool_error"}},
		{"a pack's label, granted and refused", []record.Goal{{Kind: record.GoalRefuse, Situation: "compensation"}, {Kind: record.GoalWrite, Situation: "compensation"}}, []string{"refusal", "several_requests", "compensation"}},
		{"question and transfer", []record.Goal{{Kind: record.GoalInform}, {Kind: record.GoalTransfer}}, []string{"transfer", "question", "several_requests"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Situations(&record.Blueprint{Goals: c.goals}); !slices.Equal(got, c.want) {
				t.Errorf("Situations = %q, want %q", got, c.want)
			}
		})
	}
}
