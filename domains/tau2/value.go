package tau2

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
)

// Records are generic JSON (map[string]any, []any, string, bool, nil and
// numbers as int64, float64 or json.Number, as the pack loader and
// CheckRetailDB leave them). A record that does not have the shape τ²'s
// model gives it is reported, never trusted: these errors name the record
// and field so the database can be fixed.

// errShape reports a record whose field is missing or of the wrong type.
func errShape(coll, key, path, want string) error {
	return fmt.Errorf("%s[%s].%s is missing or not %s: the database does not match τ²'s model (load it through CheckRetailDB or CheckAirlineDB)", coll, strconv.Quote(key), path, want)
}

// view reads fields of one record (or of an object nested in it) and
// remembers where it is, so that a bad field names its place. The path
// is kept as segments and only written out for an error: lookups on the
// happy path allocate nothing.
type view struct {
	coll, key string
	path      [maxPath]seg
	n         int
	m         map[string]any
}

// maxPath bounds the nesting a view names (τ²'s models nest four deep).
const maxPath = 6

// seg is one step of a path: a field, a dict key, or a list index.
type seg struct {
	name string // the field, or the dict key
	idx  int    // the index, for a list element (name is the list field)
	kind uint8  // segField, segKey, segIndex
}

const (
	segField uint8 = iota
	segKey
	segIndex
)

func recView(coll, key string, m map[string]any) view { return view{coll: coll, key: key, m: m} }

func (v view) child(s seg, m map[string]any) view {
	c := v
	if c.n < maxPath {
		c.path[c.n] = s
		c.n++
	}
	c.m = m
	return c
}

// pathTo writes the path of field inside v.
func (v view) pathTo(field string) string {
	var b strings.Builder
	for _, s := range v.path[:v.n] {
		switch s.kind {
		case segField:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.name)
		case segKey:
			b.WriteString("[" + strconv.Quote(s.name) + "]")
		case segIndex:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			fmt.Fprintf(&b, "%s[%d]", s.name, s.idx)
		}
	}
	if field != "" {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(field)
	}
	return b.String()
}

func (v view) bad(field, want string) error { return errShape(v.coll, v.key, v.pathTo(field), want) }

func (v view) str(field string) (string, error) {
	s, ok := v.m[field].(string)
	if !ok {
		return "", v.bad(field, "a string")
	}
	return s, nil
}

func (v view) num(field string) (float64, error) {
	f, ok := toFloat(v.m[field])
	if !ok {
		return 0, v.bad(field, "a number")
	}
	return f, nil
}

func (v view) int(field string) (int64, error) {
	i, ok := toInt(v.m[field])
	if !ok {
		return 0, v.bad(field, "an integer")
	}
	return i, nil
}

func (v view) list(field string) ([]any, error) {
	l, ok := v.m[field].([]any)
	if !ok {
		return nil, v.bad(field, "a list")
	}
	return l, nil
}

func (v view) obj(field string) (view, error) {
	m, ok := v.m[field].(map[string]any)
	if !ok {
		return view{}, v.bad(field, "an object")
	}
	return v.child(seg{name: field}, m), nil
}

// atKey is the view of the object e found under key in the dict v is.
func (v view) atKey(key string, e any) (view, error) {
	m, ok := e.(map[string]any)
	if !ok {
		return view{}, errShape(v.coll, v.key, v.child(seg{name: key, kind: segKey}, nil).pathTo(""), "an object")
	}
	return v.child(seg{name: key, kind: segKey}, m), nil
}

// atIndex is the view of the object e, element i of v's list field.
func (v view) atIndex(field string, i int, e any) (view, error) {
	m, ok := e.(map[string]any)
	if !ok {
		return view{}, errShape(v.coll, v.key, v.child(seg{name: field, idx: i, kind: segIndex}, nil).pathTo(""), "an object")
	}
	return v.child(seg{name: field, idx: i, kind: segIndex}, m), nil
}

// toFloat reads any of the number representations records use.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	}
	return 0, false
}

// toInt reads an integral number (τ²'s int fields).
func toInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
			return int64(x), true
		}
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, true
		}
		if f, err := strconv.ParseFloat(string(x), 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<63 {
			return int64(f), true
		}
	}
	return 0, false
}

// clone is a shallow copy of a record: the copy may get new fields, its
// nested values are still shared and must themselves be cloned before
// they change.
func clone(m map[string]any) map[string]any {
	return maps.Clone(m)
}
