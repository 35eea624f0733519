package agent

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// Generic is the policy-following oracle for any pack. It knows the
// domain's shape (the Model: identify tools, collections, writes and
// where their arguments come from) but resolves every target and value
// from what the customer said and what its tool calls returned, never
// from the blueprint: authenticate, read the evidence, propose each
// write with its identifying arguments, wait for an explicit yes, one
// write per turn, tell the outcome, ask if anything else, end.
type Generic struct {
	m   *model.Model
	st  *tools.State
	rng *rand.Rand

	userKey  string
	first    string
	identity map[string]string
	reads    map[string]readOut // results no write has changed since
	told     map[string]bool    // records introduced to the customer (collection, key)

	goals    map[int]*ggoal
	queue    []int
	cur      *ggoal
	done     []int
	userDone bool
	out      []record.Message

	flaw  *Flaw
	fired bool
	hide  bool
	// refused is set when the agent refused a request since its last
	// reply; refusedGoal is the goal it refused.
	refused     bool
	refusedGoal int
	// sorry is what the agent says first after the customer turned its
	// proposal down (a correction, a figure asked for, a plea against a
	// refusal), "" when the customer did not.
	sorry []string
	// pleas counts the customer's pleas against each refused goal.
	pleas map[int]int
	// compared is the agent's reasoning on how it singled the target out
	// among several records (the hard step of a task); the goal's write
	// carries it.
	compared string
	// chosen is the record compared picked, until a step acts on it.
	chosen map[string]any
}

type readOut struct {
	v   any
	out string // the observation, for the callers that parse its text
	ok  bool
}

// ggoal is what the agent has understood of one request.
type ggoal struct {
	idx int
	// instead: the customer's plan B for a request the agent refused.
	instead bool
	intent  string
	w       *model.WriteModel
	opts    []string
	field   string // asked about, for a question
	target  *record.Selector
	items   map[string][]record.Selector
	news    map[string][]record.Selector
	slots   map[string]string
	// elems are the records the choice arguments name, for the outputs
	// computed from them; user is the customer's record when read.
	elems map[string][]any
	user  map[string]any

	resolved bool
	key      string
	obj      map[string]any
	phrase   string // the verb phrase, rendered once
	args     map[string]any
	propose  bool
	confirm  bool
	// trial is the write tried on a fork of the state, with its
	// arguments' JSON.
	trial *trial
	// assumed is set when the assumed_argument flaw filled a piece in.
	assumed bool
	// rejected is the choice argument the tool turned the write down
	// for, asked for again.
	rejected string
	// unavailable names the replacement the customer asked for that the
	// record offers but not available, said before asking again.
	unavailable string
	// reminded are the say rules (pack.RuleSay) told with a question of
	// this request's, which its proposal does not repeat.
	reminded map[string]bool
}

type trial struct {
	args string
	res  tools.Result
}

// NewGeneric creates the agent of one episode.
func NewGeneric(m *model.Model, st *tools.State, rng *rand.Rand) *Generic {
	return &Generic{m: m, st: st, rng: rng, goals: map[int]*ggoal{}, reads: map[string]readOut{}, told: map[string]bool{}}
}

// WithFlaw turns the agent into a flawed one (DPO).
func (a *Generic) WithFlaw(f Flaw) *Generic {
	a.flaw = &f
	return a
}

// Fired reports whether the flaw has fired.
func (a *Generic) Fired() bool { return a.fired }

func (a *Generic) say(tmpls []string, slots map[string]string) string {
	return dialog.Render(a.rng, tmpls[a.rng.IntN(len(tmpls))], slots)
}

// call runs a tool and records the call and its observation.
func (a *Generic) call(ctx context.Context, name string, args map[string]any, reasoning string) (any, string, bool) {
	raw, _ := tools.Marshal(args)
	return a.callRaw(ctx, name, string(raw), reasoning)
}

// callRaw is call for arguments already encoded.
func (a *Generic) callRaw(ctx context.Context, name, raw, reasoning string) (any, string, bool) {
	if a.compared != "" && (reasoning != "" || derived(raw, a.chosen)) {
		// The comparison goes on the first step that acts on its result:
		// a read whose arguments come from the record it singled out, or
		// the write; else on the turn that tells the customer (reply).
		reasoning = strings.TrimSpace(a.compared + " " + reasoning)
		a.compared, a.chosen = "", nil
	}
	id := CallID(a.rng)
	a.out = append(a.out, record.Message{Role: "assistant", ReasoningContent: reasoning,
		ToolCalls: []record.ToolCall{{ID: id, Type: "function", Function: record.FunctionCall{Name: name, Arguments: raw}}}})
	res := a.m.Call(ctx, a.st, name, raw)
	a.out = append(a.out, record.Message{Role: "tool", ToolCallID: id, Name: name, Content: res.Output})
	if res.Err {
		return nil, res.Output, false
	}
	return model.ResultValue(res), res.Output, true
}

// read calls a read tool once while its answer stands: what it returned
// stays valid until a write changes it.
func (a *Generic) read(ctx context.Context, name string, args map[string]any) (any, bool) {
	r := a.lookup(ctx, name, args)
	return r.v, r.ok
}

// lookup is read with the observation: every read, the identify call
// included, goes through the results no write has changed, so a
// dialogue never shows the same call twice with nothing changed between
// (a model trained on it would learn to re-read). A failed read is kept
// too: asking again cannot answer differently on the same state.
func (a *Generic) lookup(ctx context.Context, name string, args map[string]any) readOut {
	raw, _ := tools.Marshal(args)
	key := readKey(name, string(raw))
	if r, ok := a.reads[key]; ok {
		return r
	}
	v, out, ok := a.callRaw(ctx, name, string(raw), "")
	r := readOut{v: v, out: out, ok: ok}
	a.reads[key] = r
	return r
}

// forgetChanged drops the reads a write made stale: each kept read is
// asked again of the new state, unseen, and kept only if it answers as it
// did. A careful agent re-reads the record it just changed (and the
// balance it just charged), not every profile and order it has seen: the
// rest is as it read it, and reading it again teaches a model to re-read.
func (a *Generic) forgetChanged(ctx context.Context) {
	for key, r := range a.reads {
		name, raw, _ := strings.Cut(key, "\x00")
		res := a.m.Call(ctx, a.st, name, raw)
		if res.Output != r.out || res.Err == r.ok {
			delete(a.reads, key)
		}
	}
}

// readKey identifies a read among the results kept.
func readKey(name, raw string) string { return name + "\x00" + raw }

func (a *Generic) reply(text string, ask dialog.Ask) Turn {
	// A comparison no call followed is the reasoning of the turn that
	// tells the customer which record it found.
	a.out = append(a.out, record.Message{Role: "assistant", Content: text, ReasoningContent: a.compared})
	a.compared, a.chosen = "", nil
	ask.Done = slices.Clone(a.done)
	if a.refused {
		g := a.refusedGoal
		ask.RefusedGoal = &g
	}
	ask.Refused, a.refused = a.refused, false
	t := Turn{Messages: a.out, Ask: ask}
	a.out = nil
	return t
}

// Respond reads the customer's acts and works until it has something to say.
func (a *Generic) Respond(ctx context.Context, in dialog.Turn) (Turn, error) {
	for _, act := range in.Acts {
		a.absorb(act)
	}
	lead := a.sorry
	a.sorry = nil
	for steps := 0; steps < 64; steps++ {
		if err := ctx.Err(); err != nil {
			return Turn{}, err
		}
		if a.m.Users != nil && a.userKey == "" {
			if a.skipAuth(ctx) {
				continue
			}
			if a.identity == nil {
				return a.reply(joinText(lead, a.say(genericGreetIdentify, map[string]string{"ids": a.identifyWords()})), dialog.Ask{Kind: "identify"}), nil
			}
			if missing := a.missingIdentity(); len(missing) > 0 {
				// Half an identity (a name without the zip): ask for the
				// rest, keeping what was given.
				return a.reply(joinText(lead, a.say(identifyRest, map[string]string{"missing": model.JoinAnd(missing)})), dialog.Ask{Kind: "identify"}), nil
			}
			if !a.authenticate(ctx) {
				return a.reply(joinText(lead, a.say(identifyAgain, nil)), dialog.Ask{Kind: "identify_again"}), nil
			}
			lead = append(lead, a.say(authed, map[string]string{"first": a.first}))
			continue
		}
		if a.cur == nil {
			if len(a.queue) == 0 {
				if a.userDone {
					return a.reply(joinText(lead, a.say(closings, map[string]string{"first": a.first})), dialog.Ask{Kind: "closing"}), nil
				}
				if len(a.goals) == 0 {
					return a.reply(joinText(lead, a.say(askHelp, nil)), dialog.Ask{Kind: "help"}), nil
				}
				return a.reply(joinText(lead, a.say(askAnythingElse, nil)), dialog.Ask{Kind: "anything_else"}), nil
			}
			a.cur = a.goals[a.queue[0]]
			a.queue = a.queue[1:]
			if a.cur.instead && a.refused {
				// The customer's plan B, taken up without asking again.
				lead = append(lead, a.say(insteadLead, nil))
			}
		}
		t, said, fin := a.work(ctx, a.cur)
		if said != "" {
			lead = append(lead, said)
		}
		if fin {
			a.done = append(a.done, a.cur.idx)
			a.cur = nil
			continue
		}
		if t != nil {
			last := &t.Messages[len(t.Messages)-1]
			last.Content = joinText(lead, last.Content)
			return *t, nil
		}
	}
	return Turn{}, fmt.Errorf("agent made no progress in 64 steps")
}

