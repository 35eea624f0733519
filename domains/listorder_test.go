package domains_test

import (
	"slices"
	"testing"

	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// listEnds counts, over the users whose list of a collection shows three
// records or more, how often the record a customer would name by an
// extreme ("my most recent order", "the one with the most bags") sits at
// an end of that list.
type listEnds struct {
	users  int
	sorted int            // lists in ascending or descending order of the attribute
	at     map[string]int // "max last", "min first", ... -> users
	chance float64        // expected share of one "X at end" by chance: mean 1/len
}

func measureListEnds(t *testing.T, d *domain.Domain, coll, attr string) listEnds {
	t.Helper()
	m := d.Model
	c := m.Colls[coll]
	e := listEnds{at: map[string]int{}}
	for _, u := range m.UserKeys() {
		keys := m.Listed(coll, u)
		if len(keys) < 3 {
			continue
		}
		recs := make([]map[string]any, len(keys))
		for i, k := range keys {
			v, _ := d.Base.Get(coll, k)
			obj, err := tools.ToObject(v)
			if err != nil {
				t.Fatalf("%s %s: %v", coll, k, err)
			}
			recs[i] = obj
		}
		hi, herr := tools.ResolveKey(record.Selector{Collection: coll, Pick: "max:" + attr}, recs, c.Key)
		lo, lerr := tools.ResolveKey(record.Selector{Collection: coll, Pick: "min:" + attr}, recs, c.Key)
		if herr != nil || lerr != nil {
			continue // a tie: no customer names a record this way
		}
		e.users++
		e.chance += 1 / float64(len(keys))
		last := len(keys) - 1
		for name, hit := range map[string]bool{"max last": hi == last, "max first": hi == 0, "min first": lo == 0, "min last": lo == last} {
			if hit {
				e.at[name]++
			}
		}
		asc := slices.IsSortedFunc(recs, func(a, b map[string]any) int { return compareAttr(a, b, attr) })
		desc := slices.IsSortedFunc(recs, func(a, b map[string]any) int { return compareAttr(b, a, attr) })
		if asc || desc {
			e.sorted++
		}
	}
	if e.users > 0 {
		e.chance /= float64(e.users)
	}
	return e
}

// compareAttr orders two records by an attribute as a pick does.
func compareAttr(a, b map[string]any, attr string) int {
	i, err := tools.ResolveKey(record.Selector{Pick: "max:" + attr}, []map[string]any{a, b}, "")
	switch {
	case err != nil:
		return 0
	case i == 0:
		return 1
	}
	return -1
}

// TestListOrderHidesExtremes checks that the built-in databases list a
// user's records in an order that does not give away the one a customer
// names by position or extreme: were they listed as made, "my most recent
// order" would always be the last id and a model trained on the dialogues
// could skip the comparison. Each end holds the extreme about as often as
// chance (1/len) would put it there, and few lists are sorted.
func TestListOrderHidesExtremes(t *testing.T) {
	cases := []struct {
		domain, coll string
		attrs        []string
	}{
		{"retail", "orders", []string{"created_at", "sum:items.price"}},
		{"airline", "reservations", []string{"created_at", "total_baggages"}},
	}
	for _, tc := range cases {
		t.Run(tc.domain, func(t *testing.T) {
			d := load(t, tc.domain)
			for _, attr := range tc.attrs {
				e := measureListEnds(t, d, tc.coll, attr)
				if e.users < 50 {
					t.Fatalf("%s by %s: only %d users with 3+ records to measure", tc.coll, attr, e.users)
				}
				for _, end := range []string{"max last", "max first", "min first", "min last"} {
					share := float64(e.at[end]) / float64(e.users)
					if share > 2*e.chance {
						t.Errorf("%s by %s: %s for %.0f%% of %d users, chance is %.0f%%", tc.coll, attr, end, 100*share, e.users, 100*e.chance)
					}
				}
				t.Logf("%s by %s over %d users: max last %d, min first %d, sorted %d (chance of one end %.0f%%)", tc.coll, attr, e.users, e.at["max last"], e.at["min first"], e.sorted, 100*e.chance)
				if share := float64(e.sorted) / float64(e.users); share > 0.25 {
					t.Errorf("%s: %.0f%% of %d users' lists are sorted by %s", tc.coll, 100*share, e.users, attr)
				}
			}
		})
	}
}

// TestListOrderDeterministic checks that the order a list is shuffled
// into is the seed's: the same seed lists every user's records alike.
func TestListOrderDeterministic(t *testing.T) {
	for _, tc := range []struct{ domain, coll string }{{"retail", "orders"}, {"airline", "reservations"}} {
		t.Run(tc.domain, func(t *testing.T) {
			a := load(t, tc.domain)
			b, err := domains.Load(tc.domain, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range a.Model.UserKeys() {
				if x, y := a.Model.Listed(tc.coll, u), b.Model.Listed(tc.coll, u); !slices.Equal(x, y) {
					t.Fatalf("user %s: %v, then %v with the same seed", u, x, y)
				}
			}
		})
	}
}
