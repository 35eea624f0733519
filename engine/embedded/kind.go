package embedded

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/synth-data/synth/engine"
)

// options are the config keys the embedded engine reads, and the one of
// the LLM engines it must refuse.
type options struct {
	RecoveryShare float64 `json:"recovery_share"`
	Instructions  string  `json:"instructions"`
}

// Kind describes the embedded engine to the run and the release card.
func Kind() engine.Kind {
	return engine.Kind{
		Name: Name,
		Card: engine.Card{
			Name: "embedded engine",
			Pipeline: "simulated dialogues (a rule-based user with a behaviour profile and a policy-following agent that really calls the tools) " +
				"→ verification → Parquet.",
		},
		// Enough recoveries to teach taking a correction, few enough
		// that most rows show the mistake-free path.
		Options: []engine.Option{{Key: "recovery_share", Default: 0.1}},
		Check:   check,
		New:     newFromSetup,
	}
}

func check(cfg json.RawMessage) []error {
	var o options
	if err := json.Unmarshal(cfg, &o); err != nil {
		return []error{fmt.Errorf("embedded engine: options: %w", err)}
	}
	var errs []error
	if o.Instructions == "llm" {
		errs = append(errs, errors.New("--instructions llm needs a model: use --engine llm or hybrid, or --instructions template"))
	}
	if !(o.RecoveryShare >= 0 && o.RecoveryShare <= 1) {
		errs = append(errs, fmt.Errorf("--recovery-share %g: want a share from 0 to 1 (0: no recovery dialogues)", o.RecoveryShare))
	}
	return errs
}

func newFromSetup(_ context.Context, s engine.Setup) (engine.Engine, error) {
	var o options
	if err := json.Unmarshal(s.Options, &o); err != nil {
		return nil, fmt.Errorf("embedded engine: options: %w", err)
	}
	e, err := New(s.Domain, s.Verifier, s.MaxTurns, s.Plan).WithRecovery(s.Seed, o.RecoveryShare)
	if err != nil {
		return nil, err
	}
	return e, nil
}
