package usersim_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/usersim"
	"github.com/synth-data/synth/verify"
)

// Generic phrasings of agents that are not the oracle, read with the
// retail pack's ways of asking for a piece (domain.yaml hints.asks). A
// question for a piece is read as one only through them: the core
// holds no domain's words.
func TestClassifyGeneric(t *testing.T) {
	d, err := domains.Load("retail", 3)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		text, kind, piece string
	}{
		{"Hello! Could you please provide your email so I can look up your account?", "identify", ""},
		{"To help you, I first need your full name and zip code.", "identify", ""},
		{"Sorry, I couldn't find an account with that email. Could you double-check it?", "identify_again", ""},
		{"I've prepared the cancellation of order #W1234567. Could you confirm that you want to proceed?", "confirm", ""},
		{"Here are the details: return item 1234567890 to your PayPal account. Shall I proceed?", "confirm", ""},
		{"Just to be sure — is that correct?", "confirm", ""},
		{"Which order would you like to cancel?", "piece", "target"},
		{"What's the new address, including the zip code?", "piece", "address"},
		// A reason is asked in every domain's words alike.
		{"What is the reason for the cancellation?", "piece", "reason"},
		{"Which payment method should the refund go to?", "piece", "payment"},
		{"Which item do you want to return?", "piece", "items"},
		{"Which option would you like instead?", "piece", "new"},
		{"Your order has been cancelled. Is there anything else I can help you with?", "anything_else", ""},
		{"How can I help you today?", "help", ""},
		{"You're welcome! Have a great day.", "closing", ""},
		{"Thanks for reaching out! Before we start, could you share your email address?", "identify", ""},
		{"I'm transferring you to a human agent now. Please hold.", "transferred", ""},
		{"Your refund of $23.40 is on its way.", "anything_else", ""},
	}
	for _, tc := range cases {
		got := usersim.ClassifyIn(d.Model, tc.text)
		if got.Kind != tc.kind || got.Piece != tc.piece {
			t.Errorf("ClassifyIn(retail, %q) = %s/%s, want %s/%s", tc.text, got.Kind, got.Piece, tc.kind, tc.piece)
		}
		alone := usersim.Classify(tc.text)
		if tc.kind == "piece" && tc.piece != "reason" && alone.Kind == "piece" {
			t.Errorf("Classify(%q) = piece/%s without the retail pack's words", tc.text, alone.Piece)
		}
		if (tc.kind != "piece" || tc.piece == "reason") && (alone.Kind != got.Kind || alone.Piece != got.Piece) {
			t.Errorf("Classify(%q) = %+v, with the retail pack's words %+v: a domain-neutral question reads alike", tc.text, alone, got)
		}
	}
}

