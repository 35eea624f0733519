package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// DefaultMaxOperations is the largest spec imported without --include.
const DefaultMaxOperations = 1000

// Options control an import.
type Options struct {
	// Name is the pack name; default: from info.title.
	Name string
	// Include keeps only paths matching one of these globs (* within a
	// segment, ** across segments); empty keeps every path.
	Include []string
	// MaxOperations refuses specs with more operations (after Include);
	// 0 means DefaultMaxOperations.
	MaxOperations int
	// Seed makes the synthesized database; the same seed gives the same
	// db.json.
	Seed uint64
	// Source names the spec in messages and IMPORT.md (its file name).
	Source string
}

// Result is an imported pack.
type Result struct {
	Name string
	// Files are the pack's files by name: domain.yaml, tools.json,
	// handlers.star, db.json, policy.md, IMPORT.md.
	Files map[string][]byte
	// Operations is the number of operations imported (one tool each);
	// Mapped of them have CRUD handlers.
	Operations, Mapped int
	Collections        []string
	// Warnings name each problem the import worked around, with its
	// operation and line.
	Warnings []string
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)
var pathRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Import converts an OpenAPI 3.0/3.1 spec (YAML or JSON) into a domain
// pack held in memory.
func Import(ctx context.Context, spec []byte, opts Options) (res *Result, err error) {
	src := opts.Source
	if src == "" {
		src = "spec"
	}
	// A last resort: libopenapi's model is walked after parse's own
	// recover, and no spec may crash the caller.
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("%s: the importer failed on this document (%v); please report it with the spec", src, r)
		}
	}()
	if opts.Name != "" && !nameRE.MatchString(opts.Name) {
		return nil, fmt.Errorf("--name %q: a pack name is lower case letters, digits, '-' and '_', starting with a letter", opts.Name)
	}
	max := opts.MaxOperations
	if max == 0 {
		max = DefaultMaxOperations
	}
	if max < 0 {
		return nil, fmt.Errorf("--max-operations %d: must be at least 1", max)
	}
	inc, err := newIncluder(opts.Include)
	if err != nil {
		return nil, err
	}
	doc, err := parse(spec, src, inc, max)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	raws, warns := doc.operations(inc)
	if len(raws) == 0 {
		return nil, fmt.Errorf("%s: the spec defines no operations to turn into tools", src)
	}
	conv := newConverter(doc.root)
	ops := make([]*op, 0, len(raws))
	for _, r := range raws {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ops = append(ops, buildOp(conv, r))
	}
	nameTools(ops)
	for _, o := range ops {
		repairParams(o)
	}
	colls := analyse(conv, ops)
	if len(colls) == 0 {
		return nil, fmt.Errorf("%s: no operation is resource-shaped (a collection path /things with GET or POST, or an item path /things/{id}), so the pack would have no data to act on; import a part of the API that has resources with --include", src)
	}
	db := seedData(colls, opts.Seed)

	title, version, desc := "", "", ""
	if info := doc.model.Info; info != nil {
		title, version, desc = info.Title, info.Version, info.Description
	}
	if title == "" {
		title = "API"
	}
	name := opts.Name
	if name == "" {
		name = packName(title)
	}
	res = &Result{Name: name, Files: map[string][]byte{}, Operations: len(ops)}
	res.Warnings = append(res.Warnings, warns...)
	for _, o := range ops {
		res.Warnings = append(res.Warnings, o.Warnings...)
		if o.Handler.Kind != hUnmapped {
			res.Mapped++
		}
	}
	for _, c := range colls {
		res.Collections = append(res.Collections, c.Name)
	}
	man := manifest(name, packVersion(version), trimText(desc, 500), colls, ops, db, opts.Seed)
	files := res.Files
	if files["domain.yaml"], err = renderManifest(man); err != nil {
		return nil, fmt.Errorf("%s: domain.yaml: %w", src, err)
	}
	if files["tools.json"], err = renderTools(ops); err != nil {
		return nil, fmt.Errorf("%s: tools.json: %w", src, err)
	}
	files["handlers.star"] = renderHandlers(title, src, ops)
	if files["db.json"], err = json.MarshalIndent(db, "", " "); err != nil {
		return nil, fmt.Errorf("%s: db.json: %w", src, err)
	}
	files["policy.md"] = renderPolicy(title, desc, colls)
	files["IMPORT.md"] = renderReport(res, title, version, src, ops, colls, db, doc)
	return res, nil
}

