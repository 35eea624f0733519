package corpus

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/release"
)

// Roles measured: the customer and the agent.
const (
	Customer = "user"
	Agent    = "assistant"
)

// Thresholds of dialogue share above which a sentence counts as
// repeated: a customer sentence in more than 2% of dialogues, an agent
// sentence in more than 5% (the targets synth holds its phrase banks to).
var thresholds = map[string]float64{Customer: 0.02, Agent: 0.05}

// Small is the sample distinct-n is also given at, as published
// comparisons use 50 dialogues.
const Small = 50

// Meter accumulates rows.
type Meter struct {
	roles  map[string]*roleMeter
	counts Counts
}

type roleMeter struct {
	// dialogues counts, per sentence, the dialogues it occurs in;
	// occurrences its uses.
	dialogues   map[string]int
	occurrences map[string]int
	total       int
	small, all  ngrams
}

type ngrams struct {
	uni, bi   map[string]bool
	nUni, nBi int
}

func (g *ngrams) add(words []string) {
	if g.uni == nil {
		g.uni, g.bi = map[string]bool{}, map[string]bool{}
	}
	for i, w := range words {
		g.uni[w] = true
		g.nUni++
		if i > 0 {
			g.bi[words[i-1]+" "+w] = true
			g.nBi++
		}
	}
}

func (g *ngrams) distinct() (d1, d2 float64) {
	return ratio(len(g.uni), g.nUni), ratio(len(g.bi), g.nBi)
}

// Counts are the situations, each counted once per dialogue.
type Counts struct {
	Dialogues int `json:"dialogues"`
	// Recovery rows: a flawed agent's mistake the customer caught, then
	// the correction (the row's kind).
	Recovery int `json:"recovery"`
	// Corrections: the customer turns a proposal down ("No, make it …").
	Corrections int `json:"corrections"`
	// Pushbacks: the customer asks for an exception after a refusal.
	Pushbacks int `json:"pushbacks"`
	// ToolErrors: a tool answered with an error, or the agent said the
	// customer's choice cannot pay (a gift card short of the amount):
	// the tool_error situation, whose write the agent no longer tries
	// when it can read the failure first.
	ToolErrors int `json:"tool_errors"`
	// Transfers: the agent handed the customer to a person.
	Transfers int `json:"transfers"`
	// Forgotten: the customer says they do not know something asked
	// for (an order's id) and describes it instead.
	Forgotten int `json:"forgotten"`
	// Digressions: the customer asked something off the task and the
	// agent steered back to the request.
	Digressions int `json:"digressions"`
	// Incomplete: the customer gave part of what was asked (a name
	// without the zip) and the agent asked for the rest.
	Incomplete int `json:"incomplete"`
}

// pleading are the customer's words for asking past a refusal.
var pleading = []string{"exception", "some way around", "bend the rule", "override it", "anything you can do"}

// forgetting are the customer's words for not knowing what was asked.
var forgetting = []string{"don't remember", "don't know the", "handy, but", "not sure what the", "can't find the", "no idea about", "can't recall the", "isn't in front of me"}

// steering are the agent's words for returning to the request after a
// customer's off-task question.
var steering = []string{"finish your request", "going with your request", "get back to what you asked for", "finish what you came in for", "get your request done", "back to your request"}

// cannotPay are the agent's words for a choice of the customer's that
// cannot pay for the request, said instead of proposing it.
var cannotPay = []string{"doesn't cover the", "isn't enough for the", "falls short of the", "can't cover this", "won't cover this",
	"can't be used for this", "can't be used here", "won't work here", "so i can't use it", "it can't pay for this", "it won't cover it"}

// askingRest are the agent's words for asking the rest of a half answer.
var askingRest = []string{"also need your", "still need your", "also give me your", "also tell me your"}

// NewMeter returns an empty meter.
func NewMeter() *Meter {
	return &Meter{roles: map[string]*roleMeter{
		Customer: {dialogues: map[string]int{}, occurrences: map[string]int{}},
		Agent:    {dialogues: map[string]int{}, occurrences: map[string]int{}},
	}}
}

