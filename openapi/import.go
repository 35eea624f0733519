package openapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/internal/realpath"
	"github.com/synth-data/synth/pack"
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
	// Files is where relative file $refs are read from: the folder the
	// spec is in, as ImportFile sets it. Nil: a $ref to a file fails the
	// import as a missing file.
	Files fs.FS
	// Dir names Files in messages.
	Dir string
	// MaxSpecBytes bounds the bytes read, the spec and its files
	// together; 0 means DefaultMaxSpecBytes.
	MaxSpecBytes int64
	// AllowMissingFiles imports a multi-file spec whose $refs name files
	// that are absent: the operations needing them are skipped or fail,
	// each with a warning. Without it such a spec is refused, listing
	// the files.
	AllowMissingFiles bool
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
	// Persona is who talks to the agent: customer, employee, operator or
	// developer.
	Persona string
	// Warnings name each problem the import worked around, with its
	// operation and line.
	Warnings []string
	// colls are the collections behind db.json, for tests that check
	// records against their schemas.
	colls []*collection
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)
var pathRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Import converts an OpenAPI 3.0/3.1 spec (YAML or JSON) into a domain
// pack held in memory.
func Import(ctx context.Context, spec []byte, opts Options) (res *Result, err error) {
	src := opts.Source
	src = cmp.Or(src, "spec")
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
	max, limit, err := opts.limits()
	if err != nil {
		return nil, err
	}
	if int64(len(spec)) > limit {
		return nil, sizeError(src, limit)
	}
	inc, err := newIncluder(opts.Include)
	if err != nil {
		return nil, err
	}
	set := newSpecSet(ctx, opts.Files, opts.Dir, limit)
	set.left -= int64(len(spec))
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	doc, err := parse(ctx, set, spec, src, inc, max)
	if err != nil {
		return nil, err
	}
	raws, warns, err := doc.operations(ctx, inc)
	if err != nil {
		return nil, err
	}
	// Path items that are $refs were counted as one operation each
	// before they were read.
	if len(raws) > max {
		return nil, fmt.Errorf("%s: paths: %d operations, more than --max-operations %d; import a part with --include GLOB (e.g. --include '/users/**'), or raise --max-operations", src, len(raws), max)
	}
	conv := newConverter(set)
	ops, err := buildOps(ctx, conv, raws)
	if err != nil {
		return nil, err
	}
	colls, err := analyse(ctx, conv, ops)
	if err != nil {
		return nil, err
	}
	if set.fatal != nil {
		return nil, set.fatal
	}
	bad := set.problems()
	if len(bad) > 0 && (!opts.AllowMissingFiles || len(ops) == 0) {
		return nil, filesError(src, set, bad, len(ops))
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("%s: the spec defines no operations to turn into tools", src)
	}
	if len(colls) == 0 {
		return nil, fmt.Errorf("%s: no operation is resource-shaped (a collection path /things with GET or POST, or an item path /things/{id}), so the pack would have no data to act on; import a part of the API that has resources with --include", src)
	}
	title, version, desc := doc.title, doc.apiVersion, doc.description
	title = cmp.Or(title, "API")
	var all []string
	for _, b := range bad {
		all = append(all, fmt.Sprintf("file %s %s (named at %s): the operations that need it are skipped or unmapped (--allow-missing-files)", b.name, b.reason, b.site))
	}
	warns = append(all, warns...)
	return assemble(ctx, assembly{title: title, version: version, desc: desc, tags: doc.tags(), src: src, gen: "synth domain import-openapi", name: opts.Name,
		seed: opts.Seed, ops: ops, colls: colls, warns: warns,
		report: func(res *Result, db map[string]map[string]any, who persona) []byte {
			return renderReport(res, title, version, src, ops, colls, db, doc, who)
		}})
}

