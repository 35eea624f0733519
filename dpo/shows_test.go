package dpo_test

import (
	"context"
	"testing"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/dpo"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/internal/testplay"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/verify"
)

// Each label's check accepts a pair of its own flaw cut by Plan.Cut and
// rejects a pair of another flaw that does not make its mistake, on
// both built-in domains, in every pair mode and tool cut.
func TestLabelCheckerShows(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	// mislabel is, per label, a flaw whose rejected side does not show it.
	mislabel := map[string]string{
		agent.FlawGuessedTarget:       agent.FlawOmitsOutput,
		agent.FlawWrongTarget:         agent.FlawStopsEarly,
		agent.FlawWrongArgument:       agent.FlawUnnecessaryTransfer,
		agent.FlawNoConfirmation:      agent.FlawOmitsOutput,
		agent.FlawUnauthenticated:     agent.FlawStopsEarly,
		agent.FlawHallucinatedID:      agent.FlawNoConfirmation,
		agent.FlawWrongTool:           agent.FlawUnnecessaryTransfer,
		agent.FlawSchemaInvalid:       agent.FlawWrongTool,
		agent.FlawStopsEarly:          agent.FlawWrongTool,
		agent.FlawUnnecessaryTransfer: agent.FlawStopsEarly,
		agent.FlawOmitsOutput:         agent.FlawNoConfirmation,
		agent.FlawUndisclosed:         agent.FlawStopsEarly,
		agent.FlawNoReminder:          agent.FlawStopsEarly,
		agent.FlawNoTransferMessage:   agent.FlawStopsEarly,
		agent.FlawAssumedArgument:     agent.FlawStopsEarly,
		agent.FlawNoOpWrite:           agent.FlawStopsEarly,
		agent.FlawUnrequestedWrite:    agent.FlawStopsEarly,
		agent.FlawSilentRefusal:       agent.FlawStopsEarly,
		agent.FlawUnchecked:           agent.FlawStopsEarly,
		agent.FlawMiscomputed:         agent.FlawStopsEarly,
	}
	if len(mislabel) != len(agent.Flaws()) {
		t.Fatalf("mislabel covers %d of the %d labels", len(mislabel), len(agent.Flaws()))
	}
	ctx := context.Background()
	for _, tc := range []struct{ domain, mode, tools string }{
		{"retail", dpo.PairSegment, dpo.ToolsKeep},
		{"airline", dpo.PairSegment, dpo.ToolsKeep},
		{"retail", dpo.PairSession, dpo.ToolsKeep},
		{"retail", dpo.PairEqual, dpo.ToolsCut},
	} {
		t.Run(tc.domain+"/"+tc.mode+"/"+tc.tools, func(t *testing.T) {
			fx, err := testplay.NewFixture(tc.domain, 1)
			if err != nil {
				t.Fatal(err)
			}
			kinds := dpo.FlawsFor(fx.D.Model)
			plan, err := dpo.NewPlan(1, kinds, nil, tc.mode, tc.tools, 1)
			if err != nil {
				t.Fatal(err)
			}
			lc := dpo.NewLabelChecker(fx.D, fx.Ver)
			type example struct {
				bp        *record.Blueprint
				pair      dpo.Pair
				good, bad []record.Message
			}
			found := map[string]example{}
			for i := 0; i < 300 && len(found) < len(kinds); i++ {
				bp, err := fx.Gen.Generate(ctx, i)
				if err != nil {
					t.Fatal(err)
				}
				good, err := embedded.Simulate(ctx, fx.D, bp, 60)
				if err != nil {
					t.Fatal(err)
				}
				for _, kind := range kinds {
					if _, done := found[kind]; done {
						continue
					}
					bad, fired, err := embedded.SimulateFlawed(ctx, fx.D, bp, 60, agent.Flaw{Kind: kind})
					if err != nil {
						t.Fatal(err)
					}
					v := fx.Ver.Verify(ctx, bp, bad)
					if fired && v.Passed && len(bad.Corrections) > 0 {
						// Caught by the customer: the rejected side is the
						// proposal turned down.
						bad.Messages = bad.Messages[:bad.Corrections[0]]
					} else if !fired || v.Passed || !dpo.Explains(kind, v.Failed().Name) {
						continue
					}
					pair, err := plan.Cut(ctx, lc, bp, kind, good.Messages, bad.Messages)
					if err != nil {
						continue
					}
					found[kind] = example{bp, pair, good.Messages, bad.Messages}
				}
			}
			for _, label := range kinds {
				t.Run(label, func(t *testing.T) {
					ex, ok := found[label]
					if !ok {
						// A session pair's chosen side runs to the end, past
						// the proposal a caught mistake's rejected side stops
						// at; an assumed argument shows only in its write,
						// and a guess is mostly right or caught.
						if tc.tools == dpo.ToolsCut || tc.domain == "airline" || tc.mode == dpo.PairSession ||
							label == agent.FlawAssumedArgument || label == agent.FlawGuessedTarget {
							t.Skipf("no %s pair in 300 blueprints", label)
						}
						t.Fatalf("no %s pair in 300 blueprints", label)
					}
					p := ex.pair
					if ok, why := lc.Shows(ctx, ex.bp, label, p.Prompt, p.Chosen, p.Rejected); !ok {
						t.Errorf("a %s pair's rows do not show its label: %s", label, why)
					}
					// The label says no more than the rows show: a rejected
					// side that does what the chosen side does shows none.
					if ok, _ := lc.Shows(ctx, ex.bp, label, p.Prompt, p.Chosen, p.Chosen); ok {
						t.Errorf("the chosen side, as a rejected side, shows %s", label)
					}
					// It ends where the mistake is shown, not later.
					if tc.mode != dpo.PairSession {
						for i := range len(p.Rejected) - 1 {
							if p.Rejected[i].Role != "assistant" {
								continue
							}
							if ok, _ := lc.Shows(ctx, ex.bp, label, p.Prompt, p.Chosen, p.Rejected[:i+1]); ok {
								t.Errorf("a %s pair's rejected side shows it by message %d of %d, but runs on", label, i, len(p.Rejected))
							}
						}
					}
					if tc.mode != dpo.PairSession {
						for _, side := range [][]record.Message{ex.pair.Chosen, ex.pair.Rejected} {
							for i, m := range side {
								if m.Role == "user" {
									t.Errorf("a %s pair's side runs past the next customer turn (message %d)", tc.mode, i)
								}
							}
						}
					}
					if tc.tools == dpo.ToolsCut {
						for _, side := range [][]record.Message{ex.pair.Chosen, ex.pair.Rejected} {
							for i, m := range side {
								if m.Role == "tool" {
									t.Errorf("dpo_tools cut, but side message %d is a tool result", i)
								}
							}
						}
					}
					other, ok := found[mislabel[label]]
					if !ok {
						t.Skipf("no %s pair to mislabel", mislabel[label])
					}
					if _, err := plan.Cut(ctx, lc, other.bp, label, other.good, other.bad); err == nil {
						t.Errorf("a %s pair labelled %s shows it", mislabel[label], label)
					}
				})
			}
		})
	}
}

