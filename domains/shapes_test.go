package domains_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/usersim"
)

// TestRetailItemsWithOtherWrites generates 300 retail tasks of several
// writes and counts the task shapes (the set of write tools) that change
// an order's items with another write, which τ²'s retail tasks have: the
// address and then the items of one order, the items with a cancellation
// of another order or with a change of the default address. A generator
// that acts on each order once, or holds a later write that must read
// an item's product to the reads of a first that needs none, never
// draws some of them.
func TestRetailItemsWithOtherWrites(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	const items = "modify_pending_order_items"
	cases := []struct {
		name   string
		writes blueprints.Range
		// weights of --reads 2-7: all on 2 makes a first write that
		// needs no more than the customer's and the order's reads.
		weights []float64
		shapes  map[string]int // shape → the fewest tasks of it
		// sameOrder is the fewest tasks that change one order's address
		// and then its items.
		sameOrder int
	}{
		{"2-4 writes", blueprints.Range{Min: 2, Max: 4}, nil, map[string]int{
			// τ²'s 1 in 114; a moved customer's default address (which
			// may follow the order's) takes some of these tasks.
			"cancel_pending_order+modify_pending_order_address+modify_pending_order_items":         1,
			"modify_pending_order_address+modify_pending_order_items":                              10,
			"modify_pending_order_address+modify_pending_order_items+return_delivered_order_items": 5,
			"modify_pending_order_address+modify_pending_order_items+modify_user_address":          2,
		}, 20},
		{"2 writes needing 2 reads", blueprints.Range{Min: 2, Max: 2}, []float64{1, 0, 0, 0, 0, 0}, map[string]int{
			"cancel_pending_order+modify_pending_order_items": 5,
			"modify_pending_order_items+modify_user_address":  5,
		}, 0},
	}
	d := load(t, "retail")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gen, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: 4, Writes: tc.writes, Reads: blueprints.Range{Min: 2, Max: 7},
				ReadWeights: tc.weights, Refusals: 0.2, Behaviors: usersim.Profiles()})
			if err != nil {
				t.Fatal(err)
			}
			shapes := map[string]int{}
			sameOrder := 0
			for i := 0; i < 300; i++ {
				bp, err := gen.Generate(context.Background(), i)
				if err != nil {
					t.Fatal(err)
				}
				shape, orders := writesOf(t, bp)
				if !slices.Contains(shape, items) {
					continue
				}
				shapes[strings.Join(shape, "+")]++
				for _, o := range orders["modify_pending_order_address"] {
					if slices.Contains(orders[items], o) {
						sameOrder++
						break
					}
				}
			}
			t.Logf("task shapes with %s: %v; the address and items of one order: %d", items, shapes, sameOrder)
			for shape, least := range tc.shapes {
				if shapes[shape] < least {
					t.Errorf("%d of 300 tasks have shape %s, want at least %d", shapes[shape], shape, least)
				}
			}
			if sameOrder < tc.sameOrder {
				t.Errorf("%d of 300 tasks change the address and then the items of one order, want at least %d", sameOrder, tc.sameOrder)
			}
		})
	}
}

// writesOf is a task's shape, its write tools sorted without repeats,
// and the orders each write tool acts on.
func writesOf(t *testing.T, bp *record.Blueprint) ([]string, map[string][]string) {
	t.Helper()
	var shape []string
	orders := map[string][]string{}
	for _, a := range bp.Actions {
		if a.Kind != record.KindWrite {
			continue
		}
		var args struct {
			OrderID string `json:"order_id"`
		}
		if err := json.Unmarshal(a.Arguments, &args); err != nil {
			t.Fatalf("%s: %s arguments: %v", bp.ID, a.Tool, err)
		}
		shape = append(shape, a.Tool)
		orders[a.Tool] = append(orders[a.Tool], args.OrderID)
	}
	return slices.Compact(slices.Sorted(slices.Values(shape))), orders
}

