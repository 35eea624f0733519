package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/synth-data/synth/record"
)

// testKit is a small toolkit over testColls: one read, one write, one
// generic tool, and tools whose handlers misbehave.
// validatorText is the jsonschema library's own phrasing of a failure.
var validatorText = regexp.MustCompile(`got \w+, want|missing propert|additional propert|value must be|(^|\s)/\w*:`)

func testKit(t *testing.T) *Toolkit {
	t.Helper()
	orderArg := map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"order_id": map[string]any{"type": "string", "pattern": "^#W[0-9]+$"}},
		"required":             []any{"order_id"},
		"additionalProperties": false,
	}
	kit, err := NewToolkit([]*Tool{
		{Name: "get_order", Kind: record.KindRead, Parameters: orderArg,
			Handler: func(_ context.Context, st *State, args map[string]any) (any, error) {
				id, err := Str(args, "order_id")
				if err != nil {
					return nil, err
				}
				v, ok := st.Get("orders", id)
				if !ok {
					return nil, errors.New("order not found")
				}
				return v, nil
			}},
		{Name: "cancel_order", Kind: record.KindWrite, Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"order_id": map[string]any{"type": "string"},
				"reason":   map[string]any{"type": "string", "enum": []any{"no longer needed", "ordered by mistake"}},
			},
			"required": []any{"order_id", "reason"},
		}, Handler: func(_ context.Context, st *State, args map[string]any) (any, error) {
			id, _ := Str(args, "order_id")
			v, ok := st.Get("orders", id)
			if !ok {
				return nil, errors.New("order not found")
			}
			o, _ := ToObject(v)
			n := map[string]any{}
			for k, x := range o {
				n[k] = x
			}
			n["status"] = "cancelled"
			return "cancelled", st.Put("orders", id, n)
		}},
		{Name: "sum", Kind: record.KindGeneric, Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]any{"xs": map[string]any{"type": "array", "items": map[string]any{"type": "number"}}},
		}, Handler: func(_ context.Context, _ *State, args map[string]any) (any, error) {
			total := 0.0
			xs, _ := args["xs"].([]any)
			for i := range xs {
				f, err := Num(map[string]any{"x": xs[i]}, "x")
				if err != nil {
					return nil, err
				}
				total += f
			}
			return map[string]any{"total": total}, nil
		}},
		{Name: "bad_result", Kind: record.KindGeneric, Parameters: map[string]any{"type": "object"},
			Handler: func(context.Context, *State, map[string]any) (any, error) { return make(chan int), nil }},
	})
	if err != nil {
		t.Fatal(err)
	}
	return kit
}

