package openapi

import (
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"math/rand/v2"
	"net"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/synth-data/synth/model"
)

// Clock is the fixed "now" of imported packs; seed dates are drawn
// around it.
const Clock = "2025-06-02T09:00:00Z"

const (
	minRecords = 20
	maxRecords = 50
	freshKeys  = 64  // unused keys per string-keyed collection, for creates
	maxDepth   = 2   // nesting of generated objects
	maxStrLen  = 200 // generated strings are cut here unless minLength wants more
)

var (
	firstNames = strings.Fields(`Ava Liam Maya Noah Zoe Ethan Mia Lucas Ella Omar Nora Leo Ivy Mateo Chloe Ravi Hana Diego Lena Arjun Sofia Kenji Amara Felix Priya Jonas Elena Tariq Grace Yusuf Clara Hugo Nadia Theo Aisha Marco Julia Sven Lila Dev`)
	lastNames  = strings.Fields(`Garcia Smith Chen Patel Kim Nguyen Rossi Müller Novak Silva Johnson Ahmed Okafor Larsen Tanaka Cohen Murphy Haddad Kowalski Ibrahim Fischer Moreau Costa Sato Brown Lopez Singh Dubois Jensen Walker`)
	cities     = strings.Fields(`Lisbon Denver Osaka Nairobi Toronto Austin Lyon Seoul Porto Dublin Oslo Boston Madrid Perth Quito Accra Chicago Vienna Hanoi Cusco`)
	streets    = strings.Fields(`Oak Maple Cedar Pine Elm Birch Willow Harbor River Lake Hill Park`)
	adjectives = strings.Fields(`Amber Bright Calm Coral Crimson Golden Hidden Jade Lunar Misty Noble Quiet Rapid Silver Solar Swift Velvet Violet Wild Young`)
	nouns      = strings.Fields(`Falcon Harbor River Summit Meadow Lantern Orchid Comet Canyon Willow Beacon Garden Atlas Breeze Cedar Delta Ember Forest Glacier Island`)
	colors     = strings.Fields(`red blue green black white navy teal orange purple gray`)
	countries  = []string{"Portugal", "Canada", "Japan", "Kenya", "Brazil", "Germany", "India", "Mexico", "Norway", "Australia"}
	ccodes     = strings.Fields(`PT CA JP KE BR DE IN MX NO AU`)
	states     = strings.Fields(`active inactive pending archived`)
	categories = strings.Fields(`standard premium basic special limited`)
	currencies = strings.Fields(`USD EUR GBP JPY CAD`)
	languages  = strings.Fields(`en fr de es pt ja`)
)

// personWords are nouns of records that are people, so their "name" is
// a person's name and their email matches it.
var personWords = map[string]bool{"user": true, "customer": true, "member": true, "owner": true, "author": true,
	"person": true, "people": true, "contact": true, "employee": true, "staff": true, "player": true, "client": true,
	"patient": true, "student": true, "doctor": true, "teacher": true, "guest": true, "passenger": true,
	"traveler": true, "traveller": true, "attendee": true, "applicant": true, "candidate": true, "volunteer": true,
	"subscriber": true, "recipient": true, "buyer": true, "seller": true, "tenant": true, "driver": true,
	"participant": true, "speaker": true, "friend": true, "follower": true, "admin": true}

// personColl says a collection holds people: a word of its noun is a
// person word ("user", "team member"), not merely a part of one (an
// "account key" is not a person).
func personColl(c *collection) bool {
	for _, w := range strings.Fields(strings.ReplaceAll(strings.ToLower(c.Noun), "_", " ")) {
		if personWords[w] || personWords[singular(w)] {
			return true
		}
	}
	return false
}

// synthesizer draws one collection's records from its schema.
type synthesizer struct {
	rng   *rand.Rand
	now   time.Time
	coll  *collection
	rec   map[string]any // the record being built (emails follow names)
	index int
	// keys of every collection, for fields that name another one's id.
	keys map[string][]string
	// byNounID finds the collections a field like "pet_id" names.
	byNounID map[string][]*collection
	re       *regexCache
	// lex are the API's own words, for prose fields.
	lex *lexicon
	// taken are the names the collection's records have so far.
	taken map[string]bool
}

// regexCache compiles each pattern once per import.
type regexCache struct {
	re   map[string]*regexp.Regexp
	tree map[string]*syntax.Regexp
}

