package model

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/synth-data/synth/tools"
)

// NamedValue is a required output: a name and the text the agent must say.
type NamedValue struct {
	Name  string
	Value string
	Raw   any
}

// Scopes are what a write's outputs are computed from: the target as read
// before the write, the write's result, the customer's record, and the
// records each choice argument names.
type Scopes struct {
	Target map[string]any
	Result any
	User   map[string]any
	Elems  map[string][]any
}

func (s Scopes) named() map[string]any {
	out := map[string]any{"result": s.Result}
	if s.Target != nil {
		out["target"] = s.Target
	}
	if s.User != nil {
		out["user"] = s.User
	}
	for k, v := range s.Elems {
		out[k] = v
	}
	return out
}

// OutputsOf lists what the agent must tell after a write: the pack's
// outputs (paths in the result, or NAME=EXPR computed from the scopes),
// else the result's amounts of money that are new or changed against the
// target as read before the write.
func (m *Model) OutputsOf(w *WriteModel, sc Scopes) ([]NamedValue, error) {
	var out []NamedValue
	if len(w.Outputs) > 0 {
		for _, spec := range w.Outputs {
			if strings.Contains(spec, "=") {
				name, v, err := evalOutput(spec, w.outputExprs[spec], sc.named())
				if err != nil {
					return nil, fmt.Errorf("output %s: %w", spec, err)
				}
				out = append(out, NamedValue{Name: name, Value: FormatValue(v), Raw: v})
				continue
			}
			v, ok := ValueAt(sc.Result, spec)
			if !ok || v == nil {
				continue
			}
			switch v.(type) {
			case map[string]any, []any:
				continue
			}
			if s := FormatValue(v); s != "" {
				out = append(out, NamedValue{Name: strings.ReplaceAll(spec, ".", "_"), Value: s, Raw: v})
			}
		}
		return out, nil
	}
	obj, ok := sc.Result.(map[string]any)
	if !ok {
		return nil, nil
	}
	for _, f := range slices.Sorted(maps.Keys(obj)) {
		switch obj[f].(type) {
		case float64, int64, int:
		default:
			continue
		}
		if !IsMoney(f) {
			continue
		}
		if sc.Target != nil {
			if old, had := sc.Target[f]; had && tools.Text(old) == tools.Text(obj[f]) {
				continue
			}
		}
		out = append(out, NamedValue{Name: f, Value: FormatValue(obj[f]), Raw: obj[f]})
	}
	return out, nil
}
