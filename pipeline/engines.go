package pipeline

import (
	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/dpo"
	"github.com/synth-data/synth/engine"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/engine/hybrid"
	llmengine "github.com/synth-data/synth/engine/llm"
	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/verify"
)

// newEngine builds the engine --engine names, with the DPO plan of --dpo.
// It is the one place the run knows which engine plays: the rest of it
// works through engine.Engine and the capabilities an engine has.
func newEngine(cfg Config, d *domain.Domain, ver *verify.Verifier, ch llm.Chatter) (engine.Engine, error) {
	var plan *dpo.Plan
	if cfg.DPO {
		var err error
		if plan, err = dpo.NewPlan(cfg.Seed, dpo.FlawsFor(d.Model), cfg.DPOMix, cfg.DPOMode, cfg.DPOTools, cfg.DPOPairs); err != nil {
			return nil, err
		}
	}
	opts := llmengine.Options{MaxTurns: cfg.MaxTurns, Trials: cfg.Trials, MaxToolErrors: cfg.MaxToolErrors, User: cfg.User,
		Instructions: cfg.Instructions, Judges: cfg.Judges, Rewrites: cfg.Rewrites, Workers: cfg.Workers, Dialogues: cfg.Dialogues}
	switch cfg.Engine {
	case EngineLLM:
		return llmengine.New(d, ver, ch, plan, opts)
	case EngineHybrid:
		return hybrid.New(d, ver, ch, opts), nil
	}
	e, err := embedded.New(d, ver, cfg.MaxTurns, plan).WithRecovery(cfg.Seed, cfg.RecoveryShare)
	if err != nil {
		return nil, err
	}
	return e, nil
}
