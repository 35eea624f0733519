package model

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// Arguments a customer chooses among things: some of the target's
// sub-records (the items to return), a replacement for each (another
// variant of the same product), one of their own things (a payment
// method) or the target's original one, and values drawn together from
// another record (an address). The generator, the customer and the agent
// share these models, so a choice means the same to all three.

// PickModel is a list argument of some of the target's sub-records, or
// of the customer's record's (User): each element's ID field, or the
// whole element when ID is empty.
type PickModel struct {
	User     bool
	From     string
	ID       string
	Min, Max int
	// SameAs, when set, is the path in the target of a list whose length
	// the pick has instead of Min to Max.
	SameAs   string
	Describe []string
	Say      string
	// Bare names an element without an article (a person).
	Bare bool
}

// ReplaceModel is a list argument parallel to a pick: for each picked
// element, a candidate among the sub-records of a related record.
type ReplaceModel struct {
	Of       string
	Coll     *CollModel
	Via      string
	Among    string
	ID       string
	Where    map[string]string
	Describe []string
	Compare  []string
	Say      string
}

// ChooseModel is an argument the customer picks among their own things,
// or the original one the target names.
type ChooseModel struct {
	From       string
	ID         string
	Where      map[string][]string
	Default    string
	DefaultSay string
	Other      bool
	By         string
	Say        map[string]string
	// Entry, for a choice the pack's function builds the argument around,
	// is where the choice sits in the argument's first entry (Chosen).
	Entry string
}

// Value is what a picked element gives the argument.
func (pk *PickModel) Value(e map[string]any) any {
	if pk.ID == "" {
		return e
	}
	return e[pk.ID]
}

// Same reports whether two argument values name the same element.
func (pk *PickModel) Same(x, y any) bool {
	if pk.ID == "" {
		return reflect.DeepEqual(x, y)
	}
	return tools.Text(x) == tools.Text(y)
}

// hintedArg compiles a hinted argument source.
func (m *Model) hintedArg(w *WriteModel, p *ParamModel, a pack.Arg) error {
	switch {
	case a.Pick != nil:
		from, mine := strings.CutPrefix(a.Pick.From, "user.")
		switch {
		case mine && m.Users == nil:
			return errors.New("pick from user. needs users")
		case !mine && w.TargetKind != TargetColl:
			return errors.New("pick needs a target collection or from: user.PATH")
		}
		lo, hi := 1, 2
		same, isSame := strings.CutPrefix(a.Pick.Count, "target.")
		if !isSame {
			same = ""
		}
		if isSame && w.TargetKind != TargetColl {
			return errors.New("pick.count target.PATH needs a target collection")
		}
		if a.Pick.Count != "" && !isSame {
			var err error
			if lo, hi, err = pack.ParseCount(a.Pick.Count); err != nil {
				return fmt.Errorf("pick.count %q: %w", a.Pick.Count, err)
			}
		}
		p.Source = SrcPick
		p.Pick = &PickModel{User: mine, From: from, ID: a.Pick.ID, Min: lo, Max: hi, SameAs: same, Describe: a.Pick.Describe, Say: a.Pick.Say, Bare: a.Pick.Article == "none"}
	case a.Replace != nil:
		r := a.Replace
		c := m.Colls[r.From]
		if c == nil || c.Get == "" {
			return fmt.Errorf("replace.from %q is not a collection with a get tool", r.From)
		}
		p.Source = SrcReplace
		p.Replace = &ReplaceModel{Of: r.Of, Coll: c, Via: r.Via, Among: r.Among, ID: r.ID, Where: r.Where,
			Describe: r.Describe, Compare: r.Compare, Say: r.Say}
	case a.Choose != nil:
		if m.Users == nil {
			return errors.New("choose needs users")
		}
		ch := a.Choose
		if ch.Default != "" && w.TargetKind != TargetColl {
			return errors.New("choose.default needs a target collection")
		}
		p.Source = SrcChoose
		p.Choose = &ChooseModel{From: ch.From, ID: ch.ID, Where: ch.Where, Default: strings.TrimPrefix(ch.Default, "target."),
			DefaultSay: ch.DefaultSay, Other: ch.Other, By: ch.By, Say: ch.Say, Entry: ch.Entry}
		if a.Compute != "" {
			p.ComputeName, p.Compute = a.Compute, m.computes[a.Compute]
			if p.Compute == nil {
				return fmt.Errorf("compute %s: the pack's policy code defines no function %s", a.Compute, a.Compute)
			}
		}
		if p.Choose.DefaultSay == "" {
			p.Choose.DefaultSay = "the original " + Singular(Words(LastStep(ch.From)))
		}
	case a.Slot != "":
		if err := m.hintedSource(w, p, a.SlotSource()); err != nil {
			return err
		}
		p.Say = a.Say
	default:
		if err := m.hintedSource(w, p, a.Source); err != nil {
			return err
		}
		p.Say = a.Say // a computed value's words, nil for a source string
	}
	return nil
}

