package agent

import (
	"cmp"
	"context"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/tools"
)

// A proposal is said the way a careful person says it: what will happen
// to which record, then what goes with it, in one sentence a customer
// reads once ("I'll exchange items from order #W2611340: the blue water
// bottle (8475032155) for the red one (2366567022), using your Visa
// ending in 4421."). Never a record read out field by field ("items:
// …; new items: …; payment method: …"): field names, alphabetical order
// and ids the customer has no use for are how a database talks. The
// ids the verifier holds a yes to (the records' keys) are said as they
// are; a payment method is named by its words, its id only when two of
// the customer's have the same words.

// proposalParts is what a proposal says besides its verb phrase, by
// what each thing is to the customer: the things it acts on (items, or
// items and their replacements), the trip a booking copies, who it is
// for, where it goes, what it comes with, what stays as it was, the
// account, and what pays.
type proposalParts struct {
	object  string
	trip    string
	people  []string
	to      []string
	with    []string
	same    []string
	account string
	why     string
	pay     string
}

// proposal asks for the yes to a write; stated names the figures it
// states.
func (a *Generic) proposal(ctx context.Context, g *ggoal) (text string, stated []string) {
	pp := a.proposalParts(g)
	what := a.phraseOf(g)
	if pp.object != "" {
		what += a.clause(proposeObject, map[string]string{"object": pp.object})
	}
	for _, s := range slices.Concat([]string{pp.trip}, pp.people, pp.to) {
		if s != "" {
			what += " " + s
		}
	}
	if len(pp.with) > 0 {
		what += " with " + model.JoinAnd(pp.with)
	}
	for _, s := range slices.Concat(pp.same, []string{pp.account, pp.why}) {
		if s != "" {
			what += ", " + s
		}
	}
	paySentence := ""
	if pp.pay != "" {
		if a.rng.IntN(2) == 0 {
			what += a.clause(proposePayInline, map[string]string{"pay": pp.pay})
		} else {
			paySentence = dialog.Tidy(a.clause(proposePay, map[string]string{"pay": pp.pay}))
		}
	}
	what += "."
	lead := a.say(proposeLead, nil)
	if strings.HasSuffix(lead, ":") {
		what = "I'll " + what
	}
	parts := []string{lead, what}
	if paySentence != "" {
		parts = append(parts, paySentence)
	}
	if len(a.m.Disclosed(g.w.Name)) == 0 || !a.fire(FlawUndisclosed, g) {
		// The flawed agent asks for the yes without the figures.
		said, names := a.figures(ctx, g)
		parts, stated = append(parts, said...), names
	}
	for _, r := range a.m.RulesFor(pack.RuleSay, g.w.Name) {
		if !g.reminded[r.Name] && !a.fire(FlawNoReminder, g) {
			parts = append(parts, a.remind(r.Text))
		}
	}
	return strings.Join(append(parts, a.say(confirmAsk, nil)), " "), stated
}

// saidIn: the verb phrase already names the argument's value, which the
// proposal does not say again: "on reservation ALAXV1", and "delete pet
// 20" a numeric key (never "… to 20").
func saidIn(phrase string, p *model.ParamModel, v any, key string) bool {
	if p.Group != "" {
		return false
	}
	if s, ok := v.(string); ok {
		return dialog.ContainsWord(phrase, s)
	}
	return p.Name == key && dialog.ContainsWord(phrase, tools.Text(v))
}

// clause renders a template said inside a sentence: its alternatives
// chosen and its slots filled, not capitalised or closed.
func (a *Generic) clause(tmpls []string, slots map[string]string) string {
	return dialog.Fill(dialog.Expand(a.rng, tmpls[a.rng.IntN(len(tmpls))]), slots)
}

