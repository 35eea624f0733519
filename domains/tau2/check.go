package tau2

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// OrderCollection is the collection that carries, for each collection of
// a τ² database, its keys in db.json order: record "users" is
// {"collection": "users", "keys": [the user ids as db.json lists them]},
// and so on (a pack declares it with key: collection). τ²'s tools scan Python dicts in
// that order: which user a name and zip find first, the order of flight
// search results. tools.State sorts keys, so a pack keeps the order here
// (KeyOrder builds it); without it the handlers fall back to sorted keys,
// which is τ²'s order only when db.json is itself sorted.
const OrderCollection = "tau2_order"

// maxProblems bounds the problems one error lists.
const maxProblems = 20

// maxDepth bounds JSON nesting: τ²'s databases nest six levels, and an
// unbounded recursion on hostile input would exhaust the stack.
const maxDepth = 64

// CheckRetailDB validates a τ² retail db.json against τ²'s RetailDB model
// and returns the database as RetailDB.model_validate(raw).model_dump()
// gives it: every optional field present (null when absent), values
// coerced as pydantic's lax mode does ("12" for an int field is 12),
// fields the model does not know dropped. The result is ready for
// tools.NewBase (add KeyOrder's records under OrderCollection).
func CheckRetailDB(data []byte) (map[string]map[string]any, error) {
	return checkDB(data, retailSchema())
}

// CheckAirlineDB is CheckRetailDB for τ²'s airline FlightDB model.
func CheckAirlineDB(data []byte) (map[string]map[string]any, error) {
	return checkDB(data, airlineSchema())
}

// KeyOrder reads the key order of every collection of a db.json: the
// records of OrderCollection, by collection name.
func KeyOrder(data []byte) (map[string]any, error) {
	doc, err := parseDoc(data)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(doc.order))
	for coll, keys := range doc.order {
		l := make([]any, len(keys))
		for i, k := range keys {
			l[i] = k
		}
		out[coll] = map[string]any{"collection": coll, "keys": l}
	}
	return out, nil
}

// DBError is a database that does not match τ²'s model.
type DBError struct {
	Domain   string
	Problems []string // "path: what is wrong (record at line N)"
	More     int      // problems past the first maxProblems
}

func (e *DBError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the database does not match τ²'s %s model (fix these fields): ", e.Domain)
	b.WriteString(strings.Join(e.Problems, "; "))
	if e.More > 0 {
		fmt.Fprintf(&b, "; and %d more", e.More)
	}
	return b.String()
}

// doc is a parsed db.json: the value, the key order of each top-level
// collection, and the line of each record.
type doc struct {
	value any
	order map[string][]string
	lines map[string]int // collection + "\x00" + key
	data  []byte
	// lastOff and lastLine let lineAt count on from the previous offset:
	// the decoder only moves forward.
	lastOff  int64
	lastLine int
}

func checkDB(data []byte, s *schema) (map[string]map[string]any, error) {
	d, err := parseDoc(data)
	if err != nil {
		return nil, err
	}
	c := &checker{doc: d, domain: s.domain}
	top, ok := d.value.(map[string]any)
	if !ok {
		return nil, &DBError{Domain: s.domain, Problems: []string{fmt.Sprintf("the top level must be an object with %s, not %s (line 1)", collNames(s), describe(d.value))}}
	}
	out := make(map[string]map[string]any, len(s.colls))
	for _, f := range s.colls {
		raw, has := top[f.name]
		if !has {
			c.problem(f.name, "missing: τ²'s model requires it", 1)
			continue
		}
		recs, ok := raw.(map[string]any)
		if !ok {
			c.problem(f.name, fmt.Sprintf("must be an object of records by key, not %s", describe(raw)), c.line(f.name, ""))
			continue
		}
		dump := make(map[string]any, len(recs))
		for key, rec := range recs {
			if v, ok := c.value(f.t.elem, rec, f.name+"["+strconv.Quote(key)+"]", f.name, key); ok {
				dump[key] = v
			}
		}
		out[f.name] = dump
	}
	for k := range top {
		if !s.has(k) {
			c.problem(k, fmt.Sprintf("τ²'s model has no collection %q (it has %s; the model forbids others)", k, collNames(s)), c.line(k, ""))
		}
	}
	if len(c.problems) > 0 {
		c.sort()
		return nil, c.err()
	}
	return out, nil
}

func (s *schema) has(name string) bool {
	for _, f := range s.colls {
		if f.name == name {
			return true
		}
	}
	return false
}

