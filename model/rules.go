package model

import (
	"github.com/synth-data/synth/pack"
)

// RulesFor are the domain's rules of a kind about a tool ("" for any).
func (m *Model) RulesFor(kind, tool string) []pack.Rule {
	var out []pack.Rule
	for _, r := range m.Rules {
		if r.Kind == kind && (tool == "" || r.Tool == tool || r.After == tool) {
			out = append(out, r)
		}
	}
	return out
}

// Disclosed are the outputs of a write the policy says to state before
// the customer confirms it.
func (m *Model) Disclosed(tool string) []string {
	var out []string
	for _, r := range m.RulesFor(pack.RuleDisclose, tool) {
		out = append(out, r.Figures...)
	}
	return out
}

// TransferMessage is the exact message the policy prescribes after a
// transfer ("" when it prescribes none).
func (m *Model) TransferMessage() string {
	if m.Transfer == nil {
		return ""
	}
	for _, r := range m.RulesFor(pack.RuleMessage, m.Transfer.Name) {
		return r.Text
	}
	return ""
}
