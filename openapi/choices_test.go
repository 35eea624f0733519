package openapi

import (
	"slices"
	"strings"
	"testing"
)

// The values a description lists in code spans after words that say
// they are the choices; examples ("such as") and a single span are no
// list.
func TestCoded(t *testing.T) {
	for _, tc := range []struct {
		desc string
		want []string
	}{
		{"The verification method to use. One of: [`email`](https://www.twilio.com/docs/verify/email), `sms`, `whatsapp`, `call`, `sna` or `auto`.",
			[]string{"email", "sms", "whatsapp", "call", "sna", "auto"}},
		{"Possible event types: `*, factor.deleted, factor.created, challenge.approved`", []string{"factor.deleted", "factor.created", "challenge.approved"}},
		{"An id such as `abc-1` or `abc-2`.", nil},
		{"One of: `only`.", nil},
		{"", nil},
	} {
		if got := coded(tc.desc); !slices.Equal(got, tc.want) {
			t.Errorf("coded(%q) = %q, want %q", tc.desc, got, tc.want)
		}
	}
}

// A write's string argument whose description lists its values, or
// asks for a phone number, is asked for among such values; a free
// string stays a free slot.
func TestSlotChoices(t *testing.T) {
	for _, tc := range []struct {
		name, desc string
		ok         func(src string) bool
	}{
		{"Channel", "The verification method to use. One of: `sms`, `call` or `email`.", func(src string) bool { return src == "slot:sms|call|email" }},
		{"To", "The phone number or email to verify.", func(src string) bool {
			vals := strings.Split(strings.TrimPrefix(src, "slot:"), "|")
			return strings.HasPrefix(src, "slot:") && len(vals) > 1 && !slices.ContainsFunc(vals, func(v string) bool { return !strings.HasPrefix(v, "+1") })
		}},
		{"FriendlyName", "A name for the webhook.", func(src string) bool { return src == "slot" }},
	} {
		g := &synthesizer{rng: rngFor(1, "hints"), coll: &collection{Name: "services", Noun: "service"}, re: newRegexCache()}
		src, ok := slotSource(arg{Name: tc.name, Orig: tc.name, Schema: map[string]any{"type": "string", "description": tc.desc}}, g)
		if !ok || !tc.ok(src) {
			t.Errorf("%s: %q, %v", tc.name, src, ok)
		}
	}
}
