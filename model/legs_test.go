package model

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/tools"
)

// A search whose result elements are legs: a nonstop flight (one
// object, its date null) or a connection (a list); candidates per cabin.
func TestItemsOfLegs(t *testing.T) {
	leg := func(num, from, to, date string, be, eco int64, seatsEco int64) map[string]any {
		var d any
		if date != "" {
			d = date
		}
		return map[string]any{
			"flight_number": num, "origin": from, "destination": to, "date": d, "status": "available",
			"scheduled_departure_time_est": "06:00:00", "scheduled_arrival_time_est": "08:00:00",
			"prices":          map[string]any{"basic_economy": be, "economy": eco},
			"available_seats": map[string]any{"basic_economy": int64(3), "economy": seatsEco},
		}
	}
	lg := &pack.Legs{Field: "flights", Keep: []string{"flight_number", "date"}, Last: []string{"destination"},
		Stops: "stops", Per: "cabin", Sum: map[string]string{"price": "prices"}, Min: map[string]string{"seats": "available_seats"}}
	s := &SearchModel{Legs: lg}
	args := map[string]any{"origin": "BOS", "destination": "SEA", "date": "2024-05-20"}
	out := []any{
		leg("SY1", "BOS", "SEA", "", 100, 150, 4),
		[]any{leg("SY2", "BOS", "ORD", "2024-05-20", 60, 90, 0), leg("SY3", "ORD", "SEA", "2024-05-20", 70, 110, 5)},
		"not a leg",
	}
	got := s.ItemsOf(out, args)
	want := []map[string]any{
		{"origin": "BOS", "destination": "SEA", "status": "available", "scheduled_departure_time_est": "06:00:00", "scheduled_arrival_time_est": "08:00:00",
			"flights": []any{map[string]any{"flight_number": "SY1", "date": "2024-05-20"}}, "stops": int64(0), "cabin": "basic_economy", "price": int64(100), "seats": int64(3)},
		{"origin": "BOS", "destination": "SEA", "status": "available", "scheduled_departure_time_est": "06:00:00", "scheduled_arrival_time_est": "08:00:00",
			"flights": []any{map[string]any{"flight_number": "SY1", "date": "2024-05-20"}}, "stops": int64(0), "cabin": "economy", "price": int64(150), "seats": int64(4)},
		// The connection's economy is sold out on its first flight: no
		// candidate in that cabin.
		{"origin": "BOS", "destination": "SEA", "status": "available", "scheduled_departure_time_est": "06:00:00", "scheduled_arrival_time_est": "08:00:00",
			"flights": []any{map[string]any{"flight_number": "SY2", "date": "2024-05-20"}, map[string]any{"flight_number": "SY3", "date": "2024-05-20"}},
			"stops":   int64(1), "cabin": "basic_economy", "price": int64(130), "seats": int64(3)},
	}
	if !reflect.DeepEqual(got, want) {
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(want)
		t.Errorf("candidates\n%s\nwant\n%s", a, b)
	}
	// Without legs the elements are the candidates.
	plain := (&SearchModel{}).ItemsOf([]any{map[string]any{"id": "a"}, "x"}, nil)
	if len(plain) != 1 || plain[0]["id"] != "a" {
		t.Errorf("plain items %v", plain)
	}
	// HasItems says whether there are any, for every shape of result.
	soldOut := []any{leg("SY2", "BOS", "ORD", "2024-05-20", 60, 90, 0), leg("SY3", "ORD", "SEA", "2024-05-20", 70, 110, 5)}
	soldOut[0].(map[string]any)["available_seats"] = map[string]any{"basic_economy": int64(0), "economy": int64(0)}
	noPer := &SearchModel{Legs: &pack.Legs{Field: "flights", Keep: []string{"flight_number"}}}
	for _, tc := range []struct {
		name string
		s    *SearchModel
		out  any
	}{
		{"legs", s, out},
		{"sold out", s, []any{soldOut, "x"}},
		{"no legs", s, []any{"x", 3}},
		{"not a list", s, map[string]any{"flights": 1}},
		{"one per result", noPer, []any{soldOut}},
		{"plain", &SearchModel{}, []any{map[string]any{"id": "a"}}},
		{"plain none", &SearchModel{}, []any{"a"}},
	} {
		if got, want := tc.s.HasItems(tc.out, args), len(tc.s.ItemsOf(tc.out, args)) > 0; got != want {
			t.Errorf("%s: HasItems = %v, ItemsOf lists %d", tc.name, got, len(tc.s.ItemsOf(tc.out, args)))
		}
	}
}

