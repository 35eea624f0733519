package agent

import "testing"

// TestYours: the customer's "my" becomes the agent's "your" as a whole
// word only; a word holding the letters keeps them ("econoyour" once
// came from "economy").
func TestYours(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"my reservation in economy", "your reservation in economy"},
		{"My oldest order", "Your oldest order"},
		{"the order I placed last", "the order you placed last"},
		{"the laptop I have", "the laptop you have"},
		{"the economy flight to Miami", "the economy flight to Miami"},
		{"anatomy", "anatomy"},
	} {
		if got := yours(tc.in); got != tc.want {
			t.Errorf("yours(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
