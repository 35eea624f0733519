package openapi

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Word lists for strings a person would believe of a field whose name
// says what it holds but whose schema gives no example.
var (
	purposes  = strings.Fields(`billing analytics staging production checkout search reporting marketing support backup internal metrics payments onboarding inventory`)
	teams     = strings.Fields(`platform billing data mobile web payments growth support infrastructure security`)
	tagWords  = strings.Fields(`production staging web backend frontend database monitoring billing analytics internal api cache`)
	hostWords = strings.Fields(`northwind bluebird harborapp cedarlabs summitdata lumenstudio orchardfoods atlasfreight keystone brightpath`)
	tlds      = strings.Fields(`com io net dev org`)
	subdomain = strings.Fields(`www api mail app blog shop status cdn`)
	emojiName = strings.Fields(`tada rocket fire wave eyes heart thumbsup sparkles party_parrot white_check_mark`)
	emojiChar = []string{"🎉", "🚀", "🔥", "👋", "👀", "❤️", "👍", "✨", "✅", "⭐"}
	fileExts  = strings.Fields(`pdf png csv txt json zip`)
	fileStems = strings.Fields(`report invoice screenshot export backup notes diagram summary`)
	modelIDs  = strings.Fields(`llama3.3-70b-instruct mistral-nemo-instruct gpt-4o-mini claude-3.5-haiku deepseek-r1-distill-llama-70b llama3-8b-instruct`)
	metrics   = strings.Fields(`cpu_usage memory_utilization disk_read_bytes request_count error_rate latency_p95 bandwidth_out`)
	dbNames   = strings.Fields(`defaultdb app_production analytics orders inventory users_db`)
	// doRegions are region slugs with the names the DigitalOcean spec's
	// examples give them ("nyc3": "New York 3"), so a region's slug and
	// name agree.
	doRegions = strings.Fields(`nyc1 nyc3 sfo3 ams3 sgp1 lon1 fra1 tor1 blr1 syd1`)
	rtcZones  = strings.Fields(`us-east us-west us-central rotterdam singapore japan brazil sydney`)
	errorText = []string{
		"Request timed out after 30 seconds",
		"Upstream service returned 503 Service Unavailable",
		"Invalid credentials supplied for the data source",
		"Rate limit exceeded; retry after 60 seconds",
		"Disk quota exceeded on the target volume",
		"Connection refused by the remote host",
	}
	reasonText = []string{
		"Requested by the account owner",
		"Duplicate of an earlier request",
		"No longer needed after the migration",
		"Violates the community guidelines",
		"Created by mistake",
		"Replaced by a newer version",
	}
	messageText = []string{
		"Deploy finished for the %s service",
		"Can someone review the %s dashboard today?",
		"The %s report is ready for review",
		"Heads up: %s maintenance starts at 18:00 UTC",
		"Thanks, the %s fix works on my side",
	}
	promptText = []string{
		"You are a support assistant for the %s team. Answer briefly and link the relevant docs",
		"Summarize the %s ticket in three bullet points",
		"Answer questions about %s using only the attached knowledge base",
		"Classify each %s request as urgent, normal or low priority",
	}
)

var regionNames = map[string]string{"nyc1": "New York 1", "nyc2": "New York 2", "nyc3": "New York 3",
	"sfo1": "San Francisco 1", "sfo2": "San Francisco 2", "sfo3": "San Francisco 3", "ams2": "Amsterdam 2",
	"ams3": "Amsterdam 3", "sgp1": "Singapore 1", "lon1": "London 1", "fra1": "Frankfurt 1", "tor1": "Toronto 1",
	"blr1": "Bangalore 1", "syd1": "Sydney 1", "atl1": "Atlanta 1", "ric1": "Richmond 1"}

// dnsTypes are the record types a DNS record's type is drawn from when
// the spec shows DNS types only by example ("For example: A, CNAME").
var dnsTypes = strings.Fields(`A AAAA CNAME MX TXT NS SRV CAA`)

// tokens are a field name's words: "rtc_region" → rtc, region.
func tokens(name string) []string {
	return strings.FieldsFunc(snake(name), func(r rune) bool { return r == '_' })
}

