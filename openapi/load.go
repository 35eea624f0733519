package openapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pb33f/go-yaml"
)

// methods are the operation keys of a path item, in the order tools are
// listed for one path.
var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// document is a parsed, version-checked spec.
type document struct {
	version string
	root    *yaml.Node // top mapping
	set     *specSet
	// From info: the title, version and description (a $ref'd
	// description is followed).
	title, apiVersion, description string
}

// rawOp is one operation found in the spec, before conversion.
type rawOp struct {
	Path, Method string
	Node         *yaml.Node // the operation object
	PathNode     *yaml.Node // its path item
	Line         int
	// File is where the operation object is, when a $ref put it in
	// another file than the spec ("" for the spec itself).
	File string
}

var versionRE = regexp.MustCompile(`^3\.[01](\.\d+)?(-[0-9A-Za-z.-]+)?$`)

// parse reads and checks a spec. Every error names the source and, where
// there is one, the line.
func parse(ctx context.Context, set *specSet, raw []byte, source string, inc *includer, max int) (doc *document, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("%s: the OpenAPI parser failed on this document (%v); check that it is a valid OpenAPI 3.0/3.1 spec", source, r)
		}
	}()
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s: the file is empty; give an OpenAPI 3.0/3.1 spec in YAML or JSON", source)
	}
	isJSON := trimmed[0] == '{' || trimmed[0] == '['
	root, err := decodeCtx(ctx, raw)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		if isJSON {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		return nil, fmt.Errorf("%s: not valid YAML or JSON (truncated or malformed): %s", source, yamlMessage(err))
	}
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not an OpenAPI document: the top level is %s; it must be a mapping with openapi, info and paths", source, nodeKind(root))
	}
	if err := checkKind(root); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if !isJSON {
		if err := truncatedYAML(raw, root); err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
	}
	if err := countCheck(root, max, inc); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	set.root = set.add(source, root)
	doc = &document{version: str(root, "openapi"), root: root, set: set}
	info := get(root, "info")
	doc.title = strings.TrimSpace(str(info, "title"))
	doc.apiVersion = strings.TrimSpace(str(info, "version"))
	if d := get(info, "description"); d != nil {
		if d.Kind == yaml.MappingNode {
			// A multi-file spec keeps its long description in a file.
			d, _, _ = newConverter(set).follow(d)
		}
		if d != nil && d.Kind == yaml.ScalarNode {
			doc.description = d.Value
		}
	}
	return doc, nil
}

// decodeCtx is decode that returns when ctx is done: parsing a spec of
// tens of thousands of operations takes seconds and cannot itself be
// interrupted, so it runs aside and is abandoned on Ctrl-C (its result
// is dropped; the process exits or the caller moves on).
func decodeCtx(ctx context.Context, raw []byte) (*yaml.Node, error) {
	type parsed struct {
		n   *yaml.Node
		err error
	}
	done := make(chan parsed, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- parsed{nil, fmt.Errorf("the parser failed on this document (%v)", r)}
			}
		}()
		n, err := decode(raw)
		done <- parsed{n, err}
	}()
	select {
	case p := <-done:
		return p.n, p.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func nodeKind(n *yaml.Node) string {
	switch {
	case n == nil:
		return "empty"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "empty"
		}
		return "a string"
	}
	return "not a mapping"
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
	f := &specFile{name: "spec", root: root}
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
					if _, err := pointer(f, root, v.Value[1:]); err != nil {
						missing = append(missing, v.Value)
					}
					continue
				}
				walk(v, depth+1)
			}
			return
		}
		if n.Kind == yaml.SequenceNode {
			for _, c := range n.Content {
				walk(c, depth+1)
			}
		}
	}
	walk(root, 0)
	if len(missing) > 0 {
		return fmt.Errorf("truncated YAML: the file stops mid-line at line %d (no final newline) and $ref %s points at a part that is not there; the file is incomplete", line, missing[0])
	}
	return nil
}

