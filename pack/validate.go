package pack

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/internal/suggest"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/schemas"
)

// Problem is one defect of a pack, located in one of its files.
type Problem struct {
	File    string // relative to the pack folder
	Line    int    // 1-based; 0 when the problem is the file itself
	Field   string // the offending key or tool, dotted ("collections.orders.key")
	Message string
}

// String is "file:line: message" (or "file: message" without a line).
func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message)
	}
	return fmt.Sprintf("%s: %s", p.File, p.Message)
}

// Problems is every defect Load found, as one error.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return fmt.Sprintf("%d problem(s):\n%s", len(ps), strings.Join(lines, "\n"))
}

// Default file names of a pack.
const (
	DefaultPolicy    = "policy.md"
	DefaultTools     = "tools.json"
	DefaultHandlers  = "handlers.star"
	DefaultDatabase  = "db.json"
	DefaultGenerator = "generator.star"
)

const (
	maxManifestBytes = 1 << 20
	maxPolicyBytes   = 1 << 20
	maxToolsBytes    = 8 << 20
	maxSourceBytes   = 4 << 20
	// maxPerCollection bounds the problems reported for one collection's
	// records: the first few show the pattern, a count says the rest.
	maxPerCollection = 5
	// validateSeed is the seed Validate runs a generator with.
	validateSeed = 1
)

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Validate checks a pack and reports every problem it finds, each with
// its file and line: syntax of every file, the manifest against
// schemas/pack.schema.json, the tools, the handlers, the database or
// generator, and every reference between them. No problems means Load
// succeeds.
func Validate(ctx context.Context, fsys fs.FS, opts Options) []Problem {
	return check(ctx, fsys, validateSeed, opts).problems
}

// manifestSchema compiles the embedded schemas once per process; the
// compiled set is immutable and validates concurrently.
var manifestSchema = sync.OnceValues(schemas.Compile)

// printer renders schema errors in English.
var printer = message.NewPrinter(language.English)

type toolDef struct {
	name     string
	desc     string
	kind     string
	params   map[string]any
	props    map[string]bool
	required []string
	line     int
	badName  bool // no handler can have this name
}

// checker gathers problems while reading a pack; Load builds from what
// it read once it found none.
type checker struct {
	ctx      context.Context
	fsys     fs.FS
	seed     uint64
	lim      Limits
	problems []Problem

	files    map[string][]byte
	man      Manifest
	ydoc     *yamlDoc
	manOK    bool // domain.yaml decoded into an object
	policy   string
	tools    []*toolDef
	byName   map[string]*toolDef
	toolsOK  bool // tools.json parsed as an array
	toolsIdx *jsonIndex
	handlers starlark.StringDict
	// policyFns are the policy code's globals (Manifest.PolicyCode).
	policyFns starlark.StringDict
	builtins  map[string]HandlerSet
	builtin   HandlerSet // the built-in handlers the pack names, if any
	readers   map[string]DatabaseReader
	reader    DatabaseReader // the built-in set's db.json reader, if any
	holdout   []HeldOut
	db        map[string]map[string]any
	dbFile    string
	dbIdx     *jsonIndex
	genLine   int
}

func check(ctx context.Context, fsys fs.FS, seed uint64, opts Options) (c *checker) {
	c = &checker{ctx: ctx, fsys: fsys, seed: seed, lim: opts.limits(), builtins: opts.Builtins, readers: opts.Databases, files: map[string][]byte{}, byName: map[string]*toolDef{}}
	defer func() {
		// Last resort: a bug in a parser must not take the caller down.
		if p := recover(); p != nil {
			c.add(ManifestFile, 0, "", "internal error while checking the pack (please report it): %v", p)
		}
		sort.SliceStable(c.problems, func(i, j int) bool {
			a, b := c.problems[i], c.problems[j]
			if a.File != b.File {
				return a.File < b.File
			}
			return a.Line < b.Line
		})
	}()
	c.manifest()
	c.readPolicy()
	c.readTools()
	c.compileHandlers()
	c.compilePolicyCode()
	c.database()
	if c.manOK {
		c.references()
		c.checkRules()
		c.checkFailures()
		c.checkTasks()
		c.readHoldout()
	}
	return c
}

func (c *checker) add(file string, line int, field, format string, args ...any) {
	c.problems = append(c.problems, Problem{File: file, Line: line, Field: field, Message: fmt.Sprintf(format, args...)})
}

// addY reports a problem of domain.yaml at a location, naming the field.
func (c *checker) addY(at, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if f := dotted(at); f != "" {
		msg = f + ": " + msg
	}
	c.problems = append(c.problems, Problem{File: ManifestFile, Line: c.ydoc.line(at), Field: dotted(at), Message: msg})
}

// read reads a pack file named by a manifest field (at) or by default.
func (c *checker) read(name, at string, max int) ([]byte, bool) {
	// A problem goes to the manifest line naming the file, or to the
	// file itself when the name is a default.
	where := func(format string, args ...any) {
		if at != "" && c.ydoc != nil {
			if _, set := c.ydoc.lines[at]; set {
				c.addY(at, format, args...)
				return
			}
		}
		msg := strings.TrimPrefix(fmt.Sprintf(format, args...), name+" ")
		switch {
		case name == ManifestFile && strings.HasPrefix(msg, "does not exist"):
			msg = "not found: a pack folder holds domain.yaml (synth domain init DIR makes a pack)"
		case strings.HasPrefix(msg, "does not exist"):
			msg = fmt.Sprintf("not found: the pack needs this file (or name another with %s: in %s)", at, ManifestFile)
		}
		c.add(name, 0, "", "%s", msg)
	}
	if !fs.ValidPath(name) || name == "." {
		where("%q is not a file name inside the pack folder (no leading /, no ..)", name)
		return nil, false
	}
	if link := linkOutside(c.fsys, name); link != "" {
		where("%s is a symbolic link that leads outside the pack folder; synth reads only files inside the pack: copy the file in instead", link)
		return nil, false
	}
	info, err := fs.Stat(c.fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		where("%s does not exist in the pack folder", name)
		return nil, false
	}
	if err != nil {
		where("cannot read %s: %v", name, err)
		return nil, false
	}
	if info.IsDir() {
		where("%s is a folder, not a file", name)
		return nil, false
	}
	if !info.Mode().IsRegular() {
		where("%s is not a regular file (%s); a pack holds plain files", name, info.Mode().Type())
		return nil, false
	}
	if info.Size() > int64(max) {
		where("%s is %d bytes, more than the %s a pack's %s may hold (%s)", name, info.Size(), limitio.Bytes(int64(max)), fileKind(at), limitWhy(at))
		return nil, false
	}
	// Read no more than the limit even if the file grows meanwhile.
	data, err := readLimited(c.fsys, name, max)
	if err != nil {
		where("cannot read %s: %v", name, err)
		return nil, false
	}
	if len(data) > max {
		where("%s is more than the %s a pack's %s may hold (%s)", name, limitio.Bytes(int64(max)), fileKind(at), limitWhy(at))
		return nil, false
	}
	c.files[name] = data
	return data, true
}

