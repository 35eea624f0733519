package agent

import "testing"

// TestSoleNumber: a record's balance is its only number; a record with
// none or several has no balance to compare.
func TestSoleNumber(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    map[string]any
		want string
	}{
		{"a gift card", map[string]any{"id": "gift_card_1", "source": "gift_card", "balance": 54.5}, "balance"},
		{"a certificate", map[string]any{"id": "certificate_1", "source": "certificate", "amount": int64(100)}, "amount"},
		{"a card", map[string]any{"id": "credit_card_1", "source": "credit_card", "last_four": "1234"}, ""},
		{"two numbers", map[string]any{"id": "x", "balance": 1.0, "limit": 2.0}, ""},
	} {
		if got, _ := soleNumber(tc.e); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
