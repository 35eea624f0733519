package openapi

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pb33f/go-yaml"
)

// Limits on inlining: $refs are expanded in place so every tool schema is
// self-contained, and heavily shared schemas (Discord's) would otherwise
// make one tool's parameters megabytes long.
const (
	maxRefDepth    = 4   // nested $ref expansions on one path
	maxSchemaNodes = 250 // schema objects emitted for one root schema
)

// refError is a $ref that cannot be followed: dangling, remote or
// malformed, or naming a file that is missing. It fails only the
// operation that uses it (a missing file fails the import, unless
// allowed).
type refError struct {
	Ref    string
	Line   int
	Where  string // "line 12", or "resources/a.yml line 12"
	Reason string
	File   string // the missing or unreadable file it names, if any
}

func (e *refError) Error() string {
	where := e.Where
	if where == "" {
		where = fmt.Sprintf("line %d", e.Line)
	}
	return fmt.Sprintf("$ref %q (%s) %s", e.Ref, where, e.Reason)
}

// converter turns OpenAPI schema nodes into self-contained Draft 2020-12
// schemas: $refs inlined, cycles cut, 3.0 keywords translated.
type converter struct {
	set *specSet
	// memo holds converted $ref targets whose conversion cut nothing, so
	// the result does not depend on where the ref was met.
	memo map[string]memoEntry
}

type memoEntry struct {
	v     any
	nodes int
}

// walk is the state of converting one root schema.
type walk struct {
	stack []string // $ref targets being expanded, outermost first
	// bare is, per stack entry, whether its target is a $ref and nothing
	// else: a cycle of such entries describes no value at all.
	bare  []bool
	nodes int
	cut   bool // a cycle or a limit shortened the result
	// broken collects unresolvable refs: the schema is still produced
	// (the ref replaced by a permissive schema) but the caller fails the
	// operation.
	broken []*refError
	notes  []string
	// warnings are schemas dropped as meaningless: a number where a
	// schema should be, a $ref to itself. The caller says where.
	warnings []string
}

// warn records a warning once.
func (w *walk) warn(format string, a ...any) {
	if msg := fmt.Sprintf(format, a...); !slices.Contains(w.warnings, msg) {
		w.warnings = append(w.warnings, msg)
	}
}

func newConverter(set *specSet) *converter {
	return &converter{set: set, memo: map[string]memoEntry{}}
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 64; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		return deref(n.Content[0])
	}
	return n
}

// get returns the value of key in a mapping node, or nil.
func get(n *yaml.Node, key string) *yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return deref(n.Content[i+1])
		}
	}
	return nil
}

// str returns the scalar text of key in a mapping node.
func str(n *yaml.Node, key string) string {
	v := get(n, key)
	if v == nil || v.Kind != yaml.ScalarNode {
		return ""
	}
	return v.Value
}

// resolve follows one $ref node.
func (c *converter) resolve(r *yaml.Node) (*yaml.Node, string, *specFile, *refError) {
	n, key, f, err := c.set.resolve(r)
	if err != nil {
		re, ok := err.(*refError)
		if !ok {
			re = &refError{Ref: r.Value, Line: r.Line, Reason: err.Error()}
		}
		return nil, "", nil, re
	}
	return n, key, f, nil
}

// refName is the last token of a ref, for messages ("Pet").
func refName(ref string) string {
	ref = strings.TrimSuffix(ref, "#")
	if i := strings.LastIndexAny(ref, "/#"); i >= 0 && i < len(ref)-1 {
		ref = ref[i+1:]
	}
	for _, ext := range []string{".yaml", ".yml", ".json"} {
		ref = strings.TrimSuffix(ref, ext)
	}
	return ref
}