func hasToken(ts []string, ws ...string) bool {
	return slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(ts, w) })
}

// ipField: the name says the string is an IP address ("ip", "ip_address",
// "vpc_egress_ips"); cidr that it is a range.
func ipField(ts []string) (ip, cidr bool) {
	ip = hasToken(ts, "ip", "ips", "ipv4", "ipaddress") || strings.HasSuffix(strings.Join(ts, ""), "ipaddress")
	cidr = hasToken(ts, "cidr", "subnet") || ip && hasToken(ts, "range", "ranges")
	return ip, cidr
}

// privateField: the name says an address is inside a network.
func privateField(ts []string) bool {
	return hasToken(ts, "private", "internal", "local", "vpc") && !hasToken(ts, "egress", "public")
}

// ipv4 is a documentation-range address (RFC 5737) a reader takes for a
// public one, or a 10/8 address where the field says private.
func (g *synthesizer) ipv4(private bool) string {
	if private {
		return fmt.Sprintf("10.%d.%d.%d", g.rng.IntN(256), g.rng.IntN(256), 2+g.rng.IntN(252))
	}
	return fmt.Sprintf("%s.%d", g.pick([]string{"203.0.113", "198.51.100"}), 2+g.rng.IntN(252))
}

func (g *synthesizer) hostname() string {
	return g.pick(hostWords) + "." + g.pick(tlds)
}

// hostField: the name says the string is a domain or host name.
func (g *synthesizer) hostField(ts []string) bool {
	if hasToken(ts, "url", "uri", "id", "ids", "email", "verification", "record", "records") {
		return false
	}
	if hasToken(ts, "domain", "domains", "hostname", "hostnames", "fqdn") {
		return true
	}
	// A domain's own name.
	return len(ts) == 1 && ts[0] == "name" && strings.Contains(strings.ToLower(g.coll.Noun), "domain") &&
		!strings.Contains(strings.ToLower(g.coll.Noun), "record")
}

// early draws what a name says plainly before the person fields read it
// otherwise (an "ip_address" is no street address): addresses, hosts,
// Discord's numeric strings.
func (g *synthesizer) early(name string) (string, bool) {
	ts := tokens(name)
	if len(ts) == 0 {
		return "", false
	}
	last := ts[len(ts)-1]
	switch ip, cidr := ipField(ts); {
	case cidr:
		return fmt.Sprintf("10.%d.0.0/%s", 10+g.rng.IntN(240), g.pick([]string{"16", "20", "24"})), true
	case ip:
		return g.ipv4(privateField(ts)), true
	case g.hostField(ts):
		return g.hostname(), true
	case last == "discriminator":
		return fmt.Sprintf("%04d", 1+g.rng.IntN(9999)), true
	case hasToken(ts, "permissions", "flags") || len(ts) == 1 && (last == "allow" || last == "deny"):
		// Bit fields sent as decimal strings.
		var bits uint64
		for i := 0; i < 1+g.rng.IntN(4); i++ {
			bits |= 1 << g.rng.IntN(40)
		}
		return strconv.FormatUint(bits, 10), true
	}
	return "", false
}

// sentenceFields are last words of names that hold a sentence about the
// record.
var sentenceFields = map[string]bool{"description": true, "summary": true, "comment": true, "comments": true,
	"note": true, "notes": true, "bio": true, "details": true, "topic": true, "about": true, "localized": true}

// textual: the name says the field holds prose (a prompt, a message, a
// description), never a date or a number.
func textual(name string) bool {
	ts := tokens(name)
	return hasToken(ts, "prompt", "instruction", "instructions", "message", "description", "text", "content", "body", "notes", "summary")
}

// isoCountries are ISO 3166-1 alpha-2 codes, enough for a collection
// keyed by country to have a record per code.
var isoCountries = strings.Fields(`US CA MX BR AR GB IE FR DE NL BE ES PT IT CH AT SE NO DK FI PL CZ GR TR IL AE SA IN SG JP KR AU NZ ZA NG KE EG PH ID TH`)