func TestToolkitCall(t *testing.T) {
	cases := []struct {
		name, tool, args string
		wantErr          bool
		wantKind         string
		contains         string
		changes          bool
	}{
		{"valid read", "get_order", `{"order_id": "#W1"}`, false, record.KindRead, `"status":"pending"`, false},
		{"handler error", "get_order", `{"order_id": "#W99"}`, true, record.KindRead, "order not found", false},
		{"unknown tool", "drop_database", `{}`, true, "", `unknown tool "drop_database"`, false},
		{"malformed JSON", "get_order", `{"order_id": "#W1"`, true, record.KindRead, "not valid JSON", false},
		{"not JSON at all", "get_order", `order #W1 please`, true, record.KindRead, "not valid JSON", false},
		{"trailing garbage", "get_order", `{"order_id": "#W1"} x`, true, record.KindRead, "not valid JSON", false},
		{"number for string", "get_order", `{"order_id": 5}`, true, record.KindRead, "do not match its schema: order_id must be a string", false},
		{"pattern mismatch", "get_order", `{"order_id": "W1"}`, true, record.KindRead, "do not match its schema: order_id is not in the expected format", false},
		{"missing required", "get_order", `{}`, true, record.KindRead, "do not match its schema: order_id is required", false},
		{"empty arguments mean {}", "get_order", ``, true, record.KindRead, "do not match its schema", false},
		{"extra property", "get_order", `{"order_id": "#W1", "x": 1}`, true, record.KindRead, "do not match its schema: unknown argument x", false},
		{"array instead of object", "get_order", `["#W1"]`, true, record.KindRead, "", false},
		{"null arguments", "get_order", `null`, true, record.KindRead, "", false},
		{"enum violation", "cancel_order", `{"order_id": "#W1", "reason": "bored"}`, true, record.KindWrite, "do not match its schema: reason must be one of", false},
		{"valid write", "cancel_order", `{"order_id": "#W1", "reason": "no longer needed"}`, false, record.KindWrite, "cancelled", true},
		{"write handler error leaves state", "cancel_order", `{"order_id": "#W404", "reason": "no longer needed"}`, true, record.KindWrite, "order not found", false},
		{"generic with numbers", "sum", `{"xs": [1, 2.5, 3]}`, false, record.KindGeneric, `{"total":6.5}`, false},
		{"generic no arguments", "sum", ``, false, record.KindGeneric, `{"total":0}`, false},
		{"generic wrong item type", "sum", `{"xs": [1, "2"]}`, true, record.KindGeneric, "do not match its schema: xs[1] must be a number", false},
		{"unmarshalable result", "bad_result", `{}`, true, record.KindGeneric, "not JSON", false},
	}
	kit := testKit(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := newTestBase(t, testColls())
			st := base.NewState()
			res := kit.Call(context.Background(), st, tc.tool, tc.args)
			if res.Err != tc.wantErr {
				t.Fatalf("Err = %v, want %v (output %q)", res.Err, tc.wantErr, res.Output)
			}
			if tc.wantErr && !strings.HasPrefix(res.Output, "Error: ") {
				t.Errorf("output %q does not start with \"Error: \"", res.Output)
			}
			if !tc.wantErr && strings.HasPrefix(res.Output, "Error") {
				t.Errorf("successful output %q looks like an error", res.Output)
			}
			if !strings.Contains(res.Output, tc.contains) {
				t.Errorf("output %q does not contain %q", res.Output, tc.contains)
			}
			// The agent sees a plain API error, never the validator's
			// own phrasing or JSON pointers.
			if validatorText.MatchString(res.Output) {
				t.Errorf("output %q carries the validator's text", res.Output)
			}
			if res.Kind != tc.wantKind {
				t.Errorf("Kind = %q, want %q", res.Kind, tc.wantKind)
			}
			if (st.Hash() != base.Hash()) != tc.changes {
				t.Errorf("state changed = %v, want %v", st.Hash() != base.Hash(), tc.changes)
			}
			if tc.wantErr && res.Value != nil {
				t.Errorf("a failed call carries a value: %v", res.Value)
			}
		})
	}
}