func (a *Generic) absorb(act dialog.Act) {
	switch act.Type {
	case "identify":
		// What the customer gives now joins what they gave before: the
		// zip after the name.
		if a.identity == nil {
			a.identity = map[string]string{}
		}
		maps.Copy(a.identity, act.Identity)
	case "pushback":
		// The refusal stands: the policy does not bend to a plea, nor to
		// a second one or a call for a supervisor, each answered anew.
		a.refused, a.refusedGoal = true, act.Goal
		a.sorry = append(a.sorry, a.holdFirm(act.Goal))
	case "figure":
		if g := a.goals[act.Goal]; g != nil && g.propose {
			a.sorry = append(a.sorry, a.say(figureLead, nil))
		}
	case "request", "provide", "revise", "correct":
		g := a.goals[act.Goal]
		if g == nil {
			g = &ggoal{idx: act.Goal, slots: map[string]string{}, items: map[string][]record.Selector{}, news: map[string][]record.Selector{}}
			a.goals[act.Goal] = g
			a.queue = append(a.queue, act.Goal)
		}
		g.instead = g.instead || act.Instead
		if act.Intent != "" && g.intent != act.Intent {
			g.intent = act.Intent
			if f, ok := strings.CutPrefix(act.Intent, model.IntentInformPrefix); ok {
				g.field = f
			} else {
				tool, opts := model.ParseIntent(act.Intent)
				g.w, g.opts = a.m.Write(tool), opts
			}
		}
		if act.Target != nil {
			t := *act.Target
			g.target = &t
		}
		// What the customer names for an argument replaces what they
		// named before (a revision, or a repeated request).
		named := map[string]bool{}
		for _, it := range act.Items {
			if !named[it.Collection] {
				named[it.Collection] = true
				g.items[it.Collection] = nil
				delete(g.slots, it.Collection)
			}
			g.items[it.Collection] = append(g.items[it.Collection], it)
		}
		for _, it := range act.New {
			if !named[it.Collection] {
				named[it.Collection] = true
				g.news[it.Collection] = nil
			}
			g.news[it.Collection] = append(g.news[it.Collection], it)
		}
		for k, v := range act.Slots {
			g.slots[k] = v
			if !named[k] {
				delete(g.items, k)
			}
		}
		if act.Type == "revise" || act.Type == "correct" {
			g.propose, g.confirm, g.args = false, false, nil
		}
		if act.Type == "correct" {
			// The customer's correction is taken as said: the target is
			// found again and the arguments rebuilt from it.
			if act.Target != nil {
				g.resolved, g.key, g.obj = false, "", nil
			}
			a.sorry = append(a.sorry, a.say(correctionLead, nil))
		}
		if (act.Type == "request" || act.Type == "correct") && slices.Contains(a.done, act.Goal) {
			a.done = slices.DeleteFunc(a.done, func(d int) bool { return d == act.Goal })
			if !slices.Contains(a.queue, act.Goal) && (a.cur == nil || a.cur.idx != act.Goal) {
				a.queue = append(a.queue, act.Goal)
			}
		}
	case "digress":
		// The question it asked is asked again after this.
		if act.Intent == "agent" {
			a.sorry = append(a.sorry, a.say(steerBackSelf, nil))
			break
		}
		a.sorry = append(a.sorry, a.say(steerBack, nil))
	case "confirm":
		if g := a.goals[act.Goal]; g != nil && g.propose {
			g.confirm = true
		}
	case "done":
		a.userDone = true
	}
}

// holdFirm answers the customer's plea for an exception to a refusal of
// goal i by the plea's place in the exchange.
func (a *Generic) holdFirm(i int) string {
	if a.pleas == nil {
		a.pleas = map[int]int{}
	}
	a.pleas[i]++
	switch a.pleas[i] {
	case 1:
		return a.say(holdRefusal, nil)
	case 2:
		return a.say(holdRefusalAgain, nil)
	}
	return a.say(holdRefusalHigher, nil)
}

// identifyWords lists what the customer may identify with: "your user
// id", "your email or your first name, last name and zip".
func (a *Generic) identifyWords() string {
	var ways []string
	for _, im := range a.m.Users.Identify {
		var ws []string
		for _, p := range im.Params {
			ws = append(ws, model.Words(p))
		}
		ways = append(ways, "your "+model.JoinAnd(ws))
	}
	return strings.Join(ways, ", or ")
}

// missingIdentity names the details still missing when the customer gave
// part of one way of identifying and all of none ("your zip"); nil when
// some way is complete or none is begun.
func (a *Generic) missingIdentity() []string {
	var best []string
	given := 0
	for _, im := range a.m.Users.Identify {
		var missing []string
		n := 0
		for _, p := range im.Params {
			if _, ok := a.identity[p]; ok {
				n++
			} else {
				missing = append(missing, "your "+model.Words(p))
			}
		}
		if len(missing) == 0 {
			return nil
		}
		if n > given {
			best, given = missing, n
		}
	}
	return best
}

// authenticate calls the identify tool the customer's details fit.
func (a *Generic) authenticate(ctx context.Context) bool {
	id := a.identity
	a.identity = nil
	for _, im := range a.m.Users.Identify {
		args := map[string]any{}
		ok := true
		for _, p := range im.Params {
			v, has := id[p]
			if !has {
				ok = false
				break
			}
			args[p] = model.Typed(a.m.ParamSchema(im.Tool, p), v)
		}
		if !ok {
			continue
		}
		r := a.lookup(ctx, im.Tool, args)
		if !r.ok {
			return false
		}
		key := a.m.UserKeyOf(r.out)
		if key == "" {
			return false
		}
		a.userKey = key
		if obj, isObj := r.v.(map[string]any); isObj {
			a.first = a.firstName(obj)
		}
		return true
	}
	return false
}

func (a *Generic) firstName(user map[string]any) string {
	if len(a.m.Users.Name) == 0 {
		return ""
	}
	v, _ := model.ValueAt(user, a.m.Users.Name[0])
	s, _ := v.(string)
	if len(a.m.Users.Name) == 1 {
		s, _, _ = strings.Cut(s, " ")
	}
	return s
}

// user reads the customer's record.
func (a *Generic) user(ctx context.Context) map[string]any {
	u := a.m.Users
	if u == nil || u.Details == "" {
		return nil
	}
	v, ok := a.read(ctx, u.Details, a.m.DetailsArgs(a.userKey))
	obj, _ := v.(map[string]any)
	if !ok {
		return nil
	}
	if a.first == "" {
		a.first = a.firstName(obj)
	}
	return obj
}

