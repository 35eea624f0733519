package usersim_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/internal/testpacks"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/usersim"
)

// packBlueprints generates tasks of the library test pack, which has
// slots, choices among the customer's cards, and searches.
func packBlueprints(t *testing.T) (*model.Model, []*record.Blueprint) {
	t.Helper()
	d, err := domains.Load(testpacks.Dir("library"), 1)
	if err != nil {
		t.Fatal(err)
	}
	g, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: 2, Writes: blueprints.Range{Min: 1, Max: 3}, Reads: blueprints.Range{Min: 2, Max: 6}, Refusals: 0.2, Behaviors: usersim.Profiles()})
	if err != nil {
		t.Fatal(err)
	}
	var bps []*record.Blueprint
	for i := 0; i < 160; i++ {
		bp, err := g.Generate(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		bps = append(bps, bp)
	}
	return d.Model, bps
}

func TestGenericUserProfiles(t *testing.T) {
	m, bps := packBlueprints(t)
	revealing := map[string]bool{"upfront": true, "verbose": true, "impatient": true, "changes_mind": true}
	for _, bp := range bps {
		u, err := usersim.NewGeneric(m, bp, blueprints.Stream(1, "test", bp.Index, "user"))
		if err != nil {
			t.Fatal(err)
		}
		start := u.Start()
		checkTurn(t, bp, start)
		var req *dialog.Act
		identified := false
		for i := range start.Acts {
			switch start.Acts[i].Type {
			case "request":
				req = &start.Acts[i]
			case "identify":
				identified = true
			}
		}
		if req == nil || req.Goal != 0 || req.Intent != bp.Goals[0].Intent {
			t.Fatalf("%s: the first message does not request goal 0: %+v", bp.ID, start.Acts)
		}
		if identified != revealing[bp.Behavior] {
			t.Errorf("%s (%s): identity in the first message = %v", bp.ID, bp.Behavior, identified)
		}
		g := bp.Goals[0]
		for _, p := range u.Pieces(g) {
			kind, name, _ := strings.Cut(p, ":")
			has := kind == "target" && req.Target != nil || kind == "slot" && req.Slots[name] != "" ||
				kind == "choice" && slices.ContainsFunc(req.Items, func(s record.Selector) bool { return s.Collection == name })
			if revealing[bp.Behavior] != has && !(kind == "slot" && has) {
				t.Errorf("%s (%s): piece %s given up front = %v", bp.ID, bp.Behavior, p, has)
			}
		}
		// Every piece the agent asks for is answered with what the
		// blueprint holds (or, before a change of mind, its first value).
		for _, p := range u.Pieces(g) {
			turn := u.Respond(dialog.Ask{Kind: "piece", Goal: 0, Piece: p})
			if turn.Acts[0].Type == "digress" {
				// A question off the task; asked again, the customer answers.
				turn = u.Respond(dialog.Ask{Kind: "piece", Goal: 0, Piece: p})
			}
			checkTurn(t, bp, turn)
			act := turn.Acts[0]
			kind, name, _ := strings.Cut(p, ":")
			switch kind {
			case "target":
				if act.Target == nil || act.Target.Label != g.Target.Label {
					t.Errorf("%s: target answer %+v", bp.ID, act.Target)
				}
			case "slot":
				if v := act.Slots[name]; v != g.Slots[name] && v != g.Revised[name] {
					t.Errorf("%s: slot %s answered %q, blueprint has %q", bp.ID, name, v, g.Slots[name])
				}
			}
		}
		// A customer never ends while a requested goal is open.
		if turn := u.Respond(dialog.Ask{Kind: "anything_else"}); turn.Stop != "" || turn.Acts[0].Type != "request" || turn.Acts[0].Goal != 0 {
			t.Errorf("%s: with goal 0 open the customer answered %+v", bp.ID, turn)
		}
		if turn := u.Respond(dialog.Ask{Kind: "closing"}); turn.Stop != dialog.TokenStop {
			t.Errorf("%s: closing answered %+v", bp.ID, turn)
		}
	}
}

func TestGenericUserIdentityAndRevision(t *testing.T) {
	m, bps := packBlueprints(t)
	seen := map[string]bool{}
	for _, bp := range bps {
		u, _ := usersim.NewGeneric(m, bp, blueprints.Stream(1, "test", bp.Index, "user"))
		u.Start()
		known := slices.Collect(maps.Values(bp.Persona.Known))
		first := u.Respond(dialog.Ask{Kind: "identify"})
		second := u.Respond(dialog.Ask{Kind: "identify_again"})
		for _, turn := range []dialog.Turn{first, second} {
			checkTurn(t, bp, turn)
		}
		correct := func(turn dialog.Turn) bool {
			for _, v := range turn.Acts[0].Identity {
				if !slices.Contains(known, v) {
					return false
				}
			}
			return len(turn.Acts[0].Identity) > 0
		}
		if bp.Behavior == "confused" {
			seen["confused"] = true
			if correct(first) || !correct(second) {
				t.Errorf("%s: a confused customer should slip first, then correct: %v, %v", bp.ID, first.Acts[0].Identity, second.Acts[0].Identity)
			}
		} else if !correct(first) {
			t.Errorf("%s (%s): identity %v is not the customer's %v", bp.ID, bp.Behavior, first.Acts[0].Identity, bp.Persona.Known)
		}
		for gi, g := range bp.Goals {
			if len(g.Revised) == 0 {
				continue
			}
			seen["revised"] = true
			turn := u.Respond(dialog.Ask{Kind: "confirm", Goal: gi})
			if turn.Acts[0].Type != "revise" || model.JoinAnd(slices.Collect(maps.Values(turn.Acts[0].Slots))) == "" {
				t.Errorf("%s: changes_mind at confirm gave %+v", bp.ID, turn.Acts)
			}
			if again := u.Respond(dialog.Ask{Kind: "confirm", Goal: gi}); again.Acts[0].Type != "confirm" {
				t.Errorf("%s: after revising, the customer should confirm: %+v", bp.ID, again.Acts)
			}
		}
	}
	if !seen["confused"] || !seen["revised"] {
		t.Errorf("profiles not exercised: %v", seen)
	}
}

func checkTurn(t *testing.T, bp *record.Blueprint, turn dialog.Turn) {
	t.Helper()
	if turn.Stop != "" {
		return
	}
	if strings.TrimSpace(turn.Text) == "" || strings.Contains(turn.Text, "###") || strings.Contains(turn.Text, "<") {
		t.Errorf("%s (%s): bad customer text %q", bp.ID, bp.Behavior, turn.Text)
	}
	if len(turn.Acts) == 0 {
		t.Errorf("%s: a turn without meaning: %q", bp.ID, turn.Text)
	}
}
