package airline

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// step is a tool call; args may depend on the results of earlier steps.
type step struct {
	tool string
	args func(prev []tools.Result) any
}

func fixed(v any) func([]tools.Result) any { return func([]tools.Result) any { return v } }

// hcase is one handler test: setup calls that must succeed, then the call
// under test, which must fail with err (a substring) or succeed and pass
// check.
type hcase struct {
	name  string
	setup []step
	call  step
	err   string
	check func(t *testing.T, st *tools.State, out map[string]any, value any)
}

func TestHandlers(t *testing.T) {
	p := load(t)
	cases := handlerCases(t, p)
	covered := map[string]int{}
	for _, c := range cases {
		if c.err == "" {
			covered[c.call.tool]++
		}
	}
	for _, tool := range p.Tools.Tools() {
		if covered[tool.Name] == 0 {
			t.Errorf("no successful call of %s in the table", tool.Name)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, prev := runSetup(t, p, c.setup)
			before := st.Hash()
			args := c.call.args(prev)
			r := call(t, p, st, c.call.tool, args)
			write := p.Tools.Kind(c.call.tool) == record.KindWrite
			if c.err != "" {
				if !r.Err || !strings.Contains(r.Output, c.err) {
					t.Fatalf("got %.300s, want an error containing %q", r.Output, c.err)
				}
				if st.Hash() != before {
					t.Error("a failed call changed the database")
				}
				return
			}
			if r.Err {
				t.Fatalf("got %s", r.Output)
			}
			if write {
				if st.Hash() == before {
					t.Error("a successful write left the database unchanged")
				}
				// Replaying the same calls on a fresh copy reaches the same state.
				again, prev2 := runSetup(t, p, c.setup)
				r2 := call(t, p, again, c.call.tool, c.call.args(prev2))
				if r2.Output != r.Output || again.Hash() != st.Hash() {
					t.Errorf("replay differs:\n%s\n%s", r.Output, r2.Output)
				}
			} else if st.Hash() != before {
				t.Errorf("%s is not a write but changed the database", c.call.tool)
			}
			if c.check != nil {
				c.check(t, st, obj(r.Value), r.Value)
			}
		})
	}
}

func runSetup(t *testing.T, p *pack.Pack, steps []step) (*tools.State, []tools.Result) {
	t.Helper()
	st := p.Base.NewState()
	var prev []tools.Result
	for _, s := range steps {
		r := call(t, p, st, s.tool, s.args(prev))
		if r.Err {
			t.Fatalf("setup %s: %s", s.tool, r.Output)
		}
		prev = append(prev, r)
	}
	return st, prev
}

// fx picks the records the handler cases act on from the generated data.
type fx struct {
	t *testing.T
	p *pack.Pack
}

func (f fx) reservation(what string, pred func(res, user map[string]any) bool) map[string]any {
	return first(f.t, f.p, "reservations", what, func(r map[string]any) bool { return pred(r, userOf(f.p, r)) })
}

func (f fx) active(r map[string]any) bool { return r["status"] == "active" }

func (f fx) future(r map[string]any) bool { return future(f.t, f.p, r) }

func (f fx) departed(r map[string]any) bool { return departed(f.t, f.p, r) }

// candidate is the first search result from origin on date with at least
// seats seats in cabin, over every destination.
func (f fx) candidate(tool, origin, date, cabin string, seats int64, pred func(map[string]any) bool) map[string]any {
	st := f.p.Base.NewState()
	for _, dst := range f.p.Base.Keys("airports") {
		if dst == origin {
			continue
		}
		for _, c := range search(f.t, f.p, st, tool, origin, dst, date, cabin) {
			if num(c["seats_left"]) >= seats && (pred == nil || pred(c)) {
				return c
			}
		}
	}
	f.t.Fatalf("no %s candidate from %s on %s in %s with %d seats", tool, origin, date, cabin, seats)
	return nil
}

func keyOf(fl any) string {
	return fmt.Sprint(obj(fl)["flight_number"]) + "@" + fmt.Sprint(obj(fl)["date"])
}

func flightsArg(c map[string]any) []any { return list(c["flights"]) }

func seats(st *tools.State, key, cabin string) int64 {
	return num(obj(get(st, "flight_dates", key)["available_seats"])[cabin])
}

func baseSeats(p *pack.Pack, key, cabin string) int64 {
	return seats(p.Base.NewState(), key, cabin)
}

func balance(st *tools.State, userID, payID string) int64 {
	for _, m := range list(get(st, "users", userID)["payment_methods"]) {
		if obj(m)["id"] == payID {
			return num(obj(m)["balance"])
		}
	}
	return -1
}