// follow resolves chains of non-schema $refs (parameters, request
// bodies, responses, path items, operations) to the object they name,
// and says which file it is in (nil: the file n is in).
func (c *converter) follow(n *yaml.Node) (*yaml.Node, *specFile, error) {
	n = deref(n)
	var file *specFile
	for i := 0; n != nil && n.Kind == yaml.MappingNode; i++ {
		r := get(n, "$ref")
		if r == nil || r.Kind != yaml.ScalarNode {
			return n, file, nil
		}
		if i > 32 {
			return nil, nil, &refError{Ref: r.Value, Line: r.Line, Where: c.set.site(c.set.fileOf(r), r.Line), Reason: "is a chain of more than 32 references"}
		}
		next, _, f, err := c.resolve(r)
		if err != nil {
			return nil, nil, err
		}
		n, file = next, f
	}
	return n, file, nil
}

// followRef is follow without the file.
func (c *converter) followRef(n *yaml.Node) (*yaml.Node, error) {
	n, _, err := c.follow(n)
	return n, err
}

// Schema converts one root schema node.
func (c *converter) Schema(n *yaml.Node) (any, *walk) {
	w := &walk{}
	return c.schema(n, w), w
}

func (c *converter) schema(n *yaml.Node, w *walk) any {
	n = deref(n)
	if n == nil {
		return map[string]any{}
	}
	switch n.Kind {
	case yaml.ScalarNode:
		// 3.1 boolean schemas.
		if n.Tag == "!!bool" {
			return n.Value == "true"
		}
		w.warn("the schema at line %d is %s, not a schema object; accepted as any value", n.Line, scalarKind(n))
		return map[string]any{}
	case yaml.MappingNode:
	default:
		w.warn("the schema at line %d is a list, not a schema object; accepted as any value", n.Line)
		return map[string]any{}
	}
	w.nodes++
	if r := get(n, "$ref"); r != nil && r.Kind == yaml.ScalarNode {
		return c.ref(n, r, w)
	}
	return c.object(n, w)
}

func (c *converter) ref(n, r *yaml.Node, w *walk) any {
	target := c.expand(r, w)
	// Sibling keywords: 3.0 says to ignore them, but descriptions and
	// nullable next to a $ref are common and harmless to keep.
	if len(n.Content) <= 2 {
		return target
	}
	sib := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != "$ref" {
			sib.Content = append(sib.Content, n.Content[i], n.Content[i+1])
		}
	}
	nullable := str(sib, "nullable") == "true"
	extra, _ := c.object(sib, w).(map[string]any)
	delete(extra, "nullable")
	anno := map[string]any{}
	for _, k := range []string{"description", "title", "default", "examples", "readOnly", "writeOnly", "deprecated"} {
		if v, ok := extra[k]; ok {
			anno[k] = v
			delete(extra, k)
		}
	}
	var out map[string]any
	tm, isMap := target.(map[string]any)
	switch {
	case len(extra) > 0:
		out = map[string]any{"allOf": []any{target, extra}}
	case isMap:
		out = clone(tm)
	default:
		out = map[string]any{"allOf": []any{target}}
	}
	maps.Copy(out, anno)
	if nullable {
		out = map[string]any{"anyOf": []any{out, map[string]any{"type": "null"}}}
	}
	return out
}

// expand converts the schema a $ref names, cutting cycles and deep or
// oversized expansions.
func (c *converter) expand(r *yaml.Node, w *walk) any {
	target, key, _, err := c.resolve(r)
	if err != nil {
		w.broken = append(w.broken, err)
		w.cut = true
		return map[string]any{"description": "unresolved $ref " + r.Value}
	}
	if i := slices.Index(w.stack, key); i >= 0 {
		w.cut = true
		if !slices.Contains(w.bare[i:], false) {
			// Only $refs on the way round: no structure ever nests.
			w.warn("schema %s (line %d) is a $ref to itself, directly or through other bare $refs, so it describes no value; accepted as any value", refName(key), target.Line)
			return map[string]any{"description": refName(key) + " (a $ref to itself: any value)"}
		}
		w.notes = append(w.notes, fmt.Sprintf("recursive schema %s cut at the cycle", refName(key)))
		return stub(target, key, "recursive: the same structure nests here; cut to keep the schema finite")
	}
	if e, ok := c.memo[key]; ok && w.nodes+e.nodes <= maxSchemaNodes {
		w.nodes += e.nodes
		return e.v
	}
	if len(w.stack) >= maxRefDepth || w.nodes >= maxSchemaNodes {
		w.cut = true
		return stub(target, key, "nested too deep to expand here")
	}
	outer := w.cut
	w.cut = false
	before := w.nodes
	w.stack = append(w.stack, key)
	w.bare = append(w.bare, bareRef(target))
	v := c.schema(target, w)
	w.stack = w.stack[:len(w.stack)-1]
	w.bare = w.bare[:len(w.bare)-1]
	if !w.cut {
		c.memo[key] = memoEntry{v: v, nodes: w.nodes - before}
	}
	w.cut = w.cut || outer
	return v
}

