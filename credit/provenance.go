package credit

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/synth-data/synth/tools"
	"github.com/synth-data/synth/verify"
)

// provenance remembers, as the dialogue goes, the tool results and what
// the customer said, so a write's arguments can be traced to them.
type provenance struct {
	tools []toolMsg
	users []userMsg
	// name is the customer's, lower-cased: said as who it is ("I'm Rafael
	// Brown") it states no piece of a request.
	name string
	// held remembers holder's answers: results are only added, so a
	// value's first holder stays it, and one not held by the results
	// looked at is looked for in the later ones only.
	held map[string]held
	// spoken remembers, as held does, the first customer message (an
	// index in users) that says a value as a whole word.
	spoken map[string]held
}

// held is the first tool result holding a value, or customer message
// saying it (an index in tools or users), -1 for none of the first upto.
type held struct{ at, upto int }

// toolMsg is one tool result, its values indexed when a lookup first
// needs them: most results hold no value any call asks about, and
// parsing them all took half the labelling.
type toolMsg struct {
	msg int
	raw string
	// values are the texts of its scalars (indexValues' keys), nil
	// until needed; index maps them to their first paths, decoded only
	// for a result scalars cannot read (pathOf finds a path in others).
	values map[string]bool
	index  map[string]string
	// scanned says escapes and respelt are known; escapes that the text
	// has a backslash or is not UTF-8, so a string in it may decode to
	// what it does not spell; respelt holds the text of each number it
	// spells otherwise (1.50 for 1.5, 2e3 for 2000).
	scanned bool
	escapes bool
	respelt map[string]bool
}

type origin struct {
	msg  int
	path string
}

type userMsg struct {
	msg  int
	text string // lower-cased
}

func (p *provenance) tool(msg int, content string) {
	p.tools = append(p.tools, toolMsg{msg: msg, raw: content})
}

// saidAfter reports whether a customer message after message since holds
// the words, its introduction aside (verify.WithoutIntroduction, the
// from_customer rule's reading).
func (p *provenance) saidAfter(words string, since int) bool {
	w := strings.ToLower(words)
	for _, u := range p.users {
		if u.msg > since && saysWord(verify.WithoutIntroduction(u.text, p.name), w) {
			return true
		}
	}
	return false
}

// first finds the first tool result holding a value, and its path
// there.
func (p *provenance) first(text string) (origin, bool) {
	i := p.holder(text)
	if i < 0 {
		return origin{}, false
	}
	t := &p.tools[i]
	if t.index == nil {
		// scalars read the result (holder): so does pathOf.
		if path, ok := pathOf(t.raw, text); ok {
			return origin{t.msg, path}, true
		}
		t.index = indexValues(t.raw)
	}
	return origin{t.msg, t.index[text]}, true
}

// holder is the index of the first tool result holding a value, -1 for
// none. A value that JSON spells as it is (printable ASCII that no
// encoder escapes, and not a number) is looked for in a result's text
// before the result is read; any other value too, unless the result may
// hold it spelt otherwise (mayRespell).
func (p *provenance) holder(text string) int {
	if text == "" {
		return -1
	}
	h, ok := p.held[text]
	if ok && h.at >= 0 {
		return h.at
	}
	if p.held == nil {
		p.held = map[string]held{}
	}
	at := p.firstHolder(text, h.upto)
	p.held[text] = held{at: at, upto: len(p.tools)}
	return at
}

// firstHolder is holder looking from the result at index from on.
func (p *provenance) firstHolder(text string, from int) int {
	plain := spelledAsIs(text)
	for i := from; i < len(p.tools); i++ {
		t := &p.tools[i]
		if !strings.Contains(t.raw, text) && (plain || !t.mayRespell(text)) {
			continue
		}
		if t.values == nil {
			if t.values = scalars(t.raw); t.values == nil {
				t.index = indexValues(t.raw)
				t.values = make(map[string]bool, len(t.index))
				for v := range t.index {
					t.values[v] = true
				}
			}
		}
		if t.values[text] {
			return i
		}
	}
	return -1
}

// mayRespell reports whether a value the result's text does not hold
// verbatim may still be one of its scalars: a string decodes to its text
// unless it has an escape or bytes that are not UTF-8, and a number
// reads as its text unless it is spelt otherwise (1.50, 2e3, or an
// integer past float64's precision). The ids and zip codes that calls
// ask about read as numbers, and parsing every result for them was most
// of the labelling's parsing.
func (t *toolMsg) mayRespell(text string) bool {
	if !t.scanned {
		t.escapes = strings.IndexByte(t.raw, '\\') >= 0 || !utf8.ValidString(t.raw)
		t.respelt = respeltNumbers(t.raw)
		t.scanned = true
	}
	return t.escapes || t.respelt[text]
}

