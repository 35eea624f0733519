package agent

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/tools"
)

// TestSayOrder: a proposal names arguments in the order the tool's
// schema lists them (bags, then the paid ones, then insurance), not by
// name, and the unlisted ones after.
func TestSayOrder(t *testing.T) {
	w := &model.WriteModel{
		Tool: &tools.Tool{Parameters: map[string]any{"required": []any{"total_baggages", "nonfree_baggages", "insurance"}}},
		Params: []*model.ParamModel{
			{Name: "insurance"}, {Name: "nonfree_baggages"}, {Name: "note"}, {Name: "total_baggages"},
		},
	}
	var got []string
	for _, p := range sayOrder(w) {
		got = append(got, p.Name)
	}
	if want := "total_baggages nonfree_baggages insurance note"; strings.Join(got, " ") != want {
		t.Errorf("sayOrder = %v, want %s", got, want)
	}
}

// TestFoundDetailAfterColon: a record introduced with a colon goes on
// in the same sentence ("reservation S88A77: it's a reservation from
// LGA"), never ": It's".
func TestFoundDetailAfterColon(t *testing.T) {
	c := &model.CollModel{Name: "reservations", Noun: "reservation"}
	colons := 0
	for seed := range uint64(40) {
		a := &Generic{m: &model.Model{}, rng: rand.New(rand.NewPCG(seed, 1)), told: map[string]bool{}}
		text := a.sayFound("your reservation", c, "S88A77", func() string { return "It's a reservation from LGA." })
		if strings.Contains(text, ": It") {
			t.Fatalf("seed %d: %q capitalises after its colon", seed, text)
		}
		if strings.Contains(text, ": it's a reservation from LGA.") {
			colons++
		}
	}
	if colons == 0 {
		t.Error("no seed introduced the record with a colon; the test checks nothing")
	}
}

// TestWhether: a two-valued slot worded as a thing and its absence is
// asked as a yes/no on the thing; any other pair is offered as it is.
func TestWhether(t *testing.T) {
	for _, tc := range []struct {
		said []string
		want string
		ok   bool
	}{
		{[]string{"travel insurance", "no travel insurance"}, "travel insurance", true},
		{[]string{"no travel insurance", "travel insurance"}, "travel insurance", true},
		{[]string{"gift wrap", "without gift wrap"}, "gift wrap", true},
		{[]string{"economy", "business"}, "", false},
		{[]string{"travel insurance", "no travel insurance", "maybe"}, "", false},
	} {
		got, ok := whether(tc.said)
		if got != tc.want || ok != tc.ok {
			t.Errorf("whether(%q) = %q, %v; want %q, %v", tc.said, got, ok, tc.want, tc.ok)
		}
	}
}