// SaySlot is how a customer says value v of slot p: the pack's words for
// it (Say), or "" when it has none.
func SaySlot(p *ParamModel, v string) string {
	if p == nil {
		return ""
	}
	t, ok := p.Say[v]
	if !ok {
		if t, ok = p.Say["*"]; !ok {
			return ""
		}
	}
	return strings.ReplaceAll(t, "{value}", ValueWords(v))
}

// CountChoices reads a slot whose choices are a run of counts the pack
// words as "{value} checked bags in total" as a question of how many:
// listing "one checked bag in total, 2 checked bags in total, … or 6
// checked bags in total" is how a form reads, not a person.
func (p *ParamModel) CountChoices() (what, lo, hi string, ok bool) {
	if p == nil || len(p.Choices) < 4 {
		return "", "", "", false
	}
	what, found := strings.CutPrefix(p.Say["*"], "{value} ")
	if !found || strings.Contains(what, "{") {
		return "", "", "", false
	}
	prev := 0
	for i, c := range p.Choices {
		n, err := strconv.Atoi(c)
		if err != nil || (i > 0 && n != prev+1) {
			return "", "", "", false
		}
		prev = n
	}
	return what, p.Choices[0], p.Choices[len(p.Choices)-1], true
}

// Elements returns the sub-records at a value: a list's objects, or an
// object's values when every value is an object (records by key), in key
// order.
func Elements(v any) []map[string]any {
	switch x := v.(type) {
	case []any:
		out := make([]map[string]any, 0, len(x))
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	case map[string]any:
		var buf [16]string
		out := make([]map[string]any, 0, len(x))
		for _, k := range sortedKeys(buf[:], x) {
			m, ok := x[k].(map[string]any)
			if !ok {
				return nil
			}
			out = append(out, m)
		}
		return out
	}
	return nil
}

