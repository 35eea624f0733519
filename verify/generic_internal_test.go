package verify

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/synth-data/synth/record"
)

// The hand-written conversions must give exactly what a JSON round trip
// gives, or schema validation would check something else than the
// records that are written.
func TestGenericMatchesJSON(t *testing.T) {
	bp := &record.Blueprint{
		ID: "b", Index: 3, Domain: "retail", Seed: 7, Split: "train",
		Persona: record.Persona{Name: "A B", Traits: []string{"x"}, Known: map[string]string{"email": "a@b.c"}},
		Reason:  "r", Behavior: "upfront",
		Goals: []record.Goal{
			{Intent: "i", Kind: "write", Target: record.Selector{Collection: "orders", Where: map[string]string{"status": "pending"}, Pick: "max:created_at", Label: "l"},
				Items: []record.Selector{{Collection: "items", ID: "1", Label: "x"}}, New: []record.Selector{{Collection: "variants", Label: "y"}},
				Slots: map[string]string{"reason": "r"}, Revised: map[string]string{"reason": "q"}},
			{Intent: "j", Kind: "inform", Target: record.Selector{Collection: "users", Label: "me"}},
		},
		Actions: []record.Action{{Tool: "t", Kind: "read", Arguments: json.RawMessage(`{"a":1,"b":[1.5,"x"]}`), Goal: -1}, {Tool: "w", Kind: "write", Arguments: json.RawMessage(`{}`), Goal: 0, Needs: []int{0}}},
		Outputs: []record.Output{{Goal: 0, Name: "refund", Value: "$1.00"}},
		NWrites: 1, NReads: 1, Evidence: []int{1}, Instruction: "do", StateHash: "00",
	}
	empty := &record.Blueprint{ID: "e", Evidence: []int{}}
	tr := &record.Trajectory{ID: "t", Messages: []record.Message{
		{Role: "system", Content: "p"},
		{Role: "assistant", ReasoningContent: "why", ToolCalls: []record.ToolCall{{ID: "abcdefghi", Type: "function", Function: record.FunctionCall{Name: "f", Arguments: "{}"}}}},
		{Role: "tool", Content: "ok", ToolCallID: "abcdefghi", Name: "f"},
	}}
	roundTrip := func(v any) any {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		g, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	for _, b := range []*record.Blueprint{bp, empty} {
		got, err := blueprintValue(b)
		if err != nil {
			t.Fatal(err)
		}
		if want := roundTrip(b); !reflect.DeepEqual(any(got), want) {
			t.Errorf("blueprint %s:\n got %#v\nwant %#v", b.ID, got, want)
		}
	}
	if got, want := trajectoryValue(tr), roundTrip(tr); !reflect.DeepEqual(any(got), want) {
		t.Errorf("trajectory:\n got %#v\nwant %#v", got, want)
	}
}

func TestMentionsIdentifying(t *testing.T) {
	ids := []string{"ticket_id", "customer_id"}
	for _, c := range []struct {
		name, text, args string
		ids              []string
		want             bool
	}{
		{"names the id", "I'll close ticket T-0042 as resolved. Shall I?", `{"ticket_id":"T-0042","resolution":"fixed"}`, ids, true},
		{"omits the id", "I'll close your ticket as resolved. Shall I?", `{"ticket_id":"T-0042","resolution":"fixed"}`, ids, false},
		{"names every id of a list", "Return items 1 and 2 of #W1?", `{"order_id":"#W1","item_ids":["1","2"]}`, []string{"order_id", "item_ids"}, true},
		{"misses one of a list", "Return item 1 of #W1?", `{"order_id":"#W1","item_ids":["1","27"]}`, []string{"order_id", "item_ids"}, false},
		{"non-identifying args are free", "Shall I add the note?", `{"comment":"call me"}`, ids, true},
		{"unreadable arguments", "Shall I?", `{`, ids, false},
	} {
		if got := mentions(c.text, c.args, c.ids); got != c.want {
			t.Errorf("%s: mentions = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSaysOutput: a required output is said as τ-bench reads it, and a
// negative amount also as its magnitude in words that say it comes back.
func TestSaysOutput(t *testing.T) {
	for _, tc := range []struct {
		text, v string
		want    bool
	}{
		{"The price difference was -$325.", "-325", true},
		{"You'll get $325 back.", "-325", true},
		{"A refund of $325 is on its way to your Visa.", "-325", true},
		{"The price difference came to $325 in your favour, refunded to your card.", "-325", true},
		{"The price difference was $325.", "-325", false},
		{"You'll get $1,325 back.", "-1325", true},
		{"The total is $325.", "325", true},
		{"The price difference was $4.52, and it's on its way back to your Visa.", "-4.52", true},
		{"The flight type of reservation 4GY535 is one way.", "one_way", true},
		{"The flight type of reservation 4GY535 is one_way.", "one_way", true},
		{"The flight type of reservation 4GY535 is round trip.", "one_way", false},
	} {
		if got := SaysOutput(tc.text, tc.v); got != tc.want {
			t.Errorf("SaysOutput(%q, %q) = %v, want %v", tc.text, tc.v, got, tc.want)
		}
	}
}

func TestContainsWords(t *testing.T) {
	for _, tc := range []struct {
		text, s string
		want    bool
	}{
		{"my user id is julia_dubois_7776", "julia", false},
		{"julia dubois, please", "julia", true},
		{"it's for julia.", "julia", true},
		{"the reason is no longer needed", "no longer needed", true},
		{"juliana", "julia", false},
		{"julia_x and julia", "julia", true},
		{"", "julia", false},
	} {
		if got := containsWords(tc.text, tc.s); got != tc.want {
			t.Errorf("containsWords(%q, %q) = %v, want %v", tc.text, tc.s, got, tc.want)
		}
	}
}
