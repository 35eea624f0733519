package export

import (
	"reflect"
	"testing"

	"github.com/synth-data/synth/record"
)

// FuzzParseCanonical: where the canonical decoder takes a text, it gives
// exactly what the general decoder gives, so which of the two reads a
// row never shows.
func FuzzParseCanonical(f *testing.F) {
	for _, m := range sampleMessages(1) {
		f.Add(string(AppendMessageJSON(nil, &m)))
	}
	for _, m := range []record.Message{
		{Role: "user", Content: "tab\there \"q\" \\ \u00e9 \u2028 \x01 <b>&"},
		{Role: "assistant", ReasoningContent: "r", ToolCalls: []record.ToolCall{
			{ID: "abcdefghi", Type: "function", Function: record.FunctionCall{Name: "f", Arguments: `{"a":"}{","b":[{"c":"\"]"}]}`}},
			{ID: "bcdefghij", Type: "function", Function: record.FunctionCall{Name: "g", Arguments: `not json`}},
			{ID: "cdefghijk", Type: "function", Function: record.FunctionCall{Name: "h"}}}},
		{Role: "tool", Content: "{}", ToolCallID: "abcdefghi", Name: "f"},
		{Role: "assistant", Content: "a mistake", Weight: new(int)},
	} {
		f.Add(string(AppendMessageJSON(nil, &m)))
	}
	f.Add(`{"role":"user","content":"\ud83d\ude00"}`)
	f.Add(`{"role":"user","content":"\u00e9\/"}`)
	f.Add(`{"role":"","content":""}`)
	f.Add(`{"role":"assistant","content":"","tool_calls":[]}`)
	f.Add(`{"role":"assistant","content":"","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":{"a":1 }}}]}`)
	f.Add(`{"role":"assistant","content":"","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":{"a":}}}]}`)
	f.Add(`{"role":"user","content":"x"} `)
	f.Add(`{"role":"user","content":"x","weight":0}`)
	f.Add(`{"role":"assistant","content":"x","weight":01}`)
	f.Fuzz(func(t *testing.T, s string) {
		fast, ok := parseCanonical([]byte(s))
		if !ok {
			return
		}
		slow, err := parseMessage([]byte(s))
		if err != nil {
			t.Fatalf("canonical decoder took %q, the general one refuses it: %v", s, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q:\ncanonical %#v\n  general %#v", s, fast, slow)
		}
	})
}

// Every message synth writes takes the canonical path.
func TestCanonicalTakesWhatIsWritten(t *testing.T) {
	for _, m := range sampleMessages(1) {
		b := AppendMessageJSON(nil, &m)
		if _, ok := parseCanonical(b); !ok {
			t.Errorf("%s: not read by the canonical decoder", b)
		}
	}
}

// TestWeight: a recovery's mistake turn keeps its "weight": 0 through
// the row's JSON, both decoders read it alike, and a weight that OpenAI
// fine-tuning would not take, or on a message it does not weigh, is
// refused.
func TestWeight(t *testing.T) {
	zero := 0
	m := record.Message{Role: "assistant", Content: "I'll swap the patio umbrella.", Weight: &zero}
	b := AppendMessageJSON(nil, &m)
	if want := `{"role":"assistant","content":"I'll swap the patio umbrella.","weight":0}`; string(b) != want {
		t.Fatalf("written %s, want %s", b, want)
	}
	fast, ok := parseCanonical(b)
	if !ok || fast.Weight == nil || *fast.Weight != 0 {
		t.Fatalf("canonical decoder: %#v, %v", fast, ok)
	}
	slow, err := parseMessage(b)
	if err != nil || !reflect.DeepEqual(fast, slow) {
		t.Fatalf("general decoder: %#v, %v; canonical %#v", slow, err, fast)
	}
	for _, s := range []string{
		`{"role":"assistant","content":"x","weight":2}`,
		`{"role":"assistant","content":"x","weight":"0"}`,
		`{"role":"assistant","content":"x","weight":null}`,
		`{"role":"user","content":"x","weight":0}`,
		`{"role":"tool","content":"x","tool_call_id":"a","weight":0}`,
	} {
		if _, ok := parseCanonical([]byte(s)); ok {
			t.Errorf("%s: the canonical decoder took it", s)
		}
		if _, err := ParseMessageJSON([]byte(s)); err == nil {
			t.Errorf("%s: read, want an error", s)
		}
	}
	one := 1
	if _, err := ParseMessageJSON(AppendMessageJSON(nil, &record.Message{Role: "assistant", Content: "x", Weight: &one})); err != nil {
		t.Errorf("weight 1: %v", err)
	}
}
