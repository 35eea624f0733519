package openapi

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pb33f/go-yaml"
)

// Handler kinds.
const (
	hList     = "list"
	hGet      = "get"
	hCreate   = "create"
	hUpdate   = "update"
	hDelete   = "delete"
	hUnmapped = "unmapped"
)

// plan is how an operation's handler works.
type plan struct {
	Kind   string
	Coll   *collection
	Reason string // why unmapped
	KeyArg string // the argument holding the record key
	// Scope maps path arguments of the collection path to record fields
	// (the parent ids of a nested resource).
	Scope map[string]string
	// Fields maps arguments to the record fields they set (create,
	// update) or filter on (list).
	Fields map[string]string
	// Paging arguments of a list ("" when absent); PageBase is 0 or 1.
	Limit, Offset, Page string
	PageBase            int
	// PageSize is how many records a list returns when the call does
	// not say (the limit parameter's default, else 20); 0: all of them,
	// since the tool has no way to ask for more.
	PageSize int
	// Items names the list in the result: the spec's envelope property
	// ("ssh_keys", "data"), else the path's last word.
	Items  string
	Upsert bool // PUT on an item creates a missing record
	// Adds is, for a call on an item that sets nothing in a collection
	// nothing creates or that holds only links (PUT /guilds/{guild_id}/
	// members/{user_id}/roles/{role_id}), the collection whose records
	// its key names (the guild's roles): the call adds that one to the
	// parent.
	Adds *collection
	// Each is the list argument of a tool over several records (MCP's
	// create_entities): its elements or keys. KeyFields are the element
	// fields a created record's key is made of (joined by "|" when
	// several). Ref, From and Into: the element field naming a record,
	// its list of values, and the record's list they go to or leave.
	Each            string
	KeyFields       []string
	Ref, From, Into string
	// Query is a search's free-text argument; All the collections a
	// read of everything returns.
	Query string
	All   []*collection
	// Stamp is, for a call on an item that sets nothing and adds
	// nothing (PUT /guilds/{guild_id}/templates/{code}, a sync), the
	// record's update time, which the call sets to the pack clock.
	Stamp string
}

// segment is one piece of a URL template.
type segment struct {
	Lit   string
	Param string
}

func segments(path string) []segment {
	var out []segment
	for _, s := range strings.Split(path, "/") {
		if s == "" {
			continue
		}
		if len(s) > 2 && s[0] == '{' && s[len(s)-1] == '}' && !strings.ContainsAny(s[1:len(s)-1], "{}") {
			out = append(out, segment{Param: s[1 : len(s)-1]})
		} else {
			out = append(out, segment{Lit: s})
		}
	}
	return out
}

// shape is a template with parameter names erased: /users/{}/posts.
func shape(segs []segment) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		if s.Param != "" {
			b.WriteString("{}")
		} else {
			b.WriteString(s.Lit)
		}
	}
	return b.String()
}

func params(segs []segment) []string {
	var out []string
	for _, s := range segs {
		if s.Param != "" {
			out = append(out, s.Param)
		}
	}
	return out
}

// collection is a resource found in the paths.
type collection struct {
	Name     string
	Noun     string
	Shape    string // collection path shape
	HasItem  bool   // an item path exists
	KeyParam string // the item path parameter
	Key      string // the record field holding the key
	KeyType  string // "integer" or "string"
	// KeySchema constrains generated keys (the item path parameter's
	// schema) so they are valid tool arguments.
	KeySchema any
	Scope     []scopeField
	Parent    *collection
	// Props are the record's properties (flattened item schema plus the
	// key and scope fields).
	Props map[string]any
	Tools struct{ Get, List string }
	// fresh are unused keys handed out by create, so new keys match the
	// key's pattern.
	fresh []string
	// Summary are the fields a list shows of each record when whole
	// records would make a long result and a get tool gives the rest;
	// nil: whole records.
	Summary []string
	// Within are the scope fields a record is keyed within, for a
	// membership whose key is another record's (a role many members
	// hold): its database key is their values and the key's, joined
	// by "/" (pack.Collection.Within).
	Within []string
}

// scopeField is a path parameter of a nested collection's path and the
// record field it fills.
type scopeField struct {
	Param  string
	Field  string
	Schema any
}

// opsOf are the operations on one collection shape: on the collection
// path itself and on its item path, in document order.
type opsOf struct{ coll, item []*op }

