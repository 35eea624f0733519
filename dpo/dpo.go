package dpo

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/verify"
)

// expected lists, per flaw, the checks a dialogue with that flaw must
// fail for its pair to count: a rejected side is wrong because it was
// executed and failed for the right reason, not because we assumed so.
var expected = map[string][]string{
	agent.FlawGuessedTarget:       {verify.CheckState, CheckCaught},
	agent.FlawWrongTarget:         {verify.CheckState, CheckCaught},
	agent.FlawWrongArgument:       {verify.CheckState, CheckCaught},
	agent.FlawNoConfirmation:      {verify.CheckConfirmation},
	agent.FlawUnauthenticated:     {verify.CheckAuth},
	agent.FlawHallucinatedID:      {verify.CheckState, CheckCaught, verify.RulePrefix + pack.RuleGrounded + ":"},
	agent.FlawWrongTool:           {verify.CheckState},
	agent.FlawSchemaInvalid:       {verify.CheckToolSchema},
	agent.FlawStopsEarly:          {verify.CheckState, verify.CheckEnding},
	agent.FlawUnnecessaryTransfer: {verify.CheckState, verify.CheckOutputs, verify.CheckEnding},
	agent.FlawOmitsOutput:         {verify.CheckOutputs},
	// Rule flaws fail a rule of their kind, whatever the pack names it.
	agent.FlawUndisclosed:       {verify.RulePrefix + pack.RuleDisclose + ":", CheckCaught},
	agent.FlawNoReminder:        {verify.RulePrefix + pack.RuleSay + ":"},
	agent.FlawNoTransferMessage: {verify.RulePrefix + pack.RuleMessage + ":"},
	// An assumed argument that an allow rule asks as a fact (retail's
	// cancellation reason) fails that rule first: called before the
	// customer stated it.
	agent.FlawAssumedArgument: {verify.RulePrefix + pack.RuleFromCustomer + ":", CheckCaught, verify.CheckState, verify.RulePrefix + pack.RuleAllow + ":"},
	agent.FlawNoOpWrite:       {verify.RulePrefix + pack.RuleChangesState + ":", CheckCaught},
	// Two writes run on one yes, the second on a record no one named.
	agent.FlawUnrequestedWrite: {verify.CheckConfirmation, verify.CheckState, verify.RulePrefix + pack.RuleRequested + ":", verify.RulePrefix + pack.RuleOneWritePerYes + ":"},
	// Passed over without a word, a refusal whose condition the task
	// records (an allow rule's) never tells it, and outputs fails first.
	agent.FlawSilentRefusal: {verify.RulePrefix + pack.RuleRefuse + ":", verify.CheckEnding, verify.CheckOutputs},
	agent.FlawUnchecked:     {verify.RulePrefix + pack.RuleChecked + ":"},
	// The tool may refuse the wrong value too: the state then differs.
	agent.FlawMiscomputed: {verify.RulePrefix + pack.RuleComputed + ":", verify.CheckState, CheckCaught},
}

// CheckCaught is the failure record's check of a mistake the customer
// caught: the flawed proposal was turned down (a wrong detail, a figure
// not stated), so the rejected side ends where the customer said no.
const CheckCaught = "caught_by_customer"

// Expected returns the checks a flaw must fail; an entry ending in ":"
// stands for every check it begins (the rules of one kind).
func Expected(flaw string) []string { return expected[flaw] }

// Explains reports whether failing check is what flaw must do.
func Explains(flaw, check string) bool {
	return slices.ContainsFunc(expected[flaw], func(e string) bool {
		return e == check || strings.HasSuffix(e, ":") && strings.HasPrefix(check, e)
	})
}

// LengthBucket is the bucket of a pair's chosen/rejected length ratio,
// in characters of the completion (the agent's words, its calls' names
// and arguments, the tool results a side keeps).
func LengthBucket(chosen, rejected []record.Message) string {
	size := func(side []record.Message) int {
		n := 0
		for _, m := range side {
			n += utf8.RuneCountInString(m.Content)
			for _, c := range m.ToolCalls {
				n += utf8.RuneCountInString(c.Function.Name) + utf8.RuneCountInString(c.Function.Arguments)
			}
		}
		return n
	}
	r := float64(size(chosen)) / float64(max(size(rejected), 1))
	switch {
	case r < 0.5:
		return "0.00-0.50"
	case r < 0.8:
		return "0.50-0.80"
	case r <= 1.25:
		return "0.80-1.25"
	case r <= 2:
		return "1.25-2.00"
	}
	return "2.00+"
}

// Plan chooses which flaws to try per blueprint and how pairs are cut.
type Plan struct {
	kinds   []string
	primary *blueprints.Allocator
	mix     map[string]float64
	mode    string
	tools   string
	pairs   int
}

// defaultMix weights the flaws that need a target described by its
// properties (about half of the tasks offer one) so that every type ends
// up with a similar share of the pairs.
var defaultMix = map[string]float64{agent.FlawGuessedTarget: 3, agent.FlawWrongTarget: 2.5}

