package usersim

import (
	"encoding/json"
	"reflect"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/record"
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
	re          *keywords
}

// keywords is a case-insensitive regexp of alternatives, with literals
// one of which every match holds: a text holding none of them cannot
// match, which a substring search tells in a fraction of the regexp's
// time (the customer reads an agent's message with a dozen of them, and
// the credit labels of every row read every agent message).
type keywords struct {
	re   *regexp.Regexp
	lits []string // lower case; nil when the pattern requires none
}

func anyOf(alts ...string) *keywords {
	src := `(?i)(` + strings.Join(alts, "|") + `)`
	k := &keywords{re: regexp.MustCompile(src)}
	if tree, err := syntax.Parse(src, syntax.Perl); err == nil {
		k.lits = required(tree)
	}
	return k
}

// MatchString reports whether the regexp matches s. The literals decide
// only for ASCII text, where folding case is lower-casing.
func (k *keywords) MatchString(s string) bool {
	if k.lits != nil && ascii(s) {
		low := strings.ToLower(s)
		if !slices.ContainsFunc(k.lits, func(l string) bool { return strings.Contains(low, l) }) {
			return false
		}
	}
	return k.re.MatchString(s)
}

// required lists literals, lower-cased, one of which every match of re
// holds; nil when it cannot tell (a class, a repetition, an optional
// part, a literal beyond ASCII).
func required(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if s := string(re.Rune); ascii(s) {
			return []string{strings.ToLower(s)}
		}
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			l := required(sub)
			if l == nil {
				return nil
			}
			out = append(out, l...)
		}
		return out
	case syntax.OpConcat:
		// Every part is in every match: the part whose literals are
		// longest filters best.
		var best []string
		for _, sub := range re.Sub {
			if l := required(sub); l != nil && (best == nil || shortest(l) > shortest(best)) {
				best = l
			}
		}
		return best
	}
	return nil
}

func shortest(l []string) int {
	n := len(l[0])
	for _, s := range l[1:] {
		n = min(n, len(s))
	}
	return n
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// farewell marks closing words; a closing never asks a question, which
// tells "Thanks for reaching out! Could you ...?" from a goodbye.
var farewell = anyOf(`have a (great|nice|wonderful|good) (day|one|evening)`, `\btake care\b`, `\bgoodbye\b`, `\bbye\b`,
	`enjoy (the rest of )?your day`, `thanks for contacting us`, `thank you for contacting us`, `all the best`, `thanks for getting in touch`)

// rules, most specific first.
var rules = []rule{
	{"transferred", "", anyOf(`transfer(ring)? you to`, `transferred you`, `hand you over`, `connect you (with|to) a human`, `human (agent|colleague|representative)`)},
	{"identify_again", "", anyOf(`(couldn't|could not|can't|cannot|wasn't able to|was not able to|unable to) (find|locate) (any|an|your|the)? ?account`,
		`no (matching )?account`, `(didn't|did not|doesn't|does not) match (any|an|our)`, `double-check`, `try again`)},
	{"confirm", "", anyOf(`(shall|should|may) i (proceed|go ahead|make this change|carry this out|put this through)`, `(would|do) you (like|want) me to (proceed|go ahead|make this change|carry this out|put this through)`, `(can|could|would) you confirm`,
		`please confirm`, `\(yes/no\)`, `reply (with )?yes`, `confirm with yes`, `is that (correct|right)\?`, `ok(ay)? to proceed`, `a yes from you`)},
	{"identify", "", anyOf(`verify your identity`, `confirm who you are`, `authenticate`, `your email`, `email address`, `email on (your|the) account`,
		`name and zip`, `name plus zip`, `together with your zip`, `(first|full) (and last )?name`, `your zip code`,
		`(also|still) need your`, `also (give|tell) me your`, `what's your zip`)},
	{"piece", "reason", anyOf(`reason for (the )?cancel`, `why you'?d like to cancel`, `why (do|would) you (want|like) to cancel`, `\breason\b`)},
	{"piece", "address", anyOf(`new address`, `which address`, `what address`, `address should i use`, `shipping address would you like`,
		`(whole|full) address`, `where should it go`)},
	{"piece", "payment", anyOf(`payment method`, `receive the refund`, `pay or receive`, `how would you like to pay`, `which card`, `refund (go|be sent) to`)},
	{"piece", "new", anyOf(`instead\?`, `instead of`, `in exchange`, `you'?d like instead`, `in its place`, `in their place`, `in place of`, `should replace each`, `switch it to`, `which variant`, `what version`, `which option`, `replace it with`)},
	{"piece", "items", anyOf(`which items?\b`, `what items?\b (would|do) you`, `what items? (is|are) this`, `name each one`, `each of them`, `what items? should`, `list them all`, `name them`, `each one`)},
	{"piece", "target", anyOf(`which order`, `what order`, `order (id|number)\?`, `order id or`)},
	{"piece", "topic", anyOf(`what can i help you with\?`, `what would you like to do\?`)},
	{"anything_else", "", anyOf(`anything else`, `something else`, `help with anything`, `any other`)},
	{"help", "", anyOf(`how can i help`, `what can i do for you`, `what would you like help with`, `how may i (help|assist)`)},
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
	a, _ := classify(text)
	return a
}

// ClassifyMatch is Classify that also reports whether a rule matched:
// a question no rule knows asks for something of a pack's own (Interpret
// looks for the piece it names).
func ClassifyMatch(text string) (dialog.Ask, bool) { return classify(text) }

// classify is Classify that also reports whether a rule matched.
func classify(text string) (dialog.Ask, bool) {
	sentences := sentenceEnd.Split(strings.TrimSpace(text), -1)
	tail := func(k int) string { return strings.Join(sentences[len(sentences)-k:], " ") }
	if !strings.Contains(text, "?") && farewell.MatchString(tail(min(2, len(sentences)))) {
		return dialog.Ask{Kind: "closing"}, true
	}
	for k := 1; k <= len(sentences); k++ {
		seg := tail(k)
		for _, r := range rules {
			if r.re.MatchString(seg) {
				return dialog.Ask{Kind: r.kind, Piece: r.piece}, true
			}
		}
	}
	return dialog.Ask{Kind: "anything_else"}, false
}

// sentenceEnd splits sentences; a point inside "$12.50" or an id is
// not followed by a space and does not split.
var sentenceEnd = regexp.MustCompile(`[.!?]+\s+`)

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
var refusal = anyOf(`i'?m sorry`, `unfortunately`, `i'?m afraid`, `(can't|cannot|not able to|unable to)`, `policy`, `able to override`)

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
}

// NewListener creates the listener of a blueprint's user; pieces lists
// what a goal needs said (the customer's Pieces).
func NewListener(bp *record.Blueprint, pieces func(record.Goal) []string) *Listener {
	return &Listener{bp: bp, pieces: pieces, requested: map[int]bool{}}
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
	ask, matched := classify(text)
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
	sentences := sentenceEnd.Split(strings.TrimSpace(text), -1)
	last := strings.ToLower(sentences[len(sentences)-1])
	for _, p := range pieces {
		if name := strings.ReplaceAll(strings.ToLower(p), "_", " "); name != "" && strings.Contains(last, name) {
			return p
		}
	}
	return ""
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
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