// proposalParts words every argument the proposal must name.
func (a *Generic) proposalParts(g *ggoal) proposalParts {
	var pp proposalParts
	phrase := a.phraseOf(g)
	replaced := map[string]*model.ParamModel{}
	for _, p := range g.w.Params {
		if p.Replace != nil {
			replaced[p.Replace.Of] = p
		}
	}
	var trip []*model.ParamModel
	groups := map[string][]*model.ParamModel{}
	var groupOrder []string
	var objects []string
	for _, p := range sayOrder(g.w) {
		v, ok := g.args[p.Name]
		if !ok || v == "" || p.Replace != nil {
			// An empty line of an address is not a detail to confirm; a
			// replacement is said with what it replaces.
			continue
		}
		if saidIn(phrase, p, v, g.w.KeyParam()) {
			continue
		}
		switch {
		case p.Group != "":
			if _, seen := groups[p.Group]; !seen {
				groupOrder = append(groupOrder, p.Group)
			}
			groups[p.Group] = append(groups[p.Group], p)
		case p.Source == model.SrcChoose:
			pp.pay = a.choiceWords(g, p, v)
		case p.Pick != nil && replaced[p.Name] != nil:
			objects = append(objects, a.swapWords(g, p, replaced[p.Name]))
		case p.Pick != nil && !p.Pick.User:
			objects = append(objects, a.pickedWords(g, p, v))
		case p.Pick != nil && dialog.ContainsWord(phrase, model.ArgWords(p.Name)):
			// "change the passengers on reservation X to Kofi Keller",
			// not "… for Kofi Keller".
			pp.to = append(pp.to, "to "+a.argText(g, p, v))
		case p.Pick != nil:
			pp.people = append(pp.people, a.clause(proposePeople, map[string]string{"who": a.argText(g, p, v)}))
		case g.w.TargetKind == model.TargetSearch && (p.Source == model.SrcTarget || p.Source == model.SrcConst):
			trip = append(trip, p)
		case p.Source == model.SrcUserKey || a.m.Users != nil && a.m.Users.Coll != nil && p.Name == a.m.Users.Coll.Key:
			if g.w.TargetKind == model.TargetUser {
				// The phrase already says "your account": its key alone.
				pp.account = a.clause(proposeOwnKey, map[string]string{"what": model.Words(p.Name), "id": tools.Text(v)})
				break
			}
			pp.account = a.clause(proposeAccount, map[string]string{"noun": a.userNoun(), "id": tools.Text(v)})
		default:
			a.settingWords(g, p, v, phrase, &pp)
		}
	}
	pp.trip = a.tripWords(g, trip)
	for _, grp := range groupOrder {
		a.groupWords(g, grp, groups[grp], phrase, &pp)
	}
	pp.object = model.JoinAnd(objects)
	return pp
}

// sayOrder is the order a proposal names a write's arguments in: the
// tool's own (its schema's required list, which its author wrote in the
// order a person fills the form: bags before the paid ones, insurance
// last), then the rest by name. The model keeps them by name, which
// reads as a record: "travel insurance, no paid bags and 2 checked bags".
func sayOrder(w *model.WriteModel) []*model.ParamModel {
	req := model.RequiredOrder(w.Tool)
	pos := func(p *model.ParamModel) int {
		if i := slices.Index(req, p.Name); i >= 0 {
			return i
		}
		return len(req)
	}
	out := slices.Clone(w.Params)
	slices.SortStableFunc(out, func(x, y *model.ParamModel) int { return cmp.Compare(pos(x), pos(y)) })
	return out
}

// userNoun is what the pack calls a customer's record ("profile").
func (a *Generic) userNoun() string {
	if a.m.Users != nil && a.m.Users.Coll != nil && a.m.Users.Coll.Noun != "" {
		return a.m.Users.Coll.Noun
	}
	return "account"
}

