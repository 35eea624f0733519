package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/synth-data/synth/engine"
	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/release"
)

// The LLM engines. --engine llm plays each blueprint with an LLM agent
// and an LLM (or the rule-based) customer, up to --trials times, and
// keeps the first dialogue that verifies (APIGen-MT's rejection
// sampling). --engine hybrid plays the embedded dialogue and has the LLM
// rewrite its lines (ToolACE-MT's mask-and-fill), keeping every entity.
// Both may have the LLM write the customer's instruction, reviewed by a
// committee of judges. Everything a model says goes through the same
// verifier as the embedded engine.
//
// Determinism: every request is a function of the blueprint, the trial
// and the dialogue so far, with a seed derived from (run seed,
// blueprint, trial, role), so the same responses give the same release
// whatever --dialogues is; a response cache keyed by request content
// makes a rerun reproduce a release without sending a request.

// RunOptions are the parts of a run a Go caller may supply.
type RunOptions struct {
	// Chatter answers the LLM engines' requests. Nil builds an llm.Client
	// from Config.LLM.
	Chatter llm.Chatter
}

// newChatter builds the run's client unless the caller supplied one.
func newChatter(cfg Config, opts RunOptions) (llm.Chatter, func() error, error) {
	if opts.Chatter != nil {
		return opts.Chatter, func() error { return nil }, nil
	}
	c, err := llm.New(cfg.LLM)
	if err != nil {
		return nil, nil, fmt.Errorf("--engine %s: %w", cfg.Engine, err)
	}
	return c, c.Close, nil
}

// finishLLM adds what the config says and what follows from the counts:
// the models, costs at the configured prices (summed in key order, so
// the float sums are reproducible), totals and pass rates.
func finishLLM(s *engine.LLMStats, cfg Config) {
	s.Engine = cfg.Engine
	// The section repeats the keys the engine reads that it has a field
	// for (user, trials, judges, ...).
	k, _ := kindOf(cfg.Engine)
	own := map[string]any{}
	for key, v := range cfg.Options {
		if uses(k, key) {
			own[key] = v
		}
	}
	if raw, err := json.Marshal(own); err == nil {
		_ = json.Unmarshal(raw, s) // a key without a field, or a value of another type, is the config's to report (Config.Check)
	}
	s.Models = map[string]string{}
	for _, r := range llm.Roles() {
		if m := cfg.LLM.Roles[r].Model; m != "" {
			s.Models[string(r)] = m
		}
	}
	if s.Usage == nil {
		s.Usage = map[string]*engine.TokenUsage{}
	}
	s.Total = engine.TokenUsage{}
	for _, k := range slices.Sorted(maps.Keys(s.Usage)) {
		u := s.Usage[k]
		role, _, _ := strings.Cut(k, "/")
		u.CostUSD = cfg.LLM.Prices[cfg.LLM.Roles[llm.Role(role)].Model].Cost(u.PromptTokens, u.CompletionTokens)
		s.Total.Add(*u)
	}
	s.PassRate = nil
	for k, runs := range s.TrialRuns {
		if s.PassRate == nil {
			s.PassRate = map[string]float64{}
		}
		s.PassRate[k] = release.Ratio(s.TrialPasses[k], runs)
	}
}

// errBudgetSkipped marks a blueprint not started because the budget ran out.
var errBudgetSkipped = fmt.Errorf("not started: %w", llm.ErrBudget)

// budgetStop is produce's report that the budget stopped the run: the
// blueprints before Done are complete and written.
type budgetStop struct{ Done int }

func (b *budgetStop) Error() string {
	return fmt.Sprintf("%v after %d blueprints", llm.ErrBudget, b.Done)
}

func (b *budgetStop) Unwrap() error { return llm.ErrBudget }

func isBudget(err error) bool { return errors.Is(err, llm.ErrBudget) }
