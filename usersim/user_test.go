package usersim

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domains/retail"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/verify"
)

// These tests drive the user simulator with a scripted agent that asks
// for every piece of every goal, so each profile's answers can be checked
// in isolation from the oracle.

var unitBPs = sync.OnceValues(func() (map[string][]*record.Blueprint, error) {
	// retail directly, not through package domains: domains builds this
	// package's users, so importing it here would be a cycle.
	d, err := retail.New(1)
	if err != nil {
		return nil, err
	}
	g, err := blueprints.NewRetail(d, blueprints.Spec{Seed: 3, Writes: blueprints.Range{Min: 1, Max: 3}, Reads: blueprints.Range{Min: 2, Max: 7}, Behaviors: Profiles()})
	if err != nil {
		return nil, err
	}
	out := map[string][]*record.Blueprint{}
	for i := range 96 {
		bp, err := g.Generate(context.Background(), i)
		if err != nil {
			return nil, err
		}
		out[bp.Behavior] = append(out[bp.Behavior], bp)
	}
	for _, p := range Profiles() {
		if len(out[p]) < 8 {
			return nil, fmt.Errorf("only %d blueprints for profile %s", len(out[p]), p)
		}
	}
	return out, nil
})

func profileBlueprints(t *testing.T) map[string][]*record.Blueprint {
	t.Helper()
	m, err := unitBPs()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// step is one exchange of the scripted dialogue.
type step struct {
	ask  Ask
	turn Turn
}

// script plays the scripted agent against the user of bp.
func script(t *testing.T, bp *record.Blueprint) (Turn, []step) {
	t.Helper()
	u, err := New(bp, blueprints.Stream(bp.Seed, bp.Domain, bp.Index, "user"))
	if err != nil {
		t.Fatal(err)
	}
	first := u.Start()
	var steps []step
	ask := func(a Ask) Turn {
		tr := u.Respond(a)
		steps = append(steps, step{a, tr})
		return tr
	}
	ask(Ask{Kind: "identify"})
	var done []int
	for gi, g := range bp.Goals {
		if gi > 0 {
			tr := ask(Ask{Kind: "anything_else", Done: slices.Clone(done)})
			if len(tr.Acts) != 1 || tr.Acts[0].Type != "request" || tr.Acts[0].Goal != gi {
				t.Errorf("blueprint %d: after goals %v the user says %q with acts %+v, want a request of goal %d", bp.Index, done, tr.Text, tr.Acts, gi)
			}
		}
		for _, p := range Pieces(g) {
			ask(Ask{Kind: "piece", Goal: gi, Piece: p})
		}
		if g.Kind == record.GoalWrite {
			tr := ask(Ask{Kind: "confirm", Goal: gi})
			if len(tr.Acts) == 1 && tr.Acts[0].Type == "revise" {
				ask(Ask{Kind: "confirm", Goal: gi})
			}
		}
		done = append(done, gi)
	}
	tr := ask(Ask{Kind: "anything_else", Done: slices.Clone(done)})
	if len(tr.Acts) != 1 || tr.Acts[0].Type != "done" {
		t.Errorf("blueprint %d: with every goal done the user says %q, acts %+v; want done", bp.Index, tr.Text, tr.Acts)
	}
	if end := ask(Ask{Kind: "closing", Done: done}); end.Stop != TokenStop || end.Text != "" {
		t.Errorf("blueprint %d: closing answered with %+v", bp.Index, end)
	}
	if end := u.Respond(Ask{Kind: "transferred"}); end.Stop != TokenTransfer || end.Text != "" {
		t.Errorf("blueprint %d: transfer answered with %+v", bp.Index, end)
	}
	return first, steps
}

func TestScriptedUserActs(t *testing.T) {
	for profile, bps := range profileBlueprints(t) {
		for _, bp := range bps {
			first, steps := script(t, bp)
			if len(first.Acts) == 0 || first.Acts[0].Type != "request" || first.Acts[0].Goal != 0 || first.Acts[0].Intent != bp.Goals[0].Intent {
				t.Errorf("%s %d: first acts %+v", profile, bp.Index, first.Acts)
			}
			pr, _ := profileOf(profile)
			hasIdentity := slices.ContainsFunc(first.Acts, func(a Act) bool { return a.Type == "identify" })
			if hasIdentity != pr.identityFirst {
				t.Errorf("%s %d: identity in the first turn = %v", profile, bp.Index, hasIdentity)
			}
			revised := 0
			for _, s := range steps {
				if s.turn.Stop != "" {
					continue
				}
				if strings.TrimSpace(s.turn.Text) == "" || strings.Contains(s.turn.Text, "###") {
					t.Errorf("%s %d: answer %q to %+v", profile, bp.Index, s.turn.Text, s.ask)
				}
				if len(s.turn.Acts) != 1 {
					t.Errorf("%s %d: %d acts answer %+v", profile, bp.Index, len(s.turn.Acts), s.ask)
					continue
				}
				a := s.turn.Acts[0]
				switch s.ask.Kind {
				case "identify":
					k := bp.Persona.Known
					want := map[string]string{"email": k["email"]}
					if k["email"] == "" {
						first, last, _ := strings.Cut(k["name"], " ")
						want = map[string]string{"first_name": first, "last_name": last, "zip": k["zip"]}
					}
					if a.Type != "identify" {
						t.Errorf("%s %d: identify answered with %+v", profile, bp.Index, a)
					} else if profile != Confused && !maps.Equal(a.Identity, want) {
						t.Errorf("%s %d: identity %v, want %v", profile, bp.Index, a.Identity, want)
					} else if profile == Confused && maps.Equal(a.Identity, want) && len(strings.Split(k["email"], "@")[0]) > 2 {
						t.Errorf("%s %d: the confused user got the identity right first", profile, bp.Index)
					}
				case "piece":
					g := bp.Goals[s.ask.Goal]
					if a.Type != "provide" || a.Goal != s.ask.Goal {
						t.Errorf("%s %d: piece %s answered with %+v", profile, bp.Index, s.ask.Piece, a)
						continue
					}
					switch s.ask.Piece {
					case "target":
						if a.Target == nil || !reflect.DeepEqual(*a.Target, g.Target) {
							t.Errorf("%s %d: target %+v, want %+v", profile, bp.Index, a.Target, g.Target)
						}
					case "items":
						if !reflect.DeepEqual(a.Items, g.Items) {
							t.Errorf("%s %d: items %+v", profile, bp.Index, a.Items)
						}
					case "new":
						if !reflect.DeepEqual(a.New, g.New) {
							t.Errorf("%s %d: new %+v", profile, bp.Index, a.New)
						}
					case "address":
						for _, k := range []string{"address1", "address2", "city", "state", "country", "zip"} {
							if a.Slots[k] != g.Slots[k] {
								t.Errorf("%s %d: address %s = %q, want %q", profile, bp.Index, k, a.Slots[k], g.Slots[k])
							}
						}
						if !strings.Contains(s.turn.Text, g.Slots["address1"]) {
							t.Errorf("%s %d: address answer %q lacks %q", profile, bp.Index, s.turn.Text, g.Slots["address1"])
						}
					default:
						want := g.Slots[s.ask.Piece]
						if profile == ChangesMind {
							if r, ok := g.Revised[s.ask.Piece]; ok {
								want = r // the first thought, revised at confirmation
							}
						}
						if a.Slots[s.ask.Piece] != want {
							t.Errorf("%s %d: %s = %q, want %q", profile, bp.Index, s.ask.Piece, a.Slots[s.ask.Piece], want)
						}
						if !strings.Contains(strings.ToLower(s.turn.Text), strings.ToLower(want)) {
							t.Errorf("%s %d: answer %q does not say %q", profile, bp.Index, s.turn.Text, want)
						}
					}
				case "confirm":
					g := bp.Goals[s.ask.Goal]
					switch a.Type {
					case "confirm":
						if !verify.Affirmative(s.turn.Text) {
							t.Errorf("%s %d: confirmation %q is not an explicit yes", profile, bp.Index, s.turn.Text)
						}
					case "revise":
						revised++
						if profile != ChangesMind || len(g.Revised) == 0 {
							t.Errorf("%s %d: a %s user revised goal %d", profile, bp.Index, profile, s.ask.Goal)
						}
						if verify.Affirmative(s.turn.Text) {
							t.Errorf("%s %d: revision %q reads as a yes", profile, bp.Index, s.turn.Text)
						}
						for k, v := range a.Slots {
							if g.Slots[k] != v || !strings.Contains(s.turn.Text, v) {
								t.Errorf("%s %d: revision %q sets %s=%q, want %q", profile, bp.Index, s.turn.Text, k, v, g.Slots[k])
							}
						}
					default:
						t.Errorf("%s %d: confirm answered with %+v", profile, bp.Index, a)
					}
				}
			}
			if (profile == ChangesMind) != (revised > 0) {
				t.Errorf("%s %d: %d revisions", profile, bp.Index, revised)
			}
		}
	}
}

// A user never ends the conversation while a goal it raised is open:
// the guard against tau2's premature-stop failure.
func TestUserReraisesUnfinishedGoals(t *testing.T) {
	for profile, bps := range profileBlueprints(t) {
		for _, bp := range bps {
			u, _ := New(bp, blueprints.Stream(bp.Seed, bp.Domain, bp.Index, "user"))
			u.Start()
			u.Respond(Ask{Kind: "identify"})
			for range 3 {
				tr := u.Respond(Ask{Kind: "anything_else"}) // the agent claims nothing is done
				if tr.Stop != "" || len(tr.Acts) != 1 || tr.Acts[0].Type != "request" || tr.Acts[0].Goal != 0 {
					t.Errorf("%s %d: with goal 0 unfinished the user answered %q %+v", profile, bp.Index, tr.Text, tr.Acts)
				}
			}
			tr := u.Respond(Ask{Kind: "help", Refused: true})
			if len(tr.Acts) != 1 || tr.Acts[0].Type != "request" {
				t.Errorf("%s %d: after a refusal the user answered %+v", profile, bp.Index, tr.Acts)
			}
		}
	}
}

// entities are the blueprint's facts, which a user may say verbatim.
func entities(bp *record.Blueprint) []string {
	var out []string
	for _, v := range bp.Persona.Known {
		out = append(out, v)
	}
	first, last, _ := strings.Cut(bp.Persona.Known["name"], " ")
	out = append(out, first, last)
	for _, g := range bp.Goals {
		out = append(out, g.Target.Label, blueprints.Labels(g.Items), blueprints.Labels(g.New))
		for _, s := range append(slices.Clone(g.Items), g.New...) {
			out = append(out, s.Label)
		}
		for _, m := range []map[string]string{g.Slots, g.Revised} {
			for _, v := range m {
				out = append(out, v)
			}
		}
		if g.Slots["address1"] != "" {
			out = append(out, blueprints.Address(g.Slots))
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

var (
	reMu    sync.Mutex
	reCache = map[string]*regexp.Regexp{}
)

// wordRE matches e as a whole word.
func wordRE(e string) *regexp.Regexp {
	reMu.Lock()
	defer reMu.Unlock()
	re, ok := reCache[e]
	if !ok {
		re = regexp.MustCompile(`(^|[^\pL\pN])` + regexp.QuoteMeta(e) + `([^\pL\pN]|$)`)
		reCache[e] = re
	}
	return re
}

// strip removes the entities from a message, case-insensitively and only
// as whole words (a state "CO" must not eat the "co" of "could").
func strip(text string, ents []string) string {
	low := strings.ToLower(text)
	for _, e := range ents {
		if e = strings.ToLower(e); e != "" && strings.Contains(low, e) {
			re := wordRE(e)
			for {
				next := re.ReplaceAllString(low, "$1 $2")
				if next == low {
					break
				}
				low = next
			}
		}
	}
	return low
}

func words(s string) []string {
	var out []string
	for _, w := range strings.Fields(s) {
		w = strings.Trim(strings.ToLower(w), ",.!?:;-\"()")
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// vocabulary is every word of every user template.
func vocabulary() map[string]bool {
	var all []string
	for _, l := range [][]string{greetings, identifyEmail, identifyNameZip, identifyRetry, confirms, revisions, dones, nextGoal, acks, reminders,
		verboseFillers, impatientOpeners, impatientClosers} {
		all = append(all, l...)
	}
	for _, l := range requests {
		all = append(all, l...)
	}
	for _, l := range pieces {
		all = append(all, l...)
	}
	for k, v := range nonNative {
		all = append(all, k, v)
	}
	// Inline templates of user.go.
	all = append(all, "{an order|one of my orders|an order of mine|my order|a recent order}", "{That's all|No|Nothing else}{.|}", "I need help with <target>.")
	vocab := map[string]bool{}
	for _, tm := range all {
		tm = strings.NewReplacer("{", " ", "}", " ", "|", " ").Replace(tm)
		for _, w := range words(tm) {
			if !strings.HasPrefix(w, "<") {
				vocab[w] = true
			}
		}
	}
	return vocab
}

// The user says only template words and the blueprint's facts; the typos
// profile adds misspellings on top (never to facts).
func TestUserSaysNothingInvented(t *testing.T) {
	vocab := vocabulary()
	for profile, bps := range profileBlueprints(t) {
		oovDialogues := 0
		for _, bp := range bps {
			first, steps := script(t, bp)
			texts := []string{first.Text}
			for _, s := range steps {
				texts = append(texts, s.turn.Text)
			}
			ents := entities(bp)
			var oov []string
			for _, text := range texts {
				for _, w := range words(strip(text, ents)) {
					// Tokens with digits or @ are facts (the confused user's
					// mistyped email or zip), not words.
					if !vocab[w] && !strings.ContainsAny(w, "0123456789@#") {
						oov = append(oov, w)
					}
				}
			}
			if len(oov) > 0 {
				oovDialogues++
			}
			if profile != Typos && len(oov) > 0 {
				t.Errorf("%s %d: words outside the grammar and the blueprint: %q", profile, bp.Index, oov)
			}
		}
		if profile == Typos && oovDialogues < len(bps)/2 {
			t.Errorf("typos: only %d of %d dialogues have a misspelling", oovDialogues, len(bps))
		}
	}
}

// The minimal user answers questions in a few words beyond the facts.
func TestMinimalAnswersAreShort(t *testing.T) {
	for _, bp := range profileBlueprints(t)[Minimal] {
		_, steps := script(t, bp)
		ents := entities(bp)
		for _, s := range steps {
			switch s.ask.Kind {
			case "identify", "piece", "confirm":
			default:
				continue
			}
			if n := len(words(strip(s.turn.Text, ents))); n > 3 {
				t.Errorf("blueprint %d: minimal answer %q to %s has %d words beyond the facts", bp.Index, s.turn.Text, s.ask.Kind, n)
			}
		}
	}
}

func TestNewRejects(t *testing.T) {
	bp := &record.Blueprint{ID: "x", Behavior: "grumpy", Goals: []record.Goal{{Intent: "cancel_order"}}}
	if _, err := New(bp, rngFor(1)); err == nil {
		t.Error("New accepted an unknown behaviour")
	}
	bp = &record.Blueprint{ID: "x", Behavior: Upfront}
	if _, err := New(bp, rngFor(1)); err == nil || !strings.Contains(err.Error(), "no goals") {
		t.Errorf("New without goals: %v", err)
	}
}

func TestPieces(t *testing.T) {
	order := record.Selector{Collection: "orders", Label: "my order"}
	item := []record.Selector{{Collection: "items", Label: "the lamp"}}
	cases := []struct {
		g    record.Goal
		want []string
	}{
		{record.Goal{Intent: "cancel_order", Kind: record.GoalWrite, Target: order, Slots: map[string]string{"reason": "r"}}, []string{"target", "reason"}},
		{record.Goal{Intent: "cancel_not_pending", Kind: record.GoalRefuse, Target: order, Slots: map[string]string{"reason": "r"}}, []string{"target"}},
		{record.Goal{Intent: "modify_user_address", Kind: record.GoalWrite, Target: record.Selector{Collection: "users", Label: "my account"}, Slots: map[string]string{"address1": "a", "zip": "1"}}, []string{"address"}},
		{record.Goal{Intent: "exchange_items", Kind: record.GoalWrite, Target: order, Items: item, New: item, Slots: map[string]string{"payment": "p", "difference": "$1"}}, []string{"target", "items", "new", "payment"}},
		{record.Goal{Intent: "out_of_scope", Kind: record.GoalTransfer, Target: record.Selector{Collection: "users", Label: "my account"}, Slots: map[string]string{"topic": "t"}}, []string{"topic"}},
		{record.Goal{Intent: "ask_order_total", Kind: record.GoalInform, Target: order}, []string{"target"}},
	}
	for _, tc := range cases {
		if got := Pieces(tc.g); !slices.Equal(got, tc.want) {
			t.Errorf("Pieces(%s) = %v, want %v", tc.g.Intent, got, tc.want)
		}
	}
}

// The same blueprint and stream give the same user, word for word.
func TestUserDeterministic(t *testing.T) {
	for _, bps := range profileBlueprints(t) {
		bp := bps[0]
		f1, s1 := script(t, bp)
		f2, s2 := script(t, bp)
		if f1.Text != f2.Text || !reflect.DeepEqual(s1, s2) {
			t.Errorf("%s %d: two runs differ", bp.Behavior, bp.Index)
		}
	}
}