// sortedKeys is m's keys in order, in buf when they fit: a caller's
// array holds a record's keys without an allocation, and the sorted
// keys of every record read were a twentieth of a run's allocations.
func sortedKeys[V any](buf []string, m map[string]V) []string {
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Allowed reports whether a target meets a write's preconditions.
func (w *WriteModel) Allowed(obj map[string]any) bool { return len(w.Unmet(obj)) == 0 }

// Unmet lists the preconditions a target fails, by field in name order.
// A condition is a value the field must equal (case aside) or a
// comparison (">2024-05-15", "<=100"; numbers by value, other text in
// order, so ISO dates compare as dates); a field holding a list (a
// path through a list, flights.date) meets it only if every element does.
func (w *WriteModel) Unmet(obj map[string]any) []string { return unmet(w.When, obj) }

// Forbidden reports whether a refusal task may use a target: it fails
// the preconditions and meets Refuse, where the pack gives it.
func (w *WriteModel) Forbidden(obj map[string]any) bool {
	return !w.Allowed(obj) && len(unmet(w.Refuse, obj)) == 0
}

func unmet(when map[string][]string, obj map[string]any) []string {
	var out []string
	var buf [16]string
	for _, f := range sortedKeys(buf[:], when) {
		conds := when[f]
		v, _ := ValueAt(obj, f)
		vals := []any{v}
		if l, ok := v.([]any); ok {
			vals = l
		}
		for _, x := range vals {
			if !slices.ContainsFunc(conds, func(c string) bool { return meets(x, c) }) {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// meets reports whether a value meets one condition of a when: list.
func meets(v any, cond string) bool {
	op, rest := comparison(cond)
	text := tools.Text(v)
	if op == "" {
		return strings.EqualFold(cond, text)
	}
	c := strings.Compare(text, rest)
	if a, err := strconv.ParseFloat(text, 64); err == nil {
		if b, err := strconv.ParseFloat(rest, 64); err == nil {
			c = cmp.Compare(a, b)
		}
	}
	switch op {
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	case "<":
		return c < 0
	}
	return c <= 0
}

// comparison splits a condition into its operator and operand; op is ""
// for an equality.
func comparison(cond string) (op, rest string) {
	for _, p := range []string{">=", "<=", ">", "<"} {
		if r, ok := strings.CutPrefix(cond, p); ok {
			return p, strings.TrimSpace(r)
		}
	}
	return "", cond
}

// ConditionWords says a condition of a when: list in words.
func ConditionWords(cond string) string {
	switch op, rest := comparison(cond); op {
	case ">":
		return "after " + rest
	case ">=":
		return rest + " or later"
	case "<":
		return "before " + rest
	case "<=":
		return rest + " or earlier"
	}
	return "\"" + cond + "\""
}

// Revisable reports whether a write has an argument a customer can change
// their mind about: a slot with alternatives, or a choice among their
// things.
func (w *WriteModel) Revisable() bool {
	for _, p := range w.Params {
		if p.Source == SrcChoose || p.Source == SrcSlot && (len(p.Choices) > 1 || p.Path != "" || len(p.Choices) == 0) {
			return true
		}
	}
	return false
}

// Chooses reports whether the write takes one of the customer's things
// (a payment method) for an argument.
func (w *WriteModel) Chooses() bool {
	return slices.ContainsFunc(w.Params, func(p *ParamModel) bool { return p.Source == SrcChoose })
}

// Refusable reports whether a write has preconditions a customer's
// request can fail: a when:, a refusal of its tool or an allow rule on
// the record it acts on.
func (w *WriteModel) Refusable() bool {
	return len(w.When) > 0 || len(w.Refusals) > 0 || len(w.Allows) > 0 && w.TargetKind == TargetColl
}

// RefusalsIndexed reports whether Fitting(w, false, user) lists every
// record a forbidden request for w may act on: its policy function does
// on the target alone (a computed argument it gives no value refuses
// the request before any allow rule runs), or its preconditions do
// (When). An allow rule's refusal depends on what the customer says,
// and a tool's refusal elsewhere shows only when tried.
func (w *WriteModel) RefusalsIndexed() bool {
	return w.DecidedOnTarget() || len(w.Allows) == 0 && len(w.When) > 0
}

// Forbids reports whether some request for the write is one the policy
// surely forbids, for a refusal task: a refusal of its tool, an allow
// rule on a record it acts on, or a target failing its preconditions,
// unless its Refuse has a field with no values (pack.WriteHint.Refuse:
// When only narrows the tasks).
func (w *WriteModel) Forbids() bool {
	if len(w.Refusals) > 0 || len(w.Allows) > 0 && w.TargetKind == TargetColl {
		return true
	}
	for _, vals := range w.Refuse {
		if len(vals) == 0 {
			return false
		}
	}
	return len(w.When) > 0
}

// expandFields turns describe paths into the scalar paths of one element:
// an object field contributes one path per key ("options" → options.color).
func expandFields(elem map[string]any, fields []string) []string {
	var out []string
	for _, f := range fields {
		v, ok := ValueAt(elem, f)
		if !ok {
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				if _, nested := x[k].(map[string]any); !nested {
					out = append(out, f+"."+k)
				}
			}
		case []any, nil:
		default:
			out = append(out, f)
		}
	}
	return out
}

// Wheres yields the conditions that may single out element i, fewest
// fields first: each field alone, then pairs, then all of them. They are
// made as asked for: the first one or two mostly do.
func Wheres(elem map[string]any, fields []string) iter.Seq[map[string]string] {
	return func(yield func(map[string]string) bool) {
		paths := expandFields(elem, fields)
		val := func(p string) string { v, _ := ValueAt(elem, p); return tools.Text(v) }
		for _, a := range paths {
			if !yield(map[string]string{a: val(a)}) {
				return
			}
		}
		for i, a := range paths {
			for _, b := range paths[i+1:] {
				if !yield(map[string]string{a: val(a), b: val(b)}) {
					return
				}
			}
		}
		if len(paths) > 2 {
			all := make(map[string]string, len(paths))
			for _, a := range paths {
				all[a] = val(a)
			}
			yield(all)
		}
	}
}

// ElementSelector describes element i of elems so that it alone fits:
// the fewest describe fields that single it out, else its id.
func ElementSelector(coll string, elems []map[string]any, i int, id string, describe []string, say string, bare bool) (record.Selector, error) {
	fits := func(where map[string]string) (record.Selector, bool) {
		sel := record.Selector{Collection: coll, Where: where}
		if j, err := tools.ResolveKey(sel, elems, id); err != nil || j != i {
			return sel, false
		}
		sel.Label = ElementWords(say, where, elems[i])
		if !bare {
			sel.Label = "the " + sel.Label
		}
		return sel, true
	}
	for where := range Wheres(elems[i], describe) {
		if sel, ok := fits(where); ok {
			return sel, nil
		}
	}
	if id != "" {
		if sel, ok := fits(map[string]string{id: tools.Text(elems[i][id])}); ok {
			return sel, nil
		}
	}
	return record.Selector{}, fmt.Errorf("%s: element %d cannot be told apart", coll, i)
}

// optionWords says an option's value; a yes/no one by its name, never
// as an adjective ("the silver 5K yes version"): "water resistance",
// "no backlight".
func optionWords(field, v string) string {
	w := ValueWords(v)
	switch strings.ToLower(w) {
	case "yes", "true":
		return Words(LastStep(field))
	case "no", "false", "none":
		return "no " + Words(LastStep(field))
	}
	return w
}

// ElementWords renders an element's description from a template: an
// object field ({options}) says the values of its keys the description
// uses, a scalar field ({name}) the element's value; {field|lower} and
// {field|title} change the case. Without a template the values the
// description uses are listed.
func ElementWords(say string, where map[string]string, elem map[string]any) string {
	if say == "" {
		var vals []string
		for _, k := range slices.Sorted(maps.Keys(where)) {
			vals = append(vals, optionWords(k, where[k]))
		}
		return strings.Join(vals, " ")
	}
	out := sayField.ReplaceAllStringFunc(say, func(s string) string {
		name, filter, _ := strings.Cut(s[1:len(s)-1], "|")
		var vals []string
		if v, ok := ValueAt(elem, name); ok {
			if _, isObj := v.(map[string]any); !isObj && v != nil {
				vals = append(vals, ValueWords(tools.Text(v)))
			}
		}
		if len(vals) == 0 {
			for _, k := range slices.Sorted(maps.Keys(where)) {
				if k == name || strings.HasPrefix(k, name+".") {
					vals = append(vals, optionWords(k, where[k]))
				}
			}
		}
		return caseFilter(strings.Join(vals, " "), filter)
	})
	return strings.Join(strings.Fields(out), " ")
}

// caseFilter applies a template filter: lower makes a name lower case as
// a person writes it mid-sentence (capitalised words only, so "LED" and
// "iPhone" stay), title capitalises each word ("amex" → "Amex").
func caseFilter(s, filter string) string {
	switch filter {
	case "lower":
		words := strings.Fields(s)
		for i, w := range words {
			r := []rune(w)
			if len(r) > 1 && unicode.IsUpper(r[0]) && strings.ToLower(string(r[1:])) == string(r[1:]) {
				words[i] = strings.ToLower(w)
			} else if len(r) == 1 {
				words[i] = strings.ToLower(w)
			}
		}
		return strings.Join(words, " ")
	case "title":
		words := strings.Fields(s)
		for i, w := range words {
			r := []rune(w)
			r[0] = unicode.ToUpper(r[0])
			words[i] = string(r)
		}
		return strings.Join(words, " ")
	case "words":
		// An identifier said as words: basic_economy → basic economy.
		return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' }), " ")
	}
	return s
}

// FillSay renders a template with an element's own values (every field
// it names), for names that do not depend on a description.
func FillSay(say string, elem map[string]any) string {
	return fillSay(say, elem, nil)
}

// DetailText renders a search's Detail over a candidate; the elements of
// a list it names are said by their identifying fields first ("SY101 on
// June 5, 2024").
func DetailText(detail string, cand map[string]any, identifying []string) string {
	return fillSay(detail, cand, identifying)
}

func fillSay(say string, elem map[string]any, identifying []string) string {
	out := sayField.ReplaceAllStringFunc(say, func(s string) string {
		name, filter, _ := strings.Cut(s[1:len(s)-1], "|")
		v, ok := ValueAt(elem, name)
		if !ok {
			return ""
		}
		if obj, isObj := v.(map[string]any); isObj {
			// Options ({color: blue, size: large}) by their values, as
			// a person lists them: "blue, large".
			var vals []string
			for _, k := range slices.Sorted(maps.Keys(obj)) {
				vals = append(vals, caseFilter(optionWords(k, tools.Text(obj[k])), filter))
			}
			return strings.Join(vals, ", ")
		}
		if list, isList := v.([]any); isList {
			// Legs or items, each as a person names one: "SY101 on
			// June 5, 2024 and SY220 on June 5, 2024".
			els := make([]string, len(list))
			for i, e := range list {
				if m, ok := e.(map[string]any); ok {
					els[i] = ElementText(m, identifying, nil, nil)
				} else {
					els[i] = ValueWords(tools.Text(e))
				}
			}
			return JoinAnd(els)
		}
		return caseFilter(valueFilter(name, v, filter), filter)
	})
	return strings.Join(strings.Fields(out), " ")
}

// valueFilter says a value as the filters that read its kind ask:
// money ("$142", "$57.68"), clock (a time of day "23:30:00" as "11:30
// PM", with τ²'s "+1" for the next day as words); other filters work on
// the words.
func valueFilter(name string, v any, filter string) string {
	switch filter {
	case "money":
		if _, ok := v.(string); !ok {
			if s := SayValue(name, v); strings.Contains(s, "$") {
				return s
			}
			return "$" + FormatValue(v)
		}
	case "clock":
		if w, ok := ClockWords(tools.Text(v)); ok {
			return w
		}
	}
	return ValueWords(tools.Text(v))
}

// Candidates lists the replacements a related record offers for an
// element: its sub-records that meet the conditions, other than the
// element itself.
func (r *ReplaceModel) Candidates(related map[string]any, elem map[string]any) []map[string]any {
	var out []map[string]any
	v, _ := ValueAt(related, r.Among)
	for _, c := range Elements(v) {
		if tools.Matches(c, r.Where) && tools.Text(c[r.ID]) != tools.Text(elem[r.ID]) {
			out = append(out, c)
		}
	}
	return out
}

// Unavailable lists the sub-records of a related record that are no
// candidates to replace elem (an unavailable variant), elem aside.
func (r *ReplaceModel) Unavailable(related map[string]any, elem map[string]any) []map[string]any {
	var out []map[string]any
	v, _ := ValueAt(related, r.Among)
	for _, c := range Elements(v) {
		if !tools.Matches(c, r.Where) && tools.Text(c[r.ID]) != tools.Text(elem[r.ID]) {
			out = append(out, c)
		}
	}
	return out
}

// ReplacementForms are the ways a customer describes candidate c to
// replace elem: by all its attributes ("the navy, large one"), or by one
// attribute it has that elem lacks and a criterion ("the cheapest
// available navy one").
func (r *ReplaceModel) ReplacementForms(c, elem map[string]any) []record.Selector {
	var forms []record.Selector
	paths := expandFields(c, r.Describe)
	full := map[string]string{}
	for _, p := range paths {
		v, _ := ValueAt(c, p)
		full[p] = tools.Text(v)
	}
	if len(full) > 0 {
		forms = append(forms, record.Selector{Where: full})
	}
	for _, p := range paths {
		v, _ := ValueAt(c, p)
		own, _ := ValueAt(elem, p)
		if tools.Text(v) == tools.Text(own) {
			continue
		}
		for _, f := range r.Compare {
			w := map[string]string{p: tools.Text(v)}
			forms = append(forms, record.Selector{Where: w, Pick: "min:" + f}, record.Selector{Where: w, Pick: "max:" + f})
		}
	}
	return forms
}

// ReplacementLabel names a replacement the way a customer would.
func (r *ReplaceModel) ReplacementLabel(sel record.Selector, c map[string]any) string {
	padj, _ := PickWords(sel.Pick)
	words := []string{"the"}
	if padj != "" {
		words = append(words, padj)
	}
	if sel.Pick != "" {
		// "the cheapest available blue one": the condition matters when
		// the customer picks among the candidates.
		for _, k := range slices.Sorted(maps.Keys(r.Where)) {
			if strings.EqualFold(r.Where[k], "true") {
				words = append(words, Words(LastStep(k)))
			}
		}
	}
	if sel.Pick == "" {
		if r.Say != "" {
			return strings.Join(append(words, ElementWords(r.Say, sel.Where, c)), " ")
		}
		return strings.Join(append(words, ElementWords("", sel.Where, c), "one"), " ")
	}
	return strings.Join(append(words, ElementWords("", sel.Where, c), "one"), " ")
}

// ChoiceElements are the customer's things a choose argument picks among.
func (ch *ChooseModel) ChoiceElements(user map[string]any) []map[string]any {
	v, _ := ValueAt(user, ch.From)
	return Elements(v)
}

// DefaultValue is the value "the original one" means on a target.
func (ch *ChooseModel) DefaultValue(target map[string]any) (any, bool) {
	if ch.Default == "" {
		return nil, false
	}
	v, ok := ValueAt(target, ch.Default)
	if l, isList := v.([]any); isList {
		if len(l) == 0 {
			return nil, false
		}
		v = l[0]
	}
	return v, ok && v != nil
}

// Allowed reports whether the customer may choose an element.
func (ch *ChooseModel) Allowed(e map[string]any) bool {
	for f, vals := range ch.Where {
		v, _ := ValueAt(e, f)
		if !slices.ContainsFunc(vals, func(s string) bool { return strings.EqualFold(s, tools.Text(v)) }) {
			return false
		}
	}
	return true
}

// ChoiceSelector names element i among the customer's things: the say
// template of its kind when that singles it out, else the fewest
// attributes that do.
func (ch *ChooseModel) ChoiceSelector(param string, elems []map[string]any, i int) (record.Selector, error) {
	e := elems[i]
	if ch.By != "" {
		tmpl, ok := ch.Say[tools.Text(e[ch.By])]
		if !ok {
			tmpl = ch.Say["*"]
		}
		if tmpl != "" {
			where := map[string]string{ch.By: tools.Text(e[ch.By])}
			for _, f := range sayField.FindAllString(tmpl, -1) {
				name, _, _ := strings.Cut(f[1:len(f)-1], "|")
				if v, ok := ValueAt(e, name); ok {
					where[name] = tools.Text(v)
				}
			}
			sel := record.Selector{Collection: param, Where: where}
			if j, err := tools.ResolveKey(sel, elems, ch.ID); err == nil && j == i {
				sel.Label = FillSay(tmpl, e)
				return sel, nil
			}
			// Two of a kind (two gift cards): what the customer sees of it
			// tells them apart ("my gift card with the $110 balance"),
			// else its id, which a customer rarely knows.
			for _, f := range slices.Sorted(maps.Keys(e)) {
				if _, named := where[f]; named || f == ch.ID {
					continue
				}
				seen, ok := seenValue(f, e[f])
				if !ok {
					continue
				}
				sel.Where = maps.Clone(where)
				sel.Where[f] = tools.Text(e[f])
				if j, err := tools.ResolveKey(sel, elems, ch.ID); err == nil && j == i {
					sel.Label = FillSay(tmpl, e) + " with " + seen
					return sel, nil
				}
			}
			sel.Where = map[string]string{ch.ID: tools.Text(e[ch.ID])}
			sel.Label = strings.TrimPrefix(FillSay(tmpl, e), "my ") + " " + tools.Text(e[ch.ID])
			if !strings.HasPrefix(sel.Label, "the ") {
				sel.Label = "the " + sel.Label
			}
			return sel, nil
		}
	}
	noun := Singular(Words(LastStep(ch.From)))
	var attrs []string
	for _, f := range slices.Sorted(maps.Keys(e)) {
		if s, ok := e[f].(string); ok && f != ch.ID && s != "" && len(s) <= 30 {
			attrs = append(attrs, f)
		}
	}
	try := func(where map[string]string) (record.Selector, bool) {
		sel := record.Selector{Collection: param, Where: where}
		if j, err := tools.ResolveKey(sel, elems, ch.ID); err == nil && j == i {
			sel.Label = ChoiceLabel(noun, where)
			return sel, true
		}
		return sel, false
	}
	for _, a := range attrs {
		if s, ok := try(map[string]string{a: tools.Text(e[a])}); ok {
			return s, nil
		}
	}
	for x, a := range attrs {
		for _, b := range attrs[x+1:] {
			if s, ok := try(map[string]string{a: tools.Text(e[a]), b: tools.Text(e[b])}); ok {
				return s, nil
			}
		}
	}
	if s, ok := try(map[string]string{ch.ID: tools.Text(e[ch.ID])}); ok {
		return s, nil
	}
	return record.Selector{}, fmt.Errorf("the customer's %s cannot be told apart", noun)
}

// seenValue is a field of one of the customer's things as the customer
// knows it, to tell it from another of its kind: "the $110.35 balance",
// "expiry 2027-01"; ok is false for a value no one reads off (a list, a
// long text).
func seenValue(f string, v any) (string, bool) {
	switch x := v.(type) {
	case float64, int64, int:
		if IsMoney(f) {
			return "the " + SayValue(f, x) + " " + Words(LastStep(f)), true
		}
		return Words(LastStep(f)) + " " + FormatValue(x), true
	case string:
		if x != "" && len(x) <= 30 {
			return Words(LastStep(f)) + " " + x, true
		}
	}
	return "", false
}

// LikeGroups lists a write's like-sourced parameters by group, groups in
// name order.
func (w *WriteModel) LikeGroups() map[string][]*ParamModel {
	out := map[string][]*ParamModel{}
	for _, p := range w.Params {
		if p.Source == SrcLike {
			out[p.Group] = append(out[p.Group], p)
		}
	}
	return out
}

// GroupOf returns the like group a goal slot belongs to ("" for none).
func (w *WriteModel) GroupOf(param string) string {
	if p := w.param[param]; p != nil && p.Source == SrcLike {
		return p.Group
	}
	return ""
}

// InformModel is a question a customer may ask about a record: a value of
// the record (a path, or a sum), or of one of its sub-records that the
// customer describes ("the price of the cheapest available blue one").
type InformModel struct {
	Coll     *CollModel
	Ask      string
	Value    *expr
	Within   string
	Where    map[string]string
	Describe []string
	Pick     string
}

func (m *Model) compileInforms(h map[string][]pack.Inform) error {
	m.Informs = map[string][]*InformModel{}
	for _, coll := range slices.Sorted(maps.Keys(h)) {
		c := m.Colls[coll]
		if c == nil {
			return fmt.Errorf("domain.yaml: hints.informs.%s: not a collection", coll)
		}
		for i, in := range h[coll] {
			src := in.Value
			src = cmp.Or(src, in.Ask)
			// A value is an expression over the record (or sub-record).
			text := "record." + src
			if rest, ok := strings.CutPrefix(src, "sum("); ok {
				text = "sum(record." + rest
			}
			e, err := parseExpr(text)
			if err != nil {
				return fmt.Errorf("domain.yaml: hints.informs.%s[%d].value %q: %w", coll, i, src, err)
			}
			m.Informs[coll] = append(m.Informs[coll], &InformModel{Coll: c, Ask: in.Ask, Value: e, Within: in.Within,
				Where: in.Where, Describe: in.Describe, Pick: in.Pick})
		}
	}
	return nil
}

// Inform returns the question of a collection by what it asks, or nil.
func (m *Model) Inform(coll, ask string) *InformModel {
	for _, in := range m.Informs[coll] {
		if in.Ask == ask {
			return in
		}
	}
	return nil
}

// Answer computes a question's answer on a record (or sub-record): the
// value (a field's, or the computed number) and its text.
func (in *InformModel) Answer(rec map[string]any) (any, string, error) {
	if len(in.Value.terms) == 1 && !in.Value.terms[0].sum && in.Value.terms[0].ref != "" {
		// A plain field: its value as it is.
		v, ok := ValueAt(rec, strings.TrimPrefix(in.Value.terms[0].ref, "record."))
		if !ok || v == nil {
			return nil, "", fmt.Errorf("no %s", in.Ask)
		}
		switch v.(type) {
		case map[string]any, []any:
			return nil, "", fmt.Errorf("%s is not a single value", in.Ask)
		}
		return v, FormatValue(v), nil
	}
	v, err := in.Value.eval(map[string]any{"record": rec})
	if err != nil {
		return nil, "", err
	}
	return v, FormatValue(v), nil
}

// SubCandidates are the sub-records a within-question picks among.
func (in *InformModel) SubCandidates(rec map[string]any) []map[string]any {
	v, _ := ValueAt(rec, in.Within)
	var out []map[string]any
	for _, e := range Elements(v) {
		if tools.Matches(e, in.Where) {
			out = append(out, e)
		}
	}
	return out
}

// addressOrder ranks the fields of an address as a person writes them.
var addressOrder = []string{"address1", "address2", "line1", "line2", "street", "street2", "city", "state", "province", "region", "zip", "zipcode", "postal_code", "postcode", "country"}

// GroupText states a like group's values the way a person writes them:
// an address as "12 Main St, Apt 4, Austin, TX 78701, USA".
func GroupText(w *WriteModel, group string, slots map[string]string) string {
	var names []string
	for _, p := range w.Params {
		if p.Group == group {
			names = append(names, p.Name)
		}
	}
	return SayGroup(names, slots)
}

// SayGroup states the values of the named slots as one phrase, address
// fields in the order a person writes them.
func SayGroup(names []string, slots map[string]string) string {
	names = slices.Clone(names)
	rank := func(n string) int {
		if i := slices.Index(addressOrder, strings.ToLower(n)); i >= 0 {
			return i
		}
		return len(addressOrder)
	}
	slices.SortStableFunc(names, func(a, b string) int {
		if r := rank(a) - rank(b); r != 0 {
			return r
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for i := 0; i < len(names); i++ {
		v := slots[names[i]]
		if v == "" {
			continue
		}
		// "TX 78701": a state and the zip that follows it share a part.
		if i+1 < len(names) && strings.EqualFold(names[i], "state") && rank(names[i+1]) >= 10 && rank(names[i+1]) <= 13 && slots[names[i+1]] != "" {
			v += " " + slots[names[i+1]]
			i++
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, ", ")
}

// Words says a chosen element in the pack's words ("my Visa ending in
// 4421"), "" when its kind has none.
func (ch *ChooseModel) Words(e map[string]any) string {
	tmpl, ok := ch.Say[tools.Text(e[ch.By])]
	if !ok {
		tmpl = ch.Say["*"]
	}
	if ch.By == "" || tmpl == "" {
		return ""
	}
	return FillSay(tmpl, e)
}

// Element finds the customer's element an argument value names among
// the user's things.
func (ch *ChooseModel) Element(user map[string]any, v any) (map[string]any, bool) {
	for _, e := range ch.ChoiceElements(user) {
		if tools.Text(e[ch.ID]) == tools.Text(v) {
			return e, true
		}
	}
	return nil, false
}

// Element finds the picked element an argument value names: among the
// customer's things (user) or the target's (target).
func (pk *PickModel) Element(user, target map[string]any, v any) (map[string]any, bool) {
	in := target
	if pk.User {
		in = user
	}
	from, _ := ValueAt(in, pk.From)
	for _, e := range Elements(from) {
		if pk.ID != "" && tools.Text(e[pk.ID]) == tools.Text(v) {
			return e, true
		}
	}
	return nil, false
}

// Words says a picked element in the pack's words ("Ana Lopez"), ""
// without a say.
func (pk *PickModel) Words(e map[string]any) string {
	if pk.Say == "" {
		return ""
	}
	return FillSay(pk.Say, e)
}

// Accepts tries the write on a fork of st with the arguments its target
// and computed sources give: accepted when its tool goes through,
// refused when the function or the tool refuses it for one of the
// write's refusals.
func (w *WriteModel) Accepts(ctx context.Context, kit *tools.Toolkit, st *tools.State, obj map[string]any) (accepted, refused bool) {
	args := map[string]any{}
	key := ""
	if w.Coll != nil {
		v, _ := ValueAt(obj, w.Coll.Key)
		key = tools.Text(v)
	}
	for _, p := range w.Params {
		switch p.Source {
		case SrcTargetKey:
			if v, ok := ValueAt(obj, w.Coll.Key); ok {
				args[p.Name] = v
			}
		case SrcTarget:
			if v, ok := p.TargetValue(obj); ok {
				args[p.Name] = v
			}
		}
	}
	raw, err := tools.Marshal(args)
	if err != nil {
		return false, false
	}
	// On a pristine state the answer depends on the arguments and the
	// target alone (handlers and computed arguments are deterministic).
	memo := string(raw) + "\x00" + key
	pristine := w.onBase != nil && st.Pristine()
	if pristine {
		if v, ok := w.onBase.Load(memo); ok {
			a := v.(acceptance)
			return a.accepted, a.refused
		}
	}
	accepted, refused = w.tryOn(ctx, kit, st, args, key)
	if pristine && ctx.Err() == nil {
		w.onBase.Store(memo, acceptance{accepted, refused})
	}
	return accepted, refused
}

// tryOn computes a write's computed arguments into args, which holds
// its other arguments, and runs it, on forks of st.
func (w *WriteModel) tryOn(ctx context.Context, kit *tools.Toolkit, st *tools.State, args map[string]any, key string) (accepted, refused bool) {
	if err := w.Compute(ctx, st, args, key); err != nil {
		return false, w.RefusedBy(err.Error())
	}
	raw, err := tools.Marshal(args)
	if err != nil {
		return false, false
	}
	res := kit.Exec(ctx, st.Fork(), w.Name, string(raw))
	return !res.Err, res.Err && w.RefusedBy(res.Output)
}

// acceptance is one answer of Accepts.
type acceptance struct{ accepted, refused bool }

// Computes tells whether the write has a computed argument.
func (w *WriteModel) Computes() bool {
	return slices.ContainsFunc(w.Params, func(p *ParamModel) bool { return p.Compute != nil })
}

// DecidedOnTarget tells whether the policy's function decides, from the
// target alone, whether the write is allowed: every argument comes from
// the target or is computed (a compensation for a reservation), so the
// write can be tried on a target before anything is asked.
func (w *WriteModel) DecidedOnTarget() bool {
	return w.Computes() && !slices.ContainsFunc(w.Params, func(p *ParamModel) bool {
		return p.Source != SrcTargetKey && p.Source != SrcTarget && p.Source != SrcCompute && p.Source != SrcConst
	})
}

// Compute fills the write's computed arguments (compute:NAME) into args,
// which holds its other arguments: each is what the pack's function
// returns on st, the state the write would run on, given the other
// arguments and, when none of them names it, the target's key under its
// collection's key field (targetKey; "" when unknown). A choice the
// function builds an argument around (Choose.Entry) is passed as the
// chosen value, so Compute may run again on arguments it filled. An
// error is the function's fail(): the policy gives the write no value
// there.
func (w *WriteModel) Compute(ctx context.Context, st *tools.State, args map[string]any, targetKey string) error {
	for _, p := range w.Params {
		if p.Compute == nil {
			continue
		}
		in := make(map[string]any, len(args)+1)
		for k, v := range args {
			if k != p.Name {
				in[k] = v
			}
		}
		if p.Source == SrcChoose {
			in[p.Name] = p.Chosen(args[p.Name])
		}
		if w.Coll != nil && targetKey != "" {
			if _, named := in[w.Coll.Key]; !named {
				in[w.Coll.Key] = targetKey
			}
		}
		v, err := p.Compute(ctx, st.Fork(), in)
		if err != nil {
			return fmt.Errorf("%s: %w", p.ComputeName, err)
		}
		args[p.Name] = v
	}
	return nil
}

// Chosen is the choice an argument value holds: the value itself, or,
// for a choice the pack's function builds the argument around
// (Choose.Entry), the value at Entry in the argument's first entry.
func (p *ParamModel) Chosen(v any) any {
	if p.Source != SrcChoose || p.Choose.Entry == "" {
		return v
	}
	l, ok := v.([]any)
	if !ok {
		return v // not built yet: the choice itself
	}
	if len(l) == 0 {
		return nil
	}
	e, _ := l[0].(map[string]any)
	return e[p.Choose.Entry]
}

// CutKeep splits a path with a field list, "flights[flight_number,date]",
// into the path and the fields; ok is false for a plain path.
func CutKeep(path string) (string, []string, bool) {
	base, rest, ok := strings.Cut(path, "[")
	if !ok || !strings.HasSuffix(rest, "]") {
		return path, nil, false
	}
	var keep []string
	for _, f := range strings.Split(strings.TrimSuffix(rest, "]"), ",") {
		if f = strings.TrimSpace(f); f != "" {
			keep = append(keep, f)
		}
	}
	return base, keep, len(keep) > 0
}

// TargetValue is what a target source takes from the target record: the
// value at its path, each element of a list cut to the Keep fields
// when it has them (a reservation's flights as a write names them).
func (p *ParamModel) TargetValue(obj map[string]any) (any, bool) {
	v, ok := ValueAt(obj, p.Path)
	if !ok || len(p.Keep) == 0 {
		return v, ok
	}
	l, isList := v.([]any)
	if !isList {
		return v, ok
	}
	out := make([]any, len(l))
	for i, e := range l {
		m, isObj := e.(map[string]any)
		if !isObj {
			return v, ok
		}
		k := make(map[string]any, len(p.Keep))
		for _, f := range p.Keep {
			if x, has := m[f]; has {
				k[f] = x
			}
		}
		out[i] = k
	}
	return out, true
}
