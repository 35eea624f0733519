package openapi

import (
	"slices"
	"strings"

	"github.com/synth-data/synth/model"
)

// Handler kinds of tools that act on several records at once, as MCP
// servers' tools often do (create_entities takes a list of entities).
const (
	hGetEach        = "get_each"        // the records a list of keys names
	hSearch         = "search"          // records whose text holds a query
	hAll            = "all"             // every collection (read_graph)
	hCreateEach     = "create_each"     // one record per element of a list
	hDeleteEach     = "delete_each"     // the records a list of keys names
	hDeleteMatching = "delete_matching" // records equal to an element
	hAppendEach     = "append_each"     // values added to a list of records named by the elements
	hRemoveEach     = "remove_each"     // values taken from such lists
)

// Verbs by what they do to a record.
var (
	createVerbs = map[string]bool{"create": true, "add": true, "write": true, "push": true, "fork": true, "post": true, "insert": true,
		"make": true, "upload": true, "save": true, "put": true, "new": true, "register": true, "store": true, "append": true}
	deleteVerbs = map[string]bool{"delete": true, "remove": true, "destroy": true, "drop": true, "clear": true, "purge": true, "unset": true}
	updateVerbs = map[string]bool{"update": true, "set": true, "modify": true, "change": true, "patch": true, "edit": true, "rename": true,
		"merge": true, "close": true, "reopen": true, "move": true, "assign": true, "mark": true}
	// upsertVerbs replace a record that is there (write_file).
	upsertVerbs = map[string]bool{"write": true, "put": true, "save": true, "set": true, "store": true}
	// qualifiers say how a tool reads or writes, not what.
	qualifiers = map[string]bool{"multiple": true, "text": true, "media": true, "with": true, "sizes": true, "or": true, "update": true,
		"all": true, "allowed": true, "info": true, "details": true, "detail": true, "contents": true, "content": true, "tree": true,
		"status": true, "many": true, "batch": true, "bulk": true, "by": true, "new": true, "one": true, "single": true}
	// queryArgs hold a free-text query.
	queryArgs = map[string]bool{"query": true, "q": true, "pattern": true, "search": true, "keyword": true, "keywords": true, "term": true, "text": true}
	// pagingArgs page a list.
	// sortArgs order a list; they are no field of its records.
	sortArgs   = map[string]bool{"sort": true, "sortby": true, "order": true, "orderby": true, "direction": true, "since": true, "until": true}
	pagingArgs = map[string]string{"page": "page", "perpage": "limit", "limit": "limit", "pagesize": "limit", "offset": "offset", "cursor": "", "maxresults": "limit"}
)

// shape is what a tool's name and arguments say it does.
type toolShape struct {
	o    *op
	verb string
	noun string // singular snake case, "" when the name has none
	// list is the one array argument, elem its items' properties when
	// they are objects.
	list    *arg
	elem    map[string]any
	elemReq []string
	coll    *collection
	// appendTo is the noun whose records the elements name (add_observations'
	// {entityName, contents} add to entities).
	appendTo string
}

// shapeOf splits a tool's name into its verb and noun and finds its list
// argument.
func shapeOf(o *op) *toolShape {
	s := &toolShape{o: o}
	words := strings.Fields(model.Words(o.Tool))
	if len(words) > 0 && (readVerbs[words[0]] || createVerbs[words[0]] || deleteVerbs[words[0]] || updateVerbs[words[0]]) {
		s.verb, words = words[0], words[1:]
	}
	var noun []string
	for _, w := range words {
		if !qualifiers[w] {
			noun = append(noun, w)
		}
	}
	if len(noun) > 0 {
		noun[len(noun)-1] = singular(noun[len(noun)-1])
		s.noun = strings.Join(noun, "_")
	}
	for i := range o.Args {
		a := &o.Args[i]
		m, _ := a.Schema.(map[string]any)
		if !a.Required || !hasType(m, "array") {
			continue
		}
		s.list = a
		if items, _ := m["items"].(map[string]any); hasType(items, "object") {
			s.elem, _ = items["properties"].(map[string]any)
			for _, r := range asList(items["required"]) {
				if n, ok := r.(string); ok {
					s.elemReq = append(s.elemReq, n)
				}
			}
		}
		break
	}
	return s
}

// idLikeName says a name names a record: an id, a key, a number, a name
// or a path.
func idLikeName(n string) bool {
	k := norm(n)
	for _, end := range []string{"id", "key", "number", "name", "path", "slug", "sha", "uuid", "uri", "url", "username", "email", "code", "handle"} {
		if k == end || strings.HasSuffix(k, end) {
			return true
		}
	}
	return false
}

