package model

import "testing"

// A status goes before its noun only when it reads as an adjective:
// "a pending order", never "a succeeded firewall" (review 2, N10); a
// name is what the record is called.
func TestStatusWords(t *testing.T) {
	fw := &CollModel{Noun: "firewall", Describe: []string{"status", "name"}}
	for _, tc := range []struct {
		status, description, label string
	}{
		{"active", "an active firewall called edge", "my active firewall"},
		{"pending", "a pending firewall called edge", "my pending firewall"},
		{"cancelled", "a cancelled firewall called edge", "my cancelled firewall"},
		{"pending (item modified)", "a pending (item modified) firewall called edge", "my pending (item modified) firewall"},
		{"succeeded", "a firewall called edge, status succeeded", "my firewall with status succeeded"},
		{"waiting", "a firewall called edge, status waiting", "my firewall with status waiting"},
		{"in_progress", "a firewall called edge, status in progress", "my firewall with status in progress"},
	} {
		if got := Description(fw, map[string]any{"status": tc.status, "name": "edge"}); got != tc.description {
			t.Errorf("Description with status %q = %q, want %q", tc.status, got, tc.description)
		}
		if got := RecordLabel(fw, map[string]string{"status": tc.status}, "", true); got != tc.label {
			t.Errorf("RecordLabel with status %q = %q, want %q", tc.status, got, tc.label)
		}
	}
}
