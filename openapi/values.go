package openapi

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/synth-data/synth/model"
)

var companies = strings.Fields(`Harbor_Analytics Northwind_Labs Bluebird_Logistics Cedar_&_Co Summit_Health Lumen_Studio Orchard_Foods Atlas_Freight Keystone_Legal Brightpath_Media`)

// str draws a string a person would believe for a property: shaped by
// its format, its name and its examples, and valid for its pattern and
// length bounds. Candidates are tried in order; a pattern the value
// misses gets a value drawn from the pattern itself.
func (g *synthesizer) str(m map[string]any, name string) any {
	s, ok := g.rawStr(m, name)
	if m == nil {
		return s
	}
	pattern, _ := m["pattern"].(string)
	lo, _ := m["minLength"].(int64)
	hi, hasHi := m["maxLength"].(int64)
	fits := func(s string) bool {
		n := int64(utf8.RuneCountInString(s))
		if n < lo || hasHi && n > hi {
			return false
		}
		if pattern != "" {
			if re := g.re.get(pattern); re != nil && !re.MatchString(s) {
				return false
			}
		}
		return true
	}
	// Random generators may fit on another draw (a shorter name for a
	// maxLength); a value with nothing random in it will not.
	for i := 0; i < 3 && ok && !fits(s); i++ {
		s, ok = g.rawStr(m, name)
	}
	// A name the pattern refuses for its spaces or capitals ("Staging
	// firewall") reads as its slug ("staging-firewall"), not as a draw
	// from the pattern ("jOKy").
	if slug := strings.ReplaceAll(strings.ToLower(s), " ", "-"); !fits(s) && slug != s && fits(slug) {
		s = slug
	}
	if !fits(s) && pattern != "" {
		if v, ok := g.re.gen(g.rng, pattern); ok {
			s = v
		}
	}
	if n := int64(utf8.RuneCountInString(s)); n < lo {
		s += g.alnum(int(lo - n))
	}
	if hasHi && int64(utf8.RuneCountInString(s)) > hi {
		s = string([]rune(s)[:hi])
	}
	return s
}

// rawStr is one candidate string; ok is false when nothing in it is
// random (another draw gives the same).
func (g *synthesizer) rawStr(m map[string]any, name string) (string, bool) {
	n := norm(name)
	format, _ := m["format"].(string)
	if v, ok := g.formatted(strings.ToLower(format), n); ok {
		return v, true
	}
	ex := exampleStrings(m)
	if len(ex) == 0 {
		if v, ok := g.placeheld(m); ok {
			return v, true
		}
	}
	if textual(name) {
		// A spec's example of a date for a prompt or a description is a
		// slip of its writer, not the field's shape.
		ex = slices.DeleteFunc(ex, looksDate)
	}
	if layout, ok := g.dateLayout(name, m, ex); ok {
		return g.date(n).Format(layout), true
	}
	if g.hostField(tokens(name)) && len(ex) == 0 {
		return g.hostname(), true
	}
	if idLike(n) || name == g.coll.Key {
		return g.identifier(name, m, ex)
	}
	if v, ok := g.early(name); ok {
		return v, true
	}
	if len(ex) == 0 {
		if v, ok := g.readable(name, m); ok {
			return v, true
		}
	}
	if v, ok := g.personal(n); ok {
		return v, true
	}
	// A record's name tells it apart: one example name is used now and
	// then, not for every record.
	if len(ex) == 1 && (n == "name" || has(n, "title", "label", "displayname")) && g.rng.IntN(exampleOdds) > 0 {
		if v, ok := g.byName(n); ok {
			return v, true
		}
	}
	// A description that lists values ("For example: A, CNAME, TXT")
	// spreads the draw over them, not only over the one example.
	if vs := listed(m, ex); len(vs) > 0 {
		return vs[g.rng.IntN(len(vs))], true
	}
	// Prose is written anew for each record, in the API's words; its
	// one example sentence is used now and then, never for every
	// record.
	if describing(name) && (len(ex) == 0 || !g.exampleTurn()) {
		if s := g.proseAbout(g.coll.Noun); s != "" {
			return s, true
		}
	}
	if g.placeField(name) && len(ex) <= 1 && !g.exampleTurn() {
		return g.place(ex), true
	}
	if len(ex) > 0 {
		return ex[g.rng.IntN(len(ex))], len(ex) > 1
	}
	return g.unexampled(name, m), true
}

// exampleOdds: one record in exampleOdds keeps the spec's example of a
// prose field or a room, and a name its example in about as many.
const exampleOdds = 8

