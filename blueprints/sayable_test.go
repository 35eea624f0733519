package blueprints

import (
	"strings"
	"testing"
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
