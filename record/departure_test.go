package record

import "testing"

// TestDeparture: two dialogues part at the first message that differs in
// anything a template renders; a weight is not rendered.
func TestDeparture(t *testing.T) {
	zero := 0
	call := func(args string) Message {
		return Message{Role: "assistant", ToolCalls: []ToolCall{{ID: "c1", Type: "function", Function: FunctionCall{Name: "get", Arguments: args}}}}
	}
	base := []Message{{Role: "system", Content: "policy"}, {Role: "user", Content: "hi"}, call(`{"id":1}`), {Role: "tool", Content: "{}", ToolCallID: "c1"}, {Role: "assistant", Content: "order #1"}}
	with := func(i int, m Message) []Message {
		out := append([]Message(nil), base...)
		out[i] = m
		return out
	}
	cases := []struct {
		name string
		b    []Message
		want int
	}{
		{"same", base, 5},
		{"prefix", base[:3], 3},
		{"other words", with(4, Message{Role: "assistant", Content: "order #2"}), 4},
		{"other reasoning", with(4, Message{Role: "assistant", Content: "order #1", ReasoningContent: "the cheapest"}), 4},
		{"other argument", with(2, call(`{"id":2}`)), 2},
		{"a weight only", with(4, Message{Role: "assistant", Content: "order #1", Weight: &zero}), 5},
	}
	for _, tc := range cases {
		if got := Departure(base, tc.b); got != tc.want {
			t.Errorf("%s: departs at %d, want %d", tc.name, got, tc.want)
		}
	}
}