func (a *Generic) askPiece(g *ggoal, piece string) *Turn {
	kind, name, _ := strings.Cut(piece, ":")
	var text string
	switch kind {
	case "target":
		if g.w != nil && g.w.TargetKind == model.TargetSearch {
			s := g.w.Search
			var ps, grid []string
			for _, p := range s.Params {
				ps = append(ps, model.Words(p))
			}
			for _, p := range s.Grid {
				grid = append(grid, model.Plural(model.Words(p)))
			}
			text = a.say(genericAskSearch, map[string]string{"noun": s.Noun, "a_noun": model.A(s.Noun), "params": model.JoinAnd(ps), "grid": strings.Join(grid, " or ")})
		} else {
			noun, key := "record", "id"
			bank := genericAskTarget
			if c := a.collOf(g); c != nil {
				noun, key = c.Noun, model.Words(c.Key)
				if c.List == nil {
					bank = genericAskTargetKey
				}
			}
			text = a.say(bank, map[string]string{"noun": noun, "key": key, "a_key": dialog.Capitalize(model.A(key))})
		}
	case "slot":
		text = a.askSlot(g, name)
		if say := a.reminderAbout(g, name); say != "" {
			// Told where the customer decides (whether to take travel
			// insurance, with what it costs), not after they have.
			text += " " + say
		}
	case "like":
		text = a.say(genericAskGroup, map[string]string{"what": model.Words(model.LastStep(name))})
	case "choice":
		p := g.w.Param(name)
		switch {
		case p != nil && p.Source == model.SrcPick:
			text = a.say(genericAskPick, map[string]string{"what": model.ArgWords(name)})
		case p != nil && p.Source == model.SrcChoose:
			noun := model.Singular(model.Words(model.LastStep(p.Choose.From)))
			tmpls := genericAskChoice
			if sameThing(noun, model.ArgWords(name)) {
				tmpls = genericAskChoiceSame
			}
			if g.rejected == name {
				tmpls = genericAskOther
			}
			text = a.say(tmpls, map[string]string{"noun": noun, "what": model.ArgWords(name)})
			if p.Choose.Default != "" && !p.Choose.Other {
				text += " " + a.say(defaultChoice, map[string]string{"default": p.Choose.DefaultSay})
			}
		default:
			noun := model.ArgWords(name)
			if p != nil {
				if prefix, _, ok := strings.Cut(p.Path, "."); ok {
					noun = model.Singular(model.Words(prefix))
				}
			}
			tmpls := genericAskChoice
			if sameThing(noun, model.ArgWords(name)) {
				tmpls = genericAskChoiceSame
			}
			text = a.say(tmpls, map[string]string{"noun": noun, "what": model.ArgWords(name)})
		}
	case "new":
		of := g.w.Param(name).Replace.Of
		newBank, what := genericAskNew, model.ArgWords(of)
		if len(g.items[of]) == 1 {
			newBank, what = genericAskNewOne, model.Singular(what)
		}
		text = a.say(newBank, map[string]string{"what": what})
		if g.unavailable != "" {
			text = a.say(unavailableNew, map[string]string{"label": g.unavailable}) + " " + text
			g.unavailable = ""
		}
	}
	t := a.reply(text, dialog.Ask{Kind: "piece", Goal: g.idx, Piece: piece})
	return &t
}

// offered reports whether the agent lists a slot's choices after its
// question: two to eight of them, each a value the tool's schema gives
// (model.SchemaGives). Values drawn from a pattern or free keys of an
// imported create are the customer's to say; listing them would claim
// knowledge the agent never read, so it asks an open question instead.
func offered(p *model.ParamModel) bool {
	if p == nil || len(p.Choices) < 2 || len(p.Choices) > 8 {
		return false
	}
	for _, c := range p.Choices {
		if !model.SchemaGives(p.Schema, c) {
			return false
		}
	}
	return true
}

// whether is the thing a two-valued slot's words offer when the other
// value is its absence ("travel insurance" beside "no travel insurance").
func whether(said []string) (string, bool) {
	if len(said) != 2 {
		return "", false
	}
	for i, s := range said {
		if said[1-i] == "no "+s || said[1-i] == "without "+s {
			return s, true
		}
	}
	return "", false
}

// askSlot asks for a value the customer states: as a count, among the
// pack's words for its choices, or by its name.
func (a *Generic) askSlot(g *ggoal, name string) string {
	p := g.w.Param(name)
	if what, lo, hi, ok := p.CountChoices(); ok {
		return a.say(genericAskCount, map[string]string{"what": what, "lo": lo, "hi": hi})
	}
	if said := saidChoices(p); said != nil {
		if opt, ok := whether(said); ok {
			return a.say(genericAskWhether, map[string]string{"opt": opt})
		}
		return a.say(genericAskSaid, map[string]string{"opts": model.JoinOr(said)})
	}
	opts := ""
	if offered(p) {
		var cs []string
		for _, c := range p.Choices {
			cs = append(cs, model.ValueWords(c))
		}
		opts = " " + a.say(slotOptions, map[string]string{"opts": model.JoinOr(cs)})
	}
	if g.rejected != name && strings.HasSuffix(model.ArgWords(name), "reason") {
		return a.askReason(g) + opts
	}
	asks := genericAskSlot
	if g.rejected == name {
		asks = genericAskOtherSlot
	}
	return a.say(asks, map[string]string{"what": model.ArgWords(name)}) + opts
}

// saidChoices are a slot's few choices in the pack's words, nil when
// the pack does not word every one.
func saidChoices(p *model.ParamModel) []string {
	if p == nil || len(p.Choices) == 0 || len(p.Choices) > 8 {
		return nil
	}
	out := make([]string, 0, len(p.Choices))
	for _, c := range p.Choices {
		w := model.SaySlot(p, c)
		if w == "" {
			return nil
		}
		out = append(out, w)
	}
	return out
}

func (a *Generic) collOf(g *ggoal) *model.CollModel {
	if g.target != nil {
		if c := a.m.Colls[g.target.Collection]; c != nil {
			return c
		}
	}
	if g.w != nil {
		return g.w.Coll
	}
	return nil
}

// needsTarget reports whether a goal names a record or a search result.
func (a *Generic) needsTarget(g *ggoal) bool {
	if g.w == nil {
		return true // a question is about something
	}
	return g.w.TargetKind == model.TargetColl || g.w.TargetKind == model.TargetSearch
}

// work advances one goal: ask what is missing, read what identifies the
// target, propose, execute. It returns a turn to send, or text to prepend
// and whether the goal is finished.
func (a *Generic) work(ctx context.Context, g *ggoal) (*Turn, string, bool) {
	if g.w == nil && g.field == "" {
		if a.m.Transfer != nil {
			if a.fire(FlawStopsEarly, g) {
				// Ends the conversation instead of handing it over.
				t := a.reply(a.say(closings, map[string]string{"first": a.first}), dialog.Ask{Kind: "closing"})
				return &t, "", false
			}
			// Out of scope: a human takes over.
			return a.transfer(ctx, g), "", false
		}
		return nil, "I'm sorry, that's not something I can do here.", true
	}
	if a.m.Transfer != nil && a.fire(FlawUnnecessaryTransfer, g) {
		return a.transfer(ctx, g), "", false
	}
	if a.needsTarget(g) {
		if g.target == nil {
			return a.askPiece(g, "target"), "", false
		}
		if !g.resolved {
			said, stop := a.resolve(ctx, g)
			if stop {
				return nil, said, true
			}
			g.resolved = true
			a.check(ctx, g)
			if g.w != nil {
				if _, v, ok := g.w.RefusedOnTarget(ctx, a.st, g.obj); ok {
					// The record alone decides it: refused now, before
					// the customer is asked for anything more.
					return nil, joinText([]string{said}, a.toolRefusal(g, v.Why)), true
				}
			}
			// A write with allow rules is refused by them, citing their
			// condition; its preconditions only narrow the tasks.
			if g.w != nil && len(g.w.Allows) == 0 && !g.w.Allowed(g.obj) {
				if a.fire(FlawSilentRefusal, g) {
					what := a.targetWords(g)
					if g.key != "" {
						what = g.w.TargetNoun() + " " + g.key
					}
					return nil, joinText([]string{said}, a.say(passOver, map[string]string{"what": what})), true
				}
				return nil, joinText([]string{said}, a.refusal(g)), true
			}
			if said != "" {
				return nil, said, false
			}
		}
	}
	if g.field != "" {
		return nil, a.answer(ctx, g), true
	}
	if g.args == nil {
		args, piece, msg := a.build(ctx, g)
		if piece != "" && a.assume(ctx, g, piece) {
			args, piece, msg = a.build(ctx, g)
		}
		if piece != "" {
			return a.askPiece(g, piece), "", false
		}
		if msg != "" {
			return nil, msg, true
		}
		if err := g.w.Compute(ctx, a.st, args, g.key); err != nil {
			// A computed argument the policy gives no value (no
			// compensation for this reservation) is a refusal when the
			// pack counts its reason as one.
			if why := model.RefusalReason(err.Error()); g.w.RefusedBy(why) {
				return nil, a.toolRefusal(g, why), true
			}
			return nil, "I'm sorry, I couldn't work out the " + model.ArgWords(computedName(g.w)) + " for this.", true
		}
		if ask, refusal, done := a.permit(ctx, g, args); ask != nil || done {
			return ask, refusal, done
		}
		if why := a.toolRefuses(ctx, g, args); why != "" {
			return nil, a.toolRefusal(g, why), true
		}
		if s := a.cannotPay(ctx, g, args); s.param != "" {
			// The customer's choice cannot pay: said with the figures,
			// and another asked for; never proposed, never called.
			delete(g.items, s.param)
			delete(g.slots, s.param)
			g.rejected, g.trial = s.param, nil
			t := a.askPiece(g, "choice:"+s.param)
			last := &t.Messages[len(t.Messages)-1]
			last.Content = s.text + " " + last.Content
			last.ReasoningContent = s.reasoning
			return t, "", false
		}
		g.args = args
		if a.wants(FlawMiscomputed, g) && a.miscompute(g) {
			a.fire(FlawMiscomputed, g)
		}
		if a.wants(FlawWrongArgument, g) && a.corrupt(g) {
			a.fire(FlawWrongArgument, g)
		}
		if a.wants(FlawNoOpWrite, g) && a.noOp(g) {
			a.fire(FlawNoOpWrite, g)
		}
	}
	if !g.confirm && !g.propose {
		a.hallucinate(g)
	}
	if !g.confirm && a.fire(FlawNoConfirmation, g) {
		return a.outcome(ctx, g)
	}
	if !g.confirm {
		g.propose = true
		text, stated := a.proposal(ctx, g)
		t := a.reply(text, dialog.Ask{Kind: "confirm", Goal: g.idx, Proposal: &dialog.Proposal{Tool: g.w.Name, Args: g.args, Stated: stated}})
		return &t, "", false
	}
	if a.fire(FlawStopsEarly, g) {
		t := a.reply(a.say(doneLead, nil)+" "+a.say(closings, map[string]string{"first": a.first}), dialog.Ask{Kind: "closing"})
		return &t, "", false
	}
	return a.outcome(ctx, g)
}