// exampleTurn: the record is one that keeps the example. By its index,
// not a draw: a draw's run of luck gave a third of one seed's events the
// spec's one sentence.
func (g *synthesizer) exampleTurn() bool { return g.index%exampleOdds == exampleOdds-1 }

// describing: the name says the field holds a sentence about its record
// ("eventDescription", "summary", "notes").
func describing(name string) bool {
	ts := tokens(name)
	return len(ts) > 0 && (sentenceFields[ts[len(ts)-1]] || hasToken(ts, "description"))
}

// identifier draws an id or key. Ids follow the example's shape
// (prefix, separators, length) with new digits, so each record has its
// own; a key that is a name or slug reads as one.
func (g *synthesizer) identifier(name string, m map[string]any, ex []string) (string, bool) {
	n := norm(name)
	if len(ex) > 0 {
		e := ex[g.rng.IntN(len(ex))]
		if strings.ContainsAny(e, " \t\n") {
			return e, len(ex) > 1 // a public key, a sentence: kept
		}
		return g.shapeOf(e), true
	}
	if v, ok := g.readable(name, m); ok {
		return v, true
	}
	if n == "name" || n == "slug" || n == "code" || n == "handle" || strings.HasSuffix(n, "name") {
		return strings.ToLower(g.pick(adjectives)+"-"+g.pick(nouns)) + "-" + strconv.Itoa(10+g.rng.IntN(90)), true
	}
	if p, ok := m["pattern"].(string); ok {
		if v, ok := g.re.gen(g.rng, p); ok {
			return v, true
		}
	}
	return g.alnum(12), true
}

// unexampled draws a string for a field with no example to copy: what
// its name says when its pattern takes it, else a string of the pattern,
// else what its name or words suggest.
func (g *synthesizer) unexampled(name string, m map[string]any) string {
	n := norm(name)
	if p, ok := m["pattern"].(string); ok {
		// What the name says, as it is or as a slug, when the pattern
		// takes it: a firewall "staging-firewall", not "jOKy".
		if v, ok := g.byName(n); ok {
			if re := g.re.get(p); re != nil {
				for _, c := range []string{v, strings.ReplaceAll(strings.ToLower(v), " ", "-")} {
					if re.MatchString(c) {
						return c
					}
				}
			}
		}
		if v, ok := g.re.gen(g.rng, p); ok {
			return v
		}
	}
	if v, ok := g.byName(n); ok {
		return v
	}
	if v, ok := g.semantic(name); ok {
		return v
	}
	return g.fallback()
}

// formatted draws a value of a string format.
func (g *synthesizer) formatted(format, n string) (string, bool) {
	switch format {
	case "date-time":
		return g.date(n).Format(time.RFC3339), true
	case "date":
		return g.date(n).Format("2006-01-02"), true
	case "time":
		return fmt.Sprintf("%02d:%02d:00", 8+g.rng.IntN(10), 15*g.rng.IntN(4)), true
	case "email", "idn-email":
		return g.email(), true
	case "uri", "url", "iri", "uri-reference", "iri-reference":
		return fmt.Sprintf("https://example.com/%s/%d", snake(g.coll.Name), 1000+g.rng.IntN(9000)), true
	case "uuid", "guid":
		return g.uuid(), true
	case "ipv4", "ip":
		return g.ipv4(privateField(tokens(n))), true
	case "ipv6":
		return fmt.Sprintf("2001:db8::%x", g.rng.IntN(65536)), true
	case "hostname", "idn-hostname":
		return strings.ToLower(g.pick(nouns)) + ".example.com", true
	case "phone", "phone-number", "tel", "e164":
		return g.phone(), true
	case "byte":
		return base64.StdEncoding.EncodeToString([]byte(g.describe(strings.ToLower(g.coll.Noun)))), true
	case "binary":
		return "file-" + strconv.Itoa(1000+g.rng.IntN(9000)) + ".bin", true
	case "password":
		return "secret-" + strconv.Itoa(1000+g.rng.IntN(9000)), true
	}
	return "", false
}

// exampleStrings are the schema's string examples and default, without
// the quotes some specs put inside them ('"123e4567-…"') and without
// placeholders ("example name", "string").
func exampleStrings(m map[string]any) []string {
	var out []string
	for _, e := range examples(m) {
		if s, ok := e.(string); ok {
			s = strings.TrimSpace(s)
			if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
				s = s[1 : len(s)-1]
			}
			if s != "" && !placeholder(s) {
				out = append(out, s)
			}
		}
	}
	return out
}

