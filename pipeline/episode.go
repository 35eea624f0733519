package pipeline

import (
	"context"
	"fmt"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/usersim"
)

// Simulate plays one dialogue of the embedded engine: the rule-based user
// and the oracle agent talk; every tool call runs on the episode's own
// copy-on-write state.
func Simulate(ctx context.Context, d *domains.Domain, bp *record.Blueprint, maxTurns int) (*record.Trajectory, error) {
	tr, _, err := simulate(ctx, d, bp, maxTurns, nil)
	return tr, err
}

// SimulateFlawed replays a blueprint with a flawed agent, as the DPO
// stage did: the same streams, so the same dialogue, word for word.
func SimulateFlawed(ctx context.Context, d *domains.Domain, bp *record.Blueprint, maxTurns int, flaw agent.Flaw) (*record.Trajectory, bool, error) {
	return simulate(ctx, d, bp, maxTurns, &flaw)
}

// simulate plays the dialogue with the oracle, or with a flawed oracle
// when flaw is set; it reports whether the flaw fired. The user and the
// agent draw from the same streams either way, so a flawed dialogue is
// the oracle's word for word until the flaw fires.
func simulate(ctx context.Context, d *domains.Domain, bp *record.Blueprint, maxTurns int, flaw *agent.Flaw) (*record.Trajectory, bool, error) {
	st := d.Base.NewState()
	user, err := usersim.NewGeneric(d.Model, bp, blueprints.Stream(bp.Seed, bp.Domain, bp.Index, "user"))
	if err != nil {
		return nil, false, err
	}
	ag := agent.NewGeneric(d.Model, st, blueprints.Stream(bp.Seed, bp.Domain, bp.Index, "agent"))
	if flaw != nil {
		ag.WithFlaw(*flaw)
	}
	tr := &record.Trajectory{
		ID: bp.ID, BlueprintID: bp.ID, Domain: bp.Domain, Engine: "embedded", Behavior: bp.Behavior,
		Messages: []record.Message{{Role: "system", Content: d.Policy}},
		Ending:   record.EndMaxTurns,
	}
	turn := user.Start()
	for t := 0; t < maxTurns; t++ {
		switch turn.Stop {
		case dialog.TokenStop:
			tr.Ending = record.EndStop
		case dialog.TokenTransfer:
			tr.Ending = record.EndTransfer
		case dialog.TokenOutOfScope:
			tr.Ending = record.EndOutScope
		}
		if turn.Stop != "" {
			break
		}
		if turn.Text == "" {
			return nil, false, fmt.Errorf("blueprint %s: the user produced an empty turn", bp.ID)
		}
		tr.Messages = append(tr.Messages, record.Message{Role: "user", Content: turn.Text})
		reply, err := ag.Respond(ctx, turn)
		if err != nil {
			return nil, false, fmt.Errorf("blueprint %s: %w", bp.ID, err)
		}
		tr.Messages = append(tr.Messages, reply.Messages...)
		turn = user.Respond(reply.Ask)
	}
	tr.StateHash = st.Hash()
	return tr, ag.Fired(), nil
}