// repairParams makes sure the parameters compile as Draft 2020-12: an
// argument whose schema does not is replaced by a permissive one, with a
// warning.
func repairParams(o *op) {
	if compileSchema(o.Params) == nil {
		return
	}
	for i := range o.Args {
		a := &o.Args[i]
		if err := compileSchema(a.Schema); err != nil {
			o.warn("argument %q: its schema is not valid JSON Schema 2020-12 (%v); accepted as any value", a.Name, firstLine(err.Error()))
			a.Schema = map[string]any{"description": "any value (the spec's schema could not be converted)"}
		}
	}
	o.Params = paramsSchema(o.Args)
	if err := compileSchema(o.Params); err != nil {
		o.warn("parameters are not valid JSON Schema (%v); accepting any object", firstLine(err.Error()))
		o.Params = map[string]any{"type": "object"}
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func compileSchema(s any) error {
	_, err := schemaOf(s)
	return err
}

// schemaOf compiles s as a Draft 2020-12 schema.
func schemaOf(s any) (*jsonschema.Schema, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem:///params.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("mem:///params.json")
}

// packName makes a pack name from a title: "Swagger Petstore - OpenAPI
// 3.0" → "swagger_petstore_openapi_3_0".
func packName(title string) string {
	n := strings.ToLower(snake(title))
	n = strings.TrimPrefix(n, "c_")
	if n == "" || n[0] < 'a' || n[0] > 'z' {
		n = "api_" + n
	}
	if len(n) > 48 {
		n = strings.TrimRight(n[:48], "_")
	}
	return n
}

var versionCharsRE = regexp.MustCompile(`[^0-9A-Za-z.+_-]+`)

func packVersion(v string) string {
	v = strings.Trim(versionCharsRE.ReplaceAllString(strings.TrimSpace(v), "_"), "._+-")
	if v == "" {
		return "0"
	}
	if len(v) > 64 {
		v = v[:64]
	}
	return v
}

// ImportFile imports the spec at specPath into the folder dir, which
// must not exist or be empty. The pack is written to a temporary folder
// beside dir and renamed into place only when complete, so a failed
// import leaves nothing behind.
func ImportFile(ctx context.Context, specPath, dir string, opts Options) (*Result, error) {
	if dir == "" {
		return nil, errors.New("-o: an output directory is required")
	}
	if err := checkTarget(dir); err != nil {
		return nil, err
	}
	spec, err := os.ReadFile(specPath)
	if err != nil {
		return nil, fmt.Errorf("read the spec: %w", err)
	}
	if opts.Source == "" {
		opts.Source = filepath.Base(specPath)
	}
	res, err := Import(ctx, spec, opts)
	if err != nil {
		return nil, err
	}
	if err := WriteDir(dir, res.Files); err != nil {
		return nil, err
	}
	return res, nil
}

func checkTarget(dir string) error {
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("-o %s: %w", dir, err)
	case len(ents) > 0:
		return fmt.Errorf("-o %s: the directory exists and is not empty; give a new directory (nothing was written)", dir)
	}
	return nil
}

// WriteDir writes files into dir atomically: into a temporary sibling
// folder, each file synced, then renamed to dir. dir must not exist or
// be empty.
func WriteDir(dir string, files map[string][]byte) (err error) {
	if err := checkTarget(dir); err != nil {
		return err
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("-o %s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(filepath.Clean(dir))+".tmp-")
	if err != nil {
		return fmt.Errorf("-o %s: %w", dir, err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("-o %s: %w", dir, err)
	}
	names := sortedKeys(files)
	for _, name := range names {
		if name != filepath.Base(name) || slices.Contains([]string{"", ".", ".."}, name) {
			return fmt.Errorf("pack file %q: not a plain file name", name)
		}
		if err := writeSynced(filepath.Join(tmp, name), files[name]); err != nil {
			return fmt.Errorf("-o %s: %w", dir, err)
		}
	}
	if d, err := os.Open(tmp); err == nil {
		d.Sync()
		d.Close()
	}
	// An empty target is replaced (os.Remove fails on a non-empty one,
	// so a folder filled meanwhile is never lost).
	if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("-o %s: %w", dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("-o %s: %w", dir, err)
	}
	if d, err := os.Open(parent); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
