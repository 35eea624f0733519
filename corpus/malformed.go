package corpus

import (
	"strings"

	"github.com/synth-data/synth/dialog"
)

// Kinds of malformed sentence (Malformed).
const (
	// LowerStart: a sentence whose first word is an ordinary lower-case
	// word ("the original payment method." after another sentence), as a
	// piece said alone lands inside a longer message.
	LowerStart = "lowercase_start"
	// PleaseQuestion: an imperative asked as a question ("Please tell me
	// the zip code?").
	PleaseQuestion = "imperative_question"
	// QuestionStop: a question closed with a full stop ("Can I return it
	// to you.").
	QuestionStop = "question_full_stop"
	// BadPunctuation: punctuation that runs together (",.", "?.", " .").
	BadPunctuation = "punctuation"
)

// questionOpeners start a sentence that asks; it must end with "?".
var questionOpeners = []string{
	"could you ", "can you ", "can i ", "could i ", "would you ", "will you ", "shall i ", "should i ",
	"do you ", "did you ", "is it possible ", "is there ", "are there ", "what's ", "what is ", "which ",
	"how can ", "how do ", "may i ", "are you ",
}

// runTogether are punctuation pairs no writer means.
var runTogether = []string{",.", ".,", "?.", "!.", ",?", ":.", " .", " ,", " ?", ",,", ";."}

// Malformed returns the kind of defect of one sentence as Sentences
// splits a message, or "" when it reads as well formed. It judges form
// only, never content: a reader's first objection to templated text.
func Malformed(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	for _, p := range runTogether {
		if strings.Contains(s, p) {
			return BadPunctuation
		}
	}
	if s[0] >= 'a' && s[0] <= 'z' && dialog.PlainWord(s) {
		// The words dialog.Tidy capitalises, so the check and the fix agree.
		return LowerStart
	}
	// "Please be quick: could you …?" is judged by what follows the colon.
	if _, after, ok := strings.Cut(s, ": "); ok && after != "" {
		s = after
	}
	low := strings.ToLower(s)
	last := s[len(s)-1]
	if strings.HasPrefix(low, "please ") && last == '?' {
		return PleaseQuestion
	}
	if last == '.' {
		for _, q := range questionOpeners {
			if strings.HasPrefix(low, q) {
				return QuestionStop
			}
		}
	}
	return ""
}
