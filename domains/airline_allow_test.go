package domains_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/internal/testplay"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/usersim"
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

// certificate_justified allows the $50 a passenger certificate for a
// delayed flight only once the conversation has cancelled (or changed)
// the reservation, and no amount but $50 a passenger: the policy offers it "after
// confirming the facts and changing or cancelling the reservation".
func TestDelayedFlightCertificateAfterTheChange(t *testing.T) {
	d, err := domains.Load("airline", 1)
	if err != nil {
		t.Fatal(err)
	}
	w := d.Model.Write("send_certificate")
	ctx := t.Context()
	for _, k := range d.Base.Keys("reservations") {
		v, _ := d.Base.Get("reservations", k)
		res := v.(map[string]any)
		u, _ := d.Base.Get("users", res["user_id"].(string))
		eligible := u.(map[string]any)["membership"] != "regular" || res["insurance"] == "yes" || res["cabin"] == "business"
		if res["status"] == "cancelled" || !eligible || !hasDelayedFlight(d, res) {
			continue
		}
		amount := 50 * len(res["passengers"].([]any))
		cert := map[string]any{"user_id": res["user_id"], "amount": amount}
		st := d.Base.NewState()
		if rule, _, err := w.Permit(ctx, st, cert, nil); err != nil || rule == nil || rule.Rule.Name != "certificate_justified" {
			t.Fatalf("reservation %s: a $%d certificate before the reservation changes is not refused by certificate_justified (%v, %v)", k, amount, rule, err)
		}
		if r := d.Model.Call(ctx, st, "cancel_reservation", `{"reservation_id":"`+k+`"}`); r.Err {
			t.Fatalf("cancel %s: %s", k, r.Output)
		}
		if rule, v, err := w.Permit(ctx, st, cert, nil); err != nil || rule != nil {
			t.Errorf("reservation %s: the $%d certificate after the cancellation is refused: %v %s %v", k, amount, rule, v.Why, err)
		}
		cert["amount"] = amount + 25
		if rule, _, err := w.Permit(ctx, st, cert, nil); err != nil || rule == nil {
			t.Errorf("reservation %s: a $%v certificate for a delayed flight is allowed", k, cert["amount"])
		}
		return
	}
	t.Fatal("no reservation the policy compensates with a delayed flight")
}

// hasDelayedFlight tells whether a flight of the reservation is delayed
// on its date.
func hasDelayedFlight(d *domain.Domain, res map[string]any) bool {
	for _, f := range res["flights"].([]any) {
		leg := f.(map[string]any)
		v, ok := d.Base.Get("flights", leg["flight_number"].(string))
		if !ok {
			continue
		}
		day, _ := v.(map[string]any)["dates"].(map[string]any)[leg["date"].(string)].(map[string]any)
		if day["status"] == "delayed" {
			return true
		}
	}
	return false
}

// The generator makes compensation tasks for a delayed flight: a
// cancellation, then a certificate of $50 a passenger of the same
// reservation, each granted in order, and each such dialogue verifies.
func TestDelayedFlightCompensationTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("scans thousands of blueprints")
	}
	fx, err := testplay.NewFixture("airline", 3)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := blueprints.NewGeneric(fx.D.Model, blueprints.Spec{Seed: 3, Writes: blueprints.Range{Min: 2, Max: 3},
		Reads: blueprints.Range{Min: 0, Max: 6}, AdaptReads: true, Behaviors: usersim.Profiles()})
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for i := 0; i < 4000 && found < 2; i++ {
		bp, err := gen.Generate(t.Context(), i)
		if err != nil {
			t.Fatal(err)
		}
		// Passengers by reservation with a delayed flight the task cancelled.
		cancelled := map[string]int{}
		for _, a := range bp.Actions {
			var args map[string]any
			_ = json.Unmarshal(a.Arguments, &args)
			switch a.Tool {
			case "cancel_reservation":
				// A reservation the task booked first is not in the base.
				v, _ := fx.D.Base.Get("reservations", args["reservation_id"].(string))
				if res, ok := v.(map[string]any); ok && hasDelayedFlight(fx.D, res) {
					cancelled[args["reservation_id"].(string)] = len(res["passengers"].([]any))
				}
			case "send_certificate":
				if slices.ContainsFunc(slices.Collect(maps.Values(cancelled)), func(n int) bool { return args["amount"].(float64) == float64(50*n) }) {
					found++
					tr, err := embedded.Simulate(t.Context(), fx.D, bp, 60)
					if err != nil {
						t.Fatal(err)
					}
					if v := fx.Ver.Verify(t.Context(), bp, tr); !v.Passed {
						t.Errorf("%s: the delayed flight's compensation fails %v", bp.ID, v.Failed())
					}
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("no task compensates a delayed flight after the cancellation of its reservation")
	}
}

// A certificate the compensation function gives no amount is refused
// under certificate_justified (send_certificate's refusal_rule): each
// such refusal task records the function's reason as that rule's
// condition, the agent cites it, and every dialogue verifies.
func TestCertificateRefusalsCiteTheirRule(t *testing.T) {
	fx, err := testplay.NewFixture("airline", 3)
	if err != nil {
		t.Fatal(err)
	}
	played, err := testplay.Play(fx.D, fx.Gen, 150)
	if err != nil {
		t.Fatal(err)
	}
	refusals := 0
	for _, p := range played {
		if v := fx.Ver.Verify(t.Context(), p.BP, p.TR); !v.Passed {
			t.Errorf("%s fails %v", p.BP.ID, v.Failed())
		}
		for gi, g := range p.BP.Goals {
			if g.Kind != record.GoalRefuse || g.Intent != model.IntentRefusePrefix+"send_certificate" {
				continue
			}
			refusals++
			i := slices.IndexFunc(p.BP.Outputs, func(o record.Output) bool { return o.Goal == gi })
			if i < 0 || p.BP.Outputs[i].Name != "certificate_justified" || !strings.HasSuffix(p.BP.Outputs[i].Value, "gets no compensation") {
				t.Errorf("%s: the certificate's refusal records %v, want certificate_justified's condition", p.BP.ID, p.BP.Outputs)
				continue
			}
			said := strings.ToLower(p.BP.Outputs[i].Value)
			if !slices.ContainsFunc(p.TR.Messages, func(m record.Message) bool {
				return m.Role == "assistant" && strings.Contains(strings.ToLower(m.Content), said)
			}) {
				t.Errorf("%s: no agent message cites %q", p.BP.ID, said)
			}
		}
	}
	if refusals == 0 {
		t.Fatalf("no refused certificate in %d dialogues", len(played))
	}
}
