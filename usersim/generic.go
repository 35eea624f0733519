package usersim

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/record"
)

// Generic is the simulated customer of a pack's task. It speaks only
// what the blueprint says it knows, in the phrasing of the pack's tools
// and hints, in the manner of the blueprint's behaviour profile, and it
// never ends the conversation while a goal it raised is open.
type Generic struct {
	speaker
	m *model.Model
	// corrections counts, per goal, the proposals turned down for a wrong
	// detail; figureAsked marks the goals whose figure was asked for.
	corrections []int
	figureAsked []bool
	// failSaid marks the goals whose failing first choice the customer
	// has named; failedOver those where it has since named the one that
	// works (asked again, after the agent said it cannot be used), and
	// justFailed leads that answer.
	failSaid, failedOver []bool
	justFailed           bool
	// choiceSaid holds "goal:argument" for each choice the customer has
	// named: asked for one again while it holds a first value it means
	// to change its mind from (the agent said the choice cannot pay for
	// it), it changes its mind then, and revision is what it says so.
	choiceSaid map[string]bool
	revision   string
	// bundling is set while a request states several details at once.
	bundling bool
}

// NewGeneric creates the customer of a pack blueprint.
func NewGeneric(m *model.Model, bp *record.Blueprint, rng *rand.Rand) (*Generic, error) {
	s, err := newSpeaker(bp, rng)
	if err != nil {
		return nil, err
	}
	n := len(bp.Goals)
	return &Generic{speaker: s, m: m, corrections: make([]int, n), figureAsked: make([]bool, n), failSaid: make([]bool, n), failedOver: make([]bool, n), choiceSaid: map[string]bool{}}, nil
}

// Pieces lists what a customer states for a goal beyond the request, in
// the order an agent asks: the target (a record or a search), then per
// argument in name order a slot, a group of values stated together (an
// address), a choice (one of their things, or items of the target) or
// the replacements for chosen items.
func (u *Generic) Pieces(g record.Goal) []string {
	var ps []string
	_, isColl := u.m.Colls[g.Target.Collection]
	_, isSearch := u.m.Searches[g.Target.Collection]
	if u.m.Users != nil && g.Target.Collection == u.m.Users.Coll.Name {
		isColl = false
	}
	if isColl || isSearch {
		ps = append(ps, "target")
	}
	// A request the policy hands to a human (a transfer goal with a
	// write's intent) still states what the write needs.
	if g.Kind == record.GoalInform || g.Intent == model.IntentTransfer {
		return ps
	}
	w := u.write(g)
	named := map[string]string{}
	for n := range g.Slots {
		switch grp := groupOf(w, n); {
		case grp != "":
			named[n] = "like:" + grp
		case w != nil && w.Param(n) != nil && w.Param(n).Source == model.SrcChoose:
			// "The original payment method" answers the same question
			// as naming one of their payment methods.
			named[n] = "choice:" + n
		default:
			named[n] = "slot:" + n
		}
	}
	for _, it := range g.Items {
		if _, slot := g.Slots[it.Collection]; !slot {
			named[it.Collection] = "choice:" + it.Collection
		}
	}
	for _, it := range g.New {
		named[it.Collection] = "new:" + it.Collection
	}
	seen := map[string]bool{}
	for _, n := range slices.Sorted(maps.Keys(named)) {
		if !seen[named[n]] {
			seen[named[n]] = true
			ps = append(ps, named[n])
		}
	}
	return ps
}

// write is the write a goal asks for (a forbidden request asks for one
// too), or nil.
func (u *Generic) write(g record.Goal) *model.WriteModel {
	tool, _ := model.ParseIntent(strings.TrimPrefix(g.Intent, model.IntentRefusePrefix))
	return u.m.Write(tool)
}

func groupOf(w *model.WriteModel, param string) string {
	if w == nil {
		return ""
	}
	return w.GroupOf(param)
}

// identity returns what the customer says to be identified, misspelt on
// a confused first attempt.
func (u *Generic) identity(wrong bool) map[string]string {
	k := u.bp.Persona.Known
	tool := k["identify"]
	var params []string
	if u.m.Users != nil {
		for _, im := range u.m.Users.Identify {
			if im.Tool == tool {
				params = im.Params
				break
			}
		}
	}
	id := map[string]string{}
	for i, p := range params {
		v := k[p]
		if wrong && i == 0 {
			v = model.Misspell(v)
		}
		id[p] = v
	}
	return id
}

func (u *Generic) identityValues(id map[string]string) string {
	var vals []string
	for _, k := range slices.Sorted(maps.Keys(id)) {
		vals = append(vals, id[k])
	}
	return strings.Join(vals, ", ")
}

var genericIdentify = []string{
	"{My|The} <pairs>{.|}",
	"{Sure|Of course|Yes|Okay|No problem|Certainly|Absolutely|Right}{,|,| —} {my|the} <pairs>{.|}",
	"<values>",
	"{I'm|This is} <name>{,|.} {my|the} <pairs>{.|}",
}

