package model

import "testing"

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
