package verify_test

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/internal/testplay"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/verify"
)

// oracleWith is the first verified oracle dialogue of the fixture whose
// calls include tool (or whose blueprint has a goal of kind goalKind)
// and at least minWrites writes.
func oracleWith(t *testing.T, fx *testplay.Fixture, tool, goalKind string, minWrites int) (*record.Blueprint, *record.Trajectory) {
	t.Helper()
	return oracleWhere(t, fx, tool, goalKind, minWrites, nil)
}

// oracleWhere is oracleWith among the dialogues keep accepts (nil: all).
func oracleWhere(t *testing.T, fx *testplay.Fixture, tool, goalKind string, minWrites int, keep func(*record.Trajectory) bool) (*record.Blueprint, *record.Trajectory) {
	t.Helper()
	ctx := context.Background()
	for i := range 3000 {
		bp, err := fx.Gen.Generate(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		if bp.NWrites < minWrites {
			continue
		}
		if goalKind != "" && !slices.ContainsFunc(bp.Goals, func(g record.Goal) bool { return g.Kind == goalKind }) {
			continue
		}
		if refused, ok := strings.CutPrefix(tool, model.IntentRefusePrefix); ok {
			// A forbidden request of that tool, no write of it, and the
			// reads its checks need (a refusal the target's own state
			// decides needs none).
			if !slices.ContainsFunc(bp.Goals, func(g record.Goal) bool { return g.Intent == tool }) ||
				slices.ContainsFunc(bp.Actions, func(a record.Action) bool { return a.Tool == refused }) ||
				!checksRead(fx, refused, bp) {
				continue
			}
		} else if tool != "" && !slices.ContainsFunc(bp.Actions, func(a record.Action) bool { return a.Tool == tool }) {
			continue
		}
		tr, err := embedded.Simulate(ctx, fx.D, bp, 60)
		if err != nil {
			t.Fatal(err)
		}
		if keep != nil && !keep(tr) {
			continue
		}
		if v := fx.Ver.Verify(ctx, bp, tr); v.Passed {
			return bp, tr
		}
	}
	t.Fatalf("no verified dialogue with %s %s", tool, goalKind)
	return nil, nil
}

// checksRead reports whether the ground truth holds a read its checks
// name, when the write has checks.
func checksRead(fx *testplay.Fixture, tool string, bp *record.Blueprint) bool {
	w := fx.D.Model.Write(tool)
	if w == nil || len(w.Checks) == 0 {
		return true
	}
	return slices.ContainsFunc(bp.Actions, func(a record.Action) bool {
		return slices.ContainsFunc(w.Checks, func(c pack.Check) bool { return c.Tool == a.Tool })
	})
}

// dropCalls is the edit of a dialogue that never calls tool: its calls
// and their results are cut.
func dropCalls(tool string) func(t *testing.T, tr *record.Trajectory) {
	return func(t *testing.T, tr *record.Trajectory) {
		var kept []record.Message
		dropped := map[string]bool{}
		for _, m := range tr.Messages {
			if len(m.ToolCalls) == 1 && m.ToolCalls[0].Function.Name == tool {
				dropped[m.ToolCalls[0].ID] = true
				continue
			}
			if m.Role == "tool" && dropped[m.ToolCallID] {
				continue
			}
			kept = append(kept, m)
		}
		if len(dropped) == 0 {
			t.Fatalf("the dialogue never calls %s", tool)
		}
		tr.Messages = kept
	}
}

// callAt is the index of the message calling tool (the k-th such call).
// unsay takes word out of every customer message before message i (in
// any case: the rules compare what the customer said case aside).
func unsay(tr *record.Trajectory, i int, word, with string) {
	for j := range tr.Messages[:i] {
		if tr.Messages[j].Role == "user" {
			tr.Messages[j].Content = strings.ReplaceAll(strings.ToLower(tr.Messages[j].Content), strings.ToLower(word), with)
		}
	}
}

// reasonUnsaid is the edit of a cancellation whose reason the customer
// never gave.
func reasonUnsaid(tool string) func(*testing.T, *record.Trajectory) {
	return func(t *testing.T, tr *record.Trajectory) {
		i := callAt(tr, tool)
		var args map[string]any
		_ = json.Unmarshal([]byte(tr.Messages[i].ToolCalls[0].Function.Arguments), &args)
		reason, _ := args["reason"].(string)
		unsay(tr, i, reason, "something")
	}
}

func callAt(tr *record.Trajectory, tool string) int {
	for i, m := range tr.Messages {
		for _, c := range m.ToolCalls {
			if c.Function.Name == tool {
				return i
			}
		}
	}
	return -1
}

// proposalAt is the index of the agent's words before the yes that
// precedes message i.
func proposalAt(tr *record.Trajectory, i int) int {
	seenYes := false
	for j := i - 1; j >= 0; j-- {
		m := tr.Messages[j]
		if m.Role == "user" {
			seenYes = true
		}
		if seenYes && m.Role == "assistant" && m.Content != "" {
			return j
		}
	}
	return -1
}

func failed(v record.Verdict) []string {
	var out []string
	for _, c := range v.Checks {
		if !c.Passed {
			out = append(out, c.Name)
		}
	}
	return out
}

var dollars = regexp.MustCompile(`-?\$\d+(\.\d+)?`)

// reported are the amounts the agent's first words after the write at
// message i state: the write's figures, as said once it is done.
func reported(tr *record.Trajectory, i int) []string {
	for _, m := range tr.Messages[i+1:] {
		if m.Role == "assistant" && m.Content != "" {
			return dollars.FindAllString(m.Content, -1)
		}
	}
	return nil
}

// withoutAmounts drops the sentences of text that state one of amounts.
func withoutAmounts(text string, amounts []string) string {
	var keep []string
	for _, s := range verify.SentencesOf(text) {
		if !slices.ContainsFunc(dollars.FindAllString(s, -1), func(a string) bool { return slices.Contains(amounts, a) }) {
			keep = append(keep, s)
		}
	}
	return strings.TrimSpace(strings.Join(keep, ""))
}

// Each policy rule rejects a hand-edited dialogue that breaks it, by
// the rule's name, and passes the clean dialogue it was edited from.
func TestRulesRejectBrokenDialogues(t *testing.T) {
	retail, err := testplay.NewFixture("retail", 1)
	if err != nil {
		t.Fatal(err)
	}
	airline, err := testplay.NewFixture("airline", 1)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		fx       *testplay.Fixture
		tool     string
		goalKind string
		rule     string
		edit     func(t *testing.T, tr *record.Trajectory)
		writes   int
	}{
		{"refund not stated before the yes", retail, "cancel_pending_order", "", "rule:disclose:cancel_refund", func(t *testing.T, tr *record.Trajectory) {
			i := callAt(tr, "cancel_pending_order")
			p := proposalAt(tr, i)
			tr.Messages[p].Content = withoutAmounts(tr.Messages[p].Content, reported(tr, i))
		}, 0},
		{"a wrong refund stated", retail, "cancel_pending_order", "", "rule:disclose:cancel_refund", func(t *testing.T, tr *record.Trajectory) {
			i := callAt(tr, "cancel_pending_order")
			p := proposalAt(tr, i)
			tr.Messages[p].Content = "The refund will be $1.01. " + withoutAmounts(tr.Messages[p].Content, reported(tr, i))
		}, 0},
		{"booking total not stated", airline, "book_reservation", "", "rule:disclose:booking_total", func(t *testing.T, tr *record.Trajectory) {
			i := callAt(tr, "book_reservation")
			p := proposalAt(tr, i)
			amounts := reported(tr, i)
			text := withoutAmounts(tr.Messages[p].Content, amounts)
			// The amount goes wherever it is said: for one passenger the
			// itinerary's price is the total.
			for _, amount := range amounts {
				text = strings.ReplaceAll(text, amount+" ", "an amount ")
				text = strings.ReplaceAll(text, amount+",", "an amount,")
				text = strings.ReplaceAll(text, amount+")", "an amount)")
			}
			tr.Messages[p].Content = text
		}, 0},
		{"a write the tool rejected, proposed without its figure", airline, "book_reservation", "", "rule:disclose:booking_total", func(t *testing.T, tr *record.Trajectory) {
			// The agent before it read a choice's failure on a fork: it
			// proposed a payment method without the total, took the yes,
			// and the tool turned the write down; the clean proposal of
			// the other method followed.
			i := callAt(tr, "book_reservation")
			p := proposalAt(tr, i)
			call := tr.Messages[i].ToolCalls[0]
			var args map[string]any
			_ = json.Unmarshal([]byte(call.Function.Arguments), &args)
			args["payment_id"] = args["user_id"]
			raw, _ := json.Marshal(args)
			res := airline.D.Model.Call(context.Background(), airline.D.Base.NewState(), "book_reservation", string(raw))
			if !res.Err {
				t.Fatalf("the write with another payment went through: %s", res.Output)
			}
			call.ID, call.Function.Arguments = "zzzzzzzz8", string(raw)
			tried := []record.Message{
				{Role: "assistant", Content: "I'll book the itinerary you chose, paid with the method you named. Shall I proceed?"},
				{Role: "user", Content: "Yes, please."},
				{Role: "assistant", ToolCalls: []record.ToolCall{call}},
				{Role: "tool", ToolCallID: call.ID, Name: "book_reservation", Content: res.Output},
				{Role: "assistant", Content: "Sorry, that didn't go through. Which other payment method should I use?"},
				{Role: "user", Content: "The other one, then."},
			}
			tr.Messages = slices.Insert(tr.Messages, p, tried...)
		}, 0},
		{"no reminder that an exchange is once", retail, "exchange_delivered_order_items", "", "rule:say:exchange_only_once", func(t *testing.T, tr *record.Trajectory) {
			p := proposalAt(tr, callAt(tr, "exchange_delivered_order_items"))
			tr.Messages[p].Content = strings.ReplaceAll(tr.Messages[p].Content, "only once", "once more")
		}, 0},
		{"insurance never offered", airline, "book_reservation", "", "rule:say:insurance_offer", func(t *testing.T, tr *record.Trajectory) {
			p := proposalAt(tr, callAt(tr, "book_reservation"))
			tr.Messages[p].Content = strings.ReplaceAll(tr.Messages[p].Content, "$30 per passenger", "a fee")
		}, 0},
		{"transfer without the policy's message", retail, "transfer_to_human_agents", "", "rule:message:transfer_message", func(t *testing.T, tr *record.Trajectory) {
			for i := callAt(tr, "transfer_to_human_agents"); i < len(tr.Messages); i++ {
				tr.Messages[i].Content = strings.ReplaceAll(tr.Messages[i].Content, "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON.", "A colleague will take over.")
			}
		}, 0},
		{"cancellation reason the customer never gave", retail, "cancel_pending_order", "", "rule:from_customer:cancel_reason_from_customer", reasonUnsaid("cancel_pending_order"), 0},
		{"an item the customer never named", retail, "return_delivered_order_items", "", "rule:from_customer:returned_items_from_customer", func(t *testing.T, tr *record.Trajectory) {
			i := callAt(tr, "return_delivered_order_items")
			var args struct {
				Items []string `json:"item_ids"`
			}
			_ = json.Unmarshal([]byte(tr.Messages[i].ToolCalls[0].Function.Arguments), &args)
			name := ""
			for _, m := range tr.Messages[:i] {
				if m.Role != "tool" || len(args.Items) == 0 || !strings.Contains(m.Content, args.Items[0]) {
					continue
				}
				var order struct {
					Items []struct {
						ID   string `json:"item_id"`
						Name string `json:"name"`
					} `json:"items"`
				}
				if json.Unmarshal([]byte(m.Content), &order) == nil {
					for _, it := range order.Items {
						if it.ID == args.Items[0] {
							name = it.Name
						}
					}
				}
			}
			if name == "" {
				t.Fatal("no tool result names the returned item")
			}
			unsay(tr, i, name, "thing")
		}, 0},
		{"passengers the customer never named", airline, "book_reservation", "", "rule:from_customer:passengers_from_customer", func(t *testing.T, tr *record.Trajectory) {
			i := callAt(tr, "book_reservation")
			var args struct {
				Passengers []struct {
					First string `json:"first_name"`
				} `json:"passengers"`
			}
			_ = json.Unmarshal([]byte(tr.Messages[i].ToolCalls[0].Function.Arguments), &args)
			if len(args.Passengers) == 0 {
				t.Skip("the booking has no passengers")
			}
			unsay(tr, i, args.Passengers[0].First, "my companion")
		}, 0},
		{"a write that changes nothing", retail, "modify_user_address", "", "rule:changes_state:write_changes_something", func(t *testing.T, tr *record.Trajectory) {
			i := callAt(tr, "modify_user_address")
			repeat := []record.Message{{Role: "assistant", Content: tr.Messages[proposalAt(tr, i)].Content}, {Role: "user", Content: "Yes, please."}, tr.Messages[i], tr.Messages[i+1]}
			repeat[2].ToolCalls = []record.ToolCall{tr.Messages[i].ToolCalls[0]}
			repeat[2].ToolCalls[0].ID = "zzzzzzzz9"
			repeat[3].ToolCallID = "zzzzzzzz9"
			tr.Messages = slices.Insert(tr.Messages, i+2, repeat...)
		}, 0},
		{"a write on what the customer did not ask for", retail, "modify_user_address", "", "rule:requested:only_requested_writes", func(t *testing.T, tr *record.Trajectory) {
			i := callAt(tr, "modify_user_address")
			c := &tr.Messages[i].ToolCalls[0]
			var args map[string]any
			_ = json.Unmarshal([]byte(c.Function.Arguments), &args)
			for _, k := range retail.D.Base.Keys("users") {
				if k != args["user_id"] {
					args["user_id"] = k
					break
				}
			}
			raw, _ := json.Marshal(args)
			c.Function.Arguments = string(raw)
		}, 0},
		{"two writes on one yes", retail, "", "", "rule:one_write_per_yes:one_write_per_confirmation", func(t *testing.T, tr *record.Trajectory) {
			var writes []int
			for i, m := range tr.Messages {
				for _, c := range m.ToolCalls {
					if retail.D.Tools.Kind(c.Function.Name) == record.KindWrite {
						writes = append(writes, i)
					}
				}
			}
			// Drop the customer's turns between the two writes.
			var kept []record.Message
			for i, m := range tr.Messages {
				if i > writes[0] && i < writes[1] && (m.Role == "user" || m.Role == "assistant" && len(m.ToolCalls) == 0) {
					continue
				}
				kept = append(kept, m)
			}
			tr.Messages = kept
		}, 2},
		{"an order id nobody gave", retail, "cancel_pending_order", "", "rule:grounded:ids_from_the_dialogue", func(t *testing.T, tr *record.Trajectory) {
			i := callAt(tr, "cancel_pending_order")
			var args struct {
				Order string `json:"order_id"`
			}
			_ = json.Unmarshal([]byte(tr.Messages[i].ToolCalls[0].Function.Arguments), &args)
			if args.Order == "" {
				t.Fatal("the cancellation names no order")
			}
			for j := range tr.Messages[:i] {
				if m := &tr.Messages[j]; m.Role == "user" || m.Role == "tool" {
					m.Content = strings.ReplaceAll(m.Content, args.Order, "that order")
				}
			}
		}, 0},
		// send_certificate names no reservation: the checks are its goal's.
		{"a certificate on flights never checked", airline, "send_certificate", "", "rule:checked:facts_before_compensation", dropCalls("get_flight_status"), 0},
		{"a cancellation on flights never checked", airline, "cancel_reservation", "", "rule:checked:statuses_before_cancellation", dropCalls("get_flight_status"), 0},
		{"a cabin change on fares never searched", airline, "update_reservation_flights", "", "rule:checked:fares_before_cabin_change", dropCalls("search_direct_flight"), 0},
		{"a refusal carried out in words", retail, "", record.GoalRefuse, "rule:refuse:refuse_forbidden", func(t *testing.T, tr *record.Trajectory) {
			for i := range tr.Messages {
				if tr.Messages[i].Role == "assistant" {
					tr.Messages[i].Content = regexp.MustCompile(`(?i)can't|cannot|can not|only possible|unable|not possible|not able|not allowed|not permitted|won't be able`).ReplaceAllString(tr.Messages[i].Content, "will")
				}
			}
		}, 0},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bp, tr := oracleWith(t, tc.fx, tc.tool, tc.goalKind, tc.writes)
			if v := tc.fx.Ver.Verify(ctx, bp, tr); !v.Passed {
				t.Fatalf("the clean twin fails: %v", v.Failed())
			}
			bad := clone(t, tr)
			tc.edit(t, bad)
			v := tc.fx.Ver.Verify(ctx, bp, bad)
			if !slices.Contains(failed(v), tc.rule) {
				t.Fatalf("the broken dialogue fails %v, want %s", failed(v), tc.rule)
			}
			for _, c := range v.Checks {
				if c.Name == tc.rule && !strings.Contains(c.Reason, "policy:") {
					t.Errorf("the reason %q does not quote the policy", c.Reason)
				}
			}
		})
	}
}