// limits are the operation count and spec size the options allow, their
// defaults for 0.
func (opts Options) limits() (int, int64, error) {
	max := opts.MaxOperations
	max = cmp.Or(max, DefaultMaxOperations)
	if max < 0 {
		return 0, 0, fmt.Errorf("--max-operations %d: must be at least 1", max)
	}
	limit := opts.MaxSpecBytes
	limit = cmp.Or(limit, DefaultMaxSpecBytes)
	if limit < 0 {
		return 0, 0, fmt.Errorf("--max-spec-bytes %d: must be positive", limit)
	}
	return max, limit, nil
}

// buildOps makes an operation of each raw one, names the tools and
// repairs their parameter schemas.
func buildOps(ctx context.Context, conv *converter, raws []rawOp) ([]*op, error) {
	ops := make([]*op, 0, len(raws))
	for i, r := range raws {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		o := buildOp(conv, r)
		o.index = i
		ops = append(ops, o)
	}
	nameTools(ops)
	checked := compileCache{}
	for _, o := range ops {
		o.Failures = opFailures(conv, o)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		repairParams(o, checked)
	}
	return ops, nil
}

// assembly is what an import found, for assemble to write as a pack.
type assembly struct {
	title, version, desc, src, gen, name string
	// tags are the spec's tag names and descriptions.
	tags  []string
	seed  uint64
	ops   []*op
	colls []*collection
	warns []string
	// report renders IMPORT.md.
	report func(res *Result, db map[string]map[string]any, who persona) []byte
}

// assemble seeds the database and renders the pack's files from the
// operations and collections an import found.
func assemble(ctx context.Context, a assembly) (*Result, error) {
	ops, colls := a.ops, a.colls
	lex := newLexicon(a.title, a.desc, a.tags, ops, colls)
	db, err := seedData(ctx, colls, lex, a.seed)
	if err != nil {
		return nil, err
	}
	for _, c := range colls {
		c.Summary = summaryFields(c, db[c.Name])
	}
	for _, o := range ops {
		if p := &o.Handler; p.Kind == hList {
			p.PageSize = boundedPage(p.PageSize, db[p.Coll.Name], p.Coll.Summary)
		}
	}
	name := a.name
	if name == "" {
		name = packName(a.title)
	}
	res := &Result{Name: name, Files: map[string][]byte{}, Operations: len(ops), Warnings: slices.Clone(a.warns)}
	for _, o := range ops {
		res.Warnings = append(res.Warnings, o.Warnings...)
		if o.Handler.Kind != hUnmapped {
			res.Mapped++
		}
	}
	for _, c := range colls {
		res.Collections = append(res.Collections, c.Name)
	}
	res.colls = colls
	man := manifest(name, packVersion(a.version), trimText(a.desc, 500), colls, ops, db, lex, a.seed)
	who := choosePersona(a.title, a.desc, colls, man.Users.Collection != "")
	man.Hints.Persona = &pack.Persona{Role: who.Role, Description: who.Who}
	files := res.Files
	if files["domain.yaml"], err = renderManifest(man); err != nil {
		return nil, fmt.Errorf("%s: domain.yaml: %w", a.src, err)
	}
	if files["tools.json"], err = renderTools(ops, who); err != nil {
		return nil, fmt.Errorf("%s: tools.json: %w", a.src, err)
	}
	files["handlers.star"] = renderHandlers(a.title, a.src, a.gen, ops)
	if files["db.json"], err = json.MarshalIndent(db, "", " "); err != nil {
		return nil, fmt.Errorf("%s: db.json: %w", a.src, err)
	}
	files["policy.md"] = renderPolicy(a.title, a.desc, colls, who, len(man.Failures) > 0)
	res.Persona = who.Role
	files["IMPORT.md"] = a.report(res, db, who)
	return res, nil
}

