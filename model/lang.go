package model

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/synth-data/synth/tools"
)

// The language of pack tasks is built from names: collection nouns,
// field and parameter names (snake_case and camelCase become words),
// tool descriptions, and the pack's phrase hints when it has them.

// Words turns an identifier into lower-case words: "total_baggages" and
// "totalBaggages" both become "total baggages".
func Words(id string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range id {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			b.WriteByte(' ')
			prevLower = false
		case unicode.IsUpper(r):
			if prevLower {
				b.WriteByte(' ')
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = false
		default:
			b.WriteRune(r)
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// Singular makes the last word of a phrase singular ("reservations" →
// "reservation", "categories" → "category").
func Singular(s string) string {
	i := strings.LastIndexByte(s, ' ')
	head, w := s[:i+1], s[i+1:]
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "xes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), singularIs(w):
	case strings.HasSuffix(w, "s") && len(w) > 3:
		w = w[:len(w)-1]
	}
	return head + w
}

// Plural makes the last word of a phrase plural.
// A puts the indefinite article before a noun: "a flight", "an itinerary".
func A(noun string) string {
	if noun != "" && strings.ContainsRune("aeiouAEIOU", rune(noun[0])) && !strings.HasPrefix(strings.ToLower(noun), "us") && !strings.HasPrefix(strings.ToLower(noun), "uni") {
		return "an " + noun
	}
	return "a " + noun
}

func Plural(s string) string {
	switch {
	case strings.HasSuffix(s, "y") && !strings.HasSuffix(s, "ay") && !strings.HasSuffix(s, "ey") && !strings.HasSuffix(s, "oy"):
		return s[:len(s)-1] + "ies"
	case strings.HasSuffix(s, "s"), strings.HasSuffix(s, "x"), strings.HasSuffix(s, "ch"), strings.HasSuffix(s, "sh"):
		return s + "es"
	}
	return s + "s"
}

var (
	snakeValue      = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)+$`)
	upperSnakeValue = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$`)
)

// ValueWords renders a value for prose: snake_case codes become words
// ("basic_economy" → "basic economy", "CREDIT_CARD" → "credit card"),
// anything else stays as it is: a single capitalised word may be a name
// or an acronym (AMOLED, USD).
func ValueWords(v string) string {
	switch {
	case snakeValue.MatchString(v):
		return strings.ReplaceAll(v, "_", " ")
	case upperSnakeValue.MatchString(v):
		return strings.ToLower(strings.ReplaceAll(v, "_", " "))
	}
	return v
}

// Attribute is how a person states a record's field: "cabin basic
// economy", "duration 144 minutes", "created April 6, 2024 at 6:03 AM",
// "price $233", never the field's raw spelling ("duration minutes 144")
// or a machine timestamp.
func Attribute(field string, v any) string {
	words := Words(LastStep(field))
	if s, ok := v.(string); ok {
		if t, ok := parseStamp(s); ok {
			words = strings.TrimSuffix(strings.TrimSuffix(words, " at"), " time")
			return words + " " + t.Format("January 2, 2006 at 3:04 PM")
		}
		return words + " " + ValueWords(s)
	}
	w := strings.Fields(words)
	if n := len(w); n > 1 && units[w[n-1]] {
		// The unit goes after the number it counts.
		return strings.Join(w[:n-1], " ") + " " + SayValue(field, v) + " " + w[n-1]
	}
	return words + " " + SayValue(field, v)
}

// StampWords says an RFC 3339 date and time as a person does, keeping
// all it holds: "September 8, 2025 at 9:00 AM UTC", "... at 9:00:30 AM
// UTC-05:00". It reports false for anything else.
func StampWords(s string) (string, bool) {
	t, ok := parseStamp(s)
	if !ok {
		return "", false
	}
	clock := "3:04 PM"
	if t.Second() != 0 || t.Nanosecond() != 0 {
		clock = "3:04:05 PM"
	}
	words := t.Format("January 2, 2006 at " + clock)
	if _, err := time.Parse(time.RFC3339, s); err != nil {
		// A time without a zone is said without one.
		return words, true
	}
	zone := "UTC"
	if _, off := t.Zone(); off != 0 {
		zone += t.Format("-07:00")
	}
	return words + " " + zone, true
}

// IsUnit reports whether a field's last word is the unit its number
// counts in ("duration_minutes").
func IsUnit(w string) bool { return units[w] }

var units = map[string]bool{"minutes": true, "hours": true, "days": true, "miles": true, "km": true, "kg": true, "nights": true, "seats": true}