// Add measures one dialogue; kind is the SFT row's kind ("recovery" or
// "").
func (m *Meter) Add(msgs []record.Message, kind string) {
	c := &m.counts
	c.Dialogues++
	if kind == "recovery" {
		c.Recovery++
	}
	seen := map[string]map[string]bool{Customer: {}, Agent: {}}
	var corrected, pushed, failed, transferred, forgot, steered, rest bool
	for i, msg := range msgs {
		switch msg.Role {
		case "tool":
			failed = failed || strings.HasPrefix(msg.Content, "Error")
			continue
		case Customer:
			low := strings.ToLower(msg.Content)
			pushed = pushed || slices.ContainsFunc(pleading, func(f string) bool { return strings.Contains(low, f) })
			corrected = corrected || i > 0 && proposal(msgs[:i]) && turnsDown(low)
			forgot = forgot || slices.ContainsFunc(forgetting, func(f string) bool { return strings.Contains(low, f) })
		case Agent:
			low := strings.ToLower(msg.Content)
			steered = steered || slices.ContainsFunc(steering, func(f string) bool { return strings.Contains(low, f) })
			rest = rest || slices.ContainsFunc(askingRest, func(f string) bool { return strings.Contains(low, f) })
			failed = failed || slices.ContainsFunc(cannotPay, func(f string) bool { return strings.Contains(low, f) })
			for _, tc := range msg.ToolCalls {
				transferred = transferred || strings.Contains(tc.Function.Name, "transfer")
			}
		default:
			continue
		}
		r := m.roles[msg.Role]
		for _, s := range Sentences(msg.Content) {
			r.occurrences[s]++
			r.total++
			if !seen[msg.Role][s] {
				seen[msg.Role][s] = true
				r.dialogues[s]++
			}
		}
		words := Words(msg.Content)
		if c.Dialogues <= Small {
			r.small.add(words)
		}
		r.all.add(words)
	}
	c.Corrections += count(corrected)
	c.Pushbacks += count(pushed)
	c.ToolErrors += count(failed)
	c.Transfers += count(transferred)
	c.Forgotten += count(forgot)
	c.Digressions += count(steered)
	c.Incomplete += count(rest)
}

// proposal reports whether the agent's last words before a customer turn
// asked for a yes.
func proposal(before []record.Message) bool {
	for j := len(before) - 1; j >= 0; j-- {
		if m := before[j]; m.Role == Agent && m.Content != "" {
			low := strings.ToLower(m.Content)
			return strings.Contains(low, "confirm") || strings.Contains(low, "proceed") || strings.Contains(low, "(yes/no)")
		}
	}
	return false
}

// turnsDown reports whether a customer's answer to a proposal is a no.
func turnsDown(low string) bool {
	return slices.ContainsFunc([]string{"no,", "no ", "no.", "no —", "not quite", "that's not", "that isn't"}, func(p string) bool { return strings.HasPrefix(low, p) })
}

// Summary is what a meter measured.
type Summary struct {
	Dialogues int              `json:"dialogues"`
	Roles     map[string]*Role `json:"roles"`
	Counts    Counts           `json:"counts"`
}

