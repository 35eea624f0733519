package airline

import (
	"context"
	"testing"

	"github.com/synth-data/synth/tools"
)

// BenchmarkSearch runs direct and one-stop searches over a spread of
// routes and dates, as a read-heavy booking task does; one op is one
// tool call. Run with -cpu 1 for calls per second per core.
func BenchmarkSearch(b *testing.B) {
	p := load(b)
	ctx := context.Background()
	st := p.Base.NewState()
	routes := [][2]string{{"JFK", "SFO"}, {"LGA", "MIA"}, {"BOS", "DEN"}, {"OAK", "ORD"}, {"SEA", "MCO"}, {"PHX", "EWR"}, {"LAX", "DCA"}, {"IAH", "MSP"}}
	dates := []string{"2024-05-18", "2024-05-23", "2024-05-30", "2024-06-06"}
	var calls []string
	for _, r := range routes {
		for _, d := range dates {
			calls = append(calls, mustJSON(b, map[string]any{"origin": r[0], "destination": r[1], "date": d, "cabin": "economy"}))
		}
	}
	tools := []string{"search_direct_flight", "search_onestop_flight"}
	b.ReportAllocs()
	defer reportRate(b)()
	for i := 0; b.Loop(); i++ {
		if r := p.Tools.Call(ctx, st, tools[i%2], calls[(i/2)%len(calls)]); r.Err {
			b.Fatal(r.Output)
		}
	}
}

// BenchmarkBook books a one-stop itinerary for two passengers on a fresh
// episode state each time (a booking is the write that ends a search task).
func BenchmarkBook(b *testing.B) {
	p := load(b)
	ctx := context.Background()
	var user map[string]any
	for _, u := range records(p, "users") {
		if len(list(u["saved_passengers"])) == 2 && method(u, "credit_card") != nil {
			user = u
			break
		}
	}
	var cand map[string]any
	for _, c := range search(b, p, p.Base.NewState(), "search_onestop_flight", "JFK", "SFO", "2024-05-22", "economy") {
		if num(c["seats_left"]) >= 2 {
			cand = c
			break
		}
	}
	if user == nil || cand == nil {
		b.Fatal("no user or itinerary to book")
	}
	args := mustJSON(b, map[string]any{
		"user_id": user["user_id"], "origin": cand["origin"], "destination": cand["destination"], "cabin": "economy",
		"flights": cand["flights"], "passengers": user["saved_passengers"], "payment_id": method(user, "credit_card")["id"],
		"total_baggages": 2, "insurance": "yes",
	})
	var st *tools.State
	b.ReportAllocs()
	defer reportRate(b)()
	for b.Loop() {
		st = p.Base.NewState()
		if r := p.Tools.Call(ctx, st, "book_reservation", args); r.Err {
			b.Fatal(r.Output)
		}
	}
}

// reportRate starts measuring; the returned func reports calls per second
// of wall time and per second of CPU time (the figure that holds on a
// busy machine; with -cpu 1 it is calls per second per core).
func reportRate(b *testing.B) func() {
	start, ok := cpuTime()
	return func() {
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		if end, ok2 := cpuTime(); ok && ok2 && end > start {
			b.ReportMetric(float64(b.N)/(end-start).Seconds(), "calls/cpu-s")
		}
	}
}
