package model

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Words for slots a pack's schema types but its data does not show:
// customers' names, short notes and reasons.

var firstNames = []string{"Olivia", "Liam", "Emma", "Noah", "Ava", "Mason", "Sophia", "Lucas", "Mia", "Ethan", "Isabella", "Aiden",
	"Amelia", "James", "Harper", "Omar", "Yuki", "Priya", "Mateo", "Chloe", "Daniel", "Fatima", "Leo", "Sara"}

var lastNames = []string{"Smith", "Garcia", "Kim", "Nguyen", "Patel", "Johnson", "Lopez", "Brown", "Martin", "Rossi", "Silva",
	"Cohen", "Ito", "Khan", "Muller", "Novak", "Dubois", "Okafor", "Larsen", "Moreau"}

var notes = []string{
	"the issue started after the last update", "please keep me posted by email", "this is urgent for our team",
	"I already tried restarting it", "the problem happens every morning", "it worked fine until yesterday",
	"please call me if anything is unclear", "no rush, whenever you can", "I need this sorted before Friday",
	"a colleague reported the same thing", "the error message mentions a timeout", "thanks for looking into it",
}

var nouns = []string{"aurora", "harbor", "maple", "summit", "cobalt", "meadow", "falcon", "juniper", "atlas", "ember", "willow", "orbit"}

// PersonName draws a first and a last name.
func PersonName(rng *rand.Rand) string {
	return firstNames[rng.IntN(len(firstNames))] + " " + lastNames[rng.IntN(len(lastNames))]
}

// placeholderValue matches what a spec's example writes in place of a
// value: a shell or template variable ($HF_TOKEN, ${API_KEY}, {{token}}),
// an angle-bracketed name (<token>), or an instruction to the reader
// (YOUR_API_KEY, your-token-here).
var placeholderValue = regexp.MustCompile(`^(\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{\{[^{}]*\}\}|<[^<>]+>|(?i:your)[_-][A-Za-z0-9_-]+)$`)

// typeWord matches an example that names the type instead of giving a
// value ("example string", "string").
var typeWord = regexp.MustCompile(`(?i)^((an? )?(example|sample) (string|text|value|name)|string)$`)

var uuidShape = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// exampleUUID is the UUID of RFC 4122's example, which specs copy as is.
const exampleUUID = "123e4567-e89b-12d3-a456-426614174000"

// Placeholder reports whether an example value stands for one a reader
// fills in: a customer never says it, and a record never holds it. Such
// are variables and instructions ($HF_TOKEN, <token>, YOUR_API_KEY),
// the type's name ("example string"), a value elided ("-----BEGIN
// CERTIFICATE-----\n...\n"), and digits typed along the keyboard
// ("12345678-1234-1234-1234-123456789012", "sk-ant-1234567890…",
// all zeros), in quotes or not.
func Placeholder(s string) bool {
	t := strings.TrimSpace(Unquote(s))
	return placeholderValue.MatchString(t) || typeWord.MatchString(t) || elided.MatchString(t) ||
		strings.EqualFold(t, exampleUUID) || keyboardDigits(t)
}

// keyboardDigits reports whether a value's digits are a run typed along
// the keyboard, not drawn: every run of three or more steps by one
// (1234567890, 9876, mod 10) or repeats one digit (0000), and one such
// run is at least six long. "100000000" or "2024-01-15" are values.
func keyboardDigits(s string) bool {
	long := false
	for _, run := range digitRun.FindAllString(s, -1) {
		if len(run) < 3 {
			continue
		}
		steps, same := true, true
		for i := 1; i < len(run); i++ {
			d := (int(run[i]) - int(run[i-1]) + 10) % 10
			steps = steps && (d == 1 || d == 9)
			same = same && d == 0
		}
		if !steps && !same {
			return false
		}
		long = long || len(run) >= 6
	}
	return long
}

