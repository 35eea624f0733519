package blueprints

import (
	"context"
	"regexp"
	"slices"
	"testing"
)

// idInLabel is an id a retail customer was never told: a payment
// method's ("the gift card gift_card_4775542") or a product's
// ("the cheapest available pink product 8749449270").
var idInLabel = regexp.MustCompile(`\b(gift_card|credit_card|paypal)_\d+|\bproduct \d{6,}`)

// TestCustomerNamesNoID: a retail customer names its payment method by
// kind and what it sees of it, and a product by its name, never by an
// id; an order number, which it was told, it may give.
func TestCustomerNamesNoID(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	m := models(t)["retail"]
	g, err := NewGeneric(m, Spec{Seed: 77, Writes: Range{Min: 0, Max: 5}, WriteWeights: []float64{10, 60, 23, 15, 5, 1}, Reads: Range{Min: 2, Max: 7}, Behaviors: allProfiles})
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i := range 300 {
		bp, err := g.Generate(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		for _, gl := range bp.Goals {
			labels := []string{gl.Target.Label}
			for _, s := range slices.Concat(gl.Items, gl.New, gl.RevisedItems, gl.FailingItems, gl.UnavailableNew) {
				labels = append(labels, s.Label)
			}
			for _, l := range labels {
				if idInLabel.MatchString(l) {
					bad++
					if bad <= 5 {
						t.Errorf("blueprint %d: the customer says %q", i, l)
					}
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d labels hold an id the customer was never told", bad)
	}
}