// respeltNumbers lists, for each number of a JSON text (outside its
// strings) that a float64 formats otherwise, that formatting (walk's).
// Text that is not JSON gets a list of no use, and none is needed: its
// one value is the text itself.
func respeltNumbers(raw string) map[string]bool {
	var out map[string]bool
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
		case c == '-' || c >= '0' && c <= '9':
			j := i
			for j < len(raw) && strings.IndexByte("+-.eE0123456789", raw[j]) >= 0 {
				j++
			}
			tok := raw[i:j]
			if f, err := strconv.ParseFloat(tok, 64); err == nil {
				if s := strconv.FormatFloat(f, 'f', -1, 64); s != tok {
					if out == nil {
						out = map[string]bool{}
					}
					out[s] = true
				}
			}
			i = j - 1
		}
	}
	return out
}

// scalars lists the texts of a JSON text's scalars, as indexValues
// finds them, without decoding it into maps and slices; nil for a text
// it cannot read so: one with an escape, bytes that are not UTF-8, an
// object with a key twice (decoding keeps its last value only), or a
// number out of float64's range (decoding fails), or not JSON.
func scalars(raw string) map[string]bool {
	if strings.IndexByte(raw, '\\') >= 0 || !utf8.ValidString(raw) || !json.Valid([]byte(raw)) {
		return nil
	}
	out := map[string]bool{}
	if !scan(raw, func(_ []step, text string) { out[text] = true }) {
		return nil
	}
	return out
}

// pathOf is the path indexValues gives a value of a JSON text that
// scalars reads, found by scan: the value's first in walk's order,
// object keys sorted. ok is false for a value it does not hold.
func pathOf(raw, text string) (path string, ok bool) {
	var best []step
	read := scan(raw, func(at []step, v string) {
		if v == text && (!ok || walksBefore(at, best)) {
			best, ok = append(best[:0], at...), true
		}
	})
	if !read || !ok {
		return "", false
	}
	return spell(best), true
}

// walksBefore reports whether walk comes to the value at a before the
// one at b, two values of one JSON text: at the first step where they
// part, in one object or array, by the key's order or the index.
func walksBefore(a, b []step) bool {
	for i := range min(len(a), len(b)) {
		switch {
		case a[i].index < 0 && a[i].key != b[i].key:
			return a[i].key < b[i].key
		case a[i].index != b[i].index:
			return a[i].index < b[i].index
		}
	}
	return len(a) < len(b)
}

// scan calls f with the text of each non-empty scalar of a JSON text
// with no escape, as walk spells it, and the steps down to it, in the
// text's order. It reports false, having called f or not, for an object
// with a key twice or a number out of float64's range.
func scan(raw string, f func(at []step, text string)) bool {
	var at []step       // down to the value
	var keys [][]string // the keys of each container open, innermost last
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '{' || c == '[':
			index := -1
			if c == '[' {
				index = 0
			}
			at = append(at, step{index: index})
			// A closed container's key list is kept for the next one
			// opened at its depth: the lists of sibling records would
			// otherwise be allocated afresh, one per record.
			if len(keys) < cap(keys) {
				keys = keys[:len(keys)+1]
				keys[len(keys)-1] = keys[len(keys)-1][:0]
			} else {
				keys = append(keys, nil)
			}
		case c == '}' || c == ']':
			at, keys = at[:len(at)-1], keys[:len(keys)-1]
		case c == ',':
			if top := &at[len(at)-1]; top.index >= 0 {
				top.index++
			}
		case c == '"':
			j := i + 1 + strings.IndexByte(raw[i+1:], '"')
			s := raw[i+1 : j]
			k := j + 1
			for k < len(raw) && strings.IndexByte(" \t\n\r", raw[k]) >= 0 {
				k++
			}
			if k < len(raw) && raw[k] == ':' {
				top := &keys[len(keys)-1]
				if slices.Contains(*top, s) {
					return false
				}
				*top = append(*top, s)
				at[len(at)-1].key = s
			} else if s != "" {
				f(at, s)
			}
			i = j
		case c == '-' || c >= '0' && c <= '9':
			j := i
			for j < len(raw) && strings.IndexByte("+-.eE0123456789", raw[j]) >= 0 {
				j++
			}
			n, err := strconv.ParseFloat(raw[i:j], 64)
			if err != nil {
				return false // out of float64's range: decoding fails
			}
			f(at, strconv.FormatFloat(n, 'f', -1, 64))
			i = j - 1
		case c == 't':
			f(at, "true")
			i += len("true") - 1
		case c == 'f':
			f(at, "false")
			i += len("false") - 1
		case c == 'n':
			i += len("null") - 1
		}
	}
	return true
}

