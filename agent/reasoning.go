package agent

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// The agent's reasoning_content, written where a person reasons: on the
// step that singles a record out among several (which match what the
// customer described, and which is the extreme by the values compared)
// and on a write (where each argument came from). It speaks of fields
// in words and of the order in the customer's terms ("the most
// recent"), never by a field's spelling.

var reasonMeans = []string{
	"{The customer means|They mean|They're asking about|What they described is} <label>.",
}

var reasonMatchOne = []string{
	"{Of the <n> <nouns> I read, only one|Among the <n> <nouns> I read, just one|I read <n> <nouns>, and only one} is <a_match>: <chosen>.",
}

var reasonMatchSome = []string{
	"{Of the|Among the} <n> <nouns> I read, <m> are <matches>.",
	"I read <n> <nouns>; <m> of them are <matches>.",
}

var reasonMatchAll = []string{
	"{I read|There are} <n> <nouns>, and {any of them could fit|all of them fit the description}.",
}

var reasonExtreme = []string{
	"{Of those|Among those|Comparing those}, <chosen> is <superl> (<value><others>), {so it is the one|so that's the one they mean|which settles it}.",
	"<Chosen> is <superl> (<value><others>), {so it is the one|so that's the one they mean}.",
}

var reasonThat = []string{
	"{That is|So it is|So they mean} <chosen>.",
}

// comparison says how the record at i was singled out among cands:
// which match what the customer described (the conditions in words),
// and which is the extreme by the order they named, with its value and
// the others'. say is the pack's words for an order ("with the most
// checked bags"). It is "" when there was nothing to compare.
func comparison(rng *rand.Rand, noun string, say map[string]string, sel record.Selector, cands []map[string]any, i int, chosen string) string {
	if len(cands) < 2 {
		return ""
	}
	render := func(bank []string, slots map[string]string) string {
		return dialog.Render(rng, bank[rng.IntN(len(bank))], slots)
	}
	out := []string{render(reasonMeans, map[string]string{"label": theirs(sel.Label)})}
	var matching []int
	for j, c := range cands {
		if tools.Matches(c, sel.Where) {
			matching = append(matching, j)
		}
	}
	slots := map[string]string{"n": fmt.Sprint(len(cands)), "nouns": model.Plural(noun), "m": fmt.Sprint(len(matching)), "chosen": chosen,
		"a_match": model.A(model.Described(noun, sel.Where, say)), "matches": model.Described(model.Plural(noun), sel.Where, say)}
	dir, field, hasPick := strings.Cut(sel.Pick, ":")
	switch {
	case len(sel.Where) > 0 && len(matching) == 1:
		return strings.Join(append(out, render(reasonMatchOne, slots)), " ")
	case len(sel.Where) > 0:
		out = append(out, render(reasonMatchSome, slots))
	default:
		out = append(out, render(reasonMatchAll, slots))
	}
	if !hasPick {
		return strings.Join(append(out, render(reasonThat, slots)), " ")
	}
	adj, clause := model.PickWords(sel.Pick)
	if phrase, ok := say[sel.Pick]; ok {
		adj, clause = "", phrase
	}
	superl := "the one " + clause
	if adj != "" {
		superl = "the " + adj
	}
	if adj == "" && clause == "" {
		superl = map[string]string{"max": "the highest", "min": "the lowest"}[dir]
	}
	slots["superl"] = superl
	slots["value"] = orderWords(field, tools.OrderValue(cands[i], field))
	var others []string
	pool := matching
	if len(sel.Where) == 0 {
		pool = make([]int, len(cands))
		for j := range cands {
			pool[j] = j
		}
	}
	// The runners-up first: the values nearest the chosen one.
	pool = slices.Clone(pool)
	slices.SortStableFunc(pool, func(x, y int) int {
		c := compareOrder(tools.OrderValue(cands[x], field), tools.OrderValue(cands[y], field))
		if dir == "max" {
			return -c
		}
		return c
	})
	for _, j := range pool {
		if w := orderWords(field, tools.OrderValue(cands[j], field)); j != i && w != "" && w != slots["value"] && !slices.Contains(others, w) {
			others = append(others, w)
		}
	}
	if len(others) > 4 {
		others = append(others[:4], "more")
	}
	if len(others) > 0 {
		slots["others"] = "; the others: " + model.JoinAnd(others)
	}
	slots["Chosen"] = dialog.Capitalize(chosen)
	return strings.Join(append(out, render(reasonExtreme, slots)), " ")
}