// readLimited reads at most max+1 bytes of a file.
func readLimited(fsys fs.FS, name string, max int) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, int64(max)+1))
}

// fileKind names a pack file by the manifest field that names it.
func fileKind(at string) string {
	switch at {
	case "":
		return "manifest"
	case "database":
		return "database file"
	case "generator", "handlers":
		return at + " source"
	}
	return at + " file"
}

// limitWhy says why a pack file's limit is what it is and what to do
// instead of raising it: the limits are fixed, so that a pack cannot make
// synth read without end.
func limitWhy(at string) string {
	switch at {
	case "policy":
		return "the policy is the system message of every row: keep it to what the agent must know"
	case "database":
		return "a fixed limit, the same for a database generate(seed) builds: keep the records few and small"
	case "tools":
		return "a fixed limit: every row carries the tools"
	}
	return "a fixed limit"
}

// linkOutside returns the first part of name (itself or a folder on its
// way) that is a symbolic link the pack's file system refuses to follow
// because it leads outside the pack, or "".
func linkOutside(fsys fs.FS, name string) string {
	lfs, ok := fsys.(fs.ReadLinkFS)
	if !ok {
		return ""
	}
	parts := strings.Split(name, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		info, err := lfs.Lstat(p)
		if err != nil {
			return ""
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if _, err := fs.Stat(fsys, p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return p
		}
	}
	return ""
}

func (c *checker) exists(name string) bool {
	_, err := fs.Stat(c.fsys, name)
	return err == nil
}

// manifest parses domain.yaml, checks it against the schema and fills in
// the default file names.
func (c *checker) manifest() {
	defer c.defaults()
	data, ok := c.read(ManifestFile, "", maxManifestBytes)
	if !ok {
		return
	}
	doc, probs := parseYAML(ManifestFile, data)
	c.problems = append(c.problems, probs...)
	if doc == nil {
		return
	}
	c.ydoc = doc
	if _, isObj := doc.value.(map[string]any); !isObj {
		c.add(ManifestFile, doc.lines[""], "", "the manifest must be a mapping of keys (name, version, collections, ...), not %s", jsonKind(doc.value))
		return
	}
	c.schemaCheck(doc.value)
	raw, err := json.Marshal(doc.value)
	if err != nil {
		c.add(ManifestFile, 1, "", "the manifest does not convert to JSON: %v", err)
		return
	}
	// Fields of the wrong type were reported by the schema; Unmarshal
	// fills every other field, so the remaining checks still run.
	_ = json.Unmarshal(raw, &c.man)
	c.manOK = true
	if c.man.Clock != "" {
		if _, err := time.Parse(time.RFC3339, c.man.Clock); err != nil {
			c.addY("clock", "%q is not an RFC 3339 time (2024-05-15T15:00:00-05:00)", c.man.Clock)
		}
	}
}

func (c *checker) defaults() {
	m := &c.man
	m.Policy = cmp.Or(m.Policy, DefaultPolicy)
	if m.Tools == "" {
		m.Tools = DefaultTools
	}
	m.Handlers = cmp.Or(m.Handlers, DefaultHandlers)
	if m.Database == "" && m.Generator == "" {
		switch {
		case c.exists(DefaultDatabase):
			m.Database = DefaultDatabase
		case c.exists(DefaultGenerator):
			m.Generator = DefaultGenerator
		default:
			c.add(ManifestFile, 1, "database", "the pack has no database: add %s or %s, or name one with database: or generator:", DefaultDatabase, DefaultGenerator)
		}
	}
	if m.Database != "" && m.Generator != "" {
		// Reported by the schema; the database wins so checks go on.
		m.Generator = ""
	}
}

func (c *checker) schemaCheck(v any) {
	set, err := manifestSchema()
	if err != nil {
		c.add(ManifestFile, 0, "", "cannot compile schemas/pack.schema.json: %v", err)
		return
	}
	err = set.ValidateValue(schemas.Pack, v)
	if err == nil {
		return
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		c.add(ManifestFile, 1, "", "%v", err)
		return
	}
	c.schemaError(ve)
}

func (c *checker) schemaError(e *jsonschema.ValidationError) {
	at := loc(e.InstanceLocation...)
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			msg := fmt.Sprintf("unknown key %q", p)
			// One branch of a oneOf may know the key another refuses: no
			// "did you mean" the very key.
			if s := suggest.Closest(p, knownKeys(e.InstanceLocation)); s != "" && s != p {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			c.addY(child(at, p), "%s", msg)
		}
		return
	case *kind.Required:
		for _, m := range k.Missing {
			c.addY(at, "missing required key %q", m)
		}
		return
	case *kind.PropertyNames:
		// jsonschema v6 reports a wrong InstanceLocation for
		// propertyNames, so find the key in the document instead.
		c.addY(c.ydoc.find(k.Property), "%q is not a valid name: use letters, digits and _, starting with a letter or _", k.Property)
		return
	case *kind.Not:
		if at == "" {
			c.addY("generator", "set either database or generator, not both")
			return
		}
	case *kind.Type:
		msg := fmt.Sprintf("got %s, want %s", k.Got, strings.Join(k.Want, " or "))
		if len(e.InstanceLocation) == 1 && e.InstanceLocation[0] == "version" && k.Got == "number" {
			msg += ` (quote it: version: "1.0")`
		}
		c.addY(at, "%s", msg)
		return
	}
	if len(e.Causes) == 0 {
		c.addY(at, "%s", e.ErrorKind.LocalizedString(printer))
		return
	}
	for _, cause := range e.Causes {
		c.schemaError(cause)
	}
}