// repairParams makes sure the parameters compile as Draft 2020-12: an
// argument whose schema does not is replaced by a permissive one, with a
// warning.
func repairParams(o *op, checked compileCache) {
	if checked.ok(o.Params) {
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

// compileCache remembers which schemas compile, by their JSON: APIs
// repeat the same parameters on many operations.
type compileCache map[string]bool

func (c compileCache) ok(s any) bool {
	raw, err := json.Marshal(s)
	if err != nil {
		return false
	}
	if v, seen := c[string(raw)]; seen {
		return v
	}
	v := compileSchema(s) == nil
	c[string(raw)] = v
	return v
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
// must not exist or be empty. Relative file $refs are read from the
// spec's folder and below (through an os.Root, so links cannot lead
// outside it). The pack is written to a temporary folder beside dir and
// renamed into place only when complete, so a failed import leaves
// nothing behind.
func ImportFile(ctx context.Context, specPath, dir string, opts Options) (*Result, error) {
	if dir == "" {
		return nil, errors.New("-o: an output directory is required")
	}
	if err := checkTarget(dir); err != nil {
		return nil, err
	}
	if opts.Source == "" {
		opts.Source = filepath.Base(specPath)
	}
	limit := opts.MaxSpecBytes
	limit = cmp.Or(limit, DefaultMaxSpecBytes)
	if limit < 0 {
		return nil, fmt.Errorf("--max-spec-bytes %d: must be positive", limit)
	}
	if st, err := os.Stat(specPath); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a folder: give the spec's root file (the one that starts with openapi: 3.x), e.g. %s", specPath, filepath.Join(specPath, "openapi.yaml"))
	}
	// A pipe is read too (import-openapi <(curl ...)), bounded in time;
	// a device is refused.
	spec, err := limitio.ReadFileContext(ctx, specPath, limit)
	if _, ok := errors.AsType[*limitio.TooLarge](err); ok {
		return nil, sizeError(specPath, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("read the spec: %w", err)
	}
	if opts.Files == nil {
		folder := filepath.Dir(specPath)
		root, err := os.OpenRoot(folder)
		if err != nil {
			return nil, fmt.Errorf("the spec's folder %s: %w", folder, err)
		}
		defer root.Close()
		opts.Files, opts.Dir = root.FS(), folder
	}
	res, err := Import(ctx, spec, opts)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := WriteDir(dir, res.Files); err != nil {
		return nil, err
	}
	return res, nil
}

// ErrMissingFiles is returned (wrapped) when $refs name files that are
// not there.
var ErrMissingFiles = errors.New("not every file its $refs name is there and readable")

// filesError lists the files $refs name that are absent or unreadable:
// a multi-file spec given without its folder would otherwise import as
// hollow operations.
func filesError(src string, set *specSet, bad []*badFile, ops int) error {
	var b strings.Builder
	missing := 0
	for _, f := range bad {
		if f.missing {
			missing++
		}
	}
	where := "beside it"
	if set.dir != "" {
		where = "in " + set.dir
	}
	fmt.Fprintf(&b, " (%d missing, %d unreadable; looked for %s):", missing, len(bad)-missing, where)
	const shown = 20
	for i, f := range bad {
		if i == shown {
			fmt.Fprintf(&b, "\n  … and %d more", len(bad)-shown)
			break
		}
		more := ""
		if f.uses > 1 {
			more = fmt.Sprintf(", and %d more $refs", f.uses-1)
		}
		fmt.Fprintf(&b, "\n  %s %s (named at %s%s)", f.name, f.reason, f.site, more)
	}
	b.WriteString("\nA multi-file spec needs every file it names: import its root file from the spec's own folder, with the files beside it in their layout")
	if ops > 0 {
		b.WriteString(", or pass --allow-missing-files to import the operations that do not need them (the others are skipped or fail, each named in IMPORT.md)")
	}
	b.WriteString("; nothing was written")
	return fmt.Errorf("%s: %w%s", src, ErrMissingFiles, b.String())
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
	// A link named as -o leads to where the pack goes: the link itself
	// is not replaced by the pack.
	real, err := realpath.Resolve(dir)
	if err != nil {
		return fmt.Errorf("-o %s: %w", dir, err)
	}
	parent := filepath.Dir(real)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("-o %s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(real)+".tmp-")
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
	if err := os.Remove(real); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("-o %s: %w", dir, err)
	}
	if err := os.Rename(tmp, real); err != nil {
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
