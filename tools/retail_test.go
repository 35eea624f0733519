package tools_test

import (
	"context"
	"strings"
	"testing"

	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/record"
)

// Every tool of the real retail toolkit turns bad calls into observations.
func TestRetailToolkitErrorsAreObservations(t *testing.T) {
	d, err := domains.Load("retail", 1)
	if err != nil {
		t.Fatal(err)
	}
	order := d.Base.Keys("orders")[0]
	cases := []struct{ tool, args string }{
		{"get_order_details", `{"order_id": 5}`},
		{"get_order_details", `{"order_id": "#W404404404"}`},
		{"get_order_details", `{"order_id": "` + order + `"`},
		{"get_order_details", `{}`},
		{"cancel_pending_order", `{"order_id": "` + order + `", "reason": "because"}`},
		{"find_user_id_by_email", `{"email": "nobody@example.invalid"}`},
		{"no_such_tool", `{}`},
		{"calculate", `{"expression": "1/0"}`},
		{"calculate", `{"expression": "import os"}`},
	}
	for _, tc := range cases {
		st := d.Base.NewState()
		res := d.Tools.Call(context.Background(), st, tc.tool, tc.args)
		if !res.Err || !strings.HasPrefix(res.Output, "Error: ") {
			t.Errorf("%s(%s) = %q (err %v), want an \"Error: \" observation", tc.tool, tc.args, res.Output, res.Err)
		}
		if st.Hash() != d.Base.Hash() {
			t.Errorf("%s(%s) changed the state", tc.tool, tc.args)
		}
	}
	// Each tool is typed, and only writes change state on success.
	for _, tl := range d.Tools.Tools() {
		switch tl.Kind {
		case record.KindRead, record.KindWrite, record.KindGeneric:
		default:
			t.Errorf("tool %s has kind %q", tl.Name, tl.Kind)
		}
	}
	res := d.Tools.Call(context.Background(), d.Base.NewState(), "get_order_details", `{"order_id": "`+order+`"}`)
	if res.Err || !strings.Contains(res.Output, order) {
		t.Errorf("get_order_details(%s) = %q", order, res.Output)
	}
}