// analyse finds the collections and plans every operation's handler. It
// indexes operations by path shape once, so its cost grows with the
// number of operations, not with operations times collections.
func analyse(ctx context.Context, conv *converter, ops []*op) ([]*collection, error) {
	byOps, err := groupOps(ctx, conv, ops)
	if err != nil {
		return nil, err
	}
	colls, byShape := findCollections(ops)
	for _, c := range colls {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c.describe(conv, byOps[c.Shape])
	}
	for _, c := range colls {
		// The parent is the collection whose item the last scope param names.
		segs := segments(strings.ReplaceAll(c.Shape, "{}", "{x}"))
		for i := len(segs) - 1; i >= 1; i-- {
			if segs[i].Param != "" {
				c.Parent = byShape[shape(segs[:i])]
				break
			}
		}
	}
	nameCollections(colls)
	for _, c := range colls {
		c.fields()
	}
	used := planHandlers(ops, byShape)
	// A collection no operation uses is dropped.
	colls = slices.DeleteFunc(colls, func(c *collection) bool { return !used[c] })
	emptyCalls(ops, colls)
	return colls, nil
}

// groupOps files each operation under its path's shape, as an operation
// on the collection or on an item of it, and reads the response shape of
// each GET.
func groupOps(ctx context.Context, conv *converter, ops []*op) (map[string]*opsOf, error) {
	byOps := map[string]*opsOf{}
	at := func(sh string) *opsOf {
		if byOps[sh] == nil {
			byOps[sh] = &opsOf{}
		}
		return byOps[sh]
	}
	for _, o := range ops {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		o.segs = segments(o.Path)
		o.shape = shape(o.segs)
		at(o.shape).coll = append(at(o.shape).coll, o)
		if n := len(o.segs); n >= 2 && o.segs[n-1].Param != "" {
			sh := shape(o.segs[:n-1])
			at(sh).item = append(at(sh).item, o)
		}
		if o.Method == "get" {
			s, ok := response(conv, o)
			o.respKnown = ok
			if ok {
				_, o.listField, o.respList = listEnvelope(s)
			}
		}
	}
	return byOps, nil
}

// findCollections makes a resource of each item path (.../things/{id})
// and of each list-only GET that returns an array of objects, in the
// order the operations name them.
func findCollections(ops []*op) ([]*collection, map[string]*collection) {
	byShape := map[string]*collection{}
	var colls []*collection
	add := func(sh string, segs []segment) *collection {
		if c, ok := byShape[sh]; ok {
			return c
		}
		c := &collection{Shape: sh, Props: map[string]any{}}
		for _, p := range params(segs) {
			c.Scope = append(c.Scope, scopeField{Param: p})
		}
		byShape[sh] = c
		colls = append(colls, c)
		return c
	}
	for _, o := range ops {
		segs := o.segs
		if n := len(segs); n >= 2 && segs[n-1].Param != "" && segs[n-2].Lit != "" {
			c := add(shape(segs[:n-1]), segs[:n-1])
			c.HasItem = true
			if c.KeyParam == "" {
				c.KeyParam = segs[n-1].Param
			}
		}
	}
	for _, o := range ops {
		segs := o.segs
		if o.Method != "get" || len(segs) == 0 || segs[len(segs)-1].Lit == "" || len(o.Broken) > 0 {
			continue
		}
		if _, ok := byShape[o.shape]; ok {
			continue
		}
		// GET /pets/findByStatus searches pets; it is not a resource.
		if p := byShape[shape(segs[:len(segs)-1])]; p != nil && p.HasItem {
			continue
		}
		if o.respList {
			add(o.shape, segs)
		}
	}
	return colls, byShape
}

// planHandlers plans each operation's handler, records each collection's
// first get and unscoped list tool, and returns the collections some
// operation uses.
func planHandlers(ops []*op, byShape map[string]*collection) map[*collection]bool {
	used := map[*collection]bool{}
	for _, o := range ops {
		o.Handler = planOp(o, byShape)
		c := o.Handler.Coll
		if c == nil {
			continue
		}
		used[c] = true
		switch o.Handler.Kind {
		case hGet:
			c.Tools.Get = cmp.Or(c.Tools.Get, o.Tool)
		case hList:
			if c.Tools.List == "" && len(o.Handler.Scope) == 0 {
				c.Tools.List = o.Tool
			}
		}
	}
	return used
}

// link reports whether c's records hold nothing but their key and
// parents (an agent's knowledge base), a membership whatever else
// makes them.
func (c *collection) link() bool {
	for f := range c.Props {
		if f != c.Key && !slices.ContainsFunc(c.Scope, func(sf scopeField) bool { return sf.Field == f }) {
			return false
		}
	}
	return true
}

