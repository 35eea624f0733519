package agent

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/tools"
)

// A choice among the customer's own things that cannot pay (a gift card
// short of the amount) is found before the proposal, on a fork of the
// state, and never proposed: the policy says such a method may not be
// used, and a proposal the agent knows will fail teaches an agent to
// ask for a yes it cannot honour. What the agent knows of the amount is
// what the write would move: the figure the policy names, or else the
// money entry the write would make on another of the customer's things.

// shortfall is what the agent tells the customer instead of proposing a
// write whose choice (param) the tool would reject, and the reasoning
// of that turn; param is "" when the write's failure is not down to the
// choice (no other of the customer's things makes it go through), and
// the write is then tried on the yes and its error relayed.
type shortfall struct {
	param, text, reasoning string
}

// cannotPay tries the write's arguments on a fork and, when the tool
// rejects them for a reason that is no refusal, looks for the customer's
// choice to blame: the choose argument with which another of the
// customer's things makes the same write go through.
func (a *Generic) cannotPay(ctx context.Context, g *ggoal, args map[string]any) shortfall {
	var chooses []*model.ParamModel
	for _, p := range g.w.Params {
		if p.Source == model.SrcChoose && args[p.Name] != nil {
			chooses = append(chooses, p)
		}
	}
	if len(chooses) == 0 || g.user == nil {
		return shortfall{}
	}
	res, ok := a.tryWrite(ctx, g, args)
	if !ok || !res.Err || g.w.RefusedBy(res.Output) {
		return shortfall{}
	}
	for _, p := range chooses {
		mine, ok := p.Choose.Element(g.user, p.Chosen(args[p.Name]))
		if !ok {
			continue
		}
		for _, alt := range p.Choose.ChoiceElements(g.user) {
			if !p.Choose.Allowed(alt) || reflect.DeepEqual(alt, mine) {
				continue
			}
			other := maps.Clone(args)
			other[p.Name] = alt[p.Choose.ID]
			if g.w.Compute(ctx, a.st, other, g.key) != nil {
				continue
			}
			raw, err := tools.Marshal(other)
			if err != nil {
				continue
			}
			ok := a.m.Kit.Exec(ctx, a.st.Fork(), g.w.Name, string(raw))
			if ok.Err {
				continue
			}
			return a.shortfallOf(g, p, mine, res.Output, other, ok)
		}
	}
	return shortfall{}
}

// shortfallOf words a choice that cannot pay, with the amount the write
// would move as the fork with another choice (other, went) shows it.
func (a *Generic) shortfallOf(g *ggoal, p *model.ParamModel, mine map[string]any, toolErr string, other map[string]any, went tools.Result) shortfall {
	what, amount, raw := a.amountDue(g, other, went)
	choice := a.choiceWords(g, p, mine[p.Choose.ID])
	noun := model.Singular(model.Words(model.LastStep(p.Choose.From)))
	balField, balance := soleNumber(mine)
	why := strings.TrimSuffix(strings.TrimPrefix(toolErr, "Error: "), ".")
	var text, reasoning string
	switch {
	case amount != "" && balField != "":
		bal := model.SayValue(balField, balance)
		text = a.say(choiceShort, map[string]string{"choice": choice, "balance": bal, "what": what, "amount": amount})
		// Reasoned from the balance on the customer's record and the
		// amount due, as the proposal's figures are, never from the
		// tool's error: that answer came to a trial on a fork, not to
		// the agent, who has called nothing yet.
		reasoning = "The " + model.Words(balField) + " of " + tools.Text(mine[p.Choose.ID]) + " is " + bal + ", less than the " + what + " of " + amount +
			" this write would charge to it, so it cannot pay: I must not propose it, and ask the customer for another " + noun + "."
		if b, ok := model.Number(balance); ok && raw >= 0 && b >= raw {
			// The balance covers the amount, so something else is short:
			// say the tool's reason, not a comparison that does not hold.
			text, reasoning = "", ""
		}
	case amount != "":
		reasoning = "A trial of this write with " + tools.Text(mine[p.Choose.ID]) + " fails (" + why + ") while another " + noun + " of the customer's goes through, for a " + what + " of " + amount +
			": I must not propose it, and ask the customer for another " + noun + "."
	}
	if text == "" {
		lowered := why
		if l, ok := dialog.LowerLead(why); ok {
			lowered = l
		}
		text = a.say(choiceUnusable, map[string]string{"choice": choice, "why": model.DatesInWords(lowered)})
		if amount != "" {
			text += " " + a.say(figureWillBe, map[string]string{"what": what, "value": amount})
		} else {
			reasoning = "A trial of this write with " + tools.Text(mine[p.Choose.ID]) + " fails (" + why + ") while another " + noun + " of the customer's goes through: I must not propose it, and ask the customer for another " + noun + "."
		}
	}
	return shortfall{param: p.Name, text: text, reasoning: reasoning}
}

