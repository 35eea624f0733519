package usersim_test

import (
	"context"
	"encoding/json"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/usersim"
	"github.com/synth-data/synth/verify"
)

// holdBlueprints are retail blueprints whose first goal is a write with
// one ground-truth call, from customers who do not change their mind
// (they revise at the first proposal, before any check).
func holdBlueprints(t *testing.T) (*domain.Domain, []*record.Blueprint) {
	t.Helper()
	d, err := domains.Load("retail", 1)
	if err != nil {
		t.Fatal(err)
	}
	g, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: 3, Writes: blueprints.Range{Min: 1, Max: 2}, Reads: blueprints.Range{Min: 2, Max: 7},
		Refusals: 0.2, Behaviors: []string{usersim.Upfront, usersim.Piecemeal, usersim.Minimal, usersim.Typos}})
	if err != nil {
		t.Fatal(err)
	}
	var out []*record.Blueprint
	for i := 0; i < 300; i++ {
		bp, err := g.Generate(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		if bp.Goals[0].Kind == record.GoalWrite && len(truthOf(bp, 0)) == 1 {
			out = append(out, bp)
		}
	}
	return d, out
}

func truthOf(bp *record.Blueprint, goal int) []record.Action {
	var out []record.Action
	for _, a := range bp.Actions {
		if a.Goal == goal && a.Kind == record.KindWrite {
			out = append(out, a)
		}
	}
	return out
}

// The customer says no, with the right detail, to a proposal with any
// kind of wrong detail, and yes to the right proposal.
func TestCustomerCorrectsEachWrongDetail(t *testing.T) {
	d, bps := holdBlueprints(t)
	cases := []struct {
		name   string
		source string
		param  string // "" for any of the source
		wrong  func(v any) any
	}{
		{"another order id", model.SrcTargetKey, "", func(any) any { return "#W0000001" }},
		{"another reason", model.SrcSlot, "reason", func(v any) any {
			if v == "no longer needed" {
				return "ordered by mistake"
			}
			return "no longer needed"
		}},
		{"a wrong address field", model.SrcLike, "zip", func(v any) any { return model.Misspell(v.(string)) }},
		{"another payment method", model.SrcChoose, "payment_method_id", func(any) any { return "gift_card_0000001" }},
		{"another item", model.SrcPick, "", func(v any) any {
			ids := append([]any{}, v.([]any)...)
			ids[0] = "1111111111"
			return ids
		}},
		{"another replacement", model.SrcReplace, "", func(v any) any {
			ids := append([]any{}, v.([]any)...)
			ids[0] = "2222222222"
			return ids
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			found := false
			for _, bp := range bps {
				a := truthOf(bp, 0)[0]
				w := d.Model.Write(a.Tool)
				var args map[string]any
				if err := json.Unmarshal(a.Arguments, &args); err != nil {
					t.Fatal(err)
				}
				param := ""
				for _, p := range w.Params {
					if _, ok := args[p.Name]; ok && p.Source == tc.source && (tc.param == "" || p.Name == tc.param) {
						param = p.Name
						break
					}
				}
				if param == "" {
					continue
				}
				found = true
				stated := d.Model.Disclosed(a.Tool)
				u := customer(t, d, bp)
				bad := maps.Clone(args)
				bad[param] = tc.wrong(args[param])
				turn := u.Respond(dialog.Ask{Kind: "confirm", Goal: 0, Proposal: &dialog.Proposal{Tool: a.Tool, Args: bad, Stated: stated}})
				if len(turn.Acts) != 1 || turn.Acts[0].Type != "correct" {
					t.Fatalf("%s: %s with %s=%v: acts %+v, text %q; want a correction", bp.ID, a.Tool, param, bad[param], turn.Acts, turn.Text)
				}
				if verify.Affirmative(turn.Text) {
					t.Errorf("%s: the correction %q reads as a yes", bp.ID, turn.Text)
				}
				if tc.source == model.SrcTargetKey && bp.Goals[0].Target.ID != "" && !strings.Contains(turn.Text, bp.Goals[0].Target.ID) {
					t.Errorf("%s: the correction %q does not name %s", bp.ID, turn.Text, bp.Goals[0].Target.ID)
				}
				if v := bp.Goals[0].Slots[param]; tc.source == model.SrcLike && !strings.Contains(turn.Text, v) {
					t.Errorf("%s: the correction %q does not say the %s %s", bp.ID, turn.Text, param, v)
				}
				// The right proposal next gets the yes.
				turn = u.Respond(dialog.Ask{Kind: "confirm", Goal: 0, Proposal: &dialog.Proposal{Tool: a.Tool, Args: args, Stated: stated}})
				if len(turn.Acts) != 1 || turn.Acts[0].Type != "confirm" || !verify.Affirmative(turn.Text) {
					t.Fatalf("%s: the right proposal got %+v %q, want a yes", bp.ID, turn.Acts, turn.Text)
				}
			}
			if !found {
				t.Fatalf("no blueprint's first write has a %s argument %q", tc.source, tc.param)
			}
		})
	}
}