var placeholderRE = regexp.MustCompile(`(?i)^((an? |the )?(example|sample|test|dummy|placeholder)\b.{0,20}|string|text|foo|bar|baz|lorem ipsum.*|xxx+|abc|123|todo|tbd|n/?a|<[^>]*>|\{[^}]*\})$`)

var pemRE = regexp.MustCompile(`^-----BEGIN ([A-Z ]+)-----`)

// placeheld is a value of the shape a placeholder example shows, which
// the value itself is not: a fresh UUID for a UUID typed along the
// keyboard ("12345678-1234-…") or RFC 4122's, a PEM block with a body
// where the example elides it ("-----BEGIN CERTIFICATE-----\n...").
func (g *synthesizer) placeheld(m map[string]any) (string, bool) {
	for _, e := range examples(m) {
		s, ok := e.(string)
		if !ok || !placeholder(s) {
			continue
		}
		s = strings.TrimSpace(model.Unquote(s))
		if uuidRE.MatchString(s) {
			return g.uuid(), true
		}
		if sm := pemRE.FindStringSubmatch(s); sm != nil {
			body := make([]byte, 48)
			for i := range body {
				body[i] = byte(g.rng.IntN(256))
			}
			return fmt.Sprintf("-----BEGIN %s-----\n%s\n-----END %s-----\n", sm[1], base64.StdEncoding.EncodeToString(body), sm[1]), true
		}
	}
	return "", false
}

// placeholder: an example that shows the type, not a value ("example
// string", "<name>", "foo").
func placeholder(s string) bool {
	return placeholderRE.MatchString(strings.TrimSpace(s)) || model.Placeholder(s)
}

