package blueprints

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
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
			if f.Recovery == pack.RecoverAlternative && (!chosen(goal, f.Choice) || len(goal.UnavailableNew) > 0) {
				// The customer's first choice and its fallback are told
				// once a goal (usersim: failedOver): a goal with an
				// unavailable replacement has spent them.
				continue
			}
			cands = append(cands, cand{i, f})
		}
	}
	rng := Stream(g.spec.Seed, g.m.Name, index, "tool_failure")
	for len(cands) > 0 {
		// Each kind the task can meet is as likely as another, however
		// many of its writes one kind fits: a timeout fits every write,
		// a declined card only one the customer pays with.
		var kinds []string
		for _, c := range cands {
			if !slices.Contains(kinds, c.f.Kind) {
				kinds = append(kinds, c.f.Kind)
			}
		}
		kind := kinds[rng.IntN(len(kinds))]
		var of []int
		for k, c := range cands {
			if c.f.Kind == kind {
				of = append(of, k)
			}
		}
		k := of[rng.IntN(len(of))]
		c := cands[k]
		a := bp.Actions[c.action]
		call := 1
		for _, b := range bp.Actions[:c.action] {
			if b.Tool == a.Tool {
				call++
			}
		}
		switch c.f.Recovery {
		case pack.RecoverTransfer:
			if err := g.handOver(ctx, bp, c.action, c.f); err != nil {
				return false, err
			}
		case pack.RecoverAlternative:
			ok, err := g.offerFirst(ctx, bp, c.action, c.f.Choice, index)
			if err != nil {
				return false, err
			}
			if !ok {
				// No other thing of the customer's the write would take:
				// another of the task's failures, if it has one.
				cands = slices.Delete(cands, k, k+1)
				continue
			}
		}
		bp.Failures = []record.ToolFailure{{Kind: c.f.Kind, Tool: a.Tool, Call: call, Error: c.f.Error, Recovery: c.f.Recovery}}
		return true, nil
	}
	return false, nil
}

// chosen reports whether the customer states their choice for param (a
// card of theirs, or "the original payment method"), so that a first one
// the service declines can come before it.
func chosen(goal record.Goal, param string) bool {
	_, said := goal.Slots[param]
	return said || slices.ContainsFunc(goal.Items, func(s record.Selector) bool { return s.Collection == param })
}

// offerFirst makes the customer of the write at action first offer
// another of their things for the choice param, which the service
// turns down (the failure at that call): the goal's FailingItems, and
// the instruction that says so. The ground truth is the write with the
// choice the customer then names. It reports false, changing nothing,
// when the customer has no other thing the write allows.
func (g *Generic) offerFirst(ctx context.Context, bp *record.Blueprint, action int, param string, index int) (bool, error) {
	a := bp.Actions[action]
	pm := g.m.Write(a.Tool).Param(param)
	ch := pm.Choose
	if ch.Entry != "" {
		return false, nil // the argument is built around the choice: no plain id to offer
	}
	user, st, err := g.customer(ctx, bp, action)
	if err != nil || user == nil {
		return false, err
	}
	args, err := tools.DecodeObject(a.Arguments)
	if err != nil {
		return false, fmt.Errorf("ground-truth write %d (%s): %w", action, a.Tool, err)
	}
	if g.refunds(ctx, st, bp, action, args) {
		return false, nil // money going back is not a charge a provider declines
	}
	cur := tools.Text(args[param])
	// Not the target's own (the order's original method) either: after
	// it is declined the agent still offers "the original one".
	def := ""
	if w := g.m.Write(a.Tool); w.Coll != nil && w.KeyParam() != "" {
		if rec, ok := st.Get(w.Coll.Name, tools.Text(args[w.KeyParam()])); ok {
			if obj, _ := rec.(map[string]any); obj != nil {
				if v, ok := ch.DefaultValue(obj); ok {
					def = tools.Text(v)
				}
			}
		}
	}
	elems := ch.ChoiceElements(user)
	var opts []int
	for j, e := range elems {
		if id := tools.Text(e[ch.ID]); id != cur && id != def && ch.Allowed(e) && g.takes(ctx, st, a.Tool, args, param, e[ch.ID]) {
			opts = append(opts, j)
		}
	}
	if len(opts) == 0 {
		return false, nil
	}
	j := opts[Stream(g.spec.Seed, g.m.Name, index, "alternative").IntN(len(opts))]
	first, err := ch.ChoiceSelector(param, elems, j)
	if err != nil {
		return false, nil
	}
	bp.Goals = slices.Clone(bp.Goals)
	bp.Goals[a.Goal].FailingItems = []record.Selector{first}
	bp.Instruction = instruction(g.m, bp)
	return true, nil
}