// emptyCalls gives a meaning to the PUTs and POSTs on an item that
// set nothing. In a collection no operation creates, or one holding
// only links, they add a membership (a role to a member, a pin to a
// channel): the record at the key the customer names, drawn from the
// collection the key names within the same parents, which the handler
// makes. On a record the API creates that says when it last changed,
// they sync it (a guild's template): the handler sets that time to the
// pack clock.
func emptyCalls(ops []*op, colls []*collection) {
	created := map[*collection]bool{}
	for _, o := range ops {
		if o.Handler.Kind == hCreate {
			created[o.Handler.Coll] = true
		}
	}
	for _, o := range ops {
		p := &o.Handler
		if p.Kind != hUpdate || len(p.Fields) > 0 || o.Method != "put" && o.Method != "post" || p.KeyArg == "" {
			continue
		}
		n := len(o.segs)
		if n == 0 || o.segs[n-1].Param == "" {
			continue
		}
		if k := keyNamed(o.segs[n-1].Param, p.Coll, params(o.segs), colls); k != nil && (!created[p.Coll] || p.Coll.link()) {
			p.Adds, p.Upsert = k, true
			if !created[p.Coll] {
				keyedWithin(p.Coll, ops)
			}
		} else if f := p.Coll.updateTime(); f != "" && created[p.Coll] {
			// A sync of a record the API makes: what changes is when
			// it was last brought up to date.
			p.Stamp, p.Upsert = f, false
		}
	}
}

// keyedWithin keys a membership nothing creates within its parents: its
// key is another collection's (role 0), which the parents' other records
// hold too, so keyed alone adding role 0 to one member would replace
// another's. Every call naming one must then name all its parents, and
// none reads it (a read finds a record by its key alone: pins, which a
// channel's list shows, stay keyed by their message).
func keyedWithin(c *collection, ops []*op) {
	if len(c.Scope) == 0 || c.Within != nil {
		return
	}
	for _, o := range ops {
		p := o.Handler
		if p.Coll == c && (p.Kind == hGet || p.Kind == hList) {
			return
		}
		if p.Coll != c || p.KeyArg == "" {
			continue
		}
		for _, sf := range c.Scope {
			if withinArg(p, sf.Field) == "" {
				return
			}
		}
	}
	for _, sf := range c.Scope {
		c.Within = append(c.Within, sf.Field)
	}
}

// withinArg is the argument of a call that names a parent field, "" for
// none.
func withinArg(p plan, field string) string {
	for _, a := range sortedKeys(p.Scope) {
		if p.Scope[a] == field {
			return a
		}
	}
	return ""
}

// updateTime is the date-time field saying when a record last changed
// (updated_at, modifiedAt), "" when it has none.
func (c *collection) updateTime() string {
	for _, f := range sortedKeys(c.Props) {
		m, _ := c.Props[f].(map[string]any)
		if n := norm(f); m != nil && m["format"] == "date-time" && (strings.Contains(n, "updated") || strings.Contains(n, "modified")) {
			return f
		}
	}
	return ""
}

// keyNamed is the collection whose records a path parameter's name
// names (role_id: a role, knowledge_base_uuid: a knowledge base) and
// whose parents are all among the path's parameters, the one read
// within most of them; nil when none is.
func keyNamed(param string, self *collection, pathParams []string, colls []*collection) *collection {
	base := norm(param)
	for _, suffix := range []string{"uuid", "sid", "id"} {
		if b, ok := strings.CutSuffix(base, suffix); ok && b != "" {
			base = b
			break
		}
	}
	var best *collection
	for _, c := range colls {
		if c == self || norm(c.Noun) != base || !c.HasItem {
			continue
		}
		if slices.ContainsFunc(c.Scope, func(sf scopeField) bool { return !slices.Contains(pathParams, sf.Param) }) {
			continue
		}
		if best == nil || len(c.Scope) > len(best.Scope) {
			best = c
		}
	}
	return best
}

