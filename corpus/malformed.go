package corpus

import (
	"strings"
	"unicode"
	"unicode/utf8"
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
	if lowerWord(s) {
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

// lowerWord reports whether s starts with a word of lower-case letters
// only: an id ("iPhone", "#W123", "bob@x.com", "pm_7") is not a word a
// writer would capitalise.
func lowerWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	if !unicode.IsLower(r) {
		return false
	}
	word, _, _ := strings.Cut(s, " ")
	word = strings.TrimRight(word, ".,?!:;")
	// "bob.smith@x.com" is one token: an inner mark makes it an id.
	for _, r := range word {
		if !unicode.IsLower(r) && r != '\'' {
			return false
		}
	}
	return true
}