// indexValues maps each scalar of a tool result to its first path; a
// result that is not JSON (a bare id, an error) is one value at $.
func indexValues(raw string) map[string]string {
	v, err := tools.DecodeJSON(raw)
	if err != nil {
		v = strings.TrimSpace(raw)
	}
	index := map[string]string{}
	walk(v, func(path func() string, text string) {
		if _, ok := index[text]; !ok && text != "" {
			index[text] = path()
		}
	})
	return index
}

// spelledAsIs reports whether every JSON text holding the string holds
// it verbatim: printable ASCII that no encoder escapes, and not a number
// (which 1.50 or 1.5e0 may spell).
func spelledAsIs(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || strings.IndexByte(`"\/<>&'`, c) >= 0 {
			return false
		}
	}
	_, err := strconv.ParseFloat(s, 64)
	return err != nil
}

func (p *provenance) user(msg int, content string) {
	p.users = append(p.users, userMsg{msg, strings.ToLower(content)})
}

// args gives each scalar of a call's arguments its first appearance:
// the earlier of the first tool result holding it and the first
// customer message saying it as a whole word.
func (p *provenance) args(args any) []Arg {
	out := []Arg{}
	walk(args, func(path func() string, text string) {
		a := Arg{Path: path(), Source: SourceNone, Message: -1}
		if o, ok := p.first(text); ok {
			a.Source, a.Message, a.At = SourceTool, o.msg, o.path
		}
		if text != "" {
			low := strings.ToLower(text)
			for _, u := range p.users {
				if a.Message >= 0 && u.msg > a.Message {
					break
				}
				if saysWord(u.text, low) {
					a.Source, a.Message, a.At = SourceUser, u.msg, ""
					break
				}
			}
		}
		out = append(out, a)
	})
	return out
}

// known reports whether every scalar of a call's arguments has been
// said: by a tool result or by the customer.
func (p *provenance) known(args any) bool {
	var values []string
	walk(args, func(_ func() string, text string) { values = append(values, text) })
	return p.knownValues(values)
}

// knownValues is known of the scalars' texts.
func (p *provenance) knownValues(values []string) bool {
	for _, text := range values {
		if text != "" && p.holder(text) < 0 && p.sayer(text) < 0 {
			return false
		}
	}
	return true
}

// sayer is the index of the first customer message saying a value as a
// whole word, -1 for none.
func (p *provenance) sayer(text string) int {
	h, ok := p.spoken[text]
	if ok && h.at >= 0 {
		return h.at
	}
	if p.spoken == nil {
		p.spoken = map[string]held{}
	}
	low := strings.ToLower(text)
	at := -1
	for i := h.upto; i < len(p.users); i++ {
		if saysWord(p.users[i].text, low) {
			at = i
			break
		}
	}
	p.spoken[text] = held{at: at, upto: len(p.users)}
	return at
}

// saysWord reports whether text holds word with no letter or digit
// either side ("1" is not said by "12").
func saysWord(text, word string) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], word)
		if i < 0 {
			return false
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(text[:i])
		after, _ := utf8.DecodeRuneInString(text[i+len(word):])
		if !wordRune(before) && !wordRune(after) {
			return true
		}
		from = i + 1
	}
}

func wordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// walk calls f with the text of every scalar in v and a function that
// spells its JSON path, object keys in sorted order so the labels do not
// depend on map order. The path is spelt only when f asks (a tool
// result's values are many, the ones first seen few), and only while f
// runs.
func walk(v any, f func(path func() string, text string)) {
	var at []step // down to the value
	path := func() string { return spell(at) }
	var rec func(v any)
	rec = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				at = append(at, step{key: k, index: -1})
				rec(x[k])
				at = at[:len(at)-1]
			}
		case []any:
			for i, e := range x {
				at = append(at, step{index: i})
				rec(e)
				at = at[:len(at)-1]
			}
		case string:
			f(path, x)
		case float64:
			f(path, strconv.FormatFloat(x, 'f', -1, 64))
		case bool:
			f(path, strconv.FormatBool(x))
		}
	}
	rec(v)
}

// step is one step of a JSON path: an object's key, or an array's
// index.
type step struct {
	key   string
	index int // -1 for an object's key
}

// spell spells a JSON path: $ and its steps.
func spell(at []step) string {
	var b strings.Builder
	b.WriteByte('$')
	for _, s := range at {
		if s.index < 0 {
			b.WriteString(member(s.key))
		} else {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		}
	}
	return b.String()
}

// member is a JSON path step: .key, or ["key"] for a key that is not a
// plain name.
func member(k string) string {
	plain := k != ""
	for i, r := range k {
		if !(r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			plain = false
			break
		}
	}
	if plain {
		return "." + k
	}
	return "[" + strconv.Quote(k) + "]"
}