// knownKeys lists the keys the manifest's Go types accept at a location,
// to suggest a fix for a misspelt one.
func knownKeys(tokens []string) []string {
	t := reflect.TypeFor[Manifest]()
	for _, tok := range tokens {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Map, reflect.Slice:
			t = t.Elem()
		case reflect.Struct:
			i := slices.IndexFunc(suggest.JSONFields(t), func(f suggest.Field) bool { return f.Name == tok })
			if i < 0 {
				return nil
			}
			t = suggest.JSONFields(t)[i].Type
		default:
			return nil
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	for _, f := range suggest.JSONFields(t) {
		keys = append(keys, f.Name)
	}
	return keys
}

func (c *checker) readPolicy() {
	data, ok := c.read(c.man.Policy, "policy", maxPolicyBytes)
	if !ok {
		return
	}
	if len(bytes.TrimSpace(data)) == 0 {
		c.add(c.man.Policy, 1, "", "the policy is empty: it is the agent's system prompt")
	}
	if line, col, ok := invalidUTF8(data); ok {
		// It is every row's system message, and a row is UTF-8: found
		// here, not when the release is written.
		c.add(c.man.Policy, line, "", "the policy is not UTF-8 text (a byte that is no UTF-8 character at column %d): save it as UTF-8", col)
	}
	c.policy = string(data)
}

// invalidUTF8 finds the first byte of data that is not UTF-8, by its
// 1-based line and column.
func invalidUTF8(data []byte) (line, col int, found bool) {
	if utf8.Valid(data) {
		return 0, 0, false
	}
	line, start := 1, 0
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return line, utf8.RuneCount(data[start:i]) + 1, true
		}
		if r == '\n' {
			line, start = line+1, i+1
		}
		i += size
	}
	return line, 1, true
}

var functionKeys = []string{"name", "description", "parameters", "strict", "x-kind"}

func (c *checker) readTools() {
	file := c.man.Tools
	data, ok := c.read(file, "tools", maxToolsBytes)
	if !ok {
		return
	}
	v, err := decodeJSONDoc(data)
	if err != nil {
		c.add(file, jsonErrorLine(data, err), "", "JSON syntax: %v", err)
		return
	}
	ix, err := indexJSON(data, 4)
	if err != nil {
		c.add(file, jsonErrorLine(data, err), "", "JSON syntax: %v", err)
		return
	}
	c.toolsIdx = ix
	for _, d := range ix.dups {
		c.add(file, d.line, dotted(d.loc), "duplicate key %q (first at line %d)", lastToken(d.loc), d.prev)
	}
	arr, ok := v.([]any)
	if !ok {
		c.add(file, 1, "", "tools.json must be a JSON array of OpenAI tools [{\"type\": \"function\", \"function\": {...}}], not %s", jsonKind(v))
		return
	}
	c.toolsOK = true
	if len(arr) == 0 {
		c.add(file, 1, "", "the pack defines no tools")
	}
	seen := map[string]int{}
	for i, el := range arr {
		c.readTool(file, i, el, seen)
	}
}

func lastToken(l string) string {
	if i := strings.LastIndex(l, sep); i >= 0 {
		return l[i+len(sep):]
	}
	return l
}

func (c *checker) readTool(file string, i int, el any, seen map[string]int) {
	il := strconv.Itoa(i)
	at := func(tokens ...string) int { return c.toolsIdx.line(loc(append([]string{il}, tokens...)...)) }
	line := at()
	field := fmt.Sprintf("[%d]", i)
	obj, ok := el.(map[string]any)
	if !ok {
		c.add(file, line, field, "tool %d must be an object {\"type\": \"function\", \"function\": {...}}, not %s", i, jsonKind(el))
		return
	}
	if t, _ := obj["type"].(string); t != "function" {
		c.add(file, at("type"), field+".type", "tool %d: \"type\" must be \"function\"", i)
	}
	fn, ok := obj["function"].(map[string]any)
	if !ok {
		c.add(file, at("function"), field+".function", "tool %d has no \"function\" object with name, description, parameters and x-kind", i)
		return
	}
	name, _ := fn["name"].(string)
	if name == "" {
		c.add(file, at("function", "name"), field+".function.name", "tool %d has no function.name", i)
		return
	}
	field = name
	td := &toolDef{name: name, line: line}
	bad := func(l int, format string, args ...any) {
		c.add(file, l, field, "tool %s: %s", name, fmt.Sprintf(format, args...))
	}
	if !identRE.MatchString(name) || len(name) > 64 {
		bad(at("function", "name"), "the name must be a Starlark identifier of at most 64 characters (letters, digits, _) so its handler can be named after it")
		td.badName = true
	}
	if prev, dup := seen[name]; dup {
		c.add(file, at("function", "name"), field, "tool %s is defined twice (first at line %d)", name, prev)
		return
	}
	seen[name] = line
	c.tools = append(c.tools, td)
	c.byName[name] = td
	for _, k := range slices.Sorted(maps.Keys(fn)) {
		if !slices.Contains(functionKeys, k) {
			msg := fmt.Sprintf("unknown key %q in function", k)
			if s := suggest.Closest(k, functionKeys); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			bad(at("function", k), "%s", msg)
		}
	}
	if d, has := fn["description"]; has {
		if s, ok := d.(string); ok {
			td.desc = s
		} else {
			bad(at("function", "description"), "description must be a string")
		}
	}
	switch k, has := fn["x-kind"]; {
	case !has:
		bad(at("function", "name"), "function.x-kind is missing: set \"read\", \"write\" (it changes the database) or \"generic\"")
	case k == record.KindRead || k == record.KindWrite || k == record.KindGeneric:
		td.kind = k.(string)
	default:
		bad(at("function", "x-kind"), "x-kind is %s; want \"read\", \"write\" or \"generic\"", shortJSON(k))
	}
	params, has := fn["parameters"]
	if !has {
		params = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	pm, ok := params.(map[string]any)
	if !ok {
		bad(at("function", "parameters"), "parameters must be a JSON Schema object, not %s", jsonKind(params))
		return
	}
	td.params = pm
	if t, _ := pm["type"].(string); t != "object" {
		bad(at("function", "parameters"), "parameters must have \"type\": \"object\" (the arguments are an object)")
	}
	if err := compileParams(name, pm); err != nil {
		bad(at("function", "parameters"), "parameters are not a valid JSON Schema (Draft 2020-12): %s", schemaMessage(err))
	}
	td.props = map[string]bool{}
	if props, ok := pm["properties"].(map[string]any); ok {
		for p := range props {
			td.props[p] = true
		}
	}
	if req, ok := pm["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				td.required = append(td.required, s)
			}
		}
	}
}

