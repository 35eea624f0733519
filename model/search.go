package model

import "maps"

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

// Items are the candidates in one search result.
func (s *SearchModel) ItemsOf(out any) []map[string]any {
	var list any = out
	if s.Items != "" {
		list, _ = ValueAt(out, s.Items)
	}
	l, _ := list.([]any)
	items := make([]map[string]any, 0, len(l))
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			items = append(items, m)
		}
	}
	return items
}
