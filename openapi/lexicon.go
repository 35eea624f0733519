package openapi

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// lexicon is what an API's own documents say it is about: the noun
// phrases of its title, tags, operation summaries and field
// descriptions ("museum tickets", "operating hours", "verification
// check"). Prose a record holds is written in these words, so a museum's
// special events read as a museum's, never as infrastructure ("Billing
// special event, owned by the platform team") and never as the spec's
// one example sentence repeated for every record.
type lexicon struct {
	topics []string
}

// lexStop are the words a topic phrase never holds: function words, the
// verbs operations are named by, and the words a spec uses of itself
// (field, parameter, identifier) rather than of its domain.
var lexStop = wordSet(`a an the of for to in on at by with from into onto over under about after before between
		and or but nor as is are be been being was were has have had do does did this that these those it its your you
		our we us their they them he she his her my me i can may must will would should could shall not no yes if when
		whether which who whom whose what where how why all any each every some more most other another such only own
		same so than too very just also both either neither once here there then now via per out up down off
		get gets list lists listing return returns returned retrieve retrieves retrieved create creates created update
		updates updated delete deletes deleted remove removes removed add adds added set sets fetch fetches fetched
		buy buys purchase purchases use used uses using allow allows allowed generate generates generated require
		requires required optional default defaults new upcoming given specific specified provided provide provides
		contains contain include includes included make makes made find finds found check checks see let lets want
		show shows send sends sent replace replaces patch put post modify modifies read reads write writes start
		starts stop stops cancel cancels apply applies open opens close closes hold holds held host hosts belong
		belongs never always even long ask asks skip skips give gives many several few readable sending happen
		happens work works expire expires publish publishes accept accepts kindly imaginary
		api apis endpoint endpoints request requests response responses id ids identifier identifiers unique uuid
		sid key object objects field fields parameter parameters param params value values data detail details
		information info format formats type types string strings number numbers integer boolean true false null
		page pages paging limit offset cursor date dates time times timestamp example examples etc eg ie instance
		instances resource resources url uri link links property properties schema array item items collection
		collections record records one two three first last next previous current given count total
		name names description descriptions list operation operations method methods path paths query body json
		yaml http https rest status error errors message messages result results version`)

func wordSet(ws string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(ws) {
		set[w] = true
	}
	return set
}

var lexWordRE = regexp.MustCompile(`[A-Za-z][A-Za-z'-]*|[^A-Za-z\s]+|\s+`)

// newLexicon gathers the topics of an API's texts. A phrase of a name
// (the title, a tag, an operation's summary) is a topic; one of a
// description only when two descriptions say it or it is of a thing a
// name speaks of ("museum operating hours" beside "museum hours"), as a
// description's one-off phrases are often a verb's ("characters long").
// The most said come first, then the first seen, so a spec gives one
// lexicon.
func newLexicon(title, desc string, tags []string, ops []*op, colls []*collection) *lexicon {
	count := map[string]int{}
	named := map[string]bool{}
	var order []string
	// A phrase and its plural are one topic, said as first seen.
	said := map[string]string{}
	add := func(text string, name bool) {
		for _, p := range phrases(text, text == title) {
			k := topicKey(p)
			if first, ok := said[k]; ok {
				p = first
			}
			said[k] = p
			if count[p] == 0 {
				order = append(order, p)
			}
			count[p]++
			named[p] = named[p] || name
		}
	}
	add(title, true)
	add(desc, false)
	for _, t := range tags {
		add(t, true)
	}
	for _, o := range ops {
		add(o.Summary, true)
		add(o.Description, false)
	}
	for _, c := range colls {
		for _, k := range sortedKeys(c.Props) {
			if m, ok := c.Props[k].(map[string]any); ok {
				d, _ := m["description"].(string)
				add(d, false)
			}
		}
	}
	heads := map[string]bool{}
	for _, p := range order {
		if named[p] {
			heads[singular(strings.ToLower(lastWord(p)))] = true
		}
	}
	for _, c := range colls {
		heads[singular(strings.ToLower(lastWord(c.Noun)))] = true
	}
	// The API's blurb praises more than it names ("delightful Museum
	// API"): its one-off phrases are no topic.
	blurb := map[string]bool{}
	for _, p := range phrases(desc, false) {
		blurb[said[topicKey(p)]] = true
	}
	order = slices.DeleteFunc(order, func(p string) bool {
		return !named[p] && count[p] < 2 && (blurb[p] || !heads[singular(strings.ToLower(lastWord(p)))])
	})
	slices.SortStableFunc(order, func(a, b string) int { return count[b] - count[a] })
	return &lexicon{topics: order}
}

// phrases are a text's noun phrases of two to four words: runs of
// words no stop word, number or punctuation breaks ("Purchase museum
// tickets for general entry" → "museum tickets", "general entry").
// Words keep an acronym's capitals ("QR code") and lose a sentence's,
// but for a proper name (the title's "Redocly Museum").
func phrases(text string, proper bool) []string {
	var out, run []string
	flush := func() {
		// A participle closing the run is a verb ("special event added").
		for len(run) > 0 && (strings.HasSuffix(run[len(run)-1], "ed") || strings.HasSuffix(run[len(run)-1], "ing")) {
			run = run[:len(run)-1]
		}
		if len(run) >= 2 && len(run) <= 4 {
			out = append(out, strings.Join(run, " "))
		}
		run = run[:0]
	}
	for _, tok := range lexWordRE.FindAllString(text, -1) {
		switch {
		case strings.TrimSpace(tok) == "":
			continue
		case !unicode.IsLetter(rune(tok[0])):
			flush()
		default:
			w := lexWord(tok, proper)
			if w == "" || lexStop[strings.ToLower(w)] || !proper && strings.HasSuffix(w, "ly") {
				flush()
				continue
			}
			run = append(run, w)
		}
	}
	flush()
	return out
}

