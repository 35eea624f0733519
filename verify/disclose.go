package verify

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// A figure the policy says to disclose is said before the customer's
// yes to the write, in the proposal the yes answers, as the write then
// really does it: its amount as the replay computes it from what the
// write did (the pack's outputs on the replayed target and result), and
// for money its direction, who pays whom. A figure said only after the
// yes, a wrong amount, or a charge said as a refund is consent to
// something else.

// Words that say which way money goes, one list each: a statement of a
// figure of money holds words of its direction and none of the other.
// docs/policy-rules.md lists them for pack authors and LLM prompts.
var (
	chargeWords = []string{"charge", "charged", "charges", "charging", "pay", "pays", "paying", "cost", "costs",
		"extra", "more", "owe", "owed", "due", "fee", "fees", "bill", "billed"}
	refundWords = []string{"refund", "refunded", "refunds", "refunding", "back", "in your favour", "in your favor",
		"credited", "reimbursed", "reimburse"}
	chargeSaid = wordsPattern(chargeWords)
	refundSaid = wordsPattern(refundWords)
)

// wordsPattern matches any of words as whole words, case aside.
func wordsPattern(words []string) *regexp.Regexp {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = regexp.QuoteMeta(w)
	}
	return regexp.MustCompile(`(?i)\b(?:` + strings.Join(quoted, "|") + `)\b`)
}

// SaysRefund reports whether a message says money comes back to the
// customer.
func SaysRefund(text string) bool { return refundSaid.MatchString(text) }

// SaysCharge reports whether a message says the customer pays.
func SaysCharge(text string) bool { return chargeSaid.MatchString(text) }

// Directions of a figure's money.
const (
	dirNone   = iota // no money moves, or which way is unknown
	dirCharge        // the customer pays
	dirBack          // money goes back to the customer
)

// figure is one figure a write moves, as it must be said.
type figure struct {
	name  string
	value string // as the pack's outputs write it ("174", "-12.5")
	dir   int
}

// figuresOf are the disclosed figures of a replayed write: its outputs
// on the target and owner as they stood before it (sc) and its result,
// with the direction of each amount of money. nil when the outputs
// cannot be computed.
func figuresOf(w *model.WriteModel, m *model.Model, sc model.Scopes, args map[string]any, res tools.Result) []figure {
	names := m.Disclosed(w.Name)
	sc.Result = model.ResultValue(res)
	outs, err := m.OutputsOf(w, sc)
	if err != nil {
		return nil
	}
	var out []figure
	for _, o := range outs {
		if !slices.Contains(names, o.Name) {
			continue
		}
		f := figure{name: o.Name, value: o.Value}
		back, _ := w.GoesBack(sc.Target, sc.Result, args, o.Name, o.Raw)
		switch n, isNum := model.Number(o.Raw); {
		case isNum && n == 0:
		case back:
			f.dir = dirBack
		case model.IsMoney(o.Name):
			f.dir = dirCharge
		}
		out = append(out, f)
	}
	return out
}

// goldFigures are the ground truth's figures of a goal, for a write the
// replay gives none of: the direction is known only where the figure's
// sign or name says money comes back.
func goldFigures(bp *record.Blueprint, goal int) []figure {
	var out []figure
	for _, o := range bp.Outputs {
		if o.Goal != goal {
			continue
		}
		f := figure{name: o.Name, value: o.Value}
		if strings.HasPrefix(o.Value, "-") || strings.Contains(model.Words(o.Name), "refund") {
			f.dir = dirBack
		}
		out = append(out, f)
	}
	return out
}

// disclosed: each write of the rule's tool was proposed with its
// figures, as the write then did them. A call the tool rejected was an
// attempt at the next call of the tool that went through, and moved the
// money the customer was owed the figure of just the same: a gift card
// proposed without the price difference, then rejected for its balance,
// fails here. A write whose figures the replay cannot compute is held to
// the ground truth's; a blueprint without them (a task made elsewhere
// that records none) cannot be judged and passes.
func disclosed(r pack.Rule, bp *record.Blueprint, tr *record.Trajectory, calls []call) string {
	k := 0
	for i, c := range calls {
		if c.name != r.Tool || !c.write {
			continue
		}
		figs := c.figures
		if c.failed {
			figs = nextFigures(calls[i+1:], r.Tool)
		}
		if figs == nil {
			figs = goldFigures(bp, nthGoal(bp, r.Tool, k))
		}
		if !c.failed {
			k++
		}
		text, yes := proposalBefore(tr, c.msg)
		for _, f := range figs {
			if !slices.Contains(r.Figures, f.name) {
				continue
			}
			if why := figureSaid(text, f); why != "" {
				return "message " + strconv.Itoa(c.msg) + ": " + r.Tool + " was confirmed (message " + strconv.Itoa(yes) + ") " + why
			}
		}
	}
	return ""
}

// nextFigures are the figures of the first call of tool in calls that
// went through, nil when none did.
func nextFigures(calls []call, tool string) []figure {
	for _, c := range calls {
		if c.name == tool && c.write && !c.failed {
			return c.figures
		}
	}
	return nil
}