// Role is the measure of one role's sentences and words.
type Role struct {
	Sentences int `json:"sentences"`
	Distinct  int `json:"distinct_sentences"`
	// RepeatedShare is the share of sentence uses whose sentence is used
	// 5 times or more in the sample.
	RepeatedShare float64 `json:"repeated_share"`
	// Threshold is the dialogue share above which a sentence is too
	// common; OverThreshold counts the sentences above it.
	Threshold     float64 `json:"threshold"`
	OverThreshold int     `json:"over_threshold"`
	// Top are the most common sentences by dialogue share.
	Top []Sentence `json:"top"`
	// Distinct1 and Distinct2 are distinct n-grams over all n-grams, on
	// the first Small dialogues and on the whole sample.
	Distinct1Small float64 `json:"distinct1_at_50"`
	Distinct2Small float64 `json:"distinct2_at_50"`
	Distinct1      float64 `json:"distinct1"`
	Distinct2      float64 `json:"distinct2"`
	// Malformed counts the uses of sentences Malformed finds fault with,
	// by kind; MalformedTop are the most used of them.
	Malformed      int            `json:"malformed"`
	MalformedKinds map[string]int `json:"malformed_kinds,omitempty"`
	MalformedTop   []Sentence     `json:"malformed_top,omitempty"`
}

// Sentence is one sentence and the share of dialogues it occurs in.
type Sentence struct {
	Text  string  `json:"text"`
	Share float64 `json:"share"`
}

// Summary returns the measures, with the top n sentences per role.
func (m *Meter) Summary(n int) Summary {
	out := Summary{Dialogues: m.counts.Dialogues, Roles: map[string]*Role{}, Counts: m.counts}
	for name, r := range m.roles {
		role := &Role{Sentences: r.total, Distinct: len(r.dialogues), Threshold: thresholds[name]}
		repeated := 0
		for _, k := range r.occurrences {
			if k >= 5 {
				repeated += k
			}
		}
		role.RepeatedShare = ratio(repeated, r.total)
		sents := slices.SortedFunc(maps.Keys(r.dialogues), func(a, b string) int {
			return cmp.Or(cmp.Compare(r.dialogues[b], r.dialogues[a]), cmp.Compare(a, b))
		})
		for i, s := range sents {
			share := ratio(r.dialogues[s], m.counts.Dialogues)
			if share > role.Threshold {
				role.OverThreshold++
			}
			if i < n {
				role.Top = append(role.Top, Sentence{Text: s, Share: share})
			}
		}
		role.Malformed, role.MalformedKinds, role.MalformedTop = r.faults(n, m.counts.Dialogues)
		role.Distinct1Small, role.Distinct2Small = r.small.distinct()
		role.Distinct1, role.Distinct2 = r.all.distinct()
		out.Roles[name] = role
	}
	return out
}

// faults sums the malformed sentences' uses by kind and gives the n
// most used, each with its share of dialogues: each distinct sentence
// is judged once, not at each use.
func (r *roleMeter) faults(n, dialogues int) (int, map[string]int, []Sentence) {
	total, kinds := 0, map[string]int{}
	var sents []string
	for s, k := range r.occurrences {
		if kind := Malformed(s); kind != "" {
			total += k
			kinds[kind] += k
			sents = append(sents, s)
		}
	}
	if total == 0 {
		return 0, nil, nil
	}
	slices.SortFunc(sents, func(a, b string) int {
		return cmp.Or(cmp.Compare(r.occurrences[b], r.occurrences[a]), cmp.Compare(a, b))
	})
	var top []Sentence
	for _, s := range sents[:min(n, len(sents))] {
		top = append(top, Sentence{Text: s, Share: ratio(r.dialogues[s], dialogues)})
	}
	return total, kinds, top
}

// Sentences splits text into sentences: each ends at ., ? or ! followed
// by a space or the end, and is kept as written, trimmed.
func Sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '.', '?', '!':
			if i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n' {
				if s := strings.TrimSpace(text[start : i+1]); len(s) > 1 {
					out = append(out, s)
				}
				start = i + 1
			}
		case '\n':
			if s := strings.TrimSpace(text[start:i]); len(s) > 1 {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(text[start:]); len(s) > 1 {
		out = append(out, s)
	}
	return out
}

// Words are the words of text as distinct-n counts them (release's
// EachWord), so these figures and the manifest's distinct-n agree.
func Words(text string) []string {
	var out []string
	release.EachWord(text, func(w string) { out = append(out, w) })
	return out
}

func count(b bool) int {
	if b {
		return 1
	}
	return 0
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
