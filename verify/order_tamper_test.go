package verify_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
	"github.com/synth-data/synth/verify"
)

// guarded is one successful write of a say or from_customer rule's
// tool in a verified row: its message, the yes before it and the
// message the previous write of the tool that went through was in (-1:
// none).
type guarded struct {
	rule     pack.Rule
	write    int
	yes      int
	previous int
}

func guardedWrites(d *domain.Domain, e episode, kind string) []guarded {
	var out []guarded
	for _, r := range d.Model.Rules {
		if r.Kind != kind {
			continue
		}
		prev := -1
		for _, c := range wentThrough(e, r.Tool) {
			out = append(out, guarded{rule: r, write: c, yes: lastUserBefore(e.tr, c), previous: prev})
			prev = c
		}
	}
	return out
}

// wentThrough are the messages holding a call of tool that went through.
func wentThrough(e episode, tool string) []int {
	var out []int
	for i, m := range e.tr.Messages {
		for _, c := range m.ToolCalls {
			if c.Function.Name == tool && !strings.HasPrefix(e.tr.Messages[resultOf(e.tr, c.ID)].Content, "Error") {
				out = append(out, i)
			}
		}
	}
	return out
}

// withoutPhrases replaces each of phrases in text, case aside.
func withoutPhrases(text string, phrases []string) string {
	for _, p := range phrases {
		text = regexp.MustCompile(`(?i)`+regexp.QuoteMeta(p)).ReplaceAllString(text, "[left out]")
	}
	return text
}

// TestSayTampering: in verified rows of retail and airline, a required
// reminder or question left out before the yes to the write it guards
// (said after the write instead, or said only for an earlier write of
// the tool) fails that say rule by name.
func TestSayTampering(t *testing.T) {
	ctx := context.Background()
	inVerifiedRows(t, func(t *testing.T, n int, d *domain.Domain, v *verify.Verifier, eps []episode) {
		applied, rejected, again := 0, 0, 0
		for _, e := range eps {
			for _, g := range guardedWrites(d, e, pack.RuleSay) {
				tr := clone(t, e.tr)
				for i := g.previous + 1; i < g.yes; i++ {
					if tr.Messages[i].Role == "assistant" {
						tr.Messages[i].Content = withoutPhrases(tr.Messages[i].Content, g.rule.Phrases)
					}
				}
				if rep := firstAgentTextAfter(tr, g.write); rep >= 0 {
					tr.Messages[rep].Content = g.rule.Text + " " + tr.Messages[rep].Content
				}
				applied++
				if g.previous >= 0 {
					again++
				}
				name := verify.RuleCheck(g.rule)
				if ck := checkNamed(v.Verify(ctx, e.bp, tr), name); ck != nil && !ck.Passed {
					rejected++
					continue
				}
				t.Errorf("blueprint %d, message %d: %s passes with the reminder said only after the yes", e.bp.Index, g.write, name)
			}
		}
		t.Logf("reminder said only after the yes: %d of %d guarded writes fail their say rule (%d of them after an earlier write of the tool; %d verified rows of %d)", rejected, applied, again, len(eps), n)
		if applied == 0 || again == 0 {
			t.Fatalf("%d guarded writes, %d after an earlier one, in %d rows: nothing to tamper with", applied, again, len(eps))
		}
	})
}

// TestFromCustomerTampering: in verified rows of retail and airline, a
// value the customer must give (a reason, an address, a passenger's
// name) that the customer says first in the yes itself, or only after
// the write, fails that from_customer rule by name.
func TestFromCustomerTampering(t *testing.T) {
	ctx := context.Background()
	inVerifiedRows(t, func(t *testing.T, n int, d *domain.Domain, v *verify.Verifier, eps []episode) {
		type count struct{ applied, rejected int }
		counts := map[string]*count{"in the yes": {}, "after the write": {}}
		for _, e := range eps {
			for _, g := range guardedWrites(d, e, pack.RuleFromCustomer) {
				val := saidValue(d, e.tr, g)
				if val == "" {
					continue
				}
				for kind, c := range counts {
					tr := clone(t, e.tr)
					for i := range tr.Messages[:g.yes] {
						if tr.Messages[i].Role == "user" {
							tr.Messages[i].Content = replaceFold(tr.Messages[i].Content, val, "that")
						}
					}
					if kind == "in the yes" {
						tr.Messages[g.yes].Content += " " + val + "."
					} else if after := firstUserAfter(tr, g.write); after >= 0 {
						tr.Messages[after].Content = val + ". " + tr.Messages[after].Content
					}
					c.applied++
					name := verify.RuleCheck(g.rule)
					if ck := checkNamed(v.Verify(ctx, e.bp, tr), name); ck != nil && !ck.Passed {
						c.rejected++
						continue
					}
					t.Errorf("blueprint %d, message %d: %s passes with %q said %s", e.bp.Index, g.write, name, val, kind)
				}
			}
		}
		for kind, c := range counts {
			t.Logf("value said %s: %d of %d writes fail their from_customer rule (%d verified rows of %d)", kind, c.rejected, c.applied, len(eps), n)
			if c.applied == 0 {
				t.Fatalf("no write with a value the customer gave in %d rows", len(eps))
			}
		}
	})
}

// saidValue is the first text value of the rule's arguments (no picked
// ids) that a customer message before the yes holds, "" when none.
func saidValue(d *domain.Domain, tr *record.Trajectory, g guarded) string {
	args := argsOf(tr.Messages[g.write].ToolCalls[0])
	w := d.Model.Write(g.rule.Tool)
	for _, path := range g.rule.Args {
		if p := w.Param(path); p != nil && p.Pick != nil {
			continue
		}
		v, ok := model.ValueAt(args, path)
		if !ok {
			continue
		}
		for _, x := range listOf(v) {
			s := tools.Text(x)
			if len(s) < 3 {
				continue
			}
			for _, m := range tr.Messages[:g.yes] {
				if m.Role == "user" && strings.Contains(strings.ToLower(m.Content), strings.ToLower(s)) {
					return s
				}
			}
		}
	}
	return ""
}

func listOf(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	return []any{v}
}

func replaceFold(text, old, with string) string {
	return regexp.MustCompile(`(?i)`+regexp.QuoteMeta(old)).ReplaceAllString(text, with)
}

func firstUserAfter(tr *record.Trajectory, i int) int {
	for j := i + 1; j < len(tr.Messages); j++ {
		if tr.Messages[j].Role == "user" {
			return j
		}
	}
	return -1
}