func scalarArg(a arg) bool {
	m, _ := a.Schema.(map[string]any)
	return m != nil && !hasType(m, "array", "object")
}

// requiredScalars are a tool's required scalar arguments, in order.
func requiredScalars(o *op) []arg {
	var out []arg
	for _, a := range o.Args {
		if a.Required && scalarArg(a) {
			out = append(out, a)
		}
	}
	return out
}

// inferCollections groups the tools by noun into collections, decides
// each one's key and fields, and plans every tool's handler.
func inferCollections(ops []*op) []*collection {
	shapes := make([]*toolShape, len(ops))
	var nouns []string
	for i, o := range ops {
		shapes[i] = shapeOf(o)
		if n := shapes[i].noun; n != "" && !slices.Contains(nouns, n) {
			nouns = append(nouns, n)
		}
	}
	groups := map[string][]*toolShape{}
	for _, s := range shapes {
		s.appendTo = refNoun(s, nouns)
		if s.noun != "" && s.appendTo == "" {
			groups[s.noun] = append(groups[s.noun], s)
		}
	}
	colls, order := nounCollections(nouns, groups)
	for _, s := range shapes {
		switch {
		case s.appendTo != "":
			s.coll = colls[s.appendTo]
		case s.noun != "":
			s.coll = colls[s.noun]
		}
	}
	for _, c := range order {
		fields(c, shapes)
	}
	for _, s := range shapes {
		p := planTool(s, order)
		s.o.Handler = p
		if p.Coll != nil && p.Kind == hGet && p.Coll.Tools.Get == "" {
			p.Coll.Tools.Get = s.o.Tool
		}
		if p.Coll != nil && p.Kind == hList && p.Coll.Tools.List == "" {
			p.Coll.Tools.List = s.o.Tool
		}
	}
	kept := slices.DeleteFunc(slices.Clone(order), func(c *collection) bool {
		return !slices.ContainsFunc(shapes, func(s *toolShape) bool { return s.o.Handler.Coll == c })
	})
	for _, s := range shapes {
		if s.o.Handler.Kind == hAll {
			s.o.Handler.All = kept
		}
	}
	return kept
}

// nounCollections makes a collection of each noun some tool names, in the
// order of nouns, or finds the collection it is part of.
func nounCollections(nouns []string, groups map[string][]*toolShape) (map[string]*collection, []*collection) {
	colls, order := map[string]*collection{}, []*collection(nil)
	taken := map[string]bool{}
	// Nouns a tool names one record of first: their keys are what the
	// others' arguments refer to.
	for _, pass := range []bool{true, false} {
		for _, n := range nouns {
			if colls[n] != nil || !written(groups[n]) || addressed(groups[n]) != pass {
				continue
			}
			if c := partOf(n, groups[n], order); c != nil {
				colls[n] = c
				continue
			}
			c := newColl(n, groups[n], taken)
			colls[n], taken[c.Key] = c, true
			order = append(order, c)
		}
	}
	for _, n := range nouns {
		if colls[n] != nil || len(groups[n]) == 0 {
			continue
		}
		if c := partOf(n, groups[n], order); c != nil {
			colls[n] = c
			continue
		}
		if !slices.ContainsFunc(groups[n], func(s *toolShape) bool { return len(s.o.Args) > 0 }) {
			continue // read_graph: every collection
		}
		c := newColl(n, groups[n], taken)
		colls[n] = c
		order = append(order, c)
	}
	return colls, order
}

// refNoun is the noun whose records a list tool's elements name, when
// they name one (entityName names an entity) and carry a list of values
// for it.
func refNoun(s *toolShape, nouns []string) string {
	if s.elem == nil {
		return ""
	}
	var ref string
	list := false
	for _, f := range sortedKeys(s.elem) {
		m := asMap(s.elem[f])
		if hasType(m, "array") && scalarSchema(asMap(m["items"])) {
			list = true
			continue
		}
		for _, n := range nouns {
			if n != s.noun && scalarSchema(m) && refers(f, n) {
				ref = n
			}
		}
	}
	if !list {
		return ""
	}
	return ref
}

