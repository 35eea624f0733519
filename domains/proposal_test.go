package domains_test

import (
	"regexp"
	"testing"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/internal/testplay"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/usersim"
)

// A "name: value" field of a record read out ("cabin: economy;",
// "— items: …").
var fieldClause = regexp.MustCompile(`(?:^|[;—:] )[a-z][a-z ]{1,30}: \S`)

// A code of the pack's said as it is stored ("one_way", "basic_economy"),
// or a field's raw name ("total baggages").
var rawWords = regexp.MustCompile(`\b[a-z]+_[a-z_]+\b|total baggages`)

// proposals lists the agent's words before each write it made after a
// yes: what the customer agreed to.
func proposals(msgs []record.Message, kind func(string) string) []string {
	var out []string
	last := ""
	for _, m := range msgs {
		if m.Role != "assistant" {
			continue
		}
		for _, c := range m.ToolCalls {
			if kind(c.Function.Name) == record.KindWrite && last != "" {
				out = append(out, last)
				last = ""
			}
		}
		if m.Content != "" {
			last = m.Content
		}
	}
	return out
}

// TestProposalsReadAsSentences plays dialogues of each built-in domain
// and reads every proposal as the customer does: never a record read
// out as "name: value" fields, never a code or a field name as stored,
// and always a request for a yes.
func TestProposalsReadAsSentences(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	const n = 150
	for _, domain := range []string{"retail", "airline"} {
		t.Run(domain, func(t *testing.T) {
			d := load(t, domain)
			w, _ := blueprints.ParseRange("1-3")
			r, _ := blueprints.ParseRange("2-7")
			gen, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: 5, Writes: w, Reads: r, Refusals: 0.1, Behaviors: usersim.Profiles()})
			if err != nil {
				t.Fatal(err)
			}
			played, err := testplay.Play(d, gen, n)
			if err != nil {
				t.Fatal(err)
			}
			said := 0
			for i, dl := range played {
				for _, p := range proposals(dl.TR.Messages, d.Tools.Kind) {
					said++
					if f := fieldClause.FindAllString(p, -1); len(f) > 0 {
						t.Errorf("blueprint %d: proposal reads out fields %q:\n%s", i, f, p)
					}
					if raw := rawWords.FindString(p); raw != "" {
						t.Errorf("blueprint %d: proposal says %q as stored:\n%s", i, raw, p)
					}
					if ask := usersim.Classify(p); ask.Kind != "confirm" {
						// A customer that reads the words (an LLM agent's,
						// a replay through synth serve) must hear the
						// question it is.
						t.Errorf("blueprint %d: proposal reads as %s/%s, not a request for a yes:\n%s", i, ask.Kind, ask.Piece, p)
					}
				}
			}
			if said < n {
				t.Fatalf("%d proposals in %d dialogues: the test no longer sees them", said, n)
			}
		})
	}
}