// amountDue is the money the write would move, from a fork that went
// through: the first figure the policy names for it, else the entry the
// write adds that names the choice (a payment of the order total), as
// its name in words and said; raw is the number.
func (a *Generic) amountDue(g *ggoal, args map[string]any, went tools.Result) (what, said string, raw float64) {
	after := model.ResultValue(went)
	if names := a.m.Disclosed(g.w.Name); len(names) > 0 {
		elems := maps.Clone(g.elems)
		if elems == nil {
			elems = map[string][]any{}
		}
		for _, p := range g.w.Params {
			if p.Source == model.SrcChoose {
				if e, ok := p.Choose.Element(g.user, p.Chosen(args[p.Name])); ok {
					elems[p.Name] = []any{e}
				}
			}
		}
		outs, _ := a.m.OutputsOf(g.w, model.Scopes{Target: a.before(g), Result: after, User: g.user, Elems: elems})
		for _, o := range outs {
			if slices.Contains(names, o.Name) {
				n, _ := model.Number(o.Raw)
				return model.Words(o.Name), model.SayValue(o.Name, o.Raw), n
			}
		}
	}
	for _, p := range g.w.Params {
		if p.Source != model.SrcChoose {
			continue
		}
		if e := model.MoneyEntry(a.before(g), after, tools.Text(p.Chosen(args[p.Name]))); e != nil {
			if f, v := soleNumber(e); f != "" && model.IsMoney(f) {
				n, _ := model.Number(v)
				return "amount due", model.SayValue(f, v), n
			}
		}
	}
	return "", "", 0
}

// before is the write's target as read, for outputs that compare it
// with the result; nil for a write that names no record.
func (a *Generic) before(g *ggoal) map[string]any {
	if g.w.TargetKind != model.TargetColl && g.w.TargetKind != model.TargetSearch {
		return nil
	}
	return g.obj
}

// soleNumber is a record's only numeric field (a gift card's balance, a
// payment's amount), "" when it has none or several.
func soleNumber(e map[string]any) (string, any) {
	name, n := "", 0
	for k, v := range e {
		switch v.(type) {
		case float64, int64, int:
			name, n = k, n+1
		}
	}
	if n != 1 {
		return "", nil
	}
	return name, e[name]
}

// sayFigure says one figure of a write (name, raw) as it will be
// before the yes, or as it is once done, with who pays whom when it
// moves money (model.WriteModel.GoesBack: a negative amount is said as
// its magnitude coming back). after is the write's result (on a fork
// before the yes).
func (a *Generic) sayFigure(g *ggoal, done bool, name string, raw, after any) string {
	back, via := g.w.GoesBack(a.before(g), after, g.args, name, raw)
	if n, ok := model.Number(raw); ok && n < 0 {
		raw = -n
	}
	to := ""
	if via != nil {
		if m := a.methodText(g, via); m != "" {
			to = " to " + m
		}
	}
	n, isNum := model.Number(raw)
	zero := isNum && n == 0
	way := figureWay(name, raw, back)
	bank := figureBanks[way].before
	switch {
	case model.IsMoney(name) && zero:
		bank = figureNone
	case done && way == sayPlain && model.IsMoney(name):
		bank = figureIsMoney
	case done:
		bank = figureBanks[way].done
	}
	return a.say(bank, map[string]string{"what": model.Words(name), "value": model.SayValue(name, raw), "to": to})
}

// methodText names the customer's method a choose argument holds as
// the proposal does (choiceWords); "" when the agent has only the bare
// id, which is no way to name it.
func (a *Generic) methodText(g *ggoal, p *model.ParamModel) string {
	if t := a.choiceWords(g, p, g.args[p.Name]); t != tools.Text(p.Chosen(g.args[p.Name])) {
		return t
	}
	return ""
}
