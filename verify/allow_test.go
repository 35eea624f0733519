package verify_test

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/synth-data/synth/internal/testplay"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// The airline's allow rule (cancellation_allowed, policy.star's
// cancel_allowed) rejects each hand-edited dialogue that breaks it, by
// its name, and passes the clean dialogue it was edited from: a
// cancellation the policy refuses carried out, one made before the
// customer gave the reason, a refusal that cites another condition or
// none, a certificate refused without the reason the policy gives none.
func TestAllowRuleRejectsBrokenDialogues(t *testing.T) {
	airline, err := testplay.NewFixture("airline", 1)
	if err != nil {
		t.Fatal(err)
	}
	const cancel = "rule:allow:cancellation_allowed"
	refusal := model.IntentRefusePrefix + "cancel_reservation"
	cabinRefusal := model.IntentRefusePrefix + "update_reservation_flights"
	cases := []struct {
		name string
		tool string
		rule string
		keep func(*record.Trajectory) bool
		edit func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory)
	}{
		{"a refused cancellation carried out", refusal, cancel, nil, func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
			insertCall(t, airline, bp, tr, "cancel_reservation", map[string]any{"reservation_id": refusedKey(t, bp, tr)})
		}},
		{"a cancellation the policy hands to a human, carried out", "", cancel, handedOver, func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
			i := callAt(tr, "transfer_to_human_agents")
			key := ""
			for _, m := range tr.Messages[:i] {
				if k := reservationKey.FindAllStringSubmatch(m.Content, -1); m.Role == "assistant" && len(k) > 0 {
					key = k[len(k)-1][1]
				}
			}
			raw, _ := json.Marshal(map[string]any{"reservation_id": key})
			res := airline.D.Model.Call(context.Background(), airline.D.Base.NewState(), "cancel_reservation", string(raw))
			call := record.ToolCall{ID: "zzzzzzzz5", Type: "function", Function: record.FunctionCall{Name: "cancel_reservation", Arguments: string(raw)}}
			tr.Messages = slices.Insert(tr.Messages, i,
				record.Message{Role: "assistant", Content: "I'll cancel reservation " + key + ". Shall I?"},
				record.Message{Role: "user", Content: "Yes, please."},
				record.Message{Role: "assistant", ToolCalls: []record.ToolCall{call}},
				record.Message{Role: "tool", ToolCallID: call.ID, Name: "cancel_reservation", Content: res.Output})
		}},
		{"a cancellation before the reason was given", "cancel_reservation", cancel, nil, func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
			i := callAt(tr, "cancel_reservation")
			reason := cancelGoal(t, bp).Slots["reason"]
			unsay(tr, i, model.ValueWords(reason), "something")
		}},
		{"a refusal citing another condition", refusal, cancel, nil, func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
			i := citing(t, bp, tr)
			tr.Messages[i].Content = strings.ReplaceAll(strings.ToLower(tr.Messages[i].Content), strings.ToLower(condition(t, bp)), "this is only possible when it is business")
		}},
		{"a refusal citing no condition", refusal, cancel, nil, func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
			i := citing(t, bp, tr)
			tr.Messages[i].Content = "I'm sorry, but I can't cancel this reservation."
		}},
		{"a cabin change on a flown reservation tried", cabinRefusal, "rule:allow:no_cabin_change_after_flying", nil, func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
			key := refusedKey(t, bp, tr)
			v, _ := airline.D.Base.Get("reservations", key)
			res := v.(map[string]any)
			cabin := "business"
			if res["cabin"] == cabin {
				cabin = "economy"
			}
			var legs []map[string]any
			for _, f := range res["flights"].([]any) {
				leg := f.(map[string]any)
				legs = append(legs, map[string]any{"flight_number": leg["flight_number"], "date": leg["date"]})
			}
			insertCall(t, airline, bp, tr, "update_reservation_flights", map[string]any{"reservation_id": key, "cabin": cabin, "flights": legs, "payment_id": "credit_card_1"})
		}},
		{"a cabin change refused citing another condition", cabinRefusal, "rule:allow:no_cabin_change_after_flying", nil, func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
			i := citing(t, bp, tr)
			tr.Messages[i].Content = "I'm sorry, but I can't change the cabin: its flight dates are in the past."
		}},
		{"a basic economy reservation's flights changed", "update_reservation_flights", "rule:allow:basic_economy_keeps_flights", basicEconomy(airline), func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
			i := callAt(tr, "update_reservation_flights")
			editArgs(t, tr, i, func(args map[string]any) {
				legs := args["flights"].([]any)
				leg := legs[0].(map[string]any)
				leg["date"] = "2024-06-11"
			})
		}},
		{"a reservation's flights changed to another route", "update_reservation_flights", "rule:allow:flights_keep_route", notBasicEconomy(airline), func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
			i := callAt(tr, "update_reservation_flights")
			editArgs(t, tr, i, func(args map[string]any) {
				leg := args["flights"].([]any)[0].(map[string]any)
				leg["flight_number"] = flightFrom(t, airline, otherThan(t, airline, leg["flight_number"].(string)))
			})
		}},
		{"a certificate of twice the amount", "send_certificate", "rule:allow:certificate_justified", nil, func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
			editArgs(t, tr, callAt(tr, "send_certificate"), func(args map[string]any) { args["amount"] = 2 * args["amount"].(float64) })
		}},
		{"a certificate refused citing no condition", model.IntentRefusePrefix + "send_certificate", "rule:allow:certificate_justified", says("gets no compensation"), func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
			i := slices.IndexFunc(tr.Messages, func(m record.Message) bool { return strings.Contains(m.Content, "gets no compensation") })
			tr.Messages[i].Content = "I'm sorry, but I can't send you a certificate."
		}},
		{"six passengers booked", "book_reservation", "rule:allow:at_most_five_passengers", nil, func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
			i := callAt(tr, "book_reservation")
			editArgs(t, tr, i, func(args map[string]any) {
				ps := args["passengers"].([]any)
				for len(ps) < 6 {
					ps = append(ps, ps[0])
				}
				args["passengers"] = ps
			})
		}},
		{"a booking paid with a method not in the profile", "book_reservation", "rule:allow:booking_payment_methods", nil, func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
			i := callAt(tr, "book_reservation")
			editArgs(t, tr, i, func(args map[string]any) {
				pay := args["payment_methods"].([]any)
				pay[0].(map[string]any)["payment_id"] = "credit_card_0000001"
			})
		}},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bp, tr := oracleWhere(t, airline, tc.tool, "", 0, tc.keep)
			if v := airline.Ver.Verify(ctx, bp, tr); !v.Passed {
				t.Fatalf("the clean twin fails: %v", v.Failed())
			}
			bad := clone(t, tr)
			tc.edit(t, bp, bad)
			v := airline.Ver.Verify(ctx, bp, bad)
			if !slices.Contains(failed(v), tc.rule) {
				t.Fatalf("the broken dialogue fails %v, want %s", failed(v), tc.rule)
			}
		})
	}
}