// describe finds the record schema: the item GET's response, the list's
// items, then the create or update body.
func (c *collection) describe(conv *converter, on *opsOf) {
	if on == nil {
		on = &opsOf{}
	}
	var cands []any
	var keyOp *op
	if len(on.item) > 0 {
		keyOp = on.item[0]
	}
	for _, o := range on.item {
		if o.Method == "get" {
			if s, ok := response(conv, o); ok {
				cands = append(cands, unwrapRecord(s))
			}
		}
	}
	for _, o := range on.coll {
		if o.Method == "get" {
			if s, ok := listItems(conv, o); ok {
				cands = append(cands, s)
			}
		}
	}
	// Bodies in document order, collection POSTs and item PUT/PATCHes
	// alike.
	var bodies []*op
	for _, o := range on.coll {
		if o.Method == "post" && o.Body != nil {
			bodies = append(bodies, o)
		}
	}
	for _, o := range on.item {
		if (o.Method == "put" || o.Method == "patch") && o.Body != nil {
			bodies = append(bodies, o)
		}
	}
	slices.SortStableFunc(bodies, func(a, b *op) int { return a.index - b.index })
	for _, o := range bodies {
		cands = append(cands, o.Body)
	}
	for _, s := range cands {
		props, _, ok := flattenObject(s, 0)
		if ok && len(props) > 0 {
			maps.Copy(c.Props, props)
			break
		}
	}
	// The key parameter's schema, and the scope parameters'.
	if keyOp != nil {
		if a := keyOp.argFor(inPath, c.KeyParam); a != nil {
			c.KeySchema = a.Schema
		}
		ps := params(keyOp.segs[:len(keyOp.segs)-1])
		for i := range c.Scope {
			if i < len(ps) {
				if a := keyOp.argFor(inPath, ps[i]); a != nil {
					c.Scope[i].Schema = a.Schema
				}
			}
		}
	}
}

// fields settles the key and scope fields of the records.
func (c *collection) fields() {
	if c.KeyParam != "" {
		c.Key = matchField(c.KeyParam, c.Props, true)
		c.Key = cmp.Or(c.Key, c.KeyParam)
	} else {
		for _, k := range []string{"id", "uuid", "key", "sid", "name", "slug", "code"} {
			if f := matchField(k, c.Props, false); f != "" {
				c.Key = f
				break
			}
		}
		c.Key = cmp.Or(c.Key, "id")
	}
	if c.KeySchema == nil {
		if s, ok := c.Props[c.Key]; ok {
			c.KeySchema = s
		} else {
			c.KeySchema = map[string]any{"type": "string"}
		}
	}
	if _, ok := c.Props[c.Key]; !ok {
		c.Props[c.Key] = c.KeySchema
	}
	c.KeyType = "string"
	if m, ok := c.KeySchema.(map[string]any); ok && hasType(m, "integer", "number") && !hasType(m, "string") {
		c.KeyType = "integer"
	}
	for i := range c.Scope {
		sf := &c.Scope[i]
		sf.Field = matchField(sf.Param, c.Props, false)
		if sf.Field == "" {
			sf.Field = sf.Param
			if norm(sf.Param) == "id" {
				parent := "parent"
				if c.Parent != nil && i == len(c.Scope)-1 {
					parent = c.Parent.Noun
				}
				sf.Field = snake(parent) + "_id"
			}
		}
		if sf.Field == c.Key {
			sf.Field = "parent_" + sf.Field
		}
		if sf.Schema == nil {
			sf.Schema = map[string]any{"type": "string"}
		}
		if _, ok := c.Props[sf.Field]; !ok {
			c.Props[sf.Field] = sf.Schema
		}
	}
}

// matchField finds the record property a parameter names: the same
// name up to case and separators, or (for keys) an id-like property
// the name ends with ("petId" → "id", "ServiceSid" → "sid").
func matchField(param string, props map[string]any, key bool) string {
	np := norm(param)
	if key {
		np = normKey(param)
	}
	for _, k := range sortedKeys(props) {
		if norm(k) == np {
			return k
		}
	}
	if !key {
		return ""
	}
	best := ""
	for _, k := range sortedKeys(props) {
		nk := norm(k)
		idLike := strings.HasSuffix(nk, "id") || nk == "key" || nk == "name" || nk == "slug" || nk == "code"
		if idLike && strings.HasSuffix(np, nk) && len(nk) > len(norm(best)) {
			best = k
		}
	}
	return best
}

func norm(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// normKey is norm with "identifier" read as "id" ("ssh_key_identifier"
// names a key's "id").
func normKey(s string) string {
	n := norm(s)
	if strings.HasSuffix(n, "identifier") {
		n = strings.TrimSuffix(n, "entifier")
	}
	return n
}

// snake turns a path segment or name into snake_case ASCII.
func snake(s string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			if prevLower {
				b.WriteByte('_')
			}
			b.WriteRune(r + 'a' - 'A')
			prevLower = false
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			prevLower = true
		default:
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
			prevLower = false
		}
	}
	out := strings.Trim(b.String(), "_")
	if out == "" || out[0] >= '0' && out[0] <= '9' {
		out = "c_" + out
	}
	return out
}

