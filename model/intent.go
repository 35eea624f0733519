package model

import (
	"slices"
	"strings"
	"unicode"
)

// Intents of questions: "inform:FIELD" asks for a field of the target.
const IntentInformPrefix = "inform:"

// Misspell is the slip a confused customer makes in an identifying
// value: a digit changed, else two different letters swapped near the
// middle ("Skyalr" for "Skylar": the first letter, and its case, are
// what a person gets right).
func Misspell(s string) string {
	b := []byte(s)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] >= '0' && b[i] <= '9' {
			b[i] = '0' + (b[i]-'0'+3)%10
			return string(b)
		}
	}
	r := []rune(s)
	for i := max(len(r)/2, 1); i+1 < len(r); i++ {
		if r[i] != r[i+1] && unicode.IsLower(r[i]) && unicode.IsLower(r[i+1]) {
			r[i], r[i+1] = r[i+1], r[i]
			return string(r)
		}
	}
	return s + "x"
}

// IntentOf names a write goal: the tool, and the optional parameters it
// sets after a "+".
func IntentOf(w *WriteModel, opts []string) string {
	if len(opts) == 0 {
		return w.Name
	}
	return w.Name + "+" + strings.Join(opts, ",")
}

// ParseIntent splits a write intent into the tool and its optional parameters.
func ParseIntent(intent string) (string, []string) {
	tool, opts, ok := strings.Cut(intent, "+")
	if !ok || opts == "" {
		return tool, nil
	}
	return tool, strings.Split(opts, ",")
}

// Included lists the parameters a goal of this intent sets.
func (w *WriteModel) Included(opts []string) []*ParamModel {
	var out []*ParamModel
	for _, pm := range w.Params {
		if pm.Optional && !slices.Contains(opts, pm.Name) {
			continue
		}
		out = append(out, pm)
	}
	return out
}

// ArgWords names an argument in a person's words: the thing, not its
// identifier ("payment method" for payment_method_id, "items" for
// item_ids).
func ArgWords(param string) string {
	w := Words(param)
	for _, suffix := range []string{" ids", " id", " key"} {
		if t, ok := strings.CutSuffix(w, suffix); ok && t != "" {
			if suffix == " ids" {
				return Plural(t)
			}
			return t
		}
	}
	return w
}

// Intents of goals without a write.
const (
	// IntentRefusePrefix starts the intent of a forbidden request: the
	// write the customer asks for.
	IntentRefusePrefix = "refuse:"
	// IntentTransfer is a request outside what the tools can do.
	IntentTransfer = "transfer"
)