// cancelGoal is the blueprint's goal about cancel_reservation.
func cancelGoal(t *testing.T, bp *record.Blueprint) record.Goal {
	t.Helper()
	for _, g := range bp.Goals {
		if strings.HasSuffix(g.Intent, "cancel_reservation") {
			return g
		}
	}
	t.Fatal("no cancellation goal")
	return record.Goal{}
}

// condition is the refusal's condition the blueprint records: the
// output of the forbidden request's goal.
func condition(t *testing.T, bp *record.Blueprint) string {
	t.Helper()
	for _, o := range bp.Outputs {
		if bp.Goals[o.Goal].Kind == record.GoalRefuse {
			return o.Value
		}
	}
	t.Fatal("the refusal records no condition")
	return ""
}

// citing is the index of the agent's message that cites the condition.
func citing(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) int {
	t.Helper()
	want := strings.ToLower(condition(t, bp))
	for i, m := range tr.Messages {
		if m.Role == "assistant" && strings.Contains(strings.ToLower(m.Content), want) {
			return i
		}
	}
	t.Fatal("no message cites the condition")
	return -1
}

// refusedKey is the reservation the agent's refusal names.
func refusedKey(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) string {
	t.Helper()
	m := reservationKey.FindStringSubmatch(tr.Messages[citing(t, bp, tr)].Content)
	if m == nil {
		t.Fatal("the refusal names no reservation")
	}
	return m[1]
}