// elided matches an ellipsis that stands for the value or a part of it
// ("...", "sk-...", "-----BEGIN CERTIFICATE-----\n...\n"), not one
// inside a word ("C...language").
var elided = regexp.MustCompile(`(^|\s|\\n|[-_:/])(\.\.\.|…)($|\s|\\n)`)

var digitRun = regexp.MustCompile(`[0-9]+`)

// Unquote is an example without the quotes some specs write inside it
// ('"tor1"' is tor1); other text is returned as it is.
func Unquote(s string) string {
	t := strings.TrimSpace(s)
	if len(t) >= 2 && (t[0] == '"' && t[len(t)-1] == '"' || t[0] == '\'' && t[len(t)-1] == '\'') {
		return t[1 : len(t)-1]
	}
	return s
}

// sentinelValue matches an enum's "no value" member
// (TRACE_SPAN_TYPE_UNKNOWN, STATUS_UNSPECIFIED): what an API reports
// when it cannot tell, never a value a person picks.
var sentinelValue = regexp.MustCompile(`^([A-Z0-9]+_)+(UNKNOWN|UNSPECIFIED)$`)

// Sentinel reports whether v is an enum's "no value" member.
func Sentinel(v string) bool { return sentinelValue.MatchString(v) }

// Choosable are the values a customer may choose among: vals less the
// sentinels, in order.
func Choosable(vals []string) []string {
	var out []string
	for _, v := range vals {
		if !Sentinel(v) {
			out = append(out, v)
		}
	}
	return out
}