// compareOrder orders two values an order compares: numbers by value,
// text (a timestamp) as text.
func compareOrder(x, y any) int {
	fx, xerr := strconv.ParseFloat(tools.Text(x), 64)
	fy, yerr := strconv.ParseFloat(tools.Text(y), 64)
	if xerr == nil && yerr == nil {
		return cmp.Compare(fx, fy)
	}
	return cmp.Compare(tools.Text(x), tools.Text(y))
}

// derived reports whether a call's arguments (JSON) hold a value of the
// chosen record: its key, a flight of the reservation. Values shorter
// than three characters ("1", "no") would match by chance.
func derived(raw string, chosen map[string]any) bool {
	found := false
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case string:
			if len(x) >= 3 && strings.Contains(raw, strconv.Quote(x)) {
				found = true
			}
		}
	}
	walk(chosen)
	return found
}

// orderWords says a value an order compares: a date as a date, an
// amount as money, a count with its unit ("538 minutes").
func orderWords(field string, v any) string {
	if v == nil {
		return ""
	}
	field = strings.TrimPrefix(field, "sum:")
	if s, ok := v.(string); ok {
		if w, stamp := model.StampWords(s); stamp {
			return w
		}
		return model.ValueWords(s)
	}
	said := model.SayValue(field, v)
	if w := strings.Fields(model.Words(model.LastStep(field))); len(w) > 1 && model.IsUnit(w[len(w)-1]) {
		said += " " + w[len(w)-1]
	}
	return said
}

// Where a write's arguments came from, one bank per source.
var (
	reasonTargetFound = []string{
		"{I'm acting on|This is for|The write is on} <noun> <value>, {the one I singled out earlier|which I found among their <nouns>|the one that matched their description}.",
		"<Noun> <value> is the one {I identified from their description|I picked out from what I read|that matched what they described}.",
	}
	reasonTargetNamed = []string{
		"{I'm acting on|This is for|The write is on} <noun> <value>, which they named{ themselves| directly|} and I looked up.",
		"<Noun> <value> is the one they gave me, and the record I read confirms it.",
	}
	reasonFromTarget = []string{
		"{The <what> come from|I took the <what> from|The <what> are copied from} the <noun>'s record as I read it.",
	}
	reasonFromTargetOne = []string{
		"{The <what> comes from|I took the <what> from} the <noun>'s record as I read it.",
	}
	reasonUserKey = []string{
		"{It goes on|This is for|It's for} their own account, <value>{, verified at the start|, the one I authenticated|}.",
	}
	reasonFromUser = []string{
		"{The <what> comes from their profile|I took the <what> from their account details}.",
	}
	reasonSaid = []string{
		"{They asked for|They told me|The customer gave} <list>.",
		"<List> {<is> what they asked for|<is> what they said|<comes> straight from what they told me}.",
	}
	reasonPicked = []string{
		"{The <what> are the ones they named|They named the <what>}: <value>{, all <where>|, each found <where>|}.",
	}
	reasonPickedOne = []string{
		"{The <what> is the one they named|They named the <what>}: <value>{, found <where>|}.",
	}
	reasonPickedUnsaid = []string{
		"{They named the <what>|The <what> are the ones they named}{ <where>|}.",
	}
	reasonReplaced = []string{
		"{For the <what>, <value>: each is an available option I read that fits what they asked for|The replacements, <value>, match the options they described, and I checked each is available}.",
	}
	reasonChosen = []string{
		"{They chose|They picked|They want to use} <value> for the <what>.",
	}
	reasonComputed = []string{
		"{The <what>, <value>, is what the policy gives here|I worked out the <what> as the policy sets it: <value>}.",
	}
	reasonYesAuth = []string{
		"{They confirmed with an explicit yes|They said yes to exactly these details|I have their explicit yes to this}{, and I verified who they are earlier|, and they're authenticated|, after I authenticated them}.",
	}
	reasonYes = []string{
		"{They confirmed with an explicit yes|They said yes to exactly these details|I have their explicit yes to this}.",
	}
)