var reservationKey = regexp.MustCompile(`reservation ([A-Z0-9]{6})\b`)

// basicEconomy keeps the dialogues whose cabin change is on a basic
// economy reservation.
func basicEconomy(fx *testplay.Fixture) func(*record.Trajectory) bool {
	return func(tr *record.Trajectory) bool {
		i := callAt(tr, "update_reservation_flights")
		if i < 0 {
			return false
		}
		var args struct {
			ID string `json:"reservation_id"`
		}
		_ = json.Unmarshal([]byte(tr.Messages[i].ToolCalls[0].Function.Arguments), &args)
		v, _ := fx.D.Base.Get("reservations", args.ID)
		res, _ := v.(map[string]any)
		return res["cabin"] == "basic_economy"
	}
}

// editArgs rewrites the arguments of the call at message i.
func editArgs(t *testing.T, tr *record.Trajectory, i int, edit func(map[string]any)) {
	t.Helper()
	c := &tr.Messages[i].ToolCalls[0]
	var args map[string]any
	if err := json.Unmarshal([]byte(c.Function.Arguments), &args); err != nil {
		t.Fatal(err)
	}
	edit(args)
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	c.Function.Arguments = string(raw)
}

// insertCall puts a proposal, a yes and a call of tool with args (and
// what the tool answers on the fresh state) before the refusal.
func insertCall(t *testing.T, fx *testplay.Fixture, bp *record.Blueprint, tr *record.Trajectory, tool string, args map[string]any) {
	t.Helper()
	raw, _ := json.Marshal(args)
	res := fx.D.Model.Call(context.Background(), fx.D.Base.NewState(), tool, string(raw))
	call := record.ToolCall{ID: "zzzzzzzz6", Type: "function", Function: record.FunctionCall{Name: tool, Arguments: string(raw)}}
	done := []record.Message{
		{Role: "assistant", Content: "I'll go ahead with that. Shall I?"},
		{Role: "user", Content: "Yes, please."},
		{Role: "assistant", ToolCalls: []record.ToolCall{call}},
		{Role: "tool", ToolCallID: call.ID, Name: tool, Content: res.Output},
	}
	tr.Messages = slices.Insert(tr.Messages, citing(t, bp, tr), done...)
}

// handedOver keeps the dialogues that transfer a cancellation the policy
// hands to a human.
func handedOver(tr *record.Trajectory) bool {
	i := callAt(tr, "transfer_to_human_agents")
	return i >= 0 && strings.Contains(tr.Messages[i].ToolCalls[0].Function.Arguments, "cancel reservation")
}

// notBasicEconomy keeps the dialogues whose cabin change is on a
// reservation in another cabin than basic economy.
func notBasicEconomy(fx *testplay.Fixture) func(*record.Trajectory) bool {
	basic := basicEconomy(fx)
	return func(tr *record.Trajectory) bool { return callAt(tr, "update_reservation_flights") >= 0 && !basic(tr) }
}

// otherThan is an airport other than the origin of flight number.
func otherThan(t *testing.T, fx *testplay.Fixture, number string) string {
	t.Helper()
	origin, _ := fx.D.Base.Get("flights", number)
	from := origin.(map[string]any)["origin"]
	for _, k := range fx.D.Base.Keys("flights") {
		v, _ := fx.D.Base.Get("flights", k)
		if o := v.(map[string]any)["origin"]; o != from {
			return o.(string)
		}
	}
	t.Fatal("every flight leaves from " + tools.Text(from))
	return ""
}

// flightFrom is the first flight, by number, leaving from airport.
func flightFrom(t *testing.T, fx *testplay.Fixture, airport string) string {
	t.Helper()
	for _, k := range fx.D.Base.Keys("flights") {
		v, _ := fx.D.Base.Get("flights", k)
		if v.(map[string]any)["origin"] == airport {
			return k
		}
	}
	t.Fatal("no flight leaves from " + airport)
	return ""
}
