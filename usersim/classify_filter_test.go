package usersim_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/usersim"
)

// TestLiteralFilterAgrees: filtering by the literals a rule requires
// reads every message as the regexps alone do, on the oracle's messages
// of 150 tasks, alone and run together, in every case, with letters
// beyond ASCII, and with the long s or the Kelvin sign (which skip the
// filter).
func TestLiteralFilterAgrees(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 150 dialogues")
	}
	d, err := domains.Load("retail", 3)
	if err != nil {
		t.Fatal(err)
	}
	asks := d.Model.Asks
	for i, l := range usersim.RequiredLiteralsForTest(asks) {
		if l == nil {
			t.Errorf("rule %d requires no literal: the filter never skips it", i)
		}
	}
	var texts []string
	oracleRun(t, 150, false, func(_ *record.Blueprint, text string, _, _ dialog.Ask) {
		texts = append(texts, text)
	})
	n := len(texts)
	for i := 0; i < n; i++ {
		texts = append(texts, texts[i]+" "+texts[(i*7+3)%n], upper(texts[i]), "Ünïcode — "+texts[(i*5+1)%n],
			// The runes whose case folds to an ASCII letter, which the
			// regexps match for s and k and lower-casing does not.
			strings.ReplaceAll(texts[i], "s", "\u017F"), strings.ReplaceAll(upper(texts[i]), "K", "\u212A"))
	}
	texts = append(texts, "SHALL I PROCEED?", "Can I hand you over to a HUMAN agent?", "I'M SORRY, that's not possible.", "Have a GREAT day!",
		// Every spelling of a pattern of literals only (the optional
		// apostrophe), and near misses.
		"Im sorry, no.", "IM AFRAID NOT — the ordеr is gone.", "I am sorry.", "I’m sorry.", "Unfortunately…", "I can not.", "not able-to")
	for _, text := range texts {
		got, matched := usersim.ClassifyMatchForTest(text, asks)
		kind, piece, ok := usersim.ClassifyByRegexpsForTest(text, asks)
		if got.Kind != kind || got.Piece != piece || matched != ok {
			t.Errorf("%q: %s/%s %v, the regexps alone give %s/%s %v", text, got.Kind, got.Piece, matched, kind, piece, ok)
		}
		if usersim.Refuses(text) != usersim.RefusesByRegexpForTest(text) {
			t.Errorf("%q: refusal read differently", text)
		}
		splitAgrees(t, text)
	}
	if len(texts) < 1000 {
		t.Errorf("only %d messages compared", len(texts))
	}
}

// TestSplitSentences: the sentences split as the regexp splits them,
// at a run of . ! ? followed by white space, and nowhere else.
func TestSplitSentences(t *testing.T) {
	for _, text := range []string{"", " ", ".", ". ", " . ", "a", "a.", "a. ", ". a", "a. b", "a.b c", "$12.50 due. Ok?",
		"Done!! Anything else?  ", "Wait...  what?\tYes.\nNo!\fMaybe?\rSure", "a.\vb", "a?!? b!?", "é. ü!  ß?", "a.\xff b", "\xff. \xfe"} {
		splitAgrees(t, text)
	}
}

func splitAgrees(t *testing.T, text string) {
	t.Helper()
	if got, want := usersim.SplitSentencesForTest(text), usersim.SplitByRegexpForTest(text); !slices.Equal(got, want) {
		t.Errorf("%q: split %q, the regexp gives %q", text, got, want)
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
