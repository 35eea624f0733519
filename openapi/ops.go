package openapi

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/pb33f/go-yaml"

	"github.com/synth-data/synth/pack"
)

// Where an argument goes in the request.
const (
	inPath  = "path"
	inQuery = "query"
	inBody  = "body"      // one property of an object body
	inWhole = "bodyWhole" // the whole (non-object) body
)

// arg is one tool argument and where it comes from.
type arg struct {
	Name     string // the tool argument (unique, valid)
	In       string
	Orig     string // the parameter or body property name in the spec
	Schema   any
	Required bool
}

// op is one operation turned into a tool.
type op struct {
	rawOp
	ID          string // operationId
	Summary     string
	Description string
	Tool        string
	Kind        string
	Args        []arg
	Params      map[string]any // the tool's parameters schema
	// Body is the converted request body schema (JSON or form), nil
	// when there is none or it is not structured.
	Body any
	// Broken lists $refs that could not be followed: the tool exists
	// but its handler is unmapped.
	Broken   []string
	Warnings []string
	// Failures are what its documented error responses stand for.
	Failures []pack.Failure
	Notes    []string
	Handler  plan
	// respKnown: a GET has a JSON 2xx response; respList: it is a list
	// of objects, in the response's property listField ("" when the
	// response is the array).
	respKnown, respList bool
	listField           string
	// index is the operation's place in the spec; segs and shape its
	// path, split once.
	index int
	segs  []segment
	shape string
}

func (o *op) label() string {
	if o.Method == toolMethod {
		return "tool " + o.Path
	}
	return strings.ToUpper(o.Method) + " " + o.Path
}

// where is the operation's place in the spec: "line 12", or the file a
// $ref put it in.
func (o *op) where() string {
	if o.Method == toolMethod {
		return fmt.Sprintf("%s tools[%d]", o.File, o.Line)
	}
	if o.File != "" {
		return fmt.Sprintf("%s line %d", o.File, o.Line)
	}
	return fmt.Sprintf("line %d", o.Line)
}

func (o *op) warn(format string, a ...any) {
	o.Warnings = append(o.Warnings, o.warning(fmt.Sprintf(format, a...)))
}

// warning is the text of a warning about the operation.
func (o *op) warning(msg string) string {
	return fmt.Sprintf("%s (%s): %s", o.label(), o.where(), msg)
}

// argByName returns the argument called name, or nil.
func (o *op) argByName(name string) *arg {
	for i := range o.Args {
		if name != "" && o.Args[i].Name == name {
			return &o.Args[i]
		}
	}
	return nil
}

// arg returns the argument with a given source, or nil.
func (o *op) argFor(in, orig string) *arg {
	for i := range o.Args {
		if o.Args[i].In == in && o.Args[i].Orig == orig {
			return &o.Args[i]
		}
	}
	return nil
}

var templateRE = regexp.MustCompile(`\{([^{}/]+)\}`)

// headers the HTTP layer sets; OpenAPI says to ignore them as parameters.
var ignoredHeaders = []string{"accept", "content-type", "authorization"}