// TestRetailMovedCustomer generates 300 retail tasks of two or three
// writes and counts those that change a pending order's address and the
// default address, as τ²'s customers who moved do (the order first, the
// account after, one new address for both). A change to the account
// that may not follow a write on another record (follows:), or an
// address drawn anew for each write, never gives them.
func TestRetailMovedCustomer(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	d := load(t, "retail")
	gen, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: 4, Writes: blueprints.Range{Min: 2, Max: 3},
		Reads: blueprints.Range{Min: 2, Max: 7}, Refusals: 0.2, Behaviors: usersim.Profiles()})
	if err != nil {
		t.Fatal(err)
	}
	moved, same := 0, 0
	for i := 0; i < 300; i++ {
		bp, err := gen.Generate(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		addr := map[string][]string{}
		for _, a := range bp.Actions {
			if a.Kind != record.KindWrite || (a.Tool != "modify_pending_order_address" && a.Tool != "modify_user_address") {
				continue
			}
			var args struct{ Address1, City, Zip string }
			if err := json.Unmarshal(a.Arguments, &args); err != nil {
				t.Fatalf("%s: %s arguments: %v", bp.ID, a.Tool, err)
			}
			addr[a.Tool] = append(addr[a.Tool], args.Address1+", "+args.City+" "+args.Zip)
		}
		if len(addr) < 2 {
			continue
		}
		moved++
		if slices.Contains(addr["modify_pending_order_address"], addr["modify_user_address"][0]) {
			same++
		}
	}
	t.Logf("%d of 300 tasks change an order's and the default address, %d to one address", moved, same)
	if moved < 15 {
		t.Errorf("%d of 300 tasks change an order's address and the default address, want at least 15", moved)
	}
	if same != moved {
		t.Errorf("%d of %d tasks that change both addresses give them different ones, want one", moved-same, moved)
	}
}

// TestAirlineRoundTrips generates 300 airline tasks of one write and
// checks the bookings: some are round trips (τ²'s are 6 of 10), each
// with flights both ways, the way back searched by the ground truth on
// the reversed route on the customer's return date (the evidence the
// agent must read) and named in the customer's words; the others one
// way. A booking whose flight type is a constant never has them.
func TestAirlineRoundTrips(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	d := load(t, "airline")
	gen, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: 4, Writes: blueprints.Range{Min: 1, Max: 1},
		Reads: blueprints.Range{Min: 2, Max: 7}, Behaviors: usersim.Profiles()})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for i := 0; i < 300; i++ {
		bp, err := gen.Generate(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		var searched []string
		for _, a := range bp.Actions {
			var raw struct {
				Origin, Destination, Date string
				FlightType                string `json:"flight_type"`
				Flights                   []struct{ Date string }
			}
			if err := json.Unmarshal(a.Arguments, &raw); err != nil {
				t.Fatalf("%s: %s arguments: %v", bp.ID, a.Tool, err)
			}
			if a.Tool == "search_direct_flight" {
				searched = append(searched, raw.Origin+">"+raw.Destination+" "+raw.Date)
			}
			if a.Tool != "book_reservation" {
				continue
			}
			kinds[raw.FlightType]++
			sel := bp.Goals[0].Target
			if raw.FlightType != "round_trip" {
				if sel.Back != nil {
					t.Errorf("%s: a one-way booking with a way back %v", bp.ID, sel.Back)
				}
				continue
			}
			// The way back's first flight leaves on the return date (a
			// connection may land the day after).
			back := sel.Back["date"]
			if len(back) != 1 || !slices.ContainsFunc(raw.Flights, func(f struct{ Date string }) bool { return f.Date == back[0] }) ||
				!slices.Equal(sel.Back["origin"], []string{raw.Destination}) ||
				!slices.Contains(searched, raw.Destination+">"+raw.Origin+" "+back[0]) || back[0] <= raw.Flights[0].Date ||
				!strings.Contains(sel.Label, "returning on") {
				t.Errorf("%s: round trip %s>%s flights %v, way back %v searched %v, label %q", bp.ID, raw.Origin, raw.Destination, raw.Flights, sel.Back, searched, sel.Label)
			}
		}
	}
	t.Logf("bookings by flight type: %v", kinds)
	if kinds["round_trip"] < 10 || kinds["one_way"] < 10 {
		t.Errorf("bookings by flight type %v, want both kinds, at least 10 each", kinds)
	}
}
