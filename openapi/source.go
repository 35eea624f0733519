package openapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/pb33f/go-yaml"
)

// DefaultMaxSpecBytes bounds what one import reads: the spec and every
// file its $refs name, together. The largest public specs (GitHub's,
// Stripe's) are about 12 MB; a YAML node tree costs some 20 times its
// text in memory.
const DefaultMaxSpecBytes = 32 << 20

// specSet is a spec and the files its $refs name, read only when an
// operation that is imported follows a $ref into them, so a folder of
// thousands of files costs what the imported operations use.
type specSet struct {
	ctx  context.Context
	fsys fs.FS // where relative file $refs resolve; nil: they cannot be followed
	// dir says where fsys is, for messages ("next to api.yaml, in DIR").
	dir   string
	root  *specFile
	files map[string]*specFile
	// bad are files a $ref names that cannot be used: absent,
	// unreadable or not YAML/JSON.
	bad map[string]*badFile
	// refFile is the file each $ref node sits in (resolution is relative
	// to it).
	refFile map[*yaml.Node]*specFile
	// ids are the 3.1 $id values of the files read so far; the first
	// definition wins.
	ids   map[string]idTarget
	left  int64 // bytes the size limit still allows
	limit int64
	fatal error // the size limit was reached: the import stops
}

type specFile struct {
	name    string // slash path inside fsys; the root's base name
	root    *yaml.Node
	anchors map[string]*yaml.Node // 3.1 $anchor names
}

// idTarget is a 3.1 schema named by its $id.
type idTarget struct {
	file *specFile
	node *yaml.Node
}

// badFile is a file a $ref names that is absent or unreadable, with
// where it was first asked for.
type badFile struct {
	name    string
	reason  string // "is missing", "is not valid YAML: …"
	missing bool
	site    string // "api.yaml line 12"
	uses    int
}

// ErrSpecTooLarge is returned (wrapped) when a spec and its files
// exceed the size limit.
var ErrSpecTooLarge = errors.New("spec too large")

// sizeError names the limit and the flag that raises it.
func sizeError(name string, limit int64) error {
	return fmt.Errorf("%s: %w: more than %s read (the spec and the files its $refs name, together); raise the limit with --max-spec-bytes (e.g. --max-spec-bytes %s)",
		name, ErrSpecTooLarge, byteSize(limit), byteSize(limit*4))
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + "GiB"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// readLimited reads r up to limit bytes; more is a sizeError. It is how
// every spec byte comes in, so /dev/zero or a runaway pipe costs at
// most the limit.
func readLimited(r io.Reader, name string, limit int64) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(raw)) > limit {
		return nil, sizeError(name, limit)
	}
	return raw, nil
}

func newSpecSet(ctx context.Context, fsys fs.FS, dir string, limit int64) *specSet {
	return &specSet{ctx: ctx, fsys: fsys, dir: dir, files: map[string]*specFile{}, bad: map[string]*badFile{},
		refFile: map[*yaml.Node]*specFile{}, ids: map[string]idTarget{}, left: limit, limit: limit}
}

// decode parses YAML or JSON into a node tree.
func decode(raw []byte) (*yaml.Node, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		return jsonNode(raw)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	return deref(&doc), nil
}