// buildOp converts one operation: its tool name is given later, once all
// names are known.
func buildOp(conv *converter, r rawOp) *op {
	o := &op{rawOp: r}
	o.ID = str(r.Node, "operationId")
	o.Summary = strings.TrimSpace(str(r.Node, "summary"))
	o.Description = strings.TrimSpace(str(r.Node, "description"))
	o.Kind = "write"
	if r.Method == "get" || r.Method == "head" {
		o.Kind = "read"
	}
	used := map[string]bool{}
	claim := func(name, in string) string {
		n := argName(name)
		if used[n] {
			n = argName(name + "_" + in)
		}
		for i := 2; used[n]; i++ {
			n = argName(fmt.Sprintf("%s_%d", name, i))
		}
		used[n] = true
		return n
	}

	params, order := o.parameters(conv, r)
	template, templOrder := templateNames(r.Path)
	declared := map[string]bool{}
	// Path parameters first, in template order, so names of URL ids win
	// collisions with body fields.
	slices.SortStableFunc(order, func(a, b pkey) int {
		return inRank(a.in) - inRank(b.in)
	})
	for _, name := range templOrder {
		if _, ok := params[pkey{name, "path"}]; !ok {
			o.warn("path parameter {%s} is in the URL template but not declared; added as a required string argument", name)
			o.Args = append(o.Args, arg{Name: claim(name, inPath), In: inPath, Orig: name, Schema: map[string]any{"type": "string"}, Required: true})
			declared[name] = true
		}
	}
	for _, k := range order {
		p := params[k]
		switch k.in {
		case "path", "query", "header":
		case "cookie":
			o.warn("cookie parameter %q is not part of the tool", k.name)
			continue
		default:
			o.warn("parameter %q has unknown location in: %q; skipped", k.name, k.in)
			continue
		}
		if k.in == "header" && slices.Contains(ignoredHeaders, strings.ToLower(k.name)) {
			continue
		}
		required := str(p, "required") == "true"
		if k.in == "path" {
			declared[k.name] = true
			if !template[k.name] {
				o.warn("path parameter %q is not in the URL template %s; kept as an optional argument", k.name, r.Path)
				required = false
			} else {
				required = true
			}
		}
		s := o.convert(conv, paramSchema(p))
		s = annotate(s, str(p, "description"), get(p, "example"))
		o.Args = append(o.Args, arg{Name: claim(k.name, k.in), In: k.in, Orig: k.name, Schema: s, Required: required})
	}
	o.body(conv, claim)
	o.Params = paramsSchema(o.Args)
	return o
}

// pkey names a parameter by name and location.
type pkey struct{ name, in string }

// parameters are the path item's parameters, overridden by the
// operation's, and their first-seen order.
func (o *op) parameters(conv *converter, r rawOp) (map[pkey]*yaml.Node, []pkey) {
	params := map[pkey]*yaml.Node{}
	var order []pkey
	for _, owner := range []*yaml.Node{r.PathNode, r.Node} {
		list := get(owner, "parameters")
		if list == nil || list.Kind != yaml.SequenceNode {
			continue
		}
		for _, pn := range list.Content {
			p, err := conv.followRef(pn)
			if err != nil {
				o.broken(err)
				continue
			}
			if p == nil || p.Kind != yaml.MappingNode {
				continue
			}
			k := pkey{str(p, "name"), str(p, "in")}
			if k.name == "" {
				o.warn("a parameter without a name (line %d) is skipped", p.Line)
				continue
			}
			if _, seen := params[k]; !seen {
				order = append(order, k)
			}
			params[k] = p
		}
	}
	return params, order
}

// templateNames are the parameters a URL template names, as a set and in
// order.
func templateNames(path string) (map[string]bool, []string) {
	template := map[string]bool{}
	var order []string
	for _, m := range templateRE.FindAllStringSubmatch(path, -1) {
		if !template[m[1]] {
			template[m[1]] = true
			order = append(order, m[1])
		}
	}
	return template, order
}

func inRank(in string) int {
	switch in {
	case "path":
		return 0
	case "query":
		return 1
	case "header":
		return 2
	}
	return 3
}

func (o *op) broken(err error) {
	if re, ok := err.(*refError); ok {
		o.Broken = append(o.Broken, re.Error())
		o.warn("%v; the operation is imported unmapped", re)
		return
	}
	o.Broken = append(o.Broken, err.Error())
	o.warn("%v; the operation is imported unmapped", err)
}

// convert converts a schema node, recording broken refs and notes.
func (o *op) convert(conv *converter, n *yaml.Node) any {
	if n == nil {
		return map[string]any{"type": "string"}
	}
	s, w := conv.Schema(n)
	for _, b := range w.broken {
		o.broken(b)
	}
	for _, note := range w.notes {
		if !slices.Contains(o.Notes, note) {
			o.Notes = append(o.Notes, note)
		}
	}
	o.warnOnce(w.warnings...)
	return s
}

// warnOnce adds the warnings the operation does not hold yet.
func (o *op) warnOnce(msgs ...string) {
	for _, m := range msgs {
		if !slices.Contains(o.Warnings, o.warning(m)) {
			o.warn("%s", m)
		}
	}
}

// paramSchema is a parameter's schema, or the schema of its one content
// entry.
func paramSchema(p *yaml.Node) *yaml.Node {
	if s := get(p, "schema"); s != nil {
		return s
	}
	if c := get(p, "content"); c != nil && c.Kind == yaml.MappingNode && len(c.Content) >= 2 {
		return get(c.Content[1], "schema")
	}
	return nil
}

