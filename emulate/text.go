package emulate

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/synth-data/synth/blueprints"
)

// rngFor is a deterministic RNG for labels.
func rngFor(labels ...string) *rand.Rand {
	h := blueprints.Mix(0, labels...)
	return rand.New(rand.NewPCG(h, h^0x6a09e667f3bcc909))
}

// valueLike matches tokens a rewrite must never touch even when no one
// named them: anything with a digit, an @, a # or a $ (ids, amounts,
// dates, emails, zip codes).
var valueLike = regexp.MustCompile(`\S*[0-9@#$]\S*`)

// segment is a run of text; protected runs are copied verbatim.
type segment struct {
	text      string
	protected bool
}

// protect splits text into free and protected runs: every occurrence of
// an entity (case-insensitive) and every value-like token is protected.
func protect(text string, entities []string) []segment {
	mask := make([]bool, len(text))
	for _, e := range entities {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		// A case-insensitive regexp matches on the original bytes, where
		// lowering the text could change its length.
		for _, loc := range regexp.MustCompile(`(?i)`+regexp.QuoteMeta(e)).FindAllStringIndex(text, -1) {
			for j := loc[0]; j < loc[1]; j++ {
				mask[j] = true
			}
		}
	}
	for _, loc := range valueLike.FindAllStringIndex(text, -1) {
		for j := loc[0]; j < loc[1]; j++ {
			mask[j] = true
		}
	}
	var out []segment
	for i := 0; i < len(text); {
		j := i
		for j < len(text) && mask[j] == mask[i] {
			j++
		}
		out = append(out, segment{text: text[i:j], protected: mask[i]})
		i = j
	}
	return out
}

// phraseGroup is a set of interchangeable phrases.
type phraseGroup struct {
	alts []string
	re   *regexp.Regexp
}

func group(alts ...string) phraseGroup {
	quoted := slices.Clone(alts)
	// Longest first, so "You would like to" is not read as "You would".
	slices.SortFunc(quoted, func(a, b string) int { return len(b) - len(a) })
	for i, a := range quoted {
		quoted[i] = regexp.QuoteMeta(a)
	}
	// Word boundaries only where the phrases begin and end with a letter
	// ("Done!" ends with punctuation).
	pre, post := `\b`, `\b`
	for _, a := range alts {
		if !isWord(a[0]) {
			pre = ""
		}
		if !isWord(a[len(a)-1]) {
			post = ""
		}
	}
	return phraseGroup{alts: alts, re: regexp.MustCompile(`(?i)` + pre + `(?:` + strings.Join(quoted, "|") + `)` + post)}
}

// swap replaces, in the free runs, each phrase of each group with a
// phrase of the same group drawn from rng, keeping a leading capital.
func swap(segs []segment, groups []phraseGroup, rng *rand.Rand) {
	for gi := range groups {
		g := &groups[gi]
		for i := range segs {
			if segs[i].protected {
				continue
			}
			segs[i].text = g.re.ReplaceAllStringFunc(segs[i].text, func(m string) string {
				return matchCase(g.alts[rng.IntN(len(g.alts))], m)
			})
		}
	}
}

// matchCase gives alt the case of m's first letter.
func matchCase(alt, m string) string {
	r, _ := utf8.DecodeRuneInString(m)
	a, n := utf8.DecodeRuneInString(alt)
	if unicode.IsUpper(r) {
		return string(unicode.ToUpper(a)) + alt[n:]
	}
	if unicode.IsLower(r) && !keepsCapital(alt) {
		return string(unicode.ToLower(a)) + alt[n:]
	}
	return alt
}

func join(segs []segment) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteString(s.text)
	}
	return b.String()
}

// present returns the entities that occur in text (case-insensitive).
func present(text string, entities []string) []string {
	lower := strings.ToLower(text)
	var out []string
	for _, e := range entities {
		if e != "" && strings.Contains(lower, strings.ToLower(e)) {
			out = append(out, e)
		}
	}
	return out
}

// drop removes every occurrence of entity from text, the mistake a
// careless writer makes.
func drop(text, entity, standIn string) string {
	re := regexp.MustCompile(`(?i)` + regexp.QuoteMeta(entity))
	return re.ReplaceAllLiteralString(text, standIn)
}

// keepsCapital reports whether a phrase starts with a word that is
// capitalised anywhere in a sentence: "I", "I'd", an acronym.
func keepsCapital(alt string) bool {
	first, _, _ := strings.Cut(alt, " ")
	if first == "I" || strings.HasPrefix(first, "I'") {
		return true
	}
	return len(first) > 1 && strings.ToUpper(first) == first
}

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
