package agent

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/synth-data/synth/model"
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
		a.fire(FlawUnauthenticated, nil)
		a.identity = nil
		a.userKey = v
		return true
	}
	// Guess the key from the email ("jane.doe1234@…" → jane_doe_1234),
	// when accounts are keyed that way, instead of looking it up.
	for _, v := range a.identity {
		if guess := guessKey(v); guess != "" {
			if _, ok := a.st.Get(a.m.Users.Coll.Name, guess); ok {
				a.fire(FlawUnauthenticated, nil)
				a.identity = nil
				a.userKey = guess
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
		obj, _ := v.(map[string]any)
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
			v, _ := model.ValueAt(g.obj, p.Pick.From)
			ids, _ := g.args[p.Name].([]any)
			for _, e := range model.Elements(v) {
				if id := e[p.Pick.ID]; len(ids) > 0 && !slices.ContainsFunc(ids, func(x any) bool { return tools.Text(x) == tools.Text(id) }) {
					out := slices.Clone(ids)
					out[0] = id
					return set(p.Name, out)
				}
			}
		case model.SrcChoose:
			if g.user == nil {
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
	kp := a.keyParam(g)
	if kp == "" || !a.wants(FlawHallucinatedID, g) {
		return
	}
	key := tools.Text(g.args[kp])
	for i := 0; i < 12; i++ {
		key = model.Misspell(key)
		if _, exists := a.st.Get(g.w.Coll.Name, key); !exists {
			a.fire(FlawHallucinatedID, g)
			g.args = maps.Clone(g.args)
			g.args[kp] = model.Typed(g.w.Param(kp).Schema, key)
			return
		}
	}
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
			delete(args, drop)
			return name, args
		}
	}
	return name, args
}

// wrongTool finds another write on the same kind of target and fills
// it from the arguments at hand — the same names first, then a value of
// the same type, or the first allowed one: the plausible confusion
// (closing a ticket instead of commenting on it).
func (a *Generic) wrongTool(g *ggoal, args map[string]any) (string, map[string]any) {
	for _, w := range a.m.Writes {
		if w.Name == g.w.Name || w.TargetKind != g.w.TargetKind || w.Coll != g.w.Coll || w.Search != g.w.Search {
			continue
		}
		wargs := map[string]any{}
		ok := true
		for _, r := range model.RequiredParams(w.Tool) {
			if v, has := args[r]; has {
				wargs[r] = v
				continue
			}
			p := w.Param(r)
			if p == nil {
				ok = false
				break
			}
			switch {
			case len(p.Choices) > 0:
				wargs[r] = model.Typed(p.Schema, p.Choices[0])
			case p.Source == model.SrcUserKey:
				wargs[r] = model.Typed(p.Schema, a.userKey)
			default:
				for _, k := range slices.Sorted(maps.Keys(args)) {
					if k != a.keyParam(g) && sameType(args[k], model.ParamType(p.Schema)) {
						wargs[r] = args[k]
						break
					}
				}
			}
			if _, has := wargs[r]; !has {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		if _, _, err := a.m.Kit.ParseArgs(w.Name, mustJSON(wargs)); err != nil {
			continue
		}
		return w.Name, wargs
	}
	return "", nil
}

func sameType(v any, t string) bool {
	switch v.(type) {
	case string:
		return t == "string"
	case bool:
		return t == "boolean"
	case int64, int:
		return t == "integer" || t == "number"
	case float64:
		return t == "number"
	}
	return false
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