// FlawsFor are the failure types a domain can show: a flaw that skips
// checks needs a rule that holds the agent to them.
func FlawsFor(m *model.Model) []string {
	return slices.DeleteFunc(agent.Flaws(), func(k string) bool {
		return k == agent.FlawUnchecked && (m == nil || len(m.RulesFor(pack.RuleChecked, "")) == 0) ||
			k == agent.FlawMiscomputed && (m == nil || len(m.RulesFor(pack.RuleComputed, "")) == 0)
	})
}

// NewPlan makes the DPO plan of a run over the failure types kinds
// (FlawsFor the domain): mix weighs them (nil: the default mix), mode is
// how pairs are cut (PairModes), tools what the sides keep of the tool
// observations (ToolsModes; "" keeps them), pairs is the most pairs a
// blueprint gives.
func NewPlan(seed uint64, kinds []string, mix map[string]float64, mode, tools string, pairs int) (*Plan, error) {
	kinds = slices.Clone(kinds)
	weights := make([]float64, len(kinds))
	for i, k := range kinds {
		weights[i] = 1
		if w, ok := defaultMix[k]; ok && mix == nil {
			weights[i] = w
		}
		if w, ok := mix[k]; ok {
			weights[i] = w
		}
	}
	for k := range mix {
		if !slices.Contains(agent.Flaws(), k) {
			return nil, fmt.Errorf("dpo_mix: unknown failure type %q (known: %s)", k, strings.Join(agent.Flaws(), ", "))
		}
	}
	a, err := blueprints.NewAllocator(blueprints.Range{Min: 0, Max: len(kinds) - 1}, weights, seed, "dpo", 0.5698402909980532)
	if err != nil {
		return nil, fmt.Errorf("dpo_mix: %w", err)
	}
	if !slices.Contains(PairModes(), mode) {
		return nil, fmt.Errorf("--dpo-mode %q: want one of %s", mode, strings.Join(PairModes(), ", "))
	}
	tools = cmp.Or(tools, ToolsKeep)
	if !slices.Contains(ToolsModes(), tools) {
		return nil, fmt.Errorf("--dpo-tools %q: want one of %s", tools, strings.Join(ToolsModes(), ", "))
	}
	if pairs < 1 {
		return nil, fmt.Errorf("dpo_pairs %d: need at least 1", pairs)
	}
	return &Plan{kinds: kinds, primary: a, mix: mix, mode: mode, tools: tools, pairs: pairs}, nil
}

// Order is the sequence of flaws tried for a blueprint: the allocated
// one first (so the mix holds over any range of blueprints), then the
// rest in a per-blueprint order, skipping zero-weight kinds.
func (p *Plan) Order(bp *record.Blueprint) []string {
	first := p.kinds[p.primary.At(bp.Index)]
	rest := slices.DeleteFunc(slices.Clone(p.kinds), func(k string) bool {
		w, set := p.mix[k]
		return k == first || set && w == 0 || !fits(k, bp)
	})
	rng := blueprints.Stream(bp.Seed, bp.Domain, bp.Index, "dpo")
	rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	// In a task that writes nothing, few flaws fit: one any task can
	// show (a needless transfer, stopping early) is tried after them, or
	// as an early fallback it takes the share of every such task (a third
	// of airline's pairs were needless transfers, where half the tasks
	// write nothing).
	if !writes(bp) {
		slices.SortStableFunc(rest, func(a, b string) int { return cmp.Compare(anyTask[a], anyTask[b]) })
	}
	if !fits(first, bp) {
		return rest
	}
	return append([]string{first}, rest...)
}

// fits rules out a flaw the blueprint gives no chance to fire, which
// would cost a dialogue or two to find out: a mistake in a write's
// proposal or call needs a write, a silent refusal a forbidden request.
func fits(kind string, bp *record.Blueprint) bool {
	switch kind {
	case agent.FlawWrongArgument, agent.FlawNoConfirmation, agent.FlawUndisclosed, agent.FlawNoReminder,
		agent.FlawAssumedArgument, agent.FlawNoOpWrite, agent.FlawUnrequestedWrite, agent.FlawMiscomputed:
		return writes(bp)
	case agent.FlawSilentRefusal:
		return slices.ContainsFunc(bp.Goals, func(g record.Goal) bool { return g.Kind == record.GoalRefuse })
	}
	return true
}

// anyTask marks the flaws every task can show.
var anyTask = map[string]int{agent.FlawUnnecessaryTransfer: 1, agent.FlawStopsEarly: 1}

// Mode is how the plan cuts pairs (PairModes).
func (p *Plan) Mode() string { return p.mode }

// Tools is what the plan's sides keep of tool observations (ToolsModes).
func (p *Plan) Tools() string { return p.tools }

// Most is the most pairs a blueprint gives.
func (p *Plan) Most() int { return p.pairs }

// writes reports whether a task asks for a write.
func writes(bp *record.Blueprint) bool {
	return slices.ContainsFunc(bp.Goals, func(g record.Goal) bool { return g.Kind == record.GoalWrite })
}