// settingWords says one argument as what the write comes with ("travel
// insurance", "the location set to Cobalt Court"), keeps ("keeping the
// same flights"), or, when the phrase names it ("change the cabin of"),
// changes it to ("to business").
func (a *Generic) settingWords(g *ggoal, p *model.ParamModel, v any, phrase string, pp *proposalParts) {
	what := model.ArgWords(p.Name)
	if c, ok := model.ReasonClause(p, tools.Text(v)); ok {
		pp.why = a.clause(proposeWhy, map[string]string{"clause": c})
		return
	}
	if w := model.SaySlot(p, tools.Text(v)); w != "" && w != model.ValueWords(tools.Text(v)) {
		// The pack's words for the value: "travel insurance", not
		// "insurance: yes".
		pp.with = append(pp.with, w)
		return
	}
	if p.Source == model.SrcTarget && g.w.TargetKind == model.TargetColl {
		// A record's key is the verifier's evidence of what the yes was
		// to: said, even where it stays as it was.
		if was, ok := p.TargetValue(g.obj); ok && reflect.DeepEqual(was, v) && !slices.Contains(a.m.Identifying(), p.Name) {
			pp.same = append(pp.same, a.clause(proposeSame, map[string]string{"what": what}))
			return
		}
		if len(a.m.Disclosed(g.w.Name)) > 0 {
			// Elements copied from the record carry the money they held
			// (the fares paid in the old cabin), which a write that
			// states its own figures prices afresh: quoted here, a
			// customer would read them as what the change costs.
			v = withoutMoney(v)
		}
	}
	text := strings.TrimSpace(a.argText(g, p, v))
	if text == "" {
		// An empty body or list says nothing.
		return
	}
	if prose(text) {
		// Free text is quoted, so its own full stop ends no sentence.
		text = "\u201c" + text + "\u201d"
	}
	if dialog.ContainsWord(phrase, what) {
		pp.to = append(pp.to, "to "+text)
		return
	}
	pp.with = append(pp.with, a.clause(proposeSet, map[string]string{"what": what, "value": text}))
}

// swapWords says picked elements with their replacements, pair by pair:
// "the blue water bottle (8475032155) for the red one (2366567022)".
func (a *Generic) swapWords(g *ggoal, pick, repl *model.ParamModel) string {
	olds, _ := g.args[pick.Name].([]any)
	news := a.replacementWords(g, repl, g.args[repl.Name])
	if len(olds) != len(news) {
		return the(pick, a.argText(g, pick, g.args[pick.Name])) + " for " + a.argText(g, repl, g.args[repl.Name])
	}
	// One form for every pair, and a comma between pairs: "A for B
	// and C in place of D" reads as B and C going in together.
	forms := proposeSwap
	if len(olds) > 1 {
		forms = proposeSwapMany
	}
	// The form is drawn once with its slots left in (a filled value is
	// never filled again), then filled pair by pair.
	form := a.clause(forms, map[string]string{"old": "<old>", "new": "<new>"})
	pairs := make([]string, len(olds))
	for i, o := range olds {
		pairs[i] = dialog.Fill(form, map[string]string{"old": the(pick, a.argText(g, pick, o)), "new": the(pick, news[i])})
	}
	if len(pairs) > 1 {
		return strings.Join(pairs[:len(pairs)-1], ", ") + ", and " + pairs[len(pairs)-1]
	}
	return pairs[0]
}

// pickedWords says the elements a write picks from its record, each as
// a thing: "the blue kettle (1) and the red mug (2)".
func (a *Generic) pickedWords(g *ggoal, p *model.ParamModel, v any) string {
	l, ok := v.([]any)
	if !ok {
		return the(p, a.argText(g, p, v))
	}
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = the(p, a.argText(g, p, e))
	}
	return model.JoinAnd(parts)
}

// prose reports whether a value is a sentence of free text rather than
// a name or a figure.
func prose(s string) bool {
	for _, stop := range []string{". ", "! ", "? "} {
		if strings.Contains(s, stop) {
			return true
		}
	}
	return strings.Count(s, " ") >= 6
}

// the puts the article before a picked element's words, unless the
// pack says its elements go bare (people's names).
func the(p *model.ParamModel, words string) string {
	if p.Pick != nil && p.Pick.Bare || strings.HasPrefix(words, "the ") {
		return words
	}
	return "the " + words
}

