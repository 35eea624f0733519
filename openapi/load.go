package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"

	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/index"
)

// methods are the operation keys of a path item, in the order tools are
// listed for one path.
var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// document is a parsed, version-checked spec.
type document struct {
	version  string
	root     *yaml.Node // top mapping
	model    *v3.Document
	circular []string // libopenapi's circular reference results
	indexErr []string // libopenapi's resolving errors (dangling refs and the like)
}

// rawOp is one operation found in the spec, before conversion.
type rawOp struct {
	Path, Method string
	Node         *yaml.Node // the operation object
	PathNode     *yaml.Node // its path item
	Line         int
}

var versionRE = regexp.MustCompile(`^3\.[01](\.\d+)?(-[0-9A-Za-z.-]+)?$`)

// parse reads and checks a spec. Every error names the source and, where
// there is one, the line.
func parse(raw []byte, source string, inc *includer, max int) (doc *document, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("%s: the OpenAPI parser failed on this document (%v); check that it is a valid OpenAPI 3.0/3.1 spec", source, r)
		}
	}()
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s: the file is empty; give an OpenAPI 3.0/3.1 spec in YAML or JSON", source)
	}
	if trimmed[0] == '{' || trimmed[0] == '[' {
		if err := checkJSON(raw); err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
	}
	cfg := datamodel.NewDocumentConfiguration()
	// libopenapi logs through slog at Error level by default; an importer
	// reports problems as warnings of its own instead.
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	// Never read files or URLs a spec points to: $refs into other files
	// (often from vendor extensions) fail only the operations using them.
	cfg.AllowFileReferences = false
	cfg.AllowRemoteReferences = false
	cfg.ExcludeExtensionRefs = true
	d, err := libopenapi.NewDocumentWithConfiguration(raw, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, explainParse(raw, err))
	}
	info := d.GetSpecInfo()
	root := deref(info.RootNode)
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not an OpenAPI document: the top level must be a mapping with openapi, info and paths", source)
	}
	if err := checkKind(root); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if trimmed[0] != '{' && trimmed[0] != '[' {
		if err := truncatedYAML(raw, root); err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
	}
	doc = &document{version: info.Version, root: root}
	// Count before building the model: building is the expensive part.
	if err := countCheck(root, max, inc); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	m, berr := d.BuildV3Model()
	if m == nil {
		return nil, fmt.Errorf("%s: cannot build the OpenAPI model: %w", source, berr)
	}
	doc.model = &m.Model
	if m.Index != nil {
		for _, cr := range m.Index.GetCircularReferences() {
			doc.circular = append(doc.circular, circularText(cr))
		}
	}
	for _, e := range unwrap(berr) {
		var re *index.ResolvingError
		if errors.As(e, &re) && re.CircularReference != nil {
			continue
		}
		doc.indexErr = append(doc.indexErr, e.Error())
	}
	return doc, nil
}

func unwrap(err error) []error {
	if err == nil {
		return nil
	}
	if u, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range u.Unwrap() {
			out = append(out, unwrap(e)...)
		}
		return out
	}
	return []error{err}
}

func circularText(cr *index.CircularReferenceResult) string {
	s := cr.GenerateJourneyPath()
	if cr.IsInfiniteLoop {
		s += " (every step is required: no finite value exists)"
	}
	return s
}

// truncatedYAML tells a cut-off YAML file from a complete one. A cut at
// a line boundary often still parses, so look at how it ends: a last key
// without its value, or no final newline while local $refs point at
// parts that do not exist (the components that were cut away).
func truncatedYAML(raw []byte, root *yaml.Node) error {
	body := bytes.TrimRight(raw, " \t\r\n")
	line := bytes.Count(body, []byte("\n")) + 1
	last := string(bytes.TrimSpace(body[bytes.LastIndexByte(body, '\n')+1:]))
	if strings.HasSuffix(last, ":") || last == "-" {
		return fmt.Errorf("truncated YAML: the document ends at line %d with %q, a key without its value; the file is incomplete", line, last)
	}
	if bytes.HasSuffix(raw, []byte("\n")) {
		return nil
	}
	conv := newConverter(root)
	var missing []string
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || depth > 200 || len(missing) > 0 {
			return
		}
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i].Value, n.Content[i+1]
				if strings.HasPrefix(k, "x-") {
					continue
				}
				if k == "$ref" && v.Kind == yaml.ScalarNode && strings.HasPrefix(v.Value, "#/") {
					if _, err := conv.resolve(v.Value, v.Line); err != nil {
						missing = append(missing, v.Value)
					}
					continue
				}
				walk(v, depth+1)
			}
			return
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(root, 0)
	if len(missing) > 0 {
		return fmt.Errorf("truncated YAML: the file stops mid-line at line %d (no final newline) and $ref %s points at a part that is not there; the file is incomplete", line, missing[0])
	}
	return nil
}