// areaCodes are US area codes for numbers in the 555-01xx range kept
// for fiction, so no drawn number rings anyone.
var areaCodes = strings.Fields(`415 212 312 206 617 305`)

// readable draws what a person reads and types for a field that names
// a thing by it, where the name and its schema's description say so: a
// phone number in E.164 form, a country code (or a name where the
// description asks for one), an identity as the description shapes it
// (a UUID, an email, else a handle). Keys take it before an opaque
// token: Twilio's numbers are keyed by their phone number, its
// configurations by country, its entities by identity.
func (g *synthesizer) readable(name string, m map[string]any) (string, bool) {
	ts := tokens(name)
	if len(ts) == 0 {
		return "", false
	}
	last := ts[len(ts)-1]
	d, _ := m["description"].(string)
	d = strings.ToLower(d)
	switch {
	case hasToken(ts, "phone", "msisdn") && !hasToken(ts, "id", "sid", "type", "verified", "enabled"),
		(last == "to" || last == "from" || last == "recipient" || last == "sender") && strings.Contains(d, "phone"):
		return fmt.Sprintf("+1%s55501%02d", g.pick(areaCodes), g.rng.IntN(100)), true
	case last == "country" || hasToken(ts, "country") && hasToken(ts, "code", "iso"):
		if strings.Contains(d, "name") && !strings.Contains(d, "code") {
			return g.pick(countries), true
		}
		return g.pick(isoCountries), true
	case last == "identity":
		switch {
		case strings.Contains(d, "uuid") || strings.Contains(d, "guid"):
			return g.uuid(), true
		case strings.Contains(d, "email"):
			return g.email(), true
		}
		return asciiLower(g.first()) + "." + asciiLower(g.last()), true
	}
	return "", false
}

// semantic draws from what the name's words say the field holds, for
// names byName has no rule for; false when nothing fits. The groups are
// tried in order, so an earlier group's rule wins.
func (g *synthesizer) semantic(name string) (string, bool) {
	ts := tokens(name)
	if len(ts) == 0 {
		return "", false
	}
	last := ts[len(ts)-1]
	for _, group := range []func([]string, string) (string, bool){g.prose, g.named, g.technical} {
		if v, ok := group(ts, last); ok {
			return v, true
		}
	}
	return "", false
}

// prose draws text a person writes: messages, reasons, descriptions, tags.
func (g *synthesizer) prose(ts []string, last string) (string, bool) {
	noun := strings.ToLower(g.coll.Noun)
	switch {
	case hasToken(ts, "error", "errors") && hasToken(ts, "message", "msg", "description", "details", "detail", "reason"):
		return g.pick(errorText), true
	case last == "reason":
		return g.pick(reasonText), true
	case hasToken(ts, "prompt", "instruction", "instructions") || last == "case" || last == "response" && len(ts) > 1:
		return fmt.Sprintf(g.pick(promptText), g.pick(purposes)), true
	case last == "message" || last == "content" || last == "text" || last == "body":
		return fmt.Sprintf(g.pick(messageText), g.pick(purposes)), true
	case sentenceFields[last] || hasToken(ts, "description"):
		return g.describe(noun), true
	case last == "tag" || last == "tags" || last == "slug" && len(ts) == 1:
		return g.pick(tagWords), true
	case last == "nick" || last == "nickname":
		return strings.ToLower(g.first()) + "_" + g.pick(tagWords), true
	}
	return "", false
}

// named draws from the fixed vocabularies of names: emoji, files, regions,
// models, metrics, databases.
func (g *synthesizer) named(ts []string, last string) (string, bool) {
	switch {
	case hasToken(ts, "global") && last == "name":
		return g.first(), true
	case hasToken(ts, "emoji") && hasToken(ts, "unicode"):
		return g.pick(emojiChar), true
	case hasToken(ts, "emoji"):
		return g.pick(emojiName), true
	case last == "filename" || last == "file" || hasToken(ts, "file") && last == "name":
		return fmt.Sprintf("%s-%d.%s", g.pick(fileStems), 100+g.rng.IntN(900), g.pick(fileExts)), true
	case hasToken(ts, "rtc"):
		return g.pick(rtcZones), true
	case last == "region" || last == "regions":
		return g.pick(doRegions), true
	case hasToken(ts, "model") && hasToken(ts, "name", "id", "uuid", "slug") || last == "model":
		return g.pick(modelIDs), true
	case hasToken(ts, "metric") && last == "name":
		return g.pick(metrics), true
	case hasToken(ts, "db", "database") && hasToken(ts, "name", "names"):
		return g.pick(dbNames), true
	}
	return "", false
}

