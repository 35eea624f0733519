package hybrid

import (
	"context"

	"github.com/synth-data/synth/engine"
	"github.com/synth-data/synth/engine/llm"
)

// Kind describes the hybrid engine to the run and the release card.
func Kind() engine.Kind {
	return engine.Kind{
		Name:  Name,
		Model: true,
		Card: engine.Card{
			Name: "hybrid engine (embedded dialogues whose lines a model rewrote, every entity kept)",
			Pipeline: "embedded dialogues (a rule-based user and a policy-following agent) verified as skeletons → every user and " +
				"assistant line rewritten by an LLM in the speaker's voice, each rewrite checked to keep every entity of its line " +
				"(after ToolACE-MT's mask-and-fill; tool calls untouched) → verification again → Parquet.",
		},
		New: func(_ context.Context, s engine.Setup) (engine.Engine, error) {
			opts, err := llm.DecodeOptions(s.Options)
			if err != nil {
				return nil, err
			}
			return New(s.Domain, s.Verifier, s.Chatter, opts), nil
		},
	}
}
