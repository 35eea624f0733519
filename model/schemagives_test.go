package model

import "testing"

// An agent lists a slot's values only when the tool's schema gives them.
func TestSchemaGives(t *testing.T) {
	reason := map[string]any{"type": "string", "description": "The reason for cancellation, which should be either 'no longer needed' or 'ordered by mistake'."}
	cabin := map[string]any{"type": "string", "enum": []any{"economy", "business"}}
	regions := map[string]any{"type": "array", "items": map[string]any{"enum": []any{"nyc1", "sfo3"}}}
	owner := map[string]any{"type": "string", "pattern": "^(0|[1-9][0-9]*)$", "description": "ID of the guild or user to grant the entitlement to"}
	flag := map[string]any{"type": "boolean"}
	for _, tc := range []struct {
		name   string
		schema map[string]any
		v      string
		want   bool
	}{
		{"enum value", cabin, "economy", true},
		{"not in the enum", cabin, "first", false},
		{"items enum", regions, "sfo3", true},
		{"quoted in the description", reason, "ordered by mistake", true},
		{"a word inside another", reason, "need", false},
		{"pattern-drawn id", owner, "8524", false},
		{"pattern-drawn zero", owner, "0", false},
		{"boolean", flag, "true", true},
		{"random key", map[string]any{"type": "string"}, "67j4q0uoteqm", false},
		{"no schema", nil, "x", false},
	} {
		if got := SchemaGives(tc.schema, tc.v); got != tc.want {
			t.Errorf("%s: SchemaGives(%q) = %v, want %v", tc.name, tc.v, got, tc.want)
		}
	}
}
