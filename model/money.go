package model

import (
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/synth-data/synth/tools"
)

// Which way a write's money goes is read off what the write does, the
// same way by the agent that states a figure and the verifier that
// holds the statement to the replayed write: a figure the customer
// would read as a charge when it is a refund (or the other way round)
// teaches an agent to mislead.

// GoesBack reports whether a write's figure (name, raw) is money that
// goes back to the customer, not money the customer pays: a negative
// amount, a figure named a refund, or one whose entry the write makes
// on the customer's chosen method (a payment method) is a refund or
// holds it negative, as an absolute price difference is. before is the
// target as read before the write (nil for a write that names none),
// after the write's result and args its arguments. via is the choose
// argument whose entry shows the money, nil when none does.
func (w *WriteModel) GoesBack(before map[string]any, after any, args map[string]any, name string, raw any) (back bool, via *ParamModel) {
	if n, ok := Number(raw); ok && n < 0 {
		back = true
	}
	if slices.ContainsFunc(strings.Fields(Words(name)), func(s string) bool { return strings.HasPrefix(s, "refund") }) {
		back = true
	}
	for _, p := range w.Params {
		if p.Source != SrcChoose || args[p.Name] == nil {
			continue
		}
		if e := MoneyEntry(before, after, tools.Text(p.Chosen(args[p.Name]))); e != nil {
			return back || isRefund(e) || holdsNegative(e, raw), p
		}
	}
	return back, nil
}

// MoneyEntry is a record in a write's result that names id (a payment
// method) and was not in the target before it: the entry the write
// makes for the money it moves with that choice. nil when none.
func MoneyEntry(before map[string]any, after any, id string) map[string]any {
	if id == "" {
		return nil
	}
	var old []map[string]any
	naming(before, id, &old)
	var found []map[string]any
	naming(after, id, &found)
	for _, e := range found {
		if !slices.ContainsFunc(old, func(o map[string]any) bool { return reflect.DeepEqual(o, e) }) {
			return e
		}
	}
	return nil
}

// naming collects the maps in v that hold id as one of their values, in
// an order that does not depend on the maps' (the first new entry is
// the one said). Only the keys of nested maps and lists are sorted:
// every write of a run is searched this way, twice.
func naming(v any, id string, out *[]map[string]any) {
	switch x := v.(type) {
	case map[string]any:
		var nested []string
		holds := false
		for k, f := range x {
			switch f := f.(type) {
			case string:
				holds = holds || f == id
			case map[string]any, []any:
				nested = append(nested, k)
			}
		}
		if holds {
			*out = append(*out, x)
		}
		slices.Sort(nested)
		for _, k := range nested {
			naming(x[k], id, out)
		}
	case []any:
		for _, e := range x {
			naming(e, id, out)
		}
	}
}

// holdsNegative reports whether a record holds a figure's magnitude
// as a negative number: the signed amount behind a figure said as a
// magnitude (a price difference the customer gets back).
func holdsNegative(e map[string]any, figure any) bool {
	f, ok := Number(figure)
	if !ok || f <= 0 {
		return false
	}
	for _, v := range e {
		if n, ok := Number(v); ok && n < 0 && math.Abs(n+f) < 0.005 {
			return true
		}
	}
	return false
}

// isRefund reports whether the entry a write makes for its money says
// the money goes back to the customer.
func isRefund(e map[string]any) bool {
	for _, v := range e {
		if s, ok := v.(string); ok && strings.Contains(strings.ToLower(s), "refund") {
			return true
		}
	}
	return false
}

// CallScopes are the scopes a write's outputs are computed in, rebuilt
// from a call's arguments on the state before it: the target record,
// the owner's record, and the elements its picked, replacing and
// chosen arguments name. Result is left to the caller, who runs the
// write. The verifier computes a dialogue's figures with it, as the
// generator and the agent compute them from what they chose.
func (m *Model) CallScopes(st *tools.State, w *WriteModel, args map[string]any) Scopes {
	var sc Scopes
	if obj, ok := w.TargetRecord(st, args); ok {
		sc.Target = obj
	}
	if m.Users != nil {
		if owner := m.Owner(st, args); owner != "" {
			if v, ok := st.Get(m.Users.Coll.Name, owner); ok {
				sc.User, _ = tools.ToObject(v)
			}
		}
	}
	picked := map[string][]map[string]any{}
	for _, p := range w.Params {
		v, ok := args[p.Name]
		if !ok {
			continue
		}
		var elems []map[string]any
		switch {
		case p.Pick != nil:
			for _, x := range listOf(v) {
				if e, ok := p.Pick.Element(sc.User, sc.Target, x); ok {
					elems = append(elems, e)
				}
			}
			picked[p.Name] = elems
		case p.Replace != nil:
			elems = m.replacements(st, p.Replace, picked[p.Replace.Of], listOf(v))
		case p.Choose != nil:
			if e, ok := p.Choose.Element(sc.User, p.Chosen(v)); ok {
				elems = []map[string]any{e}
			}
		}
		if len(elems) > 0 {
			if sc.Elems == nil {
				sc.Elems = map[string][]any{}
			}
			for _, e := range elems {
				sc.Elems[p.Name] = append(sc.Elems[p.Name], e)
			}
		}
	}
	return sc
}

// replacements are the sub-records ids name, each among the related
// record of the picked element at its position (a product's variants).
func (m *Model) replacements(st *tools.State, r *ReplaceModel, of []map[string]any, ids []any) []map[string]any {
	var out []map[string]any
	for i, id := range ids {
		if i >= len(of) || r.Coll == nil {
			break
		}
		v, ok := st.Get(r.Coll.Name, tools.Text(of[i][r.Via]))
		if !ok {
			continue
		}
		rel, err := tools.ToObject(v)
		if err != nil {
			continue
		}
		among, _ := ValueAt(rel, r.Among)
		for _, c := range Elements(among) {
			if tools.Text(c[r.ID]) == tools.Text(id) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// listOf is a list argument's elements, or a lone value as one.
func listOf(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	return []any{v}
}
