package agent

import (
	"slices"
	"testing"
)

// The hallucinated key reaches past the last digit: in a collection whose
// keys fill T00180 to T00189, a slip of the last digit names a record.
func TestMisspellings(t *testing.T) {
	for _, c := range []struct {
		key  string
		want []string // among the candidates
	}{
		{"T00186", []string{"T00189", "T00116", "T03186"}},
		{"42", []string{"45", "72"}},
		{"abc", []string{"acb"}},
	} {
		got := misspellings(c.key)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("misspellings(%q) = %v, want %q among them", c.key, got, w)
			}
		}
		if slices.Contains(got, c.key) {
			t.Errorf("misspellings(%q) holds the key itself: %v", c.key, got)
		}
	}
}