// add indexes a parsed file: where each $ref sits, and its anchors and
// ids. Aliases are not followed (their anchor was indexed where it is
// defined), so a YAML alias bomb costs its size, not its expansion.
func (s *specSet) add(name string, root *yaml.Node) *specFile {
	f := &specFile{name: name, root: root}
	s.files[name] = f
	var walk func(n *yaml.Node, names bool, depth int)
	walk = func(n *yaml.Node, names bool, depth int) {
		if n == nil || depth > 512 {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i].Value, n.Content[i+1]
				if !names {
					// Vendor extensions hold refs to code samples and
					// the like: never followed, not indexed.
					if strings.HasPrefix(k, "x-") {
						continue
					}
					switch k {
					case "$ref":
						if v.Kind == yaml.ScalarNode {
							s.refFile[v] = f
						}
						continue
					case "$anchor", "$dynamicAnchor":
						if v.Kind == yaml.ScalarNode && v.Value != "" {
							f.anchor(v.Value, n)
						}
						continue
					case "$id":
						if v.Kind == yaml.ScalarNode && v.Value != "" {
							id := strings.TrimSuffix(v.Value, "#")
							if _, dup := s.ids[id]; !dup {
								s.ids[id] = idTarget{file: f, node: n}
							}
						}
						continue
					}
				}
				walk(v, !names && nameMaps[k], depth+1)
			}
		case yaml.SequenceNode, yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, false, depth+1)
			}
		}
	}
	walk(root, false, 0)
	return f
}

func (f *specFile) anchor(name string, n *yaml.Node) {
	if f.anchors == nil {
		f.anchors = map[string]*yaml.Node{}
	}
	if _, dup := f.anchors[name]; !dup {
		f.anchors[name] = n
	}
}

// nameMaps are the keys whose values map names (of properties, schemas,
// status codes, media types) to objects: their keys are not keywords,
// so a property called "$ref" or "x-rate" is a property.
var nameMaps = map[string]bool{
	"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true,
	"schemas": true, "parameters": true, "requestBodies": true, "responses": true, "headers": true,
	"examples": true, "links": true, "callbacks": true, "pathItems": true, "securitySchemes": true,
	"paths": true, "webhooks": true, "content": true, "encoding": true, "variables": true, "mapping": true,
}

// fileOf is the file a $ref node sits in; nodes made by the importer
// (sibling-keyword mappings) count as the root's.
func (s *specSet) fileOf(r *yaml.Node) *specFile {
	if f := s.refFile[r]; f != nil {
		return f
	}
	return s.root
}

// site names where a node is: "line 12" in the root, "resources/a.yml
// line 12" elsewhere.
func (s *specSet) site(f *specFile, line int) string {
	if f == nil || f == s.root {
		return fmt.Sprintf("line %d", line)
	}
	return fmt.Sprintf("%s line %d", f.name, line)
}