func newRegexCache() *regexCache {
	return &regexCache{re: map[string]*regexp.Regexp{}, tree: map[string]*syntax.Regexp{}}
}

// get returns the compiled pattern, or nil when Go cannot compile it.
func (c *regexCache) get(p string) *regexp.Regexp {
	if re, ok := c.re[p]; ok {
		return re
	}
	re, err := regexp.Compile(p)
	if err != nil {
		re = nil
	}
	c.re[p] = re
	return re
}

// gen draws a string matching pattern: good for the id patterns APIs use
// (^VA[0-9a-f]{32}$, snowflakes); false when it cannot.
func (c *regexCache) gen(rng *rand.Rand, p string) (string, bool) {
	re := c.get(p)
	if re == nil {
		return "", false
	}
	tree, ok := c.tree[p]
	if !ok {
		t, err := syntax.Parse(p, syntax.Perl)
		if err == nil {
			tree = t.Simplify()
		}
		c.tree[p] = tree
	}
	if tree == nil {
		return "", false
	}
	var b strings.Builder
	if !genNode(rng, tree, &b, 0) || b.Len() > 512 {
		return "", false
	}
	s := b.String()
	return s, re.MatchString(s)
}

func rngFor(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// seedData synthesizes every collection deterministically from seed.
func seedData(ctx context.Context, colls []*collection, lex *lexicon, seed uint64) (map[string]map[string]any, error) {
	now, _ := time.Parse(time.RFC3339, Clock)
	byNounID := map[string][]*collection{}
	for _, c := range colls {
		k := norm(c.Noun) + "id"
		byNounID[k] = append(byNounID[k], c)
		// A collection keyed by another field is named by it too: a
		// record's "domain_name" is a domain's key.
		if kn := norm(c.Noun) + norm(c.Key); c.Key != "" && norm(c.Key) != "id" && kn != k {
			byNounID[kn] = append(byNounID[kn], c)
		}
	}
	db := map[string]map[string]any{}
	keys := map[string][]string{}
	rc := newRegexCache()
	// Keys first: scope and foreign-key fields pick among them.
	order := slices.Clone(colls)
	slices.SortStableFunc(order, func(a, b *collection) int { return len(a.Scope) - len(b.Scope) })
	for _, c := range order {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		g := &synthesizer{rng: rngFor(seed, "keys/"+c.Name), now: now, coll: c, re: rc}
		n := minRecords + g.rng.IntN(maxRecords-minRecords+1)
		seen := map[string]bool{}
		var ks []string
		for i := 0; len(ks) < n+freshKeys && i < (n+freshKeys)*20; i++ {
			k := g.key(len(ks))
			if k != "" && !seen[k] {
				seen[k] = true
				ks = append(ks, k)
			}
		}
		if len(ks) > n {
			c.fresh = ks[n:]
			ks = ks[:n]
		}
		if len(c.fresh) == 0 {
			// A name the spec gives one example of ("my trigger"):
			// numbered variants in its style are the names creates
			// give, so a create has names no record has.
			for i := 0; i < freshKeys && len(ks) > 0; i++ {
				if v := g.variant(ks[i%len(ks)], i/len(ks)+2); v != "" && !seen[v] {
					seen[v] = true
					c.fresh = append(c.fresh, v)
				}
			}
		}
		keys[c.Name] = ks
	}
	for _, c := range order {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		g := &synthesizer{rng: rngFor(seed, "records/"+c.Name), now: now, coll: c, keys: keys, byNounID: byNounID, re: rc, lex: lex,
			taken: map[string]bool{}}
		recs := map[string]any{}
		for i, k := range keys[c.Name] {
			g.index = i
			rec := g.record(k, db)
			recs[withinKey(c, rec, k)] = rec
		}
		db[c.Name] = recs
	}
	return db, nil
}

// withinKey is a record's database key: its key, after its parents'
// for a collection keyed within them (pack.Collection.Within).
func withinKey(c *collection, rec any, k string) string {
	m, _ := rec.(map[string]any)
	if len(c.Within) == 0 || m == nil {
		return k
	}
	var parts []string
	for _, f := range c.Within {
		parts = append(parts, keyText(m[f]))
	}
	return strings.Join(append(parts, k), "/")
}

// keyText is a field's value as a database key, as the pack spells it:
// text as it is, whole numbers in decimal.
func keyText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		if x == math.Trunc(x) {
			return strconv.FormatInt(int64(x), 10)
		}
	}
	return fmt.Sprint(v)
}

