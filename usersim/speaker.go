package usersim

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/record"
)

// speaker is the part of a simulated customer that does not depend on
// the domain: the profile's manner, the conversation state, and the
// order in which goals are raised, confirmed, revised and closed. The
// pack customer Generic embeds it and supplies the words (customer), so
// the manner stays the same whatever a pack's domain.
type speaker struct {
	bp        *record.Blueprint
	rng       *rand.Rand
	prof      profile
	wrongSent bool
	digressed bool // a talkative customer wanders off the task once
	// withheld holds the identity details a piecemeal customer left out
	// of its first answer, given when the agent asks for them.
	withheld  map[string]string
	partDone  bool
	requested []bool
	revised   []bool
	// pushed counts, per refused goal, the pleas the customer has made
	// for an exception; pleas is how many it makes before it gives in.
	pushed []int
	pleas  []int
}

// nonNativeOrder is nonNative's keys in the order a typo-prone customer
// tries them, sorted once rather than on every message.
var nonNativeOrder = slices.Sorted(maps.Keys(nonNative))

// customer is what a domain's simulated customer says in its own words.
type customer interface {
	// request states goal i and marks it requested.
	request(i int) (string, dialog.Act)
	// answerIdentity answers an identify or identify_again ask; wrong asks
	// for the confused profile's mistaken identity.
	answerIdentity(ask dialog.Ask, wrong bool) dialog.Turn
	// openingIdentity is the identity an identity-first customer volunteers
	// in the opening message, if it has one to give.
	openingIdentity() (dialog.Turn, bool)
	// pieceAct fills act with the stated piece of goal i.
	pieceAct(i int, piece string, act *dialog.Act)
	// pieceText is the message stating that piece.
	pieceText(i int, piece string) string
	// sayValue is slot name of goal i as the customer says it now.
	sayValue(i int, name string) string
	// revisedText is the change of mind to slot name of goal i as a
	// sentence of its own, for a value that is no noun phrase (a
	// setting turned on, a reason); ok is false for any other.
	revisedText(i int, name string) (string, bool)
	// check turns down a proposal that is not what the customer wants,
	// or that lacks a figure it must hear first; ok is false otherwise.
	check(ask dialog.Ask) (t dialog.Turn, ok bool)
	// refusedWrongly answers the refusal of goal i, which the policy
	// allows, by naming the record it meant; ok is false when it has
	// said so often enough.
	refusedWrongly(i int) (t dialog.Turn, ok bool)
}

func newSpeaker(bp *record.Blueprint, rng *rand.Rand) (speaker, error) {
	p, err := profileOf(bp.Behavior)
	if err != nil {
		return speaker{}, err
	}
	if len(bp.Goals) == 0 {
		return speaker{}, fmt.Errorf("blueprint %s has no goals", bp.ID)
	}
	return speaker{bp: bp, rng: rng, prof: p,
		requested: make([]bool, len(bp.Goals)), revised: make([]bool, len(bp.Goals)), pushed: make([]int, len(bp.Goals)), pleas: make([]int, len(bp.Goals))}, nil
}

// say expands one of tmpls with slots. The slots named in literal are
// filled after the text is tidied: a value given as it is ("defaultdb",
// a name, a comment) keeps its case even where it opens a sentence,
// never "Defaultdb.".
func (u *speaker) say(tmpls []string, slots map[string]string, literal ...string) string {
	t := dialog.Capitalize(dialog.Expand(u.rng, tmpls[u.rng.IntN(len(tmpls))]))
	if u.prof.typos {
		for _, from := range nonNativeOrder {
			if strings.Contains(t, from) && u.rng.IntN(2) == 0 {
				t = strings.Replace(t, from, nonNative[from], 1)
			}
		}
		t = typo(u.rng, t, 0.25)
	}
	var later []string
	for k, name := range literal {
		if v := slots[name]; v != "" {
			// A mark of no letter, which Tidy leaves as it is.
			mark := "\x00" + strconv.Itoa(k) + "\x00"
			slots = maps.Clone(slots)
			slots[name] = mark
			if strings.HasSuffix(v, ".") || strings.HasSuffix(v, "!") || strings.HasSuffix(v, "?") {
				// A value that ends its own sentence takes no second
				// stop from the template ("… (R lang).."); listed first,
				// the longer mark wins.
				later = append(later, mark+".", v)
			}
			later = append(later, mark, v)
		}
	}
	return strings.NewReplacer(later...).Replace(dialog.Tidy(dialog.Fill(t, slots)))
}