// refers says an argument or field names a record of noun by its key:
// entityName, entity_id, pull_number for a pull request.
func refers(field, noun string) bool {
	f, n := norm(field), norm(noun)
	for _, end := range []string{"name", "id", "key", "number"} {
		if f == n+end {
			return true
		}
		// The last word of a many-word noun: pull_number, pull request.
		if words := strings.Split(noun, "_"); len(words) > 1 && f == norm(words[0])+end {
			return true
		}
	}
	return false
}

// addressed says a noun's tools name one record by required scalar
// arguments (a get, an update or a delete).
func addressed(ss []*toolShape) bool {
	return slices.ContainsFunc(ss, func(s *toolShape) bool { return len(keySets(s)) > 0 })
}

func keySets(s *toolShape) []arg {
	if s.verb == "list" || s.verb == "search" || createVerbs[s.verb] || s.list != nil && s.elem != nil {
		return nil
	}
	return requiredScalars(s.o)
}

// partOf is the collection a noun's tools act on when that is another
// noun's: one only read whose tools name the other's records by its key
// (get_pull_request_files), or one whose noun begins with the other's
// and whose tools update those records (update_pull_request_branch).
func partOf(noun string, ss []*toolShape, colls []*collection) *collection {
	creates := slices.ContainsFunc(ss, func(s *toolShape) bool { return createVerbs[s.verb] })
	for _, c := range colls {
		switch {
		case !keyedByAll(ss, c):
		case !written(ss):
			return c
		case !creates && strings.HasPrefix(noun, c.Noun+"_"):
			// update_pull_request_branch updates a pull request; an
			// issue comment added is a record of its own.
			return c
		}
	}
	return nil
}

// keyedByAll says every tool names a record of c by its key (or a list
// of its keys), and at least one does so.
func keyedByAll(ss []*toolShape, c *collection) bool {
	any := false
	for _, s := range ss {
		if keyArg(s, c) == "" {
			if len(s.o.Args) > 0 && s.o.Kind == "write" {
				return false
			}
			continue
		}
		any = true
	}
	return any
}

// keyArg is the argument naming c's records: its key, or a list of keys.
func keyArg(s *toolShape, c *collection) string {
	for _, a := range s.o.Args {
		switch {
		case a.Required && scalarArg(a) && a.Name == c.Key:
			return a.Name
		case s.list != nil && s.elem == nil && a.Name == s.list.Name && namesKey(a.Name, c):
			return a.Name
		}
	}
	return ""
}

// namesKey says a list argument holds keys of c: names, paths,
// entityNames for entities keyed by name.
func namesKey(list string, c *collection) bool {
	one := singular(list)
	return one == c.Key || norm(one) == norm(c.Noun)+norm(c.Key)
}

// written says some tool of a noun writes.
func written(ss []*toolShape) bool {
	return slices.ContainsFunc(ss, func(s *toolShape) bool { return s.o.Kind == "write" })
}