// key draws one key valid for the item path parameter.
func (g *synthesizer) key(i int) string {
	if g.coll.KeyType == "integer" {
		lo, hi := 1.0, math.Inf(1)
		if m, ok := g.coll.KeySchema.(map[string]any); ok {
			if v, ok := m["minimum"].(float64); ok && v > lo {
				lo = v
			}
			if v, ok := m["maximum"].(float64); ok {
				hi = v
			}
		}
		if lo+float64(i) > hi {
			return ""
		}
		return strconv.FormatInt(int64(lo)+int64(i), 10)
	}
	g.rec = map[string]any{}
	v := g.value(g.keySchema(), g.coll.Key, 1)
	s, ok := v.(string)
	if !ok {
		s = fmt.Sprint(v)
	}
	if m, ok := g.coll.KeySchema.(map[string]any); ok {
		if p, ok := m["pattern"].(string); ok {
			if re := g.re.get(p); re != nil && !re.MatchString(s) {
				return ""
			}
		}
	}
	return s
}

// variant numbers a key in the example's own style ("my trigger 2",
// "edge-node-2"), or is "" when the key's schema constrains its shape
// (a pattern, a format, an enum, a length) or the key is a number a
// suffix would make into something else.
func (g *synthesizer) variant(k string, n int) string {
	m, _ := g.keySchema().(map[string]any)
	if k == "" || g.coll.KeyType == "integer" || m == nil || m["pattern"] != nil || m["format"] != nil || m["enum"] != nil || m["maxLength"] != nil {
		return ""
	}
	if _, err := strconv.ParseFloat(k, 64); err == nil {
		return ""
	}
	sep := "-"
	for _, s := range []string{" ", "_", "-", "."} {
		if strings.Contains(k, s) {
			sep = s
			break
		}
	}
	return k + sep + strconv.Itoa(n)
}

// keySchema is what keys are drawn from: the path parameter's schema,
// unless it says only "a string" and the record's key field says more
// (an example, a format, a pattern).
func (g *synthesizer) keySchema() any {
	if f := g.coll.Props[g.coll.Key]; hasStringType(f) {
		return richer(g.coll.KeySchema, f)
	}
	return g.coll.KeySchema
}

// record builds one record; its key and scope fields are fixed first.
func (g *synthesizer) record(key string, db map[string]map[string]any) map[string]any {
	c := g.coll
	g.rec = map[string]any{}
	g.rec[c.Key] = key
	// The key field has the record schema's type: an integer id stays a
	// number even when the path parameter also takes strings.
	if c.KeyType == "integer" || isInteger(c.Props[c.Key]) && !hasStringType(c.Props[c.Key]) {
		if n, err := strconv.ParseInt(key, 10, 64); err == nil {
			g.rec[c.Key] = n
		}
	}
	// Scope fields: the parent record, and its own scope values for the
	// same parameters, so a nested record's path ids agree.
	if c.Parent != nil && len(c.Scope) > 0 {
		pks := g.keys[c.Parent.Name]
		if len(pks) > 0 {
			pk := pks[g.rng.IntN(len(pks))]
			prec, _ := db[c.Parent.Name][pk].(map[string]any)
			last := c.Scope[len(c.Scope)-1]
			g.rec[last.Field] = fieldTyped(c.Props[last.Field], pk, c.Parent.KeyType)
			for _, sf := range c.Scope[:len(c.Scope)-1] {
				for _, psf := range c.Parent.Scope {
					if psf.Param == sf.Param && prec != nil {
						g.rec[sf.Field] = prec[psf.Field]
					}
				}
			}
		}
	}
	for _, sf := range c.Scope {
		if _, ok := g.rec[sf.Field]; !ok {
			g.rec[sf.Field] = g.value(richer(sf.Schema, c.Props[sf.Field]), sf.Field, 1)
		}
	}
	for _, name := range g.order() {
		if _, done := g.rec[name]; done {
			continue
		}
		if fk, ok := g.foreign(name, c.Props[name]); ok {
			g.rec[name] = fk
			continue
		}
		g.rec[name] = g.value(c.Props[name], name, 1)
		if naming(name) {
			g.rec[name] = g.unused(name)
		}
	}
	g.settle(g.rec)
	g.settleDNS(g.rec, c.Props)
	// A record keyed by an address (a reserved IP) holds that address.
	if k, ok := g.rec[c.Key].(string); ok && c.Key != "ip" && net.ParseIP(k) != nil {
		if v, ok := g.rec["ip"].(string); ok && net.ParseIP(v) != nil {
			g.rec["ip"] = k
		}
	}
	settleRegion(g.rec)
	return g.rec
}

