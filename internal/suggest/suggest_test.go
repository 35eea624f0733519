package suggest

import "testing"

func TestClosest(t *testing.T) {
	known := []string{"writes", "reads", "seed", "n", "out", "stats", "show"}
	for _, tc := range []struct{ w, want string }{
		{"wirtes", "writes"}, // a transposition is two edits
		{"redas", "reads"},
		{"sede", "seed"},
		{"stat", "stats"},
		{"shwo", "show"},
		{"x", ""},   // one letter: never corrected into another
		{"nn", "n"}, // one edit of two letters
		{"dpo", ""}, // three edits from everything
		{"writes", "writes"},
	} {
		if got := Closest(tc.w, known); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.w, got, tc.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"noun", "nuon", 2}} {
		if got := Distance(tc.a, tc.b); got != tc.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}
