package model

import (
	"maps"
	"math"
	"reflect"
	"slices"

	"github.com/synth-data/synth/pack"
)

// Combinations lists every combination of a search's values, in the
// order of its parameters and of each parameter's values: the order in
// which the agent searches.
func (s *SearchModel) Combinations(among map[string][]string) []map[string]string {
	combos := []map[string]string{{}}
	for _, param := range s.Params {
		var next []map[string]string
		for _, c := range combos {
			for _, v := range among[param] {
				n := maps.Clone(c)
				n[param] = v
				next = append(next, n)
			}
		}
		combos = next
	}
	return combos
}

// Args are the arguments of one search tool for one combination, typed
// by the tool's schema; a tool gets only the parameters it takes.
func (m *Model) SearchArgs(tool string, combo map[string]string) map[string]any {
	t, ok := m.Kit.Tool(tool)
	if !ok {
		return nil
	}
	args := map[string]any{}
	props := properties(t)
	for param, v := range combo {
		if s, ok := props[param].(map[string]any); ok {
			args[param] = Typed(s, v)
		}
	}
	return args
}

// ItemsOf lists the candidates in one search result, the search's
// arguments given (a leg's null field takes the argument of its name).
func (s *SearchModel) ItemsOf(out any, args map[string]any) []map[string]any {
	var list any = out
	if s.Items != "" {
		list, _ = ValueAt(out, s.Items)
	}
	l, _ := list.([]any)
	items := make([]map[string]any, 0, len(l))
	for _, e := range l {
		if s.Legs != nil {
			if legs := legsOf(e); len(legs) > 0 {
				items = append(items, legCandidates(s.Legs, legs, args)...)
			}
			continue
		}
		if m, ok := e.(map[string]any); ok {
			items = append(items, m)
		}
	}
	if s.Return != nil {
		// One way unless paired (Pairs), for a write that copies the kind.
		for _, c := range items {
			c[s.Return.Kind] = s.Return.One
		}
	}
	return items
}

// Pairs makes the round trips of a search with a way back: every
// outbound candidate with every return one of the same Per key (cabin),
// in that order (pack.Return).
func (s *SearchModel) Pairs(out, back []map[string]any) []map[string]any {
	lg := s.Legs
	var pairs []map[string]any
	for _, o := range out {
		for _, b := range back {
			if lg.Per != "" && !reflect.DeepEqual(o[lg.Per], b[lg.Per]) {
				continue
			}
			c := maps.Clone(o)
			ol, _ := o[lg.Field].([]any)
			bl, _ := b[lg.Field].([]any)
			c[lg.Field] = slices.Concat(ol, bl)
			both := func(f string, combine func(x, y float64) float64) {
				x, okx := Number(o[f])
				y, oky := Number(b[f])
				if okx && oky {
					c[f] = wholeOr(combine(x, y))
				}
			}
			if lg.Stops != "" {
				both(lg.Stops, func(x, y float64) float64 { return x + y })
			}
			for name := range lg.Sum {
				both(name, func(x, y float64) float64 { return x + y })
			}
			for name := range lg.Min {
				both(name, math.Min)
			}
			c[s.Return.Kind] = s.Return.Round
			pairs = append(pairs, c)
		}
	}
	return pairs
}

// Back is the way back of a search's values: the swapped parameters
// trade values, After takes the given later values.
func (s *SearchModel) Back(among map[string][]string, after []string) map[string][]string {
	r := s.Return
	back := maps.Clone(among)
	back[r.Swap[0]], back[r.Swap[1]] = among[r.Swap[1]], among[r.Swap[0]]
	back[r.After] = after
	return back
}

// HasItems reports whether ItemsOf lists any candidate, without making
// them: the generator asks it of the first search of every draw.
func (s *SearchModel) HasItems(out any, args map[string]any) bool {
	var list any = out
	if s.Items != "" {
		list, _ = ValueAt(out, s.Items)
	}
	l, _ := list.([]any)
	for _, e := range l {
		if s.Legs != nil {
			if legs := legsOf(e); len(legs) > 0 && hasLegCandidate(s.Legs, legs) {
				return true
			}
			continue
		}
		if _, ok := e.(map[string]any); ok {
			return true
		}
	}
	return false
}

