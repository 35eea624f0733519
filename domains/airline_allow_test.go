package domains_test

import (
	"testing"

	"github.com/synth-data/synth/domains"
)

// flights_keep_route allows new flights on the reservation's route and
// refuses others: a one-way reservation of one flight may move to
// another flight between the same airports, not to one from elsewhere,
// nor back the other way.
func TestFlightsKeepRoute(t *testing.T) {
	d, err := domains.Load("airline", 1)
	if err != nil {
		t.Fatal(err)
	}
	w := d.Model.Write("update_reservation_flights")
	st := d.Base.NewState()
	// Flight numbers by their route.
	byRoute := map[[2]string][]string{}
	for _, k := range d.Base.Keys("flights") {
		v, _ := d.Base.Get("flights", k)
		f := v.(map[string]any)
		r := [2]string{f["origin"].(string), f["destination"].(string)}
		byRoute[r] = append(byRoute[r], k)
	}
	checked := 0
	for _, k := range d.Base.Keys("reservations") {
		v, _ := d.Base.Get("reservations", k)
		res := v.(map[string]any)
		legs := res["flights"].([]any)
		if res["flight_type"] != "one_way" || res["cabin"] == "basic_economy" || res["status"] == "cancelled" || len(legs) != 1 {
			continue
		}
		leg := legs[0].(map[string]any)
		route := [2]string{res["origin"].(string), res["destination"].(string)}
		var same string
		for _, n := range byRoute[route] {
			if n != leg["flight_number"] {
				same = n
			}
		}
		back := byRoute[[2]string{route[1], route[0]}]
		if same == "" || len(back) == 0 {
			continue
		}
		for _, tc := range []struct {
			flight string
			want   string
		}{{same, ""}, {back[0], "flights_keep_route"}} {
			args := map[string]any{"reservation_id": k, "cabin": res["cabin"], "payment_id": "",
				"flights": []any{map[string]any{"flight_number": tc.flight, "date": leg["date"]}}}
			rule, v, err := w.Permit(t.Context(), st, args, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if rule != nil {
				got = rule.Rule.Name
			}
			if got != tc.want {
				t.Errorf("reservation %s %v moved to flight %s: refused by %q (%s), want %q", k, route, tc.flight, got, v.Why, tc.want)
			}
		}
		if checked++; checked == 5 {
			break
		}
	}
	if checked == 0 {
		t.Fatal("no one-way reservation of one flight with another flight on its route")
	}
}
