package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// Which tools a row carries (--tools). A model is given the tools of the
// product it serves, not a 659-operation API: with many tools, rows
// carry the tools a task needs plus a few distractors, which keeps the
// choice of tool part of the task without a prompt no model is trained
// at.
const (
	ToolsAll      = "all"
	ToolsRelevant = "relevant"
	// manyTools is the size above which the default is relevant+
	// defaultDistractors: every built-in domain and τ² pack is below it.
	manyTools          = 32
	defaultDistractors = 8
	maxDistractors     = 1000
)

// ToolChoice is a parsed --tools value.
type ToolChoice struct {
	all   bool
	extra int // distractors drawn besides the task's tools
}

// All reports whether every row carries every tool.
func (c ToolChoice) All() bool { return c.all }

// Distractors is how many tools besides the task's a row carries.
func (c ToolChoice) Distractors() int { return c.extra }

// ParseTools reads --tools: all, relevant or relevant+K; "" (a config
// not bound to a domain yet, or a release made before --tools) is all.
func ParseTools(s string) (ToolChoice, error) {
	switch {
	case s == ToolsAll || s == "":
		return ToolChoice{all: true}, nil
	case s == ToolsRelevant:
		return ToolChoice{}, nil
	case strings.HasPrefix(s, ToolsRelevant+"+"):
		k, err := strconv.Atoi(strings.TrimPrefix(s, ToolsRelevant+"+"))
		if err == nil && k >= 0 && k <= maxDistractors {
			return ToolChoice{extra: k}, nil
		}
	}
	return ToolChoice{}, fmt.Errorf("--tools %q: want all, relevant or relevant+K (K distractors, 0-%d)", s, maxDistractors)
}

// DefaultTools is --tools for a domain of n tools when none is given.
func DefaultTools(n int) string {
	if n <= manyTools {
		return ToolsAll
	}
	return ToolsRelevant + "+" + strconv.Itoa(defaultDistractors)
}

// Offered returns the tools a blueprint's agent is given: every tool;
// or the tools of its ground truth, every generic tool (a transfer or a
// calculator, which any task may need) and c.extra others drawn from
// the blueprint's own stream, so the set is the same in every run.
func (c ToolChoice) Offered(k *tools.Toolkit, bp *record.Blueprint) map[string]bool {
	list := k.Tools()
	names := make(map[string]bool, len(list))
	if c.all {
		for _, t := range list {
			names[t.Name] = true
		}
		return names
	}
	for _, a := range bp.Actions {
		names[a.Tool] = true
	}
	var rest []string
	for _, t := range list {
		switch {
		case t.Kind == record.KindGeneric:
			names[t.Name] = true
		case !names[t.Name]:
			rest = append(rest, t.Name)
		}
	}
	rng := blueprints.Stream(bp.Seed, bp.Domain, bp.Index, "tools")
	for i := 0; i < c.extra && i < len(rest); i++ {
		j := i + rng.IntN(len(rest)-i)
		rest[i], rest[j] = rest[j], rest[i]
		names[rest[i]] = true
	}
	return names
}

// RowTools is the tools column of a row: the tools offered, and any
// other tool of the domain its dialogues call (a model may name a tool
// it was not shown; the row then shows it), so that every call in a row
// is to a tool the row lists.
func RowTools(k *tools.Toolkit, offered map[string]bool, dialogues ...[]record.Message) string {
	names := offered
	for _, msgs := range dialogues {
		for _, m := range msgs {
			for _, c := range m.ToolCalls {
				if _, ok := k.Tool(c.Function.Name); ok && !names[c.Function.Name] {
					if len(names) == len(offered) {
						names = maps.Clone(offered) // offered is the caller's
					}
					names[c.Function.Name] = true
				}
			}
		}
	}
	if len(names) == len(k.Tools()) {
		return k.OpenAI()
	}
	return k.OpenAIOf(names)
}

// CheckRowTools says what is wrong with a row's tools column ("" when
// nothing): each entry must be the domain's own definition of a tool,
// listed once; every tool the row calls must be listed; with --tools all
// every tool is; otherwise every tool of the blueprint's ground truth is.
func CheckRowTools(k *tools.Toolkit, mode, rowTools string, msgs []record.Message, bp *record.Blueprint) string {
	if mode == "" || mode == ToolsAll {
		if rowTools != k.OpenAI() {
			return "tools differ from the domain's tools"
		}
		return ""
	}
	var defs []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal([]byte(rowTools), &defs); err != nil {
		return fmt.Sprintf("tools are not an OpenAI tools array: %v", err)
	}
	names := map[string]bool{}
	for _, d := range defs {
		if names[d.Function.Name] {
			return fmt.Sprintf("tool %s is listed twice", d.Function.Name)
		}
		names[d.Function.Name] = true
	}
	if want := k.OpenAIOf(names); rowTools != want {
		return "tools are not the domain's own definitions, in its order"
	}
	var missing []string
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if _, ok := k.Tool(c.Function.Name); ok && !names[c.Function.Name] {
				missing = append(missing, c.Function.Name)
			}
		}
	}
	if bp != nil {
		for _, a := range bp.Actions {
			if !names[a.Tool] {
				missing = append(missing, a.Tool)
			}
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return fmt.Sprintf("tools leave out %s, which the row calls or its ground truth needs", strings.Join(slices.Compact(missing), ", "))
	}
	return ""
}
