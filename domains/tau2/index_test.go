package tau2

import (
	"context"
	"strings"
	"testing"

	"github.com/synth-data/synth/tools"
)

// TestIndexMatchesScan: the indexed lookups answer as τ²'s scans do. A
// base whose OrderCollection lists the keys sorted (indexed) must give
// every call of a random stream the result a base without one gives
// (scanned in sorted key order).
func TestIndexMatchesScan(t *testing.T) {
	for _, domain := range []string{"retail", "airline"} {
		t.Run(domain, func(t *testing.T) {
			e := loadEnv(t, domain)
			sorted := map[string]map[string]any{}
			scanned := map[string]map[string]any{}
			order := map[string]any{}
			for _, c := range e.colls {
				recs := map[string]any{}
				st := e.base.NewState()
				keys := st.Keys(c)
				for _, k := range keys {
					recs[k], _ = st.Get(c, k)
				}
				sorted[c], scanned[c] = recs, recs
				l := make([]any, len(keys))
				for i, k := range keys {
					l[i] = k
				}
				order[c] = map[string]any{"collection": c, "keys": l}
			}
			sorted[OrderCollection] = order
			withIndex, err := tools.NewBase(sorted)
			if err != nil {
				t.Fatal(err)
			}
			without, err := tools.NewBase(scanned)
			if err != nil {
				t.Fatal(err)
			}
			var next func() oracleCall
			if domain == "retail" {
				next = newRetailGen(e, 77).next
			} else {
				next = newAirlineGen(e, 77).next
			}
			a, b := withIndex.NewState(), without.NewState()
			for i := range 800 {
				c := next()
				ra := e.kit.Call(context.Background(), a, c.Name, string(c.Args))
				rb := e.kit.Call(context.Background(), b, c.Name, string(c.Args))
				if ra.Output != rb.Output {
					t.Fatalf("call %d %s%s: indexed %q, scanned %q", i, c.Name, c.Args, clip(ra.Output), clip(rb.Output))
				}
			}
		})
	}
}

// TestIndexPerBase: one handler set serving two databases answers each
// from its own index.
func TestIndexPerBase(t *testing.T) {
	set := RetailHandlers()
	kit := toolkitOf(t, RetailTools(), set)
	for _, email := range []string{"a@b", "zed@example.com", "a@b"} {
		data := strings.Replace(miniRetail, `"email": "a@b"`, `"email": "`+email+`"`, 1)
		db, err := CheckRetailDB([]byte(data))
		if err != nil {
			t.Fatal(err)
		}
		if db[OrderCollection], err = KeyOrder([]byte(data)); err != nil {
			t.Fatal(err)
		}
		base, err := tools.NewBase(db)
		if err != nil {
			t.Fatal(err)
		}
		st := base.NewState()
		if r := kit.Call(context.Background(), st, "find_user_id_by_email", `{"email": "`+strings.ToUpper(email)+`"}`); r.Output != "u1" {
			t.Errorf("email %s: %+v", email, r)
		}
		if r := kit.Call(context.Background(), st, "find_user_id_by_email", `{"email": "a@b"}`); (email == "a@b") == r.Err {
			t.Errorf("database with %s: looking up a@b gave %+v", email, r)
		}
	}
}

// TestHandlersNeverPanic: records of the wrong shape are errors.
func TestHandlersNeverPanic(t *testing.T) {
	bad := map[string]map[string]any{
		"orders":       {"#W1": map[string]any{"status": "pending", "items": "x", "payment_history": []any{1}}, "#W2": "not a record"},
		"users":        {"u1": map[string]any{"payment_methods": []any{}}},
		"products":     {"p1": map[string]any{"variants": 3}},
		"flights":      {"HAT001": map[string]any{"dates": map[string]any{"2024-05-01": 7}, "origin": "JFK"}},
		"reservations": {"R1": map[string]any{"user_id": "u1", "flights": []any{"x"}, "payment_history": []any{map[string]any{}}}},
	}
	base, err := tools.NewBase(bad)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		set   map[string]tools.Handler
		calls map[string]map[string]any
	}{
		{RetailHandlers(), map[string]map[string]any{
			"cancel_pending_order":           {"order_id": "#W1", "reason": "no longer needed"},
			"get_order_details":              {"order_id": "#W2"},
			"exchange_delivered_order_items": {"order_id": "#W1", "item_ids": []any{"a"}, "new_item_ids": []any{"b"}, "payment_method_id": "x"},
			"modify_pending_order_items":     {"order_id": "#W1", "item_ids": []any{"a"}, "new_item_ids": []any{"b"}, "payment_method_id": "x"},
			"modify_pending_order_payment":   {"order_id": "#W1", "payment_method_id": "x"},
			"get_item_details":               {"item_id": "v"},
			"find_user_id_by_email":          {"email": "x"},
			"list_all_product_types":         {},
		}},
		{AirlineHandlers(), map[string]map[string]any{
			"search_direct_flight":        {"origin": "JFK", "destination": "SFO", "date": "2024-05-01"},
			"get_flight_status":           {"flight_number": "HAT001", "date": "2024-05-01"},
			"cancel_reservation":          {"reservation_id": "R1"},
			"update_reservation_flights":  {"reservation_id": "R1", "cabin": "economy", "flights": []any{}, "payment_id": "x"},
			"update_reservation_baggages": {"reservation_id": "R1", "total_baggages": int64(1), "nonfree_baggages": int64(1), "payment_id": "x"},
			"send_certificate":            {"user_id": "u1", "amount": int64(5)},
		}},
	} {
		for name, args := range c.calls {
			if _, err := c.set[name](context.Background(), base.NewState(), args); err == nil && name != "list_all_product_types" && name != "search_direct_flight" {
				t.Errorf("%s on malformed records: no error", name)
			}
		}
	}
}
