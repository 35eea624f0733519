package model

import "testing"

// TestMisspell: the confused customer's slip is one a person makes: a
// digit changed, else two letters near the middle swapped, the first
// letter and its case kept.
func TestMisspell(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"mia_li_3668", "mia_li_3661"},
		{"kylar.x@example.com", "kylar.x@eaxmple.com"},
		{"Skylar", "Skyalr"},
		{"Anna", "Anan"},
		{"Lee", "Leex"},
		{"Zoë", "Zëo"},
	} {
		if got := Misspell(tt.in); got != tt.want {
			t.Errorf("Misspell(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