// naming: the field is what a person calls a record by ("name",
// "title", "friendly_name"), so two records never share its value.
func naming(field string) bool {
	n := norm(field)
	return n == "name" || has(n, "title", "displayname", "friendlyname")
}

// unused is the record's value of a naming field, redrawn while another
// record of the collection has it: "the special event called Misty
// Island" is one event, never the cheapest and the dearest at once.
func (g *synthesizer) unused(field string) any {
	v := g.rec[field]
	for i := 0; i < 20; i++ {
		s, ok := v.(string)
		if !ok || !g.taken[s] {
			break
		}
		v = g.value(g.coll.Props[field], field, 1)
	}
	if s, ok := v.(string); ok {
		g.taken[s] = true
	}
	return v
}

// order puts name fields before the fields derived from them (emails,
// usernames).
func (g *synthesizer) order() []string {
	names := sortedKeys(g.coll.Props)
	rank := func(n string) int {
		switch l := norm(n); {
		case strings.Contains(l, "first") || strings.Contains(l, "last") || l == "name" || strings.Contains(l, "fullname"):
			return 0
		case strings.Contains(l, "email") || strings.Contains(l, "username"):
			return 2
		}
		return 1
	}
	slices.SortStableFunc(names, func(a, b string) int { return rank(a) - rank(b) })
	return names
}

// foreign fills a field named after another collection's id ("petId",
// "user_id") with one of its keys.
func (g *synthesizer) foreign(name string, s any) (any, bool) {
	nn := norm(name)
	if nn == "id" || len(g.byNounID[nn]) == 0 {
		return nil, false
	}
	for _, o := range g.byNounID[nn] {
		if o == g.coll {
			continue
		}
		ks := g.keys[o.Name]
		if len(ks) == 0 {
			return nil, false
		}
		k := ks[g.rng.IntN(len(ks))]
		if isInteger(s) {
			if n, err := strconv.ParseInt(k, 10, 64); err == nil {
				return n, true
			}
			return nil, false
		}
		return k, true
	}
	return nil, false
}

// fieldTyped is a key as the field holding it is typed: a number when
// the field's schema is an integer, text when it is a string, else as
// the key's own collection types it.
func fieldTyped(field any, k, keyType string) any {
	switch {
	case isInteger(field) && !hasStringType(field):
		return typedKey(k, "integer")
	case hasStringType(field) && !isInteger(field):
		return k
	}
	return typedKey(k, keyType)
}

// richer is the schema that says more about a value: a path
// parameter's bare {type: string}, or the record field's schema with a
// pattern, format or example.
func richer(param, field any) any {
	says := func(s any) bool {
		m, ok := s.(map[string]any)
		return ok && (m["pattern"] != nil || m["format"] != nil || m["enum"] != nil || m["examples"] != nil || m["anyOf"] != nil)
	}
	if !says(param) && says(field) {
		return field
	}
	return param
}

func typedKey(k, typ string) any {
	if typ == "integer" {
		if n, err := strconv.ParseInt(k, 10, 64); err == nil {
			return n
		}
	}
	return k
}

func (g *synthesizer) pick(list []string) string { return list[g.rng.IntN(len(list))] }

