package airline

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// loadSeed1 loads the pack once for the whole package: generating the
// database takes a noticeable fraction of a second, more under -race.
var loadSeed1 = sync.OnceValues(func() (*pack.Pack, error) {
	return pack.Load(context.Background(), FS(), 1, pack.Options{})
})

func load(tb testing.TB) *pack.Pack {
	tb.Helper()
	p, err := loadSeed1()
	if err != nil {
		tb.Fatalf("load the airline pack: %v", err)
	}
	return p
}

// now is the pack's clock.
var now = time.Date(2024, 5, 15, 15, 0, 0, 0, time.FixedZone("EST", -5*3600))

func stamp(tb testing.TB, s any) time.Time {
	tb.Helper()
	t, err := time.Parse(time.RFC3339, s.(string))
	if err != nil {
		tb.Fatalf("time %v: %v", s, err)
	}
	return t
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func num(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	case int:
		return int64(x)
	}
	return -1 << 62
}

func get(st *tools.State, coll, key string) map[string]any {
	v, ok := st.Get(coll, key)
	if !ok {
		return nil
	}
	return obj(v)
}

func mustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// records lists a collection's records of the base in key order.
func records(p *pack.Pack, coll string) []map[string]any {
	keys := p.Base.Keys(coll)
	out := make([]map[string]any, 0, len(keys))
	for _, k := range keys {
		v, _ := p.Base.Get(coll, k)
		out = append(out, obj(v))
	}
	return out
}

func first(tb testing.TB, p *pack.Pack, coll, what string, pred func(map[string]any) bool) map[string]any {
	tb.Helper()
	for _, r := range records(p, coll) {
		if pred(r) {
			return r
		}
	}
	tb.Fatalf("no %s record is %s: the generated data should hold one", coll, what)
	return nil
}

func instance(p *pack.Pack, flight, date any) map[string]any {
	v, _ := p.Base.Get("flight_dates", fmt.Sprint(flight)+"@"+fmt.Sprint(date))
	return obj(v)
}

func legs(p *pack.Pack, res map[string]any) []map[string]any {
	var out []map[string]any
	for _, f := range list(res["flights"]) {
		out = append(out, instance(p, obj(f)["flight_number"], obj(f)["date"]))
	}
	return out
}

// future: every flight of the reservation departs after now and is available.
func future(tb testing.TB, p *pack.Pack, res map[string]any) bool {
	for _, l := range legs(p, res) {
		if l == nil || l["status"] != "available" || !stamp(tb, l["scheduled_departure"]).After(now) {
			return false
		}
	}
	return true
}

func departed(tb testing.TB, p *pack.Pack, res map[string]any) bool {
	for _, l := range legs(p, res) {
		if l["status"] != "cancelled" && !stamp(tb, l["scheduled_departure"]).After(now) {
			return true
		}
	}
	return false
}

func userOf(p *pack.Pack, res map[string]any) map[string]any {
	v, _ := p.Base.Get("users", res["user_id"].(string))
	return obj(v)
}

func method(user map[string]any, source string) map[string]any {
	for _, m := range list(user["payment_methods"]) {
		if obj(m)["source"] == source {
			return obj(m)
		}
	}
	return nil
}

func freeBags(membership, cabin any) int64 {
	table := map[string]map[string]int64{
		"regular": {"basic_economy": 0, "economy": 1, "business": 2},
		"silver":  {"basic_economy": 1, "economy": 1, "business": 2},
		"gold":    {"basic_economy": 1, "economy": 2, "business": 3},
	}
	return table[membership.(string)][cabin.(string)]
}

func call(tb testing.TB, p *pack.Pack, st *tools.State, tool string, args any) tools.Result {
	tb.Helper()
	s, ok := args.(string)
	if !ok {
		s = mustJSON(tb, args)
	}
	return p.Tools.Call(context.Background(), st, tool, s)
}

func TestPackValidates(t *testing.T) {
	for _, pr := range pack.Validate(context.Background(), FS(), pack.Options{}) {
		t.Errorf("%s", pr)
	}
}

func TestToolKinds(t *testing.T) {
	p := load(t)
	want := map[string]string{
		"get_user_details": record.KindRead, "get_reservation_details": record.KindRead,
		"search_direct_flight": record.KindRead, "search_onestop_flight": record.KindRead,
		"list_all_airports": record.KindRead, "get_flight_status": record.KindRead,
		"book_reservation": record.KindWrite, "cancel_reservation": record.KindWrite,
		"update_reservation_flights": record.KindWrite, "update_reservation_baggages": record.KindWrite,
		"update_reservation_passengers": record.KindWrite, "send_certificate": record.KindWrite,
		"calculate": record.KindGeneric, "transfer_to_human_agents": record.KindGeneric,
	}
	if got := len(p.Tools.Tools()); got != len(want) {
		t.Errorf("%d tools, want %d", got, len(want))
	}
	for name, kind := range want {
		if got := p.Tools.Kind(name); got != kind {
			t.Errorf("%s: kind %q, want %q", name, got, kind)
		}
	}
}