// checkJSON reports where a JSON document is malformed or truncated.
func checkJSON(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil {
		if _, err2 := dec.Token(); err2 != io.EOF {
			return fmt.Errorf("malformed JSON: extra data after the document at %s", lineCol(raw, int(dec.InputOffset())))
		}
		return nil
	}
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Errorf("truncated JSON: the document ends early at %s; the file is incomplete", lineCol(raw, len(raw)))
	case errors.As(err, &se):
		if strings.Contains(se.Error(), "unexpected end") {
			return fmt.Errorf("truncated JSON: the document ends early at %s; the file is incomplete", lineCol(raw, len(raw)))
		}
		return fmt.Errorf("malformed JSON at %s: %s", lineCol(raw, int(se.Offset)), se.Error())
	}
	return fmt.Errorf("malformed JSON: %w", err)
}

func lineCol(raw []byte, off int) string {
	if off > len(raw) {
		off = len(raw)
	}
	line := bytes.Count(raw[:off], []byte("\n")) + 1
	col := off - bytes.LastIndexByte(raw[:off], '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// explainParse turns libopenapi's refusal into a message that says what
// the document is and what to do.
func explainParse(raw []byte, err error) error {
	var doc any
	if yerr := yaml.Unmarshal(raw, &doc); yerr != nil {
		msg := strings.TrimPrefix(err.Error(), "unable to parse specification: ")
		if !strings.Contains(err.Error(), "unable to parse") {
			msg = yerr.Error()
		}
		return fmt.Errorf("not valid YAML or JSON (truncated or malformed): %s", lineRE.ReplaceAllString(msg, "line $1, column $2"))
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return fmt.Errorf("not an OpenAPI document: the top level is %s; it must be a mapping with openapi, info and paths", kindOf(doc))
	}
	switch {
	case top["swagger"] != nil:
		return fmt.Errorf("swagger: %v is not supported; convert it to OpenAPI 3 first, e.g. with swagger2openapi", top["swagger"])
	case top["asyncapi"] != nil:
		return fmt.Errorf("asyncapi: %v is an AsyncAPI document, not OpenAPI; only OpenAPI 3.0/3.1 specs can be imported", top["asyncapi"])
	case top["openapi"] == nil:
		return errors.New("missing the openapi field: an OpenAPI 3.0/3.1 spec starts with `openapi: 3.0.3` or `openapi: 3.1.0`")
	}
	return fmt.Errorf("openapi: %v is not a supported version (%w); this importer reads OpenAPI 3.0.x and 3.1.x", top["openapi"], err)
}

var lineRE = regexp.MustCompile(`\bL(\d+)\.C(\d+)`)

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "empty"
	case []any:
		return "a list"
	case string:
		return "a string"
	}
	return fmt.Sprintf("a %T", v)
}

// checkKind accepts OpenAPI 3.0.x and 3.1.x only.
func checkKind(root *yaml.Node) error {
	if v := get(root, "swagger"); v != nil {
		return fmt.Errorf("swagger: %s (line %d) is not supported; convert it to OpenAPI 3 first, e.g. with swagger2openapi", v.Value, v.Line)
	}
	if v := get(root, "asyncapi"); v != nil {
		return fmt.Errorf("asyncapi: %s (line %d) is an AsyncAPI document, not OpenAPI; only OpenAPI 3.0/3.1 specs can be imported", v.Value, v.Line)
	}
	v := get(root, "openapi")
	if v == nil {
		return errors.New("missing the openapi field: an OpenAPI 3.0/3.1 spec starts with `openapi: 3.0.3` or `openapi: 3.1.0`")
	}
	if v.Kind != yaml.ScalarNode || !versionRE.MatchString(v.Value) {
		return fmt.Errorf("openapi: %q (line %d) is not a supported version; this importer reads OpenAPI 3.0.x and 3.1.x", v.Value, v.Line)
	}
	info := get(root, "info")
	if info == nil || info.Kind != yaml.MappingNode {
		return fmt.Errorf("missing the info object (title, version) required by OpenAPI; is the file truncated?")
	}
	p := get(root, "paths")
	if p == nil {
		return fmt.Errorf("no paths: the spec defines no operations to turn into tools")
	}
	if p.Kind != yaml.MappingNode {
		return fmt.Errorf("paths (line %d) must be a mapping of URL paths to path items", p.Line)
	}
	return nil
}

