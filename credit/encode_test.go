package credit

import (
	"encoding/json"
	"testing"

	"github.com/synth-data/synth/record"
)

// plain is Labels without its MarshalJSON: what encoding/json writes
// from the tags.
type plain Labels

// TestMarshalJSONAsReflection: the hand-written encoding, called
// directly, is the one encoding/json makes from the tags, byte for byte: nil and empty
// lists, a null and a set outcome, fractions, strings that need escapes.
func TestMarshalJSONAsReflection(t *testing.T) {
	one := 1
	full := Label(cancelTask(), dialogue(`{"order_id":"#W1","reason":"no longer needed"}`), &record.Verdict{Passed: true})
	odd := full
	odd.Turns = append([]Turn{}, full.Turns...)
	odd.Turns[0].Calls = []Call{{Tool: "a\"b<c>&\u00e9\n", Kind: "read", Action: -1, Args: []Arg{{Path: `$["x y"]`, Source: SourceTool, Message: 3, At: "$.é"}}}}
	odd.Turns[1].Calls = nil
	cases := []Labels{
		{},
		{ChainLength: 3, Progress: 1, Coverage: 1.0 / 3, Pivotal: 4, Correcting: -1, Outcome: &one, Steps: []Step{}, Turns: []Turn{}},
		{Coverage: 1e-9},
		full,
		odd,
	}
	for i, l := range cases {
		// Called itself (synth run does), not through json.Marshal,
		// which compacts and escapes what it is given.
		got, err := l.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(plain(l))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}