// technical draws values a machine reads: versions, states, paths,
// credentials, addresses.
func (g *synthesizer) technical(ts []string, last string) (string, bool) {
	switch {
	case last == "version":
		return fmt.Sprintf("%d.%d.%d", 1+g.rng.IntN(3), g.rng.IntN(10), g.rng.IntN(20)), true
	case last == "status" || last == "state":
		return g.pick(states), true
	case last == "path":
		return fmt.Sprintf("/data/%s/%s-%d.csv", g.pick(purposes), g.pick(fileStems), 100+g.rng.IntN(900)), true
	case last == "authorization":
		return "Bearer " + g.alnum(32), true
	case hasToken(ts, "origin", "origins", "redirect"):
		return "https://" + g.hostname(), true
	case hasToken(ts, "banner", "splash", "logo", "header", "badge", "asset", "thumbnail", "cover"):
		return fmt.Sprintf("https://cdn.example.com/%s/%d.png", snake(g.coll.Name), 1000+g.rng.IntN(9000)), true
	case last == "name" && len(ts) > 1:
		// A thing's own name ("bucket_name", "route_name"): a slug.
		return g.pick(purposes) + "-" + strings.ToLower(ts[len(ts)-2]) + "-" + strconv.Itoa(1+g.rng.IntN(20)), true
	}
	return "", false
}

var simpleNoun = regexp.MustCompile(`^[a-z]{3,}$`)

// thingName names a record: by what it is for ("Staging webhook") when
// its noun is a plain word for a thing people build or run, else a name
// ("Silver Summit").
func (g *synthesizer) thingName() string {
	noun := strings.ToLower(g.coll.Noun)
	if simpleNoun.MatchString(noun) && machineNoun(noun) && g.rng.IntN(2) == 0 {
		p := g.pick(purposes)
		return strings.ToUpper(p[:1]) + p[1:] + " " + noun
	}
	return g.pick(adjectives) + " " + g.pick(nouns)
}

// describe is one sentence about a record of noun: in the API's own
// words where its documents give enough of them, else "Staging droplet
// for the billing team". It has no final period, as templates add their
// own.
func (g *synthesizer) describe(noun string) string {
	if s := g.proseAbout(noun); s != "" {
		return s
	}
	noun = cmp.Or(noun, "resource")
	p := g.pick(purposes)
	p = strings.ToUpper(p[:1]) + p[1:]
	switch g.rng.IntN(3) {
	case 0:
		return fmt.Sprintf("%s %s for the %s team", p, noun, g.pick(teams))
	case 1:
		return fmt.Sprintf("%s %s, owned by the %s team", p, noun, g.pick(teams))
	}
	return fmt.Sprintf("%s %s in %s", p, noun, g.pick(cities))
}

// fallback is a value for a string field nothing else describes: a slug
// such as "billing-falcon", which reads as a name, never as prose.
func (g *synthesizer) fallback() string {
	return g.pick(purposes) + "-" + strings.ToLower(g.pick(nouns))
}

// listedRE finds the values a description lists ("For example: A,
// CNAME, TXT, ...", `Valid values are "issue", "issuewild", or "iodef"`).
var listedRE = regexp.MustCompile(`(?i)(?:for example|e\.g\.|valid values are|possible values are|one of|such as)[:,]?\s+([^.;()]+)`)

var listedValueRE = regexp.MustCompile(`^[A-Za-z0-9_:-]{1,20}$`)