// outcome executes the goal's write and says how it went, or sends the
// transfer its failure's recovery made.
func (a *Generic) outcome(ctx context.Context, g *ggoal) (*Turn, string, bool) {
	said, handover, retry := a.execute(ctx, g)
	if handover != nil {
		return handover, "", false
	}
	return nil, said, !retry
}

// check makes the reads the policy needs on what the target points to
// (each flight's status), before the agent refuses or proposes anything
// on it.
func (a *Generic) check(ctx context.Context, g *ggoal) {
	if g.w == nil {
		return
	}
	calls := g.w.CheckCalls(g.obj)
	if len(calls) > 0 && a.fire(FlawUnchecked, g) {
		return
	}
	for _, c := range calls {
		a.read(ctx, c.Name, c.Arguments)
	}
}

// sameThing tells that a choice of noun for what is a choice of the noun
// alone, to be asked as "which payment method to use", never "… to use
// for the payment" or "… for the payment methods".
func sameThing(noun, what string) bool {
	return noun == what || strings.Contains(noun, what) || noun == model.Singular(what)
}

// failureWords is a tool failure's text as the agent relays it.
func failureWords(out string) string {
	why := strings.TrimSuffix(strings.TrimPrefix(out, "Error: "), ".")
	if head, rest, ok := strings.Cut(why, ": "); ok && rest != "" && len(strings.Fields(head)) <= 3 {
		// "Payment declined: the payment provider refused the charge":
		// the explanation says it all, and a sentence that already
		// says it failed reads badly with a second heading.
		why = rest
	}
	if lowered, ok := dialog.LowerLead(why); ok {
		why = lowered
	}
	return model.DatesInWords(why)
}

// failureTransfer is the recovery the policy prescribes for a failure
// the agent cannot work around (a declined payment, a sold-out flight):
// it apologises, says what happened, and hands the customer to a human
// with a summary.
func (a *Generic) failureTransfer(ctx context.Context, g *ggoal, kind, why string) *Turn {
	a.call(ctx, a.m.Transfer.Name, map[string]any{a.m.TransferParam: model.FailedHandover(a.userKey, g.intent, kind)}, "")
	msg := a.say(failedHandover, map[string]string{"why": why})
	if exact := a.m.TransferMessage(); exact != "" {
		msg += " " + exact
	}
	t := a.reply(msg, dialog.Ask{Kind: "transferred"})
	return &t
}

// transfer hands the customer to a human with a summary of the request.
func (a *Generic) transfer(ctx context.Context, g *ggoal) *Turn {
	what := strings.ReplaceAll(g.intent, "_", " ")
	if topic := g.slots["topic"]; topic != "" {
		what = topic
	}
	who := "The customer"
	if a.userKey != "" {
		who = "Customer " + a.userKey
	}
	a.call(ctx, a.m.Transfer.Name, map[string]any{a.m.TransferParam: who + " wants to " + what + "; this is outside what I can handle."}, "")
	msg := a.say(transferMsg, nil)
	if exact := a.m.TransferMessage(); exact != "" && !a.fire(FlawNoTransferMessage, g) {
		// The policy's words, as it prescribes them, after the apology.
		msg = a.say(transferSorry, nil) + " " + exact
	}
	t := a.reply(msg, dialog.Ask{Kind: "transferred"})
	return &t
}

// toolRefuses tries a write whose preconditions only its tool knows
// (w.Refusals) on a copy of the state, and gives the tool's reason when
// it refuses for one of them; "" when it would go through.
func (a *Generic) toolRefuses(ctx context.Context, g *ggoal, args map[string]any) string {
	if len(g.w.Refusals) == 0 {
		return ""
	}
	res, ok := a.tryWrite(ctx, g, args)
	if !ok || !res.Err || !g.w.RefusedBy(res.Output) {
		return ""
	}
	return model.RefusalReason(res.Output)
}

// toolRefusal refuses a request with the reason its tool gave.
func (a *Generic) toolRefusal(g *ggoal, why string) string {
	if g.assumed {
		// A piece assumed for a request the tool refuses changes
		// nothing: the flaw waits for a later goal.
		a.fired = false
	}
	noun := g.w.TargetNoun()
	if g.key != "" {
		noun += " " + g.key
	}
	if a.fire(FlawSilentRefusal, g) {
		// Nothing was refused in words: the customer is not told so.
		return a.say(passOver, map[string]string{"what": noun})
	}
	a.refused, a.refusedGoal = true, g.idx
	a.phraseOf(g)
	what := model.FillPhrase(g.phrase, noun, g.slots)
	why = model.DatesInWords(why)
	reason := why
	if lowered, ok := dialog.LowerLead(why); ok {
		reason = lowered
	}
	return a.say(toolRefuse, map[string]string{"what": what, "reason": reason})
}

// tryWrite runs a write on a fork of the state, once per set of
// arguments: the refusal check and the figures stated before the yes
// read the same trial.
func (a *Generic) tryWrite(ctx context.Context, g *ggoal, args map[string]any) (tools.Result, bool) {
	raw, err := tools.Marshal(args)
	if err != nil {
		return tools.Result{}, false
	}
	if g.trial == nil || g.trial.args != string(raw) {
		g.trial = &trial{args: string(raw), res: a.m.Kit.Exec(ctx, a.st.Fork(), g.w.Name, string(raw))}
	}
	return g.trial.res, true
}

// refusal explains why the policy forbids a write on this target.
func (a *Generic) refusal(g *ggoal) string {
	a.refused, a.refusedGoal = true, g.idx
	var why []string
	for _, f := range g.w.Unmet(g.obj) {
		v, _ := model.ValueAt(g.obj, f)
		var allowed []string
		for _, x := range g.w.When[f] {
			allowed = append(allowed, conditionWords(x))
		}
		if l, ok := v.([]any); ok {
			why = append(why, fmt.Sprintf("its %s are %s, and this is only possible when each is %s", pluralWords(f), valueWords(l), strings.Join(allowed, " or ")))
			continue
		}
		why = append(why, fmt.Sprintf("its %s is %s, and this is only possible when it is %s", model.Words(f), conditionWords(tools.Text(v)), strings.Join(allowed, " or ")))
	}
	noun := g.w.TargetNoun()
	if g.key != "" {
		noun += " " + g.key
	}
	a.phraseOf(g) // renders g.phrase once
	what := model.FillPhrase(g.phrase, noun, g.slots)
	return a.say(genericRefuse, map[string]string{"what": what, "target": noun, "why": strings.Join(why, "; ")})
}

// conditionWords says a value of a precondition as a person does: a
// code in words ("basic economy", not "basic_economy"), a comparison as
// one ("after 2024-05-15").
func conditionWords(x string) string {
	if w := model.ConditionWords(x); !strings.HasPrefix(w, "\"") {
		return w
	}
	if x == "" {
		return "unset"
	}
	return model.ValueWords(x)
}

// pluralWords names the values at a path through a list: flights.date →
// flight dates.
func pluralWords(path string) string {
	parent, leaf, ok := strings.Cut(path, ".")
	if !ok || strings.Contains(leaf, ".") {
		return model.Words(path)
	}
	leaf = model.Words(leaf)
	if strings.HasSuffix(leaf, "s") {
		leaf += "es"
	} else {
		leaf += "s"
	}
	return model.Singular(model.Words(parent)) + " " + leaf
}

