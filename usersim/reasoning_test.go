package usersim_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/synth-data/synth/domains"
)

// The oracle's reasoning_content is written where a person reasons: a
// write says where its arguments came from in words of its own (not one
// fixed sentence), and the comparison that singles a record out goes on
// the step that acts on it (a read) or the turn that announces it,
// naming the order in the customer's terms, never a field's spelling.
func TestReasoningWhereItReasons(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	fieldOrder := regexp.MustCompile(`(?i)\bby [a-z]+ (at|gib|nodes|minutes)\b|; by |[a-z]+_at\b`)
	for _, domain := range []string{"retail", "airline"} {
		d, err := domains.Load(domain, 1)
		if err != nil {
			t.Fatal(err)
		}
		writes, distinct, compared := 0, map[string]bool{}, 0
		for _, dl := range play(t, domain, 80) {
			for _, m := range dl.tr.Messages {
				if m.Role != "assistant" {
					continue
				}
				r := m.ReasoningContent
				if fieldOrder.MatchString(r) {
					t.Errorf("%s: reasoning names a field: %q", domain, r)
				}
				if strings.Contains(r, " I read") || strings.Contains(r, "I read ") {
					compared++
				}
				if len(m.ToolCalls) == 0 || d.Model.Write(m.ToolCalls[0].Function.Name) == nil {
					continue
				}
				writes++
				if !strings.Contains(r, "yes") {
					t.Errorf("%s: a write whose reasoning does not say the customer's yes: %q", domain, r)
				}
				distinct[r] = true
				if strings.Contains(r, "every argument comes from the tool results") {
					t.Errorf("%s: the fixed sentence: %q", domain, r)
				}
			}
		}
		if writes == 0 || compared == 0 {
			t.Fatalf("%s: %d writes with reasoning, %d comparisons in 80 dialogues", domain, writes, compared)
		}
		if len(distinct) < writes*9/10 {
			t.Errorf("%s: %d distinct reasonings over %d writes", domain, len(distinct), writes)
		}
	}
}
