package usersim

import (
	"math/rand/v2"
	"slices"
	"strings"
)

// protected words carry a decision (a yes is a yes even from a sloppy
// typist), so noise never touches them.
var protected = map[string]bool{"yes": true, "yep": true, "okay": true, "yeah": true, "sure": true, "correct": true, "confirm": true,
	"confirmed": true, "proceed": true, "ahead": true, "right": true, "good": true, "please": true, "instead": true}

// typo adds keyboard noise to ordinary words. Tokens that carry facts
// (digits, @, #, capitalised names) are left alone: a typo must not turn
// into an invented fact.
func typo(rng *rand.Rand, s string, rate float64) string {
	if s == "" {
		return s
	}
	words := strings.Split(s, " ")
	for i, w := range words {
		r := []rune(w)
		if len(r) < 4 || strings.ContainsAny(w, "0123456789@#$_<>") || (r[0] >= 'A' && r[0] <= 'Z' && i > 0) || protected[strings.ToLower(strings.Trim(w, ",.!?"))] {
			continue
		}
		if rng.Float64() >= rate {
			continue
		}
		// Punctuation after the word stays after it: "time?", never "tim?e".
		tail := len(r)
		for tail > 0 && strings.ContainsRune(",.!?:;'\"", r[tail-1]) {
			tail--
		}
		if tail < 4 {
			continue
		}
		end := slices.Clone(r[tail:])
		r = r[:tail]
		j := 1 + rng.IntN(len(r)-2)
		switch rng.IntN(3) {
		case 0: // swap neighbours
			r[j], r[j+1] = r[j+1], r[j]
		case 1: // drop a letter
			r = append(r[:j], r[j+1:]...)
		default: // double a letter
			r = append(r[:j+1], r[j:]...)
		}
		words[i] = string(append(r, end...))
	}
	// A lower-case first letter would be undone: dialog.Tidy starts each
	// sentence upper-case.
	return strings.Join(words, " ")
}
