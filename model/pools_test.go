package model

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/synth-data/synth/tools"
)

// TestIndexPoolsOrderFree: a field name met at two paths of one record
// (a project's description and its region's) fills one shared pool; when
// that record is the one that fills the pool, which of its values the
// pool keeps must not depend on map order, or two runs of one seed draw
// different descriptions (the DigitalOcean pack, 930 descriptions for a
// pool of 400).
func TestIndexPoolsOrderFree(t *testing.T) {
	recs := map[string]any{}
	// Record 0 says one description at both paths, every other record
	// two: 1 + 199×2 = 399 values before record 200, which adds one of
	// its two.
	for i := 0; i <= 200; i++ {
		top, nested := fmt.Sprintf("top %03d", i), fmt.Sprintf("nested %03d", i)
		if i == 0 {
			nested = top
		}
		k := fmt.Sprintf("p%03d", i)
		recs[k] = map[string]any{"id": k, "description": top, "region": map[string]any{"description": nested}}
	}
	base, err := tools.NewBase(map[string]map[string]any{"projects": recs})
	if err != nil {
		t.Fatal(err)
	}
	var first []any
	for run := 0; run < 50; run++ {
		m := &Model{Base: base}
		m.indexPools()
		got := m.pools["description"]
		if len(got) != 400 {
			t.Fatalf("run %d: the description pool holds %d values, want 400", run, len(got))
		}
		// Fields are walked in name order: the record's own description
		// comes before its region's.
		if !slices.Contains(got, any("top 200")) || slices.Contains(got, any("nested 200")) {
			t.Fatalf("run %d: the pool holds top 200: %v, nested 200: %v; want only the record's own description",
				run, slices.Contains(got, any("top 200")), slices.Contains(got, any("nested 200")))
		}
		if run == 0 {
			first = got
		} else if !reflect.DeepEqual(got, first) {
			t.Fatalf("run %d: the description pool differs from run 0", run)
		}
	}
}