// TestGoldReplayPerBlueprint: the verifier replays each blueprint's
// ground truth once, and a second blueprint of the same id whose ground
// truth differs is judged by its own.
func TestGoldReplayPerBlueprint(t *testing.T) {
	ctx := context.Background()
	fx, err := testplay.NewFixture("retail", 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		bp, err := fx.Gen.Generate(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		if bp.NWrites < 2 {
			continue
		}
		tr, err := embedded.Simulate(ctx, fx.D, bp, 60)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 2; k++ {
			if v := fx.Ver.Verify(ctx, bp, tr); !v.Passed {
				t.Fatalf("%s, verified again (%d): %v", bp.ID, k, v.Failed())
			}
		}
		// The same id, one write fewer in the ground truth: the dialogue
		// now does more than it.
		short := *bp
		short.Actions = nil
		dropped := false
		for j := len(bp.Actions) - 1; j >= 0; j-- {
			if a := bp.Actions[j]; a.Kind == record.KindWrite && !dropped {
				dropped = true
				continue
			}
			short.Actions = append([]record.Action{bp.Actions[j]}, short.Actions...)
		}
		v := fx.Ver.Verify(ctx, &short, tr)
		if f := v.Failed(); f == nil || f.Name != verify.CheckState {
			t.Fatalf("a ground truth without its last write: %v, want the state check to fail", f)
		}
		return
	}
	t.Fatal("no blueprint with two writes in 50")
}

func TestUnsaidID(t *testing.T) {
	msgs := []record.Message{
		{Role: "system", Content: "policy: order #W0000001"},
		{Role: "user", Content: "My order is #w1234567 and my email is ana@example.com."},
		{Role: "assistant", Content: "Let me check #W7654321."},
		{Role: "tool", Content: `{"items":[{"item_id":"4421"},{"item_id":"9001"}],"user_id":"ana_5"}`},
		{Role: "tool", Content: "Error: no order #W5555555"},
	}
	cases := []struct {
		name     string
		args     map[string]any
		wantName string
		wantID   string
	}{
		{"said by the customer, in another case", map[string]any{"order_id": "#W1234567"}, "", ""},
		{"given by a tool result", map[string]any{"user_id": "ana_5", "item_ids": []any{"4421", "9001"}}, "", ""},
		{"one item of a list never given", map[string]any{"item_ids": []any{"4421", "7777"}}, "item_ids", "7777"},
		{"said only by the agent", map[string]any{"order_id": "#W7654321"}, "order_id", "#W7654321"},
		{"said only by the system prompt", map[string]any{"order_id": "#W0000001"}, "order_id", "#W0000001"},
		{"echoed only by an error", map[string]any{"order_id": "#W5555555"}, "order_id", "#W5555555"},
		{"a number id", map[string]any{"ServiceSid": 4421.0}, "", ""},
		{"not an id argument", map[string]any{"reason": "no longer needed", "email": "bob@example.com"}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name, id := verify.UnsaidID(msgs, tc.args)
			if name != tc.wantName || id != tc.wantID {
				t.Errorf("UnsaidID = %q %q, want %q %q", name, id, tc.wantName, tc.wantID)
			}
		})
	}
}