// schemaMessage is a one-line account of a schema compile error: the
// first failing leaf of a metaschema violation, with its location.
func schemaMessage(err error) string {
	var se *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if !errors.As(err, &se) || !errors.As(se.Err, &ve) {
		return strings.ReplaceAll(err.Error(), "\n", " ")
	}
	for len(ve.Causes) > 0 {
		// Alternatives (anyOf, oneOf) each fail; the first says enough.
		ve = ve.Causes[0]
	}
	msg := ve.ErrorKind.LocalizedString(printer)
	if len(ve.InstanceLocation) > 0 {
		msg = "/" + strings.Join(ve.InstanceLocation, "/") + ": " + msg
	}
	return msg
}

// noLoader refuses every external schema: a pack's parameter schemas
// must stand alone, and validating one must not read files or the net.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: a tool's parameters may only use local $refs (#/...)", url)
}

// compileParams compiles a tool's parameter schema as tools.NewToolkit
// will, so a pack that validates also builds.
func compileParams(name string, params map[string]any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	comp.UseLoader(noLoader{})
	url := "tool:///" + name + ".json"
	if err := comp.AddResource(url, doc); err != nil {
		return err
	}
	_, err = comp.Compile(url)
	return err
}

// compileStarlark compiles and runs the top level of a Starlark file,
// reporting syntax, name-resolution and load() problems. It returns the
// frozen globals, or nil.
func (c *checker) compileStarlark(file string, data []byte, env starlark.StringDict) starlark.StringDict {
	_, prog, err := starlark.SourceProgramOptions(fileOptions, file, data, env.Has)
	if err != nil {
		var se syntax.Error
		var rl resolve.ErrorList
		switch {
		case errors.As(err, &se):
			line, col := int(se.Pos.Line), fmt.Sprintf("column %d", se.Pos.Col)
			if strings.HasPrefix(se.Msg, "got newline") && se.Pos.Col == 1 && line > 1 {
				// The scanner is already past the newline: the
				// statement that lacks something ends on the line before.
				line, col = line-1, "the end of the line"
			}
			c.add(file, line, "", "syntax error at %s: %s", col, se.Msg)
		case errors.As(err, &rl):
			for _, e := range rl {
				c.add(file, int(e.Pos.Line), "", "column %d: %s", e.Pos.Col, e.Msg)
			}
		default:
			c.add(file, 1, "", "%v", err)
		}
		return nil
	}
	if n := prog.NumLoads(); n > 0 {
		for i := range n {
			mod, pos := prog.Load(i)
			c.add(file, int(pos.Line), "", "load(%q) is not allowed: a pack's Starlark code is one file with no imports", mod)
		}
		return nil
	}
	th, stop := newThread(c.ctx, file, c.lim.GeneratorSteps)
	defer stop()
	globals, err := prog.Init(th, env)
	if err != nil {
		c.add(file, errLine(err), "", "%v", callError(c.ctx, th, "the top level of "+file, c.lim.GeneratorSteps, err))
		return nil
	}
	globals.Freeze()
	return globals
}

func errLine(err error) int {
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		if pos, ok := sourcePos(ee.CallStack); ok {
			return int(pos.Line)
		}
	}
	return 1
}

func (c *checker) compileHandlers() {
	file := c.man.Handlers
	if name, ok := strings.CutPrefix(file, BuiltinPrefix); ok {
		c.builtinHandlers(name)
		return
	}
	data, ok := c.read(file, "handlers", maxSourceBytes)
	if !ok {
		return
	}
	c.handlers = c.compileStarlark(file, data, environment(c.man.Clock, false))
	if c.handlers == nil {
		return
	}
	for _, td := range c.tools {
		if td.badName {
			continue
		}
		v, has := c.handlers[td.name]
		if !has {
			msg := fmt.Sprintf("tool %s has no handler: define def %s(db, args): in %s", td.name, td.name, file)
			if s := suggest.Closest(td.name, c.handlers.Keys()); s != "" {
				msg += fmt.Sprintf(" (%s defines %s)", file, s)
			}
			c.add(c.man.Tools, td.line, td.name, "%s", msg)
			continue
		}
		fn, isFn := v.(*starlark.Function)
		if !isFn {
			c.add(file, 1, td.name, "%s is a %s, not a function: the handler of tool %s must be def %s(db, args):", td.name, v.Type(), td.name, td.name)
			continue
		}
		if fn.NumParams() != 2 || fn.HasVarargs() || fn.HasKwargs() {
			c.add(file, int(fn.Position().Line), td.name, "handler %s takes %d parameter(s); want exactly two: def %s(db, args):", td.name, fn.NumParams(), td.name)
		}
	}
}

// builtinHandlers takes a pack's handlers from a Go handler set: every
// tool of tools.json must have one, and the set must know no other tool
// (a tool it handles that the pack leaves out is a sign of a mix-up).
func (c *checker) builtinHandlers(name string) {
	set, ok := c.builtins[name]
	if !ok {
		known := slices.Sorted(maps.Keys(c.builtins))
		c.addY("handlers", "%q names no built-in handler set (known: %s); write handlers.star, or name one of those", BuiltinPrefix+name, strings.Join(known, ", "))
		return
	}
	c.builtin = set
	c.reader = c.readers[name]
	for _, td := range c.tools {
		if td.badName {
			continue
		}
		if set[td.name] == nil {
			c.add(c.man.Tools, td.line, td.name, "tool %s has no handler in the built-in set %s (it handles %s)", td.name, name, strings.Join(slices.Sorted(maps.Keys(set)), ", "))
		}
	}
}

