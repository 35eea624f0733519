package llm

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// redactor removes secrets, and the encodings of them a server may echo
// (base64 in either alphabet, with or without padding, of the key and of
// "Bearer KEY"; hex; URL-escaped; reversed; in any letter case), from
// text before synth prints, logs, caches or stores it.
//
// A secret is matched by its letters and digits alone, whatever stands
// between them: a server that echoes "sk-redte am-SECRET123" (a space
// put in, a dash taken out, a line break in base64) echoes the key all
// the same. In JSON the characters between may be escapes (\n, \u0020),
// and a match never spans a quote that ends a string, so a JSON body
// stays JSON once redacted.
type redactor struct {
	forms []string // the forms' letters and digits, lower case, longest first
}

// Redacted replaces a secret in text.
const Redacted = "[redacted]"

// minSecret is the shortest value treated as a secret, counted in letters
// and digits: a shorter one (an empty header, "1") would redact ordinary
// words.
const minSecret = 6

func newRedactor(secrets []string) *redactor {
	var forms []string
	add := func(s string) {
		if k := skeleton(s); len(k) >= minSecret {
			forms = append(forms, k)
		}
	}
	for _, s := range secrets {
		if len(skeleton(s)) < minSecret {
			continue
		}
		for _, v := range []string{s, "Bearer " + s} {
			add(v)
			for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
				add(enc.EncodeToString([]byte(v)))
			}
		}
		add(hex.EncodeToString([]byte(s)))
		add(url.QueryEscape(s))
		add(url.PathEscape(s))
		add(reverse(s))
	}
	// Longest first, so "Bearer KEY"'s encoding wins over KEY's.
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	return &redactor{forms: slices.Compact(forms)}
}

func reverse(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}

// skeleton is s's ASCII letters and digits, lower case.
func skeleton(s string) string {
	var b strings.Builder
	scanUnits([]byte(s), false, func(c byte, _, _ int) { b.WriteByte(c) })
	return b.String()
}

// breakUnit stands in the skeleton for a character no match may span.
const breakUnit = 0

// scanUnits calls unit with each character of b that counts in a match,
// lower case, and the bytes it takes; everything else is a gap. In JSON,
// an escape counts as the character it stands for, and a quote is a
// break.
func scanUnits(b []byte, inJSON bool, unit func(c byte, start, end int)) {
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case isAlnum(c):
			unit(lower(c), i, i+1)
			i++
		case inJSON && c == '"':
			unit(breakUnit, i, i+1)
			i++
		case inJSON && c == '\\' && i+5 < len(b) && b[i+1] == 'u' && isHex(b[i+2:i+6]):
			if r, _ := strconv.ParseUint(string(b[i+2:i+6]), 16, 16); r < 0x80 && isAlnum(byte(r)) {
				unit(lower(byte(r)), i, i+6)
			}
			i += 6
		case inJSON && c == '\\':
			i += 2 // \n, \t, \", \\, \/: whitespace and punctuation
		default:
			i++
		}
	}
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// String returns s without secrets.
func (r *redactor) String(s string) string {
	if out, ok := r.redact([]byte(s), false); ok {
		return string(out)
	}
	return s
}

// Bytes returns a JSON body without secrets; b itself when it holds
// none. The replacement has no JSON metacharacter and a match never
// spans a string's quote, so a JSON body stays JSON.
func (r *redactor) Bytes(b []byte) []byte {
	if out, ok := r.redact(b, true); ok {
		return out
	}
	return b
}

// redact replaces every match of a form in b, reporting whether there
// was one. The skeleton is built first without positions: nearly every
// text holds no secret, and the positions cost four times its size.
func (r *redactor) redact(b []byte, inJSON bool) ([]byte, bool) {
	if r == nil || len(r.forms) == 0 {
		return nil, false
	}
	sk := make([]byte, 0, len(b))
	scanUnits(b, inJSON, func(c byte, _, _ int) { sk = append(sk, c) })
	text := string(sk)
	var hits [][2]int // in skeleton indexes, end exclusive
	for _, f := range r.forms {
		for from := 0; ; {
			i := strings.Index(text[from:], f)
			if i < 0 {
				break
			}
			hits = append(hits, [2]int{from + i, from + i + len(f)})
			from += i + 1
		}
	}
	if len(hits) == 0 {
		return nil, false
	}
	starts, ends := make([]int, 0, len(sk)), make([]int, 0, len(sk))
	scanUnits(b, inJSON, func(_ byte, s, e int) { starts, ends = append(starts, s), append(ends, e) })
	spans := make([][2]int, len(hits))
	for i, h := range hits {
		spans[i] = [2]int{starts[h[0]], ends[h[1]-1]}
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	out := make([]byte, 0, len(b))
	at := 0
	for _, s := range spans {
		if s[1] <= at {
			continue // inside the span just replaced
		}
		if s[0] >= at {
			out = append(out, b[at:s[0]]...)
			out = append(out, Redacted...)
		}
		at = s[1]
	}
	return append(out, b[at:]...), true
}
