package airline

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/synth-data/synth/domains/tau2"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/tools"
)

// The clock's day and time (domain.yaml's clock) and the schedule's
// window around it (generator.star).
const (
	today    = "2024-05-15"
	nowStamp = "2024-05-15T15:00:00"
	firstDay = "2024-05-01"
	lastDay  = "2024-06-12"
)

func options() pack.Options { return pack.Options{Builtins: tau2.HandlerSets()} }

// loadSeed1 loads the pack once for the whole package: generating the
// database takes a noticeable fraction of a second, more under -race.
var loadSeed1 = sync.OnceValues(func() (*pack.Pack, error) {
	return pack.Load(context.Background(), FS(), 1, options())
})

func load(tb testing.TB) *pack.Pack {
	tb.Helper()
	p, err := loadSeed1()
	if err != nil {
		tb.Fatalf("load the airline pack: %v", err)
	}
	return p
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func num(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case int:
		return float64(x)
	}
	return -1 << 62
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

func get(p *pack.Pack, coll, key string) map[string]any {
	v, _ := p.Base.Get(coll, key)
	return obj(v)
}

// day is a flight's record for one date.
func day(p *pack.Pack, number, date any) map[string]any {
	f := get(p, "flights", number.(string))
	return obj(obj(f["dates"])[date.(string)])
}

func TestPackValidates(t *testing.T) {
	for _, pr := range pack.Validate(context.Background(), FS(), options()) {
		t.Errorf("%s", pr)
	}
	p := load(t)
	if left := pack.Uncovered(p.Policy, p.Manifest.Rules, p.Manifest.Unchecked); len(left) > 0 {
		t.Errorf("policy sentences no rule or unchecked entry covers: %q", left)
	}
}

// TestToolsFromHandlerSet: the pack's tools.json is the τ² airline
// handler set's own, byte for byte, and the folder holds no copy of it.
func TestToolsFromHandlerSet(t *testing.T) {
	got, err := fs.ReadFile(FS(), "tools.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, tau2.AirlineTools()) {
		t.Error("tools.json is not the τ² airline handler set's tools")
	}
	if _, err := fs.Stat(files, "tools.json"); err == nil {
		t.Error("the pack folder embeds a tools.json of its own")
	}
	if n := len(load(t).Tools.Tools()); n != 14 {
		t.Errorf("%d tools, want τ²'s 14", n)
	}
}

func TestGeneratorDeterministic(t *testing.T) {
	ctx := context.Background()
	a := load(t)
	b, err := pack.Load(ctx, FS(), 1, options())
	if err != nil {
		t.Fatal(err)
	}
	if a.Base.Hash() != b.Base.Hash() {
		t.Errorf("seed 1 gave two databases: %s and %s", a.Base.Hash(), b.Base.Hash())
	}
	c, err := pack.Load(ctx, FS(), 2, options())
	if err != nil {
		t.Fatal(err)
	}
	if a.Base.Hash() == c.Base.Hash() {
		t.Error("seeds 1 and 2 gave the same database")
	}
}

// TestSchedule: every flight flies every date of the window, its status
// on a date follows the clock (landed or cancelled before today;
// landed, flying, on time, delayed or cancelled today; available after),
// each status with the fields τ²'s model gives it, and the network has
// the routes and connections a booking searches.
func TestSchedule(t *testing.T) {
	p := load(t)
	flights := records(p, "flights")
	if n := len(flights); n < 200 || n > 400 {
		t.Errorf("%d flights, want 200..400", n)
	}
	fields := map[string][]string{
		"available": {"status", "available_seats", "prices"},
		"landed":    {"status", "actual_departure_time_est", "actual_arrival_time_est"},
		"flying":    {"status", "actual_departure_time_est", "estimated_arrival_time_est"},
		"on time":   {"status", "estimated_departure_time_est", "estimated_arrival_time_est"},
		"delayed":   {"status", "estimated_departure_time_est", "estimated_arrival_time_est"},
		"cancelled": {"status"},
	}
	clock := regexp.MustCompile(`^\d\d:\d\d:00(\+1)?$`)
	seen := map[string]int{}
	routes := map[string]bool{}
	for _, f := range flights {
		routes[f["origin"].(string)+f["destination"].(string)] = true
		if !clock.MatchString(f["scheduled_departure_time_est"].(string)) || !clock.MatchString(f["scheduled_arrival_time_est"].(string)) {
			t.Errorf("flight %v: times %v - %v", f["flight_number"], f["scheduled_departure_time_est"], f["scheduled_arrival_time_est"])
		}
		dates := obj(f["dates"])
		if len(dates) != 43 || dates[firstDay] == nil || dates[lastDay] == nil {
			t.Errorf("flight %v flies %d dates, want every date %s..%s", f["flight_number"], len(dates), firstDay, lastDay)
		}
		for d, v := range dates {
			inst := obj(v)
			st := inst["status"].(string)
			seen[when(d)+" "+st]++
			want, ok := fields[st]
			if !ok || !slices.Equal(slices.Sorted(maps.Keys(inst)), sorted(want)) {
				t.Errorf("flight %v on %s: %v", f["flight_number"], d, inst)
				continue
			}
			if st == "available" {
				for _, c := range []string{"basic_economy", "economy", "business"} {
					if num(obj(inst["prices"])[c]) <= 0 || num(obj(inst["available_seats"])[c]) < 0 {
						t.Errorf("flight %v on %s: %s price %v, seats %v", f["flight_number"], d, c, obj(inst["prices"])[c], obj(inst["available_seats"])[c])
					}
				}
			}
		}
	}
	allowed := map[string]bool{"past landed": true, "past cancelled": true, "today landed": true, "today flying": true,
		"today on time": true, "today delayed": true, "today cancelled": true, "future available": true}
	for k, n := range seen {
		if !allowed[k] {
			t.Errorf("%d flight dates are %s", n, k)
		}
	}
	for k := range allowed {
		if seen[k] == 0 {
			t.Errorf("no flight date is %s", k)
		}
	}
	if len(routes) < 100 {
		t.Errorf("%d routes, want a network of at least 100", len(routes))
	}
}

// when is whether a date is before the clock's day, the day, or after.
func when(d string) string {
	switch {
	case d < today:
		return "past"
	case d == today:
		return "today"
	}
	return "future"
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }

// freeBags is the policy's allowance (policy.md's table).
func freeBags(membership, cabin any) float64 {
	table := map[string]map[string]float64{
		"regular": {"basic_economy": 0, "economy": 1, "business": 2},
		"silver":  {"basic_economy": 1, "economy": 2, "business": 3},
		"gold":    {"basic_economy": 2, "economy": 3, "business": 4},
	}
	return table[membership.(string)][cabin.(string)]
}

// TestReservations: every reservation is a trip the schedule flies
// (legs that connect, in one cabin, a round trip back to its origin),
// paid as the policy prices it, made before its first flight and the
// clock; the users list exactly their reservations.
func TestReservations(t *testing.T) {
	p := load(t)
	res := records(p, "reservations")
	if len(res) != 2000 {
		t.Errorf("%d reservations, want 2000", len(res))
	}
	id := regexp.MustCompile(`^[A-Z0-9]{6}$`)
	owned := map[string][]string{}
	mix := map[string]int{}
	for _, r := range res {
		rid := r["reservation_id"].(string)
		if !id.MatchString(rid) || strings.HasPrefix(rid, "HATHA") {
			t.Errorf("reservation id %q", rid)
		}
		u := get(p, "users", r["user_id"].(string))
		if u == nil {
			t.Errorf("%s: unknown user %v", rid, r["user_id"])
			continue
		}
		owned[r["user_id"].(string)] = append(owned[r["user_id"].(string)], rid)
		legs := list(r["flights"])
		checkLegs(t, p, r, legs)
		n := float64(len(list(r["passengers"])))
		fare := 0.0
		for _, l := range legs {
			fare += num(obj(l)["price"])
		}
		nonfree := max(0, num(r["total_baggages"])-freeBags(u["membership"], r["cabin"])*n)
		if num(r["nonfree_baggages"]) != nonfree {
			t.Errorf("%s: %v non-free bags, want %v", rid, r["nonfree_baggages"], nonfree)
		}
		want := fare*n + 50*nonfree
		if r["insurance"] == "yes" {
			want += 30 * n
		}
		paid := 0.0
		for _, pay := range list(r["payment_history"]) {
			paid += num(obj(pay)["amount"])
			if obj(u["payment_methods"])[obj(pay)["payment_id"].(string)] == nil {
				t.Errorf("%s: paid with %v, not a method of %v", rid, obj(pay)["payment_id"], u["user_id"])
			}
		}
		if r["status"] == "cancelled" {
			want = 0
		}
		if paid != want {
			t.Errorf("%s: payments sum to %v, want %v", rid, paid, want)
		}
		created := r["created_at"].(string)
		if created >= nowStamp || created > obj(legs[0])["date"].(string)+"T23:59:59" {
			t.Errorf("%s: created %s, after the clock or its first flight (%v)", rid, created, obj(legs[0])["date"])
		}
		if n < 1 || n > 4 {
			t.Errorf("%s: %v passengers", rid, n)
		}
		for _, k := range []string{r["cabin"].(string), r["flight_type"].(string), "insurance " + r["insurance"].(string), strings.TrimSpace("status " + toText(r["status"])), when(obj(legs[0])["date"].(string))} {
			mix[k]++
		}
		if created >= "2024-05-14T15:00:00" {
			mix["booked within 24h"]++
		}
		if len(list(r["passengers"])) > 1 {
			mix["several passengers"]++
		}
	}
	for _, k := range []string{"basic_economy", "economy", "business", "one_way", "round_trip", "insurance yes", "insurance no", "status cancelled", "status", "past", "today", "future", "booked within 24h", "several passengers"} {
		if mix[k] < 20 {
			t.Errorf("only %d reservations are %q: want every kind", mix[k], k)
		}
	}
	for _, u := range records(p, "users") {
		var ids []string
		for _, r := range list(u["reservations"]) {
			ids = append(ids, r.(string))
		}
		got := owned[u["user_id"].(string)]
		if !slices.Equal(sorted(ids), sorted(got)) {
			t.Errorf("user %v lists reservations %v, owns %v", u["user_id"], ids, got)
		}
	}
}

func toText(v any) string {
	if v == nil {
		return ""
	}
	return v.(string)
}

// checkLegs holds a reservation's flights to the schedule: each flies
// its route on its date, each leg leaves from where the last landed and
// after it, and a round trip comes back to its origin.
func checkLegs(t *testing.T, p *pack.Pack, r map[string]any, legs []any) {
	t.Helper()
	rid := r["reservation_id"]
	at := r["origin"]
	for i, l := range legs {
		leg := obj(l)
		f := get(p, "flights", leg["flight_number"].(string))
		if f == nil || day(p, leg["flight_number"], leg["date"]) == nil {
			t.Errorf("%s: flight %v does not fly on %v", rid, leg["flight_number"], leg["date"])
			return
		}
		if f["origin"] != leg["origin"] || f["destination"] != leg["destination"] {
			t.Errorf("%s: flight %v is %v-%v, the reservation says %v-%v", rid, leg["flight_number"], f["origin"], f["destination"], leg["origin"], leg["destination"])
		}
		if leg["origin"] != at && !(r["flight_type"] == "round_trip" && leg["origin"] == r["destination"]) {
			t.Errorf("%s: leg %d leaves %v, not %v", rid, i, leg["origin"], at)
		}
		at = leg["destination"]
		if i > 0 && leg["date"].(string) < obj(legs[i-1])["date"].(string) {
			t.Errorf("%s: leg %d flies before the one before it", rid, i)
		}
	}
	end := r["destination"]
	if r["flight_type"] == "round_trip" {
		end = r["origin"]
	}
	if at != end {
		t.Errorf("%s: the trip ends at %v, not %v", rid, at, end)
	}
}

// TestUsers: every user has a card or gift card to pay changes with,
// saved passengers, one of the memberships; gift cards and certificates
// hold their balance as τ²'s float.
func TestUsers(t *testing.T) {
	p := load(t)
	users := records(p, "users")
	if len(users) != 500 {
		t.Errorf("%d users, want 500", len(users))
	}
	mix := map[string]int{}
	for _, u := range users {
		pays := false
		for _, v := range obj(u["payment_methods"]) {
			m := obj(v)
			mix[m["source"].(string)]++
			switch m["source"] {
			case "credit_card":
				pays = true
			case "gift_card", "certificate":
				pays = pays || m["source"] == "gift_card"
				if _, ok := m["amount"].(float64); !ok {
					t.Errorf("user %v: %v amount %v is not a float", u["user_id"], m["id"], m["amount"])
				}
			}
		}
		if !pays || len(list(u["saved_passengers"])) == 0 {
			t.Errorf("user %v: no card or gift card, or no saved passenger", u["user_id"])
		}
		mix[u["membership"].(string)]++
	}
	for _, k := range []string{"credit_card", "gift_card", "certificate", "regular", "silver", "gold"} {
		if mix[k] < 50 {
			t.Errorf("only %d %s", mix[k], k)
		}
	}
}

// TestSearches: a nonstop or one-stop search finds flights for most
// routes on a coming date, in τ²'s result shapes.
func TestSearches(t *testing.T) {
	p := load(t)
	st := p.Base.NewState()
	found, tried := 0, 0
	for i, f := range records(p, "flights") {
		if i%10 != 0 {
			continue
		}
		tried++
		args, _ := json.Marshal(map[string]any{"origin": f["origin"], "destination": f["destination"], "date": "2024-05-22"})
		r := p.Tools.Call(context.Background(), st, "search_direct_flight", string(args))
		if r.Err {
			t.Fatalf("search_direct_flight %s: %s", args, r.Output)
		}
		if strings.Contains(r.Output, `"status":"available"`) {
			found++
		}
	}
	if found*10 < tried*8 {
		t.Errorf("nonstop searches found flights on %d of %d routes", found, tried)
	}
	r := p.Tools.Call(context.Background(), st, "search_onestop_flight", `{"origin": "BOS", "destination": "SEA", "date": "2024-05-22"}`)
	if r.Err || !strings.HasPrefix(r.Output, "[[") {
		t.Errorf("search_onestop_flight BOS-SEA: %.200s", r.Output)
	}
}

// TestPolicyFunctions holds policy.star's figures to the policy: free
// bags by membership and cabin, a booking's total, and compensation
// only for a user it allows.
func TestPolicyFunctions(t *testing.T) {
	p := load(t)
	ctx := context.Background()
	st := p.Base.NewState()
	run := func(name string, args map[string]any) (any, error) {
		return p.Computes[name](ctx, st.Fork(), args)
	}
	users := map[string]string{}
	for _, u := range records(p, "users") {
		users[u["membership"].(string)] = u["user_id"].(string)
	}
	for _, c := range []struct {
		membership, cabin string
		passengers, bags  int
		want              int64
	}{
		{"regular", "basic_economy", 2, 1, 1}, {"regular", "economy", 2, 3, 1}, {"regular", "business", 1, 2, 0},
		{"silver", "basic_economy", 1, 2, 1}, {"silver", "economy", 2, 4, 0}, {"silver", "business", 1, 4, 1},
		{"gold", "basic_economy", 1, 2, 0}, {"gold", "economy", 1, 5, 2}, {"gold", "business", 2, 9, 1},
	} {
		pax := make([]any, c.passengers)
		for i := range pax {
			pax[i] = map[string]any{"first_name": "A", "last_name": "B", "dob": "1990-01-01"}
		}
		got, err := run("nonfree_baggages", map[string]any{"user_id": users[c.membership], "cabin": c.cabin, "passengers": pax, "total_baggages": int64(c.bags)})
		if err != nil || num(got) != float64(c.want) {
			t.Errorf("%s %s, %d passengers, %d bags: %v non-free (%v), want %d", c.membership, c.cabin, c.passengers, c.bags, got, err, c.want)
		}
	}
	f := records(p, "flights")[0]
	price := num(obj(day(p, f["flight_number"], "2024-05-20")["prices"])["economy"])
	pax := []any{map[string]any{"first_name": "A", "last_name": "B", "dob": "1990-01-01"}, map[string]any{"first_name": "C", "last_name": "D", "dob": "1991-01-01"}}
	got, err := run("booking_payment", map[string]any{"payment_methods": "credit_card_1", "cabin": "economy", "passengers": pax,
		"flights": []any{map[string]any{"flight_number": f["flight_number"], "date": "2024-05-20"}}, "nonfree_baggages": int64(1), "insurance": "yes"})
	want := []any{map[string]any{"payment_id": "credit_card_1", "amount": 2*price + 50 + 60}}
	if err != nil || tools.Text(got) != tools.Text(want) {
		t.Errorf("booking_payment: %v (%v), want %v", got, err, want)
	}
	if _, err := run("booking_payment", map[string]any{"payment_methods": "credit_card_1", "cabin": "economy", "passengers": pax,
		"flights": []any{map[string]any{"flight_number": f["flight_number"], "date": today}}, "nonfree_baggages": int64(0), "insurance": "no"}); err == nil {
		t.Error("booking_payment prices a flight of today, which is no longer for sale")
	}
	var granted, refused int
	for _, r := range records(p, "reservations") {
		u := get(p, "users", r["user_id"].(string))
		cancelled := false
		for _, l := range list(r["flights"]) {
			cancelled = cancelled || day(p, obj(l)["flight_number"], obj(l)["date"])["status"] == "cancelled"
		}
		got, err := run("compensation", map[string]any{"user_id": r["user_id"], "reservation_id": r["reservation_id"]})
		allowed := u["membership"] != "regular" || r["insurance"] == "yes" || r["cabin"] == "business"
		switch {
		case !cancelled || r["status"] == "cancelled":
			if err == nil {
				t.Errorf("%v: compensation %v with no cancelled flight", r["reservation_id"], got)
			}
		case allowed && (err != nil || num(got) != 100*float64(len(list(r["passengers"])))):
			t.Errorf("%v: compensation %v (%v), want $100 a passenger", r["reservation_id"], got, err)
		case !allowed && (err == nil || !strings.Contains(err.Error(), "gets no compensation")):
			t.Errorf("%v: compensation %v (%v) for a regular member without insurance in %v", r["reservation_id"], got, err, r["cabin"])
		case allowed:
			granted++
		default:
			refused++
		}
	}
	if granted < 10 || refused < 1 {
		t.Errorf("%d reservations granted compensation, %d refused: want both", granted, refused)
	}
}
