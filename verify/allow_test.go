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
)

// The airline's allow rule (cancellation_allowed, policy.star's
// cancel_allowed) rejects each hand-edited dialogue that breaks it, by
// its name, and passes the clean dialogue it was edited from: a
// cancellation the policy refuses carried out, one made before the
// customer gave the reason, a refusal that cites another condition or
// none.
func TestAllowRuleRejectsBrokenDialogues(t *testing.T) {
	airline, err := testplay.NewFixture("airline", 1)
	if err != nil {
		t.Fatal(err)
	}
	const rule = "rule:allow:cancellation_allowed"
	refusal := model.IntentRefusePrefix + "cancel_reservation"
	cases := []struct {
		name string
		tool string
		edit func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory)
	}{
		{"a refused cancellation carried out", refusal, func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
			key := refusedKey(t, bp, tr)
			raw, _ := json.Marshal(map[string]any{"reservation_id": key})
			res := airline.D.Model.Call(context.Background(), airline.D.Base.NewState(), "cancel_reservation", string(raw))
			if res.Err {
				t.Fatalf("the tool itself refuses the cancellation: %s", res.Output)
			}
			call := record.ToolCall{ID: "zzzzzzzz7", Type: "function", Function: record.FunctionCall{Name: "cancel_reservation", Arguments: string(raw)}}
			done := []record.Message{
				{Role: "assistant", Content: "I'll cancel reservation " + key + " for you. Shall I go ahead?"},
				{Role: "user", Content: "Yes, please."},
				{Role: "assistant", ToolCalls: []record.ToolCall{call}},
				{Role: "tool", ToolCallID: call.ID, Name: "cancel_reservation", Content: res.Output},
			}
			i := citing(t, bp, tr)
			tr.Messages = slices.Insert(tr.Messages, i, done...)
		}},
		{"a cancellation before the reason was given", "cancel_reservation", func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
			i := callAt(tr, "cancel_reservation")
			reason := cancelGoal(t, bp).Slots["reason"]
			unsay(tr, i, model.ValueWords(reason), "something")
		}},
		{"a refusal citing another condition", refusal, func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
			i := citing(t, bp, tr)
			tr.Messages[i].Content = strings.ReplaceAll(strings.ToLower(tr.Messages[i].Content), strings.ToLower(condition(t, bp)), "this is only possible when it is business")
		}},
		{"a refusal citing no condition", refusal, func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
			i := citing(t, bp, tr)
			tr.Messages[i].Content = "I'm sorry, but I can't cancel this reservation."
		}},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bp, tr := oracleWith(t, airline, tc.tool, "", 0)
			if v := airline.Ver.Verify(ctx, bp, tr); !v.Passed {
				t.Fatalf("the clean twin fails: %v", v.Failed())
			}
			bad := clone(t, tr)
			tc.edit(t, bp, bad)
			v := airline.Ver.Verify(ctx, bp, bad)
			if !slices.Contains(failed(v), rule) {
				t.Fatalf("the broken dialogue fails %v, want %s", failed(v), rule)
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

// condition is the refusal's condition the blueprint records.
func condition(t *testing.T, bp *record.Blueprint) string {
	t.Helper()
	for _, o := range bp.Outputs {
		if o.Name == "cancellation_allowed" {
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
