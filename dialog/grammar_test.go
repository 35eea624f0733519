package dialog

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func rngFor(i int) *rand.Rand { return rand.New(rand.NewPCG(uint64(i), 99)) }

func TestExpand(t *testing.T) {
	cases := []struct {
		tmpl string
		want []string // every possible output
	}{
		{"plain", []string{"plain"}},
		{"{a|b|c}", []string{"a", "b", "c"}},
		{"x{|y}", []string{"x", "xy"}},
		{"{Hi|Hello}, {I|we} {need help|{want|would like} help}", nil},
		{"{a{1|2}|b}", []string{"a1", "a2", "b"}},
		{"<email>{.|!}", []string{"<email>.", "<email>!"}},
		{"}", []string{"}"}},
		{"a|b", []string{"a|b"}}, // a bar outside a group is text
	}
	for _, tc := range cases {
		seen := map[string]bool{}
		for seed := range 200 {
			got := Expand(rngFor(seed), tc.tmpl)
			if strings.Contains(got, "{") {
				t.Errorf("expand(%q) = %q still has braces", tc.tmpl, got)
			}
			seen[got] = true
		}
		if tc.want == nil {
			if len(seen) != 2*2*3 {
				t.Errorf("expand(%q) reached %d forms, want 12: %v", tc.tmpl, len(seen), seen)
			}
			continue
		}
		for _, w := range tc.want {
			if !seen[w] {
				t.Errorf("expand(%q) never gave %q (got %v)", tc.tmpl, w, seen)
			}
		}
		if len(seen) != len(tc.want) {
			t.Errorf("expand(%q) gave %v, want %v", tc.tmpl, seen, tc.want)
		}
	}
}

// grammar.go: "An unclosed group is taken literally rather than failing a dialogue."
func TestExpandUnclosedGroup(t *testing.T) {
	for _, tmpl := range []string{"{a|b", "x {a|b", "{", "{{a}"} {
		if got := Expand(rngFor(1), tmpl); !strings.Contains(got, "a") && tmpl != "{" {
			t.Errorf("expand(%q) = %q", tmpl, got)
		}
	}
}

// TestExpandDrawsAsListed: Expand gives, from a seed, what listing each
// group's alternatives and drawing one gave, and leaves the generator
// where that left it (the draws that follow are the same).
func TestExpandDrawsAsListed(t *testing.T) {
	for _, tmpl := range []string{"plain", "{a|b|c}", "x{|y}{|}", "{Hi|Hello}, {I|we} {need help|{want|would like} help}",
		"{a{1|2|{3|4}}|b|{c|d}e}", "}{a|b}|{c}", "{a|b", "x {a|{b|c}", "{", "{{a}", "{{a|b}|{c|d|e}}{f|g}."} {
		for seed := range 50 {
			rg, rw := rngFor(seed), rngFor(seed)
			got, want := Expand(rg, tmpl), listedExpand(rw, tmpl)
			if got != want || rg.Uint64() != rw.Uint64() {
				t.Errorf("expand(%q) seed %d = %q, listing gives %q (or the draws parted)", tmpl, seed, got, want)
			}
		}
	}
}

// listedExpand is Expand as it was written first: each group's
// alternatives listed, one drawn.
func listedExpand(rng *rand.Rand, s string) string {
	var b strings.Builder
	var expand func(s string)
	expand = func(s string) {
		for i := 0; i < len(s); i++ {
			if s[i] != '{' {
				b.WriteByte(s[i])
				continue
			}
			depth, last, end := 0, i+1, -1
			var alts []string
		scan:
			for j := i; j < len(s); j++ {
				switch s[j] {
				case '{':
					depth++
				case '}':
					if depth--; depth == 0 {
						alts, end = append(alts, s[last:j]), j
						break scan
					}
				case '|':
					if depth == 1 {
						alts, last = append(alts, s[last:j]), j+1
					}
				}
			}
			if end < 0 {
				b.WriteString(s[i:])
				return
			}
			expand(alts[rng.IntN(len(alts))])
			i = end
		}
	}
	expand(s)
	return b.String()
}