func customer(t *testing.T, d *domain.Domain, bp *record.Blueprint) *usersim.Generic {
	t.Helper()
	u, err := usersim.NewGeneric(d.Model, bp, rand.New(rand.NewPCG(1, uint64(bp.Index))))
	if err != nil {
		t.Fatal(err)
	}
	u.Start()
	return u
}

// Asked for a yes without the figure the policy says to state first,
// the customer asks for it, once; with the figure stated it says yes.
func TestCustomerAsksForMissingFigure(t *testing.T) {
	d, bps := holdBlueprints(t)
	n := 0
	for _, bp := range bps {
		a := truthOf(bp, 0)[0]
		figs := d.Model.Disclosed(a.Tool)
		if len(figs) == 0 {
			continue
		}
		n++
		var args map[string]any
		if err := json.Unmarshal(a.Arguments, &args); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			stated []string
			want   string
		}{
			{nil, "figure"},
			{nil, "confirm"}, // asked once already: the customer decides
		}
		u := customer(t, d, bp)
		for _, tc := range cases {
			turn := u.Respond(dialog.Ask{Kind: "confirm", Goal: 0, Proposal: &dialog.Proposal{Tool: a.Tool, Args: args, Stated: tc.stated}})
			if len(turn.Acts) != 1 || turn.Acts[0].Type != tc.want {
				t.Fatalf("%s: stated %v: acts %+v %q, want %s", bp.ID, tc.stated, turn.Acts, turn.Text, tc.want)
			}
			if tc.want == "figure" && (verify.Affirmative(turn.Text) || !strings.Contains(turn.Text, model.Words(figs[0]))) {
				t.Errorf("%s: %q must ask for the %s without reading as a yes", bp.ID, turn.Text, model.Words(figs[0]))
			}
		}
		u = customer(t, d, bp)
		if turn := u.Respond(dialog.Ask{Kind: "confirm", Goal: 0, Proposal: &dialog.Proposal{Tool: a.Tool, Args: args, Stated: figs}}); turn.Acts[0].Type != "confirm" {
			t.Errorf("%s: with the figures stated: %+v %q, want a yes", bp.ID, turn.Acts, turn.Text)
		}
	}
	if n == 0 {
		t.Fatal("no blueprint's first write has a figure to disclose")
	}
}

// A refused forbidden request gets one to three pleas for an exception
// (as the customer's manner has it), then the customer accepts; a
// refused request the policy allows gets the record named again.
func TestCustomerPleadsThenAccepts(t *testing.T) {
	d, err := domains.Load("retail", 1)
	if err != nil {
		t.Fatal(err)
	}
	g, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: 1, Writes: blueprints.Range{Min: 0, Max: 5}, Reads: blueprints.Range{Min: 2, Max: 7},
		Refusals: 0.2, Behaviors: usersim.Profiles()})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for i := 0; i < 400 && len(kinds) < 2; i++ {
		bp, err := g.Generate(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		k := bp.Goals[0].Kind
		if k != record.GoalRefuse && k != record.GoalWrite || kinds[k] {
			continue
		}
		kinds[k] = true
		goal := 0
		u := customer(t, d, bp)
		refused := dialog.Ask{Kind: "anything_else", Done: []int{0}, Refused: true, RefusedGoal: &goal}
		if k == record.GoalWrite {
			if turn := u.Respond(refused); turn.Acts[0].Type != "correct" {
				t.Fatalf("%s (%s): acts %+v %q, want correct", bp.ID, k, turn.Acts, turn.Text)
			}
			continue
		}
		pleas := 0
		for {
			turn := u.Respond(refused)
			if turn.Acts[0].Type != "pushback" {
				break
			}
			if pleas++; pleas > 3 {
				t.Fatalf("%s: a fourth plea %q", bp.ID, turn.Text)
			}
			if verify.Affirmative(turn.Text) {
				t.Errorf("%s: %q reads as a yes", bp.ID, turn.Text)
			}
		}
		if pleas == 0 {
			t.Errorf("%s: a refusal accepted without a plea", bp.ID)
		}
	}
	if len(kinds) < 2 {
		t.Fatalf("found goals of kinds %v only", kinds)
	}
}
