package corpus

import (
	"slices"
	"testing"

	"github.com/synth-data/synth/record"
)

func TestSentences(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Hi. Can you help? Thanks!", []string{"Hi.", "Can you help?", "Thanks!"}},
		{"The total is $1,038.50. Confirm (yes/no).", []string{"The total is $1,038.50.", "Confirm (yes/no)."}},
		{"Order #W123.\nNext line", []string{"Order #W123.", "Next line"}},
		{"ok", []string{"ok"}},
		{"  ", nil},
		{"Dr.Smith is here", []string{"Dr.Smith is here"}},
	} {
		if got := Sentences(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Sentences(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Words("Hi, it's order #W12 for $12.50!"); !slices.Equal(got, []string{"hi", "it's", "order", "#w12", "for", "$12.50"}) {
		t.Errorf("Words = %q", got)
	}
}

func dialogue(user, agent []string) []record.Message {
	msgs := []record.Message{{Role: "system", Content: "policy text. never measured."}}
	for i := range user {
		msgs = append(msgs, record.Message{Role: "user", Content: user[i]})
		if i < len(agent) {
			msgs = append(msgs, record.Message{Role: "assistant", Content: agent[i]})
		}
	}
	return msgs
}

func TestMeter(t *testing.T) {
	m := NewMeter()
	for i := 0; i < 10; i++ {
		// Every dialogue opens the same way; the second customer turn is
		// its own.
		m.Add(dialogue([]string{"Hello there.", "Order " + string(rune('A'+i)) + " please."}, []string{"Please confirm (yes/no).", "Done."}), "")
	}
	turned := dialogue([]string{"Cancel it.", "No, make it the red one.", "Can't you make an exception? I don't have the order id handy, but it's the red one."}, []string{"I'll cancel it. Please confirm (yes/no).", "Sorry, I cannot."})
	turned = append(turned[:3], append([]record.Message{
		{Role: "assistant", ToolCalls: []record.ToolCall{{Function: record.FunctionCall{Name: "transfer_to_human_agents"}}}},
		{Role: "tool", Content: "Error: not allowed"},
	}, turned[3:]...)...)
	turned = append(turned,
		record.Message{Role: "assistant", Content: "Thanks! I also need your zip."},
		record.Message{Role: "assistant", Content: "Fair question. Back to your request."})
	m.Add(turned, "recovery")
	s := m.Summary(2)
	if s.Dialogues != 11 {
		t.Fatalf("dialogues %d", s.Dialogues)
	}
	c := s.Roles[Customer]
	if len(c.Top) != 2 || c.Top[0].Text != "Hello there." || c.Top[0].Share != 10.0/11 {
		t.Errorf("customer top %+v", c.Top)
	}
	// 10 uses of "Hello there." among 24 customer sentences.
	if c.Sentences != 24 || c.RepeatedShare != 10.0/24 {
		t.Errorf("customer sentences %d, repeated share %v", c.Sentences, c.RepeatedShare)
	}
	// In 11 dialogues a sentence of one of them is in 9% of them: each of
	// the 15 distinct ones is over 2%.
	if c.OverThreshold != 15 || c.Distinct != 15 {
		t.Errorf("customer sentences over 2%%: %d of %d, want 15 of 15", c.OverThreshold, c.Distinct)
	}
	a := s.Roles[Agent]
	if a.Top[0].Text != "Please confirm (yes/no)." || a.Top[0].Share != 1 {
		t.Errorf("agent top %+v", a.Top)
	}
	want := Counts{Dialogues: 11, Recovery: 1, Corrections: 1, Pushbacks: 1, ToolErrors: 1, Transfers: 1, Forgotten: 1, Digressions: 1, Incomplete: 1}
	if s.Counts != want {
		t.Errorf("counts %+v, want %+v", s.Counts, want)
	}
	if c.Distinct2 <= 0 || c.Distinct2 > 1 || c.Distinct1Small != c.Distinct1 {
		t.Errorf("distinct-n %+v (11 dialogues: the first 50 are all of them)", c)
	}
}

// TestToolErrorCounts: the tool error situation is a failed call, or a
// choice the agent says cannot pay without trying it.
func TestToolErrorCounts(t *testing.T) {
	for _, tc := range []struct {
		name string
		msgs []record.Message
		want int
	}{
		{"a choice said not to cover the amount", dialogue([]string{"Use my gift card."}, []string{"I checked, and your gift card (gift_card_1) holds $20, which doesn't cover the total price of $80. Which other payment method should I use?"}), 1},
		{"the tool's reason said", dialogue([]string{"Use my gift card."}, []string{"Unfortunately, your gift card (gift_card_1) can't be used for this: insufficient gift card balance. Which other one?"}), 1},
		{"a failed call", append(dialogue([]string{"Cancel it."}, nil), record.Message{Role: "tool", Content: "Error: not found"}), 1},
		{"a plain dialogue", dialogue([]string{"Cancel it."}, []string{"Done. The refund is $20."}), 0},
	} {
		m := NewMeter()
		m.Add(tc.msgs, "")
		if got := m.Summary(2).Counts.ToolErrors; got != tc.want {
			t.Errorf("%s: tool errors %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestMalformed(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Please confirm that's correct (yes/no).", ""},
		{"Could you confirm that's correct (yes/no)?", ""},
		{"Could you confirm that's correct (yes/no).", QuestionStop},
		{"Can I return items from an order of mine.", QuestionStop},
		{"What's the total of my order.", QuestionStop},
		{"Please tell me which payment method to use?", PleaseQuestion},
		{"Please be quick: Could you cancel my order?", ""},
		{"Please be quick: could you cancel my order.", QuestionStop},
		{"the original payment method.", LowerStart},
		{"that's a shame.", LowerStart},
		{"iPhone 12 it is.", ""},
		{"bob.smith@x.com is my email.", ""},
		{"#W123 is the order.", ""},
		{"Morning,.", BadPunctuation},
		{"What's why you'd like to cancel ?", BadPunctuation},
		{"Which order is it?", ""},
		{"Yes.", ""},
		{"", ""},
	} {
		if got := Malformed(tc.in); got != tc.want {
			t.Errorf("Malformed(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSummaryMalformed(t *testing.T) {
	m := NewMeter()
	m.Add([]record.Message{{Role: Customer, Content: "Hi. the original one. Can I pay now."}, {Role: Agent, Content: "Sure."}}, "")
	m.Add([]record.Message{{Role: Customer, Content: "the original one."}}, "")
	c := m.Summary(5).Roles[Customer]
	if c.Malformed != 3 || c.MalformedKinds[LowerStart] != 2 || c.MalformedKinds[QuestionStop] != 1 {
		t.Fatalf("malformed %d %v, want 3 (2 lowercase, 1 question)", c.Malformed, c.MalformedKinds)
	}
	if len(c.MalformedTop) != 2 || c.MalformedTop[0].Text != "the original one." || c.MalformedTop[0].Share != 1 {
		t.Errorf("top %+v", c.MalformedTop)
	}
	if a := m.Summary(5).Roles[Agent]; a.Malformed != 0 || a.MalformedTop != nil {
		t.Errorf("agent malformed %+v", a)
	}
}