// choiceWords names the customer's thing a choose argument holds: by
// its words ("your Visa ending in 4421"), with its id only when another
// of theirs has the same words; as the customer said it when it is the
// target's own ("the original payment method").
func (a *Generic) choiceWords(g *ggoal, p *model.ParamModel, v any) string {
	id := p.Chosen(v)
	e, ok := p.Choose.Element(g.user, id)
	w := ""
	if ok {
		w = p.Choose.Words(e)
	}
	if w == "" {
		// Not read, or nothing to call it by: as the customer said it
		// ("the original payment method"), else as it is.
		if say := g.slots[p.Name]; say != "" && say == p.Choose.DefaultSay {
			return yours(say)
		}
		return a.argText(g, p, v)
	}
	for _, o := range p.Choose.ChoiceElements(g.user) {
		if tools.Text(o[p.Choose.ID]) != tools.Text(id) && p.Choose.Words(o) == w {
			return yours(w) + " (" + tools.Text(id) + ")"
		}
	}
	if d, ok := p.Choose.DefaultValue(g.obj); ok && tools.Text(d) == tools.Text(id) && g.slots[p.Name] == p.Choose.DefaultSay {
		// The customer asked for it as "the original payment method":
		// the proposal says that is what the card is, or they cannot
		// tell it is the one they meant.
		return yours(w) + " (" + p.Choose.DefaultSay + ")"
	}
	return yours(w)
}

// tripWords says the values a write copies from the search result the
// customer chose as that result is described: "from BOS to ATL in
// business, one way, on flights SY893 on June 8, 2024".
func (a *Generic) tripWords(g *ggoal, ps []*model.ParamModel) string {
	if len(ps) == 0 {
		return ""
	}
	elem := map[string]any{}
	var lists, said []string
	for _, p := range ps {
		v := g.args[p.Name]
		if _, isList := v.([]any); isList {
			lists = append(lists, model.ArgWords(p.Name)+" "+a.argText(g, p, v))
			continue
		}
		if w := a.fieldSay(p.Name, v); w != "" {
			// A booking's own setting ("one_way") in the words its
			// record's collection says it with ("for a one-way trip").
			said = append(said, w)
			continue
		}
		elem[p.Name] = v
	}
	var say map[string]string
	if g.w.Search != nil {
		say = g.w.Search.Say
	}
	text := model.ElementText(elem, a.m.Identifying(), nil, say)
	if len(lists) > 0 {
		said = append(said, a.clause(proposeOn, map[string]string{"what": model.JoinAnd(lists)}))
	}
	return strings.TrimSpace(text + " " + strings.Join(said, " "))
}

// fieldSay is a collection's words for a field's value
// ("flight_type=one_way": "for a one-way trip"), "" when none has them.
func (a *Generic) fieldSay(field string, v any) string {
	for _, name := range slices.Sorted(maps.Keys(a.m.Colls)) {
		if w := a.m.Colls[name].Say[field+"="+tools.Text(v)]; w != "" {
			return w
		}
	}
	return ""
}

// groupWords says the arguments drawn from one record together, as the
// record's own value is written ("to 12 Elm Street, Suite 4, Austin,
// TX, 78701, USA"), not line by line.
func (a *Generic) groupWords(g *ggoal, group string, ps []*model.ParamModel, phrase string, pp *proposalParts) {
	ps = slices.Clone(ps)
	slices.SortStableFunc(ps, func(x, y *model.ParamModel) int { return cmp.Compare(lineRank(x.Name), lineRank(y.Name)) })
	var vals []string
	for _, p := range ps {
		if s := strings.TrimSpace(tools.Text(g.args[p.Name])); s != "" {
			vals = append(vals, s)
		}
	}
	what := model.Words(model.LastStep(group))
	if dialog.ContainsWord(phrase, what) {
		pp.to = append(pp.to, "to "+strings.Join(vals, ", "))
		return
	}
	pp.with = append(pp.with, a.clause(proposeSet, map[string]string{"what": what, "value": strings.Join(vals, ", ")}))
}

// lineRank orders the parts of an address as one is written: street
// lines, city, region, postal code, country; other fields after them in
// the write's order.
func lineRank(name string) int {
	n := strings.ToLower(name)
	for i, parts := range [][]string{{"1", "street", "line"}, {"2"}, {"city", "town", "locality"}, {"state", "region", "province", "county"}, {"zip", "postal", "post"}, {"country"}} {
		for _, s := range parts {
			if strings.Contains(n, s) {
				return i
			}
		}
	}
	return 6
}
