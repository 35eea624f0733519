package engine

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/usersim"
)

func TestParseTools(t *testing.T) {
	for _, tc := range []struct {
		in    string
		all   bool
		extra int
		bad   bool
	}{
		{in: "all", all: true},
		{in: "relevant"},
		{in: "relevant+0"},
		{in: "relevant+8", extra: 8},
		{in: "relevant+1000", extra: 1000},
		{in: "relevant+1001", bad: true},
		{in: "relevant+-1", bad: true},
		{in: "relevant+", bad: true},
		{in: "some", bad: true},
		{in: "", all: true},
	} {
		c, err := ParseTools(tc.in)
		if (err != nil) != tc.bad || c.all != tc.all || c.extra != tc.extra {
			t.Errorf("ParseTools(%q) = %+v, %v", tc.in, c, err)
		}
		if err != nil && !strings.Contains(err.Error(), "--tools") {
			t.Errorf("ParseTools(%q): the error does not name the flag: %v", tc.in, err)
		}
	}
	if DefaultTools(16) != ToolsAll || DefaultTools(manyTools) != ToolsAll || DefaultTools(manyTools+1) != "relevant+8" {
		t.Error("defaultTools does not follow the domain's size")
	}
}

func names(t *testing.T, toolsJSON string) []string {
	t.Helper()
	var defs []struct {
		Function struct{ Name string } `json:"function"`
	}
	if err := json.Unmarshal([]byte(toolsJSON), &defs); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range defs {
		out = append(out, d.Function.Name)
	}
	return out
}

// TestToolsOffered: relevant+K gives the ground truth's tools, the
// generic ones and K others, the same for a blueprint every time and
// different across blueprints; a called tool joins the row's tools;
// CheckRowTools accepts exactly such rows.
func TestToolsOffered(t *testing.T) {
	d, err := domains.Load("retail", 1)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: 1, Writes: blueprints.Range{Min: 1, Max: 3}, Reads: blueprints.Range{Min: 0, Max: 6},
		AdaptReads: true, Refusals: 0.2, Behaviors: usersim.Profiles()})
	if err != nil {
		t.Fatal(err)
	}
	k := d.Tools
	c := ToolChoice{extra: 2}
	draws := map[string]bool{}
	for i := range 20 {
		bp, err := gen.Generate(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		got := c.Offered(k, bp)
		if !maps.Equal(got, c.Offered(k, bp)) {
			t.Fatalf("blueprint %d: offered tools differ between calls", i)
		}
		want := map[string]bool{}
		for _, a := range bp.Actions {
			want[a.Tool] = true
		}
		for _, tl := range k.Tools() {
			if tl.Kind == record.KindGeneric {
				want[tl.Name] = true
			}
		}
		for n := range want {
			if !got[n] {
				t.Errorf("blueprint %d: %s (ground truth or generic) is not offered", i, n)
			}
		}
		if len(got) != len(want)+2 {
			t.Errorf("blueprint %d: %d tools offered, want %d and 2 distractors", i, len(got), len(want))
		}
		extra := slices.Sorted(maps.Keys(got))
		draws[strings.Join(extra, ",")] = true
		row := RowTools(k, got)
		if why := CheckRowTools(k, "relevant+2", row, nil, bp); why != "" {
			t.Errorf("blueprint %d: its own tools are refused: %s", i, why)
		}
		if all := c.Offered(k, bp); len(ToolChoice{all: true}.Offered(k, bp)) != len(k.Tools()) || len(all) == len(k.Tools()) {
			t.Errorf("blueprint %d: all offers %d, relevant+2 %d of %d", i, len(ToolChoice{all: true}.Offered(k, bp)), len(all), len(k.Tools()))
		}
	}
	if len(draws) < 5 {
		t.Errorf("20 blueprints drew only %d tool sets: the distractors do not vary", len(draws))
	}

	bp, _ := gen.Generate(context.Background(), 0)
	offered := ToolChoice{}.Offered(k, bp)
	var other string
	for _, tl := range k.Tools() {
		if !offered[tl.Name] {
			other = tl.Name
			break
		}
	}
	call := []record.Message{{Role: "assistant", ToolCalls: []record.ToolCall{{ID: "a", Type: "function", Function: record.FunctionCall{Name: other, Arguments: "{}"}}}}}
	row := RowTools(k, offered, call)
	if !slices.Contains(names(t, row), other) {
		t.Fatalf("a called tool (%s) is not in the row's tools %v", other, names(t, row))
	}
	if offered[other] {
		t.Fatal("rowTools changed the offered set")
	}
	for _, tc := range []struct {
		name, mode, tools string
		msgs              []record.Message
		want              string
	}{
		{"all, whole", "all", k.OpenAI(), nil, ""},
		{"all, a subset", "all", RowTools(k, offered), nil, "differ from the domain's tools"},
		{"relevant, called tool listed", "relevant", row, call, ""},
		{"relevant, called tool left out", "relevant", RowTools(k, offered), call, "leave out " + other},
		{"relevant, ground truth left out", "relevant", "[]", nil, "leave out"},
		{"relevant, edited description", "relevant", strings.Replace(row, `"description":"`, `"description":"x`, 1), call, "not the domain's own definitions"},
		{"relevant, listed twice", "relevant", strings.Replace(row, "[", "["+strings.TrimSuffix(strings.TrimPrefix(row, "["), "]")+",", 1), call, "listed twice"},
		{"relevant, not JSON", "relevant", "[{", nil, "not an OpenAI tools array"},
	} {
		got := CheckRowTools(k, tc.mode, tc.tools, tc.msgs, bp)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: CheckRowTools = %q, want %q", tc.name, got, tc.want)
		}
	}
}