// start is the customer's opening message.
func (u *speaker) start(c customer) dialog.Turn {
	var acts []dialog.Act
	greet := ""
	if u.prof.impatient {
		greet = dialog.Expand(u.rng, impatientOpeners[u.rng.IntN(len(impatientOpeners))])
	} else if !u.prof.terse {
		greet = dialog.Expand(u.rng, greetings[u.rng.IntN(len(greetings))])
	}
	text, act := c.request(0)
	parts := leadInto(greet, text)
	acts = append(acts, act)
	if len(u.bp.Goals) > 1 && u.bp.Goals[1].Instead {
		// A plan B, said with the request it stands in for.
		alt, altAct := c.request(1)
		parts = append(parts, u.instead(alt))
		acts = append(acts, altAct)
	}
	if u.prof.identityFirst {
		if t, ok := c.openingIdentity(); ok {
			parts = append(parts, t.Text)
			acts = append(acts, t.Acts...)
		}
	}
	if u.prof.verbose {
		parts = append(parts, dialog.Expand(u.rng, verboseFillers[u.rng.IntN(len(verboseFillers))]))
	}
	return dialog.Turn{Text: joinSentences(parts), Acts: acts}
}

// instead says a conditional request: "If that can't be done, could you
// … instead?".
func (u *speaker) instead(alt string) string {
	lead := dialog.Expand(u.rng, "{If that's not possible|If you can't do that|If that can't be done|Failing that|If that doesn't work|And if that's not allowed|If the answer is no}")
	if p := leadInto(lead+",", alt); len(p) == 1 {
		return p[0]
	}
	return lead + ", " + alt
}

// leadInto joins a greeting that leads into more ("Hi,") and the request
// into one sentence, "Hi, could you cancel …?": a bare "Hi." before every
// other request would be the corpus's most repeated sentence.
func leadInto(greet, text string) []string {
	g, leads := strings.CutSuffix(strings.TrimSpace(greet), ",")
	if lowered, ok := dialog.LowerLead(text); leads && ok {
		return []string{g + ", " + lowered}
	}
	return []string{greet, text}
}

// respond answers the agent's last turn.
func (u *speaker) respond(c customer, ask dialog.Ask) dialog.Turn {
	var t dialog.Turn
	if (u.prof.verbose || u.prof.partial) && !u.digressed && ask.Kind == "piece" && u.rng.IntN(2) == 0 {
		// Asked for a detail, a talkative or a piecemeal customer first
		// asks something else; the detail comes when the agent asks
		// again. Never at a proposal: its yes must follow it.
		u.digressed = true
		if u.rng.IntN(2) == 0 {
			return dialog.Turn{Text: u.say(asides, nil), Acts: []dialog.Act{{Type: "digress", Goal: ask.Goal, Intent: "agent"}}}
		}
		return dialog.Turn{Text: u.say(digressions, nil), Acts: []dialog.Act{{Type: "digress", Goal: ask.Goal}}}
	}
	switch ask.Kind {
	case "closing":
		return dialog.Turn{Stop: dialog.TokenStop}
	case "transferred":
		return dialog.Turn{Stop: dialog.TokenTransfer}
	case "identify", "identify_again":
		wrong := u.prof.confused && !u.wrongSent
		u.wrongSent = u.wrongSent || wrong
		t = c.answerIdentity(ask, wrong)
	case "piece":
		act := dialog.Act{Type: "provide", Goal: ask.Goal}
		c.pieceAct(ask.Goal, ask.Piece, &act)
		t = dialog.Turn{Text: c.pieceText(ask.Goal, ask.Piece), Acts: []dialog.Act{act}}
	case "confirm":
		g := u.bp.Goals[ask.Goal]
		if u.prof.changes && !u.revised[ask.Goal] && (len(g.Revised) > 0 || len(g.RevisedItems) > 0) {
			u.revised[ask.Goal] = true
			act := dialog.Act{Type: "revise", Goal: ask.Goal, Slots: map[string]string{}}
			var val, own string
			for _, k := range slices.Sorted(maps.Keys(g.Revised)) {
				act.Slots[k] = g.Slots[k]
				val = c.sayValue(ask.Goal, k)
				own, _ = c.revisedText(ask.Goal, k)
			}
			for _, first := range g.RevisedItems {
				// The final choice: one of their things, or the original.
				if v, ok := g.Slots[first.Collection]; ok {
					act.Slots[first.Collection], val = v, v
					continue
				}
				for _, it := range g.Items {
					if it.Collection == first.Collection {
						act.Items, val = append(act.Items, it), it.Label
					}
				}
			}
			text := own
			if text == "" || len(g.RevisedItems) > 0 {
				text = u.say(revisions, map[string]string{"value": val})
			}
			t = dialog.Turn{Text: text, Acts: []dialog.Act{act}}
			break
		}
		if turn, no := c.check(ask); no {
			t = turn
			break
		}
		tmpls := confirms
		if u.prof.terse {
			tmpls = confirms[1:2]
		}
		t = dialog.Turn{Text: u.say(tmpls, nil), Acts: []dialog.Act{{Type: "confirm", Goal: ask.Goal}}}
	default: // help, anything_else
		t = u.next(c, ask)
	}
	return u.colour(t)
}

