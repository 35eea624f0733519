// Package keywords matches texts against alternatives of keywords
// quickly: the customer reads every agent message with a dozen sets of
// them, the core's and the domain's.
package keywords

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// Set is a case-insensitive regexp of alternatives, with literals
// one of which every match holds: a text holding none of them cannot
// match, which a substring search tells in a fraction of the regexp's
// time (the customer reads an agent's message with a dozen of them, and
// the credit labels of every row read every agent message).
type Set struct {
	re   *regexp.Regexp
	lits []string // lower case; nil when the pattern requires none
	// all, when the pattern is only literals, lists every text it
	// matches (lower case): it decides alone where lits can.
	all []string
}

// AnyOf is Compile of the core's own alternatives, which compile: like
// regexp.MustCompile, it panics on one that does not.
func AnyOf(alts ...string) *Set {
	k, err := Compile(alts...)
	if err != nil {
		panic(err)
	}
	return k
}

// Compile is AnyOf of alternatives that may not compile (a pack's).
func Compile(alts ...string) (*Set, error) {
	src := `(?i)(` + strings.Join(alts, "|") + `)`
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, err
	}
	k := &Set{re: re}
	if tree, err := syntax.Parse(src, syntax.Perl); err == nil {
		k.lits = required(tree)
		if all, ok := spelled(tree.Simplify()); ok && !slices.Contains(all, "") {
			k.all = all
		}
	}
	return k, nil
}

// spelled lists, lower-cased, every text re matches when it is only
// literals, alternatives of them and optional ones ("i'?m sorry|policy"):
// then a text holds a match exactly when it holds one of them. false
// for anything else (a class, a word boundary, a repetition, a literal
// beyond ASCII), or beyond 64 texts.
func spelled(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if s := string(re.Rune); ascii(s) {
			return []string{strings.ToLower(s)}, true
		}
	case syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpCapture:
		return spelled(re.Sub[0])
	case syntax.OpQuest:
		l, ok := spelled(re.Sub[0])
		return append([]string{""}, l...), ok
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			l, ok := spelled(sub)
			if !ok {
				return nil, false
			}
			out = append(out, l...)
		}
		return out, len(out) <= 64
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			l, ok := spelled(sub)
			if !ok || len(out)*len(l) > 64 {
				return nil, false
			}
			var next []string
			for _, a := range out {
				for _, b := range l {
					next = append(next, a+b)
				}
			}
			out = next
		}
		return out, true
	}
	return nil, false
}

// MatchString reports whether the regexp matches s. The literals decide
// for text where folding an ASCII literal's case is lower-casing: all
// but the two runes that fold to an ASCII letter (the Kelvin sign to k,
// the long s to s). Agents' words hold dashes and accents, so this is
// most of them.
func (k *Set) MatchString(s string) bool {
	if k.lits == nil && k.all == nil {
		return k.re.MatchString(s)
	}
	return k.Match(Fold(s))
}

// Folded is a text as the literals read it, once for all the rules
// classify tries on it.
type Folded struct {
	s   string
	low string // s lower-cased; "" unless byLits
	// byLits: folding an ASCII literal's case is lower-casing in s.
	byLits bool
}

func Fold(s string) Folded {
	f := Folded{s: s, byLits: ascii(s) || !strings.ContainsAny(s, foldsToASCII)}
	if f.byLits {
		f.low = strings.ToLower(s)
	}
	return f
}

// Match is MatchString of a folded text.
func (k *Set) Match(f Folded) bool {
	if (k.lits != nil || k.all != nil) && f.byLits {
		has := func(l string) bool { return strings.Contains(f.low, l) }
		if k.all != nil {
			return slices.ContainsFunc(k.all, has)
		}
		if !slices.ContainsFunc(k.lits, has) {
			return false
		}
	}
	return k.re.MatchString(f.s)
}

// required lists literals, lower-cased, one of which every match of re
// holds; nil when it cannot tell (a class, a repetition, an optional
// part, a literal beyond ASCII).
func required(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if s := string(re.Rune); ascii(s) {
			return []string{strings.ToLower(s)}
		}
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			l := required(sub)
			if l == nil {
				return nil
			}
			out = append(out, l...)
		}
		return out
	case syntax.OpConcat:
		// Every part is in every match: the part whose literals are
		// longest filters best.
		var best []string
		for _, sub := range re.Sub {
			if l := required(sub); l != nil && (best == nil || shortest(l) > shortest(best)) {
				best = l
			}
		}
		return best
	}
	return nil
}

func shortest(l []string) int {
	n := len(l[0])
	for _, s := range l[1:] {
		n = min(n, len(s))
	}
	return n
}

// foldsToASCII are the runes outside ASCII whose case folds to an ASCII
// letter (unicode.SimpleFold): a regexp with (?i) matches "ſorry" for
// "sorry", which lower-casing does not turn into it.
const foldsToASCII = "\u212A\u017F"

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Regexp is the set's regexp, which alone decides what matches: the
// literals only skip texts it cannot match.
func (k *Set) Regexp() *regexp.Regexp { return k.re }

// Literals are the lower-case literals one of which every match holds,
// nil when the pattern requires none.
func (k *Set) Literals() []string { return k.lits }
