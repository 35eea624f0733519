package tau2

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// τ²'s quirks, one episode each, built from the database so the ids are
// real, and held to the oracle like the random episodes. Each case also
// says what must be seen, so a case that stopped reaching its quirk
// fails instead of passing quietly.

type quirk struct {
	name   string
	calls  func(q *quirkData) []oracleCall
	expect func(out []string) string // "" when the quirk showed
}

// quirkData finds records with the shape a quirk needs.
type quirkData struct {
	g *gen
}

func mkCall(name string, args obj) oracleCall {
	raw, _ := json.Marshal(args)
	return oracleCall{Name: name, Args: raw}
}

func (q *quirkData) find(coll string, ok func(m map[string]any) bool) (string, map[string]any) {
	for _, k := range q.g.keys(coll) {
		if m := q.g.rec(coll, k); ok(m) {
			return k, m
		}
	}
	return "", nil
}

func methods(u map[string]any, source string) []string {
	var out []string
	pms := u["payment_methods"].(map[string]any)
	for _, k := range sortedKeys(pms) {
		if pms[k].(map[string]any)["source"] == source {
			out = append(out, k)
		}
	}
	return out
}

func contains2(s, sub string) string {
	if strings.Contains(s, sub) {
		return ""
	}
	return "want " + sub + " in " + clip(s)
}

var retailQuirks = []quirk{
	{
		name: "modified items all take the last new variant's price and options",
		calls: func(q *quirkData) []oracleCall {
			id, o := q.find("orders", func(m map[string]any) bool {
				if m["status"] != "pending" {
					return false
				}
				seen := map[string]bool{}
				for _, it := range m["items"].([]any) {
					p := it.(map[string]any)["product_id"].(string)
					if seen[p] {
						return true
					}
					seen[p] = true
				}
				return false
			})
			var olds, news []string
			byProduct := map[string][]string{}
			for _, it := range o["items"].([]any) {
				m := it.(map[string]any)
				byProduct[m["product_id"].(string)] = append(byProduct[m["product_id"].(string)], m["item_id"].(string))
			}
			for _, p := range sortedKeys(byProduct) {
				if len(byProduct[p]) < 2 {
					continue
				}
				vars := q.g.rec("products", p)["variants"].(map[string]any)
				for _, v := range sortedKeys(vars) {
					if vars[v].(map[string]any)["available"] == true && !slices.Contains(byProduct[p], v) && len(news) < 2 {
						news = append(news, v)
					}
				}
				olds = byProduct[p][:len(news)]
				break
			}
			u := q.g.rec("users", o["user_id"].(string))
			pm := append(methods(u, "credit_card"), methods(u, "paypal")...)
			pm = append(pm, methods(u, "gift_card")...)
			return []oracleCall{
				mkCall("modify_pending_order_items", obj{{"order_id", id}, {"item_ids", olds}, {"new_item_ids", news}, {"payment_method_id", pm[0]}}),
				mkCall("get_order_details", obj{{"order_id", id}}),
			}
		},
		expect: func(out []string) string { return contains2(out[0], `"status":"pending (item modified)"`) },
	},
	{
		name: "cancelling after a payment change refunds the refund too",
		calls: func(q *quirkData) []oracleCall {
			id, o := q.find("orders", func(m map[string]any) bool {
				if m["status"] != "pending" || len(m["payment_history"].([]any)) != 1 {
					return false
				}
				u := q.g.rec("users", m["user_id"].(string))
				return len(methods(u, "gift_card")) > 0 && len(u["payment_methods"].(map[string]any)) > 1
			})
			u := q.g.rec("users", o["user_id"].(string))
			cur := o["payment_history"].([]any)[0].(map[string]any)["payment_method_id"].(string)
			var other string
			for _, k := range sortedKeys(u["payment_methods"].(map[string]any)) {
				if k != cur {
					other = k
				}
			}
			return []oracleCall{
				mkCall("modify_pending_order_payment", obj{{"order_id", id}, {"payment_method_id", other}}),
				mkCall("cancel_pending_order", obj{{"order_id", id}, {"reason", "no longer needed"}}),
				mkCall("get_user_details", obj{{"user_id", o["user_id"]}}),
			}
		},
		expect: func(out []string) string { return contains2(out[1], `"status":"cancelled"`) },
	},
	{
		name: "a name and zip two users share finds the first in db order",
		calls: func(q *quirkData) []oracleCall {
			rg := newRetailGen(q.g.e, 1)
			group := rg.dupNames[0]
			first := q.g.rec("users", group[0])
			n := first["name"].(map[string]any)
			zip := first["address"].(map[string]any)["zip"].(string)
			var calls []oracleCall
			// Every namesake gets the zip; τ² then answers with the one
			// db.json lists first, not the one sorting first.
			for i := len(group) - 1; i >= 0; i-- {
				calls = append(calls, mkCall("modify_user_address", obj{{"user_id", group[i]}, {"address1", "1 Main St"}, {"address2", ""}, {"city", "X"}, {"state", "CA"}, {"country", "USA"}, {"zip", zip}}))
			}
			return append(calls, mkCall("find_user_id_by_name_zip", obj{{"first_name", strings.ToUpper(n["first_name"].(string))}, {"last_name", n["last_name"]}, {"zip", zip}}))
		},
		expect: func(out []string) string {
			if strings.HasPrefix(out[len(out)-1], "Error") {
				return "the lookup failed: " + out[len(out)-1]
			}
			return ""
		},
	},
	{
		name: "calculate rounds half to even on the binary value and writes Python's float text",
		calls: func(*quirkData) []oracleCall {
			var out []oracleCall
			for _, e := range []string{"2.675", "0.125", "1e5", "10**20", "1/3", "2 (3)", "(1 2)", "-0.001", "7 // -2", "99999999999999999 / 1", "2 ** 0.5", "1.5 ** 100", "0.1 * 3"} {
				out = append(out, mkCall("calculate", obj{{"expression", e}}))
			}
			return out
		},
		expect: func(out []string) string { return contains2(out[0], "2.67") },
	},
	{
		name: "an unknown argument is Python's TypeError; list_all_product_types is json.dumps text",
		calls: func(*quirkData) []oracleCall {
			return []oracleCall{
				mkCall("get_user_details", obj{{"user_id", "x"}, {"verbose", true}}),
				mkCall("list_all_product_types", obj{}),
			}
		},
		expect: func(out []string) string { return contains2(out[0], "unexpected keyword argument 'verbose'") },
	},
}

