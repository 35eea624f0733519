package usersim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/verify"
)

func rngFor(i int) *rand.Rand { return rand.New(rand.NewPCG(uint64(i), 99)) }

func TestTypoChangesLongSentences(t *testing.T) {
	s := "Could somebody kindly update the shipping address because everything changed yesterday afternoon"
	words := strings.Fields(s)
	for seed := range 200 {
		got := typo(rngFor(seed), s, 1.0)
		if strings.EqualFold(got, s) {
			t.Fatalf("seed %d: typo at rate 1 left %q unchanged", seed, s)
		}
		gw := strings.Fields(got)
		if len(gw) != len(words) {
			t.Fatalf("seed %d: %q has %d words, want %d", seed, got, len(gw), len(words))
		}
		changed := 0
		for i := range words {
			if !strings.EqualFold(gw[i], words[i]) {
				changed++
				if d := len(gw[i]) - len(words[i]); d < -1 || d > 1 {
					t.Errorf("seed %d: %q became %q: more than one keystroke", seed, words[i], gw[i])
				}
			}
			// Short words are never touched.
			if len(words[i]) < 4 && gw[i] != words[i] && !(i == 0 && strings.EqualFold(gw[i], words[i])) {
				t.Errorf("seed %d: short word %q became %q", seed, words[i], gw[i])
			}
		}
		// Every eligible word is hit; a swap of equal letters ("address")
		// or a drop next to a double may leave a few unchanged.
		if changed < 8 {
			t.Errorf("seed %d: only %d words changed in %q", seed, changed, got)
		}
	}
}

func TestTypoLeavesFactsAlone(t *testing.T) {
	cases := []string{
		"Please cancel order #W1234567 because everything changed",
		"My email address is jane.doe42@example.com thanks everyone",
		"Refund everything to credit_card_1234567 immediately please",
		"The total should be $1178.68 according to yesterday's receipt",
		"Send everything to zipcode 78701 tomorrow morning",
		"Shipping should arrive at <address> eventually",
		"Honestly yeah please proceed, confirm, correct, instead, ahead, right, okay",
		"Tomorrow Jennifer Martinez travels through Austin with Visa",
	}
	keep := func(i int, w string) bool {
		bare := strings.ToLower(strings.Trim(w, ",.!?"))
		return len(w) < 4 || strings.ContainsAny(w, "0123456789@#$_<>") || protected[bare] || (i > 0 && w[0] >= 'A' && w[0] <= 'Z')
	}
	for _, s := range cases {
		words := strings.Fields(s)
		for seed := range 100 {
			got := strings.Fields(typo(rngFor(seed), s, 1.0))
			for i, w := range words {
				if !keep(i, w) {
					continue
				}
				if got[i] != w && !(i == 0 && strings.EqualFold(got[i], w)) {
					t.Errorf("seed %d: %q became %q in %q", seed, w, got[i], s)
				}
			}
		}
	}
}

func TestTypoRateZero(t *testing.T) {
	s := "Could somebody kindly update the shipping address"
	for seed := range 50 {
		got := typo(rngFor(seed), s, 0)
		if got != s && got != "c"+s[1:] {
			t.Errorf("seed %d: rate 0 changed %q to %q", seed, s, got)
		}
	}
}

// Short messages reach typo too: an empty one (a slot that filled with
// nothing) must not index its first byte, and a one-rune one must come
// back whole, at most lower-cased, whatever the rate.
func TestTypoEmpty(t *testing.T) {
	typoSafe := func(seed int, s string, rate float64) (got string, err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v", p)
			}
		}()
		return typo(rngFor(seed), s, rate), nil
	}
	for seed := range 16 {
		for _, rate := range []float64{0, 0.3, 1} {
			if got, err := typoSafe(seed, "", rate); err != nil || got != "" {
				t.Errorf("seed %d rate %v: typo(\"\") = %q, %v; want \"\"", seed, rate, got, err)
			}
			for _, s := range []string{"a", "A", "é", "É", "Ω", "7", "?"} {
				got, err := typoSafe(seed, s, rate)
				if err != nil {
					t.Errorf("seed %d rate %v: typo(%q): %v", seed, rate, s, err)
				} else if !utf8.ValidString(got) || utf8.RuneCountInString(got) != 1 || (got != s && got != strings.ToLower(s)) {
					t.Errorf("seed %d rate %v: typo(%q) = %q, want it unchanged or lower-cased", seed, rate, s, got)
				}
			}
		}
	}
}