// resolve follows one $ref node to its target; key names the target
// uniquely across files (memo and cycle detection use it).
func (s *specSet) resolve(r *yaml.Node) (*yaml.Node, string, *specFile, error) {
	from := s.fileOf(r)
	ref := r.Value
	fail := func(reason string) (*yaml.Node, string, *specFile, error) {
		return nil, "", nil, &refError{Ref: ref, Line: r.Line, Where: s.site(from, r.Line), Reason: reason}
	}
	filePart, frag, _ := strings.Cut(ref, "#")
	target, start := from, from.root
	if filePart != "" {
		if id, ok := s.ids[filePart]; ok {
			target, start = id.file, id.node
		} else {
			u, err := url.Parse(filePart)
			switch {
			case err != nil:
				return fail("is not a valid reference (" + err.Error() + ")")
			case u.Scheme == "http" || u.Scheme == "https":
				return fail("is a URL: remote references are not fetched; save the file beside the spec and point the $ref at it")
			case u.Scheme != "" && len(u.Scheme) > 1:
				return fail("uses the " + u.Scheme + ": scheme; only relative file paths and #/json/pointers are followed")
			}
			p, err := url.PathUnescape(filePart)
			if err != nil {
				p = filePart
			}
			p = strings.ReplaceAll(p, `\`, "/")
			if path.IsAbs(p) || (len(p) > 1 && p[1] == ':') {
				return fail("is an absolute path: file references are followed relative to the file they are in")
			}
			name := path.Join(path.Dir(from.name), p)
			if name == ".." || strings.HasPrefix(name, "../") {
				return fail(fmt.Sprintf("points above the folder the spec is in (%s): only files in it and below are read", s.dir))
			}
			f, bad := s.load(name, s.site(from, r.Line))
			if bad != nil {
				err := &refError{Ref: ref, Line: r.Line, Where: s.site(from, r.Line), Reason: "names " + bad.name + ", which " + bad.reason, File: bad.name}
				return nil, "", nil, err
			}
			target, start = f, f.root
		}
	}
	n, err := pointer(target, start, frag)
	if err != nil {
		where := "in the spec"
		if target != s.root {
			where = "in " + target.name
		}
		return fail(strings.ReplaceAll(err.Error(), "%where", where))
	}
	key := target.name + "#" + frag
	if start != target.root {
		key = filePart + "#" + frag
	}
	return n, key, target, nil
}

// pointer follows a fragment from start (a file's root, or a schema
// with an $id): "" (start itself), a JSON pointer
// ("/components/schemas/Pet", "/$defs/Address") or a 3.1 anchor.
func pointer(f *specFile, start *yaml.Node, frag string) (*yaml.Node, error) {
	if frag == "" {
		return deref(start), nil
	}
	if !strings.HasPrefix(frag, "/") {
		if a := f.anchors[frag]; a != nil {
			return a, nil
		}
		return nil, fmt.Errorf("names the anchor %q, which is not defined %%where", frag)
	}
	n := deref(start)
	for _, tok := range strings.Split(frag[1:], "/") {
		if t, err := url.PathUnescape(tok); err == nil {
			tok = t
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch {
		case n == nil:
		case n.Kind == yaml.MappingNode:
			n = get(n, tok)
		case n.Kind == yaml.SequenceNode:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Content) {
				n = nil
			} else {
				n = deref(n.Content[i])
			}
		default:
			n = nil
		}
		if n == nil {
			return nil, errors.New("does not exist %where")
		}
	}
	return n, nil
}

// load reads and indexes a file a $ref names, once.
func (s *specSet) load(name, site string) (*specFile, *badFile) {
	if f := s.files[name]; f != nil {
		return f, nil
	}
	if b := s.bad[name]; b != nil {
		b.uses++
		return nil, b
	}
	bad := func(reason string, missing bool) (*specFile, *badFile) {
		b := &badFile{name: name, reason: reason, missing: missing, site: site, uses: 1}
		s.bad[name] = b
		return nil, b
	}
	if s.fatal != nil {
		return bad("was not read: the size limit was reached", false)
	}
	if err := s.ctx.Err(); err != nil {
		s.fatal = err
		return bad("was not read: the import was cancelled", false)
	}
	if s.fsys == nil {
		return bad("is not available: the spec was given without its folder", true)
	}
	// Looked at before it is opened: opening a fifo waits for a writer.
	if st, err := fs.Stat(s.fsys, name); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		return bad("is not a regular file (a pipe, a device or a socket)", false)
	}
	fh, err := s.fsys.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return bad("is missing", true)
		}
		return bad("cannot be opened ("+err.Error()+")", false)
	}
	defer fh.Close()
	if st, err := fh.Stat(); err == nil && st.IsDir() {
		return bad("is a folder, not a file", false)
	}
	raw, err := readLimited(fh, name, s.left)
	if err != nil {
		if errors.Is(err, ErrSpecTooLarge) {
			s.fatal = sizeError(s.root.name, s.limit)
			return bad("was not read: the size limit was reached", false)
		}
		return bad("cannot be read ("+err.Error()+")", false)
	}
	s.left -= int64(len(raw))
	root, err := decode(raw)
	if err != nil {
		return bad("is not valid YAML or JSON ("+yamlMessage(err)+")", false)
	}
	if root == nil {
		return bad("is empty", false)
	}
	return s.add(name, root), nil
}

// problems lists the files $refs name that could not be used, for the
// import's error: missing ones first, then the others, by name.
func (s *specSet) problems() []*badFile {
	out := slices.Collect(maps.Values(s.bad))
	slices.SortFunc(out, func(a, b *badFile) int {
		if a.missing != b.missing {
			if a.missing {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	return out
}