func (c *checker) database() {
	var v any
	switch {
	case c.man.Database != "":
		c.dbFile = c.man.Database
		data, ok := c.read(c.dbFile, "database", c.lim.DatabaseBytes)
		if !ok {
			return
		}
		var err error
		if c.reader != nil {
			if v, ok = c.readModel(data); !ok {
				return
			}
		} else if v, err = decodeJSONDoc(data); err != nil {
			c.add(c.dbFile, jsonErrorLine(data, err), "", "JSON syntax: %v", err)
			return
		}
		if c.dbIdx, err = indexJSON(data, 2); err != nil {
			c.add(c.dbFile, jsonErrorLine(data, err), "", "JSON syntax: %v", err)
			return
		}
		for _, d := range c.dbIdx.dups {
			c.add(c.dbFile, d.line, dotted(d.loc), "duplicate key %q (first at line %d)", lastToken(d.loc), d.prev)
		}
	case c.man.Generator != "":
		c.dbFile = c.man.Generator
		var ok bool
		if v, ok = c.generate(); !ok {
			return
		}
	default:
		return
	}
	c.db = c.shapeDB(v)
}

// readModel reads db.json through the built-in handler set's reader,
// which holds it to the handlers' data model.
func (c *checker) readModel(data []byte) (any, bool) {
	db, err := c.reader(data)
	if err != nil {
		c.add(c.dbFile, jsonErrorLine(data, err), "", "%v (the handlers %s expect this model)", err, c.man.Handlers)
		return nil, false
	}
	v := make(map[string]any, len(db))
	for coll, recs := range db {
		m := make(map[string]any, len(recs))
		for k, r := range recs {
			m[k] = r
		}
		v[coll] = m
	}
	return v, true
}

// generate runs generator.star's generate(seed).
func (c *checker) generate() (any, bool) {
	file := c.dbFile
	data, ok := c.read(file, "generator", maxSourceBytes)
	if !ok {
		return nil, false
	}
	globals := c.compileStarlark(file, data, environment(c.man.Clock, true))
	if globals == nil {
		return nil, false
	}
	fn, ok := globals["generate"].(*starlark.Function)
	if !ok {
		c.add(file, 1, "generate", "%s must define def generate(seed): returning {collection: {key: record}}", file)
		return nil, false
	}
	c.genLine = int(fn.Position().Line)
	if fn.NumParams() != 1 || fn.HasVarargs() || fn.HasKwargs() {
		c.add(file, c.genLine, "generate", "generate takes %d parameter(s); want exactly one: def generate(seed):", fn.NumParams())
		return nil, false
	}
	th, stop := newThread(c.ctx, "generate", c.lim.GeneratorSteps)
	defer stop()
	what := fmt.Sprintf("generate(%d)", c.seed)
	res, err := starlark.Call(th, fn, starlark.Tuple{starlark.MakeUint64(c.seed)}, nil)
	if err != nil {
		c.add(file, errLine(err), "generate", "%v", callError(c.ctx, th, what, c.lim.GeneratorSteps, err))
		return nil, false
	}
	v, err := fromStarlark(res, newBudget(c.lim.DatabaseBytes), 0)
	if errors.Is(err, errTooBig) {
		c.add(file, c.genLine, "generate", "%s returned more than %s, the most a pack's database may hold (a fixed limit, which db.json shares: keep the records few and small)", what, limitio.Bytes(int64(c.lim.DatabaseBytes)))
		return nil, false
	}
	if err != nil {
		c.add(file, c.genLine, "generate", "%s returned a non-JSON value: %v", what, err)
		return nil, false
	}
	return v, true
}

// dbLine is the line of a collection or record in db.json, or the line
// of generate() for a generated database.
func (c *checker) dbLine(tokens ...string) int {
	if c.dbIdx == nil {
		if c.genLine > 0 {
			return c.genLine
		}
		return 1
	}
	return c.dbIdx.line(loc(tokens...))
}

// shapeDB checks the database is {collection: {key: record}}, that every
// collection is declared and every record carries its key.
func (c *checker) shapeDB(v any) map[string]map[string]any {
	top, ok := v.(map[string]any)
	if !ok {
		c.add(c.dbFile, c.dbLine(), "", "the database must be an object {collection: {key: record}}, not %s", jsonKind(v))
		return nil
	}
	db := make(map[string]map[string]any, len(top))
	for _, coll := range slices.Sorted(maps.Keys(top)) {
		recs, ok := top[coll].(map[string]any)
		if !ok {
			c.add(c.dbFile, c.dbLine(coll), coll, "collection %s must be an object {key: record}, not %s", coll, jsonKind(top[coll]))
			continue
		}
		db[coll] = recs
		if !c.manOK {
			continue
		}
		col, declared := c.man.Collections[coll]
		if !declared {
			c.add(c.dbFile, c.dbLine(coll), coll, "collection %s is not declared under collections: in %s", coll, ManifestFile)
			continue
		}
		if col.Key == "" {
			continue
		}
		bad := 0
		for _, key := range slices.Sorted(maps.Keys(recs)) {
			if err := checkKey(recs[key], col, key); err != nil {
				if bad < maxPerCollection {
					c.add(c.dbFile, c.dbLine(coll, key), coll+"."+key, "%s record %q: %v", coll, key, err)
				}
				bad++
			}
		}
		if bad > maxPerCollection {
			c.add(c.dbFile, c.dbLine(coll), coll, "%s: %d more records with a wrong key field", coll, bad-maxPerCollection)
		}
	}
	return db
}

