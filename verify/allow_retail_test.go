package verify_test

import (
	"context"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/synth-data/synth/internal/testplay"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/record"
)

// Each of retail's allow rules (policy.star) rejects a hand-edited
// dialogue that breaks it, by its name, and passes the clean dialogue it
// was edited from: a write on an order of a status the policy refuses
// it on, carried out where the agent refused; a refusal citing another
// condition; a cancellation for a reason the policy does not accept; a
// payment change to the method the order is paid with; a refund to a
// card that did not pay for the order.
func TestRetailAllowRulesRejectBrokenDialogues(t *testing.T) {
	retail, err := testplay.NewFixture("retail", 1)
	if err != nil {
		t.Fatal(err)
	}
	carriedOut := func(tool string, args func(order map[string]any) map[string]any) func(*testing.T, *record.Blueprint, *record.Trajectory) {
		return func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
			key := refusedOrder(t, bp, tr)
			v, _ := retail.D.Base.Get("orders", key)
			order := v.(map[string]any)
			a := args(order)
			a["order_id"] = key
			insertCall(t, retail, bp, tr, tool, a)
		}
	}
	address := func(map[string]any) map[string]any {
		return map[string]any{"address1": "1 Elm Street", "address2": "", "city": "Austin", "state": "TX", "country": "USA", "zip": "78701"}
	}
	firstItem := func(order map[string]any) map[string]any {
		item := order["items"].([]any)[0].(map[string]any)
		return map[string]any{"item_ids": []any{item["item_id"]}, "new_item_ids": []any{item["item_id"]}, "payment_method_id": originalMethod(order)}
	}
	cases := []struct {
		name string
		tool string
		rule string
		keep func(*record.Trajectory) bool
		edit func(*testing.T, *record.Blueprint, *record.Trajectory)
	}{
		{"a refused cancellation carried out", refuse("cancel_pending_order"), "cancel_only_pending", says("only a pending order can be cancelled"),
			carriedOut("cancel_pending_order", func(map[string]any) map[string]any { return map[string]any{"reason": "no longer needed"} })},
		{"a refused address change carried out", refuse("modify_pending_order_address"), "address_change_only_pending", says("only a pending order"),
			carriedOut("modify_pending_order_address", address)},
		{"a refused payment change carried out", refuse("modify_pending_order_payment"), "payment_change_only_pending", says("only a pending order"),
			carriedOut("modify_pending_order_payment", func(order map[string]any) map[string]any {
				return map[string]any{"payment_method_id": otherMethod(retail, order)}
			})},
		{"a refused change of items carried out", refuse("modify_pending_order_items"), "items_change_only_pending", says("only a pending order"),
			carriedOut("modify_pending_order_items", firstItem)},
		{"a refused return carried out", refuse("return_delivered_order_items"), "return_only_delivered", says("only a delivered order"),
			carriedOut("return_delivered_order_items", func(order map[string]any) map[string]any {
				a := firstItem(order)
				delete(a, "new_item_ids")
				return a
			})},
		{"a refused exchange carried out", refuse("exchange_delivered_order_items"), "exchange_only_delivered", says("only a delivered order"),
			carriedOut("exchange_delivered_order_items", firstItem)},
		{"a refused return citing another condition", refuse("return_delivered_order_items"), "return_only_delivered", says("only a delivered order"),
			func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
				i := citing(t, bp, tr)
				tr.Messages[i].Content = "I'm sorry, but I can't return items from this order: it is too old."
			}},
		{"a cancellation for a reason the policy does not accept", "cancel_pending_order", "cancel_reason_accepted", nil,
			func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
				editArgs(t, tr, callAt(tr, "cancel_pending_order"), func(args map[string]any) { args["reason"] = "found it cheaper elsewhere" })
			}},
		{"a payment change to the method the order is paid with", "modify_pending_order_payment", "new_payment_method", nil,
			func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
				editArgs(t, tr, callAt(tr, "modify_pending_order_payment"), func(args map[string]any) {
					v, _ := retail.D.Base.Get("orders", args["order_id"].(string))
					args["payment_method_id"] = originalMethod(v.(map[string]any))
				})
			}},
		{"a refund to a card that did not pay for the order", "return_delivered_order_items", "refund_to_original_or_gift_card", otherCard(retail),
			func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
				editArgs(t, tr, callAt(tr, "return_delivered_order_items"), func(args map[string]any) {
					v, _ := retail.D.Base.Get("orders", args["order_id"].(string))
					args["payment_method_id"] = otherMethod(retail, v.(map[string]any))
				})
			}},
		// The refusals the generator makes of the rules on what the
		// customer asks for, not on the order's status.
		{"a cancellation refused for its reason carried out", refuse("cancel_pending_order"), "cancel_reason_accepted", says(reasonRefused),
			carriedOut("cancel_pending_order", func(map[string]any) map[string]any { return map[string]any{"reason": "found a better price elsewhere"} })},
		{"a cancellation refused for its reason citing another condition", refuse("cancel_pending_order"), "cancel_reason_accepted", says(reasonRefused),
			func(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) {
				tr.Messages[citing(t, bp, tr)].Content = "I'm sorry, but I can't cancel this order: it has shipped."
			}},
		{"a refused change to the order's own payment method carried out", refuse("modify_pending_order_payment"), "new_payment_method", says("already paid with that payment method"),
			carriedOut("modify_pending_order_payment", func(order map[string]any) map[string]any {
				return map[string]any{"payment_method_id": originalMethod(order)}
			})},
		{"a refused refund to another card carried out", refuse("return_delivered_order_items"), "refund_to_original_or_gift_card", says("a refund goes only to"),
			carriedOut("return_delivered_order_items", func(order map[string]any) map[string]any {
				a := firstItem(order)
				delete(a, "new_item_ids")
				a["payment_method_id"] = otherMethod(retail, order)
				return a
			})},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bp, tr := oracleWhere(t, retail, tc.tool, "", 0, tc.keep)
			if v := retail.Ver.Verify(ctx, bp, tr); !v.Passed {
				t.Fatalf("the clean twin fails: %v", v.Failed())
			}
			bad := clone(t, tr)
			tc.edit(t, bp, bad)
			v := retail.Ver.Verify(ctx, bp, bad)
			if want := "rule:allow:" + tc.rule; !slices.Contains(failed(v), want) {
				t.Fatalf("the broken dialogue fails %v, want %s", failed(v), want)
			}
		})
	}
}

