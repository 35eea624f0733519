package main

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/synth-data/synth/corpus"
)

// TestStatsTableAligned: a histogram's counts and bars start at the same
// column however long its names (retail's intents reach 37 characters).
func TestStatsTableAligned(t *testing.T) {
	var b strings.Builder
	printHist(&b, map[string]int{"transfer": 3, "refuse:exchange_delivered_order_items": 5, "cancel_pending_order": 46}, 0)
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	col := -1
	for _, l := range lines {
		// The count ends where the first run of digits after the name does.
		name := strings.Fields(l)[0]
		rest := l[strings.Index(l, name)+len(name):]
		end := utf8.RuneCountInString(l) - utf8.RuneCountInString(strings.TrimLeft(rest, " ")) + len(strings.Fields(rest)[0])
		if col >= 0 && end != col {
			t.Errorf("counts end at column %d and %d:\n%s", col, end, b.String())
		}
		col = end
	}
}

// TestStatsLanguageThreshold: a sentence in exactly 2% of the dialogues
// is shown as 2.0% but is not over the threshold, and the output says
// so in counts of dialogues instead of seeming to contradict itself.
func TestStatsLanguageThreshold(t *testing.T) {
	role := func(th float64) *corpus.Role {
		return &corpus.Role{Sentences: 900, Distinct: 700, Threshold: th, OverThreshold: 0,
			Top: []corpus.Sentence{{Text: "Hey, can you help me out?", Share: 0.02}}}
	}
	sum := corpus.Summary{Dialogues: 1000, Roles: map[string]*corpus.Role{corpus.Customer: role(0.02), corpus.Agent: role(0.05)}}
	var b strings.Builder
	printLanguage(&b, "rel", sum)
	for _, want := range []string{
		"  sentences in more than 2% of dialogues (more than 20 of 1000): 0\n  the 1 most common, by share of dialogues:\n    2.0% (20)  Hey, can you help me out?\n",
		"  sentences in more than 5% of dialogues (more than 50 of 1000): 0\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("stats --language lacks %q:\n%s", want, b.String())
		}
	}
}
