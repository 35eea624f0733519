package usersim

import (
	"regexp"
	"slices"
	"strings"

	"github.com/synth-data/synth/model"
)

// sentenceEnd is the regexp splitSentences spells out.
var sentenceEnd = regexp.MustCompile(`[.!?]+\s+`)

// SplitSentencesForTest is splitSentences, and SplitByRegexpForTest the
// regexp's split it must agree with.
func SplitSentencesForTest(s string) []string { return splitSentences(s) }
func SplitByRegexpForTest(s string) []string  { return sentenceEnd.Split(s, -1) }

// ClassifyByRegexpsForTest is classify with the regexps alone, no
// literal filtering and the sentences split by the regexp: the
// reference the filter and the split must agree with.
func ClassifyByRegexpsForTest(text string, asks []model.AskModel) (string, string, bool) {
	sentences := sentenceEnd.Split(strings.TrimSpace(text), -1)
	tail := func(k int) string { return strings.Join(sentences[len(sentences)-k:], " ") }
	if !strings.Contains(text, "?") && farewell.Regexp().MatchString(tail(min(2, len(sentences)))) {
		return "closing", "", true
	}
	for k := 1; k <= len(sentences); k++ {
		seg := tail(k)
		for _, r := range rules {
			if r.re.Regexp().MatchString(seg) {
				return r.kind, r.piece, true
			}
		}
		for _, a := range asks {
			if a.Set.Regexp().MatchString(seg) {
				return "piece", a.Kind, true
			}
		}
		for _, r := range afterPieces {
			if r.re.Regexp().MatchString(seg) {
				return r.kind, r.piece, true
			}
		}
	}
	return "anything_else", "", false
}

// RefusesByRegexpForTest is Refuses with the regexp alone.
func RefusesByRegexpForTest(text string) bool { return refusal.Regexp().MatchString(text) }

// RequiredLiteralsForTest lists each rule's literals, the domain's
// ways of asking included.
func RequiredLiteralsForTest(asks []model.AskModel) [][]string {
	var out [][]string
	for _, r := range slices.Concat(rules, afterPieces) {
		out = append(out, r.re.Literals())
	}
	for _, a := range asks {
		out = append(out, a.Set.Literals())
	}
	return out
}

// Test helpers shared with the external test package.
var (
	EntitiesForTest      = entities
	StripForTest         = strip
	WordsForTest         = words
	NonNativeForTest     = nonNative
	ClassifyMatchForTest = classify
)