// value draws a value valid for schema s, shaped by the property name.
func (g *synthesizer) value(s any, name string, depth int) any {
	m, ok := s.(map[string]any)
	if !ok {
		return g.str(nil, name)
	}
	if _, ok := m["allOf"]; ok {
		m = mergeAllOf(m, 0)
	}
	// Deep down, a value that may be null is null: the record stays
	// valid without expanding what it nests.
	if depth >= maxDepth && nullable(m) && !scalarSchema(m) {
		return nil
	}
	if v, ok := m["const"]; ok {
		return v
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		nonNull := slices.DeleteFunc(slices.Clone(e), func(x any) bool { return x == nil })
		if len(nonNull) == 0 {
			return nil
		}
		return nonNull[g.rng.IntN(len(nonNull))]
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[k].([]any); ok {
			for _, b := range alts {
				if bm, ok := b.(map[string]any); ok && hasType(bm, "null") && len(bm) <= 2 {
					continue
				}
				// The branch with the outer keywords (a description, a
				// type) it sits beside.
				if bm, ok := b.(map[string]any); ok {
					merged := clone(bm)
					for key, v := range m {
						if _, has := merged[key]; !has && key != k {
							merged[key] = v
						}
					}
					b = merged
				}
				return g.value(b, name, depth)
			}
			return nil
		}
	}
	t := g.typeOf(m, name)
	switch t {
	case "object":
		return g.object(m, depth)
	case "array":
		return g.array(m, name, depth)
	case "integer", "number":
		return g.number(m, name, t == "integer")
	case "boolean":
		if d, ok := m["default"].(bool); ok && g.rng.IntN(3) > 0 {
			return d
		}
		return g.rng.IntN(2) == 0
	case "null":
		return nil
	}
	return g.str(m, name)
}

// documented is a value for a schema built from what the spec says of
// it before anything random: its const, then its first example or
// default that the schema accepts, and for an object the same for each
// property it holds (enums and bounds are kept by value's own draw).
// A write's argument built from the schema is then one the API takes.
func (g *synthesizer) documented(s any, name string, depth int) any {
	m, ok := s.(map[string]any)
	if !ok {
		return g.value(s, name, depth)
	}
	if _, ok := m["allOf"]; ok {
		m = mergeAllOf(m, 0)
	}
	if v, ok := m["const"]; ok {
		return v
	}
	if ex := examples(m); len(ex) > 0 {
		valid := validator(m)
		for _, e := range ex {
			if t, isText := e.(string); isText {
				if placeholder(t) {
					continue
				}
				e = model.Unquote(t)
			}
			if e != nil && valid(e) {
				return e
			}
		}
	}
	v := g.value(m, name, depth)
	obj, ok := v.(map[string]any)
	if !ok {
		return v
	}
	props, _, _ := flattenObject(m, 0)
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if p, ok := props[k]; ok {
			obj[k] = g.documented(p, k, depth+1)
		}
	}
	return obj
}

// nullable: null is one of the values the schema takes.
func nullable(m map[string]any) bool {
	if hasType(m, "null") {
		return true
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		for _, b := range asList(m[k]) {
			if bm, ok := b.(map[string]any); ok && hasType(bm, "null") {
				return true
			}
		}
	}
	return false
}

// mergeAllOf folds allOf members into one schema for drawing a value:
// properties and required lists joined, other keywords taken from the
// first that has them.
func mergeAllOf(m map[string]any, depth int) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if k != "allOf" {
			out[k] = v
		}
	}
	for _, b := range asList(m["allOf"]) {
		bm, ok := b.(map[string]any)
		if !ok || depth > 8 {
			continue
		}
		if _, nested := bm["allOf"]; nested {
			bm = mergeAllOf(bm, depth+1)
		}
		for k, v := range bm {
			switch k {
			case "properties":
				props, _ := out[k].(map[string]any)
				props = clone(props)
				for pk, pv := range v.(map[string]any) {
					if _, has := props[pk]; !has {
						props[pk] = pv
					}
				}
				out[k] = props
			case "required":
				out[k] = append(slices.Clip(asList(out[k])), asList(v)...)
			default:
				if _, has := out[k]; !has {
					out[k] = v
				}
			}
		}
	}
	return out
}

func (g *synthesizer) typeOf(m map[string]any, name string) string {
	var ts []string
	switch v := m["type"].(type) {
	case string:
		ts = []string{v}
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				ts = append(ts, s)
			}
		}
	}
	ts = slices.DeleteFunc(ts, func(t string) bool { return t == "null" })
	for _, pref := range []string{"object", "array", "string", "integer", "number", "boolean"} {
		if slices.Contains(ts, pref) {
			return pref
		}
	}
	if len(ts) == 0 && m["type"] != nil {
		return "null"
	}
	if m["properties"] != nil {
		return "object"
	}
	if m["items"] != nil {
		return "array"
	}
	if ex := examples(m); len(ex) > 0 {
		switch ex[0].(type) {
		case bool:
			return "boolean"
		case int64:
			return "integer"
		case float64:
			return "number"
		}
	}
	return "string"
}

