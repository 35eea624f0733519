package agent

import (
	"context"

	"github.com/synth-data/synth/model"
)

// permit holds a write the agent has built to its allow rules
// (pack.RuleAllow) before it proposes anything: it asks the customer
// each fact a rule needs that they have not stated (a cancellation's
// reason), then runs the rules on the state as it stands. It returns
// the question to send, or the refusal citing the condition the rule
// named with done set, or the transfer when a rule hands the request to a
// human; none of these when the policy allows the write.
func (a *Generic) permit(ctx context.Context, g *ggoal, args map[string]any) (ask *Turn, refusal string, done bool) {
	if len(g.w.Allows) == 0 {
		return nil, "", false
	}
	facts := map[string]string{}
	for _, f := range g.w.Facts() {
		v, ok := g.slots[f.Name]
		if !ok {
			return a.askPiece(g, "slot:"+f.Name), "", false
		}
		facts[f.Name] = v
	}
	rule, v, err := g.w.Permit(ctx, a.st, args, facts)
	switch {
	case rule != nil && v.Transfer && a.m.Transfer != nil:
		// The policy hands this request to a human: no refusal, a
		// transfer with its message.
		return a.transfer(ctx, g), "", false
	case err != nil:
		// The policy's function gave no answer: not knowing whether the
		// write is allowed, the agent does not make it.
		return nil, "I'm sorry, I can't confirm that the policy allows this, so I can't " + model.Words(g.w.Name) + " right now.", true
	case rule != nil:
		return nil, a.toolRefusal(g, v.Why), true
	}
	return nil, "", false
}