// listed are the values a string schema's description names, with its
// examples; a list of DNS types grows to all common ones. Nil when the
// description lists fewer than two.
func listed(m map[string]any, ex []string) []string {
	d, _ := m["description"].(string)
	out := coded(d)
	if sm := listedRE.FindStringSubmatch(d); sm != nil && len(out) < 2 {
		out = words(sm[1])
	}
	if len(out) < 2 {
		return nil
	}
	for _, e := range ex {
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	dns := 0
	for _, v := range out {
		if slices.Contains(dnsTypes, v) {
			dns++
		}
	}
	if dns >= 2 {
		return dnsTypes
	}
	return out
}

// listsCodeRE finds a description that lists the values a field takes
// in code spans (examples "such as" are no closed list):
// "One of: `email`, `sms` or `call`", "Possible event types: `*,
// factor.deleted, factor.created`".
var listsCodeRE = regexp.MustCompile("(?i)(one of|possible|valid|allowed|supported)[^`]{0,40}`")

var codeSpanRE = regexp.MustCompile("`([^`]+)`")

var codedValueRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,30}$`)

// coded are the values a description lists in code spans after words
// that say they are the choices; nil when it lists fewer than two.
func coded(d string) []string {
	loc := listsCodeRE.FindStringIndex(d)
	if loc == nil {
		return nil
	}
	var out []string
	for _, sm := range codeSpanRE.FindAllStringSubmatch(d[loc[1]-1:], -1) {
		for _, v := range strings.Split(sm[1], ",") {
			v = strings.TrimSpace(v)
			if codedValueRE.MatchString(v) && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// words are the values a list in prose names ("A, CNAME, or TXT").
func words(list string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == '/' }) {
		part = strings.TrimSpace(part)
		part = strings.TrimPrefix(part, "or ")
		part = strings.TrimPrefix(part, "and ")
		part = strings.Trim(part, "\"'` ")
		if listedValueRE.MatchString(part) && !slices.Contains(out, part) {
			out = append(out, part)
		}
	}
	return out
}

// settleDNS makes a DNS record agree with its type: a name a zone has,
// data of the type's shape, and the SRV/MX/CAA fields only where the
// type has them (null elsewhere, when the schema allows null).
func (g *synthesizer) settleDNS(rec map[string]any, props map[string]any) {
	t, _ := rec["type"].(string)
	if !slices.Contains(dnsTypes, t) {
		return
	}
	if _, ok := rec["data"].(string); !ok {
		return
	}
	if _, ok := rec["name"].(string); ok {
		rec["name"] = g.pick(append([]string{"@"}, subdomain...))
	}
	switch t {
	case "A":
		rec["data"] = g.ipv4(false)
	case "AAAA":
		rec["data"] = fmt.Sprintf("2001:db8::%x", 1+g.rng.IntN(65535))
	case "CNAME":
		rec["data"] = g.hostname() + "."
	case "MX":
		rec["data"] = "mail." + g.hostname()
	case "TXT":
		rec["data"] = "v=spf1 include:_spf." + g.hostname() + " ~all"
	case "NS":
		rec["data"] = fmt.Sprintf("ns%d.digitalocean.com", 1+g.rng.IntN(3))
	case "SRV":
		rec["data"] = "sip." + g.hostname()
	case "CAA":
		rec["data"] = "letsencrypt.org"
	}
	uses := map[string][]string{"priority": {"MX", "SRV"}, "port": {"SRV"}, "weight": {"SRV"}, "flags": {"CAA"}, "tag": {"CAA"}}
	for f, types := range uses {
		if _, ok := rec[f]; !ok || slices.Contains(types, t) {
			continue
		}
		if pm, ok := props[f].(map[string]any); ok && (nullable(pm) || pm["nullable"] == true) {
			rec[f] = nil
		}
	}
	if t == "CAA" {
		if _, ok := rec["tag"]; ok {
			rec["tag"] = g.pick([]string{"issue", "issuewild", "iodef"})
		}
		if _, ok := rec["flags"]; ok {
			rec["flags"] = int64(0)
		}
	}
}

// settleRegion names a region by its slug ("nyc3" → "New York 3").
func settleRegion(rec map[string]any) {
	slug, _ := rec["slug"].(string)
	if name, ok := regionNames[slug]; ok {
		if _, has := rec["name"].(string); has {
			rec["name"] = name
		}
	}
}
