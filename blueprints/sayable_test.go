package blueprints

import (
	"strings"
	"testing"

	"github.com/synth-data/synth/model"
)

// TestSayable: a value a customer types is about a sentence; a document
// (an Avro schema over lines, a long JSON body) is never drawn for a
// customer to say.
func TestSayable(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{"defaultdb", true},
		{"Landing page check", true},
		{"https://example.com/checks/9527", true},
		{"{\n \"type\": \"record\",\n \"name\": \"Customer\"\n}", false},
		{`{"type": "record", "name": "Customer", "fields": [{"name": "id", "type": "int"}, {"name": "name", "type": "string"}]}`, false},
		{strings.Repeat("word ", 30), false},
		{"line one\rline two", false},
	} {
		if got := sayable(tc.v); got != tc.want {
			t.Errorf("sayable(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

// TestDrawSlotNoDocument: a slot whose only values are documents (the
// spec's Avro schema) gets none, rather than the schema or prose made up
// in its place, so no task has the customer type one; a slot with a
// value a customer types still gets it.
func TestDrawSlotNoDocument(t *testing.T) {
	m := models(t)["scaffold"]
	p := &gplan{m: m, rng: Stream(1, "test", 0, "slot")}
	w := &model.WriteModel{TargetKind: model.TargetNone}
	schema := "{\n \"type\": \"record\",\n \"name\": \"Customer\"\n}"
	for _, tc := range []struct {
		name    string
		example string
		want    string // "" for no value
	}{
		{"schema", schema, ""},
		{"subject_name", "customer-schema-233", "customer-schema-233"},
	} {
		pm := &model.ParamModel{Name: tc.name, Source: model.SrcSlot, Schema: map[string]any{"type": "string", "examples": []any{tc.example}}}
		got, _, err := p.drawSlot(w, pm, nil)
		if tc.want == "" {
			if err == nil {
				t.Errorf("%s: drew %q, want no value", tc.name, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: drew %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}
