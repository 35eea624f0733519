package dialog

import (
	"math/rand/v2"
	"strings"
)

// Expand picks one alternative of every "{a|b|c}" group of a template
// (nesting allowed). "<name>" slots are left for Fill, which runs after
// the alternatives are chosen, so a slot value is never altered by
// choice or noise.
func Expand(rng *rand.Rand, tmpl string) string {
	var b strings.Builder
	expandInto(&b, rng, tmpl)
	return b.String()
}

func expandInto(b *strings.Builder, rng *rand.Rand, s string) {
	for i := 0; i < len(s); i++ {
		j := strings.IndexByte(s[i:], '{')
		if j < 0 {
			b.WriteString(s[i:])
			return
		}
		b.WriteString(s[i : i+j])
		i += j
		end, n := group(s, i)
		if n == 0 {
			// An unclosed group is taken literally rather than failing a dialogue.
			b.WriteString(s[i:])
			return
		}
		expandInto(b, rng, alternative(s, i, rng.IntN(n)))
		i = end
	}
}

// group finds the group starting at s[start] == '{' and returns the
// index of its closing brace and the number of its top-level
// alternatives, 0 when the group is never closed. Every template
// expanded goes through it, so it counts rather than lists.
func group(s string, start int) (end, n int) {
	depth := 0
	for i := start; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i, n + 1
			}
		case '|':
			if depth == 1 {
				n++
			}
		}
	}
	return len(s), 0
}

// alternative is the k-th top-level alternative of the closed group
// starting at s[start] == '{'.
func alternative(s string, start, k int) string {
	depth := 0
	last := start + 1
	for i := start; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return s[last:i]
			}
		case '|':
			if depth == 1 {
				if k == 0 {
					return s[last:i]
				}
				k--
				last = i + 1
			}
		}
	}
	return s[last:]
}

// Fill replaces each "<name>" with slots[name]; unknown names stay as
// they are, and slot values are not filled again.
func Fill(s string, slots map[string]string) string {
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
	return Tidy(Fill(Capitalize(lowerAfterComma(Expand(rng, tmpl))), slots))
}

// lowerAfterComma lower-cases a template word that opens a clause after
// a comma: alternatives like "{!|.|,}" join a greeting to a clause
// written capitalised for the "." case ("Hi, Before we continue").
// It runs before slots are filled, so a name or an id is never touched,
// and "I", "I'm" and words with inner capitals keep their case.
func lowerAfterComma(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, ", ")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+2])
		s = s[i+2:]
		if lowered, ok := LowerLead(s); ok {
			s = lowered
		}
	}
}

// Capitalize upper-cases the first letter of template text. It runs
// before slots are filled, so a message that opens with a fact (an email,
// an id) keeps the fact exactly as it is.
func Capitalize(s string) string {
	t := strings.TrimLeft(s, " ")
	if t == "" || t[0] < 'a' || t[0] > 'z' {
		return s
	}
	return strings.ToUpper(t[:1]) + t[1:]
}

// Tidy collapses the double spaces and stray spaces before punctuation
// that empty alternatives leave behind.
func Tidy(s string) string {
	for strings.Contains(s, "  ") {
		s = strings.ReplaceAll(s, "  ", " ")
	}
	for _, p := range []string{" ,", " .", " ?", " !"} {
		s = strings.ReplaceAll(s, p, p[1:])
	}
	// An empty slot before punctuation ("Thanks, <first>.", "Thanks,
	// <first>, I've …") leaves a comma.
	for _, p := range []string{",.", ",!", ",?", ",,"} {
		s = strings.ReplaceAll(s, p, p[1:])
	}
	// "Great, <first> — …" with no name.
	s = strings.ReplaceAll(s, ", —", " —")
	return sentenceCase(strings.TrimSpace(s))
}

// sentenceCase upper-cases a sentence's first word where a writer would:
// a piece that opens with a filled value or follows "{,|.}" ("Oh. that's
// a shame", "the original payment method.") starts a sentence. Only a
// word of lower-case letters changes; an id, an email or a name written
// with inner capitals ("iPhone") stays exactly as it was given.
func sentenceCase(s string) string {
	var b []byte
	start := true
	for i := 0; i < len(s); i++ {
		if start && s[i] >= 'a' && s[i] <= 'z' && PlainWord(s[i:]) {
			if b == nil {
				b = []byte(s)
			}
			b[i] -= 'a' - 'A'
		}
		start = i+1 < len(s) && s[i+1] == ' ' && (s[i] == '.' || s[i] == '?' || s[i] == '!')
		if start {
			i++
		}
	}
	if b == nil {
		return s
	}
	return string(b)
}

// LowerLead is text as it reads after a lead-in ("Hi, …", "Just so
// you know, …"): its first word lower-cased when it is a plain word
// ("Could" → "could"), kept for "I" and its contractions; it reports
// false for a first word that must keep its case and its own sentence
// (an id, an acronym, a name with inner capitals: "SY264", "ATL").
func LowerLead(text string) (string, bool) {
	first, _, _ := strings.Cut(text, " ")
	switch {
	case first == "I" || strings.HasPrefix(first, "I'"), PlainWord(text):
		return text, true
	case len(first) < 2 || first[0] < 'A' || first[0] > 'Z':
		return text, false
	}
	if lowered := strings.ToLower(text[:1]) + text[1:]; PlainWord(lowered) {
		return lowered, true
	}
	return text, false
}

// PlainWord reports whether s opens with a word of lower-case ASCII
// letters (and apostrophes) only, one a writer capitalises at a
// sentence's start. Punctuation ends the word only before a space or the
// end: "bob.smith@x.com" is one token, not "bob"; "iPhone" is a name.
func PlainWord(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ':
			return true
		case c == ',' || c == '.' || c == '?' || c == '!' || c == ':' || c == ';':
			return i+1 == len(s) || s[i+1] == ' '
		case c >= 'a' && c <= 'z' || c == '\'':
		default:
			return false
		}
	}
	return true
}

// ContainsWord reports whether s holds w as a whole word: "on
// reservation ALAXV1" holds "ALAXV1", "ALAXV12" does not.
func ContainsWord(s, w string) bool {
	for from := 0; from <= len(s); {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(w)
		if (i == 0 || !wordByte(s[i-1])) && (end == len(s) || !wordByte(s[end])) {
			return true
		}
		from = i + 1
	}
	return false
}

func wordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
