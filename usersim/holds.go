package usersim

import (
	"slices"
	"strings"

	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// A customer who holds its goal checks each proposal before saying yes:
// real customers read the order number and the address back, and a yes
// to a wrong detail teaches an agent that customers never object. The
// check compares the proposal's arguments with the goal's ground-truth
// write, and the words say only what the customer knows: the record it
// named, the values it gave, the items it chose.

// mostCorrections bounds how often one goal's proposal is turned down,
// so an agent that cannot take a correction ends in a failed dialogue
// rather than an endless one.
const mostCorrections = 3

// Every template that turns a proposal down holds a negation of two or
// three letters ("No", "not"): the typos profile leaves such words alone,
// so the verifier never reads a correction as a yes.

var correctTargetID = []string{
	"{No|Hmm, no|Wait, no}{,|.|!} {that's the wrong <noun>|that isn't the <noun> I mean}{.|!} {It's|I meant|I'm talking about} <noun> <want>, not <got>{.|}",
	"No{,| —} it's <noun> <want>, not <got>{.|!}",
	"{No|Nope}{,|.} {I said|I meant|it should be} <noun> <want>{, not <got>|}{.|}",
}

var correctTargetLabel = []string{
	"{No|Hmm, no|Wait, no}{,|.} {that's not the <noun> I mean|that's the wrong <noun>}{.|!} {I mean|I'm talking about|It should be} <label>{.|}",
	"{No|Nope}{,| —} {not that one|that isn't it}. {I meant|It's} <label>{.|}",
}

var correctSlot = []string{
	"{No|Hmm, no|Wait, no}{,|.|!} the <what> {is|should be} <want>{, not <got>|}{.|}",
	"No{,| —} {I said|it should be|make it} <want>{ for the <what>|}{, not <got>|}{.|}",
	"{That's not it|That's not what I said}{ -|,} the <what> {is|should be} <want>{.|}",
}

// correctSlotPlain is correctSlot for a wrong value not worth quoting
// (a list, or one said the same way as the right one).
var correctSlotPlain = []string{
	"{No|Hmm, no|Wait, no}{,|.|!} the <what> {is|should be} <want>{.|}",
	"{That's not it|That's not what I said}{ -|,} the <what> {is|should be} <want>{.|}",
}

// correctSaid is correctSlot for a value said in the pack's words,
// which name what they are for; the first quotes the wrong value.
var correctSaid = []string{
	"{No|Hmm, no|Wait, no}{,|.|!} I {want|asked for|said} <want>{, not <got>|}{.|}",
	"{That's not it|That's not what I said}{ -|,} I {want|need} <want>{.|}",
}

// correctSwitch is correctSlot for a yes/no setting (genericSwitchPieces).
var correctSwitch = []string{
	"{No|Hmm, no|Wait, no}{,|.} {I want|I asked for} the <what> setting {turned|switched} <state>{.|}",
	"{That's not it|That's not what I said}{ -|,} the <what> setting should be <state>{.|}",
}

// correctReason is correctSlot for a reason (genericReasonPieces).
var correctReason = []string{
	"{No|Hmm, no|Wait, no}{,|.} {the reason is that|I said} <clause>{.|}",
	"{That's not it|That's not the reason}{ -|,} <clause>{.|}",
}

var correctChoice = []string{
	"{No|Hmm, no|Wait, no}{,|.|!} {I meant|I want|it should be} <label>{.|}",
	"{That's not what I asked for|Not that one}{.|,} {I meant|it's|I said} <label>{.|}",
}

var correctNew = []string{
	"{No|Hmm, no|Wait, no}{,|.} {I wanted|I asked for|I'd like} <label> instead{.|}",
	"{That's not what I asked for|Not that one}{.|,} {I want|I asked for} <label>{.|}",
}

var askFigure = []string{
	"{Not yet|No, hold on|Not so fast}{ —|,|.} before I {say yes|agree|confirm}, {how much will the <figure> be|what will the <figure> be|can you tell me the <figure>}?",
	"{Not yet|No, wait}{.|,} {what will the <figure> be|how much is the <figure>|what's the <figure>} {first|before I decide}?",
}

var pushbacks = []string{
	"{Are you certain there's nothing you can do?|Is that really the rule?|Are you sure about that?|Is there really nothing you can do?|Is that really the policy?|Can that be right?|Is there truly no other way?|Are you sure there's no way?|{I really hoped you could help|That's not the answer I wanted|That's disappointing|What a pity|That's frustrating|Hmm, I didn't expect that}{.| —}} {can't you make an exception|is there no way to make an exception|couldn't you make an exception} {just this once|for me|this time}{? {It's really important to me|I've been a loyal customer for years|It would mean a lot|I'd be very grateful|This really matters to me|I'm in a bit of a bind|I really need this}{.|!}|?}",
	"{That's not what I hoped to hear|I'm not happy about that|That's really disappointing|Hmm, that's frustrating|Oh no, that's not great|Seriously? That's a problem for me}{.|!| —} {can't you make an exception|is there not some way around it|could you make an exception|is there anything you can do|can you check with someone whether you can bend the rule|could you override it}{ this once| for me| just this one time|}? {It really matters to me|I'd really appreciate it|I'm in a tight spot here|It's important for my plans|I'd be very grateful|I really need this}{.|}",
}

// pushbacksAgain is the second plea: the refusal repeated, the customer
// says what is at stake.
var pushbacksAgain = []string{
	"{But|Look,|Honestly,|Please understand,} {I wouldn't ask if it weren't important|this isn't a small thing for me|I have plans that depend on this|I've never asked for anything like this before}{.|!} {Is there really no way at all?|Can't you check again?|There must be something you can do.|Isn't there anyone who could approve it?}",
	"{I've been with you for years|I've always been a loyal customer|I've never had a problem before|I've paid for this in full}{, and|.} {this is how it ends?|I'm not asking for much here.|one exception won't hurt anyone.|surely that counts for something?}",
	"{That doesn't seem fair|I don't think that's reasonable|That's not what I expected from you}{.|!} {Can't you make it happen this once?|Could you not bend the rule a little?|Isn't there some other way?}",
}

// pushbacksLast is the third plea: the customer asks for someone with
// more say.
var pushbacksLast = []string{
	"{Then|In that case,|Fine, then} {can I talk to a supervisor|is there a manager I could speak to|could someone higher up look at this|can you escalate this}{?| for me?}",
	"{I still don't think that's fair|I'm really not happy with this}{.|!} {Isn't there someone else who can decide?|Can a supervisor not approve it?}",
}

// pleaRounds are the pleas a customer makes in turn.
var pleaRounds = [][]string{pushbacks, pushbacksAgain, pushbacksLast}

// givesIn accepts a refusal the customer pleaded against more than once.
var givesIn = []string{
	"{Fine|Alright then|Okay|Well}{,|.} {I don't like it, but I understand|I guess there's nothing more to do|I'll have to live with it|I can see you can't change it|I give up on that one}{.|!}",
	"{It's disappointing|Not what I hoped for|That's a pity}{, but|. Still,} {I understand|I get it, you have rules|thanks for explaining}{.|}",
}

// check reads the agent's proposal for goal i and turns it down when a
// detail is not what the customer wants, or when it lacks a figure the
// policy says the agent must state before the yes; ok is false when the
// customer has nothing against it.
func (u *Generic) check(ask dialog.Ask) (dialog.Turn, bool) {
	p := ask.Proposal
	i := ask.Goal
	if p == nil || i < 0 || i >= len(u.bp.Goals) || u.corrections[i] >= mostCorrections {
		return dialog.Turn{}, false
	}
	w := u.m.Write(p.Tool)
	if w == nil {
		return dialog.Turn{}, false
	}
	if want := u.truth(i, p.Tool); want != nil {
		if t, ok := u.correction(i, w, want, p.Args); ok {
			u.corrections[i]++
			return t, true
		}
	} else if t, ok := u.wrongRefused(i, w, p.Args); ok {
		u.corrections[i]++
		return t, true
	}
	if !u.figureAsked[i] && !u.holdsFailing(i) {
		// A customer whose first choice cannot pay does not ask: the
		// agent says the figure when it says so (a flawed agent that
		// proposes that choice anyway is caught by the verifier), and
		// states it again with the choice that works.
		for _, f := range u.m.Disclosed(p.Tool) {
			if !slices.Contains(p.Stated, f) {
				u.figureAsked[i] = true
				text := u.say(askFigure, map[string]string{"figure": model.Words(f)})
				return dialog.Turn{Text: text, Acts: []dialog.Act{{Type: "figure", Goal: i}}}, true
			}
		}
	}
	return dialog.Turn{}, false
}

// holdsFailing reports whether the customer of goal i still wants a
// first choice the write will fail on.
func (u *Generic) holdsFailing(i int) bool {
	g := u.bp.Goals[i]
	return (len(g.FailingItems) > 0 || len(g.FailingSlots) > 0 || len(g.UnavailableNew) > 0) && !u.failedOver[i]
}

// truth is the arguments of goal i's ground-truth write with the tool,
// when the goal has exactly one: what the customer wants done.
func (u *Generic) truth(i int, tool string) map[string]any {
	var want map[string]any
	n := 0
	for _, a := range u.bp.Actions {
		if a.Goal != i || a.Kind != record.KindWrite || a.Tool != tool {
			continue
		}
		n++
		var err error
		if want, err = tools.DecodeObject(a.Arguments); err != nil {
			return nil
		}
	}
	if n != 1 {
		return nil
	}
	return want
}

// correction is the customer's no to the first wrong detail: the target
// first (everything else follows from it), then each argument the
// customer gave, in the write's order.
func (u *Generic) correction(i int, w *model.WriteModel, want, got map[string]any) (dialog.Turn, bool) {
	differs := func(name string) bool {
		wv, inWant := want[name]
		gv, inGot := got[name]
		return inWant && inGot && canon(wv) != canon(gv)
	}
	for _, p := range w.Params {
		if (p.Source == model.SrcTargetKey || p.Source == model.SrcTarget) && differs(p.Name) {
			return u.targetCorrection(i, w, p, got), true
		}
	}
	for _, p := range w.Params {
		if _, first := u.failingSlot(i, p.Name); !differs(p.Name) || u.failing(i, p.Name) != nil || first {
			// The ground truth holds the choice that works; the customer
			// still wants the first one it named.
			continue
		}
		piece := ""
		switch p.Source {
		case model.SrcSlot:
			piece = "slot:" + p.Name
			if grp := w.GroupOf(p.Name); grp != "" {
				piece = "like:" + grp
			}
		case model.SrcLike:
			piece = "like:" + p.Group
		case model.SrcPick, model.SrcChoose:
			piece = "choice:" + p.Name
		case model.SrcReplace:
			piece = "new:" + p.Name
		}
		if piece == "" || !u.has(i, piece) {
			continue
		}
		act := dialog.Act{Type: "correct", Goal: i}
		u.pieceAct(i, piece, &act)
		return dialog.Turn{Text: u.correctionText(i, p, piece, got[p.Name]), Acts: []dialog.Act{act}}, true
	}
	return dialog.Turn{}, false
}

func (u *Generic) refusedWrongly(i int) (dialog.Turn, bool) {
	w := u.write(u.bp.Goals[i])
	if w == nil || u.corrections[i] >= mostCorrections || u.bp.Goals[i].Target.Label == "" {
		return dialog.Turn{}, false
	}
	u.corrections[i]++
	t := u.bp.Goals[i].Target
	act := dialog.Act{Type: "correct", Goal: i, Target: &t}
	return dialog.Turn{Text: u.say(correctTargetLabel, map[string]string{"noun": w.TargetNoun(), "label": t.Label}), Acts: []dialog.Act{act}}, true
}

func (u *Generic) targetCorrection(i int, w *model.WriteModel, p *model.ParamModel, got map[string]any) dialog.Turn {
	g := u.bp.Goals[i]
	t := g.Target
	act := dialog.Act{Type: "correct", Goal: i, Target: &t}
	noun := w.TargetNoun()
	if g.Target.ID != "" && p.Source == model.SrcTargetKey {
		return dialog.Turn{Text: u.say(correctTargetID, map[string]string{"noun": noun, "want": w.Coll.KeyText(g.Target.ID), "got": tools.Text(got[p.Name])}), Acts: []dialog.Act{act}}
	}
	return dialog.Turn{Text: u.say(correctTargetLabel, map[string]string{"noun": noun, "label": g.Target.Label}), Acts: []dialog.Act{act}}
}

func (u *Generic) correctionText(i int, p *model.ParamModel, piece string, got any) string {
	g := u.bp.Goals[i]
	kind, name, _ := strings.Cut(piece, ":")
	switch kind {
	case "slot", "like":
		if what, on, ok := setting(p, u.slotValue(i, p.Name)); ok {
			return u.say(correctSwitch, map[string]string{"what": what, "state": onOff(on)})
		}
		if clause, ok := model.ReasonClause(p, u.slotValue(i, p.Name)); ok {
			return u.say(correctReason, map[string]string{"clause": clause})
		}
		gotText := ""
		if s, scalar := got.(string); scalar {
			gotText = s
		} else if _, list := got.([]any); !list {
			gotText = model.SlotText(got)
		}
		want := u.sayValue(i, p.Name)
		gotText = spoken(p, gotText)
		said, plain := model.SaySlot(p, u.slotValue(i, p.Name)) != "", gotText == "" || gotText == want
		tmpls := correctSlot
		switch {
		case said && plain:
			tmpls = correctSaid[1:]
		case said:
			tmpls = correctSaid
		case plain:
			tmpls = correctSlotPlain
		}
		slots := map[string]string{"what": model.ArgWords(p.Name), "want": want, "got": gotText}
		if said {
			return u.say(tmpls, slots)
		}
		return u.say(tmpls, slots, "want", "got")
	case "choice":
		if v, ok := g.Slots[name]; ok {
			return u.say(correctChoice, map[string]string{"label": v})
		}
		return u.say(correctChoice, map[string]string{"label": labels(u.items(i, name))})
	}
	return u.say(correctNew, map[string]string{"label": labels(u.replacements(i, name))})
}

// canon is a value's JSON text: the proposal's typed values and the
// ground truth's decoded ones compare equal when they encode alike.
func canon(v any) string {
	b, err := tools.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
