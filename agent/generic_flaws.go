package agent

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// The failure taxonomy on any pack: the flawed agent behaves exactly like
// the generic oracle until its flaw fires at the first opportunity, so
// its dialogue diverges at the decision that matters. A flaw without an
// opportunity (no transfer tool, no record named by key, no users) does
// not fire, and the DPO stage tries another.

func (a *Generic) fire(kind string, g *ggoal) bool {
	if !a.wants(kind, g) {
		return false
	}
	a.fired = true
	return true
}

func (a *Generic) wants(kind string, g *ggoal) bool {
	return a.flaw != nil && !a.fired && a.flaw.Kind == kind && (g == nil || g.idx >= a.flaw.Goal)
}

// skipAuth is the unauthenticated flaw: take the customer's word for
// their key, or trust the owner of the record they named, instead of
// calling the identify tool.
func (a *Generic) skipAuth(ctx context.Context) bool {
	if !a.wants(FlawUnauthenticated, nil) {
		return false
	}
	key := a.m.Users.Coll.Key
	if v := a.identity[key]; v != "" {
		if slices.ContainsFunc(a.m.Users.Identify, func(im model.IdentifyModel) bool { return slices.Equal(im.Params, []string{key}) }) {
			// The key alone identifies the customer (airline's user
			// id): once they have said it, no call can skip that.
			return false
		}
		a.fire(FlawUnauthenticated, nil)
		a.identity = nil
		a.userKey = v
		return true
	}
	// Guess the key from the email ("jane.doe1234@…" → jane_doe_1234),
	// when accounts are keyed that way, and open the account by it where
	// the oracle looks the email up: the mistake is that call, made at
	// once, not a read after the customer's next turn, past the pair's cut.
	for _, v := range a.identity {
		if guess := guessKey(v); guess != "" {
			if _, ok := a.st.Get(a.m.Users.Coll.Name, guess); ok {
				a.fire(FlawUnauthenticated, nil)
				a.identity = nil
				a.userKey = guess
				a.user(ctx)
				return true
			}
		}
	}
	for _, i := range a.queue {
		g := a.goals[i]
		if g.target == nil || g.target.ID == "" {
			continue
		}
		c := a.m.Colls[g.target.Collection]
		if c == nil || c.Owner == "" || c.Get == "" {
			continue
		}
		v, ok := a.read(ctx, c.Get, a.m.GetArgs(c, g.target.ID))
		obj := a.m.RecordOf(c, g.target.ID, v)
		if ok && obj != nil && tools.Text(obj[c.Owner]) != "" {
			a.fire(FlawUnauthenticated, nil)
			a.userKey = tools.Text(obj[c.Owner])
			return true
		}
	}
	return false
}

// corrupt is the wrong_argument flaw: one argument the customer chose
// gets another plausible value: another item of the order, another of
// their payment methods, a digit off in an address, another reason.
func (a *Generic) corrupt(g *ggoal) bool {
	set := func(name string, v any) bool {
		g.args = maps.Clone(g.args)
		g.args[name] = v
		return true
	}
	for _, p := range g.w.Included(g.opts) {
		switch p.Source {
		case model.SrcPick:
			owner := g.obj
			if p.Pick.User {
				owner = g.user
			}
			v, _ := model.ValueAt(owner, p.Pick.From)
			ids, _ := g.args[p.Name].([]any)
			for _, e := range model.Elements(v) {
				if id := p.Pick.Value(e); len(ids) > 0 && !slices.ContainsFunc(ids, func(x any) bool { return p.Pick.Same(x, id) }) {
					out := slices.Clone(ids)
					out[0] = id
					return set(p.Name, out)
				}
			}
		case model.SrcChoose:
			if g.user == nil || p.Compute != nil {
				// A choice the pack's function builds the argument
				// around would need it again: another argument errs.
				continue
			}
			for _, e := range p.Choose.ChoiceElements(g.user) {
				if id := e[p.Choose.ID]; p.Choose.Allowed(e) && tools.Text(id) != tools.Text(g.args[p.Name]) {
					return set(p.Name, id)
				}
			}
		case model.SrcLike:
			if s, ok := g.args[p.Name].(string); ok && strings.ContainsAny(s, "0123456789") {
				return set(p.Name, model.Misspell(s))
			}
		}
	}
	for _, p := range g.w.Included(g.opts) {
		switch p.Source {
		case model.SrcSlot:
			cur := model.SlotText(g.args[p.Name])
			if len(p.Choices) > 1 {
				for _, c := range p.Choices {
					if c != cur {
						g.args = maps.Clone(g.args)
						g.args[p.Name] = model.Typed(p.Schema, c)
						return true
					}
				}
			}
			switch x := g.args[p.Name].(type) {
			case int64:
				g.args = maps.Clone(g.args)
				g.args[p.Name] = x + 1
				return true
			case float64:
				g.args = maps.Clone(g.args)
				g.args[p.Name] = x + 1
				return true
			case string:
				if len(p.Choices) == 0 && model.ParamType(p.Schema) == "string" && p.Schema["format"] == nil {
					g.args = maps.Clone(g.args)
					g.args[p.Name] = x + " (urgent)"
					return true
				}
			}
		}
	}
	return false
}