// newColl makes a noun's collection and picks its key: the key of its
// batch creates' elements, else the argument its gets, updates and
// deletes name a record by, besides those they all share (a
// repository's owner and name scope an issue number), else a generated
// id.
func newColl(noun string, ss []*toolShape, taken map[string]bool) *collection {
	c := &collection{Name: pluralWord(noun), Noun: noun, Props: map[string]any{}, HasItem: true}
	for _, s := range ss {
		if s.elem == nil || !createVerbs[s.verb] {
			continue
		}
		for _, n := range s.elemReq {
			if idLikeName(n) && scalarSchema(asMap(s.elem[n])) {
				setKey(c, n, s.elem[n])
				return c
			}
		}
		c.Within = nil
		setKey(c, "id", map[string]any{"type": "string", "description": "the record's id: its fields " + strings.Join(s.elemReq, ", ") + " joined by |"})
		return c
	}
	var sets [][]arg
	for _, s := range ss {
		if rs := keySets(s); len(rs) > 0 {
			sets = append(sets, rs)
		}
	}
	if len(sets) == 0 {
		// Only creates: a required id-like argument that is not another
		// collection's key (a comment's issue_number is its issue's).
		for _, s := range ss {
			if createVerbs[s.verb] {
				for _, a := range requiredScalars(s.o) {
					if idLikeName(a.Name) && !taken[a.Name] {
						setKey(c, a.Name, a.Schema)
						return c
					}
				}
			}
		}
		setKey(c, "id", map[string]any{"type": "integer"})
		return c
	}
	shared := map[string]int{}
	for _, set := range sets {
		for _, a := range set {
			shared[a.Name]++
		}
	}
	best := slices.MinFunc(sets, func(a, b []arg) int { return len(a) - len(b) }) // the first of the shortest
	// The last id-like argument, one not every tool shares first (the
	// arguments come in name order, so "last" only breaks ties).
	key := best[len(best)-1]
	found := false
	for _, a := range best {
		if idLikeName(a.Name) && (!found || shared[a.Name] < len(sets)) {
			key, found = a, true
		}
	}
	setKey(c, key.Name, key.Schema)
	for _, a := range best {
		if a.Name != key.Name && shared[a.Name] == len(sets) {
			c.Scope = append(c.Scope, scopeField{Param: a.Name, Field: a.Name, Schema: a.Schema})
			c.Props[a.Name] = a.Schema
		}
	}
	return c
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func setKey(c *collection, name string, schema any) {
	c.Key, c.KeyParam, c.KeySchema = name, name, schema
	c.KeyType = "string"
	if m := asMap(schema); hasType(m, "integer", "number") {
		c.KeyType = "integer"
		c.KeySchema = map[string]any{"type": "integer"}
	}
	c.Props[name] = c.KeySchema
}

// fields gives a collection's records the fields its tools set: the
// elements of its batch creates, the arguments of its creates and of the
// updates that set scalar fields of one record, and what its reads
// filter on.
func fields(c *collection, shapes []*toolShape) {
	for _, s := range shapes {
		if s.coll != c || s.appendTo != "" {
			continue
		}
		if s.elem != nil && createVerbs[s.verb] {
			for _, n := range sortedKeys(s.elem) {
				if c.Props[n] == nil {
					c.Props[n] = s.elem[n]
				}
			}
			continue
		}
		sets := createVerbs[s.verb] || s.o.Kind == "write" && keyArg(s, c) != "" && !slices.ContainsFunc(s.o.Args, func(a arg) bool { return !scalarArg(a) && !plainList(a) })
		for _, a := range s.o.Args {
			if c.Props[a.Name] != nil || pagingArgs[norm(a.Name)] != "" || queryArgs[norm(a.Name)] || s.list != nil && a.Name == s.list.Name {
				continue
			}
			switch {
			case s.o.Kind == "read" && scalarArg(a) && keyArg(s, c) == "" && !sortArgs[norm(a.Name)] && !slices.ContainsFunc(s.o.Args, func(a arg) bool { return queryArgs[norm(a.Name)] }):
				// A list's filters; a search's other arguments qualify
				// its query.
				c.Props[a.Name] = a.Schema
			case s.o.Kind == "write" && sets && (scalarArg(a) || plainList(a)):
				c.Props[a.Name] = a.Schema
			}
		}
	}
}

// plainList says an argument is a list of scalars (labels, assignees).
func plainList(a arg) bool {
	m := asMap(a.Schema)
	return hasType(m, "array") && scalarSchema(asMap(m["items"]))
}

// planTool decides a tool's handler from its verb, its arguments and
// its collection.
func planTool(s *toolShape, colls []*collection) plan {
	o, c := s.o, s.coll
	switch {
	case c == nil && o.Kind == "read" && len(o.Args) == 0:
		return plan{Kind: hAll, All: colls}
	case c == nil:
		return plan{Kind: hUnmapped, Reason: "its name names no kind of record"}
	case s.appendTo != "":
		return planAppend(s, c)
	case o.Kind == "read":
		return planRead(s, c)
	case s.list != nil:
		return planBatch(s, c)
	}
	p := plan{Coll: c, Scope: scopeArgs(o, c), Fields: map[string]string{}}
	key := o.argByName(c.Key)
	if key != nil && !key.Required {
		key = nil
	}
	for _, a := range o.Args {
		if a.Name != c.Key && p.Scope[a.Name] == "" && c.Props[a.Name] != nil {
			p.Fields[a.Name] = a.Name
		}
	}
	complex := slices.ContainsFunc(o.Args, func(a arg) bool { return !scalarArg(a) && !plainList(a) })
	switch {
	case deleteVerbs[s.verb] && key != nil:
		p.Kind, p.KeyArg = hDelete, key.Name
	case complex:
		return plan{Kind: hUnmapped, Reason: "an argument is a list of changes or an object, not a field's value"}
	case createVerbs[s.verb] && key != nil && (upsertVerbs[s.verb] || strings.Contains(o.Tool, "or_update")):
		p.Kind, p.KeyArg, p.Upsert = hUpdate, key.Name, true
	case createVerbs[s.verb]:
		p.Kind = hCreate
		if key != nil {
			p.Fields[key.Name] = c.Key
		}
	case key != nil && len(p.Fields) > 0:
		p.Kind, p.KeyArg = hUpdate, key.Name
	default:
		return plan{Kind: hUnmapped, Reason: "its arguments do not name one record and the fields it sets"}
	}
	return p
}

// scopeArgs maps a tool's arguments to the collection's scope fields.
func scopeArgs(o *op, c *collection) map[string]string {
	out := map[string]string{}
	for _, sf := range c.Scope {
		if o.argByName(sf.Param) != nil {
			out[sf.Param] = sf.Field
		}
	}
	return out
}

// planRead plans a read: a text search, a get by key, a get of a list
// of keys, or a filtered list.
func planRead(s *toolShape, c *collection) plan {
	o := s.o
	p := plan{Coll: c, Scope: scopeArgs(o, c), Fields: map[string]string{}, Items: c.Name, PageSize: 20}
	key := keyArg(s, c)
	for _, a := range o.Args {
		if queryArgs[norm(a.Name)] && scalarArg(a) {
			p.Kind, p.Query = hSearch, a.Name
		}
	}
	switch {
	case p.Kind == hSearch:
	case key != "" && s.list == nil:
		p.Kind, p.KeyArg = hGet, key
		return p
	case key != "":
		p.Kind, p.Each = hGetEach, key
		return p
	default:
		p.Kind = hList
	}
	for _, a := range o.Args {
		n := norm(a.Name)
		switch {
		case pagingArgs[n] == "page":
			p.Page, p.PageBase = a.Name, 1
		case pagingArgs[n] == "limit":
			p.Limit = a.Name
		case pagingArgs[n] == "offset":
			p.Offset = a.Name
		case a.Name == key || a.Name == p.Query || sortArgs[n]:
		case p.Scope[a.Name] == "" && scalarArg(a) && c.Props[a.Name] != nil:
			p.Fields[a.Name] = a.Name
		}
	}
	return p
}

// planBatch plans a write over a list argument: records created from
// its elements, deleted by them, or deleted by their keys.
func planBatch(s *toolShape, c *collection) plan {
	p := plan{Coll: c, Each: s.list.Name}
	switch {
	case s.elem == nil && deleteVerbs[s.verb] && namesKey(s.list.Name, c):
		p.Kind = hDeleteEach
	case s.elem == nil:
		return plan{Kind: hUnmapped, Reason: "its list argument " + s.list.Name + " names no records of " + c.Name}
	case s.elem[c.Key] == nil && (c.Key != "id" || slices.ContainsFunc(s.elemReq, func(n string) bool { return c.Props[n] == nil })):
		return plan{Kind: hUnmapped, Reason: "the elements of " + s.list.Name + " are not records of " + c.Name}
	case deleteVerbs[s.verb]:
		p.Kind, p.KeyFields = hDeleteMatching, elemKey(c, s)
	case createVerbs[s.verb]:
		p.Kind, p.KeyFields = hCreateEach, elemKey(c, s)
	default:
		return plan{Kind: hUnmapped, Reason: "its verb " + s.verb + " neither creates nor deletes"}
	}
	return p
}

// planAppend plans a write whose elements name records of c and carry
// values for a list of theirs: add_observations' {entityName,
// contents} adds to an entity's observations, delete_observations'
// {entityName, observations} takes from them.
func planAppend(s *toolShape, c *collection) plan {
	p := plan{Coll: c, Each: s.list.Name}
	for _, f := range sortedKeys(s.elem) {
		m := asMap(s.elem[f])
		switch {
		case hasType(m, "array") && scalarSchema(asMap(m["items"])):
			p.From = f
		case scalarSchema(m) && refers(f, c.Noun):
			p.Ref = f
		}
	}
	p.Into = pluralWord(s.noun)
	if asMap(c.Props[p.Into]) == nil {
		c.Props[p.Into] = map[string]any{"type": "array", "items": asMap(s.elem[p.From])["items"]}
	}
	switch {
	case deleteVerbs[s.verb]:
		p.Kind = hRemoveEach
	case createVerbs[s.verb] || updateVerbs[s.verb]:
		p.Kind = hAppendEach
	default:
		return plan{Kind: hUnmapped, Reason: "its verb " + s.verb + " neither adds nor removes"}
	}
	return p
}

// elemKey are the element fields a record's key is made of.
func elemKey(c *collection, s *toolShape) []string {
	if c.Key != "id" || s.elem["id"] != nil {
		return []string{c.Key}
	}
	return s.elemReq
}