// lexWord is a word as a phrase says it: lower case unless an acronym
// (QR, SMS, TOTP) or a proper name's; "" for a word a phrase cannot
// hold (a code name in camelCase, a one-letter word).
func lexWord(tok string, proper bool) string {
	tok = strings.Trim(tok, "'-")
	if len(tok) < 2 {
		return ""
	}
	upper, lowerAfterFirst := 0, false
	for i, r := range tok {
		if unicode.IsUpper(r) {
			upper++
			if i > 0 && lowerAfterFirst {
				return "" // camelCase: a field's name, not a word
			}
		} else if i > 0 {
			lowerAfterFirst = true
		}
	}
	if upper == len(tok) || proper {
		return tok
	}
	return strings.ToLower(tok)
}

// about are the topics a record of noun is described by: the lexicon's
// without those of the noun itself ("special events", "planned events"
// say nothing of a special event), the most said first.
func (l *lexicon) about(noun string) []string {
	if l == nil {
		return nil
	}
	head := lastWord(strings.ToLower(noun))
	return slices.DeleteFunc(slices.Clone(l.topics), func(t string) bool {
		return singular(lastWord(t)) == head
	})
}

// Words around a topic that fit any domain: how a thing is done, for
// whom, when; the topic is what makes it the domain's.
var (
	proseAdj  = strings.Fields(`short brief detailed hands-on practical introductory advanced weekly monthly quarterly informal in-depth step-by-step one-hour half-day follow-up`)
	proseTail = []string{"for newcomers", "for regulars", "with time for questions", "in plain language", "with worked examples",
		"reviewed every quarter", "kept up to date", "added after feedback", "by popular request", "with a short recap at the end",
		"open to everyone", "limited places", "run twice a month", "new this season"}
	proseForms = []string{
		"%[1]s %[2]s on %[3]s",
		"%[1]s %[2]s covering %[3]s and %[4]s",
		"%[2]s about %[3]s, %[5]s",
		"%[6]s look at %[3]s, %[5]s",
		"All about %[3]s: %[6]s %[2]s, %[5]s",
		"Questions on %[3]s and %[4]s, %[5]s",
		"%[6]s guide to %[3]s",
		"%[2]s focused on %[3]s, %[5]s",
		"From %[3]s to %[4]s: %[6]s %[2]s",
		"Everything about %[3]s in one %[1]s %[2]s",
	}
)

// proseAbout is one sentence about a record of noun in the domain's words:
// "Hands-on special event covering museum tickets and general entry,
// for newcomers". No final period, as templates add their own; "" when
// the lexicon has fewer than two topics to write with.
func (g *synthesizer) proseAbout(noun string) string {
	topics := g.lex.about(noun)
	if len(topics) < 2 {
		return ""
	}
	noun = cmp.Or(strings.ToLower(noun), "resource")
	adj := g.pick(proseAdj)
	t1 := g.pick(topics)
	t2 := g.pick(topics)
	for i := 0; t2 == t1 && i < 4; i++ {
		t2 = g.pick(topics)
	}
	s := fmt.Sprintf(g.pick(proseForms), adj, noun, t1, t2, g.pick(proseTail), article(adj))
	return strings.ToUpper(s[:1]) + s[1:]
}

// article is "a" or "an" for the word after it.
func article(w string) string {
	if w != "" && strings.ContainsRune("aeiou", rune(w[0])) && !strings.HasPrefix(w, "one") {
		return "an " + w
	}
	return "a " + w
}

func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// machineNoun: the noun names a thing people build or run (a webhook,
// a droplet, a server), which a name by its purpose suits ("Staging
// webhook"); a talk or a pet is not named for a billing team.
func machineNoun(noun string) bool {
	w := singular(lastWord(strings.ToLower(noun)))
	return slices.Contains(roleWords[roleDeveloper], w) || slices.Contains(roleWords[roleOperator], w)
}

// placeKinds are the last words of a place inside a building.
var placeKinds = strings.Fields(`Hall Room Gallery Wing Court Pavilion Studio Lounge Terrace Annex`)

// placeField: the name says the field holds where a thing happens
// ("location", "venue", "room") in a building; a machine's location is
// a region or a data centre, no room.
func (g *synthesizer) placeField(name string) bool {
	ts := tokens(name)
	return len(ts) > 0 && !machineNoun(g.coll.Noun) && slices.Contains([]string{"location", "venue", "room", "place"}, ts[len(ts)-1])
}

// place is a room a record happens in: of the example's kind ("Reef
// Hall" → "Cedar Hall") half the time, so a spec's one room is one of
// many.
func (g *synthesizer) place(ex []string) string {
	kind := g.pick(placeKinds)
	if len(ex) > 0 && g.rng.IntN(2) == 0 {
		if w := lastWord(ex[g.rng.IntN(len(ex))]); w != "" && unicode.IsUpper(rune(w[0])) {
			kind = w
		}
	}
	return g.pick(nouns) + " " + kind
}

// topicKey is a phrase as its singular, in lower case: "Feeding
// Sessions" and "feeding session" are one topic.
func topicKey(p string) string {
	return strings.ToLower(strings.TrimSuffix(p, lastWord(p)) + singular(lastWord(p)))
}