// genericIdentifyOne gives an identity of one detail.
var genericIdentifyOne = []string{
	"{Sure|Okay|Of course|Yes}{,| —} {it's|that's|that would be} <values>{.|}",
	"<values>{, that's me|, that's my account| is me}{.|}",
	"{I'm|You'll find me as|Look me up as} <values>{.|}",
	"{Here you go|There you go|Here it is}: <values>{.|}",
}

// genericIdentifyRest gives the details left out before.
var genericIdentifyRest = []string{
	"{Oh, right|Sure|Of course|Sorry|Right}{,|!|.} {my|the} <pairs>{.|}",
	"{My|The} <pairs>{.|}",
	"<values>{.|}",
}

var genericIdentifyRetry = []string{
	"{Oh, sorry|Oops|My mistake|Sorry about that}{,|!|.} {it should be|I meant|the right one is} <values>{.|}",
	"{Sorry|Apologies|Oops|My bad|Sorry about that}, {I typed that wrong|I mixed something up|that was wrong|I got that wrong|that was a typo}. {It's|Try|It should be|The right one is} <values>{.|}",
}

func (u *Generic) identifyTurn(wrong bool, tmpls []string) dialog.Turn {
	return u.identifyWith(u.identity(wrong), tmpls)
}

func (u *Generic) identifyWith(id map[string]string, tmpls []string) dialog.Turn {
	slots := map[string]string{"pairs": isJoin(id), "values": u.identityValues(id), "name": u.bp.Persona.Name}
	return dialog.Turn{Text: u.say(tmpls, slots), Acts: []dialog.Act{{Type: "identify", Identity: id}}}
}

func isJoin(id map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(id)) {
		parts = append(parts, model.Words(k)+" is "+id[k])
	}
	return model.JoinAnd(parts)
}

// Start is the customer's opening message.
func (u *Generic) Start() dialog.Turn { return u.start(u) }

// openingIdentity volunteers the identity in a statement, when the pack's
// task has the customer identify at all.
func (u *Generic) openingIdentity() (dialog.Turn, bool) {
	if u.bp.Persona.Known["identify"] == "" {
		return dialog.Turn{}, false
	}
	id := u.identity(false)
	tmpls := genericIdentifyOpening
	if len(id) == 1 {
		tmpls = slices.Concat(tmpls, genericIdentifyOpeningOne)
	}
	return u.identifyWith(id, tmpls), true
}

// genericIdentifyOpening volunteers the identity in the opening message,
// a statement after the request.
var genericIdentifyOpening = []string{
	"{My|The} <pairs>{.|}",
	"{For reference|In case you need it|To find my account|For my account|So you can find me}{,|:} {my|the} <pairs>{.|}",
	"{Oh, and|And} {my|the} <pairs>{.|}",
}

// genericIdentifyOpeningOne are its forms for an identity of one value
// (a user id), which reads as a name on its own.
var genericIdentifyOpeningOne = []string{
	"{You'll find me under|I'm under|You can look me up as|My account is under} <values>{.|}",
	"{I'm|I should be} <values> {on your system|in your records}{.|}",
}

// slotValue is what the customer says for a slot now: the first value
// while they are yet to change their mind, or to hear the write fail on
// it.
func (u *Generic) slotValue(i int, name string) string {
	g := u.bp.Goals[i]
	if v, ok := u.failingSlot(i, name); ok {
		return v
	}
	if u.prof.changes && !u.revised[i] {
		if v, ok := g.Revised[name]; ok {
			return v
		}
	}
	return g.Slots[name]
}

// sayValue is a slot's value in the customer's words: one of a fixed set
// of choices is said as words ("basic economy" for basic_economy), a
// timestamp as a date and a time ("September 8, 2025 at 9:00 AM UTC");
// codes and free text stay exactly as they are.
func (u *Generic) sayValue(i int, name string) string {
	return spoken(u.param(i, name), u.slotValue(i, name))
}

// spoken is a value as the customer says it for parameter p (nil when
// not known): choices as words, timestamps as a date and a time, the
// rest as it is.
func spoken(p *model.ParamModel, v string) string {
	if w := model.SaySlot(p, v); w != "" {
		return w
	}
	if p != nil && len(p.Choices) > 0 {
		return model.ValueWords(v)
	}
	if w, ok := model.StampWords(v); ok {
		return w
	}
	return v
}

// SlotWords is how a customer of the domain says value v of goal g's
// slot name, as sayValue says it ("two checked bags" for 2, "travel
// insurance" for yes, "basic economy" for basic_economy); the credit
// labels read a slot as stated by these words. A nil model says v as it
// is.
func SlotWords(m *model.Model, g record.Goal, name, v string) string {
	if m == nil {
		return v
	}
	var p *model.ParamModel
	if w := (&Generic{m: m}).write(g); w != nil {
		p = w.Param(name)
	}
	return spoken(p, v)
}

