package domains_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/internal/testplay"
	"github.com/synth-data/synth/record"
)

// Retail's refusals come from its allow rules: each rule on an order's
// status, and each on what the customer asks for (a reason the policy
// does not accept, the method the order is paid with as a new one, a
// refund to a card that did not pay), makes refusal tasks; every
// refusal records the condition its rule names (the agent must cite
// it), and every dialogue verifies.
func TestRetailRefusalsCiteTheirRule(t *testing.T) {
	fx, err := testplay.NewFixture("retail", 5)
	if err != nil {
		t.Fatal(err)
	}
	played, err := testplay.Play(fx.D, fx.Gen, 300)
	if err != nil {
		t.Fatal(err)
	}
	// The rules a refusal can come from, by the tool it refuses, and
	// words of the condition each names.
	type cond struct{ rule, words string }
	want := map[string][]cond{
		"cancel_pending_order": {{"cancel_only_pending", "only a pending order"},
			{"cancel_reason_accepted", "only because it is no longer needed or was ordered by mistake"}},
		"modify_pending_order_address": {{"address_change_only_pending", "only a pending order"}},
		"modify_pending_order_payment": {{"payment_change_only_pending", "only a pending order"},
			{"new_payment_method", "already paid with that payment method"}},
		"modify_pending_order_items": {{"items_change_only_pending", "only a pending order"}},
		"return_delivered_order_items": {{"return_only_delivered", "only a delivered order"},
			{"refund_to_original_or_gift_card", "only to the original payment method or to a gift card"}},
		"exchange_delivered_order_items": {{"exchange_only_delivered", "only a delivered order"}},
	}
	seen := map[string]int{}
	for _, p := range played {
		if v := fx.Ver.Verify(t.Context(), p.BP, p.TR); !v.Passed {
			t.Errorf("%s fails %v", p.BP.ID, v.Failed())
		}
		for gi, g := range p.BP.Goals {
			tool, ok := strings.CutPrefix(g.Intent, "refuse:")
			if g.Kind != record.GoalRefuse || !ok {
				continue
			}
			var cited []record.Output
			for _, o := range p.BP.Outputs {
				if o.Goal == gi {
					cited = append(cited, o)
				}
			}
			i := -1
			if len(cited) == 1 {
				i = slices.IndexFunc(want[tool], func(c cond) bool {
					return c.rule == cited[0].Name && strings.Contains(cited[0].Value, c.words)
				})
			}
			if i < 0 {
				t.Errorf("%s: the refusal of %s records %v, want the condition of one of %v", p.BP.ID, tool, cited, want[tool])
				continue
			}
			seen[want[tool][i].rule]++
		}
	}
	for _, conds := range want {
		for _, c := range conds {
			if seen[c.rule] == 0 {
				t.Errorf("no refusal task of rule %s in %d dialogues", c.rule, len(played))
			}
		}
	}
	t.Logf("refusals by rule: %v", seen)
}

// A write's allow rules narrow the orders a task may be drawn on before
// any is tried: MayPermit keeps exactly the orders of the status the
// rule on the status allows (the other rules need arguments no order
// gives, and refuse nothing there), and the model's index of the
// records a write may act on agrees.
func TestMayPermitNarrowsTargets(t *testing.T) {
	d, err := domains.Load("retail", 1)
	if err != nil {
		t.Fatal(err)
	}
	st := d.Base.NewState()
	for tool, status := range map[string]string{
		"cancel_pending_order":           "pending",
		"modify_pending_order_payment":   "pending",
		"return_delivered_order_items":   "delivered",
		"exchange_delivered_order_items": "delivered",
	} {
		w := d.Model.Write(tool)
		indexed := map[string]bool{}
		for _, k := range d.Base.Keys("orders") {
			v, _ := d.Base.Get("orders", k)
			order := v.(map[string]any)
			want := order["status"] == status
			if got := w.MayPermit(t.Context(), st, order); got != want {
				t.Errorf("%s on order %s (%s): MayPermit %v, want %v", tool, k, order["status"], got, want)
			}
			for _, key := range d.Model.Fitting(w, true, order["user_id"].(string)) {
				indexed[key] = true
			}
		}
		for _, k := range d.Base.Keys("orders") {
			v, _ := d.Base.Get("orders", k)
			if want := v.(map[string]any)["status"] == status; indexed[k] != want {
				t.Errorf("%s: order %s (%s) indexed as allowed: %v, want %v", tool, k, v.(map[string]any)["status"], indexed[k], want)
			}
		}
	}
}

// A request the order's status alone refuses is refused as soon as the
// order is read: no question to the customer in between (the reason,
// the items, their replacements, a payment method), in the ground truth
// and in the dialogue alike, and every such dialogue verifies.
func TestRefusedOnTheRecordAtOnce(t *testing.T) {
	fx, err := testplay.NewFixture("retail", 5)
	if err != nil {
		t.Fatal(err)
	}
	played, err := testplay.Play(fx.D, fx.Gen, 300)
	if err != nil {
		t.Fatal(err)
	}
	orderID := regexp.MustCompile(`#W\d+`)
	early := 0
	for _, p := range played {
		for gi, g := range p.BP.Goals {
			if g.Kind != record.GoalRefuse {
				continue
			}
			for _, o := range p.BP.Outputs {
				if o.Goal != gi || !strings.HasSuffix(o.Name, "_only_pending") && !strings.HasSuffix(o.Name, "_only_delivered") {
					continue
				}
				if len(g.Slots) > 0 {
					t.Errorf("%s goal %d: refused on the order's status, yet the customer has %v to say", p.BP.ID, gi, g.Slots)
				}
				ms := p.TR.Messages
				at := slices.IndexFunc(ms, func(m record.Message) bool {
					return m.Role == "assistant" && strings.Contains(m.Content, o.Value[1:])
				})
				if at < 0 {
					t.Errorf("%s goal %d: no message cites %q", p.BP.ID, gi, o.Value)
					continue
				}
				key := orderID.FindString(ms[at].Content)
				read := -1
				for k := at - 1; k >= 0 && read < 0; k-- {
					for _, c := range ms[k].ToolCalls {
						if c.Function.Name == "get_order_details" && strings.Contains(c.Function.Arguments, key) {
							read = k
						}
					}
				}
				if read < 0 {
					t.Errorf("%s goal %d: order %s refused unread", p.BP.ID, gi, key)
					continue
				}
				for k := read; k < at; k++ {
					if ms[k].Role == "user" {
						t.Errorf("%s goal %d: the customer was asked something (message %d) between reading %s and refusing it", p.BP.ID, gi, k, key)
						break
					}
				}
				early++
			}
		}
	}
	if early < 10 {
		t.Errorf("%d refusals on an order's status in 300 tasks, want at least 10", early)
	}
}