// SchemaValues lists values a customer may state for a parameter known
// only by its name and schema: examples, then values by type, format and
// name.
func (m *Model) SchemaValues(rng *rand.Rand, name string, s map[string]any) []string {
	if n, ok := Number(s["minItems"]); ok && n >= 2 && ParamType(s) == "array" {
		return m.groups(rng, name, s, int(n))
	}
	if prop, ps, ok := soleProperty(s); ok {
		return m.SchemaValues(rng, prop, ps)
	}
	if ex, ok := s["examples"].([]any); ok && len(ex) > 0 {
		var out []string
		for _, e := range ex {
			if l, isList := e.([]any); isList && ParamType(s) == "array" {
				// A slot of a list is one element, said as itself (the
				// list is typed from it): ["us_east", "eu_west"] gives
				// each region.
				for _, x := range l {
					if t, isText := x.(string); isText {
						if Placeholder(t) {
							continue
						}
						x = Unquote(t)
					}
					out = append(out, SlotText(x))
				}
				continue
			}
			if t, isText := e.(string); isText {
				if Placeholder(t) {
					continue
				}
				e = Unquote(t)
			}
			out = append(out, SlotText(e))
		}
		if len(out) > 0 {
			return out
		}
		// Only placeholders: a value is drawn as for a schema without
		// examples: the data's values of the name, else a UUID where
		// they show one ("12345678-1234-1234-1234-123456789012").
		bare := WithoutExamples(s)
		if _, has := bare["format"]; !has && len(m.pools[name]) == 0 && slices.ContainsFunc(ex, func(e any) bool {
			t, _ := e.(string)
			return uuidShape.MatchString(strings.TrimSpace(Unquote(t)))
		}) {
			bare["format"] = "uuid"
		}
		return m.SchemaValues(rng, name, bare)
	}
	if enum := enumOf(s); len(enum) > 0 {
		return Choosable(enum)
	}
	if ParamType(s) == "array" {
		items, _ := s["items"].(map[string]any)
		if t := ParamType(items); t == "" || t == "array" || t == "object" {
			return nil
		}
		var out []string
		for _, v := range m.SchemaValues(rng, Singular(name), items) {
			// A one-element list, said as its element.
			if !strings.Contains(v, ", ") {
				out = append(out, v)
			}
		}
		return out
	}
	lo, hasLo := Number(s["minimum"])
	hi, hasHi := Number(s["maximum"])
	switch ParamType(s) {
	case "boolean":
		return []string{"true", "false"}
	case "integer":
		if !hasLo {
			lo = 1
		}
		if !hasHi {
			hi = lo + 9
		}
		var out []string
		for i := 0; i < 4; i++ {
			out = append(out, strconv.FormatInt(int64(lo)+rng.Int64N(int64(hi-lo)+1), 10))
		}
		return out
	case "number":
		if !hasLo {
			lo = 1
			if IsMoney(name) {
				lo = 10
			}
		}
		if !hasHi {
			hi = lo + 99
			if IsMoney(name) {
				hi = lo + 490
			}
		}
		var out []string
		for i := 0; i < 4; i++ {
			x := lo + rng.Float64()*(hi-lo)
			if IsMoney(name) {
				x = float64(int(x)) // whole amounts read naturally
			}
			out = append(out, strconv.FormatFloat(x, 'f', -1, 64))
		}
		return out
	case "string":
	default:
		return nil
	}
	if pat, hasPattern := s["pattern"].(string); hasPattern {
		// Only values the data shows that fit the pattern: a pattern
		// cannot be sampled in general.
		re, err := regexp.Compile(pat)
		if err != nil {
			return nil
		}
		var out []string
		for _, v := range m.pools[name] {
			if str, ok := v.(string); ok && re.MatchString(str) {
				out = append(out, str)
			}
		}
		return out
	}
	format, _ := s["format"].(string)
	var out []string
	switch {
	case format == "date" || isDateParam(name, s):
		for i := 0; i < 4; i++ {
			out = append(out, m.Clock.AddDate(0, 0, 1+rng.IntN(30)).Format("2006-01-02"))
		}
	case format == "date-time":
		for i := 0; i < 4; i++ {
			out = append(out, m.Clock.AddDate(0, 0, 1+rng.IntN(30)).Format("2006-01-02T15:04:05Z07:00"))
		}
	case format == "email" || strings.Contains(name, "email"):
		for i := 0; i < 4; i++ {
			f, l := firstNames[rng.IntN(len(firstNames))], lastNames[rng.IntN(len(lastNames))]
			out = append(out, strings.ToLower(f+"."+l)+strconv.Itoa(10+rng.IntN(90))+"@example.com")
		}
	case format == "uri" || format == "url" || strings.HasSuffix(name, "url"):
		for i := 0; i < 4; i++ {
			out = append(out, "https://example.com/"+nouns[rng.IntN(len(nouns))])
		}
	case format == "uuid":
		for i := 0; i < 4; i++ {
			out = append(out, fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<12), rng.IntN(1<<12), rng.Int64N(1<<48)))
		}
	default:
		// Values of fields of this name in any collection; an UPPER_SNAKE
		// code among them is another field's enum member
		// (TRACE_SPAN_TYPE_TOOL for a DNS record's type), which this
		// parameter lists no words for.
		for _, v := range m.pools[name] {
			if str, ok := v.(string); ok && !upperSnakeValue.MatchString(str) {
				out = append(out, str)
			}
		}
		if len(out) > 0 {
			break
		}
		out = InventedText(rng, name)
	}
	if maxLen, ok := Number(s["maxLength"]); ok {
		for i, v := range out {
			if len(v) > int(maxLen) {
				out[i] = v[:int(maxLen)]
			}
		}
	}
	if minLen, ok := Number(s["minLength"]); ok {
		kept := out[:0]
		for _, v := range out {
			if len(v) >= int(minLen) {
				kept = append(kept, v)
			}
		}
		out = kept
	}
	return out
}

