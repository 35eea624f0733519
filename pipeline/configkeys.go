package pipeline

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/synth-data/synth/internal/suggest"
)

// UnknownKeys is every key of a config file that Config does not have,
// reported at once, each with its line and the closest key there is: a
// misspelt key must not fall back to a default, and a file with two
// misspellings should not take two runs to fix.
type UnknownKeys struct {
	File string
	Keys []UnknownKey
}

// UnknownKey is one key Config does not have.
type UnknownKey struct {
	Line int
	Path string // dotted, from the top: llm.modle
	Key  string // the key as written: modle
	Hint string // the closest valid key, dotted; "" when none is close
}

func (e *UnknownKeys) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "config %s: %d unknown key", e.File, len(e.Keys))
	if len(e.Keys) != 1 {
		b.WriteString("s")
	}
	b.WriteString(" (synth run --help lists every key with its flag):")
	for _, k := range e.Keys {
		fmt.Fprintf(&b, "\n  %s:%d: %s: unknown key %q", e.File, k.Line, k.Path, k.Key)
		if k.Hint != "" {
			fmt.Fprintf(&b, " (did you mean %q?)", k.Hint)
		}
	}
	return b.String()
}

// checkKeys walks the YAML document of a config against Config's JSON
// keys, as the pack validator walks a manifest against its Go types.
func checkKeys(path string, raw []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil || len(doc.Content) == 0 {
		// The decoder that follows reports a document it cannot read.
		return nil
	}
	e := &UnknownKeys{File: path}
	// Config decodes itself (its engines' keys go to Options), so its
	// fields are walked as configFields, with the engines' keys beside.
	t := reflect.TypeFor[configFields]()
	w := keyWalker{all: dottedKeys(t, ""), report: e}
	for _, o := range engineOptions() {
		w.top = append(w.top, o.Key)
	}
	w.all = append(w.all, w.top...)
	w.walk(doc.Content[0], t, "")
	if len(e.Keys) == 0 {
		return nil
	}
	return e
}

type keyWalker struct {
	all    []string // every dotted key of Config, for a key put at the wrong level
	top    []string // the engines' keys, known at the top level besides the fields
	report *UnknownKeys
}

// walk checks node against t. Aliases are not followed (what they name
// is checked where it is written), so an alias bomb costs its size.
func (w keyWalker) walk(n *yaml.Node, t reflect.Type, at string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if opaque(t) {
		return
	}
	switch {
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct:
		w.fields(n, t, at)
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Map:
		for i := 0; i+1 < len(n.Content); i += 2 {
			w.walk(n.Content[i+1], t.Elem(), joinKey(at, n.Content[i].Value))
		}
	case n.Kind == yaml.SequenceNode && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		for i, c := range n.Content {
			w.walk(c, t.Elem(), fmt.Sprintf("%s[%d]", at, i))
		}
	}
}

func (w keyWalker) fields(n *yaml.Node, t reflect.Type, at string) {
	names := map[string]reflect.Type{}
	var known []string // in field order, so a tie suggests the same key every time
	for _, f := range suggest.JSONFields(t) {
		names[f.Name] = f.Type
		known = append(known, f.Name)
	}
	if at == "" {
		for _, k := range w.top {
			names[k] = reflect.TypeFor[any]()
			known = append(known, k)
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Value == "<<" {
			continue // a merge key: its mapping is checked where it is written
		}
		f, ok := names[k.Value]
		if ok {
			w.walk(n.Content[i+1], f, joinKey(at, k.Value))
			continue
		}
		hint := suggest.Closest(k.Value, known)
		if hint != "" {
			hint = joinKey(at, hint)
		} else {
			hint = w.elsewhere(k.Value, joinKey(at, k.Value))
		}
		w.report.Keys = append(w.report.Keys, UnknownKey{Line: k.Line, Path: joinKey(at, k.Value), Key: k.Value, Hint: hint})
	}
}

// elsewhere finds a key that exists at another level of the config
// (model: at the top is llm.model).
func (w keyWalker) elsewhere(key, path string) string {
	for _, d := range w.all {
		if d != path && (d == key || strings.HasSuffix(d, "."+key)) {
			return d
		}
	}
	return ""
}

// dottedKeys lists every key of t's structs, dotted, maps and lists left
// out (their keys are the user's).
func dottedKeys(t reflect.Type, at string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || opaque(t) {
		return nil
	}
	var out []string
	for _, f := range suggest.JSONFields(t) {
		out = append(out, joinKey(at, f.Name))
		out = append(out, dottedKeys(f.Type, joinKey(at, f.Name))...)
	}
	return out
}

// opaque types decode themselves: their keys are not Config's to check.
func opaque(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Kind() == reflect.Interface ||
		p.Implements(reflect.TypeFor[json.Unmarshaler]()) ||
		p.Implements(reflect.TypeFor[encoding.TextUnmarshaler]())
}