// hasLegCandidate reports whether legCandidates makes any candidate of
// the legs.
func hasLegCandidate(lg *pack.Legs, legs []map[string]any) bool {
	if lg.Per == "" {
		return true
	}
	for _, key := range perKeys(lg, legs) {
		if perValues(lg, legs, key, nil) {
			return true
		}
	}
	return false
}

// legsOf reads a result element as legs: an object is one, a list of
// objects several; anything else none.
func legsOf(e any) []map[string]any {
	switch x := e.(type) {
	case map[string]any:
		return []map[string]any{x}
	case []any:
		out := make([]map[string]any, 0, len(x))
		for _, v := range x {
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			out = append(out, m)
		}
		return out
	}
	return nil
}

// legCandidates builds the candidates one result element makes (see
// pack.Legs): one, or one per key of the legs' Per objects.
func legCandidates(lg *pack.Legs, legs []map[string]any, args map[string]any) []map[string]any {
	field := func(leg map[string]any, f string) any {
		if v, ok := leg[f]; ok && v != nil {
			return v
		}
		return args[f]
	}
	base := map[string]any{}
	for f, v := range legs[0] {
		switch v.(type) {
		case map[string]any, []any:
			continue
		}
		if !slices.Contains(lg.Keep, f) {
			base[f] = field(legs[0], f)
		}
	}
	last := legs[len(legs)-1]
	for _, f := range lg.Last {
		base[f] = field(last, f)
	}
	kept := make([]any, len(legs))
	for i, leg := range legs {
		k := make(map[string]any, len(lg.Keep))
		for _, f := range lg.Keep {
			k[f] = field(leg, f)
		}
		kept[i] = k
	}
	base[lg.Field] = kept
	if lg.Stops != "" {
		base[lg.Stops] = int64(len(legs) - 1)
	}
	if lg.Per == "" {
		return []map[string]any{base}
	}
	var out []map[string]any
	for _, key := range perKeys(lg, legs) {
		// Sized for what perValues adds: growing the copy was most of
		// a candidate's cost.
		c := make(map[string]any, len(base)+1+len(lg.Sum)+len(lg.Min))
		maps.Copy(c, base)
		c[lg.Per] = key
		if perValues(lg, legs, key, c) {
			out = append(out, c)
		}
	}
	return out
}

// perKeys are the keys the first leg's Sum and Min objects hold, sorted.
func perKeys(lg *pack.Legs, legs []map[string]any) []string {
	seen := map[string]bool{}
	for _, fields := range []map[string]string{lg.Sum, lg.Min} {
		for _, src := range fields {
			if m, ok := legs[0][src].(map[string]any); ok {
				for k := range m {
					seen[k] = true
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// perValues sets a per-key candidate's Sum and Min fields (c nil: only
// checks them); false when a leg lacks the key or a Min is not above
// zero.
func perValues(lg *pack.Legs, legs []map[string]any, key string, c map[string]any) bool {
	// fold combines the legs' values at src under key.
	fold := func(src string, combine func(acc, n float64) float64) (float64, bool) {
		acc := 0.0
		for i, leg := range legs {
			m, _ := leg[src].(map[string]any)
			n, ok := Number(m[key])
			if !ok {
				return 0, false
			}
			if i == 0 {
				acc = n
			} else {
				acc = combine(acc, n)
			}
		}
		return acc, true
	}
	// The fields' order does not matter: a candidate is kept only when
	// every one has its value.
	for name, src := range lg.Sum {
		total, ok := fold(src, func(a, n float64) float64 { return a + n })
		if !ok {
			return false
		}
		if c != nil {
			c[name] = wholeOr(total)
		}
	}
	for name, src := range lg.Min {
		least, ok := fold(src, math.Min)
		if !ok || least <= 0 {
			return false
		}
		if c != nil {
			c[name] = wholeOr(least)
		}
	}
	return true
}

// wholeOr keeps a whole number of a sum as an integer, as the legs'
// values were: a price of 240, not 240.0.
func wholeOr(f float64) any {
	if f == float64(int64(f)) {
		return int64(f)
	}
	return f
}
