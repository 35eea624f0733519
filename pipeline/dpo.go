package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/verify"
)

// expected lists, per flaw, the checks a dialogue with that flaw must
// fail for its pair to count: a rejected side is wrong because it was
// executed and failed for the right reason, not because we assumed so.
var expected = map[string][]string{
	agent.FlawPrematureWrite:      {verify.CheckState},
	agent.FlawWrongTarget:         {verify.CheckState},
	agent.FlawWrongArgument:       {verify.CheckState},
	agent.FlawNoConfirmation:      {verify.CheckConfirmation},
	agent.FlawUnauthenticated:     {verify.CheckAuth},
	agent.FlawHallucinatedID:      {verify.CheckState},
	agent.FlawWrongTool:           {verify.CheckState},
	agent.FlawSchemaInvalid:       {verify.CheckToolSchema},
	agent.FlawStopsEarly:          {verify.CheckState, verify.CheckEnding},
	agent.FlawUnnecessaryTransfer: {verify.CheckState, verify.CheckOutputs, verify.CheckEnding},
	agent.FlawOmitsOutput:         {verify.CheckOutputs},
}

// Expected returns the checks a flaw must fail.
func Expected(flaw string) []string { return expected[flaw] }

// DPOStats counts how flawed attempts ended.
type DPOStats struct {
	Attempts    int            `json:"attempts"`
	NotFired    int            `json:"not_applicable"`
	NoFailure   int            `json:"verified_anyway"`
	OtherReason int            `json:"failed_for_another_reason"`
	Unpairable  int            `json:"unpairable"`
	Pairs       int            `json:"pairs"`
	ByFailure   map[string]int `json:"pairs_by_failure"`
	BySplit     map[string]int `json:"pairs_by_split"`
}

// dpoPlan chooses which flaws to try per blueprint.
type dpoPlan struct {
	kinds   []string
	primary *blueprints.Allocator
	mode    string
	pairs   int
}

// defaultMix weights the flaws that need a target described by its
// properties (about half of the tasks offer one) so that every type ends
// up with a similar share of the pairs.
var defaultMix = map[string]float64{agent.FlawPrematureWrite: 3, agent.FlawWrongTarget: 2.5}

func newDPOPlan(cfg Config) (*dpoPlan, error) {
	kinds := agent.Flaws()
	weights := make([]float64, len(kinds))
	for i, k := range kinds {
		weights[i] = 1
		if w, ok := defaultMix[k]; ok && cfg.DPOMix == nil {
			weights[i] = w
		}
		if w, ok := cfg.DPOMix[k]; ok {
			weights[i] = w
		}
	}
	for k := range cfg.DPOMix {
		if !slices.Contains(kinds, k) {
			return nil, fmt.Errorf("dpo_mix: unknown failure type %q (known: %s)", k, strings.Join(kinds, ", "))
		}
	}
	a, err := blueprints.NewAllocator(blueprints.Range{Min: 0, Max: len(kinds) - 1}, weights, cfg.Seed, "dpo", 0.5698402909980532)
	if err != nil {
		return nil, fmt.Errorf("dpo_mix: %w", err)
	}
	if !slices.Contains(PairModes(), cfg.DPOMode) {
		return nil, fmt.Errorf("--dpo-mode %q: want one of %s", cfg.DPOMode, strings.Join(PairModes(), ", "))
	}
	if cfg.DPOPairs < 1 {
		return nil, fmt.Errorf("dpo_pairs %d: need at least 1", cfg.DPOPairs)
	}
	return &dpoPlan{kinds: kinds, primary: a, mode: cfg.DPOMode, pairs: cfg.DPOPairs}, nil
}

// order is the sequence of flaws tried for a blueprint: the allocated
// one first (so the mix holds over any range of blueprints), then the
// rest in a per-blueprint order, skipping zero-weight kinds.
func (p *dpoPlan) order(cfg Config, bp *record.Blueprint) []string {
	first := p.kinds[p.primary.At(bp.Index)]
	rest := slices.DeleteFunc(slices.Clone(p.kinds), func(k string) bool {
		w, set := cfg.DPOMix[k]
		return k == first || set && w == 0
	})
	rng := blueprints.Stream(bp.Seed, bp.Domain, bp.Index, "dpo")
	rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	return append([]string{first}, rest...)
}

type dpoOutcome struct {
	rows   []export.DPORow
	proofs [][]byte
	stats  DPOStats
}

// dpoPairs runs flawed agents on a verified blueprint until enough of
// them fail for their expected reason, and pairs each with the oracle's
// dialogue at the point where they part.
func dpoPairs(ctx context.Context, d *domains.Domain, ver *verify.Verifier, plan *dpoPlan, cfg Config, bp *record.Blueprint, good *record.Trajectory, offered map[string]bool) (dpoOutcome, error) {
	var out dpoOutcome
	rng := blueprints.Stream(bp.Seed, bp.Domain, bp.Index, "dpo-goal")
	for _, kind := range plan.order(cfg, bp) {
		if len(out.rows) >= plan.pairs {
			break
		}
		out.stats.Attempts++
		flaw := agent.Flaw{Kind: kind, Goal: rng.IntN(len(bp.Goals))}
		bad, fired, err := simulate(ctx, d, bp, cfg.MaxTurns, &flaw)
		if err != nil {
			return out, err
		}
		if !fired && flaw.Goal > 0 {
			// No opportunity in the later goals: try from the first.
			flaw.Goal = 0
			if bad, fired, err = simulate(ctx, d, bp, cfg.MaxTurns, &flaw); err != nil {
				return out, err
			}
		}
		if !fired {
			out.stats.NotFired++
			continue
		}
		v := ver.Verify(ctx, bp, bad)
		f := v.Failed()
		switch {
		case f == nil:
			out.stats.NoFailure++
			continue
		case !slices.Contains(expected[kind], f.Name):
			out.stats.OtherReason++
			continue
		}
		pair, err := MakePair(plan.mode, good.Messages, bad.Messages)
		if err != nil {
			out.stats.Unpairable++
			continue
		}
		id := bp.ID + "-" + kind
		out.rows = append(out.rows, export.DPORow{ID: id, BlueprintID: bp.ID, Domain: bp.Domain,
			Prompt: pair.Prompt, Chosen: pair.Chosen, Rejected: pair.Rejected, Tools: rowTools(d.Tools, offered, pair.Prompt, pair.Chosen, pair.Rejected),
			Failure: kind, DivergenceTurn: int32(pair.DivergenceTurn)})
		proof, err := json.Marshal(map[string]any{"pair_id": id, "blueprint_id": bp.ID, "split": bp.Split,
			"failure": kind, "check": f.Name, "reason": f.Reason, "flaw_goal": flaw.Goal})
		if err != nil {
			return out, err
		}
		out.proofs = append(out.proofs, proof)
	}
	return out, nil
}
