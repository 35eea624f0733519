package model

import (
	"strings"
	"testing"

	"github.com/synth-data/synth/internal/keywords"
)

// TestCompileAsks: a pack's ways of asking for a piece compile in the
// core's order of kinds, and a kind the core does not know or a pattern
// that does not compile is an error that names where it is.
func TestCompileAsks(t *testing.T) {
	m := &Model{}
	if err := m.compileAsks(map[string][]string{"target": {"which order"}, "reason": {`\breason\b`}}); err != nil {
		t.Fatal(err)
	}
	asks := m.Asks
	if len(asks) != 2 || asks[0].Kind != "reason" || asks[1].Kind != "target" || !asks[1].Set.Match(keywords.Fold("Which ORDER is it?")) {
		t.Errorf("compiled %+v", asks)
	}
	for _, tc := range []struct {
		asks map[string][]string
		want string
	}{
		{map[string][]string{"colour": {"which colour"}}, "hints.asks.colour: no such kind of piece"},
		{map[string][]string{"items": {"which (item"}}, "hints.asks.items: error parsing regexp"},
	} {
		if err := (&Model{}).compileAsks(tc.asks); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("compileAsks(%v) = %v, want %q", tc.asks, err, tc.want)
		}
	}
}