func collNames(s *schema) string {
	names := make([]string, len(s.colls))
	for i, f := range s.colls {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}

type problem struct {
	line int
	text string
}

type checker struct {
	doc      *doc
	domain   string
	problems []problem
	more     int
}

func (c *checker) line(coll, key string) int {
	if l, ok := c.doc.lines[coll+"\x00"+key]; ok {
		return l
	}
	return 1
}

func (c *checker) problem(path, what string, line int) {
	if len(c.problems) >= maxProblems*4 {
		c.more++
		return
	}
	c.problems = append(c.problems, problem{line: line, text: fmt.Sprintf("%s: %s (record at line %d)", path, what, line)})
}

// sort puts problems in file order (records are visited in map order).
func (c *checker) sort() {
	ps := c.problems
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && (ps[j].line < ps[j-1].line || ps[j].line == ps[j-1].line && ps[j].text < ps[j-1].text); j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

func (c *checker) err() error {
	e := &DBError{Domain: c.domain, More: c.more}
	for i, p := range c.problems {
		if i == maxProblems {
			e.More += len(c.problems) - maxProblems
			break
		}
		e.Problems = append(e.Problems, p.text)
	}
	return e
}

// value validates v against t as pydantic's lax mode does and returns
// the dumped value. coll and key name the record, for the line.
func (c *checker) value(t *typ, v any, path, coll, key string) (any, bool) {
	bad := func(format string, args ...any) (any, bool) {
		c.problem(path, fmt.Sprintf(format, args...), c.line(coll, key))
		return nil, false
	}
	switch t.k {
	case kStr:
		s, ok := v.(string)
		if !ok {
			return bad("must be a string, not %s", describe(v))
		}
		return s, true
	case kInt:
		i, msg := laxInt(v)
		if msg != "" {
			return bad("%s", msg)
		}
		return i, true
	case kFloat:
		f, msg := laxFloat(v)
		if msg != "" {
			return bad("%s", msg)
		}
		return f, true
	case kBool:
		b, ok := laxBool(v)
		if !ok {
			return bad("must be a boolean (true or false), not %s", describe(v))
		}
		return b, true
	case kLit:
		s, ok := v.(string)
		if !ok || !contains(t.lits, s) {
			return bad("%s is not one of %s", describe(v), strings.Join(t.lits, ", "))
		}
		return s, true
	case kOpt:
		if v == nil {
			return nil, true
		}
		return c.value(t.elem, v, path, coll, key)
	case kList:
		l, ok := v.([]any)
		if !ok {
			return bad("must be a list, not %s", describe(v))
		}
		out := make([]any, len(l))
		good := true
		for i, e := range l {
			d, ok := c.value(t.elem, e, fmt.Sprintf("%s[%d]", path, i), coll, key)
			out[i], good = d, good && ok
		}
		return out, good
	case kDict:
		m, ok := v.(map[string]any)
		if !ok {
			return bad("must be an object, not %s", describe(v))
		}
		out := make(map[string]any, len(m))
		good := true
		for k, e := range m {
			p := path + "[" + strconv.Quote(k) + "]"
			if t.key.k == kLit && !contains(t.key.lits, k) {
				c.problem(p, fmt.Sprintf("the key %q is not one of %s", k, strings.Join(t.key.lits, ", ")), c.line(coll, key))
				good = false
				continue
			}
			d, ok := c.value(t.elem, e, p, coll, key)
			out[k], good = d, good && ok
		}
		return out, good
	case kModel:
		return c.model(t.model, v, path, coll, key)
	case kUnion:
		m, ok := v.(map[string]any)
		if !ok {
			return bad("must be an object (one of %s), not %s", memberNames(t), describe(v))
		}
		tag, _ := m[t.tag].(string)
		var tags []string
		for _, mem := range t.union {
			l := mem.fields[mem.index(t.tag)].t.lits[0]
			tags = append(tags, l)
			if l == tag {
				return c.model(mem, m, path, coll, key)
			}
		}
		if _, has := m[t.tag]; !has {
			return bad("has no %q field, which tells τ²'s model the kind (one of %s)", t.tag, strings.Join(tags, ", "))
		}
		c.problem(path+"."+t.tag, fmt.Sprintf("%s is not one of %s", describe(m[t.tag]), strings.Join(tags, ", ")), c.line(coll, key))
		return nil, false
	}
	return bad("has a type the checker does not know")
}

func (c *checker) model(md *model, v any, path, coll, key string) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		c.problem(path, fmt.Sprintf("must be an object (τ²'s %s), not %s", md.name, describe(v)), c.line(coll, key))
		return nil, false
	}
	out := make(map[string]any, len(md.fields))
	good := true
	for _, f := range md.fields {
		e, has := m[f.name]
		if !has {
			if f.opt {
				out[f.name] = nil
				continue
			}
			c.problem(path+"."+f.name, fmt.Sprintf("missing: τ²'s %s requires it", md.name), c.line(coll, key))
			good = false
			continue
		}
		d, ok := c.value(f.t, e, path+"."+f.name, coll, key)
		out[f.name], good = d, good && ok
	}
	return out, good
}

