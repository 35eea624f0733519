package model

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/synth-data/synth/tools"
)

// TestReadListTurnsPages: a described record ("the most recent droplet")
// is chosen among every record, so a list read follows the result's
// next_<param> to the last page (review2 N1: droplet 28 on page 2 was
// missed). A next_ key that names no parameter of the tool is data, not
// a page, and a result that always names a next page stops at MaxPages.
// A read that shows fewer records than the result counts is partial.
func TestReadListTurnsPages(t *testing.T) {
	kit, err := tools.NewToolkit([]*tools.Tool{{
		Name: "list_droplets", Kind: "read",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{
			"page": map[string]any{"type": "integer"}, "per_page": map[string]any{"type": "integer"},
		}},
		Handler: func(context.Context, *tools.State, map[string]any) (any, error) { return nil, nil },
	}})
	if err != nil {
		t.Fatal(err)
	}
	m := &Model{Kit: kit}
	c := &CollModel{Key: "id", List: &ListModel{Tool: "list_droplets", Field: "droplets"}}
	page := func(ids ...int) []any {
		var out []any
		for _, id := range ids {
			out = append(out, map[string]any{"id": id})
		}
		return out
	}
	tests := []struct {
		name    string
		pages   map[any]map[string]any // the result for each page argument (nil: none given)
		keys    []string
		calls   int
		partial bool
	}{
		{"one page", map[any]map[string]any{nil: {"droplets": page(1, 2), "total": 2}}, []string{"1", "2"}, 1, false},
		{"three pages", map[any]map[string]any{
			nil: {"droplets": page(1, 2), "total": 5, "next_page": 2},
			2:   {"droplets": page(3, 4), "total": 5, "next_page": 3},
			3:   {"droplets": page(5), "total": 5},
		}, []string{"1", "2", "3", "4", "5"}, 3, false},
		{"next_ of no parameter", map[any]map[string]any{
			nil: {"droplets": page(1), "next_backup_window": "sunday"},
		}, []string{"1"}, 1, false},
		// A cursor the tool takes ("after": the last id) is no next page:
		// the records not shown may hold the best, so the read is partial.
		{"cursor", map[any]map[string]any{nil: {"droplets": page(1, 2), "total": 47}}, []string{"1", "2"}, 1, true},
		{"endless", map[any]map[string]any{nil: {"droplets": page(1), "next_page": 1, "total": 80}, 1: {"droplets": page(1), "next_page": 1, "total": 80}}, nil, MaxPages, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			l, ok := m.ReadList(c, map[string]any{}, func(args map[string]any) (any, bool) {
				calls++
				out, found := tt.pages[args["page"]]
				if !found {
					return nil, false
				}
				return out, true
			})
			if !ok {
				t.Fatalf("ReadList failed after %d calls", calls)
			}
			keys, recs := l.Keys, l.Recs
			if l.Partial != tt.partial {
				t.Errorf("partial = %v, want %v", l.Partial, tt.partial)
			}
			if calls != tt.calls {
				t.Errorf("calls = %d, want %d", calls, tt.calls)
			}
			if tt.keys != nil && !reflect.DeepEqual(keys, tt.keys) {
				t.Errorf("keys = %v, want %v", keys, tt.keys)
			}
			if len(recs) != len(keys) {
				t.Errorf("%d records for %d keys", len(recs), len(keys))
			}
			for i, r := range recs {
				if fmt.Sprint(r["id"]) != keys[i] {
					t.Errorf("record %d is %v, key %s", i, r["id"], keys[i])
				}
			}
		})
	}
}
