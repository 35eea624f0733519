package pack

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A location is a JSON-pointer-like path into a document: its tokens
// joined by sep, which no YAML or JSON key of a pack contains in practice
// and which cannot be confused with "/" or "." inside keys.
const sep = "\x00"

func loc(tokens ...string) string { return strings.Join(tokens, sep) }

func child(parent, token string) string {
	if parent == "" {
		return token
	}
	return parent + sep + token
}

// dotted renders a location for people: collections.orders.key, tools[2].
func dotted(l string) string {
	if l == "" {
		return ""
	}
	var b strings.Builder
	for i, t := range strings.Split(l, sep) {
		if _, err := strconv.Atoi(t); err == nil {
			b.WriteString("[" + t + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(t)
	}
	return b.String()
}

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex []int // offsets of '\n'

func newLineIndex(data []byte) lineIndex {
	var idx lineIndex
	for i, c := range data {
		if c == '\n' {
			idx = append(idx, i)
		}
	}
	return idx
}

func (l lineIndex) line(off int) int {
	return sort.SearchInts(l, off) + 1
}

// skipSpace returns the offset of the next token at or after off,
// skipping whitespace and the separators the decoder has not consumed.
func skipSpace(data []byte, off int) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

// jsonIndex records the line of every key and array element of a JSON
// document down to maxDepth, and duplicate keys. It expects valid JSON.
type jsonIndex struct {
	lines map[string]int
	dups  []jsonDup
}

type jsonDup struct {
	loc        string
	line, prev int
}

func indexJSON(data []byte, maxDepth int) (*jsonIndex, error) {
	li := newLineIndex(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	ix := &jsonIndex{lines: map[string]int{}}
	var walk func(at string, depth int) error
	walk = func(at string, depth int) error {
		if depth >= maxDepth {
			var skip json.RawMessage
			return dec.Decode(&skip)
		}
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				line := li.line(skipSpace(data, int(dec.InputOffset())))
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key, _ := k.(string)
				kl := child(at, key)
				if prev, dup := ix.lines[kl]; dup {
					ix.dups = append(ix.dups, jsonDup{loc: kl, line: line, prev: prev})
				}
				ix.lines[kl] = line
				if err := walk(kl, depth+1); err != nil {
					return err
				}
			}
			_, err = dec.Token()
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				el := child(at, strconv.Itoa(i))
				ix.lines[el] = li.line(skipSpace(data, int(dec.InputOffset())))
				if err := walk(el, depth+1); err != nil {
					return err
				}
			}
			_, err = dec.Token()
		}
		return err
	}
	ix.lines[""] = li.line(skipSpace(data, 0))
	if err := walk("", 0); err != nil {
		return nil, err
	}
	return ix, nil
}

// line is the line of a location or of its nearest indexed ancestor.
func (ix *jsonIndex) line(l string) int {
	if ix == nil {
		return 1
	}
	return nearestLine(ix.lines, l)
}

// nearestLine is the line of a location or of its nearest ancestor in
// lines, which always holds the document's root "".
func nearestLine(lines map[string]int, l string) int {
	for {
		if n, ok := lines[l]; ok {
			return n
		}
		i := strings.LastIndex(l, sep)
		if i < 0 {
			return lines[""]
		}
		l = l[:i]
	}
}

// jsonErrorLine finds the line of a JSON decoding error.
func jsonErrorLine(data []byte, err error) int {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return newLineIndex(data).line(int(se.Offset) - 1)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return newLineIndex(data).line(int(te.Offset) - 1)
	}
	if errors.Is(err, errUnexpectedEOF) {
		return newLineIndex(data).line(len(data))
	}
	return 1
}

var errUnexpectedEOF = errors.New("unexpected EOF")

// decodeJSONDoc decodes a whole JSON document into generic values and
// refuses trailing data.
func decodeJSONDoc(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: the document ends early", errUnexpectedEOF)
		}
		return nil, err
	}
	if dec.More() {
		return nil, &json.SyntaxError{Offset: dec.InputOffset() + 1}
	}
	return normalizeNumbers(v)
}