// countCheck counts the operations the include filter keeps; with max
// >= 0 it refuses more than max.
func countCheck(root *yaml.Node, max int, inc *includer) error {
	p := get(root, "paths")
	line := p.Line
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "paths" {
			line = root.Content[i].Line
		}
	}
	n := 0
	for i := 0; i+1 < len(p.Content); i += 2 {
		path := p.Content[i].Value
		if strings.HasPrefix(path, "x-") || !inc.match(path) {
			continue
		}
		item := deref(p.Content[i+1])
		for _, m := range methods {
			if get(item, m) != nil {
				n++
			}
		}
		// A path item $ref is resolved later; count it as one operation
		// so a spec of only refs is not called empty here.
		if get(item, "$ref") != nil {
			n++
		}
	}
	if n == 0 {
		if inc != nil && len(inc.globs) > 0 {
			return fmt.Errorf("paths (line %d): no operation matches --include %s", line, strings.Join(inc.globs, ", "))
		}
		return fmt.Errorf("paths (line %d): the spec defines no operations to turn into tools", line)
	}
	if max >= 0 && n > max {
		return fmt.Errorf("paths (line %d): %d operations, more than --max-operations %d; import a part with --include GLOB (e.g. --include '/users/**'), or raise --max-operations", line, n, max)
	}
	return nil
}

// operations lists the operations the include filter keeps, in document
// order of paths.
func (doc *document) operations(inc *includer) ([]rawOp, []string) {
	var out []rawOp
	var warns []string
	if doc.model == nil || doc.model.Paths == nil || doc.model.Paths.PathItems == nil {
		return nil, nil
	}
	for path, pi := range doc.model.Paths.PathItems.FromOldest() {
		if !inc.match(path) || pi == nil {
			continue
		}
		var pnode *yaml.Node
		if low := pi.GoLow(); low != nil {
			pnode = low.RootNode
		}
		if pnode == nil {
			continue
		}
		conv := newConverter(doc.root)
		pnode, err := conv.followRef(pnode)
		if err != nil {
			warns = append(warns, fmt.Sprintf("path %s: skipped: %v", path, err))
			continue
		}
		for _, m := range methods {
			on := get(pnode, m)
			if on == nil {
				continue
			}
			if on.Kind != yaml.MappingNode {
				warns = append(warns, fmt.Sprintf("%s %s (line %d): skipped: the operation is not an object", strings.ToUpper(m), path, on.Line))
				continue
			}
			out = append(out, rawOp{Path: path, Method: m, Node: on, PathNode: pnode, Line: on.Line})
		}
	}
	return out, warns
}

// includer filters paths by globs: * matches within a path segment, **
// across segments.
type includer struct {
	globs []string
	res   []*regexp.Regexp
}

func newIncluder(globs []string) (*includer, error) {
	inc := &includer{}
	for _, g := range globs {
		if g == "" {
			return nil, errors.New("--include: an empty pattern matches nothing; give a path glob such as '/pets/**'")
		}
		var b strings.Builder
		b.WriteString("^")
		for i := 0; i < len(g); i++ {
			switch {
			case strings.HasPrefix(g[i:], "**"):
				b.WriteString(".*")
				i++
			case g[i] == '*':
				b.WriteString("[^/]*")
			case g[i] == '?':
				b.WriteString("[^/]")
			default:
				b.WriteString(regexp.QuoteMeta(g[i : i+1]))
			}
		}
		b.WriteString("$")
		re, err := regexp.Compile(b.String())
		if err != nil {
			return nil, fmt.Errorf("--include %q: %w", g, err)
		}
		inc.globs = append(inc.globs, g)
		inc.res = append(inc.res, re)
	}
	return inc, nil
}

func (inc *includer) match(path string) bool {
	if inc == nil || len(inc.res) == 0 {
		return true
	}
	for _, re := range inc.res {
		if re.MatchString(path) {
			return true
		}
	}
	return false
}