// bareRef reports whether a schema node is a $ref and nothing else.
func bareRef(n *yaml.Node) bool {
	n = deref(n)
	return n != nil && n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Value == "$ref"
}

// scalarKind names a scalar where an object belongs: the number 42, the
// string "x", null.
func scalarKind(n *yaml.Node) string {
	switch n.Tag {
	case "!!null":
		return "null"
	case "!!int", "!!float":
		return "the number " + n.Value
	}
	return fmt.Sprintf("the string %q", trimText(n.Value, 40))
}

// stub stands in for a schema that is not expanded: it keeps the target's
// type so the arguments stay checkable.
func stub(t *yaml.Node, key, why string) map[string]any {
	out := map[string]any{"description": refName(key) + " (" + why + ")"}
	switch ty := str(t, "type"); {
	case ty != "" && validType(ty):
		out["type"] = ty
	case get(t, "properties") != nil:
		out["type"] = "object"
	}
	return out
}

var jsonTypes = []string{"string", "number", "integer", "boolean", "array", "object", "null"}

func validType(t string) bool { return slices.Contains(jsonTypes, t) }

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+2)
	maps.Copy(out, m)
	return out
}

// object converts a schema mapping without $ref, keyword by keyword;
// unknown keywords and vendor extensions are dropped.
func (c *converter) object(n *yaml.Node, w *walk) any {
	out := map[string]any{}
	var nullable bool
	var exMin, exMax *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		v := deref(n.Content[i+1])
		if v == nil {
			continue
		}
		switch k {
		case "nullable":
			nullable = v.Value == "true"
		case "exclusiveMinimum":
			exMin = v
		case "exclusiveMaximum":
			exMax = v
		default:
			if !c.structure(out, k, v, w) && !values(out, k, v) {
				constraint(out, k, v)
			}
		}
	}
	exclusive(out, "exclusiveMinimum", "minimum", exMin)
	exclusive(out, "exclusiveMaximum", "maximum", exMax)
	dropInexactNumbers(out)
	if nullable {
		return makeNullable(out)
	}
	return out
}

// structure converts the keywords that hold subschemas or shape the
// instance (type, properties, items, combinators, required) and reports
// whether k was one of them.
func (c *converter) structure(out map[string]any, k string, v *yaml.Node, w *walk) bool {
	switch k {
	case "type":
		if ts := types(v); len(ts) == 1 {
			out["type"] = ts[0]
		} else if len(ts) > 1 {
			out["type"] = toAny(ts)
		}
	case "properties", "dependentSchemas", "patternProperties":
		if v.Kind == yaml.MappingNode {
			out[k] = c.properties(v, k == "patternProperties", w)
		}
	case "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else",
		"unevaluatedProperties", "unevaluatedItems":
		out[k] = c.schema(v, w)
	case "items":
		if v.Kind == yaml.SequenceNode { // draft-04 tuple form
			out["prefixItems"] = c.list(v, w)
		} else {
			out[k] = c.schema(v, w)
		}
	case "prefixItems", "allOf", "anyOf", "oneOf":
		if v.Kind == yaml.SequenceNode && len(v.Content) > 0 {
			// oneOf demands exactly one match; API specs rarely make
			// their branches disjoint, so valid arguments would fail.
			if k == "oneOf" {
				k = "anyOf"
			}
			out[k] = c.list(v, w)
		}
	case "required":
		if req := required(v); len(req) > 0 {
			out[k] = req
		}
	default:
		return false
	}
	return true
}

