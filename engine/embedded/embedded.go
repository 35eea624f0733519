package embedded

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/dpo"
	"github.com/synth-data/synth/engine"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
	"github.com/synth-data/synth/usersim"
	"github.com/synth-data/synth/verify"
)

// Name is the engine's name, as --engine takes it and trajectories record.
const Name = "embedded"

// Engine is the embedded engine: the rule-based customer and the oracle
// agent of the domain's model, and with a DPO plan, the flawed agents.
type Engine struct {
	d        *domain.Domain
	ver      *verify.Verifier
	maxTurns int
	plan     *dpo.Plan
	labels   *dpo.LabelChecker
	// recovery picks the blueprints whose dialogue is a recovery; nil
	// for none.
	recovery *blueprints.Allocator
}

// RecoveryFlaws are the mistakes a recovery dialogue shows the customer
// catching: a wrong argument, a near-miss record, a figure not stated.
func RecoveryFlaws() []string {
	return []string{agent.FlawWrongArgument, agent.FlawWrongTarget, agent.FlawUndisclosed}
}

// WithRecovery makes share of the blueprints (an exact share over any
// range of them, drawn from the seed) recovery dialogues where a flawed
// agent's mistake can be caught, corrected and verified.
func (e *Engine) WithRecovery(seed uint64, share float64) (*Engine, error) {
	if share <= 0 {
		e.recovery = nil
		return e, nil
	}
	a, err := blueprints.NewAllocator(blueprints.Range{Min: 0, Max: 1}, []float64{1 - share, share}, seed, "recovery", 0.6180339887498949)
	if err != nil {
		return nil, fmt.Errorf("recovery_share %g: %w", share, err)
	}
	e.recovery = a
	return e, nil
}

// New makes the embedded engine of a domain; plan may be nil (no pairs).
func New(d *domain.Domain, ver *verify.Verifier, maxTurns int, plan *dpo.Plan) *Engine {
	return &Engine{d: d, ver: ver, maxTurns: maxTurns, plan: plan, labels: dpo.NewLabelChecker(d, ver)}
}