// param is the write parameter a slot of goal i fills (nil for none).
func (u *Generic) param(i int, name string) *model.ParamModel {
	if w := u.write(u.bp.Goals[i]); w != nil {
		return w.Param(name)
	}
	return nil
}

// items are the selectors goal i states for an argument: the first
// choice while a customer who changes their mind has not yet.
func (u *Generic) items(i int, name string) []record.Selector {
	g := u.bp.Goals[i]
	if first := u.failing(i, name); first != nil {
		return first
	}
	var out []record.Selector
	if u.prof.changes && !u.revised[i] {
		for _, it := range g.RevisedItems {
			if it.Collection == name {
				out = append(out, it)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	for _, it := range g.Items {
		if it.Collection == name {
			out = append(out, it)
		}
	}
	return out
}

// failing is the first choice for an argument of goal i that the write
// fails on, while the customer has yet to hear so; nil otherwise.
func (u *Generic) failing(i int, name string) []record.Selector {
	return u.firstChoice(i, name, u.bp.Goals[i].FailingItems)
}

// failingSlot is the first value of a slot of goal i that the write
// fails on, while the customer has yet to hear so.
func (u *Generic) failingSlot(i int, name string) (string, bool) {
	if u.failedOver[i] {
		return "", false
	}
	v, ok := u.bp.Goals[i].FailingSlots[name]
	return v, ok
}

// unavailable is the first choice of replacements for an argument of
// goal i, one of them unavailable, while the customer has yet to hear
// so; nil otherwise.
func (u *Generic) unavailable(i int, name string) []record.Selector {
	return u.firstChoice(i, name, u.bp.Goals[i].UnavailableNew)
}

// firstChoice is what of first (a goal's first choices) is for the
// argument name, until the customer has moved on to its fallback.
func (u *Generic) firstChoice(i int, name string, first []record.Selector) []record.Selector {
	if u.failedOver[i] {
		return nil
	}
	var out []record.Selector
	for _, it := range first {
		if it.Collection == name {
			out = append(out, it)
		}
	}
	return out
}

func (u *Generic) replacements(i int, name string) []record.Selector {
	if first := u.unavailable(i, name); first != nil {
		return first
	}
	var out []record.Selector
	for _, it := range u.bp.Goals[i].New {
		if it.Collection == name {
			out = append(out, it)
		}
	}
	return out
}

// pieceAct adds one piece of goal i to an act.
func (u *Generic) pieceAct(i int, piece string, act *dialog.Act) {
	g := u.bp.Goals[i]
	kind, name, _ := strings.Cut(piece, ":")
	switch kind {
	case "target":
		t := g.Target
		act.Target = &t
		if g.Kind == record.GoalInform && len(g.Items) > 0 {
			// A question about one of the record's sub-records names it.
			act.Items = append(act.Items, g.Items...)
		}
	case "slot":
		if _, ok := u.failingSlot(i, name); ok {
			if u.failSaid[i] {
				// Asked again after stating it: the agent relayed the
				// tool's error, and the customer states its other value.
				u.failedOver[i], u.justFailed = true, true
			} else {
				u.failSaid[i] = true
			}
		}
		if act.Slots == nil {
			act.Slots = map[string]string{}
		}
		act.Slots[name] = u.slotValue(i, name)
	case "like":
		if act.Slots == nil {
			act.Slots = map[string]string{}
		}
		for n := range g.Slots {
			if groupOf(u.write(g), n) == name {
				act.Slots[n] = u.slotValue(i, n)
			}
		}
	case "choice":
		if u.failing(i, name) != nil {
			if !u.failSaid[i] {
				// The first choice, which the write will fail on.
				u.failSaid[i] = true
				act.Items = append(act.Items, u.failing(i, name)...)
				break
			}
			// Asked again after naming it: the agent said it cannot be
			// used, and the customer names the other one.
			u.failedOver[i], u.justFailed = true, true
		}
		key := strconv.Itoa(i) + ":" + name
		if u.choiceSaid[key] && !u.justFailed && u.prof.changes && !u.revised[i] && (len(g.Revised) > 0 || len(g.RevisedItems) > 0) {
			// Asked again for a choice it named while it still holds a
			// first value (this choice, or a slot) it means to change its
			// mind from: the agent said the choice cannot pay for what it
			// first asked, and the customer changes its mind now.
			u.revised[i], u.justFailed = true, true
			var val string
			for _, k := range slices.Sorted(maps.Keys(g.Revised)) {
				if act.Slots == nil {
					act.Slots = map[string]string{}
				}
				act.Slots[k] = g.Slots[k]
				val = u.sayValue(i, k)
			}
			if val != "" {
				u.revision = u.say(revisions, map[string]string{"value": val})
			}
		}
		u.choiceSaid[key] = true
		act.Items = append(act.Items, u.items(i, name)...)
		if v, ok := g.Slots[name]; ok {
			if act.Slots == nil {
				act.Slots = map[string]string{}
			}
			act.Slots[name] = v
		}
	case "new":
		if u.unavailable(i, name) != nil {
			if u.failSaid[i] {
				// Asked again after naming it: the agent said one is
				// not available, and the customer names its fallback.
				u.failedOver[i], u.justFailed = true, true
			} else {
				u.failSaid[i] = true
			}
		}
		act.New = append(act.New, u.replacements(i, name)...)
	}
}

var genericRequests = []string{
	"{I'd like to|I want to|I need to|Please} <phrase>{.|}",
	"{Could you|Can you} <phrase>{ for me|}?",
	"{Is it possible to|Can I} <phrase>?",
	"{I was hoping to|I would like to|I'd love to} <phrase>{.|}",
}

var genericQuestions = []string{
	"{What's|What is} the <field> of <target>?",
	"{{Can you tell me|Could you check} the <field> of <target>?|I'd like to know the <field> of <target>.}",
	"{I need|I'm looking for} the <field> of <target>{.|}",
}

// questionsOf asks about a field the way its kind reads (model.AskAbout).
var questionsOf = map[string][]string{
	model.AskWhat: genericQuestions,
	model.AskWhen: {
		"When was <target> <field>?",
		"{Can you tell me|Could you check} when <target> was <field>?",
		"{I'd like to know|I need to know} when <target> was <field>.",
	},
	model.AskCount: {
		"How many <field> does <target> have?",
		"{Can you tell me|Could you check} how many <field> <target> has?",
		"{I'd like to know|I need to know} how many <field> <target> has.",
	},
	model.AskHas: {
		"Does <target> have <field>?",
		"{Can you tell me|Could you check} whether <target> has <field>?",
		"{I'd like to know|I need to know} if <target> has <field>.",
	},
}

var genericSlotPieces = []string{
	"{The <what> {should be|is|will be|would be}|For the <what>, {use|make it|put|go with}|As for the <what>, {it's|make it}} <value>{.|, please.|, thanks.}",
	"{<value>|<value>, please}{.|}",
	"{Make it|Let's go with|Please use|Set it to} <value>{.|}",
}

// A value the pack says in words ("travel insurance", "2 checked bags")
// names what it is for: no "For the insurance, use no".
var genericSaidPieces = []string{
	"{Let's go with|Make it|I'd prefer|I'll take|I'd like|Put me down for|I'd rather have|I want|Go with|I'll have} <value>{.|, please.|, thanks.|, if that's okay.}",
	"{<value>|<value>, please|<value>, thanks|Just <value>|<value> for me}{.|}",
	"{I'll go with|I'd go for|I'll stick with|I think I'll take|I guess I'll go with|Honestly, I'd pick} <value>{, please|, thanks|}{.|}",
	"{<value> works for me|<value> would be best|<value> is what I want|<value> suits me|<value> sounds right}{.|!}",
}

// A yes/no setting the pack says nothing about is said as a sentence
// about the setting: "Turn on the deaf setting.", never "Deaf suits
// me!" or "I'll take not cancel." (<state> is on or off).
var genericSwitchPieces = []string{
	"{Please turn|Turn|Switch|Please switch} <state> the <what> setting{.|, please.|, thanks.}",
	"{I want|I'd like} <what> {turned|switched} <state>{.|, please.}",
	"The <what> setting should be <state>{.|, please.|, thanks.}",
}

// A reason is said as why: "It was ordered by mistake.", never "The
// reason will be ordered by mistake." (<clause> is "it was …").
var genericReasonPieces = []string{
	"{The <what> is that|Well, the <what> is that|The <what> is simply that|My <what> is that} <clause>{.|!}",
	"<clause>{.|, that's all.|, that's why.}",
	"{Because|Honestly,|Well,|Simply because} <clause>{.|!}",
	"{As for the <what>,|About the <what>:|In case you need the <what>,|If you need the <what>,} <clause>{.|!}",
}

// A reason that names a cause ("bad weather", "change of plan") is said
// as what the reason is, never "The reason will be bad weather." as if
// it were a setting to choose; the second form is the terse one.
var genericCausePieces = []string{
	"{The <what> is|My <what> is|Well, the <what> is|The <what> is simply} <value>{.|!|, that's all.}",
	"{<value>|<value>, that's all|<value>, really}{.|}",
}

// A cause that is the catch-all ("other reasons") is what the customer
// cancels for, not what the reason is: "It's for other reasons."
var genericOtherCausePieces = []string{
	"{It's for|It's just for|That's for|Honestly, it's for} <value>{.|, that's all.}",
	"{For <value>|Just <value>|<value>, really}{.|}",
}

// isCause reports whether p is a reason among a few and v one of them
// that reads well as it is (model.ReasonClause has no clause for it).
func isCause(p *model.ParamModel, v string) bool {
	if p == nil || len(p.Choices) == 0 || !strings.HasSuffix(model.ArgWords(p.Name), "reason") || model.SaySlot(p, v) != "" {
		return false
	}
	_, clause := model.ReasonClause(p, v)
	return !clause
}

// Changes of mind to a setting or a reason (revisions says a value).
var revisedSwitch = []string{
	"{Actually|Wait|Hmm, actually|On second thought|Sorry, actually}, {please turn|let's turn} <state> the <what> setting instead{.|!}",
	"{Wait|Hold on|Actually}, I changed my mind{ -|,} {I'd rather have|I want} the <what> setting <state>{.|, please.}",
}

var revisedReason = []string{
	"{Actually|Wait|Hmm, actually|On second thought|Sorry, actually}, the reason is {really |}that <clause>{.|!}",
	"{Wait|Hold on|Actually}, I changed my mind{ -|,} <clause>{.|, that's the real reason.}",
}

func (u *Generic) revisedText(i int, name string) (string, bool) {
	p, v := u.param(i, name), u.slotValue(i, name)
	if what, on, ok := setting(p, v); ok {
		return u.say(revisedSwitch, map[string]string{"what": what, "state": onOff(on)}), true
	}
	if clause, ok := model.ReasonClause(p, v); ok {
		return u.say(revisedReason, map[string]string{"clause": clause}), true
	}
	return "", false
}

// setting reports whether parameter p is a yes/no setting the pack
// says nothing about, what it is called and whether v turns it on.
func setting(p *model.ParamModel, v string) (what string, on, ok bool) {
	if p == nil || model.ParamType(p.Schema) != "boolean" {
		return "", false, false
	}
	// The pack's own words for it ("travel insurance") are said as they are.
	what = strings.TrimPrefix(model.ArgWords(p.Name), "is ")
	if p.Say["true"] != what || p.Say["false"] != "not "+what {
		return "", false, false
	}
	switch v {
	case "true":
		return what, true, true
	case "false":
		return what, false, true
	}
	return "", false, false
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// Free text (a comment, a resolution) is quoted rather than "used".
var genericTextPieces = []string{
	"{For the <what>, please write|The <what> should read|As the <what>, put}: <value>{.|}",
	"<value>{.|}",
	"{Please put this as the <what>|Use this <what>}: <value>{.|}",
}

var genericChoicePieces = []string{
	"{Use|Please use|Let's go with|Put it on|Go with|Just use|Charge|Stick with} <label>{.|, please.|, thanks.}",
	"{<label>|<label>, please|Just <label>|<label> is fine|<label> works for me|<label>, thanks|<label> if that's alright|Oh, <label>|Hmm, <label> I think|<label> is good|<label>, I suppose}{.|}",
	"{I'd like to use|I want to use|I'll use|I'd prefer|I'd rather use|I'm happy to use|I think I'll use|I'd go with} <label> {for the <what>|}{.|, please.|, thanks.}",
	"{Let's do|I'll go with|We can use|You can use|Go ahead and use|Better use} <label>{, please|, thanks|}{.|}",
	"{<label> is best|<label> would be great|<label> is what I'd like|<label> suits me|<label> makes sense}{.|!|, thanks.}",
}

// listOfThem tells an argument named for a list of the things chosen
// ("payment methods"): one is used, never "for the payment methods".
func listOfThem(what string) bool { return model.Singular(what) != what }

// withoutWhat drops the optional "for the <what>" of choice pieces, for
// a label that already says what it is for.
func withoutWhat(tmpls []string) []string {
	out := make([]string, len(tmpls))
	for i, t := range tmpls {
		out[i] = strings.ReplaceAll(t, " {for the <what>|}", "")
	}
	return out
}

// phrase renders a write goal's verb phrase with the target's words and
// the slots the phrase itself names.
func (u *Generic) phrase(i int, w *model.WriteModel, target string, act *dialog.Act) string {
	tmpl := dialog.Expand(u.rng, w.VerbPhrase())
	slots := map[string]string{"target": target}
	for _, p := range w.Params {
		if strings.Contains(tmpl, "<"+p.Name+">") {
			if _, ok := u.bp.Goals[i].Slots[p.Name]; ok {
				slots[p.Name] = u.slotValue(i, p.Name)
				u.pieceAct(i, "slot:"+p.Name, act)
			}
		}
	}
	return model.FillPhrase(tmpl, target, slots)
}

// request states goal i: whole for revealing profiles and questions,
// with just the intent otherwise. A forbidden request is asked like any
// other write: finding out that it is forbidden is the agent's job.
func (u *Generic) request(i int) (string, dialog.Act) {
	u.requested[i] = true
	g := u.bp.Goals[i]
	intent := strings.TrimPrefix(g.Intent, model.IntentRefusePrefix)
	act := dialog.Act{Type: "request", Goal: i, Intent: intent, Instead: g.Instead}
	if f, ok := strings.CutPrefix(g.Intent, model.IntentInformPrefix); ok {
		u.pieceAct(i, "target", &act)
		about := g.Target.Label
		if len(g.Items) > 0 {
			about = g.Items[0].Label
		}
		bank, words := genericQuestions, model.Words(model.LastStep(f))
		if u.m.Inform(g.Target.Collection, f) == nil {
			ask := model.AskAbout(u.m.Colls[g.Target.Collection], f, u.m.SampleValue(g.Target.Collection, f))
			bank, words = questionsOf[ask.Kind], ask.Words
		}
		return u.say(bank, map[string]string{"field": words, "target": about}), act
	}
	if g.Intent == model.IntentTransfer {
		act.Slots = map[string]string{"topic": g.Slots["topic"]}
		return u.say(genericRequests, map[string]string{"phrase": g.Slots["topic"]}), act
	}
	tool, _ := model.ParseIntent(intent)
	w := u.m.Write(tool)
	if w == nil {
		return u.say([]string{"I need help with <target>."}, map[string]string{"target": g.Target.Label}), act
	}
	reveal := u.prof.revealAll
	target := g.Target.Label
	if !reveal {
		target = u.vague(g, w)
	}
	pieces := u.Pieces(g)
	if reveal {
		for _, p := range pieces {
			u.pieceAct(i, p, &act)
		}
	}
	text := u.say(genericRequests, map[string]string{"phrase": u.phrase(i, w, target, &act)})
	if !reveal {
		// The value the write will fail on is the customer's own from
		// the start (the name it wants), said with the request: asked
		// for it, an agent may offer values of its own first.
		for _, k := range slices.Sorted(maps.Keys(g.FailingSlots)) {
			if p := "slot:" + k; !u.failSaid[i] && slices.Contains(pieces, p) {
				u.pieceAct(i, p, &act)
				u.bundling = true
				text = joinSentences([]string{text, u.pieceText(i, p)})
				u.bundling = false
			}
		}
		return text, act
	}
	parts := []string{text}
	if len(pieces) > 1 && u.rng.IntN(3) == 0 {
		parts = append(parts, dialog.Expand(u.rng, "{Here are the details|Here is what you need|Here's everything|These are the details|Here's what I have|Everything you need is below|All the details follow|Here's the information you'll need|This is what I have|The details are below|I'll give you everything now|So you have it all|Here's all of it|Here's what you'll need|Let me give you everything|Details below|Here it all is|These should cover it}{:|.}"))
	}
	// Several details at once each say what they are for: a bare "no."
	// or "2." in a list means nothing.
	u.bundling = true
	for _, p := range pieces {
		if p == "target" {
			continue
		}
		parts = append(parts, u.pieceText(i, p))
	}
	u.bundling = false
	return joinSentences(parts), act
}

// vague names a goal's target without the details.
func (u *Generic) vague(g record.Goal, w *model.WriteModel) string {
	noun := w.TargetNoun()
	switch w.TargetKind {
	case model.TargetUser:
		return g.Target.Label
	case model.TargetNone:
		return ""
	case model.TargetSearch:
		return dialog.Expand(u.rng, "{"+model.A(noun)+"|one "+noun+"}")
	}
	if u.m.Users == nil {
		return dialog.Expand(u.rng, "{"+model.A(noun)+"|one "+noun+"}")
	}
	return dialog.Expand(u.rng, "{one of my "+model.Plural(noun)+"|my "+noun+"|"+model.A(noun)+" of mine}")
}

// forms are the templates a piece is said with: the bare value (the
// second) for a terse customer, and in a request that gives several
// details at once only those that name what the value is for, or at
// least say something of it: a bare "the cheapest white one." among
// other details is a fragment.
func (u *Generic) forms(tmpls []string) []string {
	if u.bundling {
		var named, said []string
		for k, t := range tmpls {
			if strings.Contains(t, "<what>") {
				named = append(named, t)
			} else if k != 1 {
				said = append(said, t)
			}
		}
		if len(named) > 0 {
			return named
		}
		if len(said) > 0 {
			return said
		}
	}
	if u.prof.terse {
		return tmpls[1:2]
	}
	return tmpls
}

// afterFailure says the other value, choice or replacement, after the
// agent said why the first did not go through or cannot be used. A
// customer who meant to ask for less of a choice (revision) says that
// instead of "another one".
func (u *Generic) afterFailure(i int, piece string, choice bool) string {
	u.justFailed = false
	lead := u.say(failedOverLeads, nil)
	if choice && u.revision != "" {
		lead, u.revision = u.say(revisionLeads, nil)+" "+u.revision, ""
	}
	u.bundling = true
	text := u.pieceText(i, piece)
	u.bundling = false
	return lead + " " + text
}

// pieceText says one piece; asked for one its goal does not have (a
// flawed agent acting on the wrong request), the customer says so.
func (u *Generic) pieceText(i int, piece string) string {
	if !u.has(i, piece) {
		return u.say(notSure, nil)
	}
	g := u.bp.Goals[i]
	kind, name, _ := strings.Cut(piece, ":")
	if u.justFailed && (kind == "slot" || kind == "choice" || kind == "new") {
		return u.afterFailure(i, piece, kind == "choice")
	}
	switch kind {
	case "target":
		tmpls := pieces["target"]
		key := ""
		if c := u.m.Colls[g.Target.Collection]; c != nil && g.Target.ID == "" {
			key = model.Words(c.Key)
		}
		if key != "" && !u.prof.terse && !u.bundling && u.rng.IntN(2) == 0 {
			// A record described, not named: its id is what the customer
			// does not know (the blueprint's unknown), and says so.
			tmpls = forgotKey
		}
		tmpls = u.forms(tmpls)
		return u.say(tmpls, map[string]string{"target": g.Target.Label, "key": key})
	case "slot":
		if what, on, ok := setting(u.param(i, name), u.slotValue(i, name)); ok {
			return u.say(u.forms(genericSwitchPieces), map[string]string{"what": what, "state": onOff(on)})
		}
		if clause, ok := model.ReasonClause(u.param(i, name), u.slotValue(i, name)); ok {
			return u.say(u.forms(genericReasonPieces), map[string]string{"what": model.ArgWords(name), "clause": clause})
		}
		tmpls := genericSlotPieces
		switch {
		case isCause(u.param(i, name), u.slotValue(i, name)):
			tmpls = genericCausePieces
			if strings.HasPrefix(model.ValueWords(u.slotValue(i, name)), "other ") {
				tmpls = genericOtherCausePieces
			}
		case u.freeText(i, name):
			tmpls = genericTextPieces
		case model.SaySlot(u.param(i, name), u.slotValue(i, name)) != "":
			tmpls = genericSaidPieces
		}
		tmpls = u.forms(tmpls)
		said := u.sayValue(i, name)
		if p := u.param(i, name); said == u.slotValue(i, name) && (p == nil || len(p.Choices) == 0) {
			return u.say(notLeading(tmpls, said), map[string]string{"what": model.ArgWords(name), "value": said}, "value")
		}
		return u.say(tmpls, map[string]string{"what": model.ArgWords(name), "value": said})
	case "like":
		w := u.write(g)
		slots := map[string]string{}
		for n := range g.Slots {
			slots[n] = u.slotValue(i, n)
		}
		tmpls := genericGroupPieces
		tmpls = u.forms(tmpls)
		return u.say(tmpls, map[string]string{"what": model.Words(model.LastStep(name)), "value": model.GroupText(w, name, slots)})
	case "choice":
		if v, ok := g.Slots[name]; ok && u.failing(i, name) == nil {
			// The target's original one ("the original payment method"),
			// never "… for the payment method" again; nor "… for the
			// payment methods", a list of the very things chosen.
			tmpls := genericChoicePieces
			if what := model.ArgWords(name); strings.Contains(strings.ToLower(v), strings.ToLower(what)) || listOfThem(what) {
				tmpls = withoutWhat(tmpls)
			}
			tmpls = u.forms(tmpls)
			return u.say(tmpls, map[string]string{"what": model.ArgWords(name), "label": v})
		}
		sels := u.items(i, name)
		tmpls := genericChoicePieces
		switch {
		case len(sels) > 1 || u.param(i, name) != nil && u.param(i, name).Source == model.SrcPick:
			tmpls = genericPickPieces
		case listOfThem(model.ArgWords(name)):
			tmpls = withoutWhat(tmpls)
		}
		tmpls = u.forms(tmpls)
		return u.say(tmpls, map[string]string{"what": model.ArgWords(name), "label": labels(sels)})
	case "new":
		sels := u.replacements(i, name)
		tmpls := genericNewPieces
		if len(sels) > 1 {
			tmpls = genericNewPiecesMany
		}
		tmpls = u.forms(tmpls)
		return u.say(tmpls, map[string]string{"label": labels(sels)})
	}
	return u.say(notSure, nil)
}

// notLeading keeps the templates in which a literal value that reads
// as a lower-case word ("defaultdb") does not open the message: kept as
// it is there, it would start a sentence lower-case.
func notLeading(tmpls []string, value string) []string {
	if !dialog.PlainWord(value) {
		return tmpls
	}
	var out []string
	for _, t := range tmpls {
		if !strings.HasPrefix(t, "<value>") && !strings.HasPrefix(t, "{<value>") {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return []string{"{It's|That's|Make it} <value>{.|, please.}"}
	}
	return out
}

// failedOverLeads lead the customer's other choice after the agent said
// the first did not go through.
var failedOverLeads = []string{
	"{Oh, that's annoying|Oh no|Hmm, okay|Ah, I see|Oh, I didn't expect that|Alright then|Okay, no problem}{.|!}",
	"{In that case|Then|Okay, then} {let's try another one|I'll use something else|we'll go another way}{.|!}",
}

// revisionLeads lead a change of mind the agent's word that the choice
// cannot pay for the first value brought about.
var revisionLeads = []string{"{Oh, I see|Ah, okay|Hmm, alright|I see}{.|!}"}

// forgotKey answers "which one?" without the id the agent asked for.
var forgotKey = []string{
	"{I don't remember the <key>|I don't have the <key> handy|I'm not sure what the <key> is|I can't find the <key> right now|I don't know the <key> offhand|The <key> isn't in front of me}, but it's <target>{.|}",
	"{Sorry, I|Hmm, I|Honestly, I|I'm afraid I} {don't know|don't remember|can't recall} the <key>{ —|;|, but} {it's|I mean} <target>{.|}",
}

var notSure = []string{"{I'm not sure|I don't know}{.|, sorry.}", "{Hmm, I'm not sure what you mean|I don't have that}{.|, sorry.}"}

// has reports whether goal i has a piece to state.
func (u *Generic) has(i int, piece string) bool {
	g := u.bp.Goals[i]
	kind, name, _ := strings.Cut(piece, ":")
	switch kind {
	case "target":
		return g.Target.Label != ""
	case "slot":
		_, ok := g.Slots[name]
		return ok
	case "like":
		for n := range g.Slots {
			if groupOf(u.write(g), n) == name {
				return true
			}
		}
	case "choice":
		_, ok := g.Slots[name]
		return ok || len(u.items(i, name)) > 0
	case "new":
		return len(u.replacements(i, name)) > 0
	}
	return false
}

// labels joins selectors' labels as a list.
func labels(sels []record.Selector) string {
	var out []string
	for _, s := range sels {
		out = append(out, s.Label)
	}
	return model.JoinAnd(out)
}

var genericGroupPieces = []string{
	"{The new <what> is|It's|Please use|Send it to} <value>{.|}",
	"<value>{.|}",
	"{My new <what> is|The <what> should be} <value>{.|}",
}

var genericPickPieces = []string{
	"{It's|That's|I mean} <label>{.|}",
	"<label>{.|}",
	"{Just|Only} <label>{.|}",
	"{The <what> will be|For the <what>:} <label>{.|}",
}

var genericNewPieces = []string{
	"{I'd like|I want|I'd prefer} <label> instead{.|}",
	"{<label>|<label>, please|Just <label>}{.|}",
	"{Please swap it for|Replace it with|Swap it for} <label>{.|}",
}

var genericNewPiecesMany = []string{
	"{I'd like|I want} <label> instead, in that order{.|}",
	"<label>{.|}",
	"{Please swap them for|Replace them with} <label>, {respectively|in that order}{.|}",
}

// Respond answers the agent's last turn.
func (u *Generic) Respond(ask dialog.Ask) dialog.Turn { return u.respond(u, ask) }

func (u *Generic) answerIdentity(ask dialog.Ask, wrong bool) dialog.Turn {
	if ask.Kind == "identify" && u.withheld != nil {
		// Asked for what it left out: just that.
		rest := u.withheld
		u.withheld = nil
		return u.identifyWith(rest, genericIdentifyRest)
	}
	if id := u.identity(wrong); u.prof.partial && !u.partDone && ask.Kind == "identify" && len(id) > 1 {
		// An incomplete turn: the name, and the zip only when asked.
		u.partDone = true
		keys := slices.Sorted(maps.Keys(id))
		part := map[string]string{}
		for _, k := range keys[:len(keys)-1] {
			part[k] = id[k]
		}
		last := keys[len(keys)-1]
		u.withheld = map[string]string{last: id[last]}
		return u.identifyWith(part, genericIdentify[:2])
	}
	tmpls := genericIdentify
	switch {
	case ask.Kind == "identify_again":
		tmpls = genericIdentifyRetry
	case u.prof.terse:
		tmpls = genericIdentify[2:3]
	case len(u.identity(false)) == 1:
		// One detail (a user id) is given as people give one, not only
		// as "my user id is …".
		tmpls = slices.Concat(tmpls, genericIdentifyOne)
	}
	return u.identifyTurn(wrong, tmpls)
}

// freeText reports whether a slot is prose rather than a code or a number.
func (u *Generic) freeText(i int, name string) bool {
	p := u.param(i, name)
	return p != nil && len(p.Choices) == 0 && p.Path == "" && model.ParamType(p.Schema) == "string" && strings.Contains(u.bp.Goals[i].Slots[name], " ")
}