func examples(m map[string]any) []any {
	var out []any
	out = append(out, asList(m["examples"])...)
	if d, ok := m["default"]; ok && d != nil {
		out = append(out, d)
	}
	return out
}

func (g *synthesizer) object(m map[string]any, depth int) any {
	props, req, _ := flattenObject(m, 0)
	out := map[string]any{}
	if depth > maxDepth {
		// Below the depth limit only what the schema requires, so the
		// value stays valid; far below, nothing.
		if depth > maxDepth+3 {
			return out
		}
		saved := g.rec
		g.rec = out
		for _, k := range req {
			out[k] = g.value(props[k], k, depth+1)
		}
		g.rec = saved
		return out
	}
	saved := g.rec
	g.rec = out
	// At the deepest level only the required properties, or a few
	// scalars when none is required: an empty {} says nothing.
	extra := 0
	for _, k := range sortedKeys(props) {
		if depth == maxDepth && !slices.Contains(req, k) {
			pm, _ := props[k].(map[string]any)
			if len(req) > 0 || extra >= 3 || pm == nil || !scalarSchema(pm) {
				continue
			}
			extra++
		}
		out[k] = g.value(props[k], k, depth+1)
	}
	g.settle(out)
	settleRegion(out)
	g.rec = saved
	return out
}

// scalarSchema: a string, number, integer or boolean, or an enum.
func scalarSchema(m map[string]any) bool {
	if m["enum"] != nil || m["const"] != nil {
		return true
	}
	return !hasType(m, "object", "array") && hasType(m, "string", "number", "integer", "boolean")
}

func hasStringType(s any) bool {
	m, ok := s.(map[string]any)
	return ok && hasType(m, "string")
}

func (g *synthesizer) array(m map[string]any, name string, depth int) any {
	lo, hi := 0, 3
	if depth >= maxDepth {
		hi = 0
	}
	if v, ok := m["minItems"].(int64); ok {
		lo = int(min(v, 5))
	}
	if v, ok := m["maxItems"].(int64); ok && int(v) < hi {
		hi = int(v)
	}
	hi = max(hi, lo)
	n := lo + g.rng.IntN(hi-lo+1)
	if n == 0 && lo == 0 && depth < maxDepth && g.rng.IntN(4) > 0 {
		n = 1
	}
	if im, ok := m["items"].(map[string]any); ok && depth+1 > maxDepth && !scalarSchema(im) && lo == 0 {
		n = 0
	}
	out := make([]any, 0, n)
	item := singular(name)
	// A list whose description names its values ("Possible event
	// types: `factor.created, …`") holds some of them.
	vals := listed(m, nil)
	for i := 0; i < n; i++ {
		var v any
		if im, ok := m["items"].(map[string]any); ok && len(vals) > 0 && hasType(im, "string") && im["enum"] == nil {
			v = vals[g.rng.IntN(len(vals))]
			if slices.Contains(out, v) {
				continue
			}
		} else {
			v = g.value(m["items"], item, depth+1)
		}
		if m["uniqueItems"] == true && slices.ContainsFunc(out, func(x any) bool { return fmt.Sprint(x) == fmt.Sprint(v) }) {
			continue
		}
		out = append(out, v)
	}
	return out
}

// number draws a number in the schema's bounds, scaled by the name.
func (g *synthesizer) number(m map[string]any, name string, integer bool) any {
	n := norm(name)
	lo, hi, money, ranged := nameRange(n)
	if ex := examples(m); len(ex) > 0 && !money {
		if f, ok := toFloat(ex[g.rng.IntN(len(ex))]); ok && !(ranged && (f < lo || f > hi)) {
			nlo, nhi := lo, hi
			lo, hi = f*0.5, f*1.5+1
			if f < 0 {
				lo, hi = f*1.5, f*0.5
			}
			if ranged {
				lo, hi = math.Max(lo, nlo), math.Min(hi, nhi)
			}
		}
	}
	lo, hi = schemaBounds(m, lo, hi, integer)
	x := lo + g.rng.Float64()*(hi-lo)
	if mult, ok := m["multipleOf"].(float64); ok && mult > 0 {
		x = math.Ceil(lo/mult)*mult + math.Floor((x-lo)/mult)*mult
		if integer {
			return int64(x)
		}
		return x
	}
	if integer {
		return int64(math.Max(math.Ceil(lo), math.Min(math.Floor(hi), math.Round(x))))
	}
	return math.Round(x*100) / 100
}

