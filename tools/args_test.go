package tools

import (
	"encoding/json"
	"fmt"
)

// The test toolkits' handlers read their arguments, which arrive decoded
// by the schema library (strings, bools, nil, json.Number, []any and
// map[string]any), with these helpers: a wrong type is a schema bug and
// is reported as an error rather than a panic.

// Str returns a string argument ("" when absent).
func Str(args map[string]any, key string) (string, error) {
	v, ok := args[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("argument %q must be a string", key)
	}
	return s, nil
}

// Strs returns a list-of-strings argument.
func Strs(args map[string]any, key string) ([]string, error) {
	v, ok := args[key]
	if !ok || v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("argument %q must be a list of strings", key)
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("argument %q[%d] must be a string", key, i)
		}
		out[i] = s
	}
	return out, nil
}

// Num returns a numeric argument.
func Num(args map[string]any, key string) (float64, error) {
	switch v := args[key].(type) {
	case json.Number:
		return v.Float64()
	case float64:
		return v, nil
	case int:
		return float64(v), nil
	case nil:
		return 0, fmt.Errorf("argument %q is required", key)
	default:
		return 0, fmt.Errorf("argument %q must be a number", key)
	}
}

// Obj returns an object argument.
func Obj(args map[string]any, key string) (map[string]any, error) {
	v, ok := args[key]
	if !ok || v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("argument %q must be an object", key)
	}
	return m, nil
}
