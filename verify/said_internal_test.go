package verify

import (
	"strings"
	"testing"
)

// TestWriteLowerIsToLower: what a dialogue said is compared lower-cased
// as strings.ToLower has it, byte for byte.
func TestWriteLowerIsToLower(t *testing.T) {
	for _, s := range []string{"", "abc", "ABC", "Order #W2378156 for Yusuf ROSSI", "{\"ID\":\"AZ19\"}\n", "Zürich ÉTÉ", "İstanbul", "\xffBAD", "A", "aZ", "ZZ"} {
		var b strings.Builder
		b.WriteString("x")
		writeLower(&b, s)
		if got, want := b.String(), "x"+strings.ToLower(s); got != want {
			t.Errorf("writeLower(%q) = %q, want %q", s, got[1:], want[1:])
		}
	}
}