var airlineQuirks = []quirk{
	{
		name: "a certificate paid twice is a KeyError after the first is used up",
		calls: func(q *quirkData) []oracleCall {
			uid, u := q.find("users", func(m map[string]any) bool { return len(methods(m, "certificate")) > 0 })
			cert := methods(u, "certificate")[0]
			fn, date := availableFlight(q)
			pax := u["saved_passengers"].([]any)[:1]
			price := priceOf(q, fn, date, "economy")
			return []oracleCall{
				mkCall("book_reservation", obj{{"user_id", uid}, {"origin", "X"}, {"destination", "Y"}, {"flight_type", "one_way"}, {"cabin", "economy"},
					{"flights", []any{obj{{"flight_number", fn}, {"date", date}}}}, {"passengers", pax},
					{"payment_methods", []any{obj{{"payment_id", cert}, {"amount", price / 2}}, obj{{"payment_id", cert}, {"amount", price - price/2}}}},
					{"total_baggages", 0}, {"nonfree_baggages", 0}, {"insurance", "no"}}),
				mkCall("get_user_details", obj{{"user_id", uid}}),
			}
		},
		expect: func(out []string) string { return contains2(out[0], "Error: 'certificate_") },
	},
	{
		name: "the same flight booked twice takes its seats twice; cancelling twice refunds the refunds",
		calls: func(q *quirkData) []oracleCall {
			uid, u := q.find("users", func(m map[string]any) bool { return len(methods(m, "credit_card")) > 0 })
			fn, date := availableFlight(q)
			price := priceOf(q, fn, date, "business")
			leg := obj{{"flight_number", fn}, {"date", date}}
			return []oracleCall{
				mkCall("book_reservation", obj{{"user_id", uid}, {"origin", "X"}, {"destination", "Y"}, {"flight_type", "round_trip"}, {"cabin", "business"},
					{"flights", []any{leg, leg}}, {"passengers", []any{obj{{"first_name", "A"}, {"last_name", "B"}, {"dob", "1990-01-01"}}}},
					{"payment_methods", []any{obj{{"payment_id", methods(u, "credit_card")[0]}, {"amount", 2*price + 30 + 50}}}},
					{"total_baggages", json.Number("1.0")}, {"nonfree_baggages", json.Number("1.0")}, {"insurance", "yes"}}),
				mkCall("cancel_reservation", obj{{"reservation_id", "HATHAT"}}),
				mkCall("cancel_reservation", obj{{"reservation_id", "HATHAT"}}),
				mkCall("get_flight_status", obj{{"flight_number", fn}, {"date", date}}),
			}
		},
		expect: func(out []string) string { return contains2(out[0], `"reservation_id":"HATHAT"`) },
	},
	{
		name: "a leg landing +1 moves the second search to day+1, unpadded",
		calls: func(q *quirkData) []oracleCall {
			_, f := q.find("flights", func(m map[string]any) bool { return strings.Contains(m["scheduled_arrival_time_est"].(string), "+1") })
			var out []oracleCall
			for _, d := range sortedKeys(f["dates"].(map[string]any)) {
				out = append(out, mkCall("search_onestop_flight", obj{{"origin", f["origin"]}, {"destination", "SFO"}, {"date", d}}))
			}
			return out
		},
		expect: func([]string) string { return "" },
	},
	{
		name: "bags bought with a float argument keep the float; a cheaper flight credits the gift card",
		calls: func(q *quirkData) []oracleCall {
			rid, r := q.find("reservations", func(m map[string]any) bool {
				u := q.g.rec("users", m["user_id"].(string))
				return m["status"] == nil && len(methods(u, "gift_card")) > 0 && len(m["flights"].([]any)) > 0
			})
			u := q.g.rec("users", r["user_id"].(string))
			gc := methods(u, "gift_card")[0]
			var legs []any
			for _, e := range r["flights"].([]any) {
				f := e.(map[string]any)
				legs = append(legs, obj{{"flight_number", f["flight_number"]}, {"date", f["date"]}})
			}
			return []oracleCall{
				mkCall("update_reservation_baggages", obj{{"reservation_id", rid}, {"total_baggages", json.Number("3.0")}, {"nonfree_baggages", json.Number("2.0")}, {"payment_id", gc}}),
				mkCall("update_reservation_flights", obj{{"reservation_id", rid}, {"cabin", "basic_economy"}, {"flights", legs}, {"payment_id", gc}}),
				mkCall("get_user_details", obj{{"user_id", r["user_id"]}}),
			}
		},
		expect: func([]string) string { return "" },
	},
	{
		name: "pydantic's messages for bad list items",
		calls: func(q *quirkData) []oracleCall {
			rid, _ := q.find("reservations", func(m map[string]any) bool { return len(m["passengers"].([]any)) == 1 })
			return []oracleCall{
				mkCall("update_reservation_passengers", obj{{"reservation_id", rid}, {"passengers", []any{obj{{"first_name", "A"}, {"last_name", 7}}}}}),
				mkCall("update_reservation_flights", obj{{"reservation_id", rid}, {"cabin", "economy"}, {"flights", []any{obj{{"flight_number", "HAT001"}, {"flight_date", strings.Repeat("2024-05-01", 8)}}}}, {"payment_id", "x"}}),
				mkCall("book_reservation", obj{{"user_id", "x"}, {"origin", "X"}, {"destination", "Y"}, {"flight_type", "one_way"}, {"cabin", "economy"},
					{"flights", []any{}}, {"passengers", []any{}},
					{"payment_methods", []any{obj{{"payment_id", "p"}, {"amount", json.Number("1e30")}}}},
					{"total_baggages", 0}, {"nonfree_baggages", 0}, {"insurance", "no"}}),
			}
		},
		expect: func(out []string) string { return contains2(out[0], "2 validation errors for Passenger") },
	},
}

