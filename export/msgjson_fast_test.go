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