func lineCol(raw []byte, off int) string {
	off = max(min(off, len(raw)), 0)
	line := bytes.Count(raw[:off], []byte("\n")) + 1
	col := off - bytes.LastIndexByte(raw[:off], '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

var (
	lineRE     = regexp.MustCompile(`\bL(\d+)\.C(\d+)`)
	yamlErrRE  = regexp.MustCompile(`^go-yaml \w+ error in \w+(?: \(([^)]*)\))? at (line \d+, column \d+)(?:-line \d+, column \d+)?: (.*)$`)
	yamlLineRE = regexp.MustCompile(`^line (\d+): (.*)$`)
)

// yamlMessage puts the YAML parser's complaint in the order people
// read: where, what, and in what: "line 6, column 20: did not find
// expected ',' or ']' (while parsing a flow sequence)".
func yamlMessage(err error) string {
	msg := lineRE.ReplaceAllString(strings.TrimPrefix(firstLine(err.Error()), "yaml: "), "line $1, column $2")
	if m := yamlErrRE.FindStringSubmatch(msg); m != nil {
		msg = m[2] + ": " + m[3]
		if m[1] != "" {
			msg += " (" + m[1] + ")"
		}
		return msg
	}
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		return "line " + m[1] + ": " + m[2]
	}
	return msg
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
// order of paths. A path item or operation may be a $ref, into the spec
// or into a file beside it.
func (doc *document) operations(ctx context.Context, inc *includer) ([]rawOp, []string, error) {
	var out []rawOp
	var warns []string
	paths := get(doc.root, "paths")
	conv := newConverter(doc.set)
	for i := 0; paths != nil && i+1 < len(paths.Content); i += 2 {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		path := paths.Content[i].Value
		if strings.HasPrefix(path, "x-") || !inc.match(path) {
			continue
		}
		pnode, pfile, err := conv.follow(paths.Content[i+1])
		if err != nil {
			warns = append(warns, fmt.Sprintf("path %s (line %d): skipped: %v", path, paths.Content[i].Line, err))
			continue
		}
		if pnode == nil || pnode.Kind != yaml.MappingNode {
			what := "a list"
			if pnode != nil && pnode.Kind == yaml.ScalarNode {
				what = scalarKind(pnode)
			}
			warns = append(warns, fmt.Sprintf("path %s (line %d): skipped: the path item is %s, not an object of operations", path, paths.Content[i].Line, what))
			continue
		}
		for _, m := range methods {
			on := get(pnode, m)
			if on == nil {
				continue
			}
			label := fmt.Sprintf("%s %s (line %d)", strings.ToUpper(m), path, on.Line)
			// Operations as $refs to files (DigitalOcean's layout) are
			// not in OpenAPI's text but common: follow them.
			on, file, err := conv.follow(on)
			if file == nil {
				file = pfile
			}
			if err != nil {
				warns = append(warns, fmt.Sprintf("%s: skipped: %v", label, err))
				continue
			}
			if on == nil || on.Kind != yaml.MappingNode {
				warns = append(warns, fmt.Sprintf("%s: skipped: the operation is not an object", label))
				continue
			}
			name := ""
			if file != nil && file != doc.set.root {
				name = file.name
			}
			out = append(out, rawOp{Path: path, Method: m, Node: on, PathNode: pnode, Line: on.Line, File: name})
		}
	}
	return out, warns, nil
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
	return slices.ContainsFunc(inc.res, func(re *regexp.Regexp) bool { return re.MatchString(path) })
}

// tags are the names and descriptions of the spec's tags ("Events",
// "Special events hosted by the Museum."), words of what it is about.
func (doc *document) tags() []string {
	list := get(doc.root, "tags")
	if list == nil || list.Kind != yaml.SequenceNode {
		return nil
	}
	var out []string
	for _, t := range list.Content {
		out = append(out, str(t, "name"), str(t, "description"))
	}
	return out
}