// oracleRun plays blueprints with the oracle agent, handing the user
// either the oracle's own Ask (listen false) or the Ask the user reads
// from the agent's words (listen true); check sees every agent reply.
func oracleRun(t *testing.T, n int, listen bool, check func(bp *record.Blueprint, text string, truth dialog.Ask, read dialog.Ask)) []*record.Trajectory {
	t.Helper()
	ctx := context.Background()
	d, err := domains.Load("retail", 3)
	if err != nil {
		t.Fatal(err)
	}
	g, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: 3, Writes: blueprints.Range{Min: 0, Max: 5}, Reads: blueprints.Range{Min: 2, Max: 7},
		Refusals: 0.2, Behaviors: usersim.Profiles(), Validation: 0.05, Test: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	var out []*record.Trajectory
	for i := range n {
		bp, err := g.Generate(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		st := d.Base.NewState()
		u, err := usersim.NewGeneric(d.Model, bp, blueprints.Stream(bp.Seed, bp.Domain, bp.Index, "user"))
		if err != nil {
			t.Fatal(err)
		}
		l := usersim.NewListener(d.Model, bp, u.Pieces)
		ag := agent.NewGeneric(d.Model, st, blueprints.Stream(bp.Seed, bp.Domain, bp.Index, "agent"))
		tr := &record.Trajectory{ID: bp.ID, BlueprintID: bp.ID, Domain: bp.Domain, Engine: "embedded", Behavior: bp.Behavior,
			Messages: []record.Message{{Role: "system", Content: d.Policy}}, Ending: record.EndMaxTurns}
		var calls []usersim.Executed
		turn := u.Start()
		l.Heard(turn)
		for range 60 {
			if turn.Stop != "" {
				tr.Ending = map[string]string{dialog.TokenStop: record.EndStop, dialog.TokenTransfer: record.EndTransfer}[turn.Stop]
				break
			}
			tr.Messages = append(tr.Messages, record.Message{Role: "user", Content: turn.Text})
			reply, err := ag.Respond(ctx, turn)
			if err != nil {
				t.Fatalf("blueprint %d: %v", i, err)
			}
			for _, m := range reply.Messages {
				for _, c := range m.ToolCalls {
					calls = append(calls, usersim.Executed{Tool: c.Function.Name, Arguments: c.Function.Arguments, Write: d.Tools.Kind(c.Function.Name) == record.KindWrite})
				}
				if m.Role == "tool" && len(m.Content) > 6 && m.Content[:6] == "Error:" {
					calls[len(calls)-1].Failed = true
				}
			}
			tr.Messages = append(tr.Messages, reply.Messages...)
			text := reply.Messages[len(reply.Messages)-1].Content
			read := l.Interpret(text, calls)
			check(bp, text, reply.Ask, read)
			if listen {
				turn = u.Respond(read)
			} else {
				turn = u.Respond(reply.Ask)
			}
			l.Heard(turn)
		}
		tr.StateHash = st.Hash()
		out = append(out, tr)
	}
	return out
}

// Every message the oracle sends, over every template it has, reads as
// the Ask the oracle meant.
func TestClassifyOracle(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	seen := map[string]int{}
	oracleRun(t, 250, false, func(bp *record.Blueprint, text string, truth, read dialog.Ask) {
		key := truth.Kind + "/" + truth.Piece
		seen[key]++
		if read.Kind != truth.Kind || read.Piece != truth.Piece {
			t.Errorf("blueprint %s: %q reads as %s/%s, the oracle asked %s", bp.ID, text, read.Kind, read.Piece, key)
			return
		}
		if (truth.Kind == "piece" || truth.Kind == "confirm") && read.Goal != truth.Goal {
			t.Errorf("blueprint %s: %q concerns goal %d, the oracle meant %d", bp.ID, text, read.Goal, truth.Goal)
		}
	})
	for _, k := range []string{"identify/", "identify_again/", "confirm/", "anything_else/", "closing/", "transferred/", "piece/target", "piece/slot:reason", "piece/choice:payment_method_id", "piece/choice:item_ids", "piece/new:new_item_ids", "piece/like:users.address"} {
		if seen[k] == 0 {
			t.Errorf("no oracle message asked %s: the table does not cover it (seen %v)", k, seen)
		}
	}
}

// The rule-based user that reads the agent's words instead of being
// handed its Asks still completes every task with the oracle.
func TestListenerDialoguesVerify(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	d, err := domains.Load("retail", 3)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schemas.Compile()
	if err != nil {
		t.Fatal(err)
	}
	ver := verify.ForDomain(d, sch)
	ctx := context.Background()
	g, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: 3, Writes: blueprints.Range{Min: 0, Max: 5}, Reads: blueprints.Range{Min: 2, Max: 7},
		Refusals: 0.2, Behaviors: usersim.Profiles(), Validation: 0.05, Test: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	trs := oracleRun(t, 150, true, func(*record.Blueprint, string, dialog.Ask, dialog.Ask) {})
	failed := 0
	for i, tr := range trs {
		bp, _ := g.Generate(ctx, i)
		if v := ver.Verify(ctx, bp, tr); !v.Passed {
			failed++
			if failed <= 3 {
				t.Errorf("blueprint %s (%s): %s", bp.ID, bp.Behavior, fmt.Sprint(v.Failed()))
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d dialogues failed verification", failed, len(trs))
	}
}

func FuzzClassify(f *testing.F) {
	for _, s := range []string{"", "Shall I proceed?", "Which order?", "Have a great day!", "transfer you to a human agent", "((("} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a := usersim.Classify(s)
		if a.Kind == "" || (a.Kind == "piece") != (a.Piece != "") {
			t.Fatalf("Classify(%q) = %+v", s, a)
		}
	})
}
