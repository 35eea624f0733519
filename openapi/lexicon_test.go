package openapi

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Topics are a text's noun phrases: stop words, verbs, numbers and
// punctuation break them, a closing participle is dropped, acronyms
// keep their capitals and camelCase names are no words.
func TestPhrases(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Purchase museum tickets for general entry or special events.", []string{"museum tickets", "general entry", "special events"}},
		{"Return an image of your ticket with scannable QR code.", []string{"scannable QR code"}},
		{"New special event added", []string{"special event"}},
		{"Time the museum opens on a specific date. Uses 24 hour time format", nil},
		{"The eventId of the museum hours", []string{"museum hours"}},
		{"Immediately available verification channels", []string{"available verification channels"}},
		{"", nil},
	} {
		if got := phrases(tc.text, false); !slices.Equal(got, tc.want) {
			t.Errorf("phrases(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// A lexicon keeps every phrase of a name (summary, tag, title) and a
// description's only when two descriptions say it, never the blurb's
// praise ("delightful museum"); the most said first.
func TestNewLexicon(t *testing.T) {
	ops := []*op{
		{Summary: "Buy museum tickets", Description: "Tickets need a valid email address."},
		{Summary: "Get museum hours", Description: "Passes go to a valid email address."},
		{Summary: "List museum tickets", Description: "Characters long value."},
	}
	lex := newLexicon("Redocly Museum API", "Imaginary, but delightful Museum API.", []string{"Events", "Special events hosted by the museum."}, ops, nil)
	want := []string{"museum tickets", "valid email address", "Redocly Museum", "special events", "museum hours"}
	if !slices.Equal(lex.topics, want) {
		t.Errorf("topics %q, want %q", lex.topics, want)
	}
	if got := lex.about("special event"); slices.Contains(got, "special events") {
		t.Errorf("about(special event) = %q: a record is not described by its own noun", got)
	}
}

// A prose field is written anew for each record in the API's words: its
// one example is kept in one record of exampleOdds, never for most
// records, and every other draw names a topic of the lexicon.
// A field that is not prose keeps its example.
func TestProseDraws(t *testing.T) {
	lex := &lexicon{topics: []string{"museum tickets", "museum hours", "general entrance", "ticket QR code", "special events"}}
	const example = "Captain Blackbeard shares his love of the C...language."
	const draws = 400
	for _, tc := range []struct {
		field     string
		schema    map[string]any
		prose     bool
		maxShare  float64 // of the most drawn value
		minUnique int
	}{
		{"eventDescription", map[string]any{"type": "string", "examples": []any{example}}, true, 0.25, 150},
		{"summary", map[string]any{"type": "string"}, true, 0.05, 150},
		{"notes", map[string]any{"type": "string", "example": "Bring a towel."}, true, 0.25, 150},
		{"location", map[string]any{"type": "string", "example": "Computer Room"}, false, 0.25, 20},
		{"currency", map[string]any{"type": "string", "example": "EUR"}, false, 1, 1},
	} {
		t.Run(tc.field, func(t *testing.T) {
			g := &synthesizer{rng: rngFor(1, tc.field), coll: &collection{Name: "special_events", Noun: "special event"}, re: newRegexCache(), lex: lex}
			count := map[string]int{}
			for i := 0; i < draws; i++ {
				g.index = i
				s, _ := g.str(tc.schema, tc.field).(string)
				count[s]++
				ex := exampleStrings(tc.schema)
				if tc.prose && !slices.Contains(ex, s) && !slices.ContainsFunc(lex.topics, func(w string) bool { return strings.Contains(s, w) }) {
					t.Fatalf("%q names no topic of the API", s)
				}
			}
			most := 0
			for _, n := range count {
				most = max(most, n)
			}
			if share := float64(most) / draws; share > tc.maxShare {
				t.Errorf("the most drawn value is %.0f%% of %d draws, want at most %.0f%%", 100*share, draws, 100*tc.maxShare)
			}
			if len(count) < tc.minUnique {
				t.Errorf("%d distinct values in %d draws, want at least %d", len(count), draws, tc.minUnique)
			}
		})
	}
}

// The seeded records of a spec whose prose field has one example read
// in its own words: the example in a few records, no two records under
// one name, no infrastructure talk about teams.
func TestSeededProse(t *testing.T) {
	res, err := ImportFile(context.Background(), filepath.Join("testdata", "prose", "events.yaml"), filepath.Join(t.TempDir(), "p"), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	talks := seedOf(t, res)["talks"]
	if len(talks) < 10 {
		t.Fatalf("%d talks seeded, want at least 10", len(talks))
	}
	example, names, descs := 0, map[string]bool{}, map[string]bool{}
	for _, k := range sortedKeys(talks) {
		r := talks[k]
		d, _ := r["talkDescription"].(string)
		descs[d] = true
		if strings.HasPrefix(d, "Watch our keepers") {
			example++
		}
		if strings.Contains(d, " team") {
			t.Errorf("talk %s: description %q speaks of teams, not of the aquarium", k, d)
		}
		n, _ := r["name"].(string)
		if names[n] {
			t.Errorf("two talks are named %q", n)
		}
		names[n] = true
	}
	if example > len(talks)/4 {
		t.Errorf("%d of %d talks have the spec's example description, want at most a quarter", example, len(talks))
	}
	if len(descs) < len(talks)*2/3 {
		t.Errorf("%d distinct descriptions among %d talks, want at least two thirds", len(descs), len(talks))
	}
}
