package engine_test

import (
	"reflect"
	"testing"

	"github.com/synth-data/synth/engine"
	"github.com/synth-data/synth/release"
)

// TestAddCounts keeps AddCounts's promise: the types merged with it hold
// counts only (a field of another kind would be dropped from the merge
// without a word), and each count and each key adds.
func TestAddCounts(t *testing.T) {
	for _, v := range []any{engine.DPOStats{}, engine.ReviewStats{}, engine.RefineStats{}, release.Counts{}} {
		typ := reflect.TypeOf(v)
		for f := range typ.Fields() {
			k := f.Type.Kind()
			if k != reflect.Int && (k != reflect.Map || f.Type.Key().Kind() != reflect.String || f.Type.Elem().Kind() != reflect.Int) {
				t.Errorf("%s.%s is a %s: AddCounts merges ints and map[string]int only", typ.Name(), f.Name, f.Type)
			}
		}
	}
	cases := []struct {
		name          string
		dst, src, sum engine.DPOStats
	}{
		{"ints add", engine.DPOStats{Attempts: 2, Pairs: 1}, engine.DPOStats{Attempts: 3, NotFired: 1}, engine.DPOStats{Attempts: 5, Pairs: 1, NotFired: 1}},
		{"keys add", engine.DPOStats{ByFailure: map[string]int{"a": 1}}, engine.DPOStats{ByFailure: map[string]int{"a": 2, "b": 1}},
			engine.DPOStats{ByFailure: map[string]int{"a": 3, "b": 1}}},
		{"a map is made on first use", engine.DPOStats{}, engine.DPOStats{LengthRatio: map[string]int{"1.0": 4}}, engine.DPOStats{LengthRatio: map[string]int{"1.0": 4}}},
		{"an empty source leaves a nil map nil", engine.DPOStats{}, engine.DPOStats{BySplit: map[string]int{}}, engine.DPOStats{}},
	}
	for _, c := range cases {
		engine.AddCounts(&c.dst, &c.src)
		if !reflect.DeepEqual(c.dst, c.sum) {
			t.Errorf("%s: got %+v, want %+v", c.name, c.dst, c.sum)
		}
	}
}
