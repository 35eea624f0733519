package llm

import (
	"context"

	"github.com/synth-data/synth/engine"
)

// Kind describes the LLM engine to the run and the release card.
func Kind() engine.Kind {
	return engine.Kind{
		Name:  Name,
		Model: true,
		Card: engine.Card{
			Name: "LLM engine (a model played the agent and the customer through an OpenAI-compatible endpoint)",
			Pipeline: "up to `trials` dialogues per blueprint between an LLM agent (the policy as system prompt, the tools in OpenAI format, " +
				"every call executed on the episode's own database) and a simulated customer → verification, keeping the first dialogue that " +
				"passes (rejection sampling, after APIGen-MT; the failed ones are in `rejected/`) → Parquet.",
		},
		New: func(_ context.Context, s engine.Setup) (engine.Engine, error) {
			opts, err := DecodeOptions(s.Options)
			if err != nil {
				return nil, err
			}
			return New(s.Domain, s.Verifier, s.Chatter, s.Plan, opts)
		},
	}
}