func handlerCases(t *testing.T, p *pack.Pack) []hcase {
	f := fx{t, p}
	var cases []hcase

	// ---- reads
	anyUser := records(p, "users")[0]
	uid := anyUser["user_id"].(string)
	anyRes := records(p, "reservations")[0]
	rid := anyRes["reservation_id"].(string)
	landed := first(t, p, "flight_dates", "landed", func(r map[string]any) bool { return r["status"] == "landed" })
	cases = append(cases,
		hcase{name: "get_user_details", call: step{"get_user_details", fixed(map[string]any{"user_id": uid})},
			check: func(t *testing.T, _ *tools.State, out map[string]any, _ any) {
				if mustJSON(t, out) != mustJSON(t, anyUser) {
					t.Errorf("got %v, want the stored user", out)
				}
			}},
		hcase{name: "get_user_details/unknown", call: step{"get_user_details", fixed(map[string]any{"user_id": "zed_zed_0000"})}, err: "user zed_zed_0000 not found"},
		hcase{name: "get_user_details/schema", call: step{"get_user_details", fixed(map[string]any{"user_id": "Bob"})}, err: "do not match its schema"},
		hcase{name: "get_reservation_details", call: step{"get_reservation_details", fixed(map[string]any{"reservation_id": rid})},
			check: func(t *testing.T, _ *tools.State, out map[string]any, _ any) {
				if mustJSON(t, out) != mustJSON(t, anyRes) {
					t.Errorf("got %v, want the stored reservation", out)
				}
			}},
		hcase{name: "get_reservation_details/unknown", call: step{"get_reservation_details", fixed(map[string]any{"reservation_id": "ZZZZZ9"})}, err: "reservation ZZZZZ9 not found"},
		hcase{name: "list_all_airports", call: step{"list_all_airports", fixed(map[string]any{})},
			check: func(t *testing.T, _ *tools.State, _ map[string]any, v any) {
				if l := list(v); len(l) != 20 || obj(l[0])["iata"] == nil || obj(l[0])["city"] == nil {
					t.Errorf("got %v, want 20 airports with code and city", v)
				}
			}},
		hcase{name: "get_flight_status", call: step{"get_flight_status", fixed(map[string]any{"flight_number": landed["flight_number"], "date": landed["date"]})},
			check: func(t *testing.T, _ *tools.State, out map[string]any, _ any) {
				if out["status"] != "landed" || out["scheduled_departure"] != landed["scheduled_departure"] {
					t.Errorf("got %v, want %v", out, landed)
				}
			}},
		hcase{name: "get_flight_status/unknown flight", call: step{"get_flight_status", fixed(map[string]any{"flight_number": "SY999", "date": "2024-05-20"})}, err: "flight SY999 not found"},
		hcase{name: "get_flight_status/outside schedule", call: step{"get_flight_status", fixed(map[string]any{"flight_number": landed["flight_number"], "date": "2024-07-01"})}, err: "does not operate on 2024-07-01"},
		hcase{name: "get_flight_status/invalid date", call: step{"get_flight_status", fixed(map[string]any{"flight_number": landed["flight_number"], "date": "2024-02-30"})}, err: "not a valid date"},
	)
	// ---- book_reservation
	booker := first(t, p, "users", "a user with a credit card and two saved passengers", func(u map[string]any) bool {
		return method(u, "credit_card") != nil && len(list(u["saved_passengers"])) == 2
	})
	pax := list(booker["saved_passengers"])
	n := int64(len(pax))
	card := method(booker, "credit_card")["id"].(string)
	direct := f.candidate("search_direct_flight", "JFK", "2024-05-22", "economy", n, nil)
	onestop := f.candidate("search_onestop_flight", "BOS", "2024-05-23", "business", n, nil)
	book := func(c map[string]any, user map[string]any, passengers []any, payID string, bags int, insurance string) map[string]any {
		return map[string]any{
			"user_id": user["user_id"], "origin": c["origin"], "destination": c["destination"], "cabin": c["cabin"],
			"flights": flightsArg(c), "passengers": passengers, "payment_id": payID, "total_baggages": bags, "insurance": insurance,
		}
	}
	checkBooking := func(c map[string]any, user map[string]any, payID string, bags int64, insurance bool) func(*testing.T, *tools.State, map[string]any, any) {
		return func(t *testing.T, st *tools.State, out map[string]any, _ any) {
			np := int64(len(list(out["passengers"])))
			nonfree := max(0, bags-freeBags(user["membership"], c["cabin"])*np)
			want := num(c["price"])*np + nonfree*40
			if insurance {
				want += 25 * np
			}
			if num(out["total_price"]) != want || num(out["nonfree_baggages"]) != nonfree {
				t.Errorf("total %v with %v non-free bags, want %d and %d", out["total_price"], out["nonfree_baggages"], want, nonfree)
			}
			id := out["reservation_id"].(string)
			stored := get(st, "reservations", id)
			if stored == nil || stored["status"] != "active" || stored["created_at"] != "2024-05-15T15:00:00-05:00" || stored["cabin"] != c["cabin"] {
				t.Fatalf("stored reservation %v", stored)
			}
			if _, extra := stored["total_price"]; extra {
				t.Error("total_price is stored in the reservation; it belongs to the result only")
			}
			if h := list(stored["payment_history"]); len(h) != 1 || obj(h[0])["payment_id"] != payID || num(obj(h[0])["amount"]) != want {
				t.Errorf("payment history %v", h)
			}
			ids := list(get(st, "users", user["user_id"].(string))["reservations"])
			if len(ids) == 0 || ids[len(ids)-1] != id {
				t.Errorf("user's reservations %v do not end with %s", ids, id)
			}
			for _, fl := range flightsArg(c) {
				k := keyOf(fl)
				if got, was := seats(st, k, c["cabin"].(string)), baseSeats(p, k, c["cabin"].(string)); got != was-np {
					t.Errorf("%s: %d seats left, want %d", k, got, was-np)
				}
			}
		}
	}
	cases = append(cases,
		hcase{name: "book_reservation/direct card", call: step{"book_reservation", fixed(book(direct, booker, pax, card, 3, "yes"))},
			check: checkBooking(direct, booker, card, 3, true)},
		hcase{name: "book_reservation/one stop", call: step{"book_reservation", fixed(book(onestop, booker, pax[:1], card, 0, "no"))},
			check: checkBooking(onestop, booker, card, 0, false)},
	)
	gifted := first(t, p, "users", "a user with a gift card of $150 or more", func(u map[string]any) bool {
		g := method(u, "gift_card")
		return g != nil && num(g["balance"]) >= 150
	})
	gift := method(gifted, "gift_card")
	cheap := f.candidate("search_direct_flight", "LGA", "2024-05-24", "basic_economy", 1, func(c map[string]any) bool { return num(c["price"]) <= num(gift["balance"]) })
	one := list(gifted["saved_passengers"])[:1]
	cases = append(cases, hcase{name: "book_reservation/gift card", call: step{"book_reservation", fixed(book(cheap, gifted, one, gift["id"].(string), 0, "no"))},
		check: func(t *testing.T, st *tools.State, out map[string]any, v any) {
			checkBooking(cheap, gifted, gift["id"].(string), 0, false)(t, st, out, v)
			if got, want := balance(st, gifted["user_id"].(string), gift["id"].(string)), num(gift["balance"])-num(out["total_price"]); got != want {
				t.Errorf("gift card balance %d, want %d", got, want)
			}
		}})
	poor := first(t, p, "users", "a user with a gift card under $100", func(u map[string]any) bool {
		g := method(u, "gift_card")
		return g != nil && num(g["balance"]) < 100
	})
	pricey := f.candidate("search_direct_flight", "SEA", "2024-05-26", "business", 1, func(c map[string]any) bool { return num(c["price"]) > 100 })
	otherCard := method(records(p, "users")[1], "credit_card")["id"].(string)
	// A return flight: the reverse of the direct candidate, three days later.
	back := f.candidate("search_direct_flight", direct["destination"].(string), "2024-05-25", "economy", n, func(c map[string]any) bool { return c["destination"] == direct["origin"] })
	round := map[string]any{"origin": direct["origin"], "destination": direct["destination"], "cabin": "economy",
		"flights": append(slices.Clone(flightsArg(direct)), flightsArg(back)...), "price": num(direct["price"]) + num(back["price"])}
	cases = append(cases, hcase{name: "book_reservation/round trip", call: step{"book_reservation", fixed(book(round, booker, pax, card, 0, "no"))},
		check: func(t *testing.T, st *tools.State, out map[string]any, v any) {
			checkBooking(round, booker, card, 0, false)(t, st, out, v)
			if out["flight_type"] != "round_trip" {
				t.Errorf("flight type %v", out["flight_type"])
			}
		}})
	noSeats := first(t, p, "flight_dates", "available with no basic economy seat", func(r map[string]any) bool {
		return r["status"] == "available" && num(obj(r["available_seats"])["basic_economy"]) == 0
	})
	short := shortConnection(t, p)
	wrongTurn := first(t, p, "flight_dates", "a flight leaving the direct candidate's destination elsewhere than its origin", func(r map[string]any) bool {
		return r["origin"] == direct["destination"] && r["destination"] != direct["origin"] && r["date"] == "2024-05-25" && r["status"] == "available"
	})
	elsewhere := first(t, p, "flight_dates", "a flight from another airport on the same day", func(r map[string]any) bool {
		return r["origin"] != direct["destination"] && r["origin"] != direct["origin"] && r["date"] == "2024-05-22" && r["status"] == "available"
	})
	bookWith := func(mut func(a map[string]any)) func([]tools.Result) any {
		a := book(direct, booker, pax, card, 0, "no")
		mut(a)
		return fixed(a)
	}
	leg := func(r map[string]any) map[string]any {
		return map[string]any{"flight_number": r["flight_number"], "date": r["date"]}
	}
	cases = append(cases,
		hcase{name: "book_reservation/unknown user", call: step{"book_reservation", bookWith(func(a map[string]any) { a["user_id"] = "zed_zed_0000" })}, err: "user zed_zed_0000 not found"},
		hcase{name: "book_reservation/foreign payment", call: step{"book_reservation", bookWith(func(a map[string]any) { a["payment_id"] = otherCard })}, err: "is not one of user"},
		hcase{name: "book_reservation/gift card short", call: step{"book_reservation", fixed(book(pricey, poor, list(poor["saved_passengers"])[:1], method(poor, "gift_card")["id"].(string), 0, "no"))}, err: "not enough for the total"},
		hcase{name: "book_reservation/landed", call: step{"book_reservation", bookWith(func(a map[string]any) {
			a["origin"], a["destination"], a["flights"] = landed["origin"], landed["destination"], []any{leg(landed)}
		})}, err: "its status is landed"},
		hcase{name: "book_reservation/no seats", call: step{"book_reservation", bookWith(func(a map[string]any) {
			a["origin"], a["destination"], a["flights"], a["cabin"] = noSeats["origin"], noSeats["destination"], []any{leg(noSeats)}, "basic_economy"
		})}, err: "has 0 basic economy seats left"},
		hcase{name: "book_reservation/short connection", call: step{"book_reservation", bookWith(func(a map[string]any) {
			a["origin"], a["destination"], a["flights"] = short[0]["origin"], short[1]["destination"], []any{leg(short[0]), leg(short[1])}
		})}, err: "departs less than 45 minutes after"},
		hcase{name: "book_reservation/broken chain", call: step{"book_reservation", bookWith(func(a map[string]any) {
			a["flights"] = append(slices.Clone(flightsArg(direct)), leg(elsewhere))
		})}, err: "but the previous flight"},
		hcase{name: "book_reservation/wrong origin", call: step{"book_reservation", bookWith(func(a map[string]any) { a["origin"] = "DEN" })}, err: "not from DEN"},
		hcase{name: "book_reservation/unknown destination", call: step{"book_reservation", bookWith(func(a map[string]any) { a["destination"] = "XXX" })}, err: "never reach XXX"},
		hcase{name: "book_reservation/never reaches", call: step{"book_reservation", bookWith(func(a map[string]any) {
			a["destination"] = elsewhere["origin"]
		})}, err: "never reach"},
		hcase{name: "book_reservation/no return", call: step{"book_reservation", bookWith(func(a map[string]any) {
			a["flights"] = append(slices.Clone(flightsArg(direct)), leg(wrongTurn))
		})}, err: "must return to"},
		hcase{name: "book_reservation/twice", call: step{"book_reservation", bookWith(func(a map[string]any) {
			a["flights"] = append(slices.Clone(flightsArg(direct)), flightsArg(direct)...)
		})}, err: "is listed twice"},
		hcase{name: "book_reservation/unknown flight", call: step{"book_reservation", bookWith(func(a map[string]any) {
			a["flights"] = []any{map[string]any{"flight_number": "SY999", "date": "2024-05-22"}}
		})}, err: "flight SY999 not found"},
		hcase{name: "book_reservation/outside schedule", call: step{"book_reservation", bookWith(func(a map[string]any) {
			a["flights"] = []any{map[string]any{"flight_number": obj(flightsArg(direct)[0])["flight_number"], "date": "2024-08-01"}}
		})}, err: "does not operate on 2024-08-01"},
		hcase{name: "book_reservation/invalid date", call: step{"book_reservation", bookWith(func(a map[string]any) {
			a["flights"] = []any{map[string]any{"flight_number": "SY100", "date": "2024-13-01"}}
		})}, err: "not a valid date"},
		hcase{name: "book_reservation/same airports", call: step{"book_reservation", bookWith(func(a map[string]any) { a["destination"] = a["origin"] })}, err: "origin and destination are both"},
		hcase{name: "book_reservation/schema", call: step{"book_reservation", bookWith(func(a map[string]any) { a["insurance"] = "maybe" })}, err: "do not match its schema"},
	)

	want := map[string]map[string]any{"search_direct_flight": direct, "search_onestop_flight": onestop}
	for _, tool := range []string{"search_direct_flight", "search_onestop_flight"} {
		args := func(o, d, date, cabin string) func([]tools.Result) any {
			return fixed(map[string]any{"origin": o, "destination": d, "date": date, "cabin": cabin})
		}
		cases = append(cases,
			hcase{name: tool, call: step{tool, args(want[tool]["origin"].(string), want[tool]["destination"].(string), want[tool]["date"].(string), want[tool]["cabin"].(string))},
				check: func(t *testing.T, _ *tools.State, _ map[string]any, v any) {
					found := false
					for _, c := range list(v) {
						if obj(c)["cabin"] != want[tool]["cabin"] || obj(c)["origin"] != want[tool]["origin"] || obj(c)["destination"] != want[tool]["destination"] {
							t.Errorf("candidate %v", c)
						}
						found = found || mustJSON(t, c) == mustJSON(t, want[tool])
					}
					if !found {
						t.Errorf("%v is missing", want[tool])
					}
				}},
			hcase{name: tool + "/past", call: step{tool, args("JFK", "SFO", "2024-05-14", "economy")}, err: "2024-05-14 is in the past"},
			hcase{name: tool + "/same airport", call: step{tool, args("JFK", "JFK", "2024-05-22", "economy")}, err: "origin and destination are both JFK"},
			hcase{name: tool + "/unknown airport", call: step{tool, args("XXX", "SFO", "2024-05-22", "economy")}, err: "airport XXX not found"},
			hcase{name: tool + "/invalid date", call: step{tool, args("JFK", "SFO", "2024-04-31", "economy")}, err: "not a valid date"},
			hcase{name: tool + "/schema", call: step{tool, args("JFK", "SFO", "2024-05-22", "first")}, err: "do not match its schema"},
		)
	}
	cases = append(cases,
		hcase{name: "search_direct_flight/beyond schedule", call: step{"search_direct_flight", fixed(map[string]any{"origin": "JFK", "destination": "SFO", "date": "2024-07-01", "cabin": "economy"})},
			check: func(t *testing.T, _ *tools.State, _ map[string]any, v any) {
				if len(list(v)) != 0 {
					t.Errorf("got %v, want no flights after the schedule", v)
				}
			}})

	// ---- cancel_reservation
	refundable := f.reservation("active, future, business or insured, paid by gift card or certificate", func(r, u map[string]any) bool {
		pay := obj(list(r["payment_history"])[0])["payment_id"].(string)
		return f.active(r) && f.future(r) && (r["cabin"] == "business" || r["insurance"] == "yes") && !strings.HasPrefix(pay, "credit_card")
	})
	stuck := f.reservation("active, future, neither business nor insured, old, no cancelled flight", func(r, u map[string]any) bool {
		return f.active(r) && f.future(r) && r["cabin"] != "business" && r["insurance"] == "no" && now.Sub(stamp(t, r["created_at"])) > 24*time.Hour
	})
	flown := f.reservation("active, business, with a departed flight", func(r, u map[string]any) bool {
		return f.active(r) && r["cabin"] == "business" && f.departed(r)
	})
	cancelled := f.reservation("cancelled", func(r, u map[string]any) bool { return r["status"] == "cancelled" })
	cancel := func(id any) step {
		return step{"cancel_reservation", fixed(map[string]any{"reservation_id": id, "reason": "change of plan"})}
	}
	cases = append(cases,
		hcase{name: "cancel_reservation/refund", call: cancel(refundable["reservation_id"]),
			check: func(t *testing.T, st *tools.State, out map[string]any, _ any) {
				pay := obj(list(refundable["payment_history"])[0])
				amount := num(pay["amount"])
				if num(out["refund_amount"]) != amount || out["status"] != "cancelled" {
					t.Errorf("refund %v status %v, want %d cancelled", out["refund_amount"], out["status"], amount)
				}
				stored := get(st, "reservations", refundable["reservation_id"].(string))
				h := list(stored["payment_history"])
				if stored["status"] != "cancelled" || stored["cancellation_reason"] != "change of plan" || num(obj(h[len(h)-1])["amount"]) != -amount {
					t.Errorf("stored %v", stored)
				}
				u := userOf(p, refundable)
				if got, was := balance(st, u["user_id"].(string), pay["payment_id"].(string)), balance(p.Base.NewState(), u["user_id"].(string), pay["payment_id"].(string)); got != was+amount {
					t.Errorf("balance %d, want %d", got, was+amount)
				}
				np := int64(len(list(refundable["passengers"])))
				for _, fl := range list(refundable["flights"]) {
					k := keyOf(fl)
					if got, was := seats(st, k, refundable["cabin"].(string)), baseSeats(p, k, refundable["cabin"].(string)); got != was+np {
						t.Errorf("%s: %d seats, want %d", k, got, was+np)
					}
				}
			}},
		hcase{name: "cancel_reservation/within 24 hours",
			setup: []step{{"book_reservation", fixed(book(direct, booker, pax, card, 0, "no"))}},
			call: step{"cancel_reservation", func(prev []tools.Result) any {
				return map[string]any{"reservation_id": obj(prev[0].Value)["reservation_id"], "reason": "bad weather"}
			}},
			check: func(t *testing.T, st *tools.State, out map[string]any, _ any) {
				if num(out["refund_amount"]) != num(direct["price"])*n {
					t.Errorf("refund %v, want %d", out["refund_amount"], num(direct["price"])*n)
				}
				for _, fl := range flightsArg(direct) {
					if got, was := seats(st, keyOf(fl), "economy"), baseSeats(p, keyOf(fl), "economy"); got != was {
						t.Errorf("%s: %d seats after book and cancel, want %d", keyOf(fl), got, was)
					}
				}
			}},
		hcase{name: "cancel_reservation/rules", call: cancel(stuck["reservation_id"]), err: "booked more than 24 hours ago"},
		hcase{name: "cancel_reservation/departed", call: cancel(flown["reservation_id"]), err: "has already departed"},
		hcase{name: "cancel_reservation/cancelled", call: cancel(cancelled["reservation_id"]), err: "is cancelled"},
		hcase{name: "cancel_reservation/unknown", call: cancel("ZZZZZ9"), err: "not found"},
		hcase{name: "cancel_reservation/reason", call: step{"cancel_reservation", fixed(map[string]any{"reservation_id": refundable["reservation_id"], "reason": "just because"})}, err: "must be one of"},
	)

	// ---- update_reservation_flights
	upgradable := f.reservation("active, future economy with business seats, user with a credit card", func(r, u map[string]any) bool {
		if !f.active(r) || r["cabin"] != "economy" || !f.future(r) || method(u, "credit_card") == nil {
			return false
		}
		for _, l := range legs(p, r) {
			if num(obj(l["available_seats"])["business"]) < int64(len(list(r["passengers"]))) {
				return false
			}
		}
		return true
	})
	upCard := method(userOf(p, upgradable), "credit_card")["id"].(string)
	movable := f.reservation("active, future, one way, economy, one flight", func(r, u map[string]any) bool {
		return f.active(r) && f.future(r) && r["cabin"] == "economy" && r["flight_type"] == "one_way" && len(list(r["flights"])) == 1 && method(u, "credit_card") != nil
	})
	mvN := int64(len(list(movable["passengers"])))
	moveTo := f.candidate("search_onestop_flight", movable["origin"].(string), obj(list(movable["flights"])[0])["date"].(string), "economy", mvN,
		func(c map[string]any) bool { return c["destination"] == movable["destination"] })
	basic := f.reservation("active, future, basic economy", func(r, u map[string]any) bool {
		return f.active(r) && f.future(r) && r["cabin"] == "basic_economy" && method(u, "credit_card") != nil
	})
	roundRes := f.reservation("active, future, round trip, economy", func(r, u map[string]any) bool {
		return f.active(r) && f.future(r) && r["cabin"] == "economy" && r["flight_type"] == "round_trip" && method(u, "credit_card") != nil
	})
	flownEco := f.reservation("active, economy, first flight departed", func(r, u map[string]any) bool {
		return f.active(r) && r["cabin"] == "economy" && f.departed(r) && method(u, "credit_card") != nil
	})
	certHolder := f.reservation("active, of a user with a certificate", func(r, u map[string]any) bool {
		return f.active(r) && method(u, "certificate") != nil
	})
	changeArgs := func(r map[string]any, cabin string, flights []any, payID string) func([]tools.Result) any {
		return fixed(map[string]any{"reservation_id": r["reservation_id"], "cabin": cabin, "flights": flights, "payment_id": payID})
	}
	cardOf := func(r map[string]any) string { return method(userOf(p, r), "credit_card")["id"].(string) }
	outbound := func(r map[string]any) []any {
		var out []any
		for _, fl := range list(r["flights"]) {
			out = append(out, fl)
			if obj(fl)["destination"] == r["destination"] {
				break
			}
		}
		return out
	}
	nextDay := func(r map[string]any) []any {
		fl := obj(list(r["flights"])[0])
		d, _ := time.Parse("2006-01-02", fl["date"].(string))
		return []any{map[string]any{"flight_number": fl["flight_number"], "date": d.AddDate(0, 0, 1).Format("2006-01-02")}}
	}
	cases = append(cases,
		hcase{name: "update_reservation_flights/upgrade", call: step{"update_reservation_flights", changeArgs(upgradable, "business", list(upgradable["flights"]), upCard)},
			check: func(t *testing.T, st *tools.State, out map[string]any, _ any) {
				np := int64(len(list(upgradable["passengers"])))
				var paid, now int64
				for i, l := range legs(p, upgradable) {
					paid += num(obj(list(upgradable["flights"])[i])["price"])
					now += num(obj(l["prices"])["business"])
					if got, was := seats(st, l["id"].(string), "business"), num(obj(l["available_seats"])["business"]); got != was-np {
						t.Errorf("%v: %d business seats, want %d", l["id"], got, was-np)
					}
					if got, was := seats(st, l["id"].(string), "economy"), num(obj(l["available_seats"])["economy"]); got != was+np {
						t.Errorf("%v: %d economy seats, want %d", l["id"], got, was+np)
					}
				}
				if diff := (now - paid) * np; num(out["price_difference"]) != diff || out["cabin"] != "business" {
					t.Errorf("difference %v cabin %v, want %d business", out["price_difference"], out["cabin"], diff)
				}
				h := list(get(st, "reservations", upgradable["reservation_id"].(string))["payment_history"])
				if last := obj(h[len(h)-1]); last["payment_id"] != upCard || num(last["amount"]) != num(out["price_difference"]) {
					t.Errorf("last payment %v", last)
				}
			}},
		hcase{name: "update_reservation_flights/new flights", call: step{"update_reservation_flights", changeArgs(movable, "economy", flightsArg(moveTo), cardOf(movable))},
			check: func(t *testing.T, st *tools.State, out map[string]any, _ any) {
				paid := num(obj(list(movable["flights"])[0])["price"])
				if diff := (num(moveTo["price"]) - paid) * mvN; num(out["price_difference"]) != diff {
					t.Errorf("difference %v, want %d", out["price_difference"], diff)
				}
				if mustJSON(t, flightsArg(moveTo)) != mustJSON(t, flightsArg(map[string]any{"flights": project(list(out["flights"]))})) {
					t.Errorf("flights %v, want %v", out["flights"], moveTo["flights"])
				}
				old := keyOf(list(movable["flights"])[0])
				if got, was := seats(st, old, "economy"), baseSeats(p, old, "economy"); got != was+mvN {
					t.Errorf("%s: %d seats, want %d", old, got, was+mvN)
				}
			}},
		hcase{name: "update_reservation_flights/basic economy", call: step{"update_reservation_flights", changeArgs(basic, "basic_economy", nextDay(basic), cardOf(basic))}, err: "basic economy, whose flights cannot be changed"},
		hcase{name: "update_reservation_flights/nothing", call: step{"update_reservation_flights", changeArgs(movable, "economy", list(movable["flights"]), cardOf(movable))}, err: "already has these flights"},
		hcase{name: "update_reservation_flights/trip type", call: step{"update_reservation_flights", changeArgs(roundRes, "economy", outbound(roundRes), cardOf(roundRes))}, err: "is round trip but the new flights make a one way trip"},
		hcase{name: "update_reservation_flights/departed", call: step{"update_reservation_flights", changeArgs(flownEco, "business", list(flownEco["flights"]), cardOf(flownEco))}, err: "has already departed"},
		hcase{name: "update_reservation_flights/certificate", call: step{"update_reservation_flights", changeArgs(certHolder, "business", list(certHolder["flights"]), method(userOf(p, certHolder), "certificate")["id"].(string))}, err: "certificates can only pay for new reservations"},
		hcase{name: "update_reservation_flights/foreign payment", call: step{"update_reservation_flights", changeArgs(movable, "business", list(movable["flights"]), otherCard)}, err: "is not one of user"},
		hcase{name: "update_reservation_flights/cancelled", call: step{"update_reservation_flights", changeArgs(cancelled, "business", list(cancelled["flights"]), otherCard)}, err: "is cancelled"},
	)

	// ---- update_reservation_baggages
	bagRes := f.reservation("active, future, basic economy, regular member", func(r, u map[string]any) bool {
		return f.active(r) && f.future(r) && r["cabin"] == "basic_economy" && u["membership"] == "regular" && method(u, "credit_card") != nil
	})
	bagUser := userOf(p, bagRes)
	bagN := int64(len(list(bagRes["passengers"])))
	bagTotal := num(bagRes["total_baggages"]) + 2
	bagWant := max(num(bagRes["nonfree_baggages"]), bagTotal-freeBags(bagUser["membership"], bagRes["cabin"])*bagN)
	allFlown := f.reservation("active, every flight departed", func(r, u map[string]any) bool {
		ls := legs(p, r)
		return f.active(r) && !stamp(t, ls[len(ls)-1]["scheduled_departure"]).After(now)
	})
	bags := func(r map[string]any, total int64, payID string, nonfree ...int64) func([]tools.Result) any {
		a := map[string]any{"reservation_id": r["reservation_id"], "total_baggages": total, "payment_id": payID}
		if len(nonfree) > 0 {
			a["nonfree_baggages"] = nonfree[0]
		}
		return fixed(a)
	}
	checkBags := func(t *testing.T, st *tools.State, out map[string]any, _ any) {
		fee := (bagWant - num(bagRes["nonfree_baggages"])) * 40
		if num(out["baggage_fee"]) != fee || num(out["total_baggages"]) != bagTotal || num(out["nonfree_baggages"]) != bagWant {
			t.Errorf("fee %v bags %v/%v, want %d %d/%d", out["baggage_fee"], out["total_baggages"], out["nonfree_baggages"], fee, bagTotal, bagWant)
		}
		h := list(get(st, "reservations", bagRes["reservation_id"].(string))["payment_history"])
		if fee > 0 && num(obj(h[len(h)-1])["amount"]) != fee {
			t.Errorf("payment history %v does not end with the fee %d", h, fee)
		}
	}
	cases = append(cases,
		hcase{name: "update_reservation_baggages", call: step{"update_reservation_baggages", bags(bagRes, bagTotal, cardOf(bagRes))}, check: checkBags},
		hcase{name: "update_reservation_baggages/explicit nonfree", call: step{"update_reservation_baggages", bags(bagRes, bagTotal, cardOf(bagRes), bagWant)}, check: checkBags},
		hcase{name: "update_reservation_baggages/wrong nonfree", call: step{"update_reservation_baggages", bags(bagRes, bagTotal, cardOf(bagRes), bagWant+1)}, err: fmt.Sprintf("nonfree_baggages must be %d", bagWant)},
		hcase{name: "update_reservation_baggages/same", call: step{"update_reservation_baggages", bags(bagRes, num(bagRes["total_baggages"]), cardOf(bagRes))}, err: "already has"},
		hcase{name: "update_reservation_baggages/certificate", call: step{"update_reservation_baggages", bags(certHolder, num(certHolder["total_baggages"])+1, method(userOf(p, certHolder), "certificate")["id"].(string))}, err: "certificates can only pay"},
		hcase{name: "update_reservation_baggages/departed", call: step{"update_reservation_baggages", bags(allFlown, num(allFlown["total_baggages"])+1, cardOf(allFlown))}, err: "has departed"},
	)
	if num(bagRes["total_baggages"]) > 0 {
		cases = append(cases, hcase{name: "update_reservation_baggages/remove", call: step{"update_reservation_baggages", bags(bagRes, num(bagRes["total_baggages"])-1, cardOf(bagRes))}, err: "can only be added"})
	} else {
		cases = append(cases, hcase{name: "update_reservation_baggages/remove",
			setup: []step{{"update_reservation_baggages", bags(bagRes, 2, cardOf(bagRes))}},
			call:  step{"update_reservation_baggages", bags(bagRes, 1, cardOf(bagRes))}, err: "can only be added"})
	}

	// ---- update_reservation_passengers
	paxRes := f.reservation("active, future, two passengers", func(r, u map[string]any) bool {
		return f.active(r) && f.future(r) && len(list(r["passengers"])) == 2
	})
	newPax := []any{
		map[string]any{"first_name": "Ada", "last_name": "Lovelace", "dob": "1990-12-10"},
		map[string]any{"first_name": "Alan", "last_name": "Turing", "dob": "1992-06-23"},
	}
	paxArgs := func(r map[string]any, ps []any) func([]tools.Result) any {
		return fixed(map[string]any{"reservation_id": r["reservation_id"], "passengers": ps})
	}
	cases = append(cases,
		hcase{name: "update_reservation_passengers", call: step{"update_reservation_passengers", paxArgs(paxRes, newPax)},
			check: func(t *testing.T, st *tools.State, out map[string]any, _ any) {
				if mustJSON(t, get(st, "reservations", paxRes["reservation_id"].(string))["passengers"]) != mustJSON(t, newPax) {
					t.Errorf("passengers %v", out["passengers"])
				}
			}},
		hcase{name: "update_reservation_passengers/count", call: step{"update_reservation_passengers", paxArgs(paxRes, newPax[:1])}, err: "the number of passengers cannot change"},
		hcase{name: "update_reservation_passengers/same", call: step{"update_reservation_passengers", paxArgs(paxRes, list(paxRes["passengers"]))}, err: "already has these passengers"},
		hcase{name: "update_reservation_passengers/departed", call: step{"update_reservation_passengers", paxArgs(flown, list(flown["passengers"]))}, err: "has already departed"},
		hcase{name: "update_reservation_passengers/cancelled", call: step{"update_reservation_passengers", paxArgs(cancelled, newPax)}, err: "is cancelled"},
	)

	// ---- send_certificate: per reservation complained about
	var owedRes, plainRes, regularRes map[string]any
	var amount int64
	for _, r := range records(p, "reservations") {
		u := userOf(p, r)
		a, disrupted := compensation(p, u, r)
		switch {
		case a > 0 && owedRes == nil:
			owedRes, amount = r, a
		case r["status"] == "active" && !disrupted && plainRes == nil:
			plainRes = r
		case r["status"] == "active" && disrupted && a == 0 && regularRes == nil:
			regularRes = r
		}
	}
	if owedRes == nil || plainRes == nil || regularRes == nil {
		t.Fatal("the generated data lacks a compensated, an undisrupted or a regular member's disrupted reservation")
	}
	wrong := int64(50)
	if amount == 50 {
		wrong = 100
	}
	cert := func(r map[string]any, a int64) step {
		return step{"send_certificate", fixed(map[string]any{"user_id": r["user_id"], "reservation_id": r["reservation_id"], "amount": a})}
	}
	cases = append(cases,
		hcase{name: "send_certificate", call: cert(owedRes, amount),
			check: func(t *testing.T, st *tools.State, out map[string]any, _ any) {
				id, _ := out["certificate_id"].(string)
				if !strings.HasPrefix(id, "certificate_") || num(out["amount"]) != amount {
					t.Errorf("got %v", out)
				}
				if got := balance(st, owedRes["user_id"].(string), id); got != amount {
					t.Errorf("certificate %s holds %d, want %d", id, got, amount)
				}
			}},
		hcase{name: "send_certificate/wrong amount", call: cert(owedRes, wrong), err: "qualifies for a certificate of"},
		hcase{name: "send_certificate/no disruption", call: cert(plainRes, 100), err: "was cancelled or delayed"},
		hcase{name: "send_certificate/regular member", call: cert(regularRes, 100), err: "does not qualify for compensation: the user is a regular member"},
		hcase{name: "send_certificate/schema", call: cert(owedRes, 75), err: "do not match its schema"},
		hcase{name: "send_certificate/other user", call: step{"send_certificate", fixed(map[string]any{"user_id": plainRes["user_id"], "reservation_id": owedRes["reservation_id"], "amount": amount})}, err: "does not belong to user"},
	)

	// ---- generic
	for _, c := range []struct {
		expr string
		want any
		err  string
	}{
		{"2 * (189 + 45) - 30 / 4", 460.5, ""},
		{"1+2*3", int64(7), ""},
		{"-(2+3)*2", int64(-10), ""},
		{"2*-3", int64(-6), ""},
		{"10/4", 2.5, ""},
		{"1/3", 0.33, ""},
		{"(1+2", nil, "unbalanced parentheses"},
		{"1+2)", nil, "unbalanced parentheses"},
		{"1/0", nil, "division by zero"},
		{"2 ^ 3", nil, "not \"^\""},
		{"1 2", nil, "two numbers"},
		{"1.2.3", nil, "is not a number"},
		{"*3", nil, "missing its left operand"},
		{"3-", nil, "ends with an operator"},
	} {
		hc := hcase{name: "calculate/" + c.expr, call: step{"calculate", fixed(map[string]any{"expression": c.expr})}, err: c.err}
		if c.err == "" {
			want := c.want
			hc.check = func(t *testing.T, _ *tools.State, _ map[string]any, v any) {
				if fmt.Sprint(v) != fmt.Sprint(want) {
					t.Errorf("got %v (%T), want %v", v, v, want)
				}
			}
		}
		cases = append(cases, hc)
	}
	cases = append(cases, hcase{name: "transfer_to_human_agents", call: step{"transfer_to_human_agents", fixed(map[string]any{"summary": "wants a refund for a landed flight"})},
		check: func(t *testing.T, _ *tools.State, _ map[string]any, v any) {
			if v != "Transfer successful" {
				t.Errorf("got %v", v)
			}
		}})
	return cases
}