// pluralWord is a naive English plural of a snake_case noun.
func pluralWord(s string) string {
	switch {
	case s == "":
		return "items"
	case singular(s) != s:
		return s
	case strings.HasSuffix(s, "y") && len(s) > 2 && !strings.ContainsAny(s[len(s)-2:len(s)-1], "aeiou"):
		return s[:len(s)-1] + "ies"
	case strings.HasSuffix(s, "s"), strings.HasSuffix(s, "x"), strings.HasSuffix(s, "ch"), strings.HasSuffix(s, "sh"):
		return s + "es"
	}
	return s + "s"
}

// singular is a naive English singular, good enough for nouns in paths.
func singular(s string) string {
	switch {
	case strings.HasSuffix(s, "ies") && len(s) > 4:
		return s[:len(s)-3] + "y"
	case strings.HasSuffix(s, "sses"), strings.HasSuffix(s, "xes"), strings.HasSuffix(s, "ches"), strings.HasSuffix(s, "shes"):
		return s[:len(s)-2]
	case strings.HasSuffix(s, "ss"), strings.HasSuffix(s, "us"), singularIs(s):
		return s
	case strings.HasSuffix(s, "s") && len(s) > 2:
		return s[:len(s)-1]
	}
	return s
}

// nameCollections names each collection after its last literal segment,
// prefixing parents' segments until names are unique.
func nameCollections(colls []*collection) {
	lits := func(c *collection) []string {
		var out []string
		for _, s := range strings.Split(c.Shape, "/") {
			if s != "" && s != "{}" {
				out = append(out, snake(s))
			}
		}
		return out
	}
	depth := make([]int, len(colls))
	for i := range depth {
		depth[i] = 1
	}
	name := func(i int) string {
		l := lits(colls[i])
		d := min(depth[i], len(l))
		return strings.Join(l[len(l)-d:], "_")
	}
	for round := 0; round < 8; round++ {
		seen := map[string][]int{}
		for i := range colls {
			seen[name(i)] = append(seen[name(i)], i)
		}
		clash := false
		for _, idx := range seen {
			if len(idx) > 1 {
				clash = true
				for _, i := range idx {
					depth[i]++
				}
			}
		}
		if !clash {
			break
		}
	}
	used := map[string]bool{}
	for i, c := range colls {
		n := name(i)
		if len(n) > 48 {
			n = n[len(n)-48:]
			n = strings.TrimLeft(n, "_")
		}
		base := n
		for j := 2; used[n]; j++ {
			n = fmt.Sprintf("%s_%d", base, j)
		}
		used[n] = true
		c.Name = n
		l := lits(c)
		c.Noun = strings.ReplaceAll(singular(l[len(l)-1]), "_", " ")
	}
}

// response is the JSON schema of an operation's first 2xx response.
func response(conv *converter, o *op) (any, bool) {
	rs := get(o.Node, "responses")
	if rs == nil || rs.Kind != yaml.MappingNode {
		return nil, false
	}
	var best *yaml.Node
	bestCode := ""
	for i := 0; i+1 < len(rs.Content); i += 2 {
		code := strings.ToUpper(rs.Content[i].Value)
		if len(code) == 3 && code[0] == '2' && (bestCode == "" || code < bestCode) {
			best, bestCode = rs.Content[i+1], code
		}
	}
	if best == nil {
		return nil, false
	}
	r, err := conv.followRef(best)
	if err != nil {
		msg := fmt.Sprintf("its %s response: %v; the record fields come from the other operations", bestCode, err)
		if !slices.Contains(o.Warnings, o.warning(msg)) {
			o.warn("%s", msg)
		}
		return nil, false
	}
	if r == nil {
		return nil, false
	}
	content := get(r, "content")
	if content == nil || content.Kind != yaml.MappingNode || len(content.Content) < 2 {
		return nil, false
	}
	ct, media := pickMedia(content)
	if !isJSON(ct) {
		return nil, false
	}
	sn := get(media, "schema")
	if sn == nil {
		return nil, false
	}
	s, w := conv.Schema(sn)
	for _, msg := range w.warnings {
		o.warnOnce(fmt.Sprintf("its %s response: %s", bestCode, msg))
	}
	if len(w.broken) > 0 {
		// The tool still works (its arguments are whole); only the shape
		// of what it returns is unknown.
		msg := fmt.Sprintf("its %s response: %v; the record fields come from the other operations", bestCode, w.broken[0])
		if !slices.Contains(o.Warnings, o.warning(msg)) {
			o.warn("%s", msg)
		}
		return nil, false
	}
	return s, true
}