// annotate adds a parameter's description and example to its schema.
func annotate(s any, desc string, example *yaml.Node) any {
	m, ok := s.(map[string]any)
	if !ok {
		return s
	}
	desc = trimText(desc, 500)
	_, hasDesc := m["description"]
	_, hasEx := m["examples"]
	if (desc == "" || hasDesc) && (example == nil || hasEx) {
		return s
	}
	m = clone(m)
	if desc != "" && !hasDesc {
		m["description"] = desc
	}
	if example != nil && !hasEx {
		if v, ok := value(example, 0); ok {
			m["examples"] = []any{v}
		}
	}
	return m
}

// body folds the request body into the arguments.
func (o *op) body(conv *converter, claim func(name, in string) string) {
	rb := get(o.Node, "requestBody")
	if rb == nil {
		return
	}
	rb, err := conv.followRef(rb)
	if err != nil {
		o.broken(err)
		return
	}
	required := str(rb, "required") == "true"
	content := get(rb, "content")
	if content == nil || content.Kind != yaml.MappingNode || len(content.Content) < 2 {
		return
	}
	ct, media := pickMedia(content)
	structured := isJSON(ct) || isForm(ct)
	if !structured {
		desc := "the request body (" + ct + ")"
		if d := trimText(str(rb, "description"), 300); d != "" {
			desc = d + " (" + ct + ")"
		}
		o.Args = append(o.Args, arg{Name: claim("body", inWhole), In: inWhole, Orig: "body",
			Schema: map[string]any{"type": "string", "description": desc}, Required: required})
		return
	}
	s := o.convert(conv, get(media, "schema"))
	o.Body = s
	props, req, ok := flattenObject(s, 0)
	if !ok || len(props) == 0 {
		if d := trimText(str(rb, "description"), 300); d != "" {
			s = annotate(s, d, nil)
		}
		o.Args = append(o.Args, arg{Name: claim("body", inWhole), In: inWhole, Orig: "body", Schema: s, Required: required})
		return
	}
	names := sortedKeys(props)
	for _, name := range names {
		ps := props[name]
		if m, ok := ps.(map[string]any); ok && m["readOnly"] == true {
			continue // the server sets it
		}
		// A property the body schema requires is required even when the
		// body itself is optional (Twilio's forms): a call that sends the
		// body must carry it, and a tool call always sends it.
		o.Args = append(o.Args, arg{Name: claim(name, "body"), In: inBody, Orig: name, Schema: ps,
			Required: slices.Contains(req, name)})
	}
}

// pickMedia prefers JSON, then forms, then whatever comes first.
func pickMedia(content *yaml.Node) (string, *yaml.Node) {
	best, rank := -1, 99
	for i := 0; i+1 < len(content.Content); i += 2 {
		ct := strings.ToLower(content.Content[i].Value)
		r := 3
		switch {
		case isJSON(ct):
			r = 0
		case strings.HasPrefix(ct, "application/x-www-form-urlencoded"):
			r = 1
		case strings.HasPrefix(ct, "multipart/"):
			r = 2
		}
		if r < rank {
			best, rank = i, r
		}
	}
	return content.Content[best].Value, deref(content.Content[best+1])
}

func isJSON(ct string) bool {
	ct = strings.ToLower(ct)
	return strings.Contains(ct, "json") || ct == "*/*"
}

func isForm(ct string) bool {
	ct = strings.ToLower(ct)
	return strings.HasPrefix(ct, "application/x-www-form-urlencoded") || strings.HasPrefix(ct, "multipart/")
}

