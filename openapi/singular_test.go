package openapi

import "testing"

func TestSingular(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"emojis", "emoji"}, {"kiwis", "kiwi"}, {"basis", "basis"}, {"axis", "axis"}, {"analysis", "analysis"},
		{"categories", "category"}, {"addresses", "address"}, {"status", "status"}, {"boxes", "box"}, {"pets", "pet"},
	} {
		if got := singular(tc.in); got != tc.want {
			t.Errorf("singular(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