func TestTargetValueKeep(t *testing.T) {
	for _, tc := range []struct {
		src  string
		path string
		keep []string
	}{
		{"flights[flight_number,date]", "flights", []string{"flight_number", "date"}},
		{"flights[ flight_number ]", "flights", []string{"flight_number"}},
		{"flights", "flights", nil},
		{"flights[", "flights[", nil},
	} {
		path, keep, _ := CutKeep(tc.src)
		if path != tc.path || !reflect.DeepEqual(keep, tc.keep) {
			t.Errorf("CutKeep(%q) = %q %v, want %q %v", tc.src, path, keep, tc.path, tc.keep)
		}
	}
	obj := map[string]any{"flights": []any{map[string]any{"flight_number": "SY1", "date": "2024-05-20", "price": 100}}}
	p := &ParamModel{Path: "flights", Keep: []string{"flight_number", "date"}}
	got, ok := p.TargetValue(obj)
	if want := []any{map[string]any{"flight_number": "SY1", "date": "2024-05-20"}}; !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("TargetValue = %v %v, want %v", got, ok, want)
	}
}

// A choice the pack's function builds the argument around: Compute
// builds it from the chosen value, and again from what it built.
func TestComputeAroundChoice(t *testing.T) {
	var seen []any
	wrap := func(_ context.Context, _ *tools.State, args map[string]any) (any, error) {
		seen = append(seen, args["pay"])
		if args["pay"] == "gift_1" {
			return nil, errors.New("not enough balance")
		}
		return []any{map[string]any{"payment_id": args["pay"], "amount": args["n"]}}, nil
	}
	p := &ParamModel{Name: "pay", Source: SrcChoose, Choose: &ChooseModel{ID: "id", Entry: "payment_id"}, Compute: wrap, ComputeName: "pay_all"}
	w := &WriteModel{Name: "book", Params: []*ParamModel{{Name: "n", Source: SrcSlot}, p}}
	if !w.Computes() || w.DecidedOnTarget() {
		t.Errorf("Computes %v, DecidedOnTarget %v: want a computed write decided on more than its target", w.Computes(), w.DecidedOnTarget())
	}
	st := emptyState(t)
	args := map[string]any{"n": 3, "pay": "card_1"}
	if err := w.Compute(context.Background(), st, args, ""); err != nil {
		t.Fatal(err)
	}
	if err := w.Compute(context.Background(), st, args, ""); err != nil {
		t.Fatal(err)
	}
	want := []any{map[string]any{"payment_id": "card_1", "amount": 3}}
	if !reflect.DeepEqual(args["pay"], want) || !reflect.DeepEqual(seen, []any{"card_1", "card_1"}) {
		t.Errorf("pay = %v (function saw %v), want %v built from card_1 both times", args["pay"], seen, want)
	}
	if got := p.Chosen(args["pay"]); got != "card_1" {
		t.Errorf("Chosen = %v", got)
	}
	if err := w.Compute(context.Background(), st, map[string]any{"n": 1, "pay": "gift_1"}, ""); err == nil {
		t.Error("a choice the function refuses computes")
	}
}

// Compute passes the target's key to a function whose write names no
// record (a certificate for a complaint about a reservation).
func TestComputeGetsTargetKey(t *testing.T) {
	var got map[string]any
	fn := func(_ context.Context, _ *tools.State, args map[string]any) (any, error) {
		got = args
		return 100, nil
	}
	w := &WriteModel{Name: "send", Coll: &CollModel{Key: "reservation_id"}, Params: []*ParamModel{
		{Name: "user_id", Source: SrcTarget, Path: "user_id"}, {Name: "amount", Source: SrcCompute, Compute: fn, ComputeName: "comp"}}}
	if !w.DecidedOnTarget() {
		t.Error("a write of target fields and a computed amount is decided on its target")
	}
	st := emptyState(t)
	args := map[string]any{"user_id": "u1"}
	if err := w.Compute(context.Background(), st, args, "R1"); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, map[string]any{"user_id": "u1", "reservation_id": "R1"}) || args["amount"] != 100 {
		t.Errorf("the function saw %v; args %v", got, args)
	}
	if _, named := args["reservation_id"]; named {
		t.Error("the target's key went into the write's arguments")
	}
}