// envelopeKeys are the properties of a response envelope that are not
// the record: paging links and metadata.
var envelopeKeys = map[string]bool{"links": true, "_links": true, "meta": true, "_meta": true, "metadata": true,
	"request_id": true, "requestid": true, "status": false}

// unwrapRecord takes the record out of an envelope: a response that is
// an object with one object property ({"ssh_key": {...}}, {"data":
// {...}}) besides links and metadata is that property.
func unwrapRecord(s any) any {
	props, _, ok := flattenObject(s, 0)
	if !ok {
		return s
	}
	var inner any
	n := 0
	for _, k := range sortedKeys(props) {
		if envelopeKeys[norm(k)] {
			continue
		}
		p, _, isObj := flattenObject(props[k], 0)
		if !isObj || len(p) == 0 {
			return s
		}
		inner = props[k]
		n++
	}
	if n != 1 {
		return s
	}
	return inner
}

// listItems is the item schema of a list response: an array of objects,
// or an object wrapping exactly one such array ({"data": [...], "meta"}).
func listItems(conv *converter, o *op) (any, bool) {
	s, ok := response(conv, o)
	if !ok {
		return nil, false
	}
	return listItemsOf(s)
}

func listItemsOf(s any) (any, bool) {
	it, _, ok := listEnvelope(s)
	return it, ok
}

// listEnvelope is listItemsOf with the property that holds the list
// ("" when the response is the array itself).
func listEnvelope(s any) (any, string, bool) {
	if it, ok := arrayOfObjects(s); ok {
		return it, "", true
	}
	props, _, ok := flattenObject(s, 0)
	if !ok {
		return nil, "", false
	}
	var found any
	field := ""
	n := 0
	for _, k := range sortedKeys(props) {
		if it, ok := arrayOfObjects(props[k]); ok {
			found, field = it, k
			n++
		}
	}
	return found, field, n == 1
}

func arrayOfObjects(s any) (any, bool) {
	m, ok := s.(map[string]any)
	if !ok || !hasType(m, "array") {
		return nil, false
	}
	props, _, ok := flattenObject(m["items"], 0)
	return m["items"], ok && len(props) > 0
}

// planOp decides an operation's handler.
func planOp(o *op, byShape map[string]*collection) plan {
	if len(o.Broken) > 0 {
		return plan{Kind: hUnmapped, Reason: "its schema has unresolved $refs: " + strings.Join(o.Broken, "; ")}
	}
	segs := o.segs
	n := len(segs)
	var c *collection
	item := false
	switch {
	case n >= 2 && segs[n-1].Param != "" && segs[n-2].Lit != "" && byShape[shape(segs[:n-1])] != nil:
		c, item = byShape[shape(segs[:n-1])], true
	case n >= 1 && byShape[shape(segs)] != nil:
		c = byShape[shape(segs)]
	case n >= 2 && segs[n-1].Lit != "" && o.Method == "get" && byShape[shape(segs[:n-1])] != nil && byShape[shape(segs[:n-1])].HasItem:
		// A search under a collection: GET /pets/findByStatus.
		p := plan{Kind: hList, Coll: byShape[shape(segs[:n-1])]}
		if o.respList {
			p.scope(o, segs[:n-1])
			p.filters(o)
			return p
		}
		return plan{Kind: hUnmapped, Reason: "GET " + o.Path + " does not return a list of " + p.Coll.Name}
	}
	if c == nil {
		return plan{Kind: hUnmapped, Reason: "the path is not a collection (/things) or item (/things/{id}) of a resource"}
	}
	p := plan{Coll: c}
	if item {
		p.scope(o, segs[:n-1])
		if a := o.argFor(inPath, segs[n-1].Param); a != nil {
			p.KeyArg = a.Name
		}
		switch o.Method {
		case "get":
			p.Kind = hGet
		case "delete":
			p.Kind = hDelete
		case "put", "patch", "post":
			p.Kind = hUpdate
			p.Upsert = o.Method == "put"
			p.sets(o)
			p.keepKey()
		default:
			return plan{Kind: hUnmapped, Reason: strings.ToUpper(o.Method) + " on an item has no data meaning"}
		}
		if p.KeyArg == "" {
			return plan{Kind: hUnmapped, Reason: "the item's path parameter is not an argument"}
		}
		return p
	}
	p.scope(o, segs)
	switch o.Method {
	case "get":
		if !o.isList() && c.HasItem {
			return plan{Kind: hUnmapped, Reason: "GET " + o.Path + " does not return a list of " + c.Name}
		}
		p.Kind = hList
		p.filters(o)
	case "post":
		p.Kind = hCreate
		p.sets(o)
	case "put", "patch":
		// PUT /pet with the pet's id in the body updates that pet.
		p.Kind = hUpdate
		p.sets(o)
		for a, f := range p.Fields {
			if f == c.Key {
				p.KeyArg = a
			}
		}
		if p.KeyArg == "" {
			return plan{Kind: hUnmapped, Reason: strings.ToUpper(o.Method) + " on the whole collection " + c.Name + " (no key field in the body)"}
		}
		p.keepKey()
	default:
		return plan{Kind: hUnmapped, Reason: strings.ToUpper(o.Method) + " on the whole collection " + c.Name + " is a bulk operation"}
	}
	return p
}

