package model

import (
	"testing"

	"github.com/synth-data/synth/tools"
)

// PickWords says "oldest"/"most recent" only of when a record came to
// be: a record changed, archived or deleted last is no customer's pick.
func TestPickWordsDates(t *testing.T) {
	cases := []struct{ pick, adj, clause string }{
		{"max:created_at", "most recent", ""},
		{"min:created_at", "oldest", ""},
		{"min:invoice_date", "oldest", ""},
		{"max:items.created_at", "most recent", ""},
		{"max:deleted_at", "", "with the highest deleted at"},
		{"min:archived_at", "", "with the lowest archived at"},
		{"min:updated_at", "", "with the lowest updated at"},
		{"max:expires_at", "", "with the highest expires at"},
		{"min:price", "cheapest", ""},
	}
	for _, c := range cases {
		t.Run(c.pick, func(t *testing.T) {
			adj, clause := PickWords(c.pick)
			if adj != c.adj || clause != c.clause {
				t.Errorf("PickWords(%q) = %q, %q; want %q, %q", c.pick, adj, clause, c.adj, c.clause)
			}
		})
	}
}

// A parent's list of another kind of element (a channel's permission
// overwrites {id, type, allow, deny}) is not taken for the list of its
// pins, though an overwrite and a pin share an id and a type.
func TestListsRecordsOfOtherKind(t *testing.T) {
	base, err := tools.NewBase(map[string]map[string]any{
		"pins":     {"1": map[string]any{"id": "1", "type": int64(0), "channel_id": "7", "content": "Deploy finished"}},
		"channels": {"7": map[string]any{"id": "7"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	m := &Model{Base: base}
	c := &CollModel{Name: "pins", Key: "id", GetLists: true}
	cases := []struct {
		name string
		out  any
		want bool
	}{
		{"the pins", map[string]any{"pins": []any{map[string]any{"id": "1", "type": int64(0), "channel_id": "7", "content": "Deploy finished"}}}, true},
		{"a summary of the pins", map[string]any{"pins": []any{map[string]any{"id": "1", "content": "Deploy finished"}}}, true},
		{"permission overwrites", map[string]any{"pins": []any{map[string]any{"id": "1", "type": int64(0), "allow": "1024", "deny": "0"}}}, false},
	}
	for _, tc := range cases {
		if got := m.listsRecordsOf(c, tc.out, "pins", []string{"1"}); got != tc.want {
			t.Errorf("%s: listsRecordsOf = %v, want %v", tc.name, got, tc.want)
		}
	}
}