// next moves to the following goal, re-raises an unfinished one, or ends.
func (u *speaker) next(c customer, ask dialog.Ask) dialog.Turn {
	done := map[int]bool{}
	for _, d := range ask.Done {
		done[d] = true
	}
	if ask.Refused {
		i := ask.Goal
		if ask.RefusedGoal != nil {
			i = *ask.RefusedGoal
		}
		if i >= 0 && i < len(u.pushed) && u.requested[i] {
			switch g := u.bp.Goals[i]; {
			case g.Kind == record.GoalRefuse && u.pushed[i] < u.pleaCount(i):
				// Pleas for an exception, each a new argument, as real
				// customers make; then the refusal is accepted.
				u.pushed[i]++
				return dialog.Turn{Text: u.say(pleaRounds[min(u.pushed[i], len(pleaRounds))-1], nil), Acts: []dialog.Act{{Type: "pushback", Goal: i}}}
			case g.Kind == record.GoalWrite && ask.RefusedGoal != nil:
				// A request the policy allows was refused: the agent has
				// the wrong record in front of it.
				if t, ok := c.refusedWrongly(i); ok {
					return t
				}
			}
		}
	}
	var prefix string
	if ask.Refused && !u.prof.terse {
		prefix = u.say(acks, nil)
		if i := refusedOf(ask); i >= 0 && i < len(u.pushed) && u.pushed[i] > 1 {
			// Given in after pleading: grudging, not "no problem".
			prefix = u.say(givesIn, nil)
		}
	}
	// Guard against tau2's premature-stop bug: never end while a requested
	// goal is unfinished.
	for i := range u.bp.Goals {
		if u.requested[i] && !done[i] {
			text, act := c.request(i)
			return dialog.Turn{Text: joinSentences([]string{prefix, u.say(reminders, nil), text}), Acts: []dialog.Act{act}}
		}
	}
	for i := range u.bp.Goals {
		if !u.requested[i] {
			text, act := c.request(i)
			lead := ""
			if ask.Kind == "anything_else" {
				lead = dialog.Expand(u.rng, nextGoal[u.rng.IntN(len(nextGoal))])
			}
			return dialog.Turn{Text: joinSentences(append([]string{prefix}, leadInto(lead, text)...)), Acts: []dialog.Act{act}}
		}
	}
	tmpls := dones
	if u.prof.terse {
		tmpls = []string{"{That's all|No|Nothing else|Nope|All set|That's it|No more|Nothing|Done|I'm done|That's everything|No thanks|All good|Nothing more}{.|!|}"}
	}
	return dialog.Turn{Text: joinSentences([]string{prefix, u.say(tmpls, nil)}), Acts: []dialog.Act{{Type: "done"}}}
}

// refusedOf is the goal an ask says was refused, -1 for none.
func refusedOf(ask dialog.Ask) int {
	if !ask.Refused {
		return -1
	}
	if ask.RefusedGoal != nil {
		return *ask.RefusedGoal
	}
	return ask.Goal
}

// pleaCount is how many times the customer of goal i asks for an
// exception before accepting the refusal, drawn at its first refusal:
// once for most, twice for some, up to three times for an impatient
// one, as its manner runs through the whole dialogue.
func (u *speaker) pleaCount(i int) int {
	if u.pleas[i] == 0 {
		n := 1
		switch {
		case u.prof.impatient:
			n += 1 + u.rng.IntN(2)
		case u.prof.verbose:
			n++
		case !u.prof.terse && u.rng.IntN(3) == 0:
			n++
		}
		u.pleas[i] = n
	}
	return u.pleas[i]
}

// colour adds the profile's manner to a turn without changing its meaning.
func (u *speaker) colour(t dialog.Turn) dialog.Turn {
	if t.Text == "" {
		return t
	}
	if u.prof.verbose && u.rng.IntN(2) == 0 {
		t.Text = joinSentences([]string{t.Text, dialog.Expand(u.rng, verboseFillers[u.rng.IntN(len(verboseFillers))])})
	}
	if u.prof.impatient && u.rng.IntN(2) == 0 {
		t.Text = joinSentences([]string{t.Text, dialog.Expand(u.rng, impatientClosers[u.rng.IntN(len(impatientClosers))])})
	}
	return t
}

// joinSentences joins parts into one message, closing each part that
// lacks final punctuation so sentences do not run together.
func joinSentences(parts []string) string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		// A greeting that leads into more ("Hello,") ends its sentence.
		if q, ok := strings.CutSuffix(p, ","); ok {
			p = q
		}
		if !strings.ContainsAny(p[len(p)-1:], ".?!:") {
			p += "."
		}
		out = append(out, p)
	}
	return strings.Join(out, " ")
}