// project keeps the flight number and date of reservation flights.
func project(fl []any) []any {
	out := make([]any, len(fl))
	for i, x := range fl {
		out[i] = map[string]any{"flight_number": obj(x)["flight_number"], "date": obj(x)["date"]}
	}
	return out
}

// compensation mirrors the policy's certificate rule for one
// reservation of user u: the amount owed (0: none) and whether one of its
// flights was cancelled or delayed.
func compensation(p *pack.Pack, u, r map[string]any) (int64, bool) {
	if r["status"] != "active" {
		return 0, false
	}
	per := int64(0)
	for _, l := range legs(p, r) {
		switch {
		case l["status"] == "cancelled":
			per = 100
		case l["status"] == "delayed" && per == 0:
			per = 50
		}
	}
	if per == 0 || u["membership"] == "regular" && r["cabin"] != "business" && r["insurance"] != "yes" {
		return 0, per > 0
	}
	return min(500, per*int64(len(list(r["passengers"])))), true
}

// shortConnection finds two available flights on one day where the second
// leaves the first's destination less than 45 minutes after it lands.
func shortConnection(t *testing.T, p *pack.Pack) [2]map[string]any {
	byOrigin := map[string][]map[string]any{}
	for _, r := range records(p, "flight_dates") {
		if r["status"] == "available" {
			k := r["origin"].(string) + r["date"].(string)
			byOrigin[k] = append(byOrigin[k], r)
		}
	}
	for _, a := range records(p, "flight_dates") {
		if a["status"] != "available" {
			continue
		}
		for _, b := range byOrigin[a["destination"].(string)+a["date"].(string)] {
			wait := stamp(t, b["scheduled_departure"]).Sub(stamp(t, a["scheduled_arrival"]))
			if wait >= 0 && wait < 45*time.Minute && b["destination"] != a["origin"] {
				return [2]map[string]any{a, b}
			}
		}
	}
	t.Fatal("no short connection in the generated data")
	return [2]map[string]any{}
}

// FuzzCalculate feeds agent-written expressions to the calculate handler:
// every input must give a number or a business error from fail(), never a
// Starlark runtime error or a non-JSON result.
func FuzzCalculate(f *testing.F) {
	for _, s := range []string{"2 * (189 + 45) - 30 / 4", "-(1)", "1..2", "((", "1e5", "9999999999999999999999 * 99999999999999999999", ".", "1.", "--3", "3 -- 3", "(())"} {
		f.Add(s)
	}
	p := load(f)
	f.Fuzz(func(t *testing.T, expr string) {
		args := mustJSON(t, map[string]any{"expression": expr})
		r := p.Tools.Call(t.Context(), p.Base.NewState(), "calculate", args)
		if !r.Err {
			switch r.Value.(type) {
			case int64, float64:
			default:
				t.Fatalf("%q gave %T %v", expr, r.Value, r.Value)
			}
			return
		}
		if strings.Contains(r.Output, "handler calculate") {
			t.Fatalf("%q: %s", expr, r.Output)
		}
	})
}
