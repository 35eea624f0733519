package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"

	"github.com/synth-data/synth/engine"
)

// Bounds of the LLM engines' keys. Each lies far beyond any sensible run;
// it is there so that a mistyped value fails with a message before
// anything is written.
const (
	// MaxTrials bounds --trials (LLM dialogues per blueprint) and
	// MaxJudges --judges and --rewrites (requests per instruction).
	MaxTrials = 100
	MaxJudges = 16
	// MaxDialogues bounds --dialogues (LLM dialogues in flight); the
	// client bounds its own keys (client.MaxConcurrency and the others).
	MaxDialogues = 4096
	// maxToolErrors bounds max_tool_errors, as a run bounds max_turns.
	maxToolErrors = 10_000
)

// Kind describes the LLM engine to the run and the release card.
func Kind() engine.Kind {
	k := engine.Kind{
		Name:  Name,
		Model: true,
		Card: engine.Card{
			Name: "LLM engine (a model played the agent and the customer through an OpenAI-compatible endpoint)",
			Pipeline: "up to `trials` dialogues per blueprint between an LLM agent (the policy as system prompt, the tools in OpenAI format, " +
				"every call executed on the episode's own database) and a simulated customer → verification, keeping the first dialogue that " +
				"passes (rejection sampling, after APIGen-MT; the failed ones are in `rejected/`) → Parquet.",
		},
		Options: []engine.Option{
			{Key: "user", Default: "llm"},
			{Key: "trials", Default: 3},
			{Key: "judges", Default: 3},
			{Key: "rewrites", Default: 2},
			{Key: "instructions", Default: ""},
			{Key: "max_tool_errors", Default: 5},
			{Key: "dialogues", Default: 0, Run: true},
		},
		Recorded: RecordedKeys(),
		New: func(_ context.Context, s engine.Setup) (engine.Engine, error) {
			opts, err := DecodeOptions(s.Options)
			if err != nil {
				return nil, err
			}
			return New(s.Domain, s.Verifier, s.Chatter, s.Plan, opts)
		},
	}
	k.Check = func(cfg json.RawMessage) []error { return CheckOptions(cfg, k) }
	k.Resolve = func(cfg json.RawMessage) (map[string]any, error) { return ResolveOptions(cfg, k, "llm") }
	return k
}

// RecordedKeys are the config keys an LLM engine's release records
// (engine.Kind.Recorded).
func RecordedKeys() []string {
	return []string{"user", "trials", "judges", "rewrites", "instructions", "max_tool_errors", "recovery_share"}
}

// runConfig is what the LLM engines read of a run's config besides their
// own keys.
type runConfig struct {
	Options
	DPO bool `json:"dpo"`
	LLM struct {
		MaxConcurrency int `json:"max_concurrency"`
	} `json:"llm"`
}

// CheckOptions reports every problem of an LLM engine's keys in the run's
// config cfg, each naming its flag and the fix. k is the engine: only the
// llm engine lets the rule-based customer answer (--user embedded), and
// each range is checked only for an engine that reads its key.
func CheckOptions(cfg json.RawMessage, k engine.Kind) []error {
	var c runConfig
	if err := json.Unmarshal(cfg, &c); err != nil {
		return []error{fmt.Errorf("--engine %s: %w", k.Name, err)}
	}
	var errs []error
	switch c.User {
	case "llm":
	case "embedded":
		if k.Name != Name {
			errs = append(errs, fmt.Errorf("--user embedded: only the llm engine has a choice of customer (hybrid refines the embedded user's words)"))
		}
	default:
		errs = append(errs, fmt.Errorf("--user %q: want llm or embedded", c.User))
	}
	switch c.Instructions {
	case "", "template", "llm":
	default:
		errs = append(errs, fmt.Errorf("--instructions %q: want template or llm", c.Instructions))
	}
	for _, r := range []struct {
		key, flag string
		v, lo, hi int
		what      string
	}{
		{"trials", "--trials", c.Trials, 1, MaxTrials, "dialogues per blueprint"},
		{"judges", "--judges", c.Judges, 0, MaxJudges, "judges per instruction (0: no review)"},
		{"rewrites", "--rewrites", c.Rewrites, 0, MaxJudges, "rewrites of a rejected instruction"},
		{"max_tool_errors", "max_tool_errors", c.MaxToolErrors, 1, maxToolErrors, "failed tool calls before a dialogue ends"},
	} {
		if k.Reads(r.key) && (r.v < r.lo || r.v > r.hi) {
			errs = append(errs, fmt.Errorf("%s %d: want %d to %d %s", r.flag, r.v, r.lo, r.hi, r.what))
		}
	}
	switch {
	case c.Dialogues < 0:
		errs = append(errs, fmt.Errorf("--dialogues %d: need at least 1 (0 means twice --max-concurrency)", c.Dialogues))
	case c.Dialogues > MaxDialogues:
		errs = append(errs, fmt.Errorf("--dialogues %d: at most %d LLM dialogues at once (the output does not depend on it)", c.Dialogues, MaxDialogues))
	}
	return errs
}

// ResolveOptions returns engine k's keys of the run's config cfg with
// the instruction source defaulting to instructions and the dialogues in
// flight to twice the client's concurrency.
func ResolveOptions(cfg json.RawMessage, k engine.Kind, instructions string) (map[string]any, error) {
	var c runConfig
	if err := json.Unmarshal(cfg, &c); err != nil {
		return nil, fmt.Errorf("--engine %s: %w", k.Name, err)
	}
	c.Instructions = cmp.Or(c.Instructions, instructions)
	if c.Dialogues == 0 {
		c.Dialogues = min(2*max(c.LLM.MaxConcurrency, 1), MaxDialogues)
	}
	raw, err := json.Marshal(c.Options)
	if err != nil {
		return nil, fmt.Errorf("--engine %s: %w", k.Name, err)
	}
	var all map[string]any
	if err := json.Unmarshal(raw, &all); err != nil {
		return nil, fmt.Errorf("--engine %s: %w", k.Name, err)
	}
	out := map[string]any{}
	for _, o := range k.Options {
		out[o.Key] = all[o.Key]
	}
	return out, nil
}