// isList reports whether a GET returns a list of records (a GET without
// a JSON response is taken to be one: it is the best guess).
func (o *op) isList() bool {
	return !o.respKnown || o.respList
}

// scope maps the path arguments of the collection path to scope fields.
func (p *plan) scope(o *op, collSegs []segment) {
	ps := params(collSegs)
	for i, name := range ps {
		if i >= len(p.Coll.Scope) {
			break
		}
		if a := o.argFor(inPath, name); a != nil {
			if p.Scope == nil {
				p.Scope = map[string]string{}
			}
			p.Scope[a.Name] = p.Coll.Scope[i].Field
		}
	}
}

// sets maps body (and query) arguments to the record fields they set.
func (p *plan) sets(o *op) {
	p.Fields = map[string]string{}
	for _, a := range o.Args {
		switch a.In {
		case inBody:
			if f := matchField(a.Orig, p.Coll.Props, false); f != "" {
				p.Fields[a.Name] = f
			} else {
				p.Fields[a.Name] = a.Orig
			}
		case inQuery:
			// Old-style updates send fields as query parameters
			// (POST /pet/{petId}?name=...&status=...).
			if f := matchField(a.Orig, p.Coll.Props, false); f != "" && f != p.Coll.Key {
				p.Fields[a.Name] = f
			}
		}
	}
}

// keepKey stops an update from changing the key or the parent ids: the
// record's key must stay equal to its database key.
func (p *plan) keepKey() {
	fixed := map[string]bool{p.Coll.Key: true}
	for _, sf := range p.Coll.Scope {
		fixed[sf.Field] = true
	}
	for a, f := range p.Fields {
		if fixed[f] && a != p.KeyArg {
			delete(p.Fields, a)
		}
	}
	if f, ok := p.Fields[p.KeyArg]; ok && f == p.Coll.Key {
		delete(p.Fields, p.KeyArg)
	}
}

// filters maps query arguments to the record fields a list filters on,
// and finds paging arguments.
func (p *plan) filters(o *op) {
	defer p.paging(o)
	p.Fields = map[string]string{}
	for _, a := range o.Args {
		if a.In != inQuery {
			continue
		}
		switch norm(a.Orig) {
		case "limit", "pagesize", "perpage", "maxresults", "top", "size":
			if isInteger(a.Schema) {
				p.Limit = a.Name
				continue
			}
		case "offset", "skip", "start":
			if isInteger(a.Schema) {
				p.Offset = a.Name
				continue
			}
		case "page", "pagenumber", "pageindex":
			if isInteger(a.Schema) {
				p.Page = a.Name
				p.PageBase = 1
				if m, ok := a.Schema.(map[string]any); ok {
					if v, ok := m["minimum"].(float64); ok && v == 0 {
						p.PageBase = 0
					}
				}
				continue
			}
		}
		if f := matchField(a.Orig, p.Coll.Props, false); f != "" {
			p.Fields[a.Name] = f
		}
	}
}

// defaultPage is the page size of a list whose call does not say one.
const defaultPage = 20

