package model

import (
	"strings"
	"testing"

	"github.com/synth-data/synth/pack"
)

// TestCheckChoices: a failure's alternative recovery names an argument
// the customer chooses among their things; a slot, an argument the tool
// lacks, are a pack error naming the failure and the tool; a tool tasks
// leave out is not checked.
func TestCheckChoices(t *testing.T) {
	w := &WriteModel{Name: "pay", param: map[string]*ParamModel{
		"payment_method_id": {Name: "payment_method_id", Source: SrcChoose, Choose: &ChooseModel{From: "payment_methods"}},
		"reason":            {Name: "reason", Source: SrcSlot},
	}}
	tests := []struct {
		name   string
		f      pack.Failure
		errHas string
	}{
		{"choose argument", pack.Failure{Tools: []string{"pay"}, Recovery: pack.RecoverAlternative, Choice: "payment_method_id"}, ""},
		{"slot", pack.Failure{Tools: []string{"pay"}, Recovery: pack.RecoverAlternative, Choice: "reason"}, `failures[0].choice: "reason" is not an argument of pay`},
		{"no such argument", pack.Failure{Tools: []string{"pay"}, Recovery: pack.RecoverAlternative, Choice: "card"}, `"card" is not an argument of pay`},
		{"tool left out", pack.Failure{Tools: []string{"refund"}, Recovery: pack.RecoverAlternative, Choice: "card"}, ""},
		{"retry", pack.Failure{Tools: []string{"pay"}, Recovery: pack.RecoverRetry}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &Model{Failures: []pack.Failure{tt.f}, writeBy: map[string]*WriteModel{"pay": w}}
			err := m.checkChoices()
			switch {
			case tt.errHas == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.errHas != "" && (err == nil || !strings.Contains(err.Error(), tt.errHas)):
				t.Fatalf("error %v, want one saying %q", err, tt.errHas)
			}
		})
	}
}
