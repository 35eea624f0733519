package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/synth-data/synth/record"
)

// Selector semantics live here, upstream of the blueprint generator, the
// agents and the verifier, so that "the cheapest available blue t-shirt"
// means one thing everywhere. Records are generic JSON objects: the
// generator converts database records, agents use what tools returned.

// ToObject converts a record to a generic JSON object.
func ToObject(v any) (map[string]any, error) {
	if m, ok := v.(map[string]any); ok {
		return m, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("record is not a JSON object: %w", err)
	}
	return m, nil
}

// Field returns the values at a dotted path. A path step through a list
// fans out over its elements, so "items.name" yields every item's name.
func Field(obj any, path string) []any {
	cur := []any{obj}
	// Cut, not Split: selectors, sort keys and preconditions read a
	// field of every record they look at, and the split path was one
	// allocation of each read.
	for rest, more := path, true; more; {
		var step string
		step, rest, more = strings.Cut(rest, ".")
		var next []any
		for _, c := range cur {
			switch v := c.(type) {
			case map[string]any:
				if x, ok := v[step]; ok {
					next = append(next, x)
				}
			case []any:
				for _, e := range v {
					if m, ok := e.(map[string]any); ok {
						if x, ok := m[step]; ok {
							next = append(next, x)
						}
					}
				}
			}
		}
		cur = flattenLists(next)
	}
	return cur
}

func flattenLists(vs []any) []any {
	if !slices.ContainsFunc(vs, func(v any) bool { _, ok := v.([]any); return ok }) {
		return vs // nothing to flatten: most steps end on scalars or objects
	}
	var out []any
	for _, v := range vs {
		if l, ok := v.([]any); ok {
			allScalar := true
			for _, e := range l {
				if _, isMap := e.(map[string]any); isMap {
					allScalar = false
					break
				}
			}
			if allScalar {
				out = append(out, l...)
				continue
			}
		}
		out = append(out, v)
	}
	return out
}

// Text renders a scalar the way selectors compare it.
func Text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case json.Number:
		return x.String()
	case nil:
		return ""
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

// Matches reports whether obj satisfies every condition of where: some
// value at the path equals the wanted text (case-insensitive).
func Matches(obj map[string]any, where map[string]string) bool {
	for path, want := range where {
		if !anyAt(obj, path, want) {
			return false
		}
	}
	return true
}

// anyAt walks a dotted path like Field does, without collecting the
// values: selectors run over every candidate of every task, so this is hot.
func anyAt(v any, path, want string) bool {
	step, rest, more := strings.Cut(path, ".")
	switch x := v.(type) {
	case map[string]any:
		next, ok := x[step]
		if !ok {
			return false
		}
		if more {
			return anyAt(next, rest, want)
		}
		return equalAt(next, want)
	case []any:
		for _, e := range x {
			if m, ok := e.(map[string]any); ok && anyAt(m, path, want) {
				return true
			}
		}
	}
	return false
}

func equalAt(v any, want string) bool {
	if l, ok := v.([]any); ok {
		for _, e := range l {
			if equalAt(e, want) {
				return true
			}
		}
		return false
	}
	if s, ok := v.(string); ok {
		return strings.EqualFold(s, want)
	}
	return strings.EqualFold(Text(v), want)
}

// ResolveKey applies a selector to candidates and returns the index of
// the single entity it designates; a selector by ID matches the
// candidate whose key field holds the ID. It fails when none or several
// qualify, or when the ordering criterion ties: identifiability is a
// property the generator proves and the agent relies on.
func ResolveKey(sel record.Selector, cands []map[string]any, key string) (int, error) {
	var idx []int
	for i, c := range cands {
		if sel.ID != "" {
			if Text(c[key]) == sel.ID {
				idx = append(idx, i)
			}
			continue
		}
		if Matches(c, sel.Where) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return -1, fmt.Errorf("no %s matches %q", sel.Collection, sel.Label)
	}
	if sel.Pick == "" {
		if len(idx) > 1 {
			return -1, fmt.Errorf("%d %s match %q", len(idx), sel.Collection, sel.Label)
		}
		return idx[0], nil
	}
	dir, field, ok := strings.Cut(sel.Pick, ":")
	if !ok || (dir != "max" && dir != "min") {
		return -1, fmt.Errorf("selector pick %q is not max:FIELD or min:FIELD", sel.Pick)
	}
	best, tie := -1, false
	var bestKey sortKey
	for _, i := range idx {
		k, err := keyOf(cands[i], field)
		if err != nil {
			return -1, err
		}
		if best < 0 {
			best, bestKey = i, k
			continue
		}
		c := k.cmp(bestKey)
		if dir == "min" {
			c = -c
		}
		switch {
		case c > 0:
			best, bestKey, tie = i, k, false
		case c == 0:
			tie = true
		}
	}
	if tie {
		return -1, fmt.Errorf("several %s tie for %q", sel.Collection, sel.Label)
	}
	return best, nil
}

type sortKey struct {
	num   float64
	str   string
	isNum bool
}

func (a sortKey) cmp(b sortKey) int {
	if a.isNum && b.isNum {
		switch {
		case a.num > b.num:
			return 1
		case a.num < b.num:
			return -1
		}
		return 0
	}
	return strings.Compare(a.str, b.str)
}

// OrderValue is the value a record is ordered by under field, as Pick
// compares it: a number, a text, or with "sum:" the total of the values
// at a path; nil when the record has none.
func OrderValue(obj map[string]any, field string) any {
	k, err := keyOf(obj, field)
	switch {
	case err != nil:
		return nil
	case k.isNum && strings.HasPrefix(field, "sum:"):
		return k.num
	case k.isNum:
		return Field(obj, field)[0]
	}
	return k.str
}

// keyOf reads an ordering key; a "sum:" prefix adds the values at a path
// (an order's total is the sum of its item prices).
func keyOf(obj map[string]any, field string) (sortKey, error) {
	sum := strings.HasPrefix(field, "sum:")
	field = strings.TrimPrefix(field, "sum:")
	vals := Field(obj, field)
	if len(vals) == 0 {
		return sortKey{}, fmt.Errorf("field %q missing", field)
	}
	if sum {
		var t float64
		for _, v := range vals {
			f, err := strconv.ParseFloat(Text(v), 64)
			if err != nil {
				return sortKey{}, fmt.Errorf("field %q is not numeric", field)
			}
			t += f
		}
		return sortKey{num: round2(t), isNum: true}, nil
	}
	s := Text(vals[0])
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return sortKey{num: f, isNum: true, str: s}, nil
	}
	return sortKey{str: s}, nil
}

func round2(x float64) float64 {
	if x < 0 {
		return -float64(int64(-x*100+0.5)) / 100
	}
	return float64(int64(x*100+0.5)) / 100
}