// A passenger's name counts as given only when the customer said it
// outside the sentence that identifies them: "This is Mia Li, my user id
// is …" names the customer, not a passenger.
func TestFromCustomerIdentity(t *testing.T) {
	const rule = "rule:from_customer:passengers_from_customer"
	airline, err := testplay.NewFixture("airline", 1)
	if err != nil {
		t.Fatal(err)
	}
	// A customer who gives its user id (one who forgot it identifies
	// otherwise).
	bp, tr := oracleWhere(t, airline, "book_reservation", "", 0, func(tr *record.Trajectory) bool {
		var a struct {
			UserID     string `json:"user_id"`
			Passengers []struct {
				First string `json:"first_name"`
				Last  string `json:"last_name"`
			} `json:"passengers"`
		}
		i := callAt(tr, "book_reservation")
		_ = json.Unmarshal([]byte(tr.Messages[i].ToolCalls[0].Function.Arguments), &a)
		// The names are taken out of what the customer says: none may be
		// part of the user id (the customer's own last name is), nor be
		// another passenger's.
		if len(a.Passengers) != 1 || strings.Contains(a.UserID, strings.ToLower(a.Passengers[0].First)) || strings.Contains(a.UserID, strings.ToLower(a.Passengers[0].Last)) {
			return false
		}
		return a.UserID != "" && slices.ContainsFunc(tr.Messages[:i], func(m record.Message) bool {
			return m.Role == "user" && strings.Contains(m.Content, a.UserID)
		})
	})
	i := callAt(tr, "book_reservation")
	var args struct {
		UserID     string `json:"user_id"`
		Passengers []struct {
			First string `json:"first_name"`
			Last  string `json:"last_name"`
		} `json:"passengers"`
	}
	_ = json.Unmarshal([]byte(tr.Messages[i].ToolCalls[0].Function.Arguments), &args)
	if len(args.Passengers) == 0 || args.UserID == "" {
		t.Fatal("the booking has no passengers or no user id")
	}
	p := args.Passengers[0]
	// The customer is the passenger, and said its name with its user id.
	self := *bp
	self.Persona.Name = p.First + " " + p.Last
	cases := []struct {
		name      string
		passenger string // said after the identity, "" for none
		fails     bool
	}{
		{"named only as who the customer is", "", true},
		{"named as the passenger too", " The passenger is " + p.First + " " + p.Last + ".", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := clone(t, tr)
			unsay(d, i, p.First, "someone")
			unsay(d, i, p.Last, "someone")
			at := -1
			for j, m := range d.Messages[:i] {
				if m.Role == "user" && strings.Contains(m.Content, args.UserID) {
					at = j
					break
				}
			}
			if at < 0 {
				t.Fatal("no customer message holds the user id")
			}
			d.Messages[at].Content = "This is " + p.First + " " + p.Last + ", my user id is " + args.UserID + "." + tc.passenger
			v := airline.Ver.Verify(context.Background(), &self, d)
			if got := slices.Contains(failed(v), rule); got != tc.fails {
				t.Errorf("%s fails: %v, want %v (failures %v)", rule, got, tc.fails, failed(v))
			}
		})
	}
}