func TestTypoNonASCII(t *testing.T) {
	for seed := range 8 {
		if got := typo(rngFor(seed), "Émile sends everything tomorrow", 0); !utf8.ValidString(got) || !strings.HasSuffix(got, "mile sends everything tomorrow") {
			t.Errorf("typo corrupted the first letter: %q", got)
		}
		if got := typo(rngFor(seed), "Bonjour, la crème brûlée était déjà prête", 1); !utf8.ValidString(got) {
			t.Errorf("typo split a character: %q", got)
		}
	}
}

func FuzzTypo(f *testing.F) {
	for _, s := range []string{"hello there friend", "a", "#W1234567 order", "  double  spaces ", "ünïcödé wörds here"} {
		f.Add(s, uint64(1))
	}
	f.Fuzz(func(t *testing.T, s string, seed uint64) {
		if s == "" || s[0] >= utf8.RuneSelf {
			return // see TestTypoEmpty and TestTypoNonASCII
		}
		got := typo(rand.New(rand.NewPCG(seed, 1)), s, 1.0)
		in, out := strings.Split(s, " "), strings.Split(got, " ")
		if len(in) != len(out) {
			t.Fatalf("typo(%q) = %q changed the number of words", s, got)
		}
		for i, w := range in {
			if strings.ContainsAny(w, "0123456789@#$_<>") && out[i] != w && !(i == 0 && strings.ToLower(w[:1]) == out[i][:1] && w[1:] == out[i][1:]) {
				t.Fatalf("typo(%q) changed the fact %q to %q", s, w, out[i])
			}
		}
	})
}

// Every template of the grammar is well formed: balanced groups (an
// unbalanced one would crash, see TestExpandUnclosedGroup) and slots
// the user can fill.
func TestTemplatesWellFormed(t *testing.T) {
	lists := map[string][]string{
		"greetings": greetings,
		"confirms":  confirms, "revisions": revisions, "dones": dones, "nextGoal": nextGoal, "acks": acks, "reminders": reminders,
		"verboseFillers": verboseFillers, "digressions": digressions, "asides": asides, "impatientOpeners": impatientOpeners, "impatientClosers": impatientClosers,
		"failedOverLeads": failedOverLeads,
	}
	for k, v := range pieces {
		lists["pieces."+k] = v
	}
	slotNames := []string{"target", "items", "new", "reason", "payment", "address", "topic", "product", "value"}
	for name, tmpls := range lists {
		for _, tm := range tmpls {
			depth := 0
			for _, c := range tm {
				switch c {
				case '{':
					depth++
				case '}':
					depth--
				}
				if depth < 0 {
					break
				}
			}
			if depth != 0 {
				t.Errorf("%s: unbalanced template %q", name, tm)
				continue
			}
			rest := tm
			for {
				i := strings.IndexByte(rest, '<')
				if i < 0 {
					break
				}
				j := strings.IndexByte(rest[i:], '>')
				if j < 0 {
					t.Errorf("%s: unterminated slot in %q", name, tm)
					break
				}
				if slot := rest[i+1 : i+j]; !slices.Contains(slotNames, slot) {
					t.Errorf("%s: unknown slot <%s> in %q", name, slot, tm)
				}
				rest = rest[i+j+1:]
			}
		}
	}
	for _, p := range []string{"target", "items", "new", "reason", "payment", "address", "topic"} {
		// Terse users answer with the second template: it must exist.
		if len(pieces[p]) < 2 {
			t.Errorf("piece %s has %d templates; the minimal profile needs a second", p, len(pieces[p]))
		}
	}
}