// parseStamp reads an RFC 3339 date and time ("2024-04-06T06:03:00-05:00",
// with or without the zone or seconds).
func parseStamp(s string) (time.Time, bool) {
	if len(s) < 16 || s[10] != 'T' {
		return time.Time{}, false
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

var moneyWords = map[string]bool{"refund": true, "refunded": true, "total": true, "amount": true, "price": true, "cost": true, "fee": true,
	"fees": true, "charge": true, "charged": true, "balance": true, "paid": true, "difference": true, "due": true, "fare": true, "credit": true}

// IsMoney reports whether a numeric field holds an amount of money: its
// last word names one ("baggage_fee", "refund_amount", "total"), unlike
// "total_baggages".
func IsMoney(name string) bool {
	w := strings.Fields(Words(LastStep(name)))
	return len(w) > 0 && moneyWords[w[len(w)-1]]
}

// FormatValue is how a required output is written and said: whole
// numbers without decimals, other numbers with two, text as it is.
// The generator records outputs with it and the agent speaks with it, so
// the outputs check compares like with like.
func FormatValue(v any) string {
	switch x := v.(type) {
	case float64:
		return formatNumber(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	}
	s := tools.Text(v)
	if f, err := strconv.ParseFloat(s, 64); err == nil && isNumberText(s) {
		return formatNumber(f)
	}
	return s
}

func isNumberText(s string) bool {
	for _, r := range s {
		if (r < '0' || r > '9') && r != '.' && r != '-' {
			return false
		}
	}
	return s != ""
}

func formatNumber(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(math.Round(x*100)/100, 'f', 2, 64)
}

// SayValue is how the agent states a field's value: amounts of money with
// a dollar sign, codes as words.
func SayValue(field string, v any) string {
	s := FormatValue(v)
	switch v.(type) {
	case float64, int64, int:
		if IsMoney(field) {
			if neg, ok := strings.CutPrefix(s, "-"); ok {
				return "-$" + neg // "-$435", never "$-435"
			}
			return "$" + s
		}
		return s
	}
	return s
}

// AnswerValue is a field's value as the agent answers a question with
// it: SayValue, with a stored word ("one_way") said as words. An id
// keeps its text, which the customer may need exactly; the outputs check
// reads an underscore as a space.
func AnswerValue(field string, v any) string {
	val := SayValue(field, v)
	if s, ok := v.(string); ok && !strings.ContainsAny(s, "0123456789") {
		return ValueWords(val)
	}
	return val
}

// SlotText is how a customer states a value: the text the agent turns
// back into the argument with Typed.
func SlotText(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return tools.Text(v)
}

// Prepositions for fields a customer names a thing by.
func preposition(field string) string {
	f := field
	if i := strings.LastIndexByte(f, '.'); i >= 0 {
		f = f[i+1:]
	}
	switch {
	case f == "origin" || f == "from" || strings.HasPrefix(f, "origin_"):
		return "from"
	case f == "destination" || f == "to" || strings.HasPrefix(f, "destination_"):
		return "to"
	case f == "date" || strings.HasSuffix(f, "_date") || f == "day":
		return "on"
	case f == "status" || f == "state":
		return "adjective"
	case f == "name" || f == "title":
		// "the special event called Swift Ember", not "with name".
		return "called"
	}
	return ""
}

// phraseParts renders conditions as words: adjectives ("pending"),
// prepositional phrases ("from SFO", or a pack's own words for the field:
// "with the laptop in it"), and "with" clauses.
func phraseParts(where map[string][]string, say map[string]string) (adj []string, preps []string, with []string) {
	fields := slices.Sorted(maps.Keys(where))
	// Places and times in the order people say them: from, to, on.
	slices.SortStableFunc(fields, func(a, b string) int { return cmp.Compare(prepRank(a), prepRank(b)) })
	for _, f := range fields {
		if len(where[f]) == 1 {
			// A phrase for this very value: "insurance=no": "without
			// travel insurance", never "with insurance no".
			if phrase, ok := say[f+"="+where[f][0]]; ok {
				preps = append(preps, phrase)
				continue
			}
		}
		v := valuesWords(f, where[f])
		if tmpl, ok := say[f]; ok {
			preps = append(preps, fillValue(tmpl, v))
			continue
		}
		switch p := preposition(f); {
		case p == "adjective" && !slices.ContainsFunc(where[f], func(x string) bool { return !Adjectival(x) }):
			adj = append(adj, v)
		case p == "adjective":
			// "with status succeeded", never "a succeeded firewall".
			with = append(with, Words(LastStep(f))+" "+v)
		case p == "":
			with = append(with, Words(LastStep(f))+" "+v)
		default:
			preps = append(preps, p+" "+v)
		}
	}
	return adj, preps, with
}

// Adjectival reports whether a status value reads before its noun ("a
// pending order", "an active droplet", "a cancelled reservation"). A
// verb's form that does not ("a succeeded firewall", "a waiting
// firewall") or a code of several words ("in_progress") is said as the
// status instead.
func Adjectival(v string) bool {
	w := strings.ToLower(ValueWords(v))
	switch {
	case w == "" || strings.Contains(v, "_"):
		// A code of several words: "an in progress firewall" reads
		// badly; a pack's own words ("pending (item modified)") stay.
		return false
	case notAttributive[w]:
		return false
	case strings.HasSuffix(w, "ing"):
		return attributiveIng[w]
	}
	return true
}

// notAttributive are statuses in the past tense of verbs no thing
// undergoes: a job succeeds, nobody succeeds it.
var notAttributive = map[string]bool{"succeeded": true, "errored": true, "occurred": true, "happened": true, "existed": true}

// attributiveIng are the "-ing" statuses that read before a noun; any
// other ("waiting", "creating", "deleting") is said as the status.
var attributiveIng = map[string]bool{"pending": true, "running": true, "upcoming": true, "ongoing": true, "outstanding": true, "missing": true, "remaining": true, "existing": true, "failing": true}

// valuesWords says one value or alternatives: "SFO or OAK", dates as
// people say them ("May 16, May 17 or May 18, 2024").
func valuesWords(field string, vals []string) string {
	words := make([]string, len(vals))
	for i, v := range vals {
		words[i] = ValueWords(v)
	}
	if preposition(field) != "on" || len(vals) == 0 {
		return JoinOr(words)
	}
	dates := make([]string, len(vals))
	for i, v := range vals {
		d, ok := DateWords(v)
		if !ok {
			return JoinOr(words)
		}
		dates[i] = d
	}
	year := dates[0][strings.LastIndexByte(dates[0], ' '):]
	if !slices.ContainsFunc(dates, func(d string) bool { return !strings.HasSuffix(d, year) }) {
		for i := range dates[:len(dates)-1] {
			dates[i] = strings.TrimSuffix(dates[i], ","+year)
		}
	}
	return JoinOr(dates)
}

// Described names records by conditions, in the words a label uses:
// "pending orders", "itineraries with one stop" (noun as given, singular
// or plural).
func Described(noun string, where map[string]string, say map[string]string) string {
	adj, preps, with := phraseParts(single(where), say)
	words := append(adj, noun)
	words = append(words, preps...)
	if len(with) > 0 {
		words = append(words, "with "+JoinAnd(with))
	}
	return strings.Join(words, " ")
}

// LastStep is the last field of a dotted path ("price" of
// "flights.price").
func LastStep(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// DateGone: the field is when a record was changed, removed or runs
// out, which no customer orders records by.
func DateGone(field string) bool {
	f := strings.ToLower(LastStep(field))
	for _, w := range []string{"deleted", "archived", "updated", "modified", "expir", "removed", "revoked", "changed"} {
		if strings.Contains(f, w) {
			return true
		}
	}
	return false
}

// DateOrder says a field orders records by when they came to be, so a
// customer says "oldest" or "most recent": a creation time or a date,
// never when a record was changed, removed or runs out ("the most
// recent key by deleted at" means nothing to anyone).
func DateOrder(field string) bool {
	f := strings.ToLower(LastStep(field))
	return !DateGone(f) && (strings.Contains(f, "created") || strings.Contains(f, "date") || strings.HasSuffix(f, "_at") || strings.Contains(f, "time"))
}

// PickWords names an ordering criterion: an adjective ("cheapest") when
// the field reads as one, else a "with the highest X" clause.
func PickWords(pick string) (adj, clause string) {
	dir, field, ok := strings.Cut(pick, ":")
	if !ok {
		return "", ""
	}
	f := strings.ToLower(LastStep(field))
	max := dir == "max"
	switch {
	case DateOrder(f):
		if max {
			return "most recent", ""
		}
		return "oldest", ""
	case strings.Contains(f, "duration") || strings.Contains(f, "minutes") || strings.Contains(f, "length"):
		if max {
			return "longest", ""
		}
		return "shortest", ""
	case IsMoney(f):
		if max {
			return "most expensive", ""
		}
		return "cheapest", ""
	}
	if max {
		return "", "with the highest " + Words(f)
	}
	return "", "with the lowest " + Words(f)
}

func single(where map[string]string) map[string][]string {
	out := make(map[string][]string, len(where))
	for k, v := range where {
		out[k] = []string{v}
	}
	return out
}

// RecordLabel is how a customer names a record by its attributes: "my
// most recent confirmed reservation from SFO in economy".
func RecordLabel(c *CollModel, where map[string]string, pick string, mine bool) string {
	noun := c.Noun
	if by := c.ListedBy(); by != "" && len(where) == 1 && where[by] != "" && pick == "" {
		// A record the customer names by its name: "the portable charger".
		return "the " + caseFilter(where[by], "lower")
	}
	adj, preps, with := phraseParts(single(where), c.Say)
	padj, pclause := PickWords(pick)
	if phrase, ok := c.Say[pick]; ok && pick != "" {
		// The pack's words for the order: "max:total_baggages": "with the
		// most checked bags".
		padj, pclause = "", phrase
	}
	det := "the"
	if mine {
		det = "my"
	}
	return phrase(det, padj, adj, noun, preps, with, pclause)
}

// phrase joins a noun phrase's parts in English order: "the cheapest
// red shirt from Paris with a hood and with the most pockets".
func phrase(det, padj string, adj []string, noun string, preps, with []string, pclause string) string {
	words := []string{det}
	if padj != "" {
		words = append(words, padj)
	}
	words = append(words, adj...)
	words = append(words, noun)
	words = append(words, preps...)
	if len(with) > 0 {
		words = append(words, "with "+JoinAnd(with))
	}
	if pclause != "" {
		if len(with) > 0 {
			words = append(words, "and")
		}
		words = append(words, pclause)
	}
	return strings.Join(words, " ")
}

// SearchLabel names what a customer searches for: "the cheapest
// itinerary from SFO or OAK to JFK on May 20 or May 21, 2024 in economy
// with no stops", in the search's words where it has them.
func SearchLabel(s *SearchModel, among, back map[string][]string, where map[string]string, pick string) string {
	noun := s.Noun
	if back != nil {
		noun = "round trip"
	}
	// One list of conditions, so places and dates come in their order
	// whether the customer gave one value or several.
	all := single(where)
	maps.Copy(all, among)
	wadj, preps, with := phraseParts(all, s.Say)
	padj, pclause := PickWords(pick)
	if phrase, ok := s.Say[pick]; ok && pick != "" {
		padj, pclause = "", phrase
	}
	label := phrase("the", padj, wadj, noun, preps, with, pclause)
	if back != nil {
		label += ", returning " + preposition(s.Return.After) + " " + valuesWords(s.Return.After, back[s.Return.After])
	}
	return label
}

// ChoiceLabel names one of the customer's own things (a payment method)
// by its attributes: "my gift card payment method".
func ChoiceLabel(noun string, where map[string]string) string {
	var lead, with []string
	for _, f := range slices.Sorted(maps.Keys(where)) {
		v := ValueWords(where[f])
		switch strings.ToLower(LastStep(f)) {
		case "source", "type", "kind", "method", "brand", "category":
			lead = append(lead, v)
		default:
			with = append(with, Words(LastStep(f))+" "+v)
		}
	}
	words := []string{"my"}
	words = append(words, lead...)
	words = append(words, noun)
	if len(with) > 0 {
		words = append(words, "with "+JoinAnd(with))
	}
	return strings.Join(words, " ")
}

// JoinAnd joins phrases as an English list.
func JoinAnd(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// JoinOr joins alternatives: "a, b or c".
func JoinOr(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

var (
	byIDSuffix = regexp.MustCompile(`(?i)\s+(by|using|with|via)\s+(its\s+|the\s+|their\s+)?(\w+\s+)?(id|key|identifier)\b.*$`)
	hintSlot   = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)
	// httpRoute matches a description that is only a method and a path
	// ("PATCH /channels/{channel_id}"), which no customer says.
	httpRoute = regexp.MustCompile(`(?i)^(get|post|put|patch|delete|head|options)\s+/`)
)

// VerbPhrase is how a customer asks for a write, with a <target>
// placeholder: the pack's phrase hint when it has one ("{cancel|call off}
// {target}"), else the first sentence of the tool's description made an
// imperative ("Cancels a reservation." → "cancel <target>"), else the
// tool's name in words.
func (w *WriteModel) VerbPhrase() string {
	if w.Phrase != "" {
		phrase := hintSlot.ReplaceAllStringFunc(w.Phrase, func(s string) string {
			if name := s[1 : len(s)-1]; name == "target" || w.param[name] != nil {
				return "<" + name + ">"
			}
			return s
		})
		if (w.TargetKind == TargetColl || w.TargetKind == TargetSearch) && !strings.Contains(phrase, "<target>") {
			// The customer says what the write acts on, or the agent
			// could only guess it: "create a new command" becomes
			// "create a new command for application 85".
			phrase += " for <target>"
		}
		return phrase
	}
	noun := w.TargetNoun()
	if s := imperative(firstSentence(w.Tool.Description)); s != "" && !httpRoute.MatchString(s) {
		return withTarget(s, noun, w.TargetKind)
	}
	return withTarget(Words(w.Name), noun, w.TargetKind)
}

// TargetNoun is the noun of what a write acts on.
func (w *WriteModel) TargetNoun() string {
	switch w.TargetKind {
	case TargetColl:
		return w.Coll.Noun
	case TargetSearch:
		return w.Search.Noun
	case TargetUser:
		return "account"
	}
	return ""
}

func firstSentence(desc string) string {
	desc = strings.TrimSpace(desc)
	if i := strings.IndexAny(desc, "\n"); i >= 0 {
		desc = desc[:i]
	}
	for _, sep := range []string{". ", "; ", ": "} {
		if i := strings.Index(desc, sep); i >= 0 {
			desc = desc[:i]
		}
	}
	desc = strings.TrimRight(desc, ". ")
	if len(desc) > 90 || desc == "" {
		return ""
	}
	return desc
}

// imperative lower-cases a description's verb and undoes a third-person
// "s" ("Cancels" → "cancel", "Modifies" → "modify").
func imperative(s string) string {
	if s == "" {
		return ""
	}
	verb, rest, _ := strings.Cut(s, " ")
	if verb == "" || !unicode.IsLetter(rune(verb[0])) {
		return ""
	}
	v := strings.ToLower(verb)
	switch {
	case strings.HasSuffix(v, "ies") && len(v) > 4:
		v = v[:len(v)-3] + "y"
	case strings.HasSuffix(v, "sses"), strings.HasSuffix(v, "shes"), strings.HasSuffix(v, "ches"), strings.HasSuffix(v, "xes"), strings.HasSuffix(v, "zes"):
		v = v[:len(v)-2]
	case strings.HasSuffix(v, "ss"), strings.HasSuffix(v, "us"):
	case strings.HasSuffix(v, "s") && len(v) > 3:
		v = v[:len(v)-1]
	}
	if rest == "" {
		return v
	}
	if t, titled := untitle(rest); titled {
		// A summary names its object bare ("Create Alert Policy"): a
		// person says "create an alert policy".
		first := strings.ToLower(strings.Fields(t)[0])
		if !slices.Contains([]string{"a", "an", "the", "all", "each", "every", "one", "your", "my", "its", "their", "multiple", "some", "any"}, first) && !strings.HasSuffix(t, "s") {
			t = A(t)
		}
		return v + " " + t
	}
	return v + " " + rest
}

// untitle lower-cases a Title Case summary's words ("Create Alert
// Policy" → "alert policy") mid-sentence; acronyms and words with inner
// capitals (VPC, PostgreSQL) stay. A description that is a sentence,
// with words in lower case, is left as written: its capitals are names.
func untitle(s string) (string, bool) {
	words := strings.Fields(s)
	titled := 0
	for _, w := range words {
		if len(w) < 3 || !unicode.IsLetter(rune(w[0])) {
			continue
		}
		if !unicode.IsUpper(rune(w[0])) {
			return s, false
		}
		titled++
	}
	if titled == 0 {
		return s, false
	}
	for i, w := range words {
		if len(w) > 1 && unicode.IsUpper(rune(w[0])) && strings.ToLower(w[1:]) == w[1:] {
			words[i] = strings.ToLower(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " "), true
}

// withTarget puts the <target> placeholder where the description names
// the thing acted on ("update the baggage of a reservation" → "update
// the baggage of <target>"), or appends it.
func withTarget(s, noun, kind string) string {
	s = byIDSuffix.ReplaceAllString(s, "")
	if kind == TargetNone || noun == "" {
		return s
	}
	words := strings.Fields(noun)
	pattern := `(?i)\b(a|an|the|one|that|this|its|their|your|the user's|a user's|existing|specified|given)\s+((existing|specified|given|single|new)\s+)*`
	alts := []string{regexp.QuoteMeta(noun)}
	if kind == TargetUser {
		alts = append(alts, "user", "customer", "account", "member")
	}
	if len(words) > 1 {
		alts = append(alts, regexp.QuoteMeta(words[len(words)-1]))
	}
	// One word may stand between the article and the noun: "a
	// Kubernetes cluster" is the target, not "a Kubernetes <target>".
	re := regexp.MustCompile(pattern + `([A-Za-z0-9]+\s+)?(` + strings.Join(alts, "|") + `)\b`)
	if loc := re.FindStringIndex(s); loc != nil {
		if head := strings.Fields(s[loc[1]:]); len(head) == 1 && unicode.IsLetter(rune(head[0][0])) {
			// The noun names what the head word belongs to ("initiate an
			// image action"): "initiate an action for <target>".
			return s[:loc[0]] + A(head[0]) + " for <target>"
		}
		return s[:loc[0]] + "<target>" + s[loc[1]:]
	}
	re2 := regexp.MustCompile(`(?i)\b(` + strings.Join(alts, "|") + `)\b`)
	if loc := re2.FindStringIndex(s); loc != nil && loc[0] > 0 {
		return s[:loc[0]] + "<target>" + s[loc[1]:]
	}
	return s + " for <target>"
}

// FillPhrase puts a target's words and slot values into a verb phrase;
// a slot without a value reads as "some" followed by its name.
func FillPhrase(phrase, target string, slots map[string]string) string {
	if target == "" {
		// Nothing names the target (a record the write creates): "create
		// a stage instance", never "… for  with these details".
		phrase = strings.TrimSpace(emptyTarget.ReplaceAllString(phrase, ""))
	}
	out := strings.ReplaceAll(phrase, "<target>", target)
	return hintSlotFilled.ReplaceAllStringFunc(out, func(s string) string {
		name := s[1 : len(s)-1]
		if v, ok := slots[name]; ok {
			return v
		}
		return "some " + Words(name)
	})
}

var emptyTarget = regexp.MustCompile(`(\s+(for|on|of|to|in|from|at))?\s*<target>`)

var hintSlotFilled = regexp.MustCompile(`<([A-Za-z_][A-Za-z0-9_]*)>`)

// Plain renders a phrase template without randomness: the first
// alternative of every {a|b} group, for the instruction and the reason.
func Plain(tmpl string) string {
	var b strings.Builder
	for i := 0; i < len(tmpl); i++ {
		if tmpl[i] != '{' {
			b.WriteByte(tmpl[i])
			continue
		}
		depth, j := 0, i
		alt := -1
		for ; j < len(tmpl); j++ {
			switch tmpl[j] {
			case '{':
				depth++
			case '}':
				depth--
			case '|':
				if depth == 1 && alt < 0 {
					alt = j
				}
			}
			if depth == 0 {
				break
			}
		}
		if j >= len(tmpl) {
			b.WriteString(tmpl[i:])
			break
		}
		end := j
		if alt >= 0 {
			end = alt
		}
		b.WriteString(Plain(tmpl[i+1 : end]))
		i = j
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// singularIs reports whether a word ending in "is" is singular already
// (basis, axis, tennis, arthritis, iris, trellis) rather than a plural
// (emojis, kiwis).
func singularIs(w string) bool {
	return len(w) > 2 && strings.HasSuffix(w, "is") && strings.ContainsRune("sxntrl", rune(w[len(w)-3]))
}

// Description is how the agent states a record it found, in the pack's
// words where it has them: "an active reservation from ORD to MSP in
// economy for a round trip with travel insurance and 4 checked bags,
// created April 11, 2024 at 6:11 PM". Attributes with no words of their
// own are said by name ("aircraft A320"). It is "" for a record with no
// scalar describe or compare field.
// SaidAs is the pack's words for a record's field and value ("for a
// one-way trip", "with 2 checked bags"), if it has any.
func SaidAs(c *CollModel, f string, v any) (string, bool) {
	phrase, said := c.Say[f+"="+tools.Text(v)]
	if tmpl, ok := c.Say[f]; ok && !said {
		return fillValue(tmpl, SayValue(f, v)), true
	}
	return phrase, said
}

func Description(c *CollModel, obj map[string]any) string {
	var adj, preps, with, attrs []string
	for _, f := range slices.Concat(c.Describe, c.Compare) {
		v, ok := ValueAt(obj, f)
		if !ok || v == nil {
			continue
		}
		switch v.(type) {
		case map[string]any, []any:
			continue
		}
		text := tools.Text(v)
		phrase, said := SaidAs(c, f, v)
		if _, stamp := parseStamp(text); stamp {
			// A time is said as a time, whatever the pack's words.
			said = false
		}
		switch {
		case said && strings.HasPrefix(phrase, "with "):
			with = append(with, strings.TrimPrefix(phrase, "with "))
		case said:
			preps = append(preps, phrase)
		case preposition(f) == "adjective" && Adjectival(text):
			adj = append(adj, ValueWords(text))
		case preposition(f) != "" && preposition(f) != "adjective" && !isNumber(v):
			preps = append(preps, preposition(f)+" "+ValueWords(text))
		default:
			attrs = append(attrs, Attribute(f, v))
		}
	}
	if len(adj)+len(preps)+len(with)+len(attrs) == 0 {
		return ""
	}
	words := append(adj, c.Noun)
	words = append(words, preps...)
	if len(with) > 0 {
		if len(preps) > 0 && strings.HasPrefix(preps[len(preps)-1], "without ") {
			words = append(words, "and")
		}
		words = append(words, "with "+JoinAnd(with))
	}
	out := A(strings.Join(words, " "))
	if len(attrs) > 0 {
		out += ", " + JoinAnd(attrs)
	}
	return out
}

func isNumber(v any) bool {
	switch v.(type) {
	case float64, int64, int:
		return true
	}
	return false
}

// fillValue puts a value into a say template's {value} forms.
func fillValue(tmpl, v string) string {
	return strings.NewReplacer("{value}", v, "{value|lower}", caseFilter(v, "lower"), "{value|title}", caseFilter(v, "title"), "{value|words}", caseFilter(v, "words")).Replace(tmpl)
}

// ElementText says one element of a list argument so that a person can
// read it and every id in it stays verbatim: "SY264 from MCO to DEN on
// June 4, 2024 (price $199)". ids are the fields identifying names
// (keys); the fields in first lead its other attributes; say words
// them as a collection's say does ("stops=0": "with no stops", "cabin":
// "in {value|words}").
func ElementText(e map[string]any, identifying, first []string, say map[string]string) string {
	var ids, preps, attrs []string
	fields := slices.Sorted(maps.Keys(e))
	slices.SortStableFunc(fields, func(a, b string) int {
		return cmp.Compare(prepRank(a), prepRank(b))
	})
	var lead []string
	for _, f := range first {
		if _, ok := e[f]; ok && !slices.Contains(lead, f) {
			lead = append(lead, f)
		}
	}
	rest := slices.DeleteFunc(fields, func(f string) bool { return slices.Contains(lead, f) })
	for _, f := range slices.Concat(lead, rest) {
		v := e[f]
		switch v.(type) {
		case nil, map[string]any, []any:
			continue
		}
		text := tools.Text(v)
		if text == "" {
			continue
		}
		if phrase, ok := say[f+"="+text]; ok {
			attrs = append(attrs, phrase)
			continue
		}
		if tmpl, ok := say[f]; ok && !slices.Contains(identifying, f) {
			// The pack's words for the field: "cabin": "in {value|words}".
			preps = append(preps, fillValue(tmpl, ValueWords(text)))
			continue
		}
		switch p := preposition(f); {
		case slices.Contains(identifying, f):
			ids = append(ids, text)
		case p == "on":
			if w, ok := DateWords(text); ok {
				text = w
			}
			preps = append(preps, p+" "+text)
		case p != "" && p != "adjective" && !isNumber(v):
			preps = append(preps, p+" "+ValueWords(text))
		default:
			attrs = append(attrs, Attribute(f, v))
		}
	}
	out := strings.Join(slices.Concat(ids, preps), " ")
	switch {
	case len(attrs) == 0:
	case out == "":
		out = strings.Join(attrs, ", ")
	default:
		out += " (" + strings.Join(attrs, ", ") + ")"
	}
	return out
}

// HasPreposition reports whether a field is said as a place or a time
// ("from SFO", "on June 5, 2024") rather than as an attribute by name.
func HasPreposition(field string) bool {
	p := preposition(field)
	return p != "" && p != "adjective" && p != "called"
}

// Calls reports whether a field is what a record is called by ("the
// special event called Swift Ember"): its name or title.
func Calls(field string) bool { return preposition(field) == "called" }

// prepRank orders a place's words as people say them: from, to, on.
func prepRank(f string) int {
	switch preposition(f) {
	case "from":
		return 0
	case "to":
		return 1
	case "on":
		return 2
	}
	return 3
}

var isoDate = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)

// DatesInWords says every ISO date in a text as a person does: a tool's
// "flight SY161 on 2024-05-13 has already departed" told to a customer.
// A date inside a timestamp or an id is left as it is.
func DatesInWords(text string) string {
	return isoDate.ReplaceAllStringFunc(text, func(d string) string {
		if w, ok := DateWords(d); ok {
			return w
		}
		return d
	})
}

// ClockWords says a time of day as a person does: "23:30:00" is "11:30
// PM", "03:10:00+1" (the next day, as τ²'s flights write it) "3:10 AM
// the next day". It reports false for anything else.
func ClockWords(s string) (string, bool) {
	clock, days, _ := strings.Cut(s, "+")
	t, err := time.Parse(time.TimeOnly, clock)
	if err != nil {
		return "", false
	}
	words := t.Format("3:04 PM")
	switch days {
	case "":
	case "1":
		words += " the next day"
	default:
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return "", false
		}
		words += " " + days + " days later"
	}
	return words, true
}

// DateWords says an ISO date ("2024-06-04") as "June 4, 2024".
func DateWords(s string) (string, bool) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return "", false
	}
	return t.Format("January 2, 2006"), true
}

// Kinds of question about one field of a record.
const (
	AskWhat  = "what"  // "What's the price of …?"
	AskWhen  = "when"  // "When was … created?"
	AskCount = "count" // "How many checked bags does … have?"
	AskHas   = "has"   // "Does … have travel insurance?"
)

// FieldAsk is how a person asks about a field and hears the answer, in
// the collection's words where it has them: never "the total baggages
// of", "the created at of" or "the insurance of … is no".
type FieldAsk struct {
	Kind  string
	Words string // "price", "created", "checked bags", "travel insurance"
	Unit  string // said after the value: "minutes" of duration_minutes
}

// AskAbout says how to ask about field of c's records (c may be nil); v
// is the field's value where the asker can know its type (nil when not).
func AskAbout(c *CollModel, field string, v any) FieldAsk {
	f := LastStep(field)
	words := strings.Fields(Words(f))
	if n := len(words); n > 1 && (words[n-1] == "at" || words[n-1] == "on") && Participle(words[n-2]) {
		return FieldAsk{Kind: AskWhen, Words: strings.Join(words[:n-1], " ")}
	}
	if n := len(words); n > 1 && units[words[n-1]] {
		return FieldAsk{Kind: AskWhat, Words: strings.Join(words[:n-1], " "), Unit: words[n-1]}
	}
	var say map[string]string
	if c != nil {
		say = c.Say
	}
	bare := func(t string) string {
		t = strings.TrimSpace(strings.ReplaceAll(t, "{value}", ""))
		for _, p := range []string{"with ", "has "} {
			t = strings.TrimPrefix(t, p)
		}
		return strings.Join(strings.Fields(t), " ")
	}
	switch x := v.(type) {
	case string:
		if t, ok := say[f+"=yes"]; ok && (x == "yes" || x == "no") && strings.HasPrefix(t, "with ") {
			return FieldAsk{Kind: AskHas, Words: bare(t)}
		}
	case float64, int, int64:
		if t, ok := say[f]; ok && strings.Contains(t, "{value}") && bare(t) != "" {
			return FieldAsk{Kind: AskCount, Words: bare(t)}
		}
		if n := len(words); n == 1 && strings.HasSuffix(words[0], "s") && !strings.HasSuffix(words[0], "ss") && !IsMoney(f) {
			return FieldAsk{Kind: AskCount, Words: words[0]} // pages, copies, renewals
		}
	}
	return FieldAsk{Kind: AskWhat, Words: strings.Join(words, " ")}
}

// SampleValue is the field's value in the first of coll's records that
// has it: what a customer knows of its type without knowing the record.
func (m *Model) SampleValue(coll, field string) any {
	for _, k := range m.Base.Keys(coll) {
		v, _ := m.Base.Get(coll, k)
		if x, ok := ValueAt(v, field); ok {
			return x
		}
	}
	return nil
}

// participle reports whether a word reads as a past participle: created,
// borrowed, made.
// Participle reports whether a word is a past participle ("created",
// "paid"), which a record's time is said with.
func Participle(w string) bool {
	switch w {
	case "made", "sent", "paid", "built", "done", "begun", "taken", "given", "shipped":
		return true
	}
	return len(w) > 3 && strings.HasSuffix(w, "ed")
}

// Answer states what a question about a field found, holding the value
// as the record has it (a stored word said as words, which the outputs
// check reads as the record's); what names the record ("reservation
// OKLNF8", "your order").
func (a FieldAsk) Answer(what string, field string, v any) string {
	val := SayValue(field, v)
	subject := what
	if what != "" {
		subject = strings.ToUpper(what[:1]) + what[1:]
	}
	switch a.Kind {
	case AskWhen:
		if w, ok := StampWords(val); ok {
			// Said as a person says it, with the record's own text for
			// the one who needs it exactly.
			return fmt.Sprintf("%s was %s on %s (%s).", subject, a.Words, w, val)
		}
		return fmt.Sprintf("%s was %s on %s.", subject, a.Words, val)
	case AskCount:
		words := a.Words
		if f := strings.Fields(words); val == "1" && len(f) > 0 {
			f[len(f)-1] = Singular(f[len(f)-1])
			words = strings.Join(f, " ")
		}
		return fmt.Sprintf("%s has %s %s.", subject, val, words)
	case AskHas:
		if val == "yes" {
			return fmt.Sprintf("Yes, %s has %s.", what, a.Words)
		}
		return fmt.Sprintf("No, %s doesn't have %s.", what, a.Words)
	}
	said := AnswerValue(field, v)
	if a.Unit != "" {
		said += " " + a.Unit
	}
	return fmt.Sprintf("The %s of %s is %s.", a.Words, what, said)
}

// FailedHandover is the summary a transfer after a failed write gives
// the human agent: who (the customer's key, "" when unknown) asked for
// what (the goal's intent) and how the service failed it (a failure
// kind). The generator's ground truth and the agent's call say the same.
func FailedHandover(user, intent, kind string) string {
	who := "The customer"
	if user != "" {
		who = "Customer " + user
	}
	return who + " confirmed a request to " + Words(intent) + "; the service failed it (" + Words(kind) + ")."
}
