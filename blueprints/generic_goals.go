package blueprints

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// Goals without a write: a question, a request the policy forbids, and a
// request outside the tools that ends in a transfer.

// buildNoWrite adds the goal of a task without writes: a forbidden
// request when the task holds one (--refusals), else a question most
// often and now and then an out-of-scope request.
func (p *gplan) buildNoWrite(refuse bool) error {
	if refuse {
		return p.buildRefusal()
	}
	kinds := []func() error{p.buildInform, p.buildInform}
	if len(p.m.Transfers) > 0 {
		kinds = append(kinds, p.buildTransfer)
	}
	return kinds[p.rng.IntN(len(kinds))]()
}

// buildInform adds a question: one the pack's informs declare, else a
// described field of a record.
func (p *gplan) buildInform() error {
	if len(p.m.Informs) == 0 {
		return p.buildFieldInform()
	}
	m := p.m
	var ins []*model.InformModel
	for _, c := range slices.Sorted(maps.Keys(m.Informs)) {
		ins = append(ins, m.Informs[c]...)
	}
	in := ins[p.rng.IntN(len(ins))]
	c := in.Coll
	var modes []string
	if keyKnown(m, c) {
		modes = append(modes, modeKey)
	}
	if c.List != nil {
		modes = append(modes, modeDescribed)
	}
	if len(modes) == 0 {
		return fmt.Errorf("no way to name a %s", c.Noun)
	}
	var t *target
	var err error
	if modes[p.rng.IntN(len(modes))] == modeDescribed {
		t, err = p.described(c, nil)
	} else {
		t, err = p.byKey(c, nil)
	}
	if err != nil {
		return err
	}
	// The policy has the agent authenticate first whatever the question.
	p.auth()
	gi := len(p.goals)
	goal := record.Goal{Intent: model.IntentInformPrefix + in.Ask, Kind: record.GoalInform, Target: t.sel}
	rec := t.obj
	if in.Within != "" {
		sub, sel, err := p.subRecord(in, t)
		if err != nil {
			return err
		}
		goal.Items = []record.Selector{sel}
		rec = sub
	}
	_, val, err := in.Answer(rec)
	if err != nil {
		return err
	}
	if t.key != "" {
		p.used[p.usedKey(t.sel.Collection, t.key)] = true
	}
	p.goals = append(p.goals, goal)
	p.outputs = append(p.outputs, record.Output{Goal: gi, Name: in.Ask, Value: val})
	return nil
}

// subRecord picks the sub-record a question is about and the words that
// single it out among the candidates: one attribute and the criterion
// ("the cheapest available blue one").
func (p *gplan) subRecord(in *model.InformModel, t *target) (map[string]any, record.Selector, error) {
	cands := in.SubCandidates(t.obj)
	if len(cands) == 0 {
		return nil, record.Selector{}, fmt.Errorf("no %s to ask about", model.Words(in.Within))
	}
	for _, j := range p.rng.Perm(len(cands)) {
		for where := range model.Wheres(cands[j], in.Describe) {
			if len(where) > 1 {
				continue
			}
			sel := record.Selector{Collection: in.Within, Where: where, Pick: in.Pick}
			if i, err := tools.ResolveKey(sel, cands, ""); err == nil && i == j {
				sel.Label = subLabel(in, sel, t)
				return cands[j], sel, nil
			}
		}
	}
	return nil, record.Selector{}, fmt.Errorf("no %s can be singled out", model.Singular(model.Words(in.Within)))
}

// subLabel names a sub-record by the criterion, the conditions all
// candidates meet, its attribute and the record's name: "the cheapest
// available blue t-shirt".
func subLabel(in *model.InformModel, sel record.Selector, t *target) string {
	words := []string{"the"}
	if adj, _ := model.PickWords(sel.Pick); adj != "" {
		words = append(words, adj)
	}
	for _, k := range slices.Sorted(maps.Keys(in.Where)) {
		if strings.EqualFold(in.Where[k], "true") {
			words = append(words, model.Words(model.LastStep(k)))
		}
	}
	words = append(words, model.ElementWords("", sel.Where, nil))
	words = append(words, strings.TrimPrefix(strings.TrimPrefix(t.sel.Label, "the "), "my "))
	return strings.Join(words, " ")
}

// pickRefusal draws the write a forbidden request asks for, among the
// usable writes the policy can forbid; nil when none can be.
func (p *gplan) pickRefusal() *model.WriteModel {
	var ws []*model.WriteModel
	for _, w := range p.g.usable {
		if w.Forbids() {
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 {
		return nil
	}
	return ws[p.rng.IntN(len(ws))]
}

// buildRefusal adds a request the policy forbids: a write with
// preconditions on a target that fails them. The agent must find out and
// refuse; nothing changes.
func (p *gplan) buildRefusal() error {
	w := p.refusal
	if w == nil {
		if w = p.pickRefusal(); w == nil {
			return errors.New("no write has preconditions")
		}
	}
	mode := modeKey
	if w.Coll.List != nil && (w.Coll.Get == "" || p.rng.IntN(2) == 0) {
		mode = modeDescribed
	}
	if len(w.When) == 0 || len(w.Allows) > 0 {
		// Only trying tells which records the tool or an allow rule
		// refuses: several targets before the task is drawn again.
		var err error
		for range 8 {
			if err = p.attempt(func() error { return p.buildGoal(w, mode, true) }); err == nil {
				return nil
			}
		}
		return err
	}
	t, err := p.writeTarget(w, mode, nil, w.Forbidden)
	if err != nil {
		return err
	}
	goal := record.Goal{Intent: model.IntentRefusePrefix + w.Name, Kind: record.GoalRefuse, Target: t.sel}
	for _, pm := range w.Params {
		if pm.Source == model.SrcSlot && len(pm.Choices) > 0 && pm.Required {
			if goal.Slots == nil {
				goal.Slots = map[string]string{}
			}
			goal.Slots[pm.Name] = pm.Choices[p.rng.IntN(len(pm.Choices))]
		}
	}
	if t.key != "" {
		p.used[p.usedKey(t.sel.Collection, t.key)] = true
	}
	p.goals = append(p.goals, goal)
	return nil
}

// handoverSummary is the summary a transfer gives the human agent of a
// request (what) the agent cannot serve, as the agent words it.
func (p *gplan) handoverSummary(what string) string {
	who := "The customer"
	if p.user != "" {
		who = "Customer " + p.user
	}
	return who + " wants to " + what + "; this is outside what I can handle."
}

// buildTransfer adds a request outside what the tools can do: the agent
// hands the customer to a human with a summary.
func (p *gplan) buildTransfer() error {
	m := p.m
	if len(m.Transfers) == 0 || m.Transfer == nil {
		return errors.New("the pack has no transfers")
	}
	topic := m.Transfers[p.rng.IntN(len(m.Transfers))]
	gi := len(p.goals)
	p.call(gi, m.Transfer.Name, map[string]any{m.TransferParam: p.handoverSummary(topic)}, p.auth())
	goal := record.Goal{Intent: model.IntentTransfer, Kind: record.GoalTransfer, Slots: map[string]string{"topic": topic}}
	if m.Users != nil {
		goal.Target = record.Selector{Collection: m.Users.Coll.Name, Label: "my account"}
	}
	p.goals = append(p.goals, goal)
	return nil
}