// valueWords says a list's distinct values: "2024-05-01 and 2024-05-08".
func valueWords(l []any) string {
	var parts []string
	for _, x := range l {
		if t := tools.Text(x); !slices.Contains(parts, t) {
			parts = append(parts, t)
		}
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// resolve finds the target the customer named: by key, among their
// records by attributes, or by searching every combination they gave.
func (a *Generic) resolve(ctx context.Context, g *ggoal) (string, bool) {
	a.compared, a.chosen = "", nil
	sel := *g.target
	if s := a.m.Searches[sel.Collection]; s != nil {
		return a.resolveSearch(ctx, g, s, sel)
	}
	c := a.m.Colls[sel.Collection]
	if c == nil {
		return "I'm sorry, I can't look that up.", true
	}
	owned := c.Owner != "" && a.m.Users != nil
	if sel.ID != "" && c.Unread() {
		// No tool shows the record: the write itself finds out whether
		// the key and parents the customer gave name one.
		g.key, g.obj = c.KeyText(sel.ID), a.m.NamedRecord(c, sel.ID)
		return "", false
	}
	if sel.ID != "" {
		v, ok := a.read(ctx, c.Get, a.m.GetArgs(c, sel.ID))
		obj := a.m.RecordOf(c, sel.ID, v)
		if !ok || obj == nil {
			return fmt.Sprintf("I'm sorry, I couldn't find %s %s.", c.Noun, sel.ID), true
		}
		if owner := tools.Text(obj[c.Owner]); owned && owner != "" && owner != a.userKey {
			return fmt.Sprintf("I'm sorry, %s %s isn't on your account, so I can't act on it.", c.Noun, sel.ID), true
		}
		g.key, g.obj = sel.ID, obj
		return "", false
	}
	if c.List == nil {
		return fmt.Sprintf("I'm sorry, I can only look up a %s by its %s.", c.Noun, model.Words(c.Key)), true
	}
	// Every page: the customer's description is about all their records.
	l, ok := a.m.ReadList(c, a.m.ListArgs(c, a.userKey), func(args map[string]any) (any, bool) {
		return a.read(ctx, c.List.Tool, args)
	})
	if !ok {
		return "I'm sorry, I couldn't look up your " + model.Plural(c.Noun) + ".", true
	}
	keys, recs := l.Keys, l.Recs
	if recs == nil && len(keys) > 1 && a.fire(FlawGuessedTarget, g) {
		// Guesses the last one listed instead of reading them all.
		k := keys[len(keys)-1]
		v, ok := a.read(ctx, c.Get, a.m.GetArgs(c, k))
		obj := a.m.RecordOf(c, k, v)
		if !ok || obj == nil {
			return "I'm sorry, I couldn't find that " + c.Noun + ".", true
		}
		g.key, g.obj = k, obj
		return "", false
	}
	cands := recs
	if cands == nil {
		for _, k := range keys {
			v, ok := a.read(ctx, c.Get, a.m.GetArgs(c, k))
			obj := a.m.RecordOf(c, k, v)
			if ok && obj != nil {
				cands = append(cands, obj)
			}
		}
	}
	i, err := tools.ResolveKey(sel, cands, c.Key)
	if err != nil {
		return "I'm sorry, I couldn't single out " + yours(sel.Label) + ".", true
	}
	nearMissed := false
	if a.wants(FlawWrongTarget, g) {
		if j := nearMiss(cands, i, sel.Where); j >= 0 {
			a.fire(FlawWrongTarget, g)
			i, nearMissed = j, true
		}
	}
	g.key, g.obj = tools.Text(cands[i][c.Key]), cands[i]
	a.compared = comparison(a.rng, c.Noun, c.Say, sel, cands, i, c.Noun+" "+g.key)
	label := sel.Label
	if nearMissed {
		// The comparison's words are the selector's (the cheapest, the
		// only one), which the near miss is not: its own figures would
		// contradict them. The flawed pick goes unreasoned, and is told
		// by its own attributes, never by the customer's words, which
		// name another record.
		a.compared = ""
		label = "the " + c.Noun
	}
	a.chosen = cands[i]
	if c.List.By != "" {
		// The list gave its name and key; the record itself is read now.
		v, ok := a.read(ctx, c.Get, a.m.GetArgs(c, g.key))
		obj := a.m.RecordOf(c, g.key, v)
		if !ok || obj == nil {
			return fmt.Sprintf("I'm sorry, I couldn't find %s %s.", c.Noun, g.key), true
		}
		g.obj = obj
	}
	return a.sayFound(label, c, g.key, func() string { return a.describe(a.beyond(c, cands[i], label, g.field), cands[i]) }), false
}

func (a *Generic) resolveSearch(ctx context.Context, g *ggoal, s *model.SearchModel, sel record.Selector) (string, bool) {
	cands := a.searchAll(ctx, s, sel.Among)
	if sel.Back != nil {
		// A round trip: the way back is searched too, and the customer's
		// words pick among the pairs.
		cands = s.Pairs(cands, a.searchAll(ctx, s, sel.Back))
	}
	i, err := tools.ResolveKey(sel, cands, "")
	if err != nil {
		return "I'm sorry, I couldn't find " + sel.Label + ".", true
	}
	nearMissed := false
	if a.wants(FlawWrongTarget, g) {
		if j := nearMiss(cands, i, sel.Where); j >= 0 {
			a.fire(FlawWrongTarget, g)
			i, nearMissed = j, true
		}
	}
	g.obj = cands[i]
	a.compared = comparison(a.rng, s.Noun, s.Say, sel, cands, i, "the "+s.Noun+" "+a.summary(s, cands[i], true))
	if nearMissed {
		// The comparison's words are the selector's (the cheapest, the
		// only one), which the near miss is not: its own figures would
		// contradict them. The flawed pick goes unreasoned.
		a.compared = ""
	}
	a.chosen = cands[i]
	return a.say(genericFoundSearch, map[string]string{"one": s.Noun, "summary": a.summary(s, cands[i], false)}), false
}

// searchAll searches every combination of the customer's values and
// lists the candidates found.
func (a *Generic) searchAll(ctx context.Context, s *model.SearchModel, among map[string][]string) []map[string]any {
	var cands []map[string]any
	for _, combo := range s.Combinations(among) {
		for _, tool := range s.Tools {
			args := a.m.SearchArgs(tool, combo)
			out, ok := a.read(ctx, tool, args)
			if ok {
				cands = append(cands, s.ItemsOf(out, args)...)
			}
		}
	}
	return cands
}

// sayFound tells the customer which record the agent found, as they
// described it (label) with its key: by the customer's account only to
// a customer who has one.
func (a *Generic) sayFound(label string, c *model.CollModel, key string, describe func() string) string {
	told := c.Name + "\x00" + key
	if a.told[told] {
		// A record the customer and the agent have been through already
		// is named, not introduced again.
		what := c.Noun + " " + key
		if s := byName(c, key, a.chosen); s != "" {
			what = s
		}
		return a.say(foundAgain, map[string]string{"what": what})
	}
	a.told[told] = true
	detail := describe()
	what := yours(label) + ", " + c.Noun + " " + key
	if opaque(key) {
		// A UUID is no name to read aloud: the customer's own words
		// are; the proposal gives the key, which the yes is to.
		what = yours(label)
	}
	tmpls := found
	if a.m.Users != nil && a.rng.IntN(3) == 0 {
		tmpls = foundYours
	}
	text := a.say(tmpls, map[string]string{"what": what, "detail": detail})
	if head, ok := strings.CutSuffix(strings.TrimSpace(text), ":"); ok && detail == "" {
		// "I see your pending order, order #W1046662:" leads to nothing.
		return head + "."
	}
	if head, ok := strings.CutSuffix(text, ": "+detail); ok && strings.HasPrefix(detail, "It") {
		// After a colon the detail goes on the sentence: "reservation
		// S88A77: it's a reservation from LGA", not ": It's".
		return head + ": " + strings.ToLower(detail[:1]) + detail[1:]
	}
	return text
}

// byName names a record keyed by a UUID by what it is called, the key
// said once after the name ("the special event Silver Island
// (4daf…)"): a yes is to the key, a person knows the name. "" for a key
// a person says (#W2611340) or a record with no name.
func byName(c *model.CollModel, key string, obj map[string]any) string {
	name := recordName(c, obj)
	if !opaque(key) || name == "" || tools.Text(obj[c.Key]) != key {
		// Named only by the record the key is of.
		return ""
	}
	return "the " + c.Noun + " " + name + " (" + key + ")"
}

// recordName is what obj is called by among the fields its collection
// describes records by (its name, "Silver Island", never its location),
// "" when it has none.
func recordName(c *model.CollModel, obj map[string]any) string {
	for _, f := range c.Describe {
		if s, ok := obj[f].(string); ok && model.Calls(f) && strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// uuidLike is a key made for machines: eight hex digits, a hyphen, four.
var uuidLike = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-`)

// opaque reports whether a key is one no person says.
func opaque(key string) bool { return uuidLike.MatchString(key) }

// mostSaid bounds the attributes the agent says of a record it found:
// enough to tell it apart, not the whole record read out each time.
const mostSaid = 3

// beyond is c with only the attributes of obj the customer's words
// (label) did not already say, at most mostSaid of them: "your
// reservation from SFO" is not then told it is "from SFO". The field
// the customer asks about (asked) is left to the answer, which says it
// next.
func (a *Generic) beyond(c *model.CollModel, obj map[string]any, label, asked string) *model.CollModel {
	said := sameWords(label)
	keep := func(fields []string) []string {
		var out []string
		for _, f := range fields {
			v, ok := model.ValueAt(obj, f)
			if !ok || v == nil || f == asked {
				continue
			}
			if w := sameWords(model.ValueWords(tools.Text(v))); w != "" && strings.Contains(said, w) {
				continue
			}
			if p, ok := model.SaidAs(c, f, v); ok && strings.Contains(said, sameWords(p)) {
				// "your reservation with travel insurance" is not told
				// again that it has travel insurance.
				continue
			}
			out = append(out, f)
		}
		return out
	}
	describe, compare := keep(c.Describe), keep(c.Compare)
	for len(describe)+len(compare) > mostSaid {
		// Which ones go varies, so no record is described the same way
		// in every dialogue.
		i := a.rng.IntN(len(describe) + len(compare))
		if i < len(describe) {
			describe = slices.Delete(describe, i, i+1)
		} else {
			compare = slices.Delete(compare, i-len(describe), i-len(describe)+1)
		}
	}
	out := *c
	out.Describe, out.Compare = describe, compare
	return &out
}

// facts says a record's plain fields one by one, as a person states
// them: "Its price is $406.27." ("" when one of them is not plain).
func facts(c *model.CollModel, obj map[string]any) string {
	var parts []string
	for _, f := range slices.Concat(c.Describe, c.Compare) {
		v, ok := model.ValueAt(obj, f)
		if !ok || v == nil {
			continue
		}
		switch x := v.(type) {
		case map[string]any, []any, bool:
			return ""
		case string:
			if _, stamp := model.StampWords(x); stamp {
				return ""
			}
		}
		parts = append(parts, "its "+model.Words(model.LastStep(f))+" is "+model.AnswerValue(f, v))
	}
	if len(parts) == 0 {
		return ""
	}
	return dialog.Capitalize(model.JoinAnd(parts)) + "."
}

// sameWords is text as beyond compares it: "one-way" says "one way".
func sameWords(s string) string {
	return strings.ReplaceAll(strings.ToLower(s), "-", " ")
}

// describe states a record's attributes, in the pack's words.
func (a *Generic) describe(c *model.CollModel, obj map[string]any) string {
	d := model.Description(c, obj)
	if d == "" {
		return ""
	}
	if rest, ok := strings.CutPrefix(d, model.A(c.Noun)+", "); ok {
		// Nothing is left to say of it in the pack's words, only its
		// fields: "It's an order, created …" or "It's a special event,
		// price $406.27" tells nothing of what it is.
		if verb, _, _ := strings.Cut(rest, " "); model.Participle(verb) {
			return "It was " + rest + "."
		}
		if f := facts(c, obj); f != "" {
			return f
		}
	}
	return "It's " + d + "."
}

// summary says a search result where, when and by what the customer
// picks first, then (unless brief) the parts its lists hold: "from ORD
// to MCO on May 25, 2024 (price $300, duration 403 minutes, ...);
// flights SY325 on May 25, 2024 and SY220 on May 25, 2024". A search
// with a Detail says the rest in the pack's words, and brief, only what
// the candidate is and its legs.
func (a *Generic) summary(s *model.SearchModel, obj map[string]any, brief bool) string {
	switch {
	case s.Detail != "" && brief:
		if l := a.lists(obj); l != "" {
			return placeOf(s, obj) + " (" + strings.TrimPrefix(l, "; ") + ")"
		}
		return placeOf(s, obj)
	case s.Detail != "":
		return placeOf(s, obj) + ", " + model.DetailText(s.Detail, obj, a.m.Identifying())
	case brief:
		return model.ElementText(obj, a.m.Identifying(), s.Compare, s.Say)
	}
	return model.ElementText(obj, a.m.Identifying(), s.Compare, s.Say) + a.lists(obj)
}

// lists says the lists a candidate holds: "; flights SY325 on May 25,
// 2024 and SY220 on May 25, 2024".
func (a *Generic) lists(obj map[string]any) string {
	var text string
	for _, f := range slices.Sorted(maps.Keys(obj)) {
		list, ok := obj[f].([]any)
		if !ok {
			continue
		}
		els := make([]string, len(list))
		for i, e := range list {
			if m, ok := e.(map[string]any); ok {
				els[i] = model.ElementText(m, a.m.Identifying(), nil, nil)
			} else {
				els[i] = model.SayValue(f, e)
			}
		}
		text += "; " + model.Words(f) + " " + model.JoinAnd(els)
	}
	return text
}

// placeOf says what a candidate is and where it goes, for a search whose
// Detail tells the rest: the fields said with a preposition or the
// pack's words for the field, then the pack's words for the values of
// those the search describes ("from LGA to DFW in economy with no
// stops").
func placeOf(s *model.SearchModel, obj map[string]any) string {
	place := map[string]any{}
	var with []string
	for _, f := range slices.Sorted(maps.Keys(obj)) {
		_, worded := s.Say[f]
		switch {
		case model.HasPreposition(f) || worded && slices.Contains(s.Describe, f):
			place[f] = obj[f]
		case slices.Contains(s.Describe, f):
			if w, ok := s.Say[f+"="+tools.Text(obj[f])]; ok {
				with = append(with, w)
			}
		}
	}
	return strings.Join(append([]string{model.ElementText(place, nil, nil, s.Say)}, with...), " ")
}

func (a *Generic) answer(ctx context.Context, g *ggoal) string {
	if a.fire(FlawOmitsOutput, g) {
		a.hide = true
	}
	if a.hide {
		return "I've pulled that up for you; everything looks in order."
	}
	what := yours(g.target.Label)
	if c := a.m.Colls[g.target.Collection]; c != nil && g.key != "" {
		switch s := byName(c, g.key, g.obj); {
		case s != "" && strings.Contains(g.target.Label, g.key) && !model.Calls(g.field):
			// The customer gave the UUID: the answer names the record.
			what = s
		case !opaque(g.key):
			// A UUID is said in the customer's words.
			what = c.Noun + " " + g.key
		}
	}
	rec := g.obj
	if in := a.m.Inform(g.target.Collection, g.field); in != nil {
		if in.Within != "" {
			sels := g.items[in.Within]
			if len(sels) == 0 {
				return "I'm sorry, I'm not sure which one you mean."
			}
			cands := in.SubCandidates(g.obj)
			i, err := tools.ResolveKey(sels[0], cands, "")
			if err != nil {
				return "I'm sorry, I couldn't find " + yours(sels[0].Label) + "."
			}
			rec, what = cands[i], yours(sels[0].Label)
		}
		raw, _, err := in.Answer(rec)
		if err != nil {
			return "I'm sorry, I couldn't work out the " + model.Words(g.field) + "."
		}
		return fmt.Sprintf("The %s of %s is %s.", model.Words(g.field), what, model.AnswerValue(g.field, raw))
	}
	v, ok := model.ValueAt(rec, g.field)
	if !ok {
		return "I'm sorry, I couldn't find the " + model.Words(g.field) + "."
	}
	return model.AskAbout(a.m.Colls[g.target.Collection], g.field, v).Answer(what, g.field, v)
}

// build fills the write's arguments from the target, the customer's
// record and what the customer said; it names the piece still missing,
// or a message when the request cannot be carried out.
func (a *Generic) build(ctx context.Context, g *ggoal) (map[string]any, string, string) {
	args := map[string]any{}
	g.elems = map[string][]any{}
	picked := map[string][]map[string]any{}
	for _, p := range g.w.Included(g.opts) {
		switch p.Source {
		case model.SrcTargetKey:
			args[p.Name] = model.Typed(p.Schema, g.key)
		case model.SrcTarget:
			v, ok := p.TargetValue(g.obj)
			if !ok {
				return nil, "", "I'm sorry, I couldn't find the " + model.Words(p.Path) + " I need."
			}
			args[p.Name] = v
		case model.SrcUserKey:
			args[p.Name] = model.Typed(p.Schema, a.userKey)
		case model.SrcUser:
			u := a.user(ctx)
			if u == nil {
				return nil, "", "I'm sorry, I couldn't read your account."
			}
			g.user = u
			if elems, field := a.choices(p, u); elems != nil {
				sels := g.items[p.Name]
				if len(sels) == 0 {
					return nil, "choice:" + p.Name, ""
				}
				i, err := tools.ResolveKey(sels[0], elems, field)
				if err != nil {
					return nil, "", "I'm sorry, I couldn't find " + yours(sels[0].Label) + " on your account."
				}
				args[p.Name] = elems[i][field]
				continue
			}
			v, ok := model.ValueAt(u, p.Path)
			if !ok || v == nil {
				return nil, "", "I'm sorry, your account has no " + model.Words(p.Path) + "."
			}
			if l, isList := v.([]any); isList && model.ParamType(p.Schema) != "array" && len(l) == 1 {
				v = l[0]
			}
			args[p.Name] = v
		case model.SrcSlot:
			v, ok := g.slots[p.Name]
			if !ok {
				return nil, "slot:" + p.Name, ""
			}
			args[p.Name] = model.Typed(p.Schema, v)
		case model.SrcLike:
			v, ok := g.slots[p.Name]
			if !ok {
				return nil, "like:" + p.Group, ""
			}
			args[p.Name] = model.Typed(p.Schema, v)
		case model.SrcConst:
			args[p.Name] = p.Const
		case model.SrcPick:
			sels := g.items[p.Name]
			if len(sels) == 0 {
				return nil, "choice:" + p.Name, ""
			}
			owner, where := g.obj, "in "+a.targetWords(g)
			if p.Pick.User {
				if owner = a.user(ctx); owner == nil {
					return nil, "", "I'm sorry, I couldn't read your account."
				}
				g.user, where = owner, "on your account"
			}
			v, _ := model.ValueAt(owner, p.Pick.From)
			elems := model.Elements(v)
			var ids []any
			for _, sel := range sels {
				i, err := tools.ResolveKey(sel, elems, p.Pick.ID)
				if err != nil {
					return nil, "", "I'm sorry, I couldn't find " + yours(sel.Label) + " " + where + "."
				}
				ids = append(ids, p.Pick.Value(elems[i]))
				picked[p.Name] = append(picked[p.Name], elems[i])
			}
			args[p.Name] = ids
			g.elems[p.Name] = anyList(picked[p.Name])
		case model.SrcReplace:
			sels := g.news[p.Name]
			of := picked[p.Replace.Of]
			if len(sels) == 0 || len(sels) != len(of) {
				return nil, "new:" + p.Name, ""
			}
			var ids, chosen []any
			for k, e := range of {
				key := tools.Text(e[p.Replace.Via])
				v, ok := a.read(ctx, p.Replace.Coll.Get, a.m.GetArgs(p.Replace.Coll, key))
				rel := a.m.RecordOf(p.Replace.Coll, key, v)
				if !ok || rel == nil {
					return nil, "", fmt.Sprintf("I'm sorry, I couldn't look up %s %s.", p.Replace.Coll.Noun, key)
				}
				cands := p.Replace.Candidates(rel, e)
				i, err := tools.ResolveKey(sels[k], cands, p.Replace.ID)
				if _, uerr := tools.ResolveKey(sels[k], p.Replace.Unavailable(rel, e), p.Replace.ID); err != nil && uerr == nil {
					// A variant the record has but not available: never
					// proposed; the customer is asked for another.
					g.news[p.Name] = nil
					g.unavailable = sels[k].Label
					return nil, "new:" + p.Name, ""
				}
				if err != nil {
					return nil, "", "I'm sorry, " + sels[k].Label + " isn't available for that item."
				}
				ids = append(ids, cands[i][p.Replace.ID])
				chosen = append(chosen, cands[i])
			}
			args[p.Name] = ids
			g.elems[p.Name] = chosen
		case model.SrcChoose:
			ch := p.Choose
			if say, ok := g.slots[p.Name]; ok && say == ch.DefaultSay {
				def, ok := ch.DefaultValue(g.obj)
				if !ok {
					return nil, "", "I'm sorry, I couldn't find the " + model.ArgWords(p.Name) + " it was made with."
				}
				args[p.Name] = def
				continue
			}
			sels := g.items[p.Name]
			if len(sels) == 0 {
				return nil, "choice:" + p.Name, ""
			}
			u := a.user(ctx)
			if u == nil {
				return nil, "", "I'm sorry, I couldn't read your account."
			}
			g.user = u
			elems := ch.ChoiceElements(u)
			i, err := tools.ResolveKey(sels[0], elems, ch.ID)
			if err != nil {
				return nil, "", "I'm sorry, I couldn't find " + yours(sels[0].Label) + " on your account."
			}
			args[p.Name] = elems[i][ch.ID]
			g.elems[p.Name] = []any{elems[i]}
		}
	}
	return args, "", ""
}

func anyList(ms []map[string]any) []any {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}

func (a *Generic) choices(p *model.ParamModel, u map[string]any) ([]map[string]any, string) {
	if model.ParamType(p.Schema) == "array" {
		return nil, ""
	}
	return model.UserChoices(u, p.Path)
}

// targetWords is how the agent names the resolved target.
func (a *Generic) targetWords(g *ggoal) string {
	switch g.w.TargetKind {
	case model.TargetColl:
		key := tools.Text(g.args[g.w.KeyParam()])
		if s := byName(g.w.Coll, key, g.obj); s != "" {
			return s
		}
		return g.w.Coll.Noun + " " + key
	case model.TargetSearch:
		// The one just described, which the agent may have picked
		// itself: "the itinerary you chose" would put words in the
		// customer's mouth.
		return "that " + g.w.Search.Noun
	case model.TargetUser:
		return "your account"
	}
	return ""
}

// askReason asks why the customer wants the write, by its phrase where
// that names the write whole: a target said and no other slot in it.
func (a *Generic) askReason(g *ggoal) string {
	// The arguments are set at the proposal: the record singled out so
	// far (g.key) is what the phrase names.
	rest := strings.ReplaceAll(g.w.VerbPhrase(), "<target>", "")
	if g.w.TargetKind != model.TargetColl || g.key == "" || strings.Contains(rest, "<") {
		return a.say(genericAskReasonBare, nil)
	}
	a.renderPhrase(g)
	act := model.FillPhrase(g.phrase, g.w.Coll.Noun+" "+g.key, g.slots)
	return a.say(genericAskReason, map[string]string{"act": act})
}

// withoutMoney is a copied argument's elements without their amounts of
// money ("price": 194), the rest as they are.
func withoutMoney(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutMoney(e)
		}
		return out
	case map[string]any:
		out := maps.Clone(x)
		maps.DeleteFunc(out, func(k string, e any) bool {
			_, ok := model.Number(e)
			return ok && model.IsMoney(k)
		})
		return out
	}
	return v
}

// replacementText says the replacements of picked elements by the
// related record's words for each ("Brand A, professional, dark version
// (5937324630)"), the one the agent read to find it.
func (a *Generic) replacementText(g *ggoal, p *model.ParamModel, v any) string {
	if words := a.replacementWords(g, p, v); words != nil {
		return model.JoinAnd(words)
	}
	return a.argText(g, p, v)
}

// replacementWords is replacementText element by element; nil when the
// replacements cannot be matched with the picked elements.
func (a *Generic) replacementWords(g *ggoal, p *model.ParamModel, v any) []string {
	r := p.Replace
	ids, _ := v.([]any)
	of, _ := g.args[r.Of].([]any)
	pick := g.w.Param(r.Of)
	if len(ids) != len(of) || r.Say == "" || pick == nil || pick.Pick == nil {
		return nil
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = tools.Text(id)
		e, ok := pick.Pick.Element(g.user, g.obj, of[i])
		if !ok {
			continue
		}
		rel, _ := a.m.Base.Get(r.Coll.Name, tools.Text(e[r.Via]))
		relObj, _ := tools.ToObject(rel)
		for _, c := range r.Candidates(relObj, e) {
			if tools.Text(c[r.ID]) == parts[i] {
				parts[i] = model.FillSay(r.Say, c) + " (" + parts[i] + ")"
				break
			}
		}
	}
	return parts
}

// argText says an argument for the customer to check: in the pack's
// words where it has them ("your Visa ending in 4421
// (credit_card_7347912)", "Ana Lopez"), with every id verbatim, since
// the customer's yes is to exactly these values.
func (a *Generic) argText(g *ggoal, p *model.ParamModel, v any) string {
	if p != nil {
		// A choice the pack built an argument around is said as the
		// choice; the amounts in it are the write's figures.
		v = p.Chosen(v)
	}
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = a.argText(g, p, e)
		}
		return model.JoinAnd(parts)
	case map[string]any:
		if p != nil && p.Pick != nil {
			if w := p.Pick.Words(x); w != "" {
				return w
			}
		}
		return model.ElementText(x, a.m.Identifying(), nil, nil)
	case string:
		if p != nil && p.Pick != nil {
			// A picked item by its words and its id: "blue 1000ml water
			// bottle (8475032155)", not the id alone.
			if e, ok := p.Pick.Element(g.user, g.obj, x); ok {
				if w := p.Pick.Words(e); w != "" {
					return w + " (" + x + ")"
				}
			}
		}
		if p != nil && p.Choose != nil {
			if e, ok := p.Choose.Element(g.user, x); ok {
				if w := p.Choose.Words(e); w != "" {
					return yours(w) + " (" + x + ")"
				}
			}
		}
		if p != nil && (slices.Contains(p.Choices, x) || p.Source == model.SrcTarget && !strings.ContainsAny(x, "0123456789")) {
			// A code of the pack's ("basic_economy") is said as words.
			return model.ValueWords(x)
		}
		return x
	}
	return model.SlotText(v)
}

func (a *Generic) phraseOf(g *ggoal) string {
	a.renderPhrase(g)
	target := a.targetWords(g)
	if g.w.TargetKind == model.TargetColl && tools.Text(g.args[g.w.KeyParam()]) == "" {
		// No key names the record ("stage instance " and nothing).
		target = ""
	}
	return model.FillPhrase(g.phrase, target, g.slots)
}

// renderPhrase picks the words of the write's verb phrase once, so the
// questions before the proposal and the proposal say it alike.
func (a *Generic) renderPhrase(g *ggoal) {
	if g.phrase == "" {
		g.phrase = dialog.Render(a.rng, g.w.VerbPhrase(), map[string]string{})
		// Render capitalises a message's first letter; this is mid-sentence.
		if g.phrase != "" && g.phrase[0] >= 'A' && g.phrase[0] <= 'Z' && (len(g.phrase) < 2 || g.phrase[1] < 'A' || g.phrase[1] > 'Z') {
			g.phrase = strings.ToLower(g.phrase[:1]) + g.phrase[1:]
		}
	}
}

// remind says a policy reminder in a frame of its own: the rule's text
// is fixed (its phrases are what the verifier looks for), so said bare
// in every proposal it would be the corpus's most repeated sentence.
// reminderAbout is the text of a say rule of the goal's write about the
// slot name (its words are in the text: "insurance"), framed as a
// reminder, once a goal; "" when none is, or the flawed agent leaves it
// out.
func (a *Generic) reminderAbout(g *ggoal, name string) string {
	words := strings.ToLower(model.ArgWords(name))
	for _, r := range a.m.RulesFor(pack.RuleSay, g.w.Name) {
		if g.reminded[r.Name] || !strings.Contains(strings.ToLower(r.Text), words) {
			continue
		}
		if g.reminded == nil {
			g.reminded = map[string]bool{}
		}
		g.reminded[r.Name] = true
		if a.fire(FlawNoReminder, g) {
			return ""
		}
		return a.remind(r.Text)
	}
	return ""
}

func (a *Generic) remind(text string) string {
	if a.rng.IntN(len(reminderFrames)+1) == 0 {
		return text
	}
	frame := a.say(reminderFrames, nil)
	// A frame is itself the "please note".
	body := strings.TrimPrefix(strings.TrimPrefix(text, "Please note that "), "Note that ")
	lowered, ok := dialog.LowerLead(body)
	if !ok {
		// An id or an acronym keeps its case, and its sentence.
		return text
	}
	return frame + " " + lowered
}

// figures states what the write will do that the policy says to tell
// before the yes (a refund, a total, a price difference). The write is
// tried on a fork of the state, so the figure is the one the write will
// then give, computed as its outputs are after it runs.
func (a *Generic) figures(ctx context.Context, g *ggoal) (said, stated []string) {
	names := a.m.Disclosed(g.w.Name)
	if len(names) == 0 {
		return nil, nil
	}
	res, ok := a.tryWrite(ctx, g, g.args)
	if !ok || res.Err {
		return nil, nil
	}
	before := g.obj
	if g.w.TargetKind != model.TargetColl && g.w.TargetKind != model.TargetSearch {
		before = nil
	}
	outs, _ := a.m.OutputsOf(g.w, model.Scopes{Target: before, Result: model.ResultValue(res), User: g.user, Elems: g.elems})
	for _, o := range outs {
		if slices.Contains(names, o.Name) {
			said = append(said, a.sayFigure(g, false, o.Name, o.Raw, model.ResultValue(res)))
			stated = append(stated, o.Name)
		}
	}
	return said, stated
}

// execute makes the confirmed write and reports its outcome, or gives
// the transfer a failure's recovery makes instead (handover); retry is
// set when the tool rejected the customer's choice (a gift card short of
// the amount): that choice is forgotten, to be asked for again.
func (a *Generic) execute(ctx context.Context, g *ggoal) (said string, handover *Turn, retry bool) {
	name, args := a.mistake(g, g.w.Name, g.args)
	reason := a.writeReasoning(g, a.m.Write(name), args)
	before := g.obj
	if g.w.TargetKind != model.TargetColl && g.w.TargetKind != model.TargetSearch {
		before = nil
	}
	was := a.st.Hash()
	v, out, ok := a.call(ctx, name, args, reason)
	retried, other := "", ""
	if f := pack.FailureFor(a.m.Failures, name, out); !ok && f != nil {
		why := failureWords(out)
		switch {
		case f.Recovery == pack.RecoverRetry:
			retried = a.say(retriedLead, map[string]string{"why": why})
			v, out, ok = a.call(ctx, name, args, "The service answered \""+why+"\", a passing failure: the policy says to try the same call again once.")
		case f.Recovery == pack.RecoverTransfer && a.m.Transfer != nil:
			return "", a.failureTransfer(ctx, g, f.Kind, why), false
		case f.Recovery == pack.RecoverAlternative:
			other = f.Choice
		}
	}
	if ok || a.st.Hash() != was {
		a.forgetChanged(ctx)
	}
	if !ok {
		said := a.say(writeFailed, map[string]string{"why": failureWords(out)})
		c := other
		if c == "" {
			c = a.faultyChoice(g, out)
		}
		if c != "" && name == g.w.Name && reflect.DeepEqual(args, g.args) {
			delete(g.items, c)
			delete(g.slots, c)
			g.rejected = c
			g.args, g.propose, g.confirm, g.trial = nil, false, false, nil
			return said, nil, true
		}
		return said, nil, false
	}
	outs, _ := a.m.OutputsOf(g.w, model.Scopes{Target: before, Result: v, User: g.user, Elems: g.elems})
	if len(outs) > 0 && a.fire(FlawOmitsOutput, g) {
		a.hide = true
	}
	var report []string
	if !a.hide {
		for _, o := range outs {
			report = append(report, a.sayFigure(g, true, o.Name, o.Raw, v))
		}
	}
	if extra := a.extraWrite(ctx, g, reason); extra != "" {
		report = append(report, extra)
	}
	lead := a.say(doneLead, nil)
	if retried != "" {
		lead = retried
	}
	if len(report) == 0 {
		return lead, nil, false
	}
	return lead + " " + strings.Join(report, " "), nil, false
}

// faultyChoice is the argument a write's tool error puts down to the
// customer's choice among their things: the one whose value the error
// names, else the write's only such choice; failing those, a value the
// customer stated that the error names (a name another record has);
// "" when there is none.
func (a *Generic) faultyChoice(g *ggoal, toolErr string) string {
	var choices []string
	for _, p := range g.w.Params {
		if p.Source != model.SrcChoose {
			continue
		}
		if s := tools.Text(p.Chosen(g.args[p.Name])); s != "" && strings.Contains(toolErr, s) {
			return p.Name
		}
		choices = append(choices, p.Name)
	}
	if len(choices) == 1 {
		return choices[0]
	}
	for _, p := range g.w.Params {
		if p.Source != model.SrcSlot || g.w.GroupOf(p.Name) != "" {
			continue
		}
		if s, said := g.slots[p.Name]; said && model.NamedIn(toolErr, s) {
			return p.Name
		}
	}
	return ""
}

// computedName is the name of the write's first computed argument.
func computedName(w *model.WriteModel) string {
	for _, p := range w.Params {
		if p.Source == model.SrcCompute {
			return p.Name
		}
	}
	return "amount"
}