// InventedText is text for a parameter no value of the data or the spec
// fits, by what its name says it is.
func InventedText(rng *rand.Rand, name string) []string {
	var out []string
	lower := strings.ToLower(name)
	switch {
	case (strings.Contains(lower, "name") || strings.Contains(lower, "title")) && !strings.Contains(lower, "file"):
		for i := 0; i < 4; i++ {
			w := nouns[rng.IntN(len(nouns))]
			out = append(out, strings.ToUpper(w[:1])+w[1:]+" "+strings.ToUpper(nouns[rng.IntN(len(nouns))][:1])+nouns[rng.IntN(len(nouns))][1:])
		}
	case strings.HasSuffix(lower, "token") || strings.HasSuffix(lower, "secret") || strings.HasSuffix(lower, "api_key") || strings.HasSuffix(lower, "apikey"):
		// A credential reads as one: a long opaque string, never a
		// sentence.
		const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		for i := 0; i < 4; i++ {
			b := make([]byte, 32)
			for j := range b {
				b[j] = alnum[rng.IntN(len(alnum))]
			}
			out = append(out, string(b))
		}
	case strings.Contains(lower, "phone"):
		for i := 0; i < 4; i++ {
			out = append(out, fmt.Sprintf("+1 555 %03d %04d", rng.IntN(1000), rng.IntN(10000)))
		}
	case strings.Contains(lower, "location") || strings.Contains(lower, "place") || strings.Contains(lower, "room") || strings.Contains(lower, "venue"):
		for i := 0; i < 4; i++ {
			w := nouns[rng.IntN(len(nouns))]
			out = append(out, strings.ToUpper(w[:1])+w[1:]+" "+places[rng.IntN(len(places))])
		}
	case hasAny(lower, "url", "uri_", "webhook", "callback", "link", "endpoint", "website", "homepage") || strings.HasSuffix(lower, "uri"):
		// A web address, never a sentence: "Webhook URL: it worked
		// fine until yesterday" is no value a form takes.
		dir := ""
		if hasAny(lower, "webhook", "callback") {
			dir = "hooks/"
		}
		for i := 0; i < 4; i++ {
			out = append(out, "https://example.com/"+dir+nouns[rng.IntN(len(nouns))])
		}
	case strings.Contains(lower, "file") && !strings.Contains(lower, "profile"), hasAny(lower, "image", "avatar", "icon", "banner", "sound", "audio", "sticker", "attachment", "splash"):
		ext := ".png"
		if hasAny(lower, "sound", "audio") {
			ext = ".mp3"
		}
		for i := 0; i < 4; i++ {
			out = append(out, nounPair(rng)+ext)
		}
	case hasAny(lower, "description", "note", "comment", "message", "body", "reason", "text", "summary", "detail", "content", "topic", "bio",
		"resolution", "feedback", "answer", "explanation", "remark", "memo", "caption", "purpose"):
		// Free text: a line of the kind a customer would put there.
		for i := 0; i < 4; i++ {
			out = append(out, notes[rng.IntN(len(notes))])
		}
	default:
		// An identity, a channel, a signature, a mode: a short phrase
		// that reads as a value ("harbor-maple"); a chat line
		// ("a colleague reported the same thing") would be said as one.
		for i := 0; i < 4; i++ {
			out = append(out, nounPair(rng))
		}
	}
	return out
}

// nounPair is two different nouns joined as a value: "harbor-maple".
func nounPair(rng *rand.Rand) string {
	i, j := rng.IntN(len(nouns)), rng.IntN(len(nouns)-1)
	if j >= i {
		j++
	}
	return nouns[i] + "-" + nouns[j]
}

func hasAny(s string, parts ...string) bool {
	return slices.ContainsFunc(parts, func(p string) bool { return strings.Contains(s, p) })
}

// places end the names of made-up locations ("Harbor Hall").
var places = []string{"Hall", "Room", "Gallery", "Wing", "Court", "Pavilion"}

// WithoutExamples is a schema less its examples.
func WithoutExamples(s map[string]any) map[string]any {
	out := make(map[string]any, len(s))
	for k, v := range s {
		if k != "examples" && k != "example" {
			out[k] = v
		}
	}
	return out
}