func TestToolkitRejectsBadDefinitions(t *testing.T) {
	h := func(context.Context, *State, map[string]any) (any, error) { return nil, nil }
	obj := map[string]any{"type": "object"}
	cases := []struct {
		name  string
		tools []*Tool
		want  string
	}{
		{"empty name", []*Tool{{Kind: record.KindRead, Parameters: obj, Handler: h}}, "empty name"},
		{"duplicate", []*Tool{{Name: "a", Kind: record.KindRead, Parameters: obj, Handler: h}, {Name: "a", Kind: record.KindRead, Parameters: obj, Handler: h}}, "twice"},
		{"bad kind", []*Tool{{Name: "a", Kind: "mutate", Parameters: obj, Handler: h}}, "kind"},
		{"no handler", []*Tool{{Name: "a", Kind: record.KindRead, Parameters: obj}}, "no handler"},
		{"invalid schema", []*Tool{{Name: "a", Kind: record.KindRead, Parameters: map[string]any{"type": "thing"}, Handler: h}}, "a"},
		{"unmarshalable schema", []*Tool{{Name: "a", Kind: record.KindRead, Parameters: map[string]any{"x": make(chan int)}, Handler: h}}, "a"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewToolkit(tc.tools)
			if err == nil {
				t.Fatal("NewToolkit accepted it")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

func TestToolkitLookups(t *testing.T) {
	kit := testKit(t)
	if kit.Kind("cancel_order") != record.KindWrite || kit.Kind("get_order") != record.KindRead || kit.Kind("nope") != "" {
		t.Error("Kind lookups are wrong")
	}
	if _, ok := kit.Tool("sum"); !ok {
		t.Error("Tool(sum) not found")
	}
	if len(kit.Tools()) != 4 || kit.Tools()[0].Name != "get_order" {
		t.Error("Tools() lost the definition order")
	}
	var spec []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string         `json:"name"`
			Parameters map[string]any `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal([]byte(kit.OpenAI()), &spec); err != nil {
		t.Fatalf("OpenAI() is not JSON: %v", err)
	}
	if len(spec) != 4 || spec[1].Type != "function" || spec[1].Function.Name != "cancel_order" || spec[1].Function.Parameters["type"] != "object" {
		t.Errorf("OpenAI() = %s", kit.OpenAI())
	}
	_, args, err := kit.ParseArgs("sum", `{"xs": [1.10]}`)
	if err != nil {
		t.Fatal(err)
	}
	// Numbers arrive as json.Number and keep their text.
	if n, ok := args["xs"].([]any)[0].(json.Number); !ok || n.String() != "1.10" {
		t.Errorf("number decoded as %#v", args["xs"])
	}
}

func TestRender(t *testing.T) {
	cases := []struct {
		in   any
		want string
		err  bool
	}{
		{"plain text", "plain text", false},
		{"", "", false},
		{map[string]any{"b": 1, "a": "x"}, `{"a":"x","b":1}`, false},
		{[]string{"x"}, `["x"]`, false},
		{nil, "null", false},
		{2.5, "2.5", false},
		{make(chan int), "", true},
	}
	for _, tc := range cases {
		got, err := Render(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("Render(%v) = %q, %v; want %q, err %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestArgHelpers(t *testing.T) {
	args := map[string]any{"s": "x", "n": json.Number("2.5"), "f": 1.5, "i": 3, "l": []any{"a", "b"}, "bad": []any{"a", 1}, "o": map[string]any{"k": "v"}, "nil": nil}
	if s, err := Str(args, "s"); s != "x" || err != nil {
		t.Errorf("Str(s) = %q, %v", s, err)
	}
	if s, err := Str(args, "missing"); s != "" || err != nil {
		t.Errorf("Str(missing) = %q, %v", s, err)
	}
	if _, err := Str(args, "n"); err == nil {
		t.Error("Str of a number succeeded")
	}
	if l, err := Strs(args, "l"); len(l) != 2 || err != nil {
		t.Errorf("Strs(l) = %v, %v", l, err)
	}
	if _, err := Strs(args, "bad"); err == nil {
		t.Error("Strs with a number succeeded")
	}
	if _, err := Strs(args, "s"); err == nil {
		t.Error("Strs of a string succeeded")
	}
	for k, want := range map[string]float64{"n": 2.5, "f": 1.5, "i": 3} {
		if got, err := Num(args, k); got != want || err != nil {
			t.Errorf("Num(%s) = %v, %v", k, got, err)
		}
	}
	if _, err := Num(args, "nil"); err == nil || !strings.Contains(err.Error(), "required") {
		t.Errorf("Num(nil) error = %v", err)
	}
	if _, err := Num(args, "s"); err == nil {
		t.Error("Num of a string succeeded")
	}
	if o, err := Obj(args, "o"); o["k"] != "v" || err != nil {
		t.Errorf("Obj(o) = %v, %v", o, err)
	}
	if o, err := Obj(args, "missing"); o != nil || err != nil {
		t.Errorf("Obj(missing) = %v, %v", o, err)
	}
	if _, err := Obj(args, "l"); err == nil {
		t.Error("Obj of a list succeeded")
	}
}

type ptrRec struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// Tool results that return a base record reuse its JSON; a changed copy
// in the episode's overlay is rendered afresh.
func TestCallRendersRecords(t *testing.T) {
	base, err := NewBase(map[string]map[string]any{"recs": {
		"a": &ptrRec{ID: "a", Status: "new"},
		"b": &ptrRec{ID: "b", Status: "old"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	get := func(_ context.Context, st *State, args map[string]any) (any, error) {
		id, _ := Str(args, "id")
		v, ok := st.Get("recs", id)
		if !ok {
			return nil, errors.New("no such record")
		}
		return v, nil
	}
	set := func(_ context.Context, st *State, args map[string]any) (any, error) {
		id, _ := Str(args, "id")
		v, ok := st.Get("recs", id)
		if !ok {
			return nil, errors.New("no such record")
		}
		n := *v.(*ptrRec)
		n.Status, _ = Str(args, "status")
		return &n, st.Put("recs", id, &n)
	}
	obj := map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}, "status": map[string]any{"type": "string"}}}
	kit, err := NewToolkit([]*Tool{
		{Name: "get", Kind: record.KindRead, Parameters: obj, Handler: get},
		{Name: "set", Kind: record.KindWrite, Parameters: obj, Handler: set},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st := base.NewState()
	if got := kit.Call(ctx, st, "get", `{"id": "a"}`).Output; got != `{"id":"a","status":"new"}` {
		t.Errorf("get a = %s", got)
	}
	if got := kit.Call(ctx, st, "set", `{"id": "a", "status": "done"}`).Output; got != `{"id":"a","status":"done"}` {
		t.Errorf("set a = %s", got)
	}
	if got := kit.Call(ctx, st, "get", `{"id": "a"}`).Output; got != `{"id":"a","status":"done"}` {
		t.Errorf("get a after set = %s", got)
	}
	// Another episode still sees the base record.
	if got := kit.Call(ctx, base.NewState(), "get", `{"id": "a"}`).Output; got != `{"id":"a","status":"new"}` {
		t.Errorf("get a in a fresh episode = %s", got)
	}
	// Setting the original value back restores the base hash.
	kit.Call(ctx, st, "set", `{"id": "a", "status": "new"}`)
	if st.Hash() != base.Hash() {
		t.Error("restoring a pointer record's value does not restore the base hash")
	}
	// Many episodes call tools on one base at once (run with -race).
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := base.NewState()
			for i := range 50 {
				kit.Call(ctx, st, "get", `{"id": "b"}`)
				kit.Call(ctx, st, "set", fmt.Sprintf(`{"id": "b", "status": "s%d-%d"}`, g, i))
			}
		}()
	}
	wg.Wait()
	if got := kit.Call(ctx, base.NewState(), "get", `{"id": "b"}`).Output; got != `{"id":"b","status":"old"}` {
		t.Errorf("the base changed under concurrent episodes: %s", got)
	}
}

// An injected fault answers the call it names with its error and leaves
// the state as it was; other calls, calls that fail the schema and
// calls on a fork run as usual.
func TestToolkitFaults(t *testing.T) {
	const cancel = `{"order_id": "#W1", "reason": "no longer needed"}`
	cases := []struct {
		name   string
		faults []Fault
		calls  []string // arguments of successive cancel_order calls
		failAt int      // the call (from 1) that meets the fault; 0: none
	}{
		{"none", nil, []string{cancel}, 0},
		{"first call", []Fault{{Tool: "cancel_order", Call: 1, Output: "Request timed out"}}, []string{cancel, cancel}, 1},
		{"second call", []Fault{{Tool: "cancel_order", Call: 2, Output: "Request timed out"}}, []string{`{"order_id": "#W3", "reason": "no longer needed"}`, cancel}, 2},
		{"schema errors are not counted", []Fault{{Tool: "cancel_order", Call: 1, Output: "Request timed out"}}, []string{`{"order_id": "#W1"}`, cancel}, 2},
		{"refused calls are not counted", []Fault{{Tool: "cancel_order", Call: 1, Output: "Request timed out"}}, []string{`{"order_id": "#W404", "reason": "no longer needed"}`, cancel}, 2},
		{"another tool", []Fault{{Tool: "get_order", Call: 1, Output: "Request timed out"}}, []string{cancel}, 0},
	}
	kit := testKit(t)
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := newTestBase(t, testColls()).NewState()
			st.Inject(tc.faults)
			if res := kit.Call(ctx, st.Fork(), "cancel_order", cancel); res.Err {
				t.Fatalf("a fork met the fault: %s", res.Output)
			}
			for i, args := range tc.calls {
				before := st.Hash()
				res := kit.Call(ctx, st, "cancel_order", args)
				switch {
				case i+1 == tc.failAt && res.Output != "Error: "+tc.faults[0].Output:
					t.Errorf("call %d answered %q, want the fault", i+1, res.Output)
				case i+1 == tc.failAt && st.Hash() != before:
					t.Errorf("call %d met the fault but changed the state", i+1)
				case i+1 != tc.failAt && strings.Contains(res.Output, "timed out"):
					t.Errorf("call %d met a fault injected elsewhere", i+1)
				}
			}
		})
	}
}