// references checks that every name the manifest uses exists: tools,
// their parameters, collections and record fields.
func (c *checker) references() {
	m := &c.man
	users := m.Users.Collection
	for _, name := range slices.Sorted(maps.Keys(m.Collections)) {
		col := m.Collections[name]
		at := loc("collections", name)
		if col.Owner != "" {
			if users == "" {
				c.addY(child(at, "owner"), "records have an owner but the pack has no users: add users: or remove owner")
			} else {
				c.checkOwners(name, col.Owner, users)
			}
		}
		if col.Get != "" {
			c.toolRef(child(at, "get"), col.Get, record.KindRead)
		}
		if col.List != nil && col.List.Tool != "" {
			c.toolRef(loc("collections", name, "list", "tool"), col.List.Tool, record.KindRead)
		}
		for i, p := range col.Describe {
			c.fieldRef(loc("collections", name, "describe", strconv.Itoa(i)), name, p)
		}
		for i, p := range col.Compare {
			c.fieldRef(loc("collections", name, "compare", strconv.Itoa(i)), name, strings.TrimPrefix(p, "sum:"))
		}
		c.checkSay(child(at, "say"), col.Describe, col.Compare, col.Say)
	}
	if users != "" {
		_, usersDeclared := m.Collections[users]
		if !usersDeclared {
			c.addY(loc("users", "collection"), "%q is not a collection declared under collections:", users)
		} else {
			for i, p := range m.Users.Name {
				c.fieldRef(loc("users", "name", strconv.Itoa(i)), users, p)
			}
		}
		for i, id := range m.Users.Identify {
			at := loc("users", "identify", strconv.Itoa(i))
			if id.Tool == "" {
				continue
			}
			td := c.toolRef(child(at, "tool"), id.Tool, record.KindRead)
			for _, p := range slices.Sorted(maps.Keys(id.Args)) {
				if td != nil && td.params != nil && !td.props[p] {
					c.addY(loc("users", "identify", strconv.Itoa(i), "args", p), "tool %s has no parameter %q", id.Tool, p)
				}
				if usersDeclared {
					c.fieldRef(loc("users", "identify", strconv.Itoa(i), "args", p), users, id.Args[p])
				}
			}
			if td != nil {
				for _, r := range td.required {
					if _, ok := id.Args[r]; !ok && len(id.Args) > 0 {
						c.addY(child(at, "args"), "tool %s requires parameter %q: map it to a field of the user record", id.Tool, r)
					}
				}
			}
		}
	}
	c.hintRefs()
}

// checkSay checks that each key of a say words a field the customer or
// the agent says: "F" or "F=V" one of describe or compare, "max:F" and
// "min:F" one of compare. Lists left empty are inferred, so they hold
// nothing to check against.
func (c *checker) checkSay(at string, describe, compare []string, say map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(say)) {
		f, order := strings.CutPrefix(k, "max:")
		if !order {
			f, order = strings.CutPrefix(k, "min:")
		}
		if order {
			if len(compare) > 0 && !slices.Contains(compare, f) {
				c.addY(child(at, k), "%q orders by %q, which is not under compare: add it there or remove this key", k, f)
			}
			continue
		}
		f, _, _ = strings.Cut(k, "=")
		if len(describe) > 0 && !slices.Contains(describe, f) && !slices.Contains(compare, f) {
			c.addY(child(at, k), "%q words %q, which is under neither describe nor compare: add it to one or remove this key", k, f)
		}
	}
}

// checkChecks checks a write's checks: reads, with every required
// parameter from a field of the target's list elements.
func (c *checker) checkChecks(name string, w WriteHint) {
	_, isColl := c.man.Collections[w.Target]
	for i, ck := range w.Checks {
		at := loc("hints", "writes", name, "checks", strconv.Itoa(i))
		if !isColl {
			c.addY(at, "checks need a target collection: set target: to one")
			return
		}
		if ck.Tool == "" || ck.Each == "" || len(ck.Args) == 0 {
			c.addY(at, "a check needs tool (a read), each (a list in the %s record) and args (the read's parameters from the list's fields)", w.Target)
			continue
		}
		td := c.toolRef(child(at, "tool"), ck.Tool, record.KindRead)
		c.fieldRef(child(at, "each"), w.Target, ck.Each)
		for _, f := range slices.Sorted(maps.Keys(ck.When)) {
			c.fieldRef(child(child(at, "when"), f), w.Target, f)
		}
		for _, p := range slices.Sorted(maps.Keys(ck.Args)) {
			pat := child(child(at, "args"), p)
			if td != nil && td.params != nil && !td.props[p] {
				c.addY(pat, "tool %s has no parameter %q", ck.Tool, p)
			}
			c.fieldRef(pat, w.Target, ck.Each+"."+ck.Args[p])
		}
		if td != nil {
			for _, req := range td.required {
				if _, ok := ck.Args[req]; !ok {
					c.addY(child(at, "args"), "tool %s needs parameter %q: give it from a field of %s", ck.Tool, req, ck.Each)
				}
			}
		}
	}
}

// toolRef checks a manifest reference to a tool and its kind.
func (c *checker) toolRef(at, name, wantKind string) *toolDef {
	if !c.toolsOK {
		return nil
	}
	td, ok := c.byName[name]
	if !ok {
		msg := fmt.Sprintf("%q is not a tool of %s", name, c.man.Tools)
		if s := suggest.Closest(name, slices.Collect(maps.Keys(c.byName))); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		c.addY(at, "%s", msg)
		return nil
	}
	if td.kind != "" && wantKind != "" && td.kind != wantKind {
		c.addY(at, "tool %s is %s; want a %s tool", name, td.kind, wantKind)
	}
	return td
}

// fieldRef checks that some record of a collection has a dotted path.
// A collection without records (filled at run time) is not checked.
func (c *checker) fieldRef(at, coll, p string) {
	recs := c.db[coll]
	if len(recs) == 0 || p == "" {
		return
	}
	for _, r := range recs {
		if lookupAny(r, p) {
			return
		}
	}
	c.addY(at, "no record of %s has the field %q", coll, p)
}

// lookupAny reports whether a dotted path exists, stepping into lists as
// a hint's user.PATH does ("payment_methods.id": each method's id).
func lookupAny(v any, path string) bool {
	if path == "" {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		seg, rest, _ := strings.Cut(path, ".")
		if next, ok := x[seg]; ok {
			return lookupAny(next, rest)
		}
		// Records by key ({"credit_card_1": {...}}): the path goes on in
		// each record.
		for _, e := range x {
			if _, isObj := e.(map[string]any); !isObj {
				return false
			}
			if lookupAny(e, path) {
				return true
			}
		}
		return false
	case []any:
		for _, e := range x {
			if lookupAny(e, path) {
				return true
			}
		}
	}
	return false
}

func (c *checker) checkOwners(coll, field, users string) {
	recs := c.db[coll]
	userRecs, haveUsers := c.db[users]
	if len(recs) == 0 || !haveUsers {
		return
	}
	bad := 0
	for _, key := range slices.Sorted(maps.Keys(recs)) {
		v, ok := lookup(recs[key], field)
		if !ok {
			continue // shared records have no owner
		}
		if _, exists := userRecs[keyString(v)]; !exists {
			if bad < maxPerCollection {
				c.add(c.dbFile, c.dbLine(coll, key), coll+"."+key, "%s record %q: owner %s=%s is not a key of %s", coll, key, field, shortJSON(v), users)
			}
			bad++
		}
	}
	if bad > maxPerCollection {
		c.add(c.dbFile, c.dbLine(coll), coll, "%s: %d more records whose owner is not a user", coll, bad-maxPerCollection)
	}
}