// withinBounds reports whether a stated value meets a parameter's
// bounds: minimum, maximum (exclusive ones too) for numbers, minLength
// and maxLength for text. The tool's schema check has the last word;
// this keeps values it would refuse from being drawn.
func WithinBounds(s map[string]any, text string) bool {
	switch v := Typed(s, text).(type) {
	case int64, float64:
		x, _ := Number(v)
		if lo, ok := Number(s["minimum"]); ok && x < lo {
			return false
		}
		if hi, ok := Number(s["maximum"]); ok && x > hi {
			return false
		}
		if lo, ok := Number(s["exclusiveMinimum"]); ok && x <= lo {
			return false
		}
		if hi, ok := Number(s["exclusiveMaximum"]); ok && x >= hi {
			return false
		}
	case string:
		if t := ParamType(s); t == "integer" || t == "number" || t == "boolean" {
			return false // a record's "budget quick" is no integer
		}
		n := float64(utf8.RuneCountInString(v))
		if lo, ok := Number(s["minLength"]); ok && n < lo {
			return false
		}
		if hi, ok := Number(s["maxLength"]); ok && n > hi {
			return false
		}
	}
	return true
}

// Number reads a JSON, Starlark-converted or computed number as a
// float64.
func Number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case interface{ Float64() (float64, error) }:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// groups are values of a list that needs n elements or more (the two
// VPCs a peering joins), each n elements said together ("a, b"): the
// keys of the collection its name names (vpc_ids: the VPCs), else the
// values its items give.
func (m *Model) groups(rng *rand.Rand, name string, s map[string]any, n int) []string {
	items, _ := s["items"].(map[string]any)
	if n > 5 || !scalarType(ParamType(items)) {
		return nil
	}
	elems := m.keysNamed(name)
	if len(elems) < n {
		elems = nil
		for _, v := range m.SchemaValues(rng, Singular(name), items) {
			if !strings.Contains(v, ", ") && !slices.Contains(elems, v) {
				elems = append(elems, v)
			}
		}
	}
	if len(elems) < n {
		return nil
	}
	var out []string
	for range 4 {
		idx := rng.Perm(len(elems))[:n]
		slices.Sort(idx)
		g := make([]string, n)
		for i, j := range idx {
			g[i] = elems[j]
		}
		out = append(out, strings.Join(g, ", "))
	}
	return out
}

// keysNamed are the keys of the collection a list parameter's name
// names by its noun (vpc_ids, vpcIds: the VPCs), nil when none does.
func (m *Model) keysNamed(name string) []string {
	base := ""
	for _, suffix := range []string{"_ids", "Ids", "IDs"} {
		if b, ok := strings.CutSuffix(name, suffix); ok {
			base = Words(b)
		}
	}
	if base == "" || m.Base == nil {
		return nil
	}
	for _, cn := range slices.Sorted(maps.Keys(m.Colls)) {
		if c := m.Colls[cn]; c.Noun == base || Singular(Words(cn)) == base {
			return m.Base.Keys(cn)
		}
	}
	return nil
}

// NamedIn reports whether text names value as a whole token: a tool
// error naming channel_id 6 names "6", one naming 36 or app-6b does not.
func NamedIn(text, value string) bool {
	if value == "" {
		return false
	}
	inToken := func(r byte) bool {
		return r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}
	for from := 0; ; {
		i := strings.Index(text[from:], value)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(value)
		if (i == 0 || !inToken(text[i-1])) && (end == len(text) || !inToken(text[end])) {
			return true
		}
		from = i + 1
	}
}

// ReasonClause is a reason chosen among a few that says what is true of
// the thing ("no longer needed", "ordered by mistake") as a clause:
// "it's no longer needed", "it was ordered by mistake"; ok is false for
// a reason that names a cause ("bad weather", "a family emergency"),
// which reads well as it is, and for any other slot. The value stays
// whole in the clause, the words the agent offered.
func ReasonClause(p *ParamModel, v string) (string, bool) {
	if p == nil || len(p.Choices) == 0 || !strings.HasSuffix(ArgWords(p.Name), "reason") || SaySlot(p, v) != "" {
		return "", false
	}
	words := ValueWords(v)
	first, _, _ := strings.Cut(words, " ")
	switch {
	case first == "no" || first == "not":
		return "it's " + words, true
	case strings.HasSuffix(first, "ed") && len(first) > 4:
		// A participle: it happened to the thing.
		return "it was " + words, true
	}
	return "", false
}