// Dialogue plays the blueprint, verifies it and, when it verifies and the
// engine has a plan, pairs it with flawed agents' dialogues.
func (e *Engine) Dialogue(ctx context.Context, bp *record.Blueprint, offered map[string]bool) (*engine.Outcome, error) {
	tr, err := Simulate(ctx, e.d, bp, e.maxTurns)
	if err != nil {
		return nil, err
	}
	out := &engine.Outcome{Trajectory: tr, Verdict: e.ver.Verify(ctx, bp, tr)}
	if out.Verdict.Passed && e.recovery != nil && e.recovery.At(bp.Index) == 1 {
		rec, err := e.recover(ctx, bp, tr)
		if err != nil {
			return nil, err
		}
		if rec != nil {
			out.Trajectory = rec
		}
	}
	if out.Verdict.Passed && e.plan != nil {
		if out.Pairs, err = e.pairs(ctx, bp, tr, out.Trajectory, offered); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Simulate plays one dialogue of the embedded engine: the rule-based user
// and the oracle agent talk; every tool call runs on the episode's own
// copy-on-write state.
func Simulate(ctx context.Context, d *domain.Domain, bp *record.Blueprint, maxTurns int) (*record.Trajectory, error) {
	tr, _, err := simulate(ctx, d, bp, maxTurns, nil)
	return tr, err
}

// SimulateFlawed replays a blueprint with a flawed agent, as the DPO
// stage did: the same streams, so the same dialogue, word for word.
func SimulateFlawed(ctx context.Context, d *domain.Domain, bp *record.Blueprint, maxTurns int, flaw agent.Flaw) (*record.Trajectory, bool, error) {
	return simulate(ctx, d, bp, maxTurns, &flaw)
}

// simulate plays the dialogue with the oracle, or with a flawed oracle
// when flaw is set; it reports whether the flaw fired. The user and the
// agent draw from the same streams either way, so a flawed dialogue is
// the oracle's word for word until the flaw fires.
func simulate(ctx context.Context, d *domain.Domain, bp *record.Blueprint, maxTurns int, flaw *agent.Flaw) (*record.Trajectory, bool, error) {
	st := d.Base.NewState()
	st.Inject(tools.FaultsOf(bp.Failures))
	user, err := usersim.NewGeneric(d.Model, bp, blueprints.Stream(bp.Seed, bp.Domain, bp.Index, "user"))
	if err != nil {
		return nil, false, err
	}
	ag := agent.NewGeneric(d.Model, st, blueprints.Stream(bp.Seed, bp.Domain, bp.Index, "agent"))
	if flaw != nil {
		ag.WithFlaw(*flaw)
	}
	tr := &record.Trajectory{
		ID: bp.ID, BlueprintID: bp.ID, Domain: bp.Domain, Engine: Name, Behavior: bp.Behavior,
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
		if turnsDown(turn) {
			tr.Corrections = append(tr.Corrections, len(tr.Messages))
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

// recover plays the recovery flaws in a per-blueprint order and returns
// the first dialogue whose mistake the customer caught and that then
// verified, marked as a recovery with where it departs from the oracle's
// dialogue good; nil when none did.
func (e *Engine) recover(ctx context.Context, bp *record.Blueprint, good *record.Trajectory) (*record.Trajectory, error) {
	kinds := RecoveryFlaws()
	rng := blueprints.Stream(bp.Seed, bp.Domain, bp.Index, "recovery")
	rng.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	for _, kind := range kinds {
		tr, fired, err := simulate(ctx, e.d, bp, e.maxTurns, &agent.Flaw{Kind: kind})
		if err != nil {
			return nil, err
		}
		if !fired || len(tr.Corrections) == 0 || !e.ver.Verify(ctx, bp, tr).Passed {
			continue
		}
		tr.Kind = record.KindRecovery
		tr.Departs = record.Departure(good.Messages, tr.Messages)
		return tr, nil
	}
	return nil, nil
}

// turnsDown reports whether a customer's turn turns the agent's proposal
// down (a correction, or a figure asked for before the yes).
func turnsDown(t dialog.Turn) bool {
	return slices.ContainsFunc(t.Acts, func(a dialog.Act) bool { return a.Type == "correct" || a.Type == "figure" })
}

// pairs runs flawed agents on a verified blueprint until enough of
// them fail for their expected reason, and pairs each with the oracle's
// dialogue at the point where they part.
// A pair's chosen side must be the kept dialogue's (kept, a recovery
// where the blueprint's row is one): a pair that parts from the oracle
// after the recovery's mistake is not made.
func (e *Engine) pairs(ctx context.Context, bp *record.Blueprint, good, kept *record.Trajectory, offered map[string]bool) (engine.Pairs, error) {
	var out engine.Pairs
	rng := blueprints.Stream(bp.Seed, bp.Domain, bp.Index, "dpo-goal")
	for _, kind := range e.plan.Order(bp) {
		if len(out.Rows) >= e.plan.Most() {
			break
		}
		out.Stats.Attempts++
		flaw := agent.Flaw{Kind: kind, Goal: rng.IntN(len(bp.Goals))}
		bad, fired, err := simulate(ctx, e.d, bp, e.maxTurns, &flaw)
		if err != nil {
			return out, err
		}
		if !fired && flaw.Goal > 0 {
			// No opportunity in the later goals: try from the first.
			flaw.Goal = 0
			if bad, fired, err = simulate(ctx, e.d, bp, e.maxTurns, &flaw); err != nil {
				return out, err
			}
		}
		if !fired {
			out.Stats.NotFired++
			continue
		}
		v := e.ver.Verify(ctx, bp, bad)
		f := v.Failed()
		if f == nil && len(bad.Corrections) > 0 && dpo.Explains(kind, dpo.CheckCaught) {
			// The customer caught the mistake and the agent recovered:
			// the pair is at the mistake, its rejected side ending where
			// the customer said no.
			at := bad.Corrections[0]
			f = &record.Check{Name: dpo.CheckCaught, Reason: fmt.Sprintf("message %d: the customer turned the proposal down: %s", at, bad.Messages[at].Content)}
			bad = &record.Trajectory{Messages: bad.Messages[:at]}
		}
		switch {
		case f == nil:
			out.Stats.NoFailure++
			continue
		case !dpo.Explains(kind, f.Name):
			out.Stats.OtherReason++
			continue
		}
		// A caught mistake's rejected side is the proposal the customer
		// turned down (cut above): its words must show the label.
		pair, err := e.plan.Cut(ctx, e.labels, bp, kind, good.Messages, bad.Messages)
		switch {
		case errors.Is(err, dpo.ErrLabelNotShown):
			out.Stats.LabelNotShown++
			continue
		case err != nil || !isPrefix(kept.Messages, pair.Prompt, pair.Chosen):
			out.Stats.Unpairable++
			continue
		}
		id := bp.ID + "-" + kind
		out.Rows = append(out.Rows, engine.PairRow{ID: id, BlueprintID: bp.ID, Domain: bp.Domain,
			Prompt: pair.Prompt, Chosen: pair.Chosen, Rejected: pair.Rejected, Tools: engine.RowTools(e.d.Tools, offered, pair.Prompt, pair.Chosen, pair.Rejected),
			Failure: kind, DivergenceTurn: int32(pair.DivergenceTurn)})
		rec := map[string]any{"pair_id": id, "blueprint_id": bp.ID, "split": bp.Split,
			"failure": kind, "check": f.Name, "reason": f.Reason, "flaw_goal": flaw.Goal}
		proof, err := json.Marshal(rec)
		if err != nil {
			return out, err
		}
		out.Proofs = append(out.Proofs, proof)
	}
	return out, nil
}

// isPrefix reports whether prompt then chosen begin msgs.
func isPrefix(msgs []record.Message, prompt, chosen []record.Message) bool {
	if len(prompt)+len(chosen) > len(msgs) {
		return false
	}
	for i, m := range slices.Concat(prompt, chosen) {
		if !reflect.DeepEqual(m, msgs[i]) {
			return false
		}
	}
	return true
}