func (c *checker) hintRefs() {
	h := &c.man.Hints
	searches := map[string]bool{}
	for i, s := range h.Searches {
		at := loc("hints", "searches", strconv.Itoa(i))
		if s.Name != "" {
			if searches[s.Name] {
				c.addY(child(at, "name"), "search %q is defined twice", s.Name)
			}
			if _, clash := c.man.Collections[s.Name]; clash {
				c.addY(child(at, "name"), "search %q has the name of a collection; a write's target would be ambiguous", s.Name)
			}
			searches[s.Name] = true
		}
		c.checkSay(child(at, "say"), s.Describe, s.Compare, s.Say)
		for j, t := range s.Tools {
			td := c.toolRef(loc("hints", "searches", strconv.Itoa(i), "tools", strconv.Itoa(j)), t, record.KindRead)
			if td == nil || td.params == nil {
				continue
			}
			for k, g := range s.Grid {
				if !td.props[g] {
					c.addY(loc("hints", "searches", strconv.Itoa(i), "grid", strconv.Itoa(k)), "tool %s has no parameter %q", t, g)
				}
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(h.Writes)) {
		w := h.Writes[name]
		at := loc("hints", "writes", name)
		td := c.toolRef(at, name, record.KindWrite)
		if w.Target != "" {
			if _, isColl := c.man.Collections[w.Target]; !isColl && !searches[w.Target] {
				c.addY(child(at, "target"), "%q is neither a collection nor a search", w.Target)
			}
		}
		for f := range w.When {
			if _, isColl := c.man.Collections[w.Target]; isColl {
				c.fieldRef(loc("hints", "writes", name, "when", f), w.Target, f)
			} else {
				c.addY(loc("hints", "writes", name, "when"), "preconditions need a target collection: set target: to one")
			}
		}
		if _, isColl := c.man.Collections[w.Target]; len(w.Refusals) > 0 && !isColl {
			c.addY(loc("hints", "writes", name, "refusals"), "refusals need a target collection: set target: to one")
		}
		if w.RefusalRule != "" && !slices.ContainsFunc(c.man.Rules, func(r Rule) bool {
			return r.Name == w.RefusalRule && r.Kind == RuleAllow && r.Tool == name
		}) {
			c.addY(loc("hints", "writes", name, "refusal_rule"), "refusal_rule %q names no allow rule of %s in rules:", w.RefusalRule, name)
		}
		if w.RefusalRule != "" && len(w.Refusals) == 0 {
			c.addY(loc("hints", "writes", name, "refusal_rule"), "refusal_rule goes with refusals: the errors whose reason the rule cites")
		}
		c.checkChecks(name, w)
		for i, f := range w.Follows {
			fat := loc("hints", "writes", name, "follows", strconv.Itoa(i))
			c.toolRef(fat, f, record.KindWrite)
			if o, ok := h.Writes[f]; ok && o.Target != w.Target && w.Target != c.man.Users.Collection {
				c.addY(fat, "%s acts on %q, not on this write's target %q: a write follows one on the same record", f, o.Target, w.Target)
			}
		}
		for _, p := range slices.Sorted(maps.Keys(w.Args)) {
			pat := loc("hints", "writes", name, "args", p)
			if td != nil && td.params != nil && !td.props[p] {
				c.addY(pat, "tool %s has no parameter %q", name, p)
			}
			c.checkArg(pat, w, w.Args[p])
		}
	}
	for _, coll := range slices.Sorted(maps.Keys(h.Informs)) {
		if _, ok := c.man.Collections[coll]; !ok {
			c.addY(loc("hints", "informs", coll), "%q is not a collection declared under collections:", coll)
			continue
		}
		for i, in := range h.Informs[coll] {
			at := loc("hints", "informs", coll, strconv.Itoa(i))
			base := in.Within
			if base != "" {
				c.fieldRef(child(at, "within"), coll, base)
				base += "."
			}
			v := strings.TrimSuffix(strings.TrimPrefix(in.Value, "sum("), ")")
			v = cmp.Or(v, in.Ask)
			c.fieldRef(child(at, "value"), coll, base+v)
		}
	}
}

// checkArg checks a write hint's argument source.
func (c *checker) checkArg(at string, w WriteHint, a Arg) {
	target := w.Target
	_, isColl := c.man.Collections[target]
	switch {
	case a.Pick != nil:
		path := strings.TrimSuffix(a.Pick.From+"."+a.Pick.ID, ".")
		if rest, mine := strings.CutPrefix(path, "user."); mine {
			if c.man.Users.Collection == "" {
				c.addY(child(at, "pick"), "from: %q names the customer's record, but the pack declares no users", a.Pick.From)
				return
			}
			c.fieldRef(child(at, "pick"), c.man.Users.Collection, rest)
		} else if !isColl {
			c.addY(at, "pick needs a target collection (set target: to one) or sub-records of the customer (from: user.PATH)")
			return
		} else {
			c.fieldRef(child(at, "pick"), target, path)
		}
		if path, same := strings.CutPrefix(a.Pick.Count, "target."); same {
			if isColl {
				c.fieldRef(child(at, "pick"), target, path)
			} else {
				c.addY(child(at, "pick"), "count %q needs a target collection", a.Pick.Count)
			}
		} else if a.Pick.Count != "" {
			if _, _, err := ParseCount(a.Pick.Count); err != nil {
				c.addY(child(at, "pick"), "count %q: %v (or target.PATH: as many as the target's list there)", a.Pick.Count, err)
			}
		}
	case a.Replace != nil:
		r := a.Replace
		if of, ok := w.Args[r.Of]; !ok || of.Pick == nil {
			c.addY(child(at, "replace"), "of: %q is not a pick argument of this write", r.Of)
		}
		if _, ok := c.man.Collections[r.From]; !ok {
			c.addY(child(at, "replace"), "from: %q is not a collection declared under collections:", r.From)
			return
		}
		c.fieldRef(child(at, "replace"), r.From, r.Among+"."+r.ID)
	case a.Choose != nil:
		if c.man.Users.Collection == "" {
			c.addY(at, "choose needs users: the pack has none")
			return
		}
		c.fieldRef(child(at, "choose"), c.man.Users.Collection, a.Choose.From+"."+a.Choose.ID)
		if a.Choose.Default != "" && isColl {
			c.fieldRef(child(at, "choose"), target, a.Choose.Default)
		}
		if a.Compute != "" {
			c.computeRef(child(at, "compute"), a.Compute)
		}
	case a.Slot != "":
		src := a.SlotSource()
		c.checkSource(child(at, "slot"), target, src)
		choices := strings.Split(strings.TrimPrefix(src, "slot:"), "|")
		for _, v := range slices.Sorted(maps.Keys(a.Say)) {
			switch {
			case strings.TrimSpace(a.Say[v]) == "":
				c.addY(child(at, "say"), "%q has no words: say how a customer names this value", v)
			case v != "*" && src != "slot" && !slices.Contains(choices, v):
				c.addY(child(at, "say"), "%q is not one of the slot's values (%s); use one of them or \"*\" for any value", v, strings.Join(choices, ", "))
			}
		}
	default:
		c.checkSource(at, target, a.Source)
	}
}

// ParseCount reads "N" or "MIN-MAX" (1 <= MIN <= MAX).
func ParseCount(s string) (int, int, error) {
	lo, hi, found := strings.Cut(s, "-")
	if !found {
		hi = lo
	}
	a, err1 := strconv.Atoi(lo)
	b, err2 := strconv.Atoi(hi)
	if err1 != nil || err2 != nil || a < 1 || b < a {
		return 0, 0, errors.New("want N or MIN-MAX with 1 <= MIN <= MAX")
	}
	return a, b, nil
}

// computeRef checks that a computed argument names a function of the
// policy code or the handlers file, def NAME(db, args):, that is no
// tool's handler.
func (c *checker) computeRef(at, name string) {
	fns, file := c.computeFns()
	switch {
	case fns == nil && strings.HasPrefix(file, BuiltinPrefix):
		c.addY(at, "compute:%s needs a Starlark function, and the handlers are built in: name a file of the policy's functions with policy_code: policy.star", name)
		return
	case fns == nil:
		c.addY(at, "compute:%s needs a function in a Starlark file; %s has none", name, file)
		return
	}
	if c.byName[name] != nil && c.man.PolicyCode == "" {
		c.addY(at, "compute:%s names a tool; name a function of %s that only computes the value", name, file)
		return
	}
	fn, ok := fns[name].(*starlark.Function)
	if !ok {
		c.addY(at, "compute:%s: define def %s(db, args): in %s, returning the argument's value", name, name, file)
		return
	}
	if fn.NumParams() != 2 || fn.HasVarargs() || fn.HasKwargs() {
		c.addY(at, "compute:%s takes %d parameter(s); want exactly two: def %s(db, args):", name, fn.NumParams(), name)
	}
}

// computeFns are the globals compute: arguments name and their file: the
// policy code's when the pack has one, else the handlers file's (nil for
// built-in handlers without policy code).
func (c *checker) computeFns() (starlark.StringDict, string) {
	if c.man.PolicyCode != "" {
		return c.policyFns, c.man.PolicyCode
	}
	return c.handlers, c.man.Handlers
}

// compilePolicyCode compiles the policy code file, whose functions
// compute: arguments name, in the handlers' sandbox.
func (c *checker) compilePolicyCode() {
	file := c.man.PolicyCode
	if file == "" {
		return
	}
	data, ok := c.read(file, "policy_code", maxSourceBytes)
	if !ok {
		return
	}
	c.policyFns = c.compileStarlark(file, data, environment(c.man.Clock, false))
}

// checkSource checks a write hint's argument source string.
func (c *checker) checkSource(at, target, src string) {
	switch {
	case src == "slot":
	case strings.HasPrefix(src, "slot:"):
		for _, alt := range strings.Split(strings.TrimPrefix(src, "slot:"), "|") {
			if alt == "" {
				c.addY(at, "%q has an empty choice: write slot:A|B|C", src)
				return
			}
		}
	case strings.HasPrefix(src, "const:"):
		if !json.Valid([]byte(strings.TrimPrefix(src, "const:"))) {
			c.addY(at, "%q: the value after const: must be JSON (const:\"text\", const:3)", src)
		}
	case strings.HasPrefix(src, "key:"):
		if _, isColl := c.man.Collections[strings.TrimPrefix(src, "key:")]; !isColl {
			c.addY(at, "%q: write key:COLLECTION with a collection declared under collections:", src)
		}
	case strings.HasPrefix(src, "like:"):
		coll, p, ok := strings.Cut(strings.TrimPrefix(src, "like:"), ".")
		if _, isColl := c.man.Collections[coll]; !ok || !isColl {
			c.addY(at, "%q: write like:COLLECTION.PATH with a collection declared under collections:", src)
			return
		}
		c.fieldRef(at, coll, p)
	case strings.HasPrefix(src, "compute:"):
		c.computeRef(at, strings.TrimPrefix(src, "compute:"))
	case strings.HasPrefix(src, "target."):
		if target == "" {
			c.addY(at, "%q needs a target: set target: to a collection or search", src)
		} else if _, isColl := c.man.Collections[target]; isColl {
			path := strings.TrimPrefix(src, "target.")
			if base, fields, ok := strings.Cut(path, "["); ok {
				// target.flights[flight_number,date]: the list and the
				// fields each element keeps.
				path = base
				for _, f := range strings.Split(strings.TrimSuffix(fields, "]"), ",") {
					c.fieldRef(at, target, base+"."+strings.TrimSpace(f))
				}
			}
			c.fieldRef(at, target, path)
		}
	case strings.HasPrefix(src, "user."):
		if c.man.Users.Collection == "" {
			c.addY(at, "%q needs users: the pack has none", src)
		} else {
			c.fieldRef(at, c.man.Users.Collection, strings.TrimPrefix(src, "user."))
		}
	default:
		c.addY(at, "%q is not a source: use target.PATH, user.PATH, slot, slot:A|B|C, key:COLL, like:COLL.PATH, const:JSON or compute:FUNCTION, or a pick, replace or choose object", src)
	}
}

// packFiles returns the pack's defining files by clean relative name.
func (c *checker) packFiles() map[string][]byte {
	out := make(map[string][]byte, len(c.files))
	for name, data := range c.files {
		out[path.Clean(name)] = data
	}
	return out
}
