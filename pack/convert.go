package pack

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.starlark.net/starlark"
)

// maxDepth bounds the nesting of values crossing the sandbox boundary; it
// also stops a self-containing Starlark list from recursing forever.
const maxDepth = 100

// errTooBig is returned when a value exceeds its size budget.
var errTooBig = errors.New("too big")

// budget counts the approximate JSON size of a value being converted, so
// neither side of the sandbox can hand the other an unbounded value.
type budget struct {
	left int
}

func newBudget(limit int) *budget { return &budget{left: limit} }

func (b *budget) spend(n int) error {
	b.left -= n
	if b.left < 0 {
		return errTooBig
	}
	return nil
}

// pathError says where in a value a conversion failed; the path is built
// while unwinding so the success path allocates nothing for it.
type pathError struct {
	path []string // innermost last after reversal in Error
	msg  string
	err  error
}

func (e *pathError) Error() string {
	if len(e.path) == 0 {
		return e.msg
	}
	p := slices.Clone(e.path)
	slices.Reverse(p)
	return e.msg + " at " + strings.Join(p, "")
}

func (e *pathError) Unwrap() error { return e.err }

func wrapPath(err error, seg string) error {
	var pe *pathError
	if errors.As(err, &pe) {
		pe.path = append(pe.path, seg)
		return pe
	}
	return err
}

// fromStarlark turns a Starlark value into a generic JSON value:
// map[string]any, []any, string, int64, float64, bool or nil. Integers
// beyond int64 become float64; tuples become lists. Sets, functions,
// bytes, non-string dict keys and non-finite floats are refused.
func fromStarlark(v starlark.Value, b *budget, depth int) (any, error) {
	if depth > maxDepth {
		return nil, &pathError{msg: fmt.Sprintf("nesting deeper than %d levels", maxDepth)}
	}
	switch x := v.(type) {
	case starlark.NoneType:
		return nil, b.spend(4)
	case starlark.Bool:
		return bool(x), b.spend(5)
	case starlark.String:
		// JSON text, and every row, is UTF-8; Starlark strings may hold
		// any bytes ("\xff").
		if !utf8.ValidString(string(x)) {
			return nil, &pathError{msg: "a string that is not valid UTF-8 (JSON text is UTF-8)"}
		}
		return string(x), b.spend(len(x) + 2)
	case starlark.Int:
		if err := b.spend(8); err != nil {
			return nil, err
		}
		if i, ok := x.Int64(); ok {
			return i, nil
		}
		f := float64(x.Float())
		if math.IsInf(f, 0) {
			return nil, &pathError{msg: "an integer too large for JSON"}
		}
		return f, nil
	case starlark.Float:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, &pathError{msg: fmt.Sprintf("the float %v (JSON has no NaN or infinity)", f)}
		}
		if f == 0 {
			f = 0 // -0 and 0 are one JSON number; keep hashes canonical
		}
		return f, b.spend(8)
	case *starlark.List:
		return seqFromStarlark(x, x.Len(), b, depth)
	case starlark.Tuple:
		return seqFromStarlark(x, x.Len(), b, depth)
	case *starlark.Dict:
		if err := b.spend(2); err != nil {
			return nil, err
		}
		out := make(map[string]any, x.Len())
		// Keys and Get, unlike Items, allocate nothing per entry.
		for _, kv := range x.Keys() {
			k, ok := kv.(starlark.String)
			if !ok {
				return nil, &pathError{msg: fmt.Sprintf("a dict key of type %s (JSON keys are strings)", kv.Type())}
			}
			if !utf8.ValidString(string(k)) {
				return nil, &pathError{msg: "a dict key that is not valid UTF-8 (JSON text is UTF-8)"}
			}
			val, _, _ := x.Get(kv)
			if err := b.spend(len(k) + 4); err != nil {
				return nil, err
			}
			e, err := fromStarlark(val, b, depth+1)
			if err != nil {
				return nil, wrapPath(err, "["+strconv.Quote(string(k))+"]")
			}
			out[string(k)] = e
		}
		return out, nil
	}
	return nil, &pathError{msg: "a value of type " + v.Type()}
}

func seqFromStarlark(seq starlark.Indexable, n int, b *budget, depth int) (any, error) {
	if err := b.spend(2 + n); err != nil {
		return nil, err
	}
	out := make([]any, n)
	for i := range n {
		e, err := fromStarlark(seq.Index(i), b, depth+1)
		if err != nil {
			return nil, wrapPath(err, "["+strconv.Itoa(i)+"]")
		}
		out[i] = e
	}
	return out, nil
}

