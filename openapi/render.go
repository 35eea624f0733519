package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
)

// transferTool hands the customer to a human; the policy tells the
// agent to use it for what the API cannot do.
const transferTool = "transfer_to_human_agents"

type toolJSON struct {
	Type     string       `json:"type"`
	Function functionJSON `json:"function"`
}

type functionJSON struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
	Kind        string         `json:"x-kind"`
}

func description(o *op) string {
	if o.Method == toolMethod && o.Description != "" {
		// A tool's own words, whole: they are what its server says.
		return o.Description
	}
	d := o.Summary
	if o.Description != "" && !strings.HasPrefix(o.Description, o.Summary) {
		if d != "" && !strings.HasSuffix(d, ".") {
			d += "."
		}
		d = strings.TrimSpace(d + " " + o.Description)
	} else if o.Description != "" {
		d = o.Description
	}
	d = trimText(d, 1000)
	if d == "" {
		d = o.label()
	}
	return d
}

func renderTools(ops []*op, who persona) ([]byte, error) {
	list := make([]toolJSON, 0, len(ops)+1)
	for _, o := range ops {
		list = append(list, toolJSON{Type: "function", Function: functionJSON{
			Name: o.Tool, Description: description(o), Parameters: o.Params, Kind: o.Kind}})
	}
	list = append(list, toolJSON{Type: "function", Function: functionJSON{
		Name:        transferTool,
		Description: "Transfer the " + who.Call + " to a human agent, with a summary of the issue. Use it only when the request is out of scope of the other tools.",
		Parameters: map[string]any{"type": "object", "additionalProperties": false, "required": []any{"summary"},
			"properties": map[string]any{"summary": map[string]any{"type": "string", "description": "A summary of the " + who.Call + "'s issue."}}},
		Kind: "generic"}})
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(list); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// q quotes a string as a Starlark literal.
func q(s string) string { return strconv.Quote(strings.ToValidUTF8(s, "?")) }

func dict(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, q(k)+": "+q(m[k]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

const helpers = `
def _key(v):
    """The database key of an id argument (ints and strings alike)."""
    if type(v) == "float" and v == int(v):
        return str(int(v))
    return str(v)

def _a(noun):
    """A noun with its article, for error text: "an identity", "a user"."""
    w = noun.lower()
    if w != "" and w[:1] in "aeiou" and not (w.startswith("us") or w.startswith("uni") or w.startswith("uu") or w.startswith("ur")):
        return "an " + noun
    return "a " + noun

def _same(want, have):
    """A filter value matches a field: equal as text, either side a list."""
    wants = want if type(want) == "list" else [want]
    haves = have if type(have) == "list" else [have]
    for w in wants:
        for h in haves:
            if w != None and h != None and _key(w).lower() == _key(h).lower():
                return True
    return False

def _matches(rec, args, fields):
    for a, f in fields.items():
        if a in args and args[a] != None and not _same(args[a], rec.get(f)):
            return False
    return True

def _parent(db, args, parent):
    """Fails when the parent record named by the path does not exist."""
    if parent and parent[0] in args and db.get(parent[1], _key(args[parent[0]])) == None:
        fail("no %s with id %s" % (parent[2], _key(args[parent[0]])))

def _key_of(args, key_arg):
    """The database key a call names: a list of arguments names a record
    keyed within its parents (their keys, then its own, joined by /)."""
    if type(key_arg) == "list":
        return "/".join([_key(args[a]) for a in key_arg])
    return _key(args[key_arg])

def _arg(key_arg):
    """The argument holding the record's own key."""
    return key_arg[-1] if type(key_arg) == "list" else key_arg

def _get(db, coll, noun, args, key_arg, scope):
    rec = db.get(coll, _key_of(args, key_arg))
    if rec == None or not _matches(rec, args, scope):
        fail("no %s with id %s" % (noun, _key(args[_arg(key_arg)])))
    return rec

def _list(db, coll, args, scope, filters, parent, limit, offset, page, page_base, size, items, summary):
    """One page of the matching records: {items: [...], "total": N} and,
    when more remain, where the next page starts. Records are summarised
    (summary fields only) when whole ones would make a long result."""
    _parent(db, args, parent)
    n = size
    if limit and args.get(limit) != None:
        n = max(0, int(args[limit]))
    start = 0
    if offset and args.get(offset) != None:
        start = max(0, int(args[offset]))
    elif page and args.get(page) != None:
        start = max(0, (int(args[page]) - page_base) * (n if n else 1))
    keys = db.keys(coll)
    given = [a for a in scope if a in args and args[a] != None] + [a for a in filters if a in args and args[a] != None]
    if given:
        found = []
        for k in keys:
            rec = db.get(coll, k)
            if _matches(rec, args, scope) and _matches(rec, args, filters):
                found.append(rec)
        total = len(found)
        recs = found[start:start + n] if n else found[start:]
    else:
        # Nothing to match: only the page's records are read.
        total = len(keys)
        page_keys = keys[start:start + n] if n else keys[start:]
        recs = [db.get(coll, k) for k in page_keys]
    if summary:
        recs = [{f: r[f] for f in summary if f in r} for r in recs]
    out = {items: recs, "total": total}
    if start + len(recs) < total:
        if offset:
            out["next_" + offset] = start + len(recs)
        elif page and n:
            out["next_" + page] = page_base + (start + len(recs)) // n
    return out

def _new_key(db, coll, int_key, fresh):
    for _ in range(10000):
        n = db.next_id(coll)
        if n <= len(fresh):
            k = fresh[n - 1]
        elif int_key:
            k = 1000 + n
        else:
            k = "%s-%d" % (coll, n)
        if db.get(coll, _key(k)) == None:
            return k
    fail("no free id left in %s" % coll)

def _create(db, coll, noun, key_field, int_key, fresh, args, scope, fields, parent):
    _parent(db, args, parent)
    rec = {}
    for a, f in scope.items():
        if a in args:
            rec[f] = args[a]
    for a, f in fields.items():
        if a in args:
            rec[f] = args[a]
    key = rec.get(key_field)
    if key == None:
        key = _new_key(db, coll, int_key, fresh)
        rec[key_field] = key
    elif db.get(coll, _key(key)) != None:
        fail("%s with %s %s already exists; creating one needs %s no other %s has" % (_a(noun), key_field, _key(key), _a(key_field), noun))
    db.put(coll, _key(key), rec)
    return rec

def _update(db, coll, noun, key_field, args, key_arg, scope, fields, upsert):
    key = _key_of(args, key_arg)
    rec = db.get(coll, key)
    if rec == None or not _matches(rec, args, scope):
        if not upsert:
            fail("no %s with id %s" % (noun, _key(args[_arg(key_arg)])))
        rec = {key_field: args[_arg(key_arg)]}
        for a, f in scope.items():
            if a in args:
                rec[f] = args[a]
    for a, f in fields.items():
        if a in args:
            rec[f] = args[a]
    db.put(coll, key, rec)
    return rec

def _delete(db, coll, noun, key_field, args, key_arg, scope):
    rec = _get(db, coll, noun, args, key_arg, scope)
    db.delete(coll, _key_of(args, key_arg))
    return {"deleted": True, key_field: rec.get(key_field)}
`

// eachHelpers are the handlers over several records (MCP tools), written
// only into packs that have such tools.
const eachHelpers = `
def _text(v):
    """Every string in a value, lower case, for a search (Starlark has
    no recursion: a stack of what is left to read)."""
    out = []
    todo = [v]
    for _ in range(100000):
        if not todo:
            break
        x = todo.pop()
        if type(x) == "string":
            out.append(x.lower())
        elif type(x) == "dict":
            todo.extend(x.values())
        elif type(x) == "list":
            todo.extend(x)
    return " ".join(out)

def _search(db, coll, args, query_arg, scope, filters, size, items):
    """The records whose text holds the query (every word of it), among
    those matching the other arguments."""
    words = str(args.get(query_arg, "")).lower().split()
    found = []
    for k in db.keys(coll):
        rec = db.get(coll, k)
        if not _matches(rec, args, scope) or not _matches(rec, args, filters):
            continue
        text = _text(rec)
        if all([w in text for w in words]):
            found.append(rec)
    return {items: found[:size] if size else found, "total": len(found)}

def _get_each(db, coll, noun, keys):
    out = []
    for k in keys:
        rec = db.get(coll, _key(k))
        if rec == None:
            fail("no %s %s" % (noun, _key(k)))
        out.append(rec)
    return {coll: out}

def _all(db, colls, size):
    """Every collection's records, at most size of each."""
    return {c: [db.get(c, k) for k in db.keys(c)[:size]] for c in colls}

def _elem_key(el, key_fields):
    return "|".join([_key(el.get(f)) for f in key_fields])

def _create_each(db, coll, noun, key_field, key_fields, elems):
    out = []
    for el in elems:
        rec = dict(el)
        k = _elem_key(el, key_fields)
        if len(key_fields) > 1:
            rec[key_field] = k
        if db.get(coll, k) != None:
            fail("%s %s already exists" % (_a(noun), k))
        db.put(coll, k, rec)
        out.append(rec)
    return {coll: out}

def _delete_each(db, coll, noun, keys):
    for k in keys:
        if db.get(coll, _key(k)) == None:
            fail("no %s %s" % (noun, _key(k)))
    for k in keys:
        db.delete(coll, _key(k))
    return {"deleted": [_key(k) for k in keys]}

def _delete_matching(db, coll, noun, elems):
    """Deletes the records whose fields equal an element's."""
    gone = []
    for el in elems:
        for k in db.keys(coll):
            rec = db.get(coll, k)
            if all([rec.get(f) == v for f, v in el.items()]):
                db.delete(coll, k)
                gone.append(k)
    if not gone:
        fail("no %s matches" % noun)
    return {"deleted": gone}

def _append_each(db, coll, noun, ref, src, into, elems, add):
    """Adds (or, add False, removes) each element's values to the list
    into of the record its field ref names."""
    out = []
    for el in elems:
        k = _key(el.get(ref))
        rec = db.get(coll, k)
        if rec == None:
            fail("no %s %s" % (noun, k))
        have = list(rec.get(into) or [])
        changed = []
        for v in el.get(src) or []:
            if add and v not in have:
                have.append(v)
                changed.append(v)
            elif not add and v in have:
                have.remove(v)
                changed.append(v)
        rec = dict(rec)
        rec[into] = have
        db.put(coll, k, rec)
        out.append({ref: el.get(ref), ("added" if add else "removed"): changed})
    return {"results": out}
`

func renderHandlers(title, source, gen string, ops []*op) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Handlers for %s, generated by `%s` from %s.\n", oneLine(title), gen, oneLine(source))
	b.WriteString("# Resource operations run CRUD over db.json; the others fail until you write them.\n")
	b.WriteString("# Each tool is one top-level function: def TOOL(db, args): return a JSON value or fail(\"message\").\n")
	b.WriteString(helpers)
	if slices.ContainsFunc(ops, func(o *op) bool { return eachKinds[o.Handler.Kind] }) {
		b.WriteString(eachHelpers)
	}
	for _, o := range ops {
		p := o.Handler
		fmt.Fprintf(&b, "\n# %s -> %s\n", oneLine(o.label()), handlerLabel(p))
		fmt.Fprintf(&b, "def %s(db, args):\n", o.Tool)
		c := p.Coll
		parent := "None"
		if c != nil && c.Parent != nil && len(c.Scope) > 0 {
			last := c.Scope[len(c.Scope)-1]
			for a, f := range p.Scope {
				if f == last.Field {
					parent = fmt.Sprintf("(%s, %s, %s)", q(a), q(c.Parent.Name), q(c.Parent.Noun))
				}
			}
		}
		switch p.Kind {
		case hGet:
			fmt.Fprintf(&b, "    return _get(db, %s, %s, args, %s, %s)\n", q(c.Name), q(c.Noun), keyArgOf(p), dict(p.Scope))
		case hList:
			summary := "None"
			if len(c.Summary) > 0 {
				fields := make([]string, len(c.Summary))
				for i, f := range c.Summary {
					fields[i] = q(f)
				}
				summary = "[" + strings.Join(fields, ", ") + "]"
			}
			fmt.Fprintf(&b, "    return _list(db, %s, args, %s, %s, %s, %s, %s, %s, %d, %d, %s, %s)\n", q(c.Name), dict(p.Scope), dict(p.Fields),
				parent, q(p.Limit), q(p.Offset), q(p.Page), p.PageBase, p.PageSize, q(p.Items), summary)
		case hCreate:
			fresh := make([]string, len(c.fresh))
			for i, k := range c.fresh {
				fresh[i] = q(k)
				if c.KeyType == "integer" {
					fresh[i] = k
				}
			}
			fmt.Fprintf(&b, "    return _create(db, %s, %s, %s, %s, [%s], args, %s, %s, %s)\n", q(c.Name), q(c.Noun), q(c.Key),
				starBool(c.KeyType == "integer"), strings.Join(fresh, ", "), dict(p.Scope), dict(p.Fields), parent)
		case hUpdate:
			if p.Stamp != "" {
				fmt.Fprintf(&b, "    rec = _update(db, %s, %s, %s, args, %s, %s, {}, False)\n", q(c.Name), q(c.Noun), q(c.Key), keyArgOf(p), dict(p.Scope))
				fmt.Fprintf(&b, "    rec[%s] = %s\n    db.put(%s, _key_of(args, %s), rec)\n    return rec\n", q(p.Stamp), q(Clock), q(c.Name), keyArgOf(p))
				break
			}
			fmt.Fprintf(&b, "    return _update(db, %s, %s, %s, args, %s, %s, %s, %s)\n", q(c.Name), q(c.Noun), q(c.Key),
				keyArgOf(p), dict(p.Scope), dict(p.Fields), starBool(p.Upsert))
		case hDelete:
			fmt.Fprintf(&b, "    return _delete(db, %s, %s, %s, args, %s, %s)\n", q(c.Name), q(c.Noun), q(c.Key), keyArgOf(p), dict(p.Scope))
		case hGetEach, hSearch, hAll, hCreateEach, hDeleteEach, hDeleteMatching, hAppendEach, hRemoveEach:
			b.WriteString(eachCall(p))
		default:
			msg := fmt.Sprintf("operation %s (%s) is not mapped to data: write its handler in handlers.star — def %s(db, args): …", o.Tool, o.label(), o.Tool)
			fmt.Fprintf(&b, "    # Not mapped: %s\n", oneLine(p.Reason))
			fmt.Fprintf(&b, "    fail(%s)\n", q(msg))
		}
	}
	fmt.Fprintf(&b, "\n# Hands the customer to a person.\ndef %s(db, args):\n    return \"Transfer successful\"\n", transferTool)
	return []byte(b.String())
}

// keyArgOf is the key argument a handler passes: the call's key
// argument, or for a record keyed within its parents the arguments
// naming them and then it.
func keyArgOf(p plan) string {
	if len(p.Coll.Within) == 0 {
		return q(p.KeyArg)
	}
	var parts []string
	for _, f := range p.Coll.Within {
		parts = append(parts, q(withinArg(p, f)))
	}
	return "[" + strings.Join(append(parts, q(p.KeyArg)), ", ") + "]"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func starBool(v bool) string {
	if v {
		return "True"
	}
	return "False"
}

func handlerLabel(p plan) string {
	switch p.Kind {
	case hUnmapped:
		return "unmapped"
	case hAll:
		return "all collections"
	}
	return "crud:" + p.Kind + " " + p.Coll.Name
}

// eachKinds are the handlers over several records.
var eachKinds = map[string]bool{hGetEach: true, hSearch: true, hAll: true, hCreateEach: true, hDeleteEach: true, hDeleteMatching: true, hAppendEach: true, hRemoveEach: true}

// eachCall is the body of a handler over several records.
func eachCall(p plan) string {
	c := p.Coll
	switch p.Kind {
	case hGetEach:
		return fmt.Sprintf("    return _get_each(db, %s, %s, args[%s])\n", q(c.Name), q(c.Noun), q(p.Each))
	case hSearch:
		return fmt.Sprintf("    return _search(db, %s, args, %s, %s, %s, %d, %s)\n", q(c.Name), q(p.Query), dict(p.Scope), dict(p.Fields), p.PageSize, q(p.Items))
	case hAll:
		names := make([]string, len(p.All))
		for i, a := range p.All {
			names[i] = q(a.Name)
		}
		return fmt.Sprintf("    return _all(db, [%s], 50)\n", strings.Join(names, ", "))
	case hCreateEach:
		keys := make([]string, len(p.KeyFields))
		for i, k := range p.KeyFields {
			keys[i] = q(k)
		}
		return fmt.Sprintf("    return _create_each(db, %s, %s, %s, [%s], args[%s])\n", q(c.Name), q(c.Noun), q(c.Key), strings.Join(keys, ", "), q(p.Each))
	case hDeleteEach:
		return fmt.Sprintf("    return _delete_each(db, %s, %s, args[%s])\n", q(c.Name), q(c.Noun), q(p.Each))
	case hDeleteMatching:
		return fmt.Sprintf("    return _delete_matching(db, %s, %s, args[%s])\n", q(c.Name), q(c.Noun), q(p.Each))
	}
	return fmt.Sprintf("    return _append_each(db, %s, %s, %s, %s, %s, args[%s], %s)\n", q(c.Name), q(c.Noun), q(p.Ref), q(p.From), q(p.Into), q(p.Each), starBool(p.Kind == hAppendEach))
}

// manifest builds domain.yaml's content.
func manifest(name, version, desc string, colls []*collection, ops []*op, db map[string]map[string]any, seed uint64) pack.Manifest {
	m := pack.Manifest{
		Name: name, Version: version, Description: desc,
		Policy: "policy.md", Tools: "tools.json", Handlers: "handlers.star", Database: "db.json",
		Clock:       Clock,
		Collections: map[string]pack.Collection{},
		Hints:       pack.Hints{Writes: map[string]pack.WriteHint{}},
	}
	byTool := map[string]*op{}
	for _, o := range ops {
		byTool[o.Tool] = o
	}
	for _, c := range colls {
		pc := pack.Collection{Key: c.Key, Noun: c.Noun, Within: c.Within}
		if o := byTool[c.Tools.Get]; o != nil && len(requiredArgs(o)) == 1 {
			pc.Get = o.Tool
		}
		if o := byTool[c.Tools.List]; o != nil && len(requiredArgs(o)) == 0 {
			pc.List = &pack.ListRef{Tool: o.Tool, Field: o.Handler.Items}
		}
		pc.Describe, pc.Compare = attributes(c, db[c.Name])
		m.Collections[c.Name] = pc
	}
	if u := usersOf(colls, byTool); u != nil {
		m.Users = *u
	}
	hg := &synthesizer{rng: rngFor(seed, "hints"), coll: &collection{Name: "hints"}, re: newRegexCache()}
	hg.now, _ = time.Parse(time.RFC3339, Clock)
	for _, o := range ops {
		h, ok := writeHint(o, m.Collections, hg)
		h.Phrase = writePhrase(o)
		switch {
		case o.Kind == "write" && eachKinds[o.Handler.Kind]:
			m.Hints.Writes[o.Tool] = pack.WriteHint{Skip: fmt.Sprintf("its argument %s is a list of records, which a customer does not dictate element by element; the agent still has the tool", o.Handler.Each)}
		case ok:
			m.Hints.Writes[o.Tool] = h
		case h.Phrase != "" && !strings.Contains(h.Phrase, "{target}"):
			// Words alone: the generator finds the target and the
			// arguments itself.
			m.Hints.Writes[o.Tool] = pack.WriteHint{Phrase: h.Phrase}
		}
	}
	m.Failures = failures(ops)
	return m
}

// writeHint says where a create, update or delete finds its arguments,
// only when every required argument gets a source the blueprint
// generator can use; otherwise it is left to infer them.
func writeHint(o *op, pcs map[string]pack.Collection, g *synthesizer) (pack.WriteHint, bool) {
	p := o.Handler
	c := p.Coll
	if c == nil || (p.Kind != hCreate && p.Kind != hUpdate && p.Kind != hDelete) {
		return pack.WriteHint{}, false
	}
	if p.Kind == hCreate && len(p.Scope) > 0 && (c.Parent == nil || pcs[c.Parent.Name].Key == "") {
		return objectArgs(o, g)
	}
	h := pack.WriteHint{Args: map[string]pack.Arg{}}
	writeTarget(&h, p, pcs)
	optional, ok := argSources(h, o, g)
	if !ok {
		return h, false
	}
	if p.Kind == hUpdate && optional == 0 {
		patternedArgs(h, o, g)
	}
	if h.Target == "" && len(h.Args) == 0 {
		return h, false
	}
	if len(h.Args) == 0 {
		h.Args = nil
	}
	return h, true
}

// writeTarget names the record a write acts on and the arguments that
// address it.
func writeTarget(h *pack.WriteHint, p plan, pcs map[string]pack.Collection) {
	c := p.Coll
	switch p.Kind {
	case hCreate:
		if len(p.Scope) > 0 {
			// The parent is the target, however the model comes to read
			// it (by a get within its own parent, through a list, or not
			// at all).
			h.Target = c.Parent.Name
			parentArgs(*h, p)
		}
	case hUpdate:
		if p.Adds != nil && c.Parent != nil && pcs[c.Parent.Name].Key != "" && pcs[p.Adds.Name].Key != "" {
			// A membership added to the parent: the customer names the
			// parent and which of the named collection's records to add
			// (one of the guild's roles), which no record is yet.
			h.Target = c.Parent.Name
			parentArgs(*h, p)
			h.Args[p.KeyArg] = pack.Arg{Source: "key:" + p.Adds.Name}
			return
		}
		fallthrough
	default:
		// The handler's collection is the target, readable by a get the
		// model finds or not, so a collection with the same noun is never
		// taken for it (deprecated_delete_pin deletes a channel's pin,
		// not a message's), and the key argument is the record's key
		// whatever it is called (integration_id sets id).
		h.Target = c.Name
		h.Args[p.KeyArg] = pack.Arg{Source: "target." + c.Key}
		for a, f := range p.Scope {
			h.Args[a] = pack.Arg{Source: "target." + f}
		}
	}
}

// argSources gives every required argument the target did not set a
// source, and an update up to two optional fields to change; false when
// a required argument has none. It returns how many optional fields it
// offered.
func argSources(h pack.WriteHint, o *op, g *synthesizer) (int, bool) {
	p := o.Handler
	c := p.Coll
	optional := 0
	for _, a := range o.Args {
		if _, set := h.Args[a.Name]; set {
			continue
		}
		field, isField := p.Fields[a.Name]
		if !a.Required {
			// An update changes something: offer up to two scalar fields
			// the customer can set to a value other records have.
			m, _ := a.Schema.(map[string]any)
			if p.Kind == hUpdate && isField && sameName(field, a.Name) && optional < 2 && m != nil && (m["enum"] != nil || scalar(m)) {
				h.Args[a.Name] = pack.Arg{Source: "slot"}
				optional++
			}
			continue
		}
		if p.Kind == hCreate && isField && field == c.Key && len(c.fresh) > 0 {
			// A client-supplied id: one no record has yet, or the create
			// fails with "already exists".
			h.Args[a.Name] = pack.Arg{Source: "slot:" + strings.Join(c.fresh[:min(3, len(c.fresh))], "|")}
			continue
		}
		src, ok := slotSource(a, g)
		if !ok {
			return optional, false
		}
		h.Args[a.Name] = pack.Arg{Source: src}
	}
	return optional, true
}

// patternedArgs is an update's fallback when nothing plain can be set: a
// field whose pattern holds its values ("env.prod-partner-network-connect")
// is offered values that match it, and an object of one scalar
// ({hugging_face_token}) is stated as that value, so the update still
// changes something.
func patternedArgs(h pack.WriteHint, o *op, g *synthesizer) {
	p := o.Handler
	optional := 0
	for _, a := range o.Args {
		m, _ := a.Schema.(map[string]any)
		field, isField := p.Fields[a.Name]
		if _, set := h.Args[a.Name]; set || a.Required || !isField || !sameName(field, a.Name) || optional == 2 || m == nil {
			continue
		}
		switch {
		case m["pattern"] != nil:
			if src, ok := slotSource(a, g); ok && strings.HasPrefix(src, "slot") {
				h.Args[a.Name] = pack.Arg{Source: src}
				optional++
			}
		case soleScalar(m):
			h.Args[a.Name] = pack.Arg{Source: "slot"}
			optional++
		}
	}
}

// soleScalar reports whether an object schema has one property, a
// scalar a person can state.
func soleScalar(m map[string]any) bool {
	props, _ := m["properties"].(map[string]any)
	if !hasType(m, "object") || len(props) != 1 {
		return false
	}
	for _, p := range props {
		pm, _ := p.(map[string]any)
		return pm != nil && scalar(pm)
	}
	return false
}

// parentArgs sets the arguments a nested record takes from its parent,
// the write's target: the parent's key and its own parents.
func parentArgs(h pack.WriteHint, p plan) {
	c := p.Coll
	for a, f := range p.Scope {
		for i, sf := range c.Scope {
			if sf.Field != f {
				continue
			}
			if i == len(c.Scope)-1 {
				h.Args[a] = pack.Arg{Source: "target." + c.Parent.Key}
			} else if pf := parentField(c.Parent, sf.Param); pf != "" {
				h.Args[a] = pack.Arg{Source: "target." + pf}
			}
		}
	}
}

// objectArgs is the hint of a create whose parent no collection holds
// (an NFS share's access points): the generator infers its target and
// scalar arguments from the data, and the hint gives what it cannot, a
// value built from the schema for each required object
// (access_policy).
func objectArgs(o *op, g *synthesizer) (pack.WriteHint, bool) {
	h := pack.WriteHint{Args: map[string]pack.Arg{}}
	for _, a := range o.Args {
		m, _ := a.Schema.(map[string]any)
		if !a.Required || m == nil || !hasType(m, "object") {
			continue
		}
		if src, ok := slotSource(a, g); ok && src != "const:{}" {
			h.Args[a.Name] = pack.Arg{Source: src}
		}
	}
	return h, len(h.Args) > 0
}

// sameName reports whether an argument sets the record's field of the
// same name, case and underscores aside (Twilio's FriendlyName sets
// friendly_name), as the generator finds a slot's field.
func sameName(field, arg string) bool {
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	return !strings.Contains(field, ".") && norm(field) == norm(arg)
}

func scalar(m map[string]any) bool {
	if _, hasPattern := m["pattern"]; hasPattern {
		return false
	}
	for _, t := range []string{"string", "integer", "number", "boolean"} {
		if hasType(m, t) {
			return true
		}
	}
	return false
}

// slotSource is how the customer supplies a required argument: stated
// freely ("slot") when its schema is simple, one of a few valid values
// when a pattern constrains it, or a constant valid value otherwise.
func slotSource(a arg, g *synthesizer) (string, bool) {
	m, ok := a.Schema.(map[string]any)
	if !ok {
		return "", false
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return "slot", true
	}
	validFor := validator(m)
	if ex, ok := m["examples"].([]any); ok && len(ex) > 0 && validFor(ex[0]) {
		return "slot", true
	}
	for _, t := range []string{"integer", "number", "boolean"} {
		if hasType(m, t) && !hasType(m, "string") {
			return "slot", true
		}
	}
	if hasType(m, "string") && m["pattern"] == nil && !hasType(m, "array") && !hasType(m, "object") {
		return "slot", true
	}
	if hasType(m, "string") && !hasType(m, "array") && !hasType(m, "object") {
		var vals []string
		for i := 0; i < 12 && len(vals) < 3; i++ {
			v, ok := g.value(m, a.Orig, 1).(string)
			if ok && v != "" && !strings.Contains(v, "|") && validFor(v) && !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		if len(vals) > 0 {
			return "slot:" + strings.Join(vals, "|"), true
		}
		return "", false
	}
	// A value that says something: an empty list or object only when
	// nothing else is valid. What the spec documents comes first: a
	// field whose description says only 65534 is supported shows that
	// in its example, where a random number would be refused.
	empty := ""
	for i := 0; i < 8; i++ {
		v := g.documented(m, a.Orig, 1)
		if !validFor(v) {
			continue
		}
		raw, err := json.Marshal(v)
		if err != nil {
			continue
		}
		if string(raw) != "[]" && string(raw) != "{}" {
			return "const:" + string(raw), true
		}
		empty = "const:" + string(raw)
	}
	return empty, empty != ""
}

// validator checks values against schema, compiled on first use and
// then once only: slotSource tries up to a dozen values per argument.
// A schema that does not compile accepts nothing.
func validator(schema any) func(v any) bool {
	var sch *jsonschema.Schema
	compiled := false
	return func(v any) bool {
		if !compiled {
			sch, _ = schemaOf(schema)
			compiled = true
		}
		if sch == nil {
			return false
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return false
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return false
		}
		return sch.Validate(inst) == nil
	}
}

func parentField(parent *collection, param string) string {
	for _, sf := range parent.Scope {
		if sf.Param == param {
			return sf.Field
		}
	}
	return ""
}

func requiredArgs(o *op) []string {
	var out []string
	for _, a := range o.Args {
		if a.Required {
			out = append(out, a.Name)
		}
	}
	return out
}

// usersOf declares a users collection only when the API clearly has
// customer accounts: a top-level customers collection, or users keyed by
// a login (username, email), read by that key. Users keyed by a bare id
// (Discord's) are other people the API acts on, not the customer.
func usersOf(colls []*collection, byTool map[string]*op) *pack.Users {
	for _, c := range colls {
		n := norm(c.Name)
		customers := n == "customer" || n == "customers"
		login := (n == "user" || n == "users") && has(norm(c.Key), "username", "email", "login", "handle")
		if len(c.Scope) > 0 || !customers && !login {
			continue
		}
		get := byTool[c.Tools.Get]
		if get == nil || len(requiredArgs(get)) != 1 {
			continue
		}
		u := &pack.Users{Collection: c.Name, Identify: []pack.Identify{{Tool: get.Tool, Args: map[string]string{get.Handler.KeyArg: c.Key}}}}
		first, last := "", ""
		for _, k := range sortedKeys(c.Props) {
			switch nk := norm(k); {
			case has(nk, "firstname", "givenname"):
				first = k
			case has(nk, "lastname", "surname", "familyname"):
				last = k
			}
		}
		switch {
		case first != "" && last != "":
			u.Name = []string{first, last}
		case c.Props["name"] != nil:
			u.Name = []string{"name"}
		}
		return u
	}
	return nil
}

// attributes picks the fields a customer describes a record by (enums
// and short, varied strings) and compares records by (numbers, dates).
func attributes(c *collection, recs map[string]any) (describe, compare []string) {
	skip := map[string]bool{c.Key: true}
	for _, sf := range c.Scope {
		skip[sf.Field] = true
	}
	for _, k := range sortedKeys(c.Props) {
		if skip[k] || !pathRE.MatchString(k) || len(describe) >= 6 && len(compare) >= 4 {
			continue
		}
		m, _ := c.Props[k].(map[string]any)
		if m == nil {
			continue
		}
		nk := norm(k)
		f := profile(recs, k)
		if !f.present || len(f.values) < 2 {
			continue
		}
		idLike := strings.HasSuffix(nk, "id") || strings.HasSuffix(nk, "sid") || strings.HasSuffix(nk, "uuid") ||
			has(nk, "url", "uri", "email", "password", "token", "secret", "phone")
		switch {
		case idLike:
		case f.numeric && len(compare) < 4:
			compare = append(compare, k)
		case f.dated && !dateOrderable(k, m):
		case f.dated && len(compare) < 4:
			compare = append(compare, k)
		case f.short && !f.numeric && len(describe) < 6 && (m["enum"] != nil || len(f.values) <= len(recs)):
			describe = append(describe, k)
		}
	}
	return describe, compare
}

// fieldProfile is what the records' values of one field have in common.
type fieldProfile struct {
	values                         map[string]bool
	short, present, numeric, dated bool
}

// profile reads field k across the records: its distinct values, whether
// every record has it, and whether all its values are short, numbers or
// dates.
func profile(recs map[string]any, k string) fieldProfile {
	f := fieldProfile{values: map[string]bool{}, short: true, present: true, numeric: true, dated: true}
	for _, r := range recs {
		rec, _ := r.(map[string]any)
		v, ok := rec[k]
		if !ok || v == nil {
			f.present = false
			continue
		}
		switch x := v.(type) {
		case string:
			f.values[x] = true
			if len(x) > 40 {
				f.short = false
			}
			f.numeric = false
			if !looksDate(x) {
				f.dated = false
			}
		case int64, float64:
			f.dated = false
			f.values[fmt.Sprint(x)] = true
		default:
			f.short, f.numeric, f.dated = false, false, false
		}
	}
	return f
}

// dateOrderable: a customer picks a record by this date ("the oldest"):
// the schema says it is a date, or the name says it is when the record
// was made; what was changed, removed or runs out orders nothing a
// customer means, nor describes a record (the date is left out).
func dateOrderable(k string, m map[string]any) bool {
	f, _ := m["format"].(string)
	if textual(k) {
		return false
	}
	if f == "date" || f == "date-time" {
		return !model.DateGone(k)
	}
	return model.DateOrder(k)
}

func looksDate(s string) bool {
	return len(s) >= 10 && s[4] == '-' && s[7] == '-' && s[0] >= '0' && s[0] <= '9'
}

// renderManifest writes the manifest as YAML in the struct's field order,
// without the users section when there are no users.
func renderManifest(m pack.Manifest) ([]byte, error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	top := doc.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		k := top.Content[i].Value
		v := top.Content[i+1]
		if (k == "users" && m.Users.Collection == "") || (k == "hints" && len(v.Content) == 0) {
			top.Content = slices.Delete(top.Content, i, i+2)
			i -= 2
		}
	}
	blockStyle(&doc)
	var b bytes.Buffer
	b.WriteString("# Domain pack generated by `synth domain import-openapi`; see IMPORT.md.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func blockStyle(n *yaml.Node) {
	n.Style &^= yaml.FlowStyle
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		n.Style &^= yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle
	}
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// renderPolicy is policy.md; failing says the pack declares failures,
// whose recovery the policy then prescribes.
func renderPolicy(title, desc string, colls []*collection, who persona, failing bool) []byte {
	var b strings.Builder
	call := who.Call
	fmt.Fprintf(&b, "# %s agent policy\n\n", oneLine(title))
	switch who.Role {
	case roleCustomer:
		fmt.Fprintf(&b, "You are a support agent for %s. You help customers by calling its tools.\n", oneLine(title))
	case roleDeveloper:
		fmt.Fprintf(&b, "You are an assistant for developers who build on %s. The user is %s: you look up and change their resources by calling the API's tools.\n", who.Org, who.Who)
	case roleOperator:
		fmt.Fprintf(&b, "You are an operations assistant for %s. The user is %s: you look up and change what they run by calling its tools.\n", oneLine(title), who.Who)
	default:
		fmt.Fprintf(&b, "You are an internal assistant at %s. The user is %s: you look up and change records by calling the tools of %s.\n", who.Org, who.Who, oneLine(title))
	}
	if d := trimText(desc, 400); d != "" {
		fmt.Fprintf(&b, "\nAbout the API: %s\n", d)
	}
	if len(colls) > 0 {
		var names []string
		for _, c := range colls {
			names = append(names, c.Noun)
		}
		slices.Sort(names)
		names = slices.Compact(names)
		fmt.Fprintf(&b, "\nThe records you work with: %s.\n", strings.Join(names, ", "))
	}
	b.WriteString(strings.ReplaceAll(`
## Rules

- Use only the tools to look up and change data. Never invent ids, values or results; if a tool does not give you something, say you do not have it.
- Before any action that changes data (create, update, delete or any other write), list the action's details (what it acts on, with its id, and the values it sets) and obtain the CALL's explicit confirmation (yes) to proceed.
- Make one write at a time: call at most one write tool per turn, and report its result before the next one.
- Read before you write: find the record the CALL means and check it is the one they describe.
- If a tool returns an error, explain it to the CALL; do not retry blindly.
- If the request cannot be handled with the tools, or the CALL asks for a person, transfer them to a human agent with `+"`"+transferTool+"`"+` and a short summary of the issue.
- Do not give opinions, advice or information beyond what the tools provide.
`, "CALL", call))
	if failing {
		b.WriteString(strings.ReplaceAll("- If a write fails because the service is busy or failing (too many requests, a timeout, a conflict, a server error), tell the CALL and make the same call once more. If a payment is declined or the resource is gone, apologize, say why, and transfer the CALL to a human agent.\n", "CALL", call))
	}
	return []byte(b.String())
}

// report is IMPORT.md.
func renderReport(res *Result, title, version, source string, ops []*op, colls []*collection, db map[string]map[string]any, doc *document, who persona) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Import of %s %s\n\n", oneLine(title), oneLine(version))
	fmt.Fprintf(&b, "Source: `%s` (OpenAPI %s). Generated by `synth domain import-openapi`.\n\n", oneLine(source), doc.version)
	var notes []string
	for _, o := range ops {
		for _, n := range o.Notes {
			notes = append(notes, o.Tool+": "+n)
		}
	}
	fmt.Fprintf(&b, "%d operations became %d tools (plus `%s`): %d mapped to data, %d unmapped. %s, %s",
		len(ops), len(ops), transferTool, res.Mapped, len(ops)-res.Mapped, plural(len(colls), "collection"), plural(len(res.Warnings), "warning"))
	if len(notes) > 0 {
		fmt.Fprintf(&b, ", %s", plural(len(notes), "recursive schema"))
	}
	b.WriteString(".\n\n")
	if n := len(doc.set.files) - 1; n > 0 {
		fmt.Fprintf(&b, "Besides the spec, %s its $refs name were read.\n\n", plural(n, "file"))
	}
	fmt.Fprintf(&b, "Who talks to the agent: %s (%s), in domain.yaml under hints.persona and in policy.md.\n\n", who.Role, who.Who)
	b.WriteString("Unmapped handlers fail with a message until you write them in handlers.star.\n\n")
	b.WriteString("## Operations\n\n| operation | operationId | tool | kind | handler |\n|---|---|---|---|---|\n")
	for _, o := range ops {
		h := handlerLabel(o.Handler)
		if o.Handler.Kind == hUnmapped {
			h += ": " + o.Handler.Reason
		}
		fmt.Fprintf(&b, "| `%s` | %s | `%s` | %s | %s |\n", o.label(), cell(o.ID), o.Tool, o.Kind, cell(h))
	}
	b.WriteString("\n## Collections\n\n| collection | key | records | parent | get | list |\n|---|---|---|---|---|---|\n")
	for _, c := range colls {
		parent := ""
		if c.Parent != nil {
			parent = c.Parent.Name
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s |\n", c.Name, c.Key, len(db[c.Name]), parent, c.Tools.Get, c.Tools.List)
	}
	// The count above is the number of items here: one list, nothing
	// counted that is not listed or listed that is not counted.
	fmt.Fprintf(&b, "\n## Warnings (%d)\n\n", len(res.Warnings))
	if len(res.Warnings) == 0 {
		b.WriteString("None.\n")
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(&b, "- %s\n", oneLine(w))
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, "\n## Recursive schemas (%d)\n\nCut at the cycle (the recursive reference became a plain object) so every tool schema is finite.\n\n", len(notes))
		for _, n := range notes {
			fmt.Fprintf(&b, "- %s\n", oneLine(n))
		}
	}
	return []byte(b.String())
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func cell(s string) string {
	return strings.ReplaceAll(oneLine(s), "|", "\\|")
}