// nthGoal is the goal of the k-th ground-truth write of a tool (-1: none).
func nthGoal(bp *record.Blueprint, tool string, k int) int {
	for _, a := range bp.Actions {
		if a.Kind == record.KindWrite && a.Tool == tool {
			if k == 0 {
				return a.Goal
			}
			k--
		}
	}
	return -1
}

// proposalBefore is the agent's last words before the customer's yes that
// preceded message i: where a write's details, figures and reminders
// must be. yes is that customer message (-1: none).
func proposalBefore(tr *record.Trajectory, i int) (text string, yes int) {
	yes = -1
	for j := i - 1; j >= 0; j-- {
		m := tr.Messages[j]
		if yes < 0 {
			if m.Role == "user" {
				yes = j
			}
			continue
		}
		if m.Role == "assistant" && m.Content != "" {
			return m.Content, yes
		}
	}
	return "", yes
}

// figureSaid says how text fails to state a figure, "" when it states
// it: the amount (commas, a currency sign and trailing zeros aside; a
// negative one as its magnitude) and, for money, in a sentence that
// says its direction and not the other one.
func figureSaid(text string, f figure) string {
	what := model.Words(f.name)
	want, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimPrefix(f.value, "$"), ",", ""), 64)
	if err != nil {
		if strings.Contains(strings.ToLower(text), strings.ToLower(f.value)) {
			return ""
		}
		return "without the " + what + " (" + f.value + ") being stated first"
	}
	stating := sentencesStating(text, want)
	if len(stating) == 0 {
		if said := amountNamed(text, what); said != "" {
			return "with the " + what + " stated as " + said + " where the write makes it " + f.value
		}
		return "without the " + what + " (" + f.value + ") being stated first"
	}
	if f.dir == dirNone {
		return ""
	}
	right, wrong, as := chargeSaid, refundSaid, "a charge"
	if f.dir == dirBack {
		right, wrong, as = refundSaid, chargeSaid, "money back to the customer"
	}
	if slices.ContainsFunc(stating, func(s string) bool { return right.MatchString(s) && !wrong.MatchString(s) }) {
		return ""
	}
	if slices.ContainsFunc(stating, wrong.MatchString) {
		return "with the " + what + " (" + f.value + ") said the wrong way round: it is " + as
	}
	return "with the " + what + " (" + f.value + ") stated without saying who pays whom: it is " + as
}

// A number as text writes it: "1,038", "12.50", "-435", "-$435".
var numberPattern = regexp.MustCompile(`-?\$?\d[\d,]*(?:\.\d+)?`)

// figureForm makes a number as text one ParseFloat reads.
var figureForm = strings.NewReplacer(",", "", "$", "")

// sentencesStating are the sentences of text that hold the number want
// or its magnitude. The numbers are found in one pass over the text and
// only their sentences cut out: every proposal of a run goes through it.
func sentencesStating(text string, want float64) []string {
	var out []string
	for _, loc := range numberPattern.FindAllStringIndex(text, -1) {
		got, err := strconv.ParseFloat(figureForm.Replace(text[loc[0]:loc[1]]), 64)
		if err == nil && math.Abs(math.Abs(got)-math.Abs(want)) < 0.005 {
			out = append(out, sentenceAt(text, loc[0], loc[1]))
		}
	}
	return out
}

// sentenceAt is the sentence of text that holds text[i:j]: from after
// the last full stop, question or exclamation mark a space follows
// before it to the next one after it (sentencesOf's cuts).
func sentenceAt(text string, i, j int) string {
	start, end := 0, len(text)
	for k := i - 1; k >= 0; k-- {
		if sentenceEndAt(text, k) {
			start = k + 1
			break
		}
	}
	for k := j; k < len(text); k++ {
		if sentenceEndAt(text, k) {
			end = k + 1
			break
		}
	}
	return text[start:end]
}

// sentenceEndAt reports whether text[k] ends a sentence: a full stop,
// question or exclamation mark with a space after it.
func sentenceEndAt(text string, k int) bool {
	switch text[k] {
	case '.', '!', '?':
		return k+1 < len(text) && (text[k+1] == ' ' || text[k+1] == '\n' || text[k+1] == '\t')
	}
	return false
}

// amountNamed is the first amount of money a sentence naming the figure
// (its words, "price difference") says, "" when none does: a figure
// said wrong, not left out.
func amountNamed(text, what string) string {
	for _, s := range sentencesOf(text) {
		if !strings.Contains(strings.ToLower(s), what) {
			continue
		}
		for _, n := range numberPattern.FindAllString(s, -1) {
			if strings.Contains(n, "$") {
				return n
			}
		}
	}
	return ""
}

var sentenceEnd = regexp.MustCompile(`[.!?]\s+`)

// sentencesOf splits a message after each full stop, question or
// exclamation mark a space follows ("$12.50" stays whole), so a figure's
// direction is read from the sentence that states it, not from a
// reminder about another amount.
func sentencesOf(text string) []string {
	var out []string
	start := 0
	for _, loc := range sentenceEnd.FindAllStringIndex(text, -1) {
		out = append(out, text[start:loc[1]])
		start = loc[1]
	}
	return append(out, text[start:])
}