// toStarlark turns a generic JSON value into fresh, mutable Starlark
// values. Map keys are inserted in sorted order so iteration in a handler
// is deterministic.
func toStarlark(v any, b *budget, depth int) (starlark.Value, error) {
	if depth > maxDepth {
		return nil, &pathError{msg: fmt.Sprintf("nesting deeper than %d levels", maxDepth)}
	}
	switch x := v.(type) {
	case nil:
		return starlark.None, b.spend(4)
	case bool:
		return starlark.Bool(x), b.spend(5)
	case string:
		return starlark.String(x), b.spend(len(x) + 2)
	case int64:
		return starlark.MakeInt64(x), b.spend(8)
	case int:
		return starlark.MakeInt(x), b.spend(8)
	case float64:
		return starlark.Float(x), b.spend(8)
	case json.Number:
		if err := b.spend(len(x)); err != nil {
			return nil, err
		}
		return numberToStarlark(x)
	case []any:
		if err := b.spend(2 + len(x)); err != nil {
			return nil, err
		}
		elems := make([]starlark.Value, len(x))
		for i, e := range x {
			sv, err := toStarlark(e, b, depth+1)
			if err != nil {
				return nil, wrapPath(err, "["+strconv.Itoa(i)+"]")
			}
			elems[i] = sv
		}
		return starlark.NewList(elems), nil
	case map[string]any:
		if err := b.spend(2); err != nil {
			return nil, err
		}
		var buf [16]string
		keys := buf[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		d := starlark.NewDict(len(x))
		for _, k := range keys {
			if err := b.spend(len(k) + 4); err != nil {
				return nil, err
			}
			sv, err := toStarlark(x[k], b, depth+1)
			if err != nil {
				return nil, wrapPath(err, "["+strconv.Quote(k)+"]")
			}
			if err := d.SetKey(starlark.String(k), sv); err != nil {
				return nil, err
			}
		}
		return d, nil
	}
	// Records of built-in domains may be Go structs: go through their JSON.
	g, err := genericJSON(v)
	if err != nil {
		return nil, &pathError{msg: fmt.Sprintf("a %T that is not JSON", v), err: err}
	}
	return toStarlark(g, b, depth)
}

func numberToStarlark(n json.Number) (starlark.Value, error) {
	s := string(n)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return starlark.MakeInt64(i), nil
	}
	if !strings.ContainsAny(s, ".eE") {
		if bi, ok := new(big.Int).SetString(s, 10); ok {
			return starlark.MakeBigInt(bi), nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, &pathError{msg: fmt.Sprintf("the number %s", s), err: err}
	}
	return starlark.Float(f), nil
}

// genericJSON re-decodes any JSON-marshalable value into generic values.
func genericJSON(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return decodeJSONDoc(raw)
}

// normalizeNumbers replaces json.Number in place by int64 or float64.
func normalizeNumbers(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		return numberToGo(x)
	case []any:
		for i, e := range x {
			n, err := normalizeNumbers(e)
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
	case map[string]any:
		for k, e := range x {
			n, err := normalizeNumbers(e)
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
	}
	return v, nil
}

func numberToGo(n json.Number) (any, error) {
	s := string(n)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, fmt.Errorf("the number %s does not fit a float64", s)
	}
	if f == 0 {
		f = 0
	}
	return f, nil
}

// jsonEqual compares generic JSON values, numbers by value (3 == 3.0).
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case int64, float64, int, json.Number:
		if ia, ok := b2i(a); ok {
			if ib, ok := b2i(b); ok {
				return ia == ib
			}
		}
		fa, ok1 := asFloat(x)
		fb, ok2 := asFloat(b)
		return ok1 && ok2 && fa == fb
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// b2i returns v as an exact int64 when it is an integer-typed value, so
// large integers compare exactly rather than through float64.
func b2i(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case json.Number:
		i, err := x.Int64()
		return i, err == nil
	}
	return 0, false
}

// lookup follows a dotted path through nested objects.
func lookup(v any, path string) (any, bool) {
	for path != "" {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		seg := path
		if i := strings.IndexByte(path, '.'); i >= 0 {
			seg, path = path[:i], path[i+1:]
		} else {
			path = ""
		}
		v, ok = m[seg]
		if !ok {
			return nil, false
		}
	}
	return v, true
}