// flattenObject merges an object schema's properties through allOf
// (all required) and anyOf/oneOf (required only where every branch
// requires). ok is false when the schema is not an object.
func flattenObject(s any, depth int) (props map[string]any, required []string, ok bool) {
	m, isMap := s.(map[string]any)
	if !isMap || depth > 8 {
		return nil, nil, false
	}
	props = map[string]any{}
	if p, has := m["properties"].(map[string]any); has {
		maps.Copy(props, p)
		ok = true
	}
	// A branch's property adds to the object's own, never replaces one.
	merge := func(bp map[string]any) {
		for k, v := range bp {
			if _, dup := props[k]; !dup {
				props[k] = v
			}
		}
	}
	if hasType(m, "object") {
		ok = true
	}
	for _, r := range asList(m["required"]) {
		if s, isStr := r.(string); isStr {
			required = append(required, s)
		}
	}
	if all, has := m["allOf"].([]any); has {
		for _, b := range all {
			bp, br, bok := flattenObject(b, depth+1)
			if !bok {
				continue
			}
			ok = true
			merge(bp)
			required = append(required, br...)
		}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		alts, has := m[key].([]any)
		if !has {
			continue
		}
		var common []string
		first := true
		for _, b := range alts {
			if bm, isMap := b.(map[string]any); isMap && hasType(bm, "null") && len(bm) == 1 {
				continue
			}
			bp, br, bok := flattenObject(b, depth+1)
			if !bok {
				continue
			}
			ok = true
			merge(bp)
			if first {
				common, first = slices.Clone(br), false
			} else {
				common = slices.DeleteFunc(common, func(r string) bool { return !slices.Contains(br, r) })
			}
		}
		required = append(required, common...)
	}
	slices.Sort(required)
	required = slices.Compact(required)
	required = slices.DeleteFunc(required, func(r string) bool { _, has := props[r]; return !has })
	return props, required, ok
}

// hasType reports whether the schema's type, or one of its list of
// types, is one of ts.
func hasType(m map[string]any, ts ...string) bool {
	switch v := m["type"].(type) {
	case string:
		return slices.Contains(ts, v)
	case []any:
		return slices.ContainsFunc(v, func(t any) bool { s, ok := t.(string); return ok && slices.Contains(ts, s) })
	}
	return false
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// paramsSchema folds the arguments into one object schema.
func paramsSchema(args []arg) map[string]any {
	props := map[string]any{}
	var req []any
	for _, a := range args {
		props[a.Name] = a.Schema
		if a.Required {
			req = append(req, a.Name)
		}
	}
	out := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(req) > 0 {
		out["required"] = req
	}
	return out
}

var argRE = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

// argName makes a property name OpenAI accepts: ^[a-zA-Z0-9_-]{1,64}$.
func argName(s string) string {
	s = strings.Trim(argRE.ReplaceAllString(s, "_"), "_")
	s = cmp.Or(s, "arg")
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}

var (
	identRE       = regexp.MustCompile(`[^a-zA-Z0-9_]+`)
	underscoresRE = regexp.MustCompile(`__+`)
)

// Names a tool cannot take: Starlark keywords and the builtins and
// globals handlers use, since each tool is a top-level def.
var reserved = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`and as assert async await break class continue def del elif else except
		finally for from global if import in is lambda load nonlocal not or pass raise return try while with yield
		True False None abs any all bool bytes dir enumerate fail float getattr hasattr hash int len list max min
		print range repr reversed sorted str tuple type zip dict set db args json math NOW random struct`) {
		m[w] = true
	}
	return m
}()

// toolName makes a tool name that is both an OpenAI function name
// (^[a-zA-Z0-9_-]{1,64}$) and a Starlark identifier, from the
// operationId, or when there is none from what the operation does.
func toolName(o *op) string {
	if o.ID == "" {
		return derivedNames(o.Method, o.Path)[0]
	}
	return identName(o.ID, o.Method)
}

// identName cleans a name into an identifier.
func identName(base, method string) string {
	s := strings.Trim(underscoresRE.ReplaceAllString(identRE.ReplaceAllString(base, "_"), "_"), "_")
	s = cmp.Or(s, method)
	if s[0] >= '0' && s[0] <= '9' {
		s = "op_" + s
	}
	if reserved[s] {
		s += "_op"
	}
	if len(s) > 64 {
		s = strings.TrimRight(s[:64], "_")
	}
	return s
}

var versionSegRE = regexp.MustCompile(`^(v\d+([._]\d+)*|api|rest)$`)