// writeReasoning says where each argument of the write came from: the
// target found (or named), the record's own values, the customer's
// words, their choice, the policy's computation, and their yes.
func (a *Generic) writeReasoning(g *ggoal, w *model.WriteModel, args map[string]any) string {
	if w == nil {
		w = g.w
	}
	var out []string
	fromTarget, said := []string{}, []string{}
	noun := w.TargetNoun()
	for _, p := range w.Params {
		v, ok := args[p.Name]
		if !ok || v == "" {
			// An empty line of an address was not said by anyone.
			continue
		}
		what := model.ArgWords(p.Name)
		text := a.reasonValue(g, p, v)
		switch p.Source {
		case model.SrcTargetKey:
			targetBank := reasonTargetFound
			if g.target != nil && g.target.ID != "" {
				targetBank = reasonTargetNamed
			}
			out = append(out, a.say(targetBank, map[string]string{"value": text, "noun": noun, "Noun": dialog.Capitalize(noun), "nouns": model.Plural(noun)}))
		case model.SrcTarget:
			if text != "" && len(text) <= 30 {
				what += " " + text
			}
			fromTarget = append(fromTarget, what)
		case model.SrcUserKey:
			out = append(out, a.say(reasonUserKey, map[string]string{"value": text}))
		case model.SrcUser:
			out = append(out, a.say(reasonFromUser, map[string]string{"what": what}))
		case model.SrcSlot, model.SrcLike:
			switch w := model.SaySlot(p, tools.Text(v)); {
			case w != "":
				said = append(said, w)
			case text != "":
				said = append(said, "the "+what+" ("+text+")")
			default:
				said = append(said, "the "+what)
			}
		case model.SrcPick:
			where := "in this " + noun
			if p.Pick != nil && p.Pick.User {
				where = "on their account"
			}
			pickBank := reasonPicked
			if l, ok := v.([]any); ok && len(l) == 1 {
				pickBank, what = reasonPickedOne, model.Singular(what)
			}
			if text == "" {
				pickBank = reasonPickedUnsaid
			}
			out = append(out, a.say(pickBank, map[string]string{"what": what, "value": text, "where": where}))
		case model.SrcReplace:
			out = append(out, a.say(reasonReplaced, map[string]string{"what": what, "value": theirs(a.replacementText(g, p, v))}))
		case model.SrcChoose:
			if l, ok := v.([]any); !ok || len(l) <= 1 {
				// One payment method chosen "for the payment method",
				// not "for the payment methods".
				what = model.Singular(what)
			}
			out = append(out, a.say(reasonChosen, map[string]string{"what": what, "value": text}))
		case model.SrcCompute:
			out = append(out, a.say(reasonComputed, map[string]string{"what": what, "value": text}))
		}
	}
	if len(fromTarget) > 0 && noun != "" {
		fromBank := reasonFromTarget
		if len(fromTarget) == 1 && !strings.HasSuffix(fromTarget[0], "s") {
			fromBank = reasonFromTargetOne
		}
		out = append(out, a.say(fromBank, map[string]string{"what": model.JoinAnd(fromTarget), "noun": noun}))
	}
	if len(said) > 0 {
		list := model.JoinAnd(said)
		is, comes := "is", "comes"
		if len(said) > 1 {
			is, comes = "are", "come"
		}
		out = append(out, a.say(reasonSaid, map[string]string{"list": list, "List": dialog.Capitalize(list), "is": is, "comes": comes}))
	}
	yes := reasonYes
	if a.m.Users != nil {
		yes = reasonYesAuth
	}
	if a.rng.IntN(2) == 0 {
		return strings.Join(append([]string{a.say(yes, nil)}, out...), " ")
	}
	return strings.Join(append(out, a.say(yes, nil)), " ")
}

// reasonValue says an argument's value as the proposal did, in the
// third person ("their Visa ending in 7791 (credit_card_1)"); a long
// list is left to its name.
func (a *Generic) reasonValue(g *ggoal, p *model.ParamModel, v any) string {
	if l, ok := v.([]any); ok && len(l) > 5 {
		return ""
	}
	return theirs(a.argText(g, p, v))
}