func (m *model) index(name string) int {
	for i, f := range m.fields {
		if f.name == name {
			return i
		}
	}
	return -1
}

func memberNames(t *typ) string {
	names := make([]string, len(t.union))
	for i, m := range t.union {
		names[i] = m.name
	}
	return strings.Join(names, ", ")
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// describe renders a value in a problem message: short JSON and its kind.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		if len(x) > 60 {
			x = x[:57] + "..."
		}
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return string(x)
	}
	return fmt.Sprint(v)
}

// Lax coercions, as pydantic 2 applies them to JSON input.

const intRange = "beyond the int64 range synth's records hold"

// laxInt: an int, a bool, an integral float, or a string of digits
// (optional sign, single underscores between digits, ".0…" allowed).
func laxInt(v any) (int64, string) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, ""
		}
		return 0, ""
	case json.Number:
		n, ok := parsePyNumber(string(x))
		if !ok {
			return 0, fmt.Sprintf("%s is not a number", x)
		}
		if !n.isFloat {
			if n.big != nil {
				return 0, fmt.Sprintf("%s is %s", x, intRange)
			}
			return n.i, ""
		}
		return intFromFloat(n.f, string(x))
	case float64:
		return intFromFloat(x, pyFloat(x))
	case int64:
		return x, ""
	case string:
		s := strings.TrimFunc(x, unicode.IsSpace)
		if whole, frac, ok := strings.Cut(s, "."); ok {
			if frac == "" || strings.Trim(frac, "0") != "" {
				return 0, fmt.Sprintf("%s is not an integer", strconv.Quote(x))
			}
			s = whole
		}
		body := s
		if body != "" && (body[0] == '+' || body[0] == '-') {
			body = body[1:]
		}
		if !pyDigits(body, true) {
			return 0, fmt.Sprintf("%s is not an integer", strconv.Quote(x))
		}
		i, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
		if err != nil {
			return 0, fmt.Sprintf("%s is %s", strconv.Quote(x), intRange)
		}
		return i, ""
	}
	return 0, fmt.Sprintf("must be an integer, not %s", describe(v))
}

func intFromFloat(f float64, text string) (int64, string) {
	switch {
	case math.IsInf(f, 0) || math.IsNaN(f):
		return 0, fmt.Sprintf("%s is not a finite number", text)
	case f != math.Trunc(f):
		return 0, fmt.Sprintf("%s is not an integer (it has a fractional part)", text)
	case math.Abs(f) >= 1<<63:
		return 0, fmt.Sprintf("%s is %s", text, intRange)
	}
	return int64(f), ""
}

// pyDigits: one or more ASCII digits, with single underscores between
// digits when underscores are allowed.
func pyDigits(s string, underscores bool) bool {
	if s == "" {
		return false
	}
	prevDigit := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case '0' <= c && c <= '9':
			prevDigit = true
		case c == '_' && underscores && prevDigit && i+1 < len(s):
			prevDigit = false
		default:
			return false
		}
	}
	return prevDigit
}

// laxFloat: a number, a bool, or a string Python's float() reads.
// Infinities and NaN are refused: synth's records are JSON, which has
// no spelling for them.
func laxFloat(v any) (float64, string) {
	var f float64
	switch x := v.(type) {
	case bool:
		if x {
			return 1, ""
		}
		return 0, ""
	case json.Number:
		n, ok := parsePyNumber(string(x))
		if !ok {
			return 0, fmt.Sprintf("%s is not a number", x)
		}
		f = n.float()
	case float64:
		f = x
	case int64:
		f = float64(x)
	case string:
		var ok bool
		if f, ok = parsePyFloat(x); !ok {
			return 0, fmt.Sprintf("%s is not a number", strconv.Quote(x))
		}
	default:
		return 0, fmt.Sprintf("must be a number, not %s", describe(v))
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Sprintf("%s is not a finite number, which JSON cannot hold", describe(v))
	}
	return f, ""
}

