package embedded_test

import (
	"context"
	"regexp"
	"testing"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/usersim"
)

// A say rule about a slot the agent asks for (airline's insurance
// offer) is told with that question, where the customer decides, and
// not again in the proposal.
func TestReminderWithItsQuestion(t *testing.T) {
	ctx := context.Background()
	d, err := domains.Load("airline", 3)
	if err != nil {
		t.Fatal(err)
	}
	rule := d.Model.RulesFor(pack.RuleSay, "book_reservation")
	if len(rule) != 1 {
		t.Fatalf("airline has %d say rules on book_reservation, want 1", len(rule))
	}
	gen, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: 5, Writes: blueprints.Range{Min: 1, Max: 1},
		Reads: blueprints.Range{Min: 0, Max: 6}, AdaptReads: true, Behaviors: usersim.Profiles()})
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	for i := 0; i < 120 && asked < 3; i++ {
		bp, err := gen.Generate(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		if len(bp.Actions) == 0 || bp.Actions[len(bp.Actions)-1].Tool != "book_reservation" {
			continue
		}
		tr, err := embedded.Simulate(ctx, d, bp, 60)
		if err != nil {
			t.Fatal(err)
		}
		var told []int
		question := -1
		for k, m := range tr.Messages {
			if m.Role != "assistant" || !pack.SaysAny(m.Content, rule[0].Phrases) {
				continue
			}
			told = append(told, k)
			if insuranceAsked.MatchString(m.Content) {
				question = k
			}
		}
		if question < 0 {
			continue // stated up front: told with the proposal, as before
		}
		asked++
		if len(told) != 1 {
			t.Fatalf("blueprint %d: the insurance offer came with the question (message %d) and again in messages %v", i, question, told)
		}
	}
	if asked == 0 {
		t.Fatal("no booking in 120 tasks told the insurance offer with the question whether to take it")
	}
}

// insuranceAsked is the agent's question whether to take insurance
// ("Would you like travel insurance?", "… travel insurance, or not?").
var insuranceAsked = regexp.MustCompile(`travel insurance(,? or not| on this)?\?`)