// properties converts a mapping of names to subschemas; a pattern that Go
// cannot compile is dropped with its schema.
func (c *converter) properties(v *yaml.Node, patterns bool, w *walk) map[string]any {
	props := map[string]any{}
	for j := 0; j+1 < len(v.Content); j += 2 {
		if patterns {
			if _, err := regexp.Compile(v.Content[j].Value); err != nil {
				continue
			}
		}
		props[v.Content[j].Value] = c.schema(v.Content[j+1], w)
	}
	return props
}

// required lists the distinct scalar names of a required list.
func required(v *yaml.Node) []any {
	var req []any
	if v.Kind != yaml.SequenceNode {
		return nil
	}
	for _, r := range v.Content {
		if r = deref(r); r.Kind == yaml.ScalarNode && !slices.Contains(req, any(r.Value)) {
			req = append(req, r.Value)
		}
	}
	return req
}

// values converts the keywords that hold instance values (enum, const,
// default, examples) and reports whether k was one of them.
func values(out map[string]any, k string, v *yaml.Node) bool {
	switch k {
	case "enum":
		if v.Kind == yaml.SequenceNode && len(v.Content) > 0 {
			var vals []any
			for _, e := range v.Content {
				if x, ok := value(e, 0); ok {
					vals = append(vals, x)
				}
			}
			if len(vals) > 0 {
				out[k] = vals
			}
		}
	case "const", "default":
		// A null default says no more than leaving the parameter out;
		// kept, it renders as Python's "None" in templates that print
		// extra keys with |string (Nemotron 3), and @huggingface/jinja
		// throws there.
		if x, ok := value(v, 0); ok && (x != nil || k == "const") {
			out[k] = x
		}
	case "example":
		if x, ok := value(v, 0); ok {
			if _, has := out["examples"]; !has {
				out["examples"] = []any{x}
			}
		}
	case "examples":
		// A list in 3.1; OpenAPI's media-type map form is not a schema keyword.
		if v.Kind == yaml.SequenceNode {
			if x, ok := value(v, 0); ok {
				out[k] = x
			}
		}
	default:
		return false
	}
	return true
}

// constraint converts the bounds, flags and annotations that apply to
// one value; other keywords are dropped.
func constraint(out map[string]any, k string, v *yaml.Node) {
	switch k {
	case "minimum", "maximum":
		if f, ok := number(v); ok {
			out[k] = f
		}
	case "multipleOf":
		if f, ok := number(v); ok && f > 0 {
			out[k] = f
		}
	case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties",
		"minContains", "maxContains":
		if f, ok := number(v); ok && f >= 0 && f == math.Trunc(f) && f < 1<<53 {
			out[k] = int64(f)
		}
	case "uniqueItems", "readOnly", "writeOnly", "deprecated":
		if v.Tag == "!!bool" {
			out[k] = v.Value == "true"
		}
	case "pattern":
		if _, err := regexp.Compile(v.Value); err == nil && v.Kind == yaml.ScalarNode {
			out[k] = v.Value
		}
	case "format", "title", "contentMediaType", "contentEncoding":
		if v.Kind == yaml.ScalarNode && v.Value != "" {
			out[k] = v.Value
		}
	case "description":
		if v.Kind == yaml.ScalarNode {
			if d := trimText(v.Value, 500); d != "" {
				out[k] = d
			}
		}
	case "dependentRequired":
		if x, ok := value(v, 0); ok {
			if m, ok := x.(map[string]any); ok && stringLists(m) {
				out[k] = m
			}
		}
	}
}

