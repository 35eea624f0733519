package verify

import (
	"os"
	"strings"
	"testing"

	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
)

// TestFigureSaid: a figure counts as stated however the text writes its
// sign, currency and thousands, and an amount of money only in a
// sentence that says who pays whom.
func TestFigureSaid(t *testing.T) {
	charge := func(v string) figure { return figure{name: "price_difference", value: v, dir: dirCharge} }
	back := func(v string) figure { return figure{name: "price_difference", value: v, dir: dirBack} }
	count := figure{name: "total_baggages", value: "3"}
	for _, tc := range []struct {
		text string
		f    figure
		want string // a fragment of the reason, "" for stated
	}{
		{"You'll be charged $1,038 for the price difference.", charge("1038"), ""},
		{"The total will be $12.50, which you'll pay.", charge("12.5"), ""},
		{"You'll pay $12 more.", charge("12.5"), "without the price difference"},
		{"You'll pay an extra $435.", charge("435"), ""},
		{"That's $435 more for you to pay.", charge("435"), ""},
		{"You'll get $435 back to your gift card.", back("-435"), ""},
		{"The price difference is $435 in your favour, refunded to your card.", back("-435"), ""},
		{"That's a refund of $1,038.", back("1038"), ""},
		{"You'll get $436 back.", back("-435"), "without the price difference"},
		// Said without a direction, or the wrong one.
		{"The price difference will be $435.", charge("435"), "who pays whom"},
		{"The price difference will be -$435.", back("-435"), "who pays whom"},
		{"You'll be refunded $435.", charge("435"), "wrong way round"},
		{"You'll be charged $435.", back("-435"), "wrong way round"},
		{"You'll be charged $435, and refunded nothing.", charge("435"), "wrong way round"},
		// The direction is read in the sentence that states the amount.
		{"The price difference is $435. Note that a cancellation is refunded in full.", charge("435"), "who pays whom"},
		{"You'll be charged $435 for it. Insurance is refunded in full.", charge("435"), ""},
		// A wrong amount is named as such.
		{"You'll be charged $99 for the price difference.", charge("435"), "stated as $99"},
		// No money, no direction.
		{"That makes 3 checked bags in total.", count, ""},
		{"The price difference will be $0.", figure{name: "price_difference", value: "0"}, ""},
		{"The status will be pending.", figure{name: "status", value: "pending"}, ""},
		{"The status will be done.", figure{name: "status", value: "pending"}, "without the status"},
	} {
		got := figureSaid(tc.text, tc.f)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("figureSaid(%q, %+v) = %q, want %q", tc.text, tc.f, got, tc.want)
		}
	}
}

// TestDirectionWords: the word lists match whole words only, so a
// payment method or a credit card is no direction.
func TestDirectionWords(t *testing.T) {
	for _, tc := range []struct {
		text           string
		charge, refund bool
	}{
		{"payment: your Visa (credit_card_1)", false, false},
		{"you'll be charged", true, false},
		{"it goes back to your card", false, true},
		{"in your favor", false, true},
		{"the feedback form", false, false},
		{"an extra $5", true, false},
	} {
		if SaysCharge(tc.text) != tc.charge || SaysRefund(tc.text) != tc.refund {
			t.Errorf("%q: charge %v refund %v, want %v %v", tc.text, SaysCharge(tc.text), SaysRefund(tc.text), tc.charge, tc.refund)
		}
	}
}