// paging settles the page size and the name of the list in the result.
func (p *plan) paging(o *op) {
	p.Items = o.listField
	if p.Items == "" {
		// The collection's own word (/pets → "pets"); a search under it
		// (/pets/findByStatus) lists the noun in the plural.
		p.Items = argName(pluralWord(snake(p.Coll.Noun)))
		if n := len(o.segs); n > 0 && o.segs[n-1].Lit != "" && o.shape == p.Coll.Shape {
			p.Items = argName(pathWord(o.segs[n-1].Lit))
		}
	}
	if p.Limit == "" && p.Offset == "" && p.Page == "" {
		return
	}
	p.PageSize = defaultPage
	if a := o.argByName(p.Limit); a != nil {
		if m, ok := a.Schema.(map[string]any); ok {
			if d, ok := toFloat(m["default"]); ok && d >= 1 && d <= 100 {
				p.PageSize = int(d)
			}
			if mx, ok := toFloat(m["maximum"]); ok && mx >= 1 && float64(p.PageSize) > mx {
				p.PageSize = int(mx)
			}
		}
	}
}

func isInteger(s any) bool {
	m, ok := s.(map[string]any)
	return ok && hasType(m, "integer", "number")
}

// Lists show whole records when they are short; longer ones are
// summarised to their short scalar fields, at most maxSummary of them.
const (
	summaryAbove = 200 // average bytes of a record's JSON
	maxSummary   = 8
	maxShortText = 80
	// listBudget bounds the bytes of the records one list result
	// shows (by their average): past it a page holds fewer.
	listBudget = 12000
)

// boundedPage is how many records a list returns when the call does
// not say: size, or fewer when that many long records (a model's whole
// deployment spec where no get tool gives it instead, or 50 summaries)
// would make one result tens of thousands of characters; a list that
// cannot page (size 0) returns its first records and the total.
func boundedPage(size int, recs map[string]any, summary []string) int {
	if len(recs) == 0 {
		return size
	}
	bytes := 0
	for _, r := range recs {
		if rec, ok := r.(map[string]any); ok && len(summary) > 0 {
			short := map[string]any{}
			for _, f := range summary {
				short[f] = rec[f]
			}
			r = short
		}
		raw, _ := json.Marshal(r)
		bytes += len(raw)
	}
	most := max(1, listBudget*len(recs)/bytes)
	if size == 0 && len(recs) > most || size > most {
		return most
	}
	return size
}

// summaryFields are the fields a list shows of each record: nil (the
// whole record) when records are short or no get tool gives the rest;
// else the key, the parent ids and the top-level fields whose values
// are all short scalars (numbers, flags, enum values, names, dates),
// never secrets.
func summaryFields(c *collection, recs map[string]any) []string {
	if c.Tools.Get == "" || len(recs) == 0 {
		return nil
	}
	size := 0
	for _, r := range recs {
		raw, _ := json.Marshal(r)
		size += len(raw)
	}
	if size/len(recs) <= summaryAbove {
		return nil
	}
	out := []string{c.Key}
	for _, sf := range c.Scope {
		if !slices.Contains(out, sf.Field) {
			out = append(out, sf.Field)
		}
	}
	// What tells records apart first: names and emails, enum values
	// (status, type), then dates and numbers, then other short text.
	rank := func(k string) int {
		m, _ := c.Props[k].(map[string]any)
		switch nk := norm(k); {
		case has(nk, "name", "title", "label", "email", "subject"):
			return 0
		case m != nil && m["enum"] != nil, nk == "status", nk == "state", nk == "type", nk == "kind":
			return 1
		case m != nil && hasType(m, "number", "integer"), has(nk, "date", "created", "updated") || strings.HasSuffix(nk, "at"):
			return 2
		}
		return 3
	}
	cands := sortedKeys(c.Props)
	slices.SortStableFunc(cands, func(a, b string) int { return rank(a) - rank(b) })
	for _, k := range cands {
		if len(out) >= maxSummary {
			break
		}
		if slices.Contains(out, k) || has(norm(k), "password", "secret", "token", "privatekey", "apikey") {
			continue
		}
		short := true
		for _, r := range recs {
			switch v := r.(map[string]any)[k].(type) {
			case nil, bool, int64, float64:
			case string:
				short = short && len(v) <= maxShortText
			default:
				short = false
			}
		}
		if short {
			out = append(out, k)
		}
	}
	return out
}

// singularIs reports whether a word ending in "is" is singular already
// (basis, axis, tennis, arthritis, iris, trellis) rather than a plural
// (emojis, kiwis).
func singularIs(w string) bool {
	return len(w) > 2 && strings.HasSuffix(w, "is") && strings.ContainsRune("sxntrl", rune(w[len(w)-3]))
}
