package llm

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// redactor removes secrets, and the encodings of them a server may echo
// (base64 in either alphabet, with or without padding, of the key and of
// "Bearer KEY"; hex; URL-escaped; reversed; in any letter case), from
// text before synth prints, logs, caches or stores it.
type redactor struct {
	re *regexp.Regexp // nil when there is no secret
}

// Redacted replaces a secret in text.
const Redacted = "[redacted]"

// minSecret is the shortest value treated as a secret: a shorter one
// (an empty header, "1") would redact ordinary words.
const minSecret = 6

func newRedactor(secrets []string) *redactor {
	var forms []string
	add := func(s string) {
		if len(s) >= minSecret {
			forms = append(forms, s)
		}
	}
	for _, s := range secrets {
		if len(s) < minSecret {
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
	if len(forms) == 0 {
		return &redactor{}
	}
	// Longest first, so "Bearer KEY"'s encoding wins over KEY's.
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	forms = slices.Compact(forms)
	quoted := make([]string, len(forms))
	for i, f := range forms {
		quoted[i] = regexp.QuoteMeta(f)
	}
	return &redactor{re: regexp.MustCompile("(?i)" + strings.Join(quoted, "|"))}
}

func reverse(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}

// String returns s without secrets.
func (r *redactor) String(s string) string {
	if r == nil || r.re == nil {
		return s
	}
	return r.re.ReplaceAllLiteralString(s, Redacted)
}

// Bytes returns b without secrets; b itself when it holds none. The
// replacement has no JSON metacharacter, so a JSON body stays JSON.
func (r *redactor) Bytes(b []byte) []byte {
	if r == nil || r.re == nil || !r.re.Match(b) {
		return b
	}
	return r.re.ReplaceAllLiteral(bytes.Clone(b), []byte(Redacted))
}