// exclusive converts 3.0's boolean exclusiveMinimum/Maximum (a flag on
// minimum/maximum) to 2020-12's numeric form; 3.1 numbers pass through.
func exclusive(out map[string]any, key, bound string, v *yaml.Node) {
	if v == nil {
		return
	}
	if v.Tag == "!!bool" {
		if b, ok := out[bound]; ok && v.Value == "true" {
			out[key] = b
			delete(out, bound)
		}
		return
	}
	if f, ok := number(v); ok {
		out[key] = f
	}
}

// dropInexactNumbers removes the keywords whose numbers a trainer's JSON
// decoder would not read back as written (exactInJSON), so that a tool
// definition renders the same after datasets loads it: a bound, const or
// enum is dropped whole, which only widens what the schema accepts (an
// integer beyond 2^53 is the int64 or uint64 range restated, which
// "format" still says, or a bitfield's top, which no JSON number a client
// holds as a double can carry exactly anyway); a default or example is an
// annotation, dropped alone.
func dropInexactNumbers(out map[string]any) {
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "const", "enum", "default"} {
		if v, ok := out[k]; ok && !exactInJSON(v) {
			delete(out, k)
		}
	}
	if ex, ok := out["examples"].([]any); ok {
		var keep []any
		for _, x := range ex {
			if exactInJSON(x) {
				keep = append(keep, x)
			}
		}
		if len(keep) == 0 {
			delete(out, "examples")
		} else {
			out["examples"] = keep
		}
	}
}

// maxExactInt is 2^53-1, the largest integer every JSON consumer that
// holds numbers as doubles (JavaScript, and Go's own float64 bounds)
// reads back exactly.
const maxExactInt = 1<<53 - 1

// exactInJSON reports whether every number in v, written by encoding/json,
// is read back as the same value by pandas' ujson_loads with
// precise_float=False (how datasets decodes a Json() value) and by a
// JavaScript JSON.parse: integers within ±(2^53-1), and fractions that
// ujson's fast decimal reading (ujsonFraction) gets exactly.
func exactInJSON(v any) bool {
	switch x := v.(type) {
	case int64:
		return x >= -maxExactInt && x <= maxExactInt
	case int:
		return x >= -maxExactInt && x <= maxExactInt
	case float64:
		if x == math.Trunc(x) {
			return math.Abs(x) <= maxExactInt
		}
		return ujsonFraction(x)
	case []any:
		for _, e := range x {
			if !exactInJSON(e) {
				return false
			}
		}
	case map[string]any:
		for _, e := range x {
			if !exactInJSON(e) {
				return false
			}
		}
	}
	return true
}

// ujsonFraction reports whether ujson's fast path reads f's encoding/json
// text back as f. That path (ultrajsondec.c, decode_numeric and
// createDouble) takes up to 15 fraction digits as a double and adds
// frac*10^-n to the integer part, which can land an ulp off; an exponent
// form (encoding/json writes one below 1e-6) multiplies by pow(10, e),
// not checked here, so it counts as inexact.
func ujsonFraction(f float64) bool {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if a := math.Abs(f); a < 1e-6 || a >= 1e21 {
		return false
	}
	neg := 1.0
	if s[0] == '-' {
		neg, s = -1, s[1:]
	}
	ip, fp, _ := strings.Cut(s, ".")
	i, err := strconv.ParseUint(ip, 10, 64)
	if err != nil {
		return false
	}
	// g_pow10, written as ultrajsondec.c writes it, so each entry is the
	// same double.
	pow10 := [...]float64{1, 0.1, 0.01, 0.001, 0.0001, 0.00001, 0.000001, 0.0000001,
		0.00000001, 0.000000001, 0.0000000001, 0.00000000001, 0.000000000001,
		0.0000000000001, 0.00000000000001, 0.000000000000001}
	frac, n := 0.0, 0
	for _, d := range fp {
		if n < len(pow10)-1 {
			frac = frac*10 + float64(d-'0')
			n++
		}
	}
	// The conversions keep Go from fusing a multiply and an add, which
	// rounds once where C on x86-64 rounds twice.
	return float64(float64(i)+float64(frac*pow10[n]))*neg == f
}