// hallucinate is the hallucinated_id flaw: before proposing, the agent
// states and uses a key no tool returned (one that names no record).
func (a *Generic) hallucinate(g *ggoal) {
	kp := g.w.KeyParam()
	if kp == "" || !a.wants(FlawHallucinatedID, g) {
		return
	}
	for _, key := range misspellings(tools.Text(g.args[kp])) {
		if _, exists := a.st.Get(g.w.Coll.Name, key); !exists {
			a.fire(FlawHallucinatedID, g)
			g.args = maps.Clone(g.args)
			g.args[kp] = model.Typed(g.w.Param(kp).Schema, key)
			return
		}
	}
}

// misspellings are the keys a slip of memory makes of key: model.Misspell
// again and again, then each digit moved by three from the last one up,
// so a collection whose keys fill every last digit (T00180 to T00189)
// still has a key that names no record.
func misspellings(key string) []string {
	var out []string
	add := func(k string) bool {
		if k == key || slices.Contains(out, k) {
			return false
		}
		out = append(out, k)
		return true
	}
	for k, i := model.Misspell(key), 0; i < 12 && add(k); i++ {
		k = model.Misspell(k)
	}
	b := []byte(key)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] >= '0' && b[i] <= '9' {
			c := slices.Clone(b)
			c[i] = '0' + (c[i]-'0'+3)%10
			add(string(c))
		}
	}
	return out
}

// mistake applies the write-time flaws to a call about to be made.
func (a *Generic) mistake(g *ggoal, name string, args map[string]any) (string, map[string]any) {
	if a.wants(FlawWrongTool, g) {
		if wrong, wargs := a.wrongTool(g, args); wrong != "" {
			a.fire(FlawWrongTool, g)
			return wrong, wargs
		}
	}
	if a.wants(FlawSchemaInvalid, g) {
		t, _ := a.m.Kit.Tool(name)
		req := model.RequiredParams(t)
		if len(req) > 0 {
			a.fire(FlawSchemaInvalid, g)
			args = maps.Clone(args)
			drop := req[len(req)-1]
			if v, ok := args[drop].(string); ok && model.ParamType(g.w.Param(drop).Schema) == "string" && len(req) == 1 {
				// A number where the schema wants a string.
				if n, err := strconv.Atoi(v); err == nil {
					args[drop] = n
					return name, args
				}
			}
			v := args[drop]
			delete(args, drop)
			if camel := camelCase(drop); camel != drop && v != nil {
				// The slip a model makes between naming conventions keeps
				// the value, under a name the schema does not know.
				args[camel] = v
			}
			return name, args
		}
	}
	return name, args
}

// wrongTool finds the write a model would take for the right one: on
// the same kind of target, every required argument at hand under the
// same name (or one of its allowed values, or the customer's key), and
// of those the one sharing the most words of its name and arguments
// with the right tool (a return for an exchange of the same items, a
// cancellation for a change of the order). A tool that needs arguments
// the customer never gave is not a confusion a model makes: filling a
// street address with a cancellation reason is noise, not a mistake.
func (a *Generic) wrongTool(g *ggoal, args map[string]any) (string, map[string]any) {
	best, bestScore := "", 0
	var bestArgs map[string]any
	for _, w := range a.m.Writes {
		if w.Name == g.w.Name || w.TargetKind != g.w.TargetKind || w.Coll != g.w.Coll || w.Search != g.w.Search {
			continue
		}
		wargs, ok := a.confusedArgs(w, args)
		if !ok {
			continue
		}
		if _, _, err := a.m.Kit.ParseArgs(w.Name, mustJSON(wargs)); err != nil {
			continue
		}
		if score := likeness(g.w, w); score > bestScore {
			best, bestScore, bestArgs = w.Name, score, wargs
		}
	}
	return best, bestArgs
}

