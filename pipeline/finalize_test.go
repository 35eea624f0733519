package pipeline

import (
	"testing"

	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/release"
)

// TestUnusedWrites: a write no released task drew is listed as unused
// with the release's size, beside those the generator cannot use; a
// write used as a plain or parameterised intent, or only refused, is told
// apart.
func TestUnusedWrites(t *testing.T) {
	d, err := domains.Load("retail", 1)
	if err != nil {
		t.Fatal(err)
	}
	s := release.NewStats(d.Tools.Kind)
	s.Rows = 1000
	for _, intent := range []string{"cancel_pending_order", "exchange_delivered_order_items", "modify_pending_order_address",
		"modify_pending_order_items+x", "modify_pending_order_payment", "return_delivered_order_items", "refuse:modify_user_address"} {
		s.Intents[intent] = 3
	}
	got := unusedWrites(map[string]string{"some_write": "its handler fails"}, d, s)
	want := map[string]string{
		"some_write":          "its handler fails",
		"modify_user_address": "no task of this release's 1000 uses it, though the generator can build one: a larger -n may cover it",
	}
	if len(got) != len(want) {
		t.Fatalf("unused %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("unused[%s] = %q, want %q", k, got[k], v)
		}
	}
}