// makeNullable adds null to the accepted values (3.0 nullable: true).
func makeNullable(out map[string]any) map[string]any {
	if e, ok := out["enum"].([]any); ok && !slices.Contains(e, nil) {
		out["enum"] = append(slices.Clip(e), nil)
	}
	switch t := out["type"].(type) {
	case string:
		if t != "null" {
			out["type"] = []any{t, "null"}
		}
		return out
	case []any:
		if !slices.Contains(t, any("null")) {
			out["type"] = append(slices.Clip(t), "null")
		}
		return out
	}
	if _, ok := out["enum"]; ok {
		return out
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf", "const"} {
		if _, ok := out[k]; ok {
			anno := map[string]any{"anyOf": []any{out, map[string]any{"type": "null"}}}
			if d, ok := out["description"]; ok {
				anno["description"] = d
			}
			return anno
		}
	}
	return out
}

func (c *converter) list(v *yaml.Node, w *walk) []any {
	out := make([]any, 0, len(v.Content))
	for _, e := range v.Content {
		out = append(out, c.schema(e, w))
	}
	return out
}

// types reads "type" as a string or a 3.1 list, dropping unknown names
// ("file" from Swagger habits becomes a string).
func types(v *yaml.Node) []string {
	var raw []string
	switch v.Kind {
	case yaml.ScalarNode:
		raw = []string{v.Value}
	case yaml.SequenceNode:
		for _, e := range v.Content {
			if e = deref(e); e.Kind == yaml.ScalarNode {
				raw = append(raw, e.Value)
			}
		}
	}
	var out []string
	for _, t := range raw {
		if t == "file" {
			t = "string"
		}
		if validType(t) && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func stringLists(m map[string]any) bool {
	for _, v := range m {
		l, ok := v.([]any)
		if !ok {
			return false
		}
		for _, s := range l {
			if _, ok := s.(string); !ok {
				return false
			}
		}
	}
	return true
}

func number(v *yaml.Node) (float64, bool) {
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!float") {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(v.Value, "_", ""), 64)
	if err != nil {
		if i, err := strconv.ParseInt(v.Value, 0, 64); err == nil {
			return float64(i), true
		}
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// maxValueNodes bounds one literal (an example, a default, an enum
// value): larger ones are dropped, and a YAML alias bomb (anchors that
// repeat each other) costs this, not its expansion.
const maxValueNodes = 2000

// value converts a YAML node to a JSON-compatible Go value; false when it
// has no JSON form (NaN, infinities, cyclic aliases) or is too large.
func value(n *yaml.Node, depth int) (any, bool) {
	budget := maxValueNodes
	return valueIn(n, depth, &budget)
}

func valueIn(n *yaml.Node, depth int, budget *int) (any, bool) {
	n = deref(n)
	*budget--
	if n == nil || depth > 64 || *budget < 0 {
		return nil, false
	}
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return nil, true
		case "!!bool":
			return n.Value == "true", true
		case "!!int":
			if i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
				return i, true
			}
			f, ok := number(n)
			return f, ok
		case "!!float":
			f, ok := number(n)
			return f, ok
		}
		return n.Value, true
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			x, ok := valueIn(e, depth+1, budget)
			if *budget < 0 {
				return nil, false
			}
			if ok {
				out = append(out, x)
			}
		}
		return out, true
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			x, ok := valueIn(n.Content[i+1], depth+1, budget)
			if *budget < 0 {
				return nil, false
			}
			if ok {
				out[n.Content[i].Value] = x
			}
		}
		return out, true
	}
	return nil, false
}

// trimText collapses whitespace and bounds the length of a description.
func trimText(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		cut := strings.LastIndex(s[:max], " ")
		if cut < max/2 {
			cut = max
		}
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