// A pair whose mistake lies past every cut is refused, never mislabelled.
func TestCutRefusesUnshownLabel(t *testing.T) {
	fx, plan, lc := segmentPlan(t, "retail")
	ctx := context.Background()
	for i := range 40 {
		bp, err := fx.Gen.Generate(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		good, _ := embedded.Simulate(ctx, fx.D, bp, 60)
		bad, fired, _ := embedded.SimulateFlawed(ctx, fx.D, bp, 60, agent.Flaw{Kind: agent.FlawOmitsOutput})
		if !fired {
			continue
		}
		// An omitted output is no hallucinated id.
		if _, err := plan.Cut(ctx, lc, bp, agent.FlawHallucinatedID, good.Messages, bad.Messages); err == nil {
			t.Fatalf("blueprint %d: an omits_output dialogue was cut as hallucinated_id", i)
		} else if _, err := plan.Cut(ctx, lc, bp, agent.FlawOmitsOutput, good.Messages, bad.Messages); err != nil {
			t.Fatalf("blueprint %d: %v", i, err)
		}
		return
	}
	t.Fatal("no omits_output dialogue in 40 blueprints")
}

// segmentPlan is a domain's fixture with the default plan (segment pairs,
// tool results kept) over its failure types, and its label checker.
func segmentPlan(t *testing.T, domain string) (*testplay.Fixture, *dpo.Plan, *dpo.LabelChecker) {
	t.Helper()
	fx, err := testplay.NewFixture(domain, 1)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := dpo.NewPlan(1, dpo.FlawsFor(fx.D.Model), nil, dpo.PairSegment, dpo.ToolsKeep, 1)
	if err != nil {
		t.Fatal(err)
	}
	return fx, plan, dpo.NewLabelChecker(fx.D, fx.Ver)
}

// A proposal's wrong argument is held to the ground truth's next write,
// not to the first of its tool's: on a task's second return, the first
// (already made) names another order, so its arguments say nothing of
// the proposal's.
func TestWrongArgumentOnALaterWriteOfItsTool(t *testing.T) {
	fx, err := testplay.NewFixture("retail", 1)
	if err != nil {
		t.Fatal(err)
	}
	lc := dpo.NewLabelChecker(fx.D, fx.Ver)
	const tool = "return_delivered_order_items"
	first := `{"item_ids":["1111111111"],"order_id":"#W1000001","payment_method_id":"credit_card_1"}`
	bp := &record.Blueprint{ID: "t", Domain: "retail", Actions: []record.Action{
		{Tool: tool, Kind: record.KindWrite, Arguments: []byte(first)},
		{Tool: tool, Kind: record.KindWrite, Arguments: []byte(`{"item_ids":["2222222222"],"order_id":"#W2000002","payment_method_id":"credit_card_1"}`)},
	}}
	prompt := []record.Message{
		{Role: "user", Content: "Please return the lamp from order #W1000001."},
		{Role: "assistant", ToolCalls: []record.ToolCall{{ID: "c1", Type: "function", Function: record.FunctionCall{Name: tool, Arguments: first}}}},
		{Role: "tool", ToolCallID: "c1", Content: `{"order_id":"#W1000001","status":"return requested"}`},
		{Role: "assistant", Content: "Done. Anything else?"},
		{Role: "user", Content: "Yes, return the kettle from order #W2000002 too."},
	}
	propose := func(item string) []record.Message {
		return []record.Message{{Role: "assistant", Content: "I'll send back items from order #W2000002: the kettle (" + item + "), to credit_card_1. Shall I go ahead?"}}
	}
	ctx := context.Background()
	if ok, why := lc.Shows(ctx, bp, agent.FlawWrongArgument, prompt, propose("2222222222"), propose("3333333333")); !ok {
		t.Errorf("another item proposed on the second return does not show wrong_argument: %s", why)
	}
	if ok, _ := lc.Shows(ctx, bp, agent.FlawWrongArgument, prompt, propose("2222222222"), propose("2222222222")); ok {
		t.Error("the chosen proposal, as a rejected side, shows wrong_argument")
	}
}

// An agent that skips authentication makes its mistake where the
// oracle identifies the customer, so that every such pair shows it: a
// key guessed from the email opens the account at once, not after the
// customer's next turn, past the pair's cut. Where the key alone
// identifies the customer (airline), taking it is no mistake and the
// flaw does not fire on it.
func TestUnauthenticatedShownAtTheSkippedLookup(t *testing.T) {
	for _, tc := range []struct {
		domain string
		least  int // unauthenticated pairs in 60 blueprints
	}{{"retail", 10}, {"airline", 0}} {
		t.Run(tc.domain, func(t *testing.T) {
			fx, plan, lc := segmentPlan(t, tc.domain)
			ctx := context.Background()
			pairs := 0
			for i := range 60 {
				bp, err := fx.Gen.Generate(ctx, i)
				if err != nil {
					t.Fatal(err)
				}
				good, err := embedded.Simulate(ctx, fx.D, bp, 60)
				if err != nil {
					t.Fatal(err)
				}
				bad, fired, err := embedded.SimulateFlawed(ctx, fx.D, bp, 60, agent.Flaw{Kind: agent.FlawUnauthenticated})
				if err != nil {
					t.Fatal(err)
				}
				if !fired {
					continue
				}
				if f := fx.Ver.Verify(ctx, bp, bad).Failed(); f == nil || f.Name != verify.CheckAuth {
					t.Fatalf("blueprint %d: an unauthenticated dialogue failed %+v", i, f)
				}
				if _, err := plan.Cut(ctx, lc, bp, agent.FlawUnauthenticated, good.Messages, bad.Messages); err != nil {
					t.Errorf("blueprint %d: %v", i, err)
				}
				pairs++
			}
			if pairs < tc.least {
				t.Errorf("%d unauthenticated pairs in 60 blueprints, want at least %d", pairs, tc.least)
			}
		})
	}
}

// A proposal names a payment method by its record (brand and last four
// digits, "gift card"), not by its id: the label holds to those words,
// and not to a figure the rejected side leaves out (undisclosed's).
func TestWrongArgumentNamedByItsRecord(t *testing.T) {
	fx, err := testplay.NewFixture("retail", 1)
	if err != nil {
		t.Fatal(err)
	}
	lc := dpo.NewLabelChecker(fx.D, fx.Ver)
	bp := &record.Blueprint{ID: "t", Domain: "retail", Actions: []record.Action{{Tool: "modify_pending_order_payment", Kind: record.KindWrite,
		Arguments: []byte(`{"order_id":"#W1000001","payment_method_id":"gift_card_2000002"}`)}}}
	prompt := []record.Message{
		{Role: "user", Content: "Please pay for order #W1000001 with my gift card."},
		{Role: "assistant", ToolCalls: []record.ToolCall{{ID: "c1", Type: "function", Function: record.FunctionCall{Name: "get_user_details", Arguments: `{"user_id":"ann_lee_1"}`}}}},
		{Role: "tool", ToolCallID: "c1", Content: `{"user_id":"ann_lee_1","payment_methods":{` +
			`"credit_card_1000001":{"brand":"visa","id":"credit_card_1000001","last_four":"1234","source":"credit_card"},` +
			`"gift_card_2000002":{"balance":50,"id":"gift_card_2000002","source":"gift_card"}}}`},
	}
	say := func(text string) []record.Message { return []record.Message{{Role: "assistant", Content: text}} }
	chosen := say("I'll pay for order #W1000001 with your gift card, $50 on it. Shall I go ahead?")
	ctx := context.Background()
	for _, tc := range []struct {
		rejected string
		shows    bool
	}{
		{"I'll pay for order #W1000001 with your Visa ending in 1234, $50 on it. Shall I go ahead?", true},
		{"I'll pay for order #W1000001 with your gift card, $50 on it. Shall I go ahead?", false},
		{"I'll pay for order #W1000001 with your gift card. Shall I go ahead?", false},
	} {
		if ok, why := lc.Shows(ctx, bp, agent.FlawWrongArgument, prompt, chosen, say(tc.rejected)); ok != tc.shows {
			t.Errorf("%q shows wrong_argument: %v (%s), want %v", tc.rejected, ok, why, tc.shows)
		}
	}
}
