package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/dpo"
	"github.com/synth-data/synth/engine"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/engine/hybrid"
	llmengine "github.com/synth-data/synth/engine/llm"
	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/verify"
)

// The engines' names, as --engine takes them.
const (
	EngineEmbedded = embedded.Name
	EngineLLM      = llmengine.Name
	EngineHybrid   = hybrid.Name
)

// engines are the engines --engine names, in the order help lists them.
// It is the one place the run knows which engines exist: the rest of it
// works through engine.Kind, engine.Engine and the capabilities an
// engine has.
func engines() []engine.Kind {
	return []engine.Kind{embedded.Kind(), llmengine.Kind(), hybrid.Kind()}
}

// EngineNames lists the engines --engine takes.
func EngineNames() []string {
	var names []string
	for _, k := range engines() {
		names = append(names, k.Name)
	}
	return names
}

// kindOf finds the engine a config names.
func kindOf(name string) (engine.Kind, bool) {
	i := slices.IndexFunc(engines(), func(k engine.Kind) bool { return k.Name == name })
	if i < 0 {
		return engine.Kind{}, false
	}
	return engines()[i], true
}

// checkEngine names a --engine no engine answers to.
func checkEngine(name string) error {
	if _, ok := kindOf(name); ok {
		return nil
	}
	names := EngineNames()
	return fmt.Errorf("--engine %q: want %s or %s", name, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// newEngine builds the engine --engine names, with the DPO plan of --dpo;
// the engine decodes its own keys of the config.
func newEngine(ctx context.Context, cfg Config, d *domain.Domain, ver *verify.Verifier, ch llm.Chatter) (engine.Engine, error) {
	k, ok := kindOf(cfg.Engine)
	if !ok {
		return nil, checkEngine(cfg.Engine)
	}
	var plan *dpo.Plan
	if cfg.DPO {
		var err error
		if plan, err = dpo.NewPlan(cfg.Seed, dpo.FlawsFor(d.Model), cfg.DPOMix, cfg.DPOMode, cfg.DPOTools, cfg.DPOPairs); err != nil {
			return nil, err
		}
	}
	opts, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("--engine %s: %w", cfg.Engine, err)
	}
	return k.New(ctx, engine.Setup{Domain: d, Verifier: ver, Chatter: ch, Plan: plan, Seed: cfg.Seed, MaxTurns: cfg.MaxTurns,
		Workers: cfg.Workers, Options: opts})
}
