package hybrid

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/synth-data/synth/engine"
	"github.com/synth-data/synth/engine/llm"
)

// Kind describes the hybrid engine to the run and the release card. It
// reads the llm engine's keys that concern it (llm.DecodeOptions): the
// customer is always the rule-based one and every blueprint has one
// dialogue.
func Kind() engine.Kind {
	k := engine.Kind{
		Name:  Name,
		Model: true,
		Card: engine.Card{
			Name: "hybrid engine (embedded dialogues whose lines a model rewrote, every entity kept)",
			Pipeline: "embedded dialogues (a rule-based user and a policy-following agent) verified as skeletons → every user and " +
				"assistant line rewritten by an LLM in the speaker's voice, each rewrite checked to keep every entity of its line " +
				"(after ToolACE-MT's mask-and-fill; tool calls untouched) → verification again → Parquet.",
		},
		Options: []engine.Option{
			{Key: "judges", Default: 3},
			{Key: "rewrites", Default: 2},
			{Key: "instructions", Default: ""},
			{Key: "dialogues", Default: 0, Run: true},
		},
		Recorded: llm.RecordedKeys(),
		New: func(_ context.Context, s engine.Setup) (engine.Engine, error) {
			opts, err := llm.DecodeOptions(s.Options)
			if err != nil {
				return nil, err
			}
			return New(s.Domain, s.Verifier, s.Chatter, opts), nil
		},
	}
	k.Check = func(cfg json.RawMessage) []error {
		errs := llm.CheckOptions(cfg, k)
		var c struct {
			DPO bool `json:"dpo"`
		}
		if json.Unmarshal(cfg, &c) == nil && c.DPO {
			errs = append(errs, errors.New("--dpo with --engine hybrid: a pair's sides must share the verified dialogue's history word for word, "+
				"and hybrid rewrites it; use --engine embedded or llm for pairs"))
		}
		return errs
	}
	k.Resolve = func(cfg json.RawMessage) (map[string]any, error) { return llm.ResolveOptions(cfg, k, "template") }
	return k
}