// confusedArgs fills w's required arguments from the right call's.
func (a *Generic) confusedArgs(w *model.WriteModel, args map[string]any) (map[string]any, bool) {
	wargs := map[string]any{}
	for _, r := range model.RequiredParams(w.Tool) {
		if v, has := args[r]; has {
			wargs[r] = v
			continue
		}
		p := w.Param(r)
		switch {
		case p == nil:
			return nil, false
		case len(p.Choices) > 0:
			wargs[r] = model.Typed(p.Schema, p.Choices[0])
		case p.Source == model.SrcUserKey:
			wargs[r] = model.Typed(p.Schema, a.userKey)
		default:
			return nil, false
		}
	}
	return wargs, true
}

// likeness counts the words two writes share in their names and
// argument names: how easily one is taken for the other.
func likeness(x, y *model.WriteModel) int {
	words := func(w *model.WriteModel) map[string]bool {
		out := map[string]bool{}
		for _, s := range append([]string{w.Name}, model.RequiredParams(w.Tool)...) {
			for _, f := range strings.Fields(model.Words(s)) {
				out[f] = true
			}
		}
		return out
	}
	wx, wy := words(x), words(y)
	n := 0
	for f := range wx {
		if wy[f] {
			n++
		}
	}
	return n
}

// camelCase is a snake_case name as camelCase: payment_method_id →
// paymentMethodId.
func camelCase(name string) string {
	parts := strings.Split(name, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

func mustJSON(v any) string {
	raw, err := tools.Marshal(v)
	if err != nil {
		return "{}"
	}
	return string(raw)
}

// guessKey derives an account key from an email the way many stores key
// accounts: the local part with dots as underscores and its trailing
// digits split off.
func guessKey(email string) string {
	local, _, ok := strings.Cut(email, "@")
	if !ok {
		return ""
	}
	i := len(local)
	for i > 0 && local[i-1] >= '0' && local[i-1] <= '9' {
		i--
	}
	if i == len(local) || i == 0 {
		return ""
	}
	return strings.ReplaceAll(local[:i], ".", "_") + "_" + local[i:]
}

// assume is the assumed_argument flaw: instead of asking the customer for
// an argument the policy says must come from them (a pack's from_customer
// rule: the cancellation reason, the passengers), the agent fills it in
// itself: the first of the slot's choices, or every sub-record a pick
// chooses among (all the saved passengers, every item of the order).
func (a *Generic) assume(ctx context.Context, g *ggoal, piece string) bool {
	if !a.wants(FlawAssumedArgument, g) || g.w == nil {
		return false
	}
	kind, name, _ := strings.Cut(piece, ":")
	if !slices.ContainsFunc(a.m.RulesFor(pack.RuleFromCustomer, g.w.Name), func(r pack.Rule) bool {
		return slices.ContainsFunc(r.Args, func(path string) bool { return strings.Split(path, ".")[0] == name })
	}) {
		return false
	}
	p := g.w.Param(name)
	switch {
	case p == nil:
		return false
	case kind == "slot" && p.Source == model.SrcSlot && len(p.Choices) > 0:
		g.slots[name] = p.Choices[0]
	case kind == "choice" && p.Source == model.SrcPick:
		owner := g.obj
		if p.Pick.User {
			owner = a.user(ctx)
		}
		if owner == nil {
			return false
		}
		v, _ := model.ValueAt(owner, p.Pick.From)
		elems := model.Elements(v)
		var sels []record.Selector
		for i := range elems {
			sel, err := model.ElementSelector(name, elems, i, p.Pick.ID, p.Pick.Describe, p.Pick.Say, p.Pick.Bare)
			if err != nil {
				return false
			}
			sels = append(sels, sel)
		}
		if len(sels) == 0 {
			return false
		}
		g.items[name] = sels
	default:
		return false
	}
	g.assumed = a.fire(FlawAssumedArgument, g)
	return g.assumed
}

// noOp is the no_op_write flaw: a slot the customer set to a new value
// (a cabin, a number of bags) gets the value the target already has, or
// a new address the one it has, so the write would change nothing there.
func (a *Generic) noOp(g *ggoal) bool {
	if g.obj == nil {
		return false
	}
	for _, p := range g.w.Included(g.opts) {
		if p.Source == model.SrcLike {
			if a.noOpGroup(g, p.Group) {
				return true
			}
			continue
		}
		if p.Source != model.SrcSlot {
			continue
		}
		cur, ok := g.obj[p.Name]
		if !ok || cur == nil || model.SlotText(cur) == model.SlotText(g.args[p.Name]) {
			continue
		}
		if _, isObj := cur.(map[string]any); isObj {
			continue
		}
		g.args = maps.Clone(g.args)
		g.args[p.Name] = model.Typed(p.Schema, model.SlotText(cur))
		return true
	}
	return false
}

// noOpGroup sets the arguments drawn together from another record (an
// address) to the target's own values there.
func (a *Generic) noOpGroup(g *ggoal, group string) bool {
	_, path, _ := strings.Cut(group, ".")
	v, _ := model.ValueAt(g.obj, path)
	cur, ok := v.(map[string]any)
	if !ok {
		return false
	}
	args := maps.Clone(g.args)
	changed := false
	for _, p := range g.w.Included(g.opts) {
		if p.Source != model.SrcLike || p.Group != group {
			continue
		}
		x, ok := cur[p.Path]
		if !ok {
			return false
		}
		old := model.SlotText(args[p.Name])
		args[p.Name] = model.Typed(p.Schema, model.SlotText(x))
		changed = changed || old != model.SlotText(x)
	}
	if !changed {
		return false
	}
	g.args = args
	return true
}

// extraWrite is the unrequested_write flaw: having done what the customer
// asked, the agent does the same to another of their records that the
// write accepts, unasked and on the same yes.
func (a *Generic) extraWrite(ctx context.Context, g *ggoal, reason string) string {
	if !a.wants(FlawUnrequestedWrite, g) || g.w.TargetKind != model.TargetColl || g.key == "" {
		return ""
	}
	c := g.w.Coll
	keyParam := g.w.KeyParam()
	if c.List == nil || c.Get == "" || keyParam == "" || a.userKey == "" {
		return ""
	}
	l, ok := a.m.ReadList(c, a.m.ListArgs(c, a.userKey), func(args map[string]any) (any, bool) {
		return a.read(ctx, c.List.Tool, args)
	})
	if !ok {
		return ""
	}
	keys, recs := l.Keys, l.Recs
	for i, k := range keys {
		if k == g.key {
			continue
		}
		var obj map[string]any
		if recs != nil {
			obj = recs[i]
		} else {
			v, _ := a.read(ctx, c.Get, a.m.GetArgs(c, k))
			obj = a.m.RecordOf(c, k, v)
		}
		if obj == nil || !g.w.Allowed(obj) {
			continue
		}
		args := maps.Clone(g.args)
		args[keyParam] = k
		a.fire(FlawUnrequestedWrite, g)
		if _, _, ok := a.call(ctx, g.w.Name, args, reason); !ok {
			return ""
		}
		return "I've done the same for " + c.Noun + " " + k + " too."
	}
	return ""
}

// miscompute is the miscomputed flaw: a computed argument one step of
// its schema off what the policy sets (the next certificate amount), as
// an agent that guessed the amount or took the wrong rate would pass;
// only an argument a computed rule holds, so the mistake is the rule's.
func (a *Generic) miscompute(g *ggoal) bool {
	ruled := map[string]bool{}
	for _, r := range a.m.RulesFor(pack.RuleComputed, g.w.Name) {
		for _, name := range r.Args {
			ruled[name] = true
		}
	}
	for _, p := range g.w.Params {
		if p.Source != model.SrcCompute || !ruled[p.Name] {
			continue
		}
		v, ok := numberOf(g.args[p.Name])
		if !ok {
			continue
		}
		step := 1.0
		if s, ok := numberOf(p.Schema["multipleOf"]); ok && s > 0 {
			step = s
		}
		wrong := v + step
		if hi, ok := numberOf(p.Schema["maximum"]); ok && wrong > hi {
			wrong = v - step
		}
		if lo, ok := numberOf(p.Schema["minimum"]); ok && wrong < lo {
			continue
		}
		args := maps.Clone(g.args)
		args[p.Name] = model.Typed(p.Schema, tools.Text(wrong))
		g.args = args
		return true
	}
	return false
}

// numberOf reads a number of any JSON-ish type (a handler's int64, a
// schema's float64).
func numberOf(v any) (float64, bool) {
	if v == nil {
		return 0, false
	}
	f, err := strconv.ParseFloat(tools.Text(v), 64)
	return f, err == nil
}