// yamlDoc is domain.yaml as a generic value plus the line of every key and
// sequence item, so schema violations point at the offending line.
type yamlDoc struct {
	value    any
	lines    map[string]int
	problems []Problem
	nodes    int
}

// maxYAMLNodes bounds alias expansion ("billion laughs").
const maxYAMLNodes = 100_000

var (
	yamlLineRE   = regexp.MustCompile(`line (\d+)`)
	yamlAnchorRE = regexp.MustCompile(`unknown anchor '([^']*)'`)
)

func parseYAML(file string, data []byte) (*yamlDoc, []Problem) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		line := 1
		if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = yamlLineRE.ReplaceAllString(msg, "")
		msg = strings.TrimLeft(msg, ": ")
		if m := yamlAnchorRE.FindStringSubmatch(msg); m != nil {
			// The message has no line: find the alias in the text.
			if i := bytes.Index(data, []byte("*"+m[1])); i >= 0 {
				line = newLineIndex(data).line(i)
			}
		} else if isYAMLParserError(msg) {
			// yaml.v3 reports parser (not scanner) errors with a
			// 0-based line.
			line++
		}
		return nil, []Problem{{File: file, Line: line, Message: "YAML syntax: " + msg}}
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, []Problem{{File: file, Line: 1, Message: "the manifest is empty: give at least name, version and collections"}}
	}
	d := &yamlDoc{lines: map[string]int{}}
	doc := root.Content[0]
	d.lines[""] = doc.Line
	d.value = d.convert(file, doc, "", 0)
	return d, d.problems
}

func isYAMLParserError(msg string) bool {
	if strings.HasPrefix(msg, "did not find expected") {
		return true
	}
	for _, m := range []string{"found duplicate %TAG directive", "found duplicate %YAML directive", "found incompatible YAML document", "found undefined tag handle"} {
		if strings.HasPrefix(msg, m) {
			return true
		}
	}
	return false
}

func (d *yamlDoc) convert(file string, n *yaml.Node, at string, depth int) any {
	d.nodes++
	if d.nodes > maxYAMLNodes || depth > maxDepth {
		if d.nodes == maxYAMLNodes+1 || depth == maxDepth+1 {
			d.problems = append(d.problems, Problem{File: file, Line: n.Line, Field: dotted(at),
				Message: "the manifest is too large or too deeply nested (aliases?)"})
		}
		return nil
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil
		}
		return d.convert(file, n.Alias, at, depth+1)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				d.problems = append(d.problems, Problem{File: file, Line: k.Line, Field: dotted(at),
					Message: "merge keys (<<) are not supported: write the keys out"})
				continue
			}
			if k.Kind != yaml.ScalarNode {
				d.problems = append(d.problems, Problem{File: file, Line: k.Line, Field: dotted(at),
					Message: "a key must be a plain string"})
				continue
			}
			kl := child(at, k.Value)
			if _, dup := m[k.Value]; dup {
				d.problems = append(d.problems, Problem{File: file, Line: k.Line, Field: dotted(kl),
					Message: fmt.Sprintf("duplicate key %q (first at line %d)", k.Value, d.lines[kl])})
				continue
			}
			d.lines[kl] = k.Line
			m[k.Value] = d.convert(file, v, kl, depth+1)
		}
		return m
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, e := range n.Content {
			el := child(at, strconv.Itoa(i))
			d.lines[el] = e.Line
			s[i] = d.convert(file, e, el, depth+1)
		}
		return s
	case yaml.ScalarNode:
		return yamlScalar(n)
	}
	return nil
}

func yamlScalar(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return i
		}
		var f float64
		if n.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
	}
	// Strings, timestamps (an unquoted clock) and anything else: the text.
	return n.Value
}

// line is the line of a location or of its nearest recorded ancestor.
func (d *yamlDoc) line(l string) int {
	if d == nil {
		return 1
	}
	return nearestLine(d.lines, l)
}

// find returns the first location (in document order) of a key.
func (d *yamlDoc) find(key string) string {
	best, bestLine := "", 0
	for l, line := range d.lines {
		if lastToken(l) == key && (best == "" || line < bestLine || line == bestLine && l < best) {
			best, bestLine = l, line
		}
	}
	return best
}

// shortJSON renders a value for a message, cut to a readable length.
func shortJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}