// TestDisclosedAgainstTheReplay: a write's figure is held to what the
// replayed write did, not to the ground truth when the two differ, and a
// task that records no figures is judged by the replay alone; a call the
// tool rejected is held to the next call of the tool that went through.
func TestDisclosedAgainstTheReplay(t *testing.T) {
	rule := pack.Rule{Kind: pack.RuleDisclose, Name: "cancel_refund", Tool: "cancel", Figures: []string{"refund"}}
	gold := &record.Blueprint{
		Actions: []record.Action{{Tool: "cancel", Kind: record.KindWrite}},
		Outputs: []record.Output{{Name: "refund", Value: "100"}},
	}
	dialogue := func(proposals ...string) (*record.Trajectory, []call) {
		tr := &record.Trajectory{Messages: []record.Message{{Role: "system"}, {Role: "user", Content: "Cancel my order."}}}
		var calls []call
		for k, p := range proposals {
			tr.Messages = append(tr.Messages, record.Message{Role: "assistant", Content: p}, record.Message{Role: "user", Content: "Yes."})
			calls = append(calls, call{msg: len(tr.Messages), name: "cancel", write: true, failed: k < len(proposals)-1})
			tr.Messages = append(tr.Messages, record.Message{Role: "assistant", ToolCalls: []record.ToolCall{{ID: "c"}}}, record.Message{Role: "tool"})
		}
		return tr, calls
	}
	replayed := []figure{{name: "refund", value: "120", dir: dirBack}}
	for _, tc := range []struct {
		name      string
		bp        *record.Blueprint
		figures   []figure // the replay's, of the last call
		proposals []string
		want      string
	}{
		{"the replay's figure", gold, replayed, []string{"You'll be refunded $120."}, ""},
		{"the ground truth's figure where the write did another", gold, replayed, []string{"You'll be refunded $100."}, "stated as $100"},
		{"no figures recorded: the replay's", &record.Blueprint{}, replayed, []string{"You'll be refunded $120."}, ""},
		{"no figures recorded, a charge said", &record.Blueprint{}, replayed, []string{"You'll be charged $120 for the refund."}, "wrong way round"},
		{"no figures at all", &record.Blueprint{}, nil, []string{"Shall I?"}, ""},
		{"the replay gives none: the ground truth's", gold, nil, []string{"You'll be refunded $120."}, "stated as $120"},
		{"a rejected call, proposed without the figure", gold, replayed, []string{"Shall I?", "You'll be refunded $120."}, "message 4: cancel was confirmed (message 3) without the refund"},
		{"a rejected call, proposed with the next call's figure", gold, replayed, []string{"You'll be refunded $120.", "You'll be refunded $120."}, ""},
	} {
		tr, calls := dialogue(tc.proposals...)
		calls[len(calls)-1].figures = tc.figures
		got := disclosed(rule, tc.bp, tr, calls)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestDirectionWordsDocumented: docs/policy-rules.md lists the words of
// each direction as the check reads them.
func TestDirectionWordsDocumented(t *testing.T) {
	raw, err := os.ReadFile("../docs/policy-rules.md")
	if err != nil {
		t.Fatal(err)
	}
	for row, words := range map[string][]string{"| the customer pays |": chargeWords, "| money back |": refundWords} {
		_, rest, ok := strings.Cut(string(raw), row)
		if !ok {
			t.Fatalf("docs/policy-rules.md has no row %q", row)
		}
		cell, _, _ := strings.Cut(rest, "|")
		if got, want := strings.TrimSpace(cell), strings.Join(words, ", "); got != want {
			t.Errorf("row %q lists %q, the check reads %q", row, got, want)
		}
	}
}

// TestSentenceAt: the sentence cut around an amount is the one
// sentencesOf gives (spaces aside), a decimal point being no sentence
// end.
func TestSentenceAt(t *testing.T) {
	text := "I'll swap items in order #W1. You'll pay $12.50 more for this! Is that right? Refund: $3.\nDone $4"
	for _, s := range sentencesOf(text) {
		for _, loc := range numberPattern.FindAllStringIndex(s, -1) {
			at := strings.Index(text, s)
			if got := sentenceAt(text, at+loc[0], at+loc[1]); strings.TrimSpace(got) != strings.TrimSpace(s) {
				t.Errorf("sentenceAt(%q) = %q, want %q", s[loc[0]:loc[1]], got, s)
			}
		}
	}
}
