package release

import (
	"reflect"
	"testing"

	"github.com/synth-data/synth/credit"
)

// TestCreditStatsMerge: stats summed chunk by chunk and merged equal the
// stats of all the labels at once, whatever the split.
func TestCreditStatsMerge(t *testing.T) {
	labels := []struct {
		l      credit.Labels
		engine string
	}{
		{credit.Labels{ChainLength: 3, Progress: 3, Turns: []credit.Turn{{Class: "read", Gold: "read"}, {Class: "ask", Gold: "read"}}}, "embedded"},
		{credit.Labels{ChainLength: 2, Progress: 1, Turns: []credit.Turn{{Class: "write", Gold: "confirm"}}}, "llm"},
		{credit.Labels{ChainLength: 0, Progress: 0}, "llm"},
		{credit.Labels{ChainLength: 3, Progress: 3, Turns: []credit.Turn{{Class: "inform", Gold: "inform"}}}, "llm"},
	}
	all := NewCreditStats()
	for _, x := range labels {
		all.Add(x.l, x.engine)
	}
	want := &CreditStats{Rows: 4, ChainLength: map[string]int{"0": 1, "2": 1, "3": 2}, ChainSteps: 8, CoveredSteps: 7, Coverage: 0.875, FullyCovered: 3,
		Classes: map[string]int{"read": 1, "ask": 1, "write": 1, "inform": 1},
		Gold:    map[string]*GoldRecall{"embedded": {Matched: 1, Turns: 2, Recall: 0.5}, "llm": {Matched: 1, Turns: 2, Recall: 0.5}}}
	if !reflect.DeepEqual(all, want) {
		t.Fatalf("stats %+v, want %+v", all, want)
	}
	for cut := range labels {
		a, b := NewCreditStats(), NewCreditStats()
		for i, x := range labels {
			if i < cut {
				a.Add(x.l, x.engine)
			} else {
				b.Add(x.l, x.engine)
			}
		}
		a.Merge(b)
		if !reflect.DeepEqual(a, all) {
			t.Errorf("split at %d: merged %+v, all at once %+v", cut, a, all)
		}
	}
}