// refunds reports whether the write at action pays the customer back
// (an exchange for a cheaper item): a figure it must tell goes back to
// the customer's chosen method.
func (g *Generic) refunds(ctx context.Context, st *tools.State, bp *record.Blueprint, action int, args map[string]any) bool {
	a := bp.Actions[action]
	res := g.m.Kit.Exec(ctx, st.Fork(), a.Tool, string(a.Arguments))
	if res.Err {
		return false
	}
	w := g.m.Write(a.Tool)
	for _, o := range bp.Outputs {
		if o.Goal != a.Goal {
			continue
		}
		// The blueprint keeps a figure's magnitude; the write's own entry
		// (a negative price difference) tells the way it goes.
		n, err := strconv.ParseFloat(o.Value, 64)
		if err != nil {
			continue
		}
		if back, _ := w.GoesBack(nil, res.Value, args, o.Name, n); back {
			return true
		}
	}
	return false
}

// takes reports whether the write's tool would take choice v for param,
// the other arguments kept: the first choice the service then declines
// is one the customer could have paid with (not the order's own method,
// a gift card with the balance), so the decline is the only reason.
func (g *Generic) takes(ctx context.Context, st *tools.State, tool string, args map[string]any, param string, v any) bool {
	try := maps.Clone(args)
	try[param] = v
	raw, err := tools.Marshal(try)
	if err != nil {
		return false
	}
	return !g.m.Kit.Exec(ctx, st.Fork(), tool, string(raw)).Err
}

// customer is the customer's record as it stands when the write at
// action runs (the ground truth's last read of the users' details before
// it, made again after the writes before it: a gift card an earlier
// write paid with has its new balance) and the state that write runs
// on; a nil record when the task reads none.
func (g *Generic) customer(ctx context.Context, bp *record.Blueprint, action int) (map[string]any, *tools.State, error) {
	if g.m.Users == nil || g.m.Users.Details == "" {
		return nil, nil, nil
	}
	st, err := g.replayWrites(ctx, bp.Actions[:action])
	if err != nil {
		return nil, nil, err
	}
	var read json.RawMessage
	for _, b := range bp.Actions[:action] {
		if b.Tool == g.m.Users.Details {
			read = b.Arguments
		}
	}
	if read == nil {
		return nil, st, nil
	}
	res := g.m.Kit.Exec(ctx, st.Fork(), g.m.Users.Details, string(read))
	if res.Err {
		return nil, nil, fmt.Errorf("ground-truth read of the customer (%s) fails: %s", g.m.Users.Details, res.Output)
	}
	user, _ := res.Value.(map[string]any)
	return user, st, nil
}

// replayWrites runs the ground truth's writes among actions on a fresh
// state of the base.
func (g *Generic) replayWrites(ctx context.Context, actions []record.Action) (*tools.State, error) {
	st := g.m.Base.NewState()
	for i, b := range actions {
		if b.Kind != record.KindWrite {
			continue
		}
		if res := g.m.Kit.Exec(ctx, st, b.Tool, string(b.Arguments)); res.Err {
			return nil, fmt.Errorf("ground-truth write %d (%s) fails: %s", i, b.Tool, res.Output)
		}
	}
	return st, nil
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
	st, err := g.replayWrites(ctx, bp.Actions)
	if err != nil {
		return fmt.Errorf("without the failed one: %w", err)
	}
	bp.StateHash = st.Hash()
	return nil
}
