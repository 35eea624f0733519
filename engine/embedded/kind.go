package embedded

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/synth-data/synth/engine"
)

// options are the config keys the embedded engine reads.
type options struct {
	RecoveryShare float64 `json:"recovery_share"`
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
		New: newFromSetup,
	}
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
