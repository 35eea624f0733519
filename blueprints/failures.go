package blueprints

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
)

// failAt makes one of the task's writes meet a failure its domain
// declares (pack.Failure), drawn from the seed: the runtime returns the
// failure at that call, and the ground truth is what the policy's
// recovery leaves. A retry runs the write again, so the ground truth is
// unchanged; a transfer hands the customer over instead, so the write
// leaves the ground truth and the transfer joins it. Only the task's
// last goal can end in a transfer, and a write whose customer first
// names a failing choice (Goal.FailingItems) keeps its own tool error.
// It reports whether the task has a failure.
func (g *Generic) failAt(ctx context.Context, bp *record.Blueprint, index int) (bool, error) {
	type cand struct {
		action int
		f      pack.Failure
	}
	var cands []cand
	last := -1
	for i, a := range bp.Actions {
		if a.Kind == record.KindWrite {
			last = i
		}
	}
	for i, a := range bp.Actions {
		if a.Kind != record.KindWrite {
			continue
		}
		goal := bp.Goals[a.Goal]
		if len(goal.FailingItems) > 0 || len(goal.FailingSlots) > 0 {
			continue
		}
		for _, f := range g.m.Failures {
			if !slices.Contains(f.Tools, a.Tool) {
				continue
			}
			if f.Recovery == pack.RecoverTransfer && (g.m.Transfer == nil || i != last || a.Goal != len(bp.Goals)-1) {
				continue
			}
			cands = append(cands, cand{i, f})
		}
	}
	if len(cands) == 0 {
		return false, nil
	}
	c := cands[Stream(g.spec.Seed, g.m.Name, index, "tool_failure").IntN(len(cands))]
	a := bp.Actions[c.action]
	call := 1
	for _, b := range bp.Actions[:c.action] {
		if b.Tool == a.Tool {
			call++
		}
	}
	bp.Failures = []record.ToolFailure{{Kind: c.f.Kind, Tool: a.Tool, Call: call, Error: c.f.Error, Recovery: c.f.Recovery}}
	if c.f.Recovery != pack.RecoverTransfer {
		return true, nil
	}
	return true, g.handOver(ctx, bp, c.action, c.f)
}

// handOver replaces a write the service failed by the transfer the
// policy prescribes: the write's outputs and evidence go, the transfer
// (with the summary the agent gives, model.FailedHandover) comes last,
// and the ground truth's state is replayed without the write.
func (g *Generic) handOver(ctx context.Context, bp *record.Blueprint, action int, f pack.Failure) error {
	a := bp.Actions[action]
	writes := 0
	for _, b := range bp.Actions[:action] {
		if b.Kind == record.KindWrite {
			writes++
		}
	}
	bp.Actions = slices.Delete(slices.Clone(bp.Actions), action, action+1)
	bp.Evidence = slices.Delete(slices.Clone(bp.Evidence), writes, writes+1)
	bp.NWrites--
	bp.Outputs = slices.DeleteFunc(slices.Clone(bp.Outputs), func(o record.Output) bool { return o.Goal == a.Goal })
	user := ""
	if g.m.Users != nil {
		// The customer's key, as the agent learns it: the first call
		// that names it.
		for _, b := range bp.Actions {
			var args map[string]any
			if json.Unmarshal(b.Arguments, &args) != nil {
				continue
			}
			if k, ok := args[g.m.Users.Coll.Key].(string); ok {
				user = k
				break
			}
		}
	}
	args, err := json.Marshal(map[string]any{g.m.TransferParam: model.FailedHandover(user, bp.Goals[a.Goal].Intent, f.Kind)})
	if err != nil {
		return err
	}
	bp.Actions = append(bp.Actions, record.Action{Tool: g.m.Transfer.Name, Kind: g.m.Kit.Kind(g.m.Transfer.Name), Arguments: args, Goal: a.Goal})
	st := g.m.Base.NewState()
	for i, b := range bp.Actions {
		if b.Kind != record.KindWrite {
			continue
		}
		if res := g.m.Kit.Exec(ctx, st, b.Tool, string(b.Arguments)); res.Err {
			return fmt.Errorf("ground-truth write %d (%s) fails without the failed one: %s", i, b.Tool, res.Output)
		}
	}
	bp.StateHash = st.Hash()
	return nil
}