func TestFillAndTidy(t *testing.T) {
	slots := map[string]string{"email": "a@b.c", "target": "order #W1", "odd": "<email>", "first": ""}
	cases := []struct{ in, want string }{
		{"my email is <email>.", "My email is a@b.c."},
		{"cancel <target> , please .", "Cancel order #W1, please."},
		{"<unknown> stays", "<unknown> stays"},
		{"a < b and <email>", "A < b and <email>"}, // an unmatched '<' ends the filling
		{"value <odd>", "Value <email>"},           // slot values are not filled again
		{"  lots   of    space  ", "Lots of space"},
		{"", ""},
		{"what ?", "What?"},
		{"wow !", "Wow!"},
		{"thanks, <first>, I've found it", "Thanks, I've found it"}, // an empty slot between commas
		{"<email> is mine", "a@b.c is mine"},                        // a fact opening a message keeps its case
		{"oh. that's a shame", "Oh. That's a shame"},
		{"great, <first> — verified", "Great — verified"}, // a sentence after "{,|.}" starts upper-case
		{"use it. the original one! yes? ok", "Use it. The original one! Yes? Ok"},
		{"sure. iPhone 12 it is. #W1 too. a@b.c works", "Sure. iPhone 12 it is. #W1 too. a@b.c works"}, // ids keep their case
		{"about 3.5 kg. e", "About 3.5 kg. E"},
		{"ok. bob.smith@x.com is mine. www.x.com too", "Ok. bob.smith@x.com is mine. www.x.com too"}, // one token, however it starts
	}
	for _, tc := range cases {
		if got := Tidy(Fill(Capitalize(tc.in), slots)); got != tc.want {
			t.Errorf("tidy(fill(%q)) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Render(rngFor(1), "{hi|hi} <email>", slots); got != "Hi a@b.c" {
		t.Errorf("Render = %q", got)
	}
}

func TestLowerLead(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"Could you help?", "could you help?", true},
		{"I'd like to return it.", "I'd like to return it.", true},
		{"I need help.", "I need help.", true},
		{"SY264 is my flight.", "SY264 is my flight.", false},
		{"ATL it is.", "ATL it is.", false},
		{"iPhone cases.", "iPhone cases.", false},
		{"A note.", "A note.", false},
		{"an order can be exchanged once.", "an order can be exchanged once.", true},
	} {
		got, ok := LowerLead(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("LowerLead(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// A clause written capitalised for "{.|,}" is lower-cased after the
// comma; a slot's value, "I" and words with inner capitals are not.
func TestRenderLowersAfterComma(t *testing.T) {
	slots := map[string]string{"first": "Anna", "id": "SY264"}
	for _, tc := range []struct{ tmpl, want string }{
		{"Hi, Before we continue, I need your id.", "Hi, before we continue, I need your id."},
		{"Thanks for reaching out, To get started", "Thanks for reaching out, to get started"},
		{"No, wait, What will the refund be?", "No, wait, what will the refund be?"},
		{"Thanks, <first>, I've found it.", "Thanks, Anna, I've found it."},
		{"Sorry, <id> is full.", "Sorry, SY264 is full."},
		{"Great, I'm on it.", "Great, I'm on it."},
		{"Sure, iPhone cases are here.", "Sure, iPhone cases are here."},
		{"Hi. Before we continue.", "Hi. Before we continue."},
	} {
		if got := Render(rngFor(1), tc.tmpl, slots); got != tc.want {
			t.Errorf("Render(%q) = %q, want %q", tc.tmpl, got, tc.want)
		}
	}
}

func TestContainsWord(t *testing.T) {
	for _, tc := range []struct {
		s, w string
		want bool
	}{
		{"on reservation ALAXV1", "ALAXV1", true},
		{"on reservation ALAXV12", "ALAXV1", false},
		{"your order id, please", "order id", true},
		{"your order_id", "order", false},
		{"reorder, then order", "order", true},
		{"ab", "", false},
		{"", "x", false},
	} {
		if got := ContainsWord(tc.s, tc.w); got != tc.want {
			t.Errorf("ContainsWord(%q, %q) = %v, want %v", tc.s, tc.w, got, tc.want)
		}
	}
}