func TestJoinSentences(t *testing.T) {
	cases := []struct {
		in   []string
		want string
	}{
		{[]string{"Hi", "I need help"}, "Hi. I need help."},
		{[]string{"Hi!", "", "  ", "Can you help?"}, "Hi! Can you help?"},
		{[]string{"Note:", "x"}, "Note: x."},
		{[]string{"Hello,", "Can you help?"}, "Hello. Can you help?"}, // not "Hello,."
		{nil, ""},
	}
	for _, tc := range cases {
		if got := joinSentences(tc.in); got != tc.want {
			t.Errorf("joinSentences(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestProfiles(t *testing.T) {
	ps := Profiles()
	if len(ps) != 8 || !slices.Contains(ps, Typos) || !slices.Contains(ps, ChangesMind) {
		t.Errorf("Profiles() = %v", ps)
	}
	for _, p := range ps {
		if _, err := profileOf(p); err != nil {
			t.Errorf("profile %s: %v", p, err)
		}
	}
	_, err := profileOf("grumpy")
	if err == nil || !strings.Contains(err.Error(), "grumpy") || !strings.Contains(err.Error(), "upfront") {
		t.Errorf("unknown profile error %v", err)
	}
	// Identity up front exactly for the revealing profiles.
	for _, p := range ps {
		pr, _ := profileOf(p)
		want := slices.Contains([]string{Upfront, Verbose, Impatient, ChangesMind}, p)
		if pr.identityFirst != want {
			t.Errorf("profile %s: identityFirst %v", p, pr.identityFirst)
		}
	}
}

// Every form of a customer's yes is one the verifier takes for an
// explicit yes: a confirmation bank that grew a "Perfect, that works."
// would leave writes unconfirmed.
func TestConfirmsAreExplicit(t *testing.T) {
	for _, tmpl := range confirms {
		for seed := range 200 {
			got := dialog.Render(rand.New(rand.NewPCG(uint64(seed), 9)), tmpl, nil)
			if !verify.Affirmative(got) {
				t.Errorf("%q: %q is no explicit yes", tmpl, got)
				break
			}
		}
	}
}

func TestWithoutWhat(t *testing.T) {
	for _, tm := range withoutWhat(genericChoicePieces) {
		if strings.Contains(tm, "<what>") {
			t.Errorf("%q still names the what", tm)
		}
	}
}

// TestLeadInto: a greeting or lead that ends in a comma runs into the
// request as one sentence; any other stays a sentence of its own.
func TestLeadInto(t *testing.T) {
	for _, tc := range []struct{ greet, text, want string }{
		{"Hi, ", "Could you cancel my order?", "Hi, could you cancel my order?"},
		{"Hello there, ", "I'd like to return an item.", "Hello there, I'd like to return an item."},
		{"Hey, ", "I need to book a flight.", "Hey, I need to book a flight."},
		{"Hi! ", "Could you cancel my order?", "Hi! Could you cancel my order?"},
		{"Hi, ", "SY264 is my flight.", "Hi. SY264 is my flight."},
		{"", "Could you help?", "Could you help?"},
	} {
		if got := joinSentences(leadInto(tc.greet, tc.text)); got != tc.want {
			t.Errorf("leadInto(%q, %q) = %q, want %q", tc.greet, tc.text, got, tc.want)
		}
	}
}

// TestAskSentence: the sentence of an agent's message that asks, with a
// question mark or as a request, a connective before it or not.
func TestAskSentence(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"Done. How many checked bags in total would you like? Anything from 1 to 6 works.", "how many checked bags in total would you like?"},
		{"Next, please tell me how many checked bags you'd like (0–3).", "next, please tell me how many checked bags you'd like (0–3)."},
		{"Thanks. Tell me which reservation you have in mind.", "tell me which reservation you have in mind."},
		{"All done. Nothing else is needed.", ""},
	} {
		if got := askSentence(tc.text); got != tc.want {
			t.Errorf("askSentence(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
