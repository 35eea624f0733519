package usersim

import (
	"cmp"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/internal/keywords"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// The rule-based user answers Asks. When it talks to an agent that is
// not the oracle (an LLM), nothing hands it the Ask: it reads the agent's
// words instead. Classify maps a message to what it asks of the user
// with keyword rules over the oracle's phrasing and the generic phrasing
// of customer-service agents; the rules are tried in order and the first
// that matches wins, so the specific ones come first.

// rule is one keyword rule: any pattern matching makes the message an
// Ask of that kind (and piece).
type rule struct {
	kind, piece string
	re          *keywords.Set
}

// farewell marks closing words; a closing never asks a question, which
// tells "Thanks for reaching out! Could you ...?" from a goodbye.
var farewell = keywords.AnyOf(`have a (great|nice|wonderful|good) (day|one|evening)`, `\btake care\b`, `\bgoodbye\b`, `\bbye\b`,
	`enjoy (the rest of )?your day`, `thanks for contacting us`, `thank you for contacting us`, `all the best`, `thanks for getting in touch`)

// rules, most specific first.
var rules = []rule{
	{"transferred", "", keywords.AnyOf(`transfer(ring)? you to`, `transferred you`, `hand you over`, `connect you (with|to) a human`, `human (agent|colleague|representative)`)},
	{"identify_again", "", keywords.AnyOf(`(couldn't|could not|can't|cannot|wasn't able to|was not able to|unable to) (find|locate) (any|an|your|the)? ?account`,
		`no (matching )?account`, `(didn't|did not|doesn't|does not) match (any|an|our)`, `double-check`, `try again`)},
	{"confirm", "", keywords.AnyOf(`(shall|should|may) i (proceed|go ahead|make this change|carry this out|put this through)`, `(would|do) you (like|want) me to (proceed|go ahead|make this change|carry this out|put this through)`, `(can|could|would) you confirm`,
		`please confirm`, `\(yes/no\)`, `reply (with )?yes`, `confirm with yes`, `is that (correct|right)\?`, `ok(ay)? to proceed`, `a yes from you`)},
	{"identify", "", keywords.AnyOf(`verify your identity`, `confirm who you are`, `authenticate`, `your email`, `email address`, `email on (your|the) account`,
		`name and zip`, `name plus zip`, `together with your zip`, `(first|full) (and last )?name`, `your zip code`,
		`(also|still) need your`, `also (give|tell) me your`, `what's your zip`)},
	// A reason is asked for in every domain whose policy asks one (an
	// allow rule's facts), in the agent's own words.
	{"piece", "reason", keywords.AnyOf(`reason for (the )?cancel`, `why you'?d like to cancel`, `why (do|would) you (want|like) to cancel`, `\breason\b`)},
}

// afterPieces are the rules tried after the domain's ways of asking for
// a piece (model.Model.Asks), which come after rules.
var afterPieces = []rule{
	{"piece", "topic", keywords.AnyOf(`what can i help you with\?`, `what would you like to do\?`)},
	{"anything_else", "", keywords.AnyOf(`anything else`, `something else`, `help with anything`, `any other`, `what else`, `more i can do`)},
	{"help", "", keywords.AnyOf(`how can i help`, `what can i do for you`, `what would you like help with`, `how may i (help|assist)`)},
}

// Classify reads an agent's message as an Ask: its Kind, and for a
// piece the Piece asked for. Goal and Done are left for Interpret, which
// knows the conversation. A message that asks nothing recognisable is
// read as "anything_else": the user moves on, re-raises what is
// unfinished, or says it is done.
//
// Agents put what they ask last ("Done! The refund goes to your payment
// method. Anything else?"), so the rules read the last sentence first,
// then the last two, and so on: a report before the question does not
// decide what the question is.
func Classify(text string) dialog.Ask {
	a, _ := classify(text, nil)
	return a
}

// ClassifyIn is Classify that also reads the domain's ways of asking
// for a piece (domain.yaml hints.asks): "Which order would you like to
// cancel?" asks for retail's target.
func ClassifyIn(m *model.Model, text string) dialog.Ask {
	a, _ := classify(text, asksOf(m))
	return a
}

func asksOf(m *model.Model) []model.AskModel {
	if m == nil {
		return nil
	}
	return m.Asks
}

// classify is ClassifyIn that also reports whether a rule matched.
func classify(text string, asks []model.AskModel) (dialog.Ask, bool) {
	sentences := splitSentences(strings.TrimSpace(text))
	tail := func(k int) string { return strings.Join(sentences[len(sentences)-k:], " ") }
	if !strings.Contains(text, "?") && farewell.MatchString(tail(min(2, len(sentences)))) {
		return dialog.Ask{Kind: "closing"}, true
	}
	for k := 1; k <= len(sentences); k++ {
		seg := keywords.Fold(tail(k))
		for _, r := range rules {
			if r.re.Match(seg) {
				return dialog.Ask{Kind: r.kind, Piece: r.piece}, true
			}
		}
		for _, a := range asks {
			if a.Set.Match(seg) {
				return dialog.Ask{Kind: "piece", Piece: a.Kind}, true
			}
		}
		for _, r := range afterPieces {
			if r.re.Match(seg) {
				return dialog.Ask{Kind: r.kind, Piece: r.piece}, true
			}
		}
	}
	return dialog.Ask{Kind: "anything_else"}, false
}

// splitSentences splits a text where a run of . ! ? is followed by
// white space (as regexp `[.!?]+\s+` splits it, spelt out: the customer
// and the credit labels split every agent message); a point inside
// "$12.50" or an id is not followed by a space and does not split.
func splitSentences(s string) []string {
	var out []string
	beg := 0
	for i := 0; i < len(s); {
		if !sentencePunct(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && sentencePunct(s[j]) {
			j++
		}
		k := j
		for k < len(s) && strings.IndexByte(" \t\n\f\r", s[k]) >= 0 {
			k++
		}
		if k > j {
			out = append(out, s[beg:i])
			beg = k
		}
		i = k
	}
	return append(out, s[beg:])
}

func sentencePunct(c byte) bool { return c == '.' || c == '!' || c == '?' }

// Executed is one tool call the agent made, as the user can infer it
// from the conversation: which tool, with what arguments, and whether
// it changed something successfully.
type Executed struct {
	Tool      string
	Arguments string
	Write     bool // the tool is a write
	Failed    bool // the call returned an error observation
}

// refusal marks an agent declining a request.
var refusal = keywords.AnyOf(`i'?m sorry`, `unfortunately`, `i'?m afraid`, `(can't|cannot|not able to|unable to)`, `policy`, `able to override`, `not (something )?i'?m allowed`)

// Refuses reports whether a message that asks nothing of the customer
// (Classify's anything_else, help or closing) declines a request, the
// way Interpret reads it for the customer (Ask.Refused); the credit
// labels read an agent's refusals with the same words.
func Refuses(text string) bool { return refusal.MatchString(text) }

// Listener reads an agent's messages for one user: the Asks of an agent
// that does not hand them over. It follows the user's own turns (Heard)
// to know which request is under discussion, so it works with any user
// that states its acts (the generic pack user).
type Listener struct {
	bp     *record.Blueprint
	pieces func(record.Goal) []string
	// current is the goal the user raised last; requested those raised.
	current   int
	requested map[int]bool
	// answered lists the goals without writes that the agent has
	// answered or refused: it moved on after they were requested.
	answered []int
	// words, when set, names a domain's identity details and each
	// piece in the words its agents ask with (NewListenerFor), for the
	// questions the keyword rules, written on retail, do not know.
	words *Generic
	// asks are the domain's ways of asking for a piece.
	asks []model.AskModel
}

// NewListener creates the listener of a blueprint's user in a domain (m,
// whose ways of asking for a piece it reads; nil for none); pieces
// lists what a goal needs said (the customer's Pieces).
func NewListener(m *model.Model, bp *record.Blueprint, pieces func(record.Goal) []string) *Listener {
	return &Listener{bp: bp, pieces: pieces, requested: map[int]bool{}, asks: asksOf(m)}
}

// NewListenerFor creates the listener of a generic user, which also
// reads the questions of any domain by its own words: "your user id"
// asks for the identity, "which reservation" or "the genre and year"
// for the target, "the cabin" for that slot.
func NewListenerFor(bp *record.Blueprint, u *Generic) *Listener {
	l := NewListener(u.m, bp, u.Pieces)
	l.words = u
	return l
}

// Heard records a turn of the user's: the requests it makes.
func (l *Listener) Heard(t dialog.Turn) {
	for _, a := range t.Acts {
		if a.Type == "request" && a.Goal >= 0 && a.Goal < len(l.bp.Goals) {
			if !a.Instead || !l.requested[l.current] {
				// A plan B waits for the refusal of the request before it.
				l.current = a.Goal
			}
			l.requested[a.Goal] = true
		}
	}
}

// Interpret reads an agent's message in the conversation so far: the
// Ask of Classify with the goal it concerns (the request the user made
// last), the goals the agent has finished — inferred from the
// successful write calls matched against the ground truth, and for
// goals without writes from the agent moving on after answering — and
// whether the agent just refused.
func (l *Listener) Interpret(text string, calls []Executed) dialog.Ask {
	ask, matched := classify(text, l.asks)
	if next := l.current + 1; next < len(l.bp.Goals) && l.bp.Goals[next].Instead && l.requested[next] &&
		ask.Kind != "identify" && ask.Kind != "identify_again" && refusal.MatchString(text) {
		// The agent refused the request and took up the plan B asked for
		// with it.
		if !slices.Contains(l.answered, l.current) {
			l.answered = append(l.answered, l.current)
		}
		l.current = next
	}
	ask.Goal = l.current
	g := l.bp.Goals[l.current]
	pieces := l.pieces(g)
	if l.words != nil && ask.Kind == "anything_else" {
		// What the retail rules miss ("Before anything else, could you
		// give me your user id?", "Tell me which reservation you have in
		// mind."), read by the domain's words: the identity the question
		// asks for, or the piece it names.
		if q := askSentence(text); q != "" {
			if l.words.asksIdentity(q) {
				ask, matched = dialog.Ask{Kind: "identify", Goal: l.current}, true
			} else if p := l.words.namedPiece(g, q, pieces); p != "" {
				ask, matched = dialog.Ask{Kind: "piece", Piece: p, Goal: l.current}, true
			}
		}
	}
	switch {
	case ask.Kind == "piece" && ask.Piece == "topic" && g.Slots["topic"] == "":
		// "What would you like to do?" outside a transfer is an open question.
		ask = dialog.Ask{Kind: "help", Goal: l.current}
	case ask.Kind == "piece" && !slices.Contains(pieces, ask.Piece):
		// The goal's own piece of that kind (the payment method is its
		// choice:payment_method_id), one the message names, or an open
		// question, which restates the request with what the user knows.
		if p := pieceOfKind(ask.Piece, pieces); p != "" {
			ask.Piece = p
			break
		}
		if l.words != nil {
			if p := l.words.namedPiece(g, askSentence(text), pieces); p != "" {
				ask.Piece = p
				break
			}
		}
		ask = dialog.Ask{Kind: "anything_else", Goal: l.current}
		if p := namedPiece(text, pieces); p != "" {
			ask = dialog.Ask{Kind: "piece", Piece: p, Goal: l.current}
		}
	case !matched && strings.Contains(text, "?"):
		// A question no rule knows: a piece it names (a pack's own slot,
		// "What priority should the ticket get?").
		if p := namedPiece(text, pieces); p != "" {
			ask = dialog.Ask{Kind: "piece", Piece: p, Goal: l.current}
		}
	}
	if ask.Kind == "anything_else" || ask.Kind == "help" {
		// The agent moved on: a request with nothing to write was answered
		// (or refused).
		if l.requested[l.current] && writesOf(l.bp, l.current) == 0 && !slices.Contains(l.answered, l.current) {
			l.answered = append(l.answered, l.current)
		}
		ask.Refused = refusal.MatchString(text)
	}
	ask.Done = l.doneGoals(calls)
	return ask
}

// ReadAsk reads an agent's message as the Listener of the blueprint's
// customer reads it with the domain's words (NewListenerFor), but
// without following the conversation: Classify's Ask, or for a message
// no rule reads as asking, an identify Ask when its last question asks
// for an identity detail, else a piece Ask for the piece of any of the
// blueprint's goals it names most. matched says a rule or the words
// read it. With a nil model only the rules read (Classify).
func ReadAsk(m *model.Model, bp *record.Blueprint, text string) (dialog.Ask, bool) {
	ask, matched := classify(text, asksOf(m))
	if m == nil || bp == nil || ask.Kind != "anything_else" {
		return ask, matched
	}
	q := askSentence(text)
	if q == "" {
		return ask, matched
	}
	u := &Generic{m: m}
	if u.asksIdentity(q) {
		return dialog.Ask{Kind: "identify"}, true
	}
	for i, g := range bp.Goals {
		if p := u.namedPiece(g, q, u.Pieces(g)); p != "" {
			return dialog.Ask{Kind: "piece", Piece: p, Goal: i}, true
		}
	}
	return ask, matched
}

// pieceOfKind maps what a rule recognised (an address, a payment method,
// items, their replacements, a reason) to the goal's piece of that kind.
func pieceOfKind(kind string, pieces []string) string {
	prefix, word := "", kind
	switch kind {
	case "address":
		prefix, word = "like:", ""
	case "items":
		prefix, word = "choice:", "item"
	case "new":
		prefix, word = "new:", ""
	case "payment":
		word = "payment"
	case "reason":
		prefix = "slot:"
	}
	for _, p := range pieces {
		if strings.HasPrefix(p, prefix) && strings.Contains(p, word) && p != "target" {
			return p
		}
	}
	return ""
}

// namedPiece finds a piece whose name (underscores read as spaces) the
// last sentence of text mentions.
func namedPiece(text string, pieces []string) string {
	sentences := splitSentences(strings.TrimSpace(text))
	last := strings.ToLower(sentences[len(sentences)-1])
	for _, p := range pieces {
		if name := strings.ReplaceAll(strings.ToLower(p), "_", " "); name != "" && strings.Contains(last, name) {
			return p
		}
	}
	return ""
}

// askWords begin a sentence that asks without a question mark ("Tell me
// which reservation you have in mind.", "I'll need your user id.",
// "Next, please tell me how many checked bags you'd like.").
var askWords = regexp.MustCompile(`(?i)^((and|now|next|also|then),? )?((please )?(tell|give|share|send|provide|let me know|describe|name)|i('ll| will)? need)\b`)

// sentenceWithEnd finds sentence ends, the last one included.
var sentenceWithEnd = regexp.MustCompile(`[.!?]+(\s+|$)`)

// askSentence is the last question of text, else its last request to
// tell ("Tell me which reservation you have in mind."); "" when nothing
// asks.
func askSentence(text string) string {
	text = strings.TrimSpace(text)
	var question, tell string
	from := 0
	for _, loc := range append(sentenceWithEnd.FindAllStringIndex(text, -1), []int{len(text), len(text)}) {
		s := strings.TrimSpace(text[from:loc[1]])
		from = loc[1]
		switch {
		case strings.Contains(s, "?"):
			question = s
		case askWords.MatchString(s):
			tell = s
		}
	}
	question = cmp.Or(question, tell)
	return strings.ToLower(question)
}

// asksIdentity reports whether a question asks for a detail the
// customer identifies with ("your user id", "your card number").
func (u *Generic) asksIdentity(q string) bool {
	if u.m.Users == nil {
		return false
	}
	for _, im := range u.m.Users.Identify {
		for _, p := range im.Params {
			if dialog.ContainsWord(q, "your "+strings.ToLower(model.Words(p))) {
				return true
			}
		}
	}
	return false
}

// namedPiece is the piece of the goal whose words the question says
// most often ("no checked bags, one checked bag or two checked bags" is
// the bags, not the "no" of travel insurance); the first of a tie, ""
// for none.
func (u *Generic) namedPiece(g record.Goal, q string, pieces []string) string {
	best, most := "", 0
	for _, p := range pieces {
		n := 0
		for _, w := range u.pieceWords(g, p) {
			if w != "" && dialog.ContainsWord(q, strings.ToLower(w)) {
				n += len(w)
			}
		}
		if n > most {
			best, most = p, n
		}
	}
	return best
}

// pieceWords are the words an agent names a piece with: the target's
// noun (a search's criteria), an argument's words, a group's name.
func (u *Generic) pieceWords(g record.Goal, piece string) []string {
	kind, name, _ := strings.Cut(piece, ":")
	w := u.write(g)
	switch kind {
	case "target":
		if s, ok := u.m.Searches[g.Target.Collection]; ok {
			out := []string{s.Noun}
			for _, p := range s.Params {
				out = append(out, model.Words(p))
			}
			return out
		}
		if c, ok := u.m.Colls[g.Target.Collection]; ok {
			return []string{c.Noun}
		}
	case "like":
		return []string{model.Words(model.LastStep(name))}
	case "new":
		if w != nil {
			if p := w.Param(name); p != nil && p.Replace != nil {
				return []string{model.ArgWords(p.Replace.Of)}
			}
		}
	case "slot", "choice":
		out := []string{model.ArgWords(name)}
		if w != nil {
			if what, _, _, ok := w.Param(name).CountChoices(); ok {
				// "How many checked bags in total would you like?"
				out = append(out, what)
			}
			if p := w.Param(name); p != nil && len(p.Choices) <= 8 {
				// "Would you like basic economy, economy class or business
				// class?" names the slot by its choices.
				for _, c := range p.Choices {
					out = append(out, model.SaySlot(p, c), model.ValueWords(c))
				}
			}
		}
		return out
	}
	return nil
}

func writesOf(bp *record.Blueprint, goal int) int {
	n := 0
	for _, a := range bp.Actions {
		if a.Kind == record.KindWrite && a.Goal == goal {
			n++
		}
	}
	return n
}

// doneGoals lists the goals the agent finished: every ground-truth
// write of the goal matched by a successful write call (same tool,
// same arguments when one matches exactly, else the same tool: the
// user believes what the agent did, right or wrong), and the answered
// goals without writes.
func (l *Listener) doneGoals(calls []Executed) []int {
	bp := l.bp
	used := make([]bool, len(calls))
	matched := map[int]int{}
	for _, a := range bp.Actions {
		if a.Kind != record.KindWrite {
			continue
		}
		best := -1
		for i, c := range calls {
			if used[i] || !c.Write || c.Failed || c.Tool != a.Tool {
				continue
			}
			if sameArgs(c.Arguments, string(a.Arguments)) {
				best = i
				break
			}
			if best < 0 {
				best = i
			}
		}
		if best >= 0 {
			used[best] = true
			matched[a.Goal]++
		}
	}
	var done []int
	for i := range bp.Goals {
		n := writesOf(bp, i)
		if n > 0 && matched[i] == n {
			done = append(done, i)
		}
	}
	for _, i := range l.answered {
		if !slices.Contains(done, i) {
			done = append(done, i)
		}
	}
	return done
}

// sameArgs compares two JSON argument objects by value.
func sameArgs(a, b string) bool {
	x, err := tools.DecodeJSON(a)
	if err != nil {
		return false
	}
	y, err := tools.DecodeJSON(b)
	if err != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