// idLike: a property that names a thing by an opaque value.
func idLike(n string) bool {
	for _, suf := range []string{"id", "uuid", "guid", "sid", "key", "token", "fingerprint", "hash", "urn", "arn"} {
		if strings.HasSuffix(n, suf) && !strings.HasSuffix(n, "valid") && !strings.HasSuffix(n, "paid") {
			return true
		}
	}
	return false
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// shapeOf makes a value like an example id: hex runs and digits are
// redrawn, the rest (prefixes, separators, case) kept: "do:droplet:
// 760e09ef-dc84-…" → "do:droplet:3a1f…". An example with nothing to
// redraw gets a number.
func (g *synthesizer) shapeOf(ex string) string {
	if uuidRE.MatchString(ex) {
		return g.uuid()
	}
	b := []byte(ex)
	filled := g.fillXRuns(b, ex)
	redrawn := g.redrawDigits(b)
	if !filled && !redrawn {
		return ex + "-" + strconv.Itoa(10+g.rng.IntN(990))
	}
	return string(b)
}

// fillXRuns redraws the runs of x that stand for digits a writer did not
// fill in ("fn-xxxxxxxx-xxxx-…"): they are what varies.
func (g *synthesizer) fillXRuns(b []byte, ex string) bool {
	changed := false
	for i := 0; i < len(b); {
		j := i
		for j < len(b) && (b[j] == 'x' || b[j] == 'X') {
			j++
		}
		if j-i >= 2 && (i == 0 || !isLetter(b[i-1])) && (j == len(b) || !isLetter(b[j])) {
			for k := i; k < j; k++ {
				b[k] = g.hexLike(b[k] - 'x' + 'a')
				if ex[k] == 'X' {
					b[k] = g.hexLike('A')
				}
			}
			changed = true
		}
		if j == i {
			j++
		}
		i = j
	}
	return changed
}

// redrawDigits redraws the hex runs and digits of an id.
func (g *synthesizer) redrawDigits(b []byte) bool {
	changed := false
	for i := 0; i < len(b); {
		j := i
		for j < len(b) && isHex(b[j]) {
			j++
		}
		// Letters that continue a word before the run are the word's
		// ("VA" of "VA3f9e"), not the id's.
		if i > 0 && isLetter(b[i-1]) {
			for i < j && isLetter(b[i]) {
				i++
			}
		}
		run := b[i:j]
		if len(run) >= 4 && hasDigit(run) && hasHexLetter(run) {
			for k := range run {
				run[k] = g.hexLike(run[k])
			}
			changed = true
		} else {
			for k := range run {
				if run[k] >= '0' && run[k] <= '9' {
					run[k] = byte('0' + g.rng.IntN(10))
					if k == 0 && len(run) > 1 && run[0] == '0' {
						run[0] = byte('1' + g.rng.IntN(9))
					}
					changed = true
				}
			}
		}
		if j == i {
			j++
		}
		i = j
	}
	return changed
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hasHexLetter(b []byte) bool {
	for _, c := range b {
		if c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' {
			return true
		}
	}
	return false
}

func hasDigit(b []byte) bool {
	for _, c := range b {
		if c >= '0' && c <= '9' {
			return true
		}
	}
	return false
}

func (g *synthesizer) hexLike(c byte) byte {
	const lower, upper = "0123456789abcdef", "0123456789ABCDEF"
	if c >= 'A' && c <= 'F' {
		return upper[g.rng.IntN(16)]
	}
	return lower[g.rng.IntN(16)]
}

// personal draws what a person or an address has: emails, names,
// usernames, phones, places, companies.
func (g *synthesizer) personal(n string) (string, bool) {
	person := personColl(g.coll)
	switch {
	case has(n, "email", "mail"):
		return g.email(), true
	case has(n, "firstname", "givenname", "forename"):
		return g.pick(firstNames), true
	case has(n, "lastname", "surname", "familyname"):
		return g.pick(lastNames), true
	case has(n, "username", "login", "handle", "nickname"):
		return strings.ToLower(g.first()) + strconv.Itoa(10+g.rng.IntN(90)), true
	case has(n, "fullname", "contactname", "personname", "customername", "ownername", "authorname", "assignee") ||
		(n == "name" || n == "displayname") && person || strings.HasSuffix(n, "by"):
		return g.first() + " " + g.last(), true
	case has(n, "phone", "mobile", "fax", "msisdn"):
		return g.phone(), true
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
	case has(n, "company", "organization", "organisation", "employer", "vendor", "supplier"):
		return strings.ReplaceAll(g.pick(companies), "_", " "), true
	}
	return "", false
}

// byName draws from what the property's name says it holds.
func (g *synthesizer) byName(n string) (string, bool) {
	switch {
	case n == "name" || has(n, "title", "label", "friendlyname", "displayname"):
		return g.thingName(), true
	case has(n, "url", "uri", "link", "website", "href", "avatar", "image", "photo", "icon") && !has(n, "emoji"):
		return fmt.Sprintf("https://example.com/%s/%d.png", snake(g.coll.Name), 1000+g.rng.IntN(9000)), true
	case has(n, "colo"):
		return g.pick(colors), true
	case has(n, "currency"):
		return g.pick(currencies), true
	case has(n, "language", "locale") || n == "lang":
		return g.pick(languages), true
	case n == "type" || n == "kind" || has(n, "category"):
		return g.pick(categories), true
	case has(n, "password", "secret"):
		return "secret-" + strconv.Itoa(1000+g.rng.IntN(9000)), true
	}
	return "", false
}

// dateWords are last words of names that say a string is a date
// ("created_at", "invoiceDate", "valid_until").
var dateWords = map[string]bool{"at": true, "date": true, "time": true, "timestamp": true, "on": true, "day": true,
	"dob": true, "birthday": true, "since": true, "until": true, "expires": true, "expiry": true, "deadline": true,
	"created": true, "updated": true, "modified": true, "deleted": true, "ts": true, "datetime": true}

// dateLayout says whether a string property holds a date, and how it is
// written: the shape of the example, else the name ("invoice_date" →
// 2025-03-14, "created_at" → RFC 3339) within the pattern.
func (g *synthesizer) dateLayout(name string, m map[string]any, ex []string) (string, bool) {
	layouts := []string{time.RFC3339, "2006-01-02T15:04:05Z", "2006-01-02T15:04:05.000Z", "2006-01-02 15:04:05", "2006-01-02"}
	for _, e := range ex {
		for _, l := range layouts {
			if _, err := time.Parse(l, e); err == nil {
				return l, true
			}
		}
	}
	words := strings.Split(snake(name), "_")
	last := words[len(words)-1]
	if len(ex) > 0 || !dateWords[last] || len(words) == 1 && (last == "at" || last == "on" || last == "ts") {
		return "", false
	}
	n := norm(name)
	layout := time.RFC3339
	if last == "date" || last == "day" || has(n, "dob", "birth") {
		layout = "2006-01-02"
	}
	if p, ok := m["pattern"].(string); ok {
		if re := g.re.get(p); re != nil {
			for _, l := range layouts {
				if re.MatchString(g.date(n).Format(l)) {
					return l, true
				}
			}
			return "", false
		}
	}
	return layout, true
}

// first and last reuse the record's name fields so an email matches the
// person: its first and last names, or the words of its full name.
func (g *synthesizer) first() string {
	return g.namePart(0, firstNames, "firstname", "givenname", "globalname")
}

func (g *synthesizer) last() string {
	return g.namePart(1, lastNames, "lastname", "surname", "familyname")
}

// namePart is a part of the person's name (0 first, 1 last): the
// record's field named so, else that part of its full name, else one
// drawn from names.
func (g *synthesizer) namePart(part int, names []string, fields ...string) string {
	for _, k := range sortedKeys(g.rec) {
		if s, ok := g.rec[k].(string); ok && has(norm(k), fields...) {
			return s
		}
	}
	if f, l, ok := g.fullName(); ok {
		return [2]string{f, l}[part]
	}
	return g.pick(names)
}

// fullName splits the record's person name ("name" of a person, "full
// name", "display name") into first and last.
func (g *synthesizer) fullName() (string, string, bool) {
	person := personColl(g.coll)
	for _, k := range sortedKeys(g.rec) {
		nk := norm(k)
		if !(has(nk, "fullname", "contactname") || (nk == "name" || nk == "displayname") && person) {
			continue
		}
		s, ok := g.rec[k].(string)
		if !ok {
			continue
		}
		if f, l, ok := strings.Cut(strings.TrimSpace(s), " "); ok && f != "" && l != "" {
			return f, l, true
		}
	}
	return "", "", false
}

func (g *synthesizer) email() string {
	f, l := g.first(), g.last()
	return fmt.Sprintf("%s.%s%d@example.com", asciiLower(f), asciiLower(l), g.index+1)
}

func (g *synthesizer) phone() string {
	return fmt.Sprintf("+1-555-%03d-%04d", g.rng.IntN(1000), g.rng.IntN(10000))
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

// date draws a time near the pack clock: past for what happened
// (created, updated, paid), ahead for what is due (expires, ends,
// scheduled), decades back for birth dates.
func (g *synthesizer) date(n string) time.Time {
	day := 24 * time.Hour
	switch {
	case has(n, "birth", "dob"):
		return time.Date(1950+g.rng.IntN(55), time.Month(1+g.rng.IntN(12)), 1+g.rng.IntN(28), 0, 0, 0, 0, time.UTC)
	case has(n, "expire", "expiry", "due", "end", "until", "deadline", "scheduled", "start", "next", "renew"):
		return g.now.Add(time.Duration(1+g.rng.IntN(120)) * day).Truncate(time.Hour)
	}
	return g.now.Add(-time.Duration(1+g.rng.IntN(365))*day - time.Duration(g.rng.IntN(24))*time.Hour).Truncate(time.Hour)
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

// settle makes a record's dates agree: updated after created and not
// after the clock, an end after its start.
func (g *synthesizer) settle(rec map[string]any) {
	type when struct {
		key    string
		t      time.Time
		layout string
	}
	var created, updated, start, end *when
	var gone []*when // deleted, archived: after the record was made
	for _, k := range sortedKeys(rec) {
		s, ok := rec[k].(string)
		if !ok {
			continue
		}
		var w *when
		for _, l := range []string{time.RFC3339, "2006-01-02"} {
			if t, err := time.Parse(l, s); err == nil {
				w = &when{k, t, l}
				break
			}
		}
		if w == nil {
			continue
		}
		switch nk := norm(k); {
		case has(nk, "created") && created == nil:
			created = w
		case has(nk, "updated", "modified", "changed") && updated == nil:
			updated = w
		case has(nk, "deleted", "archived", "removed", "revoked"):
			gone = append(gone, w)
		case has(nk, "start", "begin", "from") && start == nil:
			start = w
		case has(nk, "end", "until", "finish") && end == nil:
			end = w
		}
	}
	for _, w := range append([]*when{updated}, gone...) {
		if created == nil || w == nil || !w.t.Before(created.t) {
			continue
		}
		span := g.now.Sub(created.t)
		t := created.t
		if span > time.Hour {
			t = t.Add(time.Duration(g.rng.Int64N(int64(span)))).Truncate(time.Hour)
		}
		rec[w.key] = t.Format(w.layout)
	}
	if start != nil && end != nil && !end.t.After(start.t) {
		rec[end.key] = start.t.Add(time.Duration(1+g.rng.IntN(14)) * 24 * time.Hour).Format(end.layout)
	}
}
