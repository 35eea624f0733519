package openapi

import (
	"context"
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
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
	words      = strings.Fields(`quick review of the new plan with notes for the team about launch timing and budget details`)
	countries  = []string{"Portugal", "Canada", "Japan", "Kenya", "Brazil", "Germany", "India", "Mexico", "Norway", "Australia"}
	ccodes     = strings.Fields(`PT CA JP KE BR DE IN MX NO AU`)
	states     = strings.Fields(`active inactive pending archived`)
	categories = strings.Fields(`standard premium basic special limited`)
	currencies = strings.Fields(`USD EUR GBP JPY CAD`)
	languages  = strings.Fields(`en fr de es pt ja`)
)

// personColl says a collection holds people, so "name" means a person's.
func personColl(name string) bool {
	for _, w := range []string{"user", "customer", "member", "owner", "author", "person", "people", "contact", "employee", "staff", "account", "player", "client", "patient", "student"} {
		if strings.Contains(name, w) {
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
func seedData(ctx context.Context, colls []*collection, seed uint64) (map[string]map[string]any, error) {
	now, _ := time.Parse(time.RFC3339, Clock)
	byNounID := map[string][]*collection{}
	for _, c := range colls {
		k := norm(c.Noun) + "id"
		byNounID[k] = append(byNounID[k], c)
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
		if c.KeyType == "integer" {
			c.fresh = nil
		}
		keys[c.Name] = ks
	}
	for _, c := range order {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		g := &synthesizer{rng: rngFor(seed, "records/"+c.Name), now: now, coll: c, keys: keys, byNounID: byNounID, re: rc}
		recs := map[string]any{}
		for i, k := range keys[c.Name] {
			g.index = i
			recs[k] = g.record(k, db)
		}
		db[c.Name] = recs
	}
	return db, nil
}

// key draws one key valid for the item path parameter.
func (g *synthesizer) key(i int) string {
	if g.coll.KeyType == "integer" {
		lo := 1.0
		if m, ok := g.coll.KeySchema.(map[string]any); ok {
			if v, ok := m["minimum"].(float64); ok && v > lo {
				lo = v
			}
		}
		return strconv.FormatInt(int64(lo)+int64(i), 10)
	}
	g.rec = map[string]any{}
	v := g.value(g.coll.KeySchema, g.coll.Key, 1)
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

// record builds one record; its key and scope fields are fixed first.
func (g *synthesizer) record(key string, db map[string]map[string]any) map[string]any {
	c := g.coll
	g.rec = map[string]any{}
	if c.KeyType == "integer" {
		n, _ := strconv.ParseInt(key, 10, 64)
		g.rec[c.Key] = n
	} else {
		g.rec[c.Key] = key
	}
	// Scope fields: the parent record, and its own scope values for the
	// same parameters, so a nested record's path ids agree.
	if c.Parent != nil && len(c.Scope) > 0 {
		pks := g.keys[c.Parent.Name]
		if len(pks) > 0 {
			pk := pks[g.rng.IntN(len(pks))]
			prec, _ := db[c.Parent.Name][pk].(map[string]any)
			last := c.Scope[len(c.Scope)-1]
			g.rec[last.Field] = typedKey(pk, c.Parent.KeyType)
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
			g.rec[sf.Field] = g.value(sf.Schema, sf.Field, 1)
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
	}
	return g.rec
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
	if !strings.HasSuffix(nn, "id") || nn == "id" {
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
	if m["properties"] != nil || m["allOf"] != nil {
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
		return out
	}
	saved := g.rec
	g.rec = out
	for _, k := range sortedKeys(props) {
		if depth == maxDepth && !slices.Contains(req, k) {
			continue
		}
		out[k] = g.value(props[k], k, depth+1)
	}
	g.rec = saved
	return out
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
	if hi < lo {
		hi = lo
	}
	n := lo + g.rng.IntN(hi-lo+1)
	if n == 0 && lo == 0 && depth < maxDepth && g.rng.IntN(2) == 0 {
		n = 1
	}
	out := make([]any, 0, n)
	item := singular(name)
	for i := 0; i < n; i++ {
		v := g.value(m["items"], item, depth+1)
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
	lo, hi := 0.0, 100.0
	money := false
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
	case strings.HasSuffix(n, "id"):
		lo, hi = 1, 99999
	}
	if ex := examples(m); len(ex) > 0 && !money {
		if f, ok := toFloat(ex[g.rng.IntN(len(ex))]); ok {
			lo, hi = f*0.5, f*1.5+1
			if f < 0 {
				lo, hi = f*1.5, f*0.5
			}
		}
	}
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
	if hi < lo {
		hi = lo
	}
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
	for _, s := range subs {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// str draws a string: format first, then a pattern, then the name, then
// the examples, then words.
func (g *synthesizer) str(m map[string]any, name string) any {
	s := g.rawStr(m, name)
	if m == nil {
		return s
	}
	if p, ok := m["pattern"].(string); ok {
		if re := g.re.get(p); re != nil && !re.MatchString(s) {
			if v, ok := g.re.gen(g.rng, p); ok {
				s = v
			}
		}
	}
	if v, ok := m["minLength"].(int64); ok && int64(len([]rune(s))) < v {
		s += strings.Repeat("x", int(v)-len([]rune(s)))
	}
	if v, ok := m["maxLength"].(int64); ok && int64(len([]rune(s))) > v {
		s = string([]rune(s)[:v])
	}
	return s
}

func (g *synthesizer) rawStr(m map[string]any, name string) string {
	n := norm(name)
	format, _ := m["format"].(string)
	switch format {
	case "date-time":
		return g.date(n).Format(time.RFC3339)
	case "date":
		return g.date(n).Format("2006-01-02")
	case "time":
		return fmt.Sprintf("%02d:%02d:00", 8+g.rng.IntN(10), 15*g.rng.IntN(4))
	case "email", "idn-email":
		return g.email()
	case "uri", "url", "iri", "uri-reference":
		return fmt.Sprintf("https://example.com/%s/%d", snake(g.coll.Name), 1000+g.rng.IntN(9000))
	case "uuid":
		return g.uuid()
	case "ipv4":
		return fmt.Sprintf("10.%d.%d.%d", g.rng.IntN(256), g.rng.IntN(256), 1+g.rng.IntN(254))
	case "ipv6":
		return fmt.Sprintf("2001:db8::%x", g.rng.IntN(65536))
	case "hostname":
		return strings.ToLower(g.pick(nouns)) + ".example.com"
	case "byte":
		return base64.StdEncoding.EncodeToString([]byte(g.pick(words) + " " + g.pick(words)))
	case "binary":
		return "file-" + strconv.Itoa(1000+g.rng.IntN(9000)) + ".bin"
	case "password":
		return "secret-" + strconv.Itoa(1000+g.rng.IntN(9000))
	}
	if m != nil {
		if p, ok := m["pattern"].(string); ok {
			if v, ok := g.re.gen(g.rng, p); ok {
				return v
			}
		}
	}
	if v, ok := g.byName(n); ok {
		return v
	}
	if m != nil {
		if ex := examples(m); len(ex) > 0 {
			if s, ok := ex[g.rng.IntN(len(ex))].(string); ok {
				return s
			}
		}
	}
	if strings.HasSuffix(n, "id") || strings.HasSuffix(n, "key") || strings.HasSuffix(n, "token") {
		return g.alnum(12)
	}
	return g.pick(words) + " " + g.pick(words)
}

func (g *synthesizer) byName(n string) (string, bool) {
	person := personColl(g.coll.Name)
	switch {
	case has(n, "email", "mail"):
		return g.email(), true
	case has(n, "firstname", "givenname", "forename"):
		return g.pick(firstNames), true
	case has(n, "lastname", "surname", "familyname"):
		return g.pick(lastNames), true
	case has(n, "username", "login", "handle", "nickname"):
		return strings.ToLower(g.first()) + strconv.Itoa(10+g.rng.IntN(90)), true
	case has(n, "fullname", "displayname") || (n == "name" && person):
		return g.first() + " " + g.last(), true
	case has(n, "phone", "mobile", "fax"):
		return fmt.Sprintf("+1-555-%03d-%04d", g.rng.IntN(1000), g.rng.IntN(10000)), true
	case n == "name" || has(n, "title", "label", "friendlyname"):
		return g.pick(adjectives) + " " + g.pick(nouns), true
	case has(n, "city", "town"):
		return g.pick(cities), true
	case has(n, "countrycode"):
		return g.pick(ccodes), true
	case has(n, "country"):
		return g.pick(countries), true
	case has(n, "street", "address", "line1"):
		return fmt.Sprintf("%d %s St", 1+g.rng.IntN(999), g.pick(streets)), true
	case has(n, "zip", "postal", "postcode"):
		return fmt.Sprintf("%05d", g.rng.IntN(100000)), true
	case has(n, "url", "uri", "link", "website", "href", "avatar", "image", "photo", "icon"):
		return fmt.Sprintf("https://example.com/%s/%d.png", snake(g.coll.Name), 1000+g.rng.IntN(9000)), true
	case has(n, "description", "summary", "comment", "note", "bio", "message", "content", "text", "body", "details"):
		return fmt.Sprintf("%s %s %s %s.", g.pick(adjectives), strings.ToLower(g.pick(nouns)), g.pick(words), g.pick(words)), true
	case has(n, "colo"):
		return g.pick(colors), true
	case has(n, "currency"):
		return g.pick(currencies), true
	case has(n, "language", "locale", "lang"):
		return g.pick(languages), true
	case n == "status" || n == "state":
		return g.pick(states), true
	case n == "type" || n == "kind" || has(n, "category"):
		return g.pick(categories), true
	case has(n, "date", "time", "created", "updated", "modified", "expires", "timestamp") || strings.HasSuffix(n, "at"):
		return g.date(n).Format(time.RFC3339), true
	case has(n, "password", "secret"):
		return "secret-" + strconv.Itoa(1000+g.rng.IntN(9000)), true
	}
	return "", false
}

// first and last reuse the record's name fields so an email matches the
// person.
func (g *synthesizer) first() string {
	for _, k := range sortedKeys(g.rec) {
		if s, ok := g.rec[k].(string); ok && has(norm(k), "firstname", "givenname") {
			return s
		}
	}
	return g.pick(firstNames)
}

func (g *synthesizer) last() string {
	for _, k := range sortedKeys(g.rec) {
		if s, ok := g.rec[k].(string); ok && has(norm(k), "lastname", "surname") {
			return s
		}
	}
	return g.pick(lastNames)
}

func (g *synthesizer) email() string {
	f, l := g.first(), g.last()
	return fmt.Sprintf("%s.%s%d@example.com", asciiLower(f), asciiLower(l), g.index+1)
}

func asciiLower(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
		case r == 'ü':
			b.WriteString("ue")
		}
	}
	return b.String()
}

func (g *synthesizer) date(n string) time.Time {
	day := 24 * time.Hour
	switch {
	case has(n, "birth", "dob"):
		return time.Date(1950+g.rng.IntN(55), time.Month(1+g.rng.IntN(12)), 1+g.rng.IntN(28), 0, 0, 0, 0, time.UTC)
	case has(n, "expire", "due", "end", "until", "deadline", "scheduled", "start"):
		return g.now.Add(time.Duration(1+g.rng.IntN(180)) * day).Truncate(time.Hour)
	}
	return g.now.Add(-time.Duration(1+g.rng.IntN(700))*day - time.Duration(g.rng.IntN(24))*time.Hour).Truncate(time.Minute)
}

func (g *synthesizer) uuid() string {
	a, b := g.rng.Uint64(), g.rng.Uint64()
	b = b&^(0xf<<60) | 0x8<<60
	a = a&^(0xf<<12) | 0x4<<12
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}

func (g *synthesizer) alnum(n int) string {
	const cs = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = cs[g.rng.IntN(len(cs))]
	}
	return string(b)
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
