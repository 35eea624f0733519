package usersim

import (
	"math/rand/v2"
	"strings"
)

// expand renders a template: "{a|b|c}" picks one alternative (nesting
// allowed), "<name>" is replaced from slots after alternatives are chosen,
// so a slot value is never altered by choice or noise.
func expand(rng *rand.Rand, tmpl string) string {
	var b strings.Builder
	expandInto(&b, rng, tmpl)
	return b.String()
}

func expandInto(b *strings.Builder, rng *rand.Rand, s string) {
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			b.WriteByte(s[i])
			continue
		}
		end, alts := splitAlts(s, i)
		if alts == nil {
			// An unclosed group is taken literally rather than failing a dialogue.
			b.WriteString(s[i:])
			return
		}
		expandInto(b, rng, alts[rng.IntN(len(alts))])
		i = end
	}
}

// splitAlts finds the group starting at s[start] == '{' and returns the
// index of its closing brace and its top-level alternatives, or nil
// alternatives when the group is never closed.
func splitAlts(s string, start int) (int, []string) {
	depth := 0
	var alts []string
	last := start + 1
	for i := start; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i, append(alts, s[last:i])
			}
		case '|':
			if depth == 1 {
				alts = append(alts, s[last:i])
				last = i + 1
			}
		}
	}
	return len(s), nil
}

func fill(s string, slots map[string]string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(s)
			break
		}
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		name := s[i+1 : i+j]
		if v, ok := slots[name]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(s[i : i+j+1])
		}
		s = s[i+j+1:]
	}
	return b.String()
}

// Render expands a template and fills its slots.
func Render(rng *rand.Rand, tmpl string, slots map[string]string) string {
	return tidy(fill(capitalize(expand(rng, tmpl)), slots))
}

// capitalize upper-cases the first letter of template text. It runs
// before slots are filled, so a message that opens with a fact (an email,
// an id) keeps the fact exactly as it is.
func capitalize(s string) string {
	t := strings.TrimLeft(s, " ")
	if t == "" || t[0] < 'a' || t[0] > 'z' {
		return s
	}
	return strings.ToUpper(t[:1]) + t[1:]
}

// tidy collapses the double spaces and stray spaces before punctuation
// that empty alternatives leave behind.
func tidy(s string) string {
	for strings.Contains(s, "  ") {
		s = strings.ReplaceAll(s, "  ", " ")
	}
	for _, p := range []string{" ,", " .", " ?", " !"} {
		s = strings.ReplaceAll(s, p, p[1:])
	}
	// An empty slot before punctuation ("Thanks, <first>.") leaves a comma.
	for _, p := range []string{",.", ",!", ",?"} {
		s = strings.ReplaceAll(s, p, p[1:])
	}
	return strings.TrimSpace(s)
}

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
		j := 1 + rng.IntN(len(r)-2)
		switch rng.IntN(3) {
		case 0: // swap neighbours
			r[j], r[j+1] = r[j+1], r[j]
		case 1: // drop a letter
			r = append(r[:j], r[j+1:]...)
		default: // double a letter
			r = append(r[:j+1], r[j:]...)
		}
		words[i] = string(r)
	}
	out := strings.Join(words, " ")
	if rng.IntN(2) == 0 && out[0] >= 'A' && out[0] <= 'Z' {
		out = strings.ToLower(out[:1]) + out[1:]
	}
	return out
}