func TestGeneratorDeterministic(t *testing.T) {
	ctx := context.Background()
	a := load(t)
	b, err := pack.Load(ctx, FS(), 1, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Base.Hash() != b.Base.Hash() {
		t.Errorf("seed 1 gave two databases: %s and %s", a.Base.Hash(), b.Base.Hash())
	}
	c, err := pack.Load(ctx, FS(), 2, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Base.Hash() == c.Base.Hash() {
		t.Error("seeds 1 and 2 gave the same database")
	}
}

func TestGeneratorInvariants(t *testing.T) {
	p := load(t)
	counts := map[string][2]int{"airports": {20, 20}, "flights": {250, 360}, "users": {500, 500}, "reservations": {2000, 2000}}
	for coll, r := range counts {
		if n := len(p.Base.Keys(coll)); n < r[0] || n > r[1] {
			t.Errorf("%d %s, want %d..%d", n, coll, r[0], r[1])
		}
	}
	if n, want := len(p.Base.Keys("flight_dates")), 31*len(p.Base.Keys("flights")); n != want {
		t.Errorf("%d flight dates, want one per flight and date (%d)", n, want)
	}
	for _, f := range records(p, "flights") {
		if _, ok := p.Base.Get("airports", f["origin"].(string)); !ok {
			t.Errorf("flight %v: unknown origin %v", f["flight_number"], f["origin"])
		}
		if f["origin"] == f["destination"] {
			t.Errorf("flight %v flies from %v to itself", f["flight_number"], f["origin"])
		}
	}
	statuses := map[string]bool{"available": true, "on time": true, "delayed": true, "flying": true, "landed": true, "cancelled": true}
	for _, fd := range records(p, "flight_dates") {
		for _, c := range []string{"basic_economy", "economy", "business"} {
			if num(obj(fd["available_seats"])[c]) < 0 {
				t.Errorf("%v: %d %s seats", fd["id"], num(obj(fd["available_seats"])[c]), c)
			}
			if num(obj(fd["prices"])[c]) <= 0 {
				t.Errorf("%v: %s price %v", fd["id"], c, obj(fd["prices"])[c])
			}
		}
		if !statuses[fd["status"].(string)] {
			t.Errorf("%v: status %v", fd["id"], fd["status"])
		}
		dep, arr := stamp(t, fd["scheduled_departure"]), stamp(t, fd["scheduled_arrival"])
		if int64(arr.Sub(dep).Minutes()) != num(fd["duration_minutes"]) || num(fd["duration_minutes"]) < 30 {
			t.Errorf("%v: departs %v, arrives %v, lasts %v minutes", fd["id"], dep, arr, fd["duration_minutes"])
		}
		if (fd["status"] == "available") != dep.After(now) && fd["status"] != "cancelled" && dep.Format("2006-01-02") != "2024-05-15" {
			t.Errorf("%v: status %v but departs %v", fd["id"], fd["status"], dep)
		}
	}
	idPattern := regexp.MustCompile(`^[A-Z0-9]{6}$`)
	owned := map[string][]string{}
	for _, res := range records(p, "reservations") {
		id := res["reservation_id"].(string)
		if !idPattern.MatchString(id) {
			t.Errorf("reservation id %q is not 6 uppercase alphanumerics", id)
		}
		user := userOf(p, res)
		if user == nil {
			t.Errorf("%s: unknown user %v", id, res["user_id"])
			continue
		}
		owned[user["user_id"].(string)] = append(owned[user["user_id"].(string)], id)
		ls := legs(p, res)
		var fare int64
		for i, l := range ls {
			f := obj(list(res["flights"])[i])
			if l == nil {
				t.Errorf("%s: flight %v does not operate on %v", id, f["flight_number"], f["date"])
				continue
			}
			if l["origin"] != f["origin"] || l["destination"] != f["destination"] {
				t.Errorf("%s: flight %v is %v-%v, the reservation says %v-%v", id, f["flight_number"], l["origin"], l["destination"], f["origin"], f["destination"])
			}
			if i > 0 {
				prev := ls[i-1]
				if prev != nil && (prev["destination"] != l["origin"] || stamp(t, l["scheduled_departure"]).Sub(stamp(t, prev["scheduled_arrival"])) < 45*time.Minute) {
					t.Errorf("%s: flight %v does not connect to %v", id, l["id"], prev["id"])
				}
			}
			fare += num(f["price"])
		}
		if ls[0] != nil && ls[0]["origin"] != res["origin"] {
			t.Errorf("%s: starts at %v, not at its origin %v", id, ls[0]["origin"], res["origin"])
		}
		n := int64(len(list(res["passengers"])))
		if n < 1 || n > 5 {
			t.Errorf("%s: %d passengers", id, n)
		}
		nonfree := max(0, num(res["total_baggages"])-freeBags(user["membership"], res["cabin"])*n)
		if num(res["nonfree_baggages"]) != nonfree {
			t.Errorf("%s: %v non-free bags, want %d", id, res["nonfree_baggages"], nonfree)
		}
		insurance := int64(0)
		if res["insurance"] == "yes" {
			insurance = 25 * n
		}
		var paid int64
		for _, pay := range list(res["payment_history"]) {
			paid += num(obj(pay)["amount"])
			if !slices.ContainsFunc(list(user["payment_methods"]), func(m any) bool { return obj(m)["id"] == obj(pay)["payment_id"] }) {
				t.Errorf("%s: paid with %v, not a method of %v", id, obj(pay)["payment_id"], user["user_id"])
			}
		}
		want := fare*n + nonfree*40 + insurance
		if res["status"] == "cancelled" {
			want = 0
		}
		if paid != want {
			t.Errorf("%s: payments sum to %d, want %d", id, paid, want)
		}
		if !stamp(t, res["created_at"]).Before(now) {
			t.Errorf("%s: created %v, after the clock", id, res["created_at"])
		}
	}
	for _, u := range records(p, "users") {
		var ids []string
		for _, r := range list(u["reservations"]) {
			ids = append(ids, r.(string))
		}
		slices.Sort(ids)
		got := owned[u["user_id"].(string)]
		slices.Sort(got)
		if !slices.Equal(ids, got) {
			t.Errorf("user %v lists reservations %v, owns %v", u["user_id"], ids, got)
		}
		if len(list(u["saved_passengers"])) == 0 || method(u, "credit_card") == nil {
			t.Errorf("user %v has no saved passenger or no credit card", u["user_id"])
		}
	}
}

// search returns a search's candidates, failing the test on an error.
func search(tb testing.TB, p *pack.Pack, st *tools.State, tool, origin, destination, date, cabin string) []map[string]any {
	tb.Helper()
	r := call(tb, p, st, tool, map[string]any{"origin": origin, "destination": destination, "date": date, "cabin": cabin})
	if r.Err {
		tb.Fatalf("%s %s-%s %s: %s", tool, origin, destination, date, r.Output)
	}
	var out []map[string]any
	for _, c := range list(r.Value) {
		out = append(out, obj(c))
	}
	return out
}

func TestSearchCandidates(t *testing.T) {
	p := load(t)
	st := p.Base.NewState()
	total := 0
	for _, f := range records(p, "flights")[:40] {
		for _, date := range []string{"2024-05-16", "2024-05-25"} {
			for _, tool := range []string{"search_direct_flight", "search_onestop_flight"} {
				for _, c := range search(t, p, st, tool, f["origin"].(string), f["destination"].(string), date, "economy") {
					total++
					fl := list(c["flights"])
					if num(c["stops"]) != int64(len(fl)-1) || (tool == "search_direct_flight") != (len(fl) == 1) {
						t.Errorf("%s: %d flights, %v stops", tool, len(fl), c["stops"])
					}
					var price int64
					seats := int64(1 << 30)
					var prev map[string]any
					for i, x := range fl {
						inst := instance(p, obj(x)["flight_number"], obj(x)["date"])
						if inst["status"] != "available" {
							t.Errorf("%v: status %v", inst["id"], inst["status"])
						}
						price += num(obj(inst["prices"])["economy"])
						seats = min(seats, num(obj(inst["available_seats"])["economy"]))
						if i == 0 && (inst["origin"] != f["origin"] || obj(x)["date"] != date) {
							t.Errorf("%v does not leave %v on %s", inst["id"], f["origin"], date)
						}
						if prev != nil {
							wait := stamp(t, inst["scheduled_departure"]).Sub(stamp(t, prev["scheduled_arrival"]))
							if inst["origin"] != prev["destination"] || wait < 45*time.Minute || wait > 6*time.Hour {
								t.Errorf("%v does not connect to %v (wait %v)", inst["id"], prev["id"], wait)
							}
						}
						prev = inst
					}
					if prev["destination"] != f["destination"] {
						t.Errorf("candidate ends at %v, not %v", prev["destination"], f["destination"])
					}
					if num(c["price"]) != price || num(c["seats_left"]) != seats || seats < 1 {
						t.Errorf("candidate price %v seats %v, want %d and %d", c["price"], c["seats_left"], price, seats)
					}
					dur := stamp(t, c["arrival"]).Sub(stamp(t, c["departure"]))
					if int64(dur.Minutes()) != num(c["duration_minutes"]) {
						t.Errorf("duration %v minutes, times say %v", c["duration_minutes"], dur)
					}
				}
			}
		}
	}
	if total < 100 {
		t.Errorf("only %d candidates over 160 searches", total)
	}
}

// TestSearchGrid is WRIT's read-heavy booking: a customer flexible on two
// dates and two origin airports wants the cheapest (or fastest) itinerary
// to one destination, so the agent makes 2 x 2 x 2 searches. The data must
// give several candidates with a single best one for most such grids.
func TestSearchGrid(t *testing.T) {
	p := load(t)
	st := p.Base.NewState()
	origins := [][2]string{{"JFK", "LGA"}, {"SFO", "OAK"}, {"JFK", "EWR"}, {"BOS", "PHL"}, {"LAX", "LAS"}, {"SEA", "PHX"}}
	destinations := []string{"MIA", "DEN", "ORD", "SEA", "MCO", "IAH", "DCA", "SFO"}
	dates := [][2]string{{"2024-05-20", "2024-05-21"}, {"2024-06-01", "2024-06-02"}}
	grids, rich, unique, differ := 0, 0, 0, 0
	for _, o := range origins {
		for _, dst := range destinations {
			if dst == o[0] || dst == o[1] {
				continue
			}
			for _, d := range dates {
				var cands []map[string]any
				for _, origin := range o {
					for _, date := range d {
						for _, tool := range []string{"search_direct_flight", "search_onestop_flight"} {
							cands = append(cands, search(t, p, st, tool, origin, dst, date, "economy")...)
						}
					}
				}
				grids++
				if len(cands) < 4 {
					continue
				}
				rich++
				cheap, okc := best(cands, "price")
				fast, okf := best(cands, "duration_minutes")
				if okc && okf {
					unique++
					if mustJSON(t, cheap["flights"]) != mustJSON(t, fast["flights"]) {
						differ++
					}
				}
			}
		}
	}
	t.Logf("%d grids: %d with 4+ candidates, %d with a unique cheapest and fastest, %d where they differ", grids, rich, unique, differ)
	if rich < grids*8/10 {
		t.Errorf("%d of %d grids have 4+ candidates, want 80%%", rich, grids)
	}
	if unique < rich*8/10 {
		t.Errorf("%d of %d grids have a unique cheapest and fastest candidate, want 80%%", unique, rich)
	}
	if differ < unique/3 {
		t.Errorf("the cheapest is also the fastest in %d of %d grids: the criterion should matter", unique-differ, unique)
	}
}

// best is the candidate with the smallest field, false on a tie.
func best(cands []map[string]any, field string) (map[string]any, bool) {
	var b map[string]any
	tie := false
	for _, c := range cands {
		switch {
		case b == nil || num(c[field]) < num(b[field]):
			b, tie = c, false
		case num(c[field]) == num(b[field]):
			tie = true
		}
	}
	return b, !tie
}

// TestWRITBooking plays WRIT's example at the tool level: the customer's
// profile, then direct and one-stop searches for two origins and two
// dates (nine reads), then booking the cheapest itinerary found.
func TestWRITBooking(t *testing.T) {
	p := load(t)
	st := p.Base.NewState()
	user := first(t, p, "users", "a user with a credit card", func(u map[string]any) bool { return method(u, "credit_card") != nil })
	reads := 0
	if r := call(t, p, st, "get_user_details", map[string]any{"user_id": user["user_id"]}); r.Err {
		t.Fatal(r.Output)
	}
	reads++
	var cands []map[string]any
	for _, origin := range []string{"JFK", "LGA"} {
		for _, date := range []string{"2024-05-27", "2024-05-28"} {
			for _, tool := range []string{"search_direct_flight", "search_onestop_flight"} {
				cands = append(cands, search(t, p, st, tool, origin, "MIA", date, "economy")...)
				reads++
			}
		}
	}
	if reads != 9 {
		t.Fatalf("%d reads, want 9", reads)
	}
	cheapest, ok := best(cands, "price")
	if !ok || len(cands) < 4 {
		t.Fatalf("%d candidates without a unique cheapest: pick another grid for this seed", len(cands))
	}
	pax := list(user["saved_passengers"])
	r := call(t, p, st, "book_reservation", map[string]any{
		"user_id": user["user_id"], "origin": cheapest["origin"], "destination": cheapest["destination"], "cabin": cheapest["cabin"],
		"flights": cheapest["flights"], "passengers": pax, "payment_id": method(user, "credit_card")["id"], "total_baggages": 0, "insurance": "no",
	})
	if r.Err {
		t.Fatal(r.Output)
	}
	if got, want := num(obj(r.Value)["total_price"]), num(cheapest["price"])*int64(len(pax)); got != want {
		t.Errorf("total %d, want %d", got, want)
	}
}