// derivedNames names an operation that has no operationId after what it
// does, most readable first: GET /pets → list_pets, POST /pets →
// create_pet, GET /pets/{id} → get_pet, GET /pets/{id}/photos →
// list_pet_photos, POST /batches/{id}/cancel → cancel_batch, GET
// /users/me → get_users_me. Later names add more of the path, for when
// the first is taken; the last is the method and the whole path.
func derivedNames(method, path string) []string {
	var segs []segment
	for _, s := range segments(path) {
		if s.Lit != "" && versionSegRE.MatchString(strings.ToLower(s.Lit)) {
			continue
		}
		segs = append(segs, s)
	}
	full := identName(method+"_"+strings.NewReplacer("{", "", "}", "").Replace(path), method)
	// The resource words, innermost first: the last literal and, going
	// out, the literals before it (singular when an id follows them).
	var words []string
	item := len(segs) > 0 && segs[len(segs)-1].Param != ""
	last := -1
	for i := len(segs) - 1; i >= 0; i-- {
		if segs[i].Lit != "" {
			last = i
			break
		}
	}
	if last < 0 {
		return []string{full}
	}
	verb, noun := pathVerb(method, segs, last, item)
	if noun != "" && (item || verb != "list") {
		noun = singular(noun)
	}
	if noun != "" {
		words = append(words, noun)
	}
	words = append(words, outerWords(segs, last)...)
	var out []string
	for n := 1; n <= len(words); n++ {
		parts := []string{verb}
		for i := n - 1; i >= 0; i-- {
			parts = append(parts, words[i])
		}
		out = append(out, identName(strings.Join(parts, "_"), method))
	}
	if len(words) == 0 {
		out = append(out, identName(verb, method))
	}
	// A nested resource reads better with its parent: list_pet_photos.
	if len(words) >= 2 && segs[last-1].Param != "" || len(words) >= 2 && !item && last > 0 && segs[last-1].Lit != "" {
		out = out[1:]
	}
	return append(out, full)
}

// pathVerb is the verb a method on the path's last literal names, and the
// noun the name keeps (none when the literal is itself the action).
func pathVerb(method string, segs []segment, last int, item bool) (verb, noun string) {
	noun = pathWord(segs[last].Lit)
	plural := singular(noun) != noun
	switch method {
	case "get":
		verb = "get"
		if !item && plural {
			verb = "list"
		}
	case "post":
		switch {
		case item:
			verb = "update"
		case plural:
			verb = "create"
		case last > 0 && segs[last-1].Param != "" || len(segs) == 1:
			// POST /batches/{id}/cancel, POST /login: the word is the action.
			verb, noun = noun, ""
		default:
			verb = "create"
		}
	case "put", "patch":
		verb = "update"
	case "delete":
		verb = "delete"
	case "head":
		verb = "check"
	default:
		verb = method
	}
	return verb, noun
}

// outerWords are the literals before the noun, innermost first, each made
// singular when an id follows it (the parent record).
func outerWords(segs []segment, last int) []string {
	var words []string
	for i := last - 1; i >= 0; i-- {
		if segs[i].Lit == "" {
			continue
		}
		w := pathWord(segs[i].Lit)
		if i+1 < len(segs) && segs[i+1].Param != "" {
			w = singular(w)
		}
		words = append(words, w)
	}
	return words
}

// pathWord is a path segment in snake case ("1-clicks" → "1_clicks").
func pathWord(s string) string {
	w := snake(s)
	if strings.HasPrefix(w, "c_") && !strings.HasPrefix(strings.ToLower(s), "c") {
		w = w[2:]
	}
	return w
}

// nameTools gives every operation a unique tool name. An operationId
// that is taken gets a number, with a warning; a derived name first
// takes more of its path.
func nameTools(ops []*op) {
	used := map[string]bool{}
	for _, o := range ops {
		if o.ID == "" {
			for _, cand := range derivedNames(o.Method, o.Path) {
				if !used[cand] {
					o.Tool = cand
					break
				}
			}
			if o.Tool != "" {
				used[o.Tool] = true
				continue
			}
		}
		n := toolName(o)
		if used[n] {
			base := n
			if len(base) > 60 {
				base = base[:60]
			}
			for i := 2; used[n]; i++ {
				n = fmt.Sprintf("%s_%d", base, i)
			}
			if o.ID != "" {
				o.warn("tool name %q is taken; named %q", toolName(o), n)
			}
		}
		used[n] = true
		o.Tool = n
	}
}