// parsePyFloat reads a string as float(): surrounding whitespace, sign,
// digits with single underscores, fraction, exponent, inf and nan.
func parsePyFloat(x string) (float64, bool) {
	s := strings.TrimFunc(x, unicode.IsSpace)
	body := s
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	switch strings.ToLower(body) {
	case "inf", "infinity", "nan":
		f, err := strconv.ParseFloat(s, 64)
		return f, err == nil
	}
	mant, exp, hasExp := strings.Cut(strings.ToLower(body), "e")
	if hasExp {
		e := exp
		if e != "" && (e[0] == '+' || e[0] == '-') {
			e = e[1:]
		}
		if !pyDigits(e, true) {
			return 0, false
		}
	}
	whole, frac, hasDot := strings.Cut(mant, ".")
	if whole == "" && (!hasDot || frac == "") {
		return 0, false
	}
	if whole != "" && !pyDigits(whole, true) || frac != "" && !pyDigits(frac, true) {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}

// laxBool: a bool, 0 or 1, or one of pydantic's words for them.
func laxBool(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case json.Number, float64, int64:
		f, _ := toFloat(x)
		switch f {
		case 0:
			return false, true
		case 1:
			return true, true
		}
	case string:
		switch strings.ToLower(x) {
		case "0", "off", "f", "false", "n", "no":
			return false, true
		case "1", "on", "t", "true", "y", "yes":
			return true, true
		}
	}
	return false, false
}

// parseDoc decodes a db.json, keeping what a map loses: the order of
// each collection's keys and each record's line. Duplicate keys are
// refused (Python would keep the last silently; a pack must not be
// ambiguous).
func parseDoc(data []byte) (*doc, error) {
	d := &doc{order: map[string][]string{}, lines: map[string]int{}, data: data}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := &docParser{dec: dec, doc: d}
	v, err := p.value(0, nil)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("db.json line %d: unexpected data after the top-level object: remove it", d.lineAt(dec.InputOffset()))
	}
	d.value = v
	return d, nil
}

func (d *doc) lineAt(off int64) int {
	if off > int64(len(d.data)) {
		off = int64(len(d.data))
	}
	if off < d.lastOff || d.lastLine == 0 {
		d.lastOff, d.lastLine = 0, 1
	}
	d.lastLine += bytes.Count(d.data[d.lastOff:off], []byte{'\n'})
	d.lastOff = off
	return d.lastLine
}

type docParser struct {
	dec *json.Decoder
	doc *doc
}

func (p *docParser) syntax(err error) error {
	var se *json.SyntaxError
	off := p.dec.InputOffset()
	if errors.As(err, &se) {
		off = se.Offset
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("db.json line %d: the JSON ends early (unclosed object or list?): %w", p.doc.lineAt(off), io.ErrUnexpectedEOF)
	}
	return fmt.Errorf("db.json line %d: malformed JSON: %w", p.doc.lineAt(off), err)
}

// value reads one JSON value; path is the keys above it (the top-level
// collection and record key matter for order and lines).
func (p *docParser) value(depth int, path []string) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("db.json line %d: nested deeper than %d levels; τ²'s databases nest a few", p.doc.lineAt(p.dec.InputOffset()), maxDepth)
	}
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.syntax(err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			m := map[string]any{}
			for p.dec.More() {
				kt, err := p.dec.Token()
				if err != nil {
					return nil, p.syntax(err)
				}
				k, _ := kt.(string)
				if _, dup := m[k]; dup {
					return nil, fmt.Errorf("db.json line %d: duplicate key %q%s: keep one", p.doc.lineAt(p.dec.InputOffset()), k, where(path))
				}
				switch len(path) {
				case 0:
					p.doc.lines[k+"\x00"] = p.doc.lineAt(p.dec.InputOffset())
				case 1:
					p.doc.order[path[0]] = append(p.doc.order[path[0]], k)
					p.doc.lines[path[0]+"\x00"+k] = p.doc.lineAt(p.dec.InputOffset())
				}
				v, err := p.value(depth+1, append(path[:len(path):len(path)], k))
				if err != nil {
					return nil, err
				}
				m[k] = v
			}
			if _, err := p.dec.Token(); err != nil {
				return nil, p.syntax(err)
			}
			if len(path) == 1 && p.doc.order[path[0]] == nil {
				p.doc.order[path[0]] = []string{}
			}
			return m, nil
		case '[':
			l := []any{}
			for p.dec.More() {
				v, err := p.value(depth+1, append(path[:len(path):len(path)], ""))
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			if _, err := p.dec.Token(); err != nil {
				return nil, p.syntax(err)
			}
			return l, nil
		}
	}
	return tok, nil
}

func where(path []string) string {
	if len(path) == 0 {
		return " at the top level"
	}
	return " in " + strings.Join(path, ".")
}