func availableFlight(q *quirkData) (string, string) {
	for _, k := range q.g.keys("flights") {
		dates := q.g.rec("flights", k)["dates"].(map[string]any)
		for _, d := range sortedKeys(dates) {
			if inst := dates[d].(map[string]any); inst["status"] == "available" {
				return k, d
			}
		}
	}
	return "", ""
}

func priceOf(q *quirkData, fn, date, cabin string) int {
	inst := q.g.rec("flights", fn)["dates"].(map[string]any)[date].(map[string]any)
	p, _ := toInt(inst["prices"].(map[string]any)[cabin])
	return int(p)
}

func TestFidelityQuirks(t *testing.T) {
	for _, c := range []struct {
		domain string
		cases  []quirk
	}{{"retail", retailQuirks}, {"airline", airlineQuirks}} {
		t.Run(c.domain, func(t *testing.T) {
			pyd := needPython(t)
			e := loadEnv(t, c.domain)
			q := &quirkData{g: &gen{e: e}}
			eps := make([][]oracleCall, len(c.cases))
			for i, qc := range c.cases {
				eps[i] = qc.calls(q)
			}
			calls, agree, _, dbOK, _ := compareEpisodes(t, e, pyd, eps)
			for i, qc := range c.cases {
				got, _ := e.replay(t, eps[i])
				out := make([]string, len(got))
				for j, r := range got {
					out[j] = r.Output
				}
				if msg := qc.expect(out); msg != "" {
					t.Errorf("%s: the case no longer shows its quirk: %s", qc.name, msg)
				}
			}
			t.Logf("%s quirks: %d/%d calls agree, %d/%d databases equal", c.domain, agree, calls, dbOK, len(eps))
		})
	}
}
