package pack

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestArgForms reads each form of a write argument's source, and writes
// back the form it was read from: a computed one with its words keeps
// them, as compute:FUNCTION for everything that reads the source.
func TestArgForms(t *testing.T) {
	for _, tc := range []struct {
		in, source, err string
		say             map[string]string
	}{
		{in: `"compute:compensation_amount"`, source: "compute:compensation_amount"},
		{in: `{"compute": "compensation_amount", "say": {"*": "a ${value} certificate"}}`, source: "compute:compensation_amount", say: map[string]string{"*": "a ${value} certificate"}},
		{in: `{"compute": "compensation_amount"}`, err: "say goes with slot or compute"},
		{in: `{"slot": "1|2", "say": {"1": "one bag"}}`, say: map[string]string{"1": "one bag"}},
		{in: `{"slot": "1|2", "compute": "f", "say": {"1": "one bag"}}`, err: "exactly one of"},
		// A choice the pack's function builds the argument around.
		{in: `{"choose": {"from": "payment_methods", "id": "id", "entry": "payment_id"}, "compute": "booking_payment"}`, source: "compute:booking_payment"},
		{in: `{"choose": {"from": "payment_methods", "id": "id"}, "compute": "booking_payment"}`, err: "needs choose.entry"},
		{in: `{"choose": {"from": "payment_methods", "id": "id", "entry": "payment_id"}}`, err: "choose.entry goes with compute"},
	} {
		var a Arg
		err := json.Unmarshal([]byte(tc.in), &a)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: got error %v, want one saying %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if a.Source != tc.source || len(a.Say) != len(tc.say) || a.Say["*"] != tc.say["*"] || a.Say["1"] != tc.say["1"] {
			t.Errorf("%s: read as source %q say %v, want %q %v", tc.in, a.Source, a.Say, tc.source, tc.say)
		}
		out, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		var back Arg
		if err := json.Unmarshal(out, &back); err != nil || back.Source != a.Source || len(back.Say) != len(a.Say) {
			t.Errorf("%s: written as %s, read back as %+v (%v)", tc.in, out, back, err)
		}
	}
}