func TestForbids(t *testing.T) {
	for _, tc := range []struct {
		w    WriteModel
		want bool
	}{
		{WriteModel{}, false},
		{WriteModel{When: map[string][]string{"status": {"pending"}}}, true},
		{WriteModel{When: map[string][]string{"status": {""}}, Refuse: map[string][]string{"cabin": {"economy"}}}, true},
		{WriteModel{When: map[string][]string{"status": {""}}, Refuse: map[string][]string{"status": {}}}, false},
		{WriteModel{Refusals: []string{"no compensation"}}, true},
	} {
		if got := tc.w.Forbids(); got != tc.want {
			t.Errorf("Forbids(when %v, refuse %v, refusals %v) = %v", tc.w.When, tc.w.Refuse, tc.w.Refusals, got)
		}
	}
}

func emptyState(t *testing.T) *tools.State {
	t.Helper()
	b, err := tools.NewBase(map[string]map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	return b.NewState()
}

// A search with a way back pairs every outbound candidate with every
// return one of the same cabin: the legs in order, prices and stops
// added up, the fewer seats, marked a round trip; unpaired candidates
// are one way.
func TestPairs(t *testing.T) {
	lg := &pack.Legs{Field: "flights", Keep: []string{"flight_number"}, Stops: "stops", Per: "cabin",
		Sum: map[string]string{"price": "prices"}, Min: map[string]string{"seats": "available_seats"}}
	s := &SearchModel{Legs: lg, Return: &pack.Return{Swap: []string{"origin", "destination"}, After: "date", Share: 1,
		Kind: "flight_type", One: "one_way", Round: "round_trip"}}
	leg := func(num, from, to string, eco, biz int64) map[string]any {
		return map[string]any{"flight_number": num, "origin": from, "destination": to,
			"prices":          map[string]any{"economy": eco, "business": biz},
			"available_seats": map[string]any{"economy": int64(5), "business": int64(2)}}
	}
	out := s.ItemsOf([]any{leg("SY1", "BOS", "SEA", 100, 400)}, nil)
	back := s.ItemsOf([]any{[]any{leg("SY8", "SEA", "ORD", 60, 300), leg("SY9", "ORD", "BOS", 70, 310)}}, nil)
	if out[0]["flight_type"] != "one_way" {
		t.Errorf("an outbound candidate is %v, want one_way", out[0]["flight_type"])
	}
	pairs := s.Pairs(out, back)
	if len(pairs) != 2 {
		t.Fatalf("%d pairs, want one per cabin: %v", len(pairs), pairs)
	}
	for _, p := range pairs {
		want := map[string]any{"business": int64(1010), "economy": int64(230)}[p["cabin"].(string)]
		flights, _ := json.Marshal(p["flights"])
		if p["price"] != want || p["stops"] != int64(1) || p["seats"] != int64(map[string]int{"business": 2, "economy": 5}[p["cabin"].(string)]) ||
			p["flight_type"] != "round_trip" || p["origin"] != "BOS" || p["destination"] != "SEA" ||
			string(flights) != `[{"flight_number":"SY1"},{"flight_number":"SY8"},{"flight_number":"SY9"}]` {
			t.Errorf("pair %v", p)
		}
	}
	if got := s.Back(map[string][]string{"origin": {"BOS"}, "destination": {"SEA"}, "date": {"2024-05-20", "2024-05-21"}}, []string{"2024-05-23"}); !reflect.DeepEqual(got,
		map[string][]string{"origin": {"SEA"}, "destination": {"BOS"}, "date": {"2024-05-23"}}) {
		t.Errorf("the way back's values %v", got)
	}
}