func refuse(tool string) string { return model.IntentRefusePrefix + tool }

// reasonRefused is how rule cancel_reason_accepted refuses.
const reasonRefused = "only because it is no longer needed or was ordered by mistake"

// says keeps the dialogues in which the agent says words: the condition
// of the rule a refusal comes from.
func says(words string) func(*record.Trajectory) bool {
	return func(tr *record.Trajectory) bool {
		return slices.ContainsFunc(tr.Messages, func(m record.Message) bool {
			return m.Role == "assistant" && strings.Contains(m.Content, words)
		})
	}
}

var orderKey = regexp.MustCompile(`order (#W\d+)`)

// refusedOrder is the order the agent's refusal names.
func refusedOrder(t *testing.T, bp *record.Blueprint, tr *record.Trajectory) string {
	t.Helper()
	m := orderKey.FindStringSubmatch(tr.Messages[citing(t, bp, tr)].Content)
	if m == nil {
		t.Fatal("the refusal names no order")
	}
	return m[1]
}

// originalMethod is the payment method an order was paid with.
func originalMethod(order map[string]any) string {
	return order["payment_history"].([]any)[0].(map[string]any)["payment_method_id"].(string)
}

// otherMethod is a method of the order's user that is no gift card and
// did not pay for the order, "" when the user has none.
func otherMethod(fx *testplay.Fixture, order map[string]any) string {
	v, _ := fx.D.Base.Get("users", order["user_id"].(string))
	methods := v.(map[string]any)["payment_methods"].(map[string]any)
	for _, id := range slices.Sorted(maps.Keys(methods)) {
		m := methods[id].(map[string]any)
		if m["source"] != "gift_card" && id != originalMethod(order) {
			return id
		}
	}
	return ""
}

// otherCard keeps the dialogues whose return is of an order whose user
// has a method other than a gift card that did not pay for it.
func otherCard(fx *testplay.Fixture) func(*record.Trajectory) bool {
	return func(tr *record.Trajectory) bool {
		i := callAt(tr, "return_delivered_order_items")
		if i < 0 {
			return false
		}
		var args struct {
			ID string `json:"order_id"`
		}
		_ = json.Unmarshal([]byte(tr.Messages[i].ToolCalls[0].Function.Arguments), &args)
		v, ok := fx.D.Base.Get("orders", args.ID)
		return ok && otherMethod(fx, v.(map[string]any)) != ""
	}
}