// nameRange is the range a number's name suggests; money takes no cue
// from examples, and a ranged name keeps an example inside its range.
func nameRange(n string) (lo, hi float64, money, ranged bool) {
	lo, hi = 0.0, 100.0
	switch {
	case has(n, "price", "cost", "amount", "total", "fee", "balance", "salary", "charge", "subtotal"):
		lo, hi, money = 5, 500, true
	case has(n, "quantity", "qty", "count", "number", "num", "stock", "seats", "capacity"):
		lo, hi = 1, 20
	case has(n, "age"):
		lo, hi = 18, 80
	case has(n, "year"):
		lo, hi = 1990, 2025
	case has(n, "rating", "stars", "score"):
		lo, hi = 1, 5
	case has(n, "lat"):
		lo, hi = -60, 60
	case has(n, "lon", "lng"):
		lo, hi = -170, 170
	case has(n, "duration", "seconds", "minutes", "timeout", "ttl"):
		lo, hi = 1, 600
	case has(n, "temperature", "topp"):
		// Sampling settings of language models: an example outside
		// the range ("123") is a placeholder.
		lo, hi, ranged = 0, 1, true
	case n == "port" || strings.HasSuffix(n, "port"):
		lo, hi = 1024, 9999
	case has(n, "percent"):
		lo, hi, ranged = 0, 100, true
	case strings.HasSuffix(n, "id"):
		lo, hi = 1, 99999
	}
	return lo, hi, money, ranged
}

// schemaBounds narrows [lo, hi] to the schema's minimum and maximum,
// inclusive or exclusive.
func schemaBounds(m map[string]any, lo, hi float64, integer bool) (float64, float64) {
	if v, ok := m["minimum"].(float64); ok {
		lo = math.Max(lo, v)
		if hi < lo {
			hi = lo + 100
		}
	}
	if v, ok := m["exclusiveMinimum"].(float64); ok && lo <= v {
		lo = v + 1
		if hi < lo {
			hi = lo + 100
		}
	}
	if v, ok := m["maximum"].(float64); ok {
		hi = math.Min(hi, v)
	}
	if v, ok := m["exclusiveMaximum"].(float64); ok && hi >= v {
		hi = v - 1
		if !integer {
			hi = v - 0.01
		}
	}
	hi = max(hi, lo)
	return lo, hi
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func has(n string, subs ...string) bool {
	return slices.ContainsFunc(subs, func(s string) bool { return strings.Contains(n, s) })
}

func genNode(rng *rand.Rand, re *syntax.Regexp, b *strings.Builder, depth int) bool {
	if depth > 50 || b.Len() > 512 {
		return false
	}
	rep := func(lo, hi int) bool {
		if hi < 0 {
			hi = lo + 3
		}
		hi = min(hi, lo+8)
		n := lo + rng.IntN(hi-lo+1)
		for i := 0; i < n; i++ {
			if !genNode(rng, re.Sub[0], b, depth+1) {
				return false
			}
		}
		return true
	}
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		r, ok := classRune(rng, re.Rune)
		if !ok {
			return false
		}
		b.WriteRune(r)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte("abcdefghijklmnopqrstuvwxyz"[rng.IntN(26)])
	case syntax.OpStar:
		return rep(0, 3)
	case syntax.OpPlus:
		return rep(1, 3)
	case syntax.OpQuest:
		return rep(0, 1)
	case syntax.OpRepeat:
		return rep(re.Min, re.Max)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !genNode(rng, s, b, depth+1) {
				return false
			}
		}
	case syntax.OpAlternate:
		return genNode(rng, re.Sub[rng.IntN(len(re.Sub))], b, depth+1)
	case syntax.OpCapture:
		return genNode(rng, re.Sub[0], b, depth+1)
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
	default:
		return false
	}
	return true
}

// classRune picks a rune from a class, preferring readable ASCII.
func classRune(rng *rand.Rand, ranges []rune) (rune, bool) {
	var cands []rune
	for _, r := range "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_." {
		for i := 0; i+1 < len(ranges); i += 2 {
			if r >= ranges[i] && r <= ranges[i+1] {
				cands = append(cands, r)
				break
			}
		}
	}
	if len(cands) > 0 {
		return cands[rng.IntN(len(cands))], true
	}
	if len(ranges) >= 2 {
		return ranges[0], true
	}
	return 0, false
}
