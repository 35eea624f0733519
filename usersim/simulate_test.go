package usersim_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/corpus"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/internal/testpacks"
	"github.com/synth-data/synth/internal/testplay"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/openapi"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/usersim"
	"github.com/synth-data/synth/verify"
)

// dialogue is one simulated blueprint.
type dialogue struct {
	bp *record.Blueprint
	tr *record.Trajectory
}

// nDialogues: 1000 as the diversity contract asks; the race detector
// makes generation ~5x slower, so race runs check a 320 prefix (every
// profile still gets about 40 dialogues).
func nDialogues() int {
	if raceEnabled {
		return 320
	}
	return 1000
}

var (
	simOnce sync.Once
	simAll  []dialogue
	simErr  error
)

// simulated generates and simulates the default blueprints once, with two
// workers (each dialogue runs on its own state).
func simulated(t *testing.T) []dialogue {
	t.Helper()
	simOnce.Do(func() {
		d, err := domains.Load("retail", 1)
		if err != nil {
			simErr = err
			return
		}
		g, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: 1, Writes: blueprints.Range{Min: 0, Max: 5}, Reads: blueprints.Range{Min: 2, Max: 7},
			Refusals: 0.2, Behaviors: usersim.Profiles(), Validation: 0.05, Test: 0.05})
		if err != nil {
			simErr = err
			return
		}
		played, err := testplay.Play(d, g, nDialogues())
		if err != nil {
			simErr = err
			return
		}
		out := make([]dialogue, len(played))
		for i, p := range played {
			out[i] = dialogue{p.BP, p.TR}
		}
		simAll = out
	})
	if simErr != nil {
		t.Fatal(simErr)
	}
	return simAll
}

func byProfile(t *testing.T, profile string) []dialogue {
	var out []dialogue
	for _, d := range simulated(t) {
		if d.bp.Behavior == profile {
			out = append(out, d)
		}
	}
	if len(out) < 30 {
		t.Fatalf("only %d dialogues for profile %s", len(out), profile)
	}
	return out
}

func userTexts(tr *record.Trajectory) []string {
	var out []string
	for _, m := range tr.Messages {
		if m.Role == "user" {
			out = append(out, m.Content)
		}
	}
	return out
}

// results maps tool-call ids to their observations.
func results(tr *record.Trajectory) map[string]string {
	out := map[string]string{}
	for _, m := range tr.Messages {
		if m.Role == "tool" {
			out[m.ToolCallID] = m.Content
		}
	}
	return out
}

var writeTools = []string{"cancel_pending_order", "modify_pending_order_address", "modify_pending_order_items", "modify_pending_order_payment",
	"modify_user_address", "return_delivered_order_items", "exchange_delivered_order_items"}

func TestDialoguesWellFormed(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	for _, dl := range simulated(t) {
		bp, tr := dl.bp, dl.tr
		name := fmt.Sprintf("blueprint %d (%s)", bp.Index, bp.Behavior)
		if len(tr.Messages) < 3 || tr.Messages[0].Role != "system" || tr.Messages[1].Role != "user" {
			t.Errorf("%s: does not open with system then user", name)
			continue
		}
		for i, m := range tr.Messages {
			if m.Role == "user" && (strings.TrimSpace(m.Content) == "" || strings.Contains(m.Content, "###")) {
				t.Errorf("%s: user message %d is %q", name, i, m.Content)
			}
		}
		transfer := slices.ContainsFunc(bp.Goals, func(g record.Goal) bool { return g.Kind == record.GoalTransfer })
		switch {
		case transfer && tr.Ending != record.EndTransfer, !transfer && tr.Ending != record.EndStop:
			t.Errorf("%s: ending %q (transfer goal: %v)", name, tr.Ending, transfer)
		}
		// The user never leaves before every write is done: the writes all
		// succeed, there are as many as the blueprint has, and the user
		// speaks again after the last one.
		res := results(tr)
		writes, lastWrite, lastUser := 0, -1, -1
		for i, m := range tr.Messages {
			if m.Role == "user" {
				lastUser = i
			}
			for _, c := range m.ToolCalls {
				if slices.Contains(writeTools, c.Function.Name) {
					writes++
					lastWrite = i
					if strings.HasPrefix(res[c.ID], "Error") {
						t.Errorf("%s: write %s failed: %s", name, c.Function.Name, res[c.ID])
					}
				}
			}
		}
		if writes != bp.NWrites {
			t.Errorf("%s: %d write calls, blueprint has %d", name, writes, bp.NWrites)
		}
		if lastWrite > lastUser {
			t.Errorf("%s: the user's last message (%d) precedes the last write (%d)", name, lastUser, lastWrite)
		}
	}
}

// The identity the agent authenticates with was said by the user first
// (case-insensitively: see TestIdentityVerbatim).
func TestIdentityGrounded(t *testing.T) {
	for _, dl := range simulated(t) {
		checkGrounded(t, dl, strings.ToLower)
	}
}

func TestIdentityVerbatim(t *testing.T) {
	for _, dl := range simulated(t) {
		checkGrounded(t, dl, func(s string) string { return s })
	}
}

func checkGrounded(t *testing.T, dl dialogue, norm func(string) string) {
	t.Helper()
	said := ""
	for _, m := range dl.tr.Messages {
		if m.Role == "user" {
			said += "\n" + norm(m.Content)
		}
		for _, c := range m.ToolCalls {
			if !strings.HasPrefix(c.Function.Name, "find_user_id_by_") {
				continue
			}
			for _, k := range []string{"email", "first_name", "last_name", "zip"} {
				v := argString(c.Function.Arguments, k)
				if v != "" && !strings.Contains(said, norm(v)) {
					t.Errorf("blueprint %d (%s): %s uses %s %q, which the user never said", dl.bp.Index, dl.bp.Behavior, c.Function.Name, k, v)
				}
			}
		}
	}
}

func argString(args, key string) string {
	// Arguments are flat JSON objects of strings here.
	i := strings.Index(args, `"`+key+`":"`)
	if i < 0 {
		return ""
	}
	rest := args[i+len(key)+4:]
	j := strings.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return rest[:j]
}

func TestIdentityUpFront(t *testing.T) {
	for _, p := range usersim.Profiles() {
		upfront := slices.Contains([]string{usersim.Upfront, usersim.Verbose, usersim.Impatient, usersim.ChangesMind}, p)
		for _, dl := range byProfile(t, p) {
			k := dl.bp.Persona.Known
			first := userTexts(dl.tr)[0]
			has := (k["email"] != "" && strings.Contains(first, k["email"])) || (k["zip"] != "" && strings.Contains(first, k["zip"]))
			if has != upfront {
				t.Errorf("%s %d: identity in the first message = %v: %q", p, dl.bp.Index, has, first)
			}
			// Without it, the agent's first move is to ask, not to call a tool.
			if !upfront && len(dl.tr.Messages[2].ToolCalls) > 0 {
				t.Errorf("%s %d: the agent called %s before the user identified", p, dl.bp.Index, dl.tr.Messages[2].ToolCalls[0].Function.Name)
			}
		}
	}
}

func TestMinimalIsTerse(t *testing.T) {
	short, total := 0, 0
	for _, dl := range byProfile(t, usersim.Minimal) {
		ents := usersim.EntitiesForTest(dl.bp)
		for _, text := range userTexts(dl.tr)[1:] {
			total++
			if len(usersim.WordsForTest(usersim.StripForTest(text, ents))) <= 6 {
				short++
			}
		}
	}
	// Answers are short; new requests (a later goal) are full sentences.
	if float64(short) < 0.7*float64(total) {
		t.Errorf("only %d of %d later minimal messages have ≤ 6 words beyond the facts", short, total)
	}
	// For contrast, the verbose profile is not terse.
	vshort, vtotal := 0, 0
	for _, dl := range byProfile(t, usersim.Verbose) {
		ents := usersim.EntitiesForTest(dl.bp)
		for _, text := range userTexts(dl.tr)[1:] {
			vtotal++
			if len(usersim.WordsForTest(usersim.StripForTest(text, ents))) <= 6 {
				vshort++
			}
		}
	}
	if float64(vshort)/float64(vtotal) >= float64(short)/float64(total) {
		t.Errorf("verbose messages are as short as minimal ones: %d/%d vs %d/%d", vshort, vtotal, short, total)
	}
	t.Logf("minimal: %d/%d short; verbose: %d/%d", short, total, vshort, vtotal)
}

func TestConfusedRetriesIdentity(t *testing.T) {
	for _, dl := range byProfile(t, usersim.Confused) {
		failedAt, okAt := -1, -1
		for i, m := range dl.tr.Messages {
			if m.Role != "tool" || !strings.HasPrefix(m.Name, "find_user_id_by_") {
				continue
			}
			if strings.HasPrefix(m.Content, "Error") {
				if failedAt < 0 {
					failedAt = i
				}
			} else if okAt < 0 {
				okAt = i
			}
		}
		if failedAt < 0 || okAt < failedAt {
			t.Errorf("confused %d: no failed identification followed by a successful one (failed at %d, ok at %d)", dl.bp.Index, failedAt, okAt)
		}
	}
}

// The user who changes their mind answers a proposal with a revision
// (not a yes), and the agent proposes again before writing.
func TestChangesMindRevises(t *testing.T) {
	for _, dl := range byProfile(t, usersim.ChangesMind) {
		msgs := dl.tr.Messages
		// prev finds the last message before i satisfying f.
		prev := func(i int, f func(record.Message) bool) int {
			for j := i - 1; j >= 0; j-- {
				if f(msgs[j]) {
					return j
				}
			}
			return -1
		}
		isUser := func(m record.Message) bool { return m.Role == "user" }
		isText := func(m record.Message) bool { return m.Role == "assistant" && m.Content != "" }
		found := false
		for i, m := range msgs {
			for _, c := range m.ToolCalls {
				if !slices.Contains(writeTools, c.Function.Name) {
					continue
				}
				yes := prev(i, isUser)
				reproposal := prev(yes, isText)
				revision := prev(reproposal, isUser)
				proposal := prev(revision, isText)
				if yes < 0 || reproposal < 0 || revision < 0 || proposal < 0 {
					continue
				}
				id := argString(c.Function.Arguments, "order_id")
				if verify.Affirmative(msgs[yes].Content) && !verify.Affirmative(msgs[revision].Content) &&
					id != "" && strings.Contains(msgs[proposal].Content, id) && strings.Contains(msgs[reproposal].Content, id) &&
					msgs[proposal].Content != msgs[reproposal].Content {
					found = true
				}
			}
		}
		// A first choice that cannot pay is never proposed: the customer
		// changes its mind when the agent says so (TestToolErrors' turn).
		short := slices.ContainsFunc(msgs, func(m record.Message) bool { return strings.Contains(m.ReasoningContent, "must not propose") })
		if !found && !short {
			t.Errorf("changes_mind %d: no proposal → revision → new proposal → yes → write", dl.bp.Index)
		}
	}
}

// The typos profile also uses non-native phrasings; no other profile does.
func TestTyposPhrasing(t *testing.T) {
	// Phrasings no plain template produces ("You can", "I am" and "in
	// place" also occur in ordinary speech).
	var marks []string
	for _, v := range usersim.NonNativeForTest {
		if len(strings.Fields(v)) >= 3 || strings.Contains(v, "kindly") {
			marks = append(marks, strings.ToLower(v))
		}
	}
	if len(marks) < 4 {
		t.Fatalf("non-native phrasings changed: %v", usersim.NonNativeForTest)
	}
	count := func(p string) (int, int) {
		hit, n := 0, 0
		for _, dl := range byProfile(t, p) {
			n++
			for _, text := range userTexts(dl.tr) {
				low := strings.ToLower(text)
				if slices.ContainsFunc(marks, func(m string) bool { return strings.Contains(low, m) }) {
					hit++
					break
				}
			}
		}
		return hit, n
	}
	if hit, n := count(usersim.Typos); hit < n/4 {
		t.Errorf("typos: only %d of %d dialogues use a non-native phrasing", hit, n)
	}
	for _, p := range usersim.Profiles() {
		if p == usersim.Typos {
			continue
		}
		if hit, _ := count(p); hit > 0 {
			t.Errorf("%s: %d dialogues use the typos profile's phrasings", p, hit)
		}
	}
}

func TestLanguageDiversity(t *testing.T) {
	all := simulated(t)
	firsts := map[string]int{}
	seqs := map[string]int{}
	for _, dl := range all {
		u := userTexts(dl.tr)
		firsts[u[0]]++
		seqs[strings.Join(u, "\x00")]++
	}
	n := float64(len(all))
	if r := float64(len(firsts)) / n; r < 0.90 {
		t.Errorf("%.1f%% distinct first user messages, want ≥ 90%%", 100*r)
		for s, c := range firsts {
			if c > 2 {
				t.Logf("%d× %q", c, s)
			}
		}
	}
	if r := float64(len(seqs)) / n; r < 0.95 {
		t.Errorf("%.1f%% distinct user-message sequences, want ≥ 95%%", 100*r)
	}
	t.Logf("%d dialogues: %d distinct first messages, %d distinct sequences", len(all), len(firsts), len(seqs))
}

// Every sentence of the customer and of the agent reads as well formed
// (corpus.Malformed): no lower-case sentence start from a bare piece, no
// "Please …?", no question closed with a full stop, in retail, airline
// and a pack.
func TestSentencesWellFormed(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	check := func(name string, dls []dialogue) {
		for _, dl := range dls {
			for i, m := range dl.tr.Messages {
				if m.Role != "user" && m.Role != "assistant" {
					continue
				}
				for _, s := range corpus.Sentences(m.Content) {
					if k := corpus.Malformed(s); k != "" {
						t.Errorf("%s blueprint %d (%s) message %d: %s: %q in %q", name, dl.bp.Index, dl.bp.Behavior, i, k, s, m.Content)
					}
				}
			}
		}
	}
	check("retail", simulated(t))
	for _, domain := range []string{"airline", testpacks.Dir("library"), testpacks.Dir("catalog")} {
		check(domain, play(t, domain, 200))
	}
}

// play simulates n default blueprints of a domain.
func play(t *testing.T, domain string, n int) []dialogue {
	t.Helper()
	d, err := domains.Load(domain, 1)
	if err != nil {
		t.Fatal(err)
	}
	g, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: 4, Writes: blueprints.Range{Min: 0, Max: 3}, Reads: blueprints.Range{Min: 0, Max: 7},
		Refusals: 0.2, Behaviors: usersim.Profiles(), Validation: 0.05, Test: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	played, err := testplay.Play(d, g, n)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]dialogue, len(played))
	for i, p := range played {
		out[i] = dialogue{p.BP, p.TR}
	}
	return out
}

// A slot or record attribute the pack words ("travel insurance", "2
// checked bags in total", "without travel insurance") is said in those
// words, never as the field name and the raw value.
func TestSaidInThePacksWords(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	raw := regexp.MustCompile(`(?i)insurance (yes|no)\b|(highest|lowest|for the) total baggages|\b(use|make it|be) (yes|no)([.,!?]|$)|basic_economy|for the cabin,`)
	said := 0
	for _, dl := range play(t, "airline", 200) {
		for _, text := range userTexts(dl.tr) {
			if m := raw.FindString(text); m != "" {
				t.Errorf("blueprint %d (%s): %q says %q", dl.bp.Index, dl.bp.Behavior, text, m)
			}
			if strings.Contains(text, "travel insurance") || strings.Contains(text, "checked bag") {
				said++
			}
		}
	}
	if said == 0 {
		t.Error("no customer named insurance or bags in the pack's words")
	}
}

var update = flag.Bool("update", false, "rewrite the golden dialogues under testdata/dialogues")

// TestGoldenDialogues pins one whole dialogue per behaviour profile and
// domain (retail, airline, a pack), as a reader sees it: a change to any
// phrase, any piece of the customer's or the agent's logic, or the tool
// results shows in the diff. Rewrite with -update and read the diff.
func TestGoldenDialogues(t *testing.T) {
	for _, domain := range []struct{ name, dir string }{{"retail", "retail"}, {"airline", "airline"}, {"library", testpacks.Dir("library")}} {
		t.Run(domain.name, func(t *testing.T) {
			var b strings.Builder
			seen := map[string]bool{}
			for _, dl := range play(t, domain.dir, 80) {
				if seen[dl.bp.Behavior] {
					continue
				}
				seen[dl.bp.Behavior] = true
				fmt.Fprintf(&b, "=== %s: blueprint %d, %d writes\n", dl.bp.Behavior, dl.bp.Index, dl.bp.NWrites)
				renderDialogue(&b, dl.tr)
			}
			for _, p := range usersim.Profiles() {
				if !seen[p] {
					t.Errorf("no %s dialogue in the first 80 blueprints", p)
				}
			}
			path := filepath.Join("testdata", "dialogues", domain.name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got := b.String(); got != string(want) {
				t.Errorf("dialogues differ from %s; if the change is intended, rerun with -update and read the diff", path)
			}
		})
	}
}

// renderDialogue writes a dialogue without its system prompt, tool
// results cut to their first 160 characters.
func renderDialogue(b *strings.Builder, tr *record.Trajectory) {
	for _, m := range tr.Messages[1:] {
		switch m.Role {
		case "tool":
			out := m.Content
			if len(out) > 160 {
				out = out[:160] + "…"
			}
			fmt.Fprintf(b, "  tool: %s\n", out)
		default:
			if m.ReasoningContent != "" {
				fmt.Fprintf(b, "  %s (reasoning): %s\n", m.Role, m.ReasoningContent)
			}
			if m.Content != "" {
				fmt.Fprintf(b, "  %s: %s\n", m.Role, m.Content)
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(b, "  %s → %s(%s)\n", m.Role, c.Function.Name, c.Function.Arguments)
			}
		}
	}
	b.WriteString("\n")
}

// TestConditionalGoals: a customer with a plan B asks for it in the
// opening message, never pleads for the forbidden request, and the agent
// takes the plan B up as soon as it has refused; the dialogue verifies.
func TestConditionalGoals(t *testing.T) {
	lead := regexp.MustCompile(`(?i)if that's not possible|if you can't do that|if that can't be done|failing that|if that doesn't work|if that's not allowed|if the answer is no`)
	takeUp := regexp.MustCompile(`(?i)(since that isn't possible|as that can't be done|given that|because of that|that being so), |you (mentioned|said) what`)
	for _, domain := range []string{"retail", "airline"} {
		fx, err := testplay.NewFixture(domain, 3)
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for i := 0; i < 400 && seen < 8; i++ {
			bp, err := fx.Gen.Generate(t.Context(), i)
			if err != nil {
				t.Fatal(err)
			}
			if len(bp.Goals) < 2 || !bp.Goals[1].Instead {
				continue
			}
			seen++
			played, err := testplay.Play(fx.D, single{bp}, 1)
			if err != nil {
				t.Fatal(err)
			}
			tr := played[0].TR
			if v := fx.Ver.Verify(t.Context(), bp, tr); !v.Passed {
				t.Errorf("%s %s: a conditional dialogue fails %v", domain, bp.ID, v.Failed())
			}
			users := userTexts(tr)
			if !lead.MatchString(users[0]) {
				t.Errorf("%s %s: the opening message holds no plan B: %q", domain, bp.ID, users[0])
			}
			for _, u := range users {
				if strings.Contains(strings.ToLower(u), "exception") {
					t.Errorf("%s %s: a customer with a plan B pleads: %q", domain, bp.ID, u)
				}
			}
			if !slices.ContainsFunc(tr.Messages, func(m record.Message) bool { return m.Role == "assistant" && takeUp.MatchString(m.Content) }) {
				t.Errorf("%s %s: the agent never says it takes up the plan B", domain, bp.ID)
			}
		}
		if seen == 0 {
			t.Errorf("%s: no conditional task in 400", domain)
		}
	}
}

// toolErrorTask is a generated task and its goal that a test's filter
// picked.
type toolErrorTask struct {
	bp *record.Blueprint
	g  record.Goal
}

// toolErrorTasks generates the first 300 tasks of fx's domain with one
// tool error each (seed 3, 1-2 writes, 0-7 reads) and keeps up to six,
// each with its first goal that want holds for.
func toolErrorTasks(t *testing.T, fx *testplay.Fixture, want func(record.Goal) bool) []toolErrorTask {
	t.Helper()
	gen, err := blueprints.NewGeneric(fx.D.Model, blueprints.Spec{Seed: 3, Writes: blueprints.Range{Min: 1, Max: 2},
		Reads: blueprints.Range{Min: 0, Max: 7}, AdaptReads: true, ToolErrors: 1, Behaviors: usersim.Profiles()})
	if err != nil {
		t.Fatal(err)
	}
	var tasks []toolErrorTask
	for i := 0; i < 300 && len(tasks) < 6; i++ {
		bp, err := gen.Generate(t.Context(), i)
		if err != nil {
			t.Fatal(err)
		}
		if gi := slices.IndexFunc(bp.Goals, want); gi >= 0 {
			tasks = append(tasks, toolErrorTask{bp, bp.Goals[gi]})
		}
	}
	return tasks
}

// TestToolErrors plays tasks whose customer first names a choice the
// write fails on (a gift card short of the amount). The agent reads that
// on a fork and never proposes nor calls the write with it: it says the
// choice cannot pay, with the balance and the amount (the comparison in
// that turn's reasoning), and asks for another; the customer names the
// blueprint's other choice, and the write goes through on a yes to a
// proposal that states the figure. No call of the write fails, and the
// dialogue verifies.
func TestToolErrors(t *testing.T) {
	for _, domain := range []string{"retail", "airline"} {
		t.Run(domain, func(t *testing.T) {
			fx, err := testplay.NewFixture(domain, 3)
			if err != nil {
				t.Fatal(err)
			}
			money := regexp.MustCompile(`\$\d[\d,]*(\.\d+)?`)
			tasks := toolErrorTasks(t, fx, func(g record.Goal) bool { return len(g.FailingItems) > 0 })
			for _, task := range tasks {
				bp, g := task.bp, task.g
				tool, _ := model.ParseIntent(g.Intent)
				// The LLM customer's brief carries the same situation.
				first := strings.Replace(g.FailingItems[0].Label, "my ", "your ", 1)
				if !strings.Contains(bp.Instruction, "At first you offer "+first) {
					t.Errorf("%s: the instruction never has the customer offer %q first: %q", bp.ID, first, bp.Instruction)
				}
				played, err := testplay.Play(fx.D, single{bp}, 1)
				if err != nil {
					t.Fatal(err)
				}
				tr := played[0].TR
				if v := fx.Ver.Verify(t.Context(), bp, tr); !v.Passed {
					t.Errorf("%s: a dialogue with a choice that cannot pay fails %v", bp.ID, v.Failed())
					continue
				}
				for j, m := range tr.Messages {
					if m.Role == "tool" && m.Name == tool && strings.HasPrefix(m.Content, "Error") {
						t.Errorf("%s: message %d: the agent called %s with a choice it could read would fail: %s", bp.ID, j, tool, m.Content)
					}
				}
				// The turn that turns the first choice down: it names no
				// proposal, says two amounts (the balance and the amount
				// due), and reasons the comparison; the write goes through
				// after it.
				said, ok := -1, -1
				for j, m := range tr.Messages {
					if said < 0 && m.Role == "assistant" && m.Content != "" && strings.Contains(m.ReasoningContent, "must not propose") {
						said = j
					}
					if said >= 0 && ok < 0 && m.Role == "tool" && m.Name == tool {
						ok = j
					}
				}
				if said < 0 || ok < 0 {
					t.Errorf("%s: want the agent to say the first choice cannot pay, then %s to go through (said at %d, through at %d)", bp.ID, tool, said, ok)
					continue
				}
				m := tr.Messages[said]
				if n := len(money.FindAllString(m.Content, -1)); n < 2 {
					t.Errorf("%s: message %d says %d amounts, want the balance and the amount due: %q", bp.ID, said, n, m.Content)
				}
				if !strings.Contains(m.ReasoningContent, "less than") {
					t.Errorf("%s: message %d's reasoning does not compare the balance with the amount: %q", bp.ID, said, m.ReasoningContent)
				}
				for _, w := range []string{"proceed", "go ahead", "(yes/no)"} {
					if strings.Contains(strings.ToLower(m.Content), w) {
						t.Errorf("%s: message %d asks for a yes to the choice that cannot pay: %q", bp.ID, said, m.Content)
					}
				}
				var between []string
				for _, m := range tr.Messages[said+1 : ok] {
					if m.Role == "user" {
						between = append(between, m.Content)
					}
				}
				if len(between) < 2 {
					t.Errorf("%s: want the customer's other choice and a yes between the agent's word and the write, got %q", bp.ID, between)
				}
			}
			if len(tasks) == 0 {
				t.Errorf("no task with a tool error in 300")
			}
		})
	}
}

// TestToolErrorSlots plays tasks whose customer first states a value
// the write fails on, which the agent cannot foresee (a label name
// another label has, in a pack imported from an OpenAPI spec whose create
// takes the key from the client): the write is tried on it and fails, the
// agent relays the tool's error, the customer gives its final value, and
// the write then goes through on a new yes; the dialogue verifies (the
// failed write changed nothing, the state is the ground truth's).
func TestToolErrorSlots(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pack")
	spec := filepath.Join("..", "openapi", "testdata", "writes", "keyed-create.yaml")
	if _, err := openapi.ImportFile(t.Context(), spec, dir, openapi.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	fx, err := testplay.NewFixture(dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	tasks := toolErrorTasks(t, fx, func(g record.Goal) bool { return len(g.FailingSlots) > 0 })
	for _, task := range tasks {
		bp, g := task.bp, task.g
		tool, _ := model.ParseIntent(g.Intent)
		// The LLM customer's brief carries the same situation.
		var first, final string
		for k, v := range g.FailingSlots {
			first, final = v, g.Slots[k]
			if !strings.Contains(bp.Instruction, "At first you ask for "+v+" as the "+model.ArgWords(k)) {
				t.Errorf("%s: the instruction never has the customer ask for %q first: %q", bp.ID, v, bp.Instruction)
			}
		}
		played, err := testplay.Play(fx.D, single{bp}, 1)
		if err != nil {
			t.Fatal(err)
		}
		tr := played[0].TR
		if v := fx.Ver.Verify(t.Context(), bp, tr); !v.Passed {
			t.Errorf("%s: a dialogue with a tool error fails %v", bp.ID, v.Failed())
			continue
		}
		failed, ok := -1, -1
		for j, m := range tr.Messages {
			if m.Role != "tool" || m.Name != tool {
				continue
			}
			if strings.HasPrefix(m.Content, "Error") && failed < 0 {
				failed = j
			} else if failed >= 0 && !strings.HasPrefix(m.Content, "Error") {
				ok = j
			}
		}
		if failed < 0 || ok < 0 {
			t.Errorf("%s: want %s to fail once and then go through (failed at %d, through at %d)", bp.ID, tool, failed, ok)
			continue
		}
		next := ""
		for _, m := range tr.Messages[failed+1 : ok] {
			if m.Role == "assistant" && m.Content != "" {
				next = m.Content
				break
			}
		}
		why := strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(tr.Messages[failed].Content, "Error: "), "."))
		if !strings.Contains(strings.ToLower(next), why) {
			t.Errorf("%s: the agent's next words %q do not relay the tool's error %q", bp.ID, next, why)
		}
		var between []string
		for _, m := range tr.Messages[failed+1 : ok] {
			if m.Role == "user" {
				between = append(between, m.Content)
			}
		}
		if len(between) < 2 {
			t.Errorf("%s: want the customer's other value and a new yes between the failed write and the one that went through, got %q", bp.ID, between)
			continue
		}
		// The failed call carries the first value, which the customer
		// said before it; the other comes after.
		call := tr.Messages[failed-1]
		if len(call.ToolCalls) != 1 || !strings.Contains(call.ToolCalls[0].Function.Arguments, first) {
			t.Errorf("%s: the failed call %v does not carry the first value %q", bp.ID, call.ToolCalls, first)
		}
		said := strings.Join(userTexts(&record.Trajectory{Messages: tr.Messages[:failed]}), " ")
		if !strings.Contains(said, first) {
			t.Errorf("%s: the customer never said %q before the failed call: %q", bp.ID, first, said)
		}
		if !strings.Contains(between[0], final) {
			t.Errorf("%s: the customer's answer to the error %q does not give %q", bp.ID, between[0], final)
		}
	}
	if len(tasks) == 0 {
		t.Errorf("no task with a tool error in 300")
	}
}

// TestUnavailableItems plays retail tasks whose customer first names a
// replacement variant the product has but not available: the agent reads
// the product, says that variant is not available without proposing it
// or calling the write with it, asks again, the customer names its
// fallback, and the dialogue verifies.
func TestUnavailableItems(t *testing.T) {
	fx, err := testplay.NewFixture("retail", 3)
	if err != nil {
		t.Fatal(err)
	}
	tasks := toolErrorTasks(t, fx, func(g record.Goal) bool { return len(g.UnavailableNew) > 0 })
	for _, task := range tasks {
		bp, g := task.bp, task.g
		if len(g.FailingItems) > 0 {
			t.Errorf("%s: a goal with an unavailable replacement also has a failing choice", bp.ID)
		}
		var gone record.Selector
		for k, s := range g.UnavailableNew {
			if s.Label != g.New[k].Label {
				gone = s
			}
		}
		if gone.Label == "" {
			t.Fatalf("%s: unavailable_new %v names the same replacements as new", bp.ID, g.UnavailableNew)
		}
		if !strings.Contains(bp.Instruction, "At first you ask for ") || !strings.Contains(bp.Instruction, gone.Label) {
			t.Errorf("%s: the instruction never has the customer ask for %q first: %q", bp.ID, gone.Label, bp.Instruction)
		}
		played, err := testplay.Play(fx.D, single{bp}, 1)
		if err != nil {
			t.Fatal(err)
		}
		tr := played[0].TR
		if v := fx.Ver.Verify(t.Context(), bp, tr); !v.Passed {
			t.Errorf("%s: a dialogue with an unavailable item fails %v", bp.ID, v.Failed())
			continue
		}
		// The ids of the unavailable variant, from the products read.
		goneIDs := map[string]bool{}
		for _, m := range tr.Messages {
			var prod struct {
				Variants map[string]map[string]any `json:"variants"`
			}
			if m.Role != "tool" || json.Unmarshal([]byte(m.Content), &prod) != nil {
				continue
			}
			for id, v := range prod.Variants {
				match := v["available"] == false
				for path, want := range gone.Where {
					got, _ := model.ValueAt(v, path)
					match = match && fmt.Sprint(got) == want
				}
				if match {
					goneIDs[id] = true
				}
			}
		}
		if len(goneIDs) == 0 {
			t.Errorf("%s: no product read holds an unavailable variant %v", bp.ID, gone.Where)
		}
		said, asked := -1, -1
		for j, m := range tr.Messages {
			for _, c := range m.ToolCalls {
				for id := range goneIDs {
					if strings.Contains(c.Function.Arguments, id) {
						t.Errorf("%s: %s is called with the unavailable variant %s", bp.ID, c.Function.Name, id)
					}
				}
			}
			if m.Role == "assistant" && strings.Contains(m.Content, gone.Label) {
				if said >= 0 || !regexp.MustCompile(`available|out of stock`).MatchString(m.Content) {
					t.Errorf("%s: the agent names %q other than once to say it is not available: %q", bp.ID, gone.Label, m.Content)
				}
				said = j
			}
			if said >= 0 && asked < 0 && j > said && m.Role == "user" {
				asked = j
			}
		}
		if said < 0 || asked < 0 {
			t.Errorf("%s: the agent never says %q is not available, or the customer never answers (%d, %d)", bp.ID, gone.Label, said, asked)
			continue
		}
		for k, s := range g.New {
			if s.Label != g.UnavailableNew[k].Label && !strings.Contains(tr.Messages[asked].Content, s.Label) {
				t.Errorf("%s: the customer's answer %q does not name its fallback %q", bp.ID, tr.Messages[asked].Content, s.Label)
			}
		}
	}
	if len(tasks) == 0 {
		t.Errorf("no task with an unavailable item in 300")
	}
}

// single generates one blueprint, whatever the index.
type single struct{ bp *record.Blueprint }

func (s single) Generate(context.Context, int) (*record.Blueprint, error) { return s.bp, nil }

// TestRepetitionTargets holds the language to its contract at 1,000
// dialogues of a default run (synth run's writes, reads and refusals):
// no customer sentence in more than 2% of them and no agent sentence in
// more than 5% (corpus.Meter's thresholds), in retail and airline.
func TestRepetitionTargets(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	for _, domain := range []string{"retail", "airline"} {
		d, err := domains.Load(domain, 21)
		if err != nil {
			t.Fatal(err)
		}
		g, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: 21, Writes: blueprints.Range{Min: 0, Max: 5}, WriteWeights: []float64{10, 60, 23, 15, 5, 1},
			Reads: blueprints.Range{Min: 2, Max: 7}, AdaptReads: true, Refusals: 0.2, ToolErrors: 0.2, Behaviors: usersim.Profiles(), Validation: 0.05, Test: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		played, err := testplay.Play(d, g, 1000)
		if err != nil {
			t.Fatal(err)
		}
		m := corpus.NewMeter()
		for _, p := range played {
			m.Add(p.TR.Messages, "")
		}
		for role, r := range m.Summary(3).Roles {
			if r.OverThreshold > 0 {
				t.Errorf("%s: %d %s sentences are in more than %.0f%% of 1000 dialogues; the most common: %v", domain, r.OverThreshold, role, 100*r.Threshold, r.Top)
			}
		}
	}
}

// TestDigressions: a talkative or piecemeal customer once asks something off the task
// instead of answering; the agent steers back without a word a refusal
// check reads as refusing, asks again, and the dialogue verifies.
func TestDigressions(t *testing.T) {
	offTask := regexp.MustCompile(`open on weekends|phone line|updates by text|mobile app|loyalty program|chat is saved|same person next time|doing this job|busy today|people like me|real person`)
	steer := regexp.MustCompile(`(?i)your request|what you (came in|asked) for`)
	refusal := regexp.MustCompile(`(?i)\b(cannot|can't|can not|unable|not able|not possible|only possible|not allowed|not permitted|won't be able)\b`)
	for _, domain := range []string{"retail", "airline"} {
		fx, err := testplay.NewFixture(domain, 3)
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for i := 0; i < 300 && seen < 6; i++ {
			bp, err := fx.Gen.Generate(t.Context(), i)
			if err != nil {
				t.Fatal(err)
			}
			if bp.Behavior != usersim.Verbose && bp.Behavior != usersim.Piecemeal {
				continue
			}
			played, err := testplay.Play(fx.D, single{bp}, 1)
			if err != nil {
				t.Fatal(err)
			}
			tr := played[0].TR
			at := slices.IndexFunc(tr.Messages, func(m record.Message) bool { return m.Role == "user" && offTask.MatchString(m.Content) })
			if at < 0 {
				continue
			}
			seen++
			if v := fx.Ver.Verify(t.Context(), bp, tr); !v.Passed {
				t.Errorf("%s %s: a dialogue with a digression fails %v", domain, bp.ID, v.Failed())
			}
			if at+1 >= len(tr.Messages) {
				t.Fatalf("%s %s: the dialogue ends at the digression", domain, bp.ID)
			}
			reply := tr.Messages[at+1]
			if reply.Role != "assistant" || !steer.MatchString(reply.Content) || refusal.MatchString(reply.Content) {
				t.Errorf("%s %s: the agent's answer to %q does not steer back in words a refusal check ignores: %q", domain, bp.ID, tr.Messages[at].Content, reply.Content)
			}
			if n := len(slices.DeleteFunc(slices.Clone(tr.Messages), func(m record.Message) bool { return !(m.Role == "user" && offTask.MatchString(m.Content)) })); n != 1 {
				t.Errorf("%s %s: %d digressions, want one", domain, bp.ID, n)
			}
		}
		if seen == 0 {
			t.Errorf("%s: no verbose customer digressed in 300 dialogues", domain)
		}
	}
}

// TestIncompleteIdentity: a piecemeal customer gives half of a two-part
// identity (the name, not the zip); the agent asks for the rest only,
// keeps the name, and finds the account with both.
func TestIncompleteIdentity(t *testing.T) {
	fx, err := testplay.NewFixture("retail", 3)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for i := 0; i < 300 && seen < 5; i++ {
		bp, err := fx.Gen.Generate(t.Context(), i)
		if err != nil {
			t.Fatal(err)
		}
		if bp.Behavior != usersim.Piecemeal || bp.Persona.Known["zip"] == "" {
			continue
		}
		played, err := testplay.Play(fx.D, single{bp}, 1)
		if err != nil {
			t.Fatal(err)
		}
		tr := played[0].TR
		if v := fx.Ver.Verify(t.Context(), bp, tr); !v.Passed {
			t.Errorf("%s: fails %v", bp.ID, v.Failed())
		}
		users := userTexts(tr)
		half := slices.IndexFunc(users, func(u string) bool { return strings.Contains(u, bp.Persona.Known["first_name"]) })
		if half < 0 || half+1 >= len(users) {
			t.Errorf("%s: the customer never gives the name", bp.ID)
			continue
		}
		seen++
		zip := bp.Persona.Known["zip"]
		if strings.Contains(users[half], zip) || !strings.Contains(users[half+1], zip) || strings.Contains(users[half+1], bp.Persona.Known["first_name"]) {
			t.Errorf("%s: want the name alone, then the zip alone: %q, %q", bp.ID, users[half], users[half+1])
		}
		if usersim.Classify(agentAfter(tr, users[half])).Kind != "identify" {
			t.Errorf("%s: the agent's request for the rest does not read as identify: %q", bp.ID, agentAfter(tr, users[half]))
		}
	}
	if seen == 0 {
		t.Error("no piecemeal customer identified by name and zip in 300 dialogues")
	}
}

// agentAfter is the agent's first message after a customer message.
func agentAfter(tr *record.Trajectory, user string) string {
	for i, m := range tr.Messages {
		if m.Role == "user" && m.Content == user {
			for _, n := range tr.Messages[i+1:] {
				if n.Role == "assistant" && n.Content != "" {
					return n.Content
				}
			}
		}
	}
	return ""
}

// TestRefundsSaidAsRefunds: a write whose money goes back to the
// customer (airline's negative price difference, a retail item change
// whose payment entry is a refund) is proposed and reported as money
// coming back, never as "-$325" or as a bare "price difference" the
// customer would read as a charge.
func TestRefundsSaidAsRefunds(t *testing.T) {
	back := regexp.MustCompile(`(?i)\bback\b|refund|in your favour`)
	for _, tc := range []struct {
		domain, tool string
		// refund reports whether the write's result, or its required
		// output, is money for the customer.
		refund func(bp *record.Blueprint, goal int, result string) bool
	}{
		{"airline", "update_reservation_flights", func(bp *record.Blueprint, goal int, _ string) bool {
			return slices.ContainsFunc(bp.Outputs, func(o record.Output) bool {
				return o.Goal == goal && o.Name == "price_difference" && strings.HasPrefix(o.Value, "-")
			})
		}},
		{"retail", "modify_pending_order_items", lastPaymentRefund},
		{"retail", "exchange_delivered_order_items", func(_ *record.Blueprint, _ int, result string) bool {
			var order struct {
				Difference float64 `json:"exchange_price_difference"`
			}
			return json.Unmarshal([]byte(result), &order) == nil && order.Difference < 0
		}},
	} {
		t.Run(tc.domain+"/"+tc.tool, func(t *testing.T) {
			fx, err := testplay.NewFixture(tc.domain, 5)
			if err != nil {
				t.Fatal(err)
			}
			refunds := 0
			for i := 0; i < 400 && refunds < 4; i++ {
				bp, err := fx.Gen.Generate(t.Context(), i)
				if err != nil {
					t.Fatal(err)
				}
				// The goal of each call of the tool, in order (a task may
				// change two reservations, one charged, one refunded).
				var goals []int
				for _, a := range bp.Actions {
					if a.Tool == tc.tool {
						goals = append(goals, a.Goal)
					}
				}
				if len(goals) == 0 {
					continue
				}
				played, err := testplay.Play(fx.D, single{bp}, 1)
				if err != nil {
					t.Fatal(err)
				}
				tr := played[0].TR
				for j, m := range tr.Messages {
					if m.Role == "assistant" && strings.Contains(m.Content, "-$") {
						t.Errorf("%s: message %d says money with a minus sign: %q", bp.ID, j, m.Content)
					}
				}
				call := 0
				for j, m := range tr.Messages {
					if m.Role != "tool" || m.Name != tc.tool || strings.HasPrefix(m.Content, "Error") {
						continue
					}
					goal := goals[min(call, len(goals)-1)]
					call++
					if !tc.refund(bp, goal, m.Content) {
						continue
					}
					refunds++
					var before, after string
					for k := j - 1; k >= 0 && before == ""; k-- {
						if tr.Messages[k].Role == "assistant" && tr.Messages[k].Content != "" && k+1 < j && slices.ContainsFunc(tr.Messages[k+1:j], func(m record.Message) bool { return m.Role == "user" }) {
							before = tr.Messages[k].Content
						}
					}
					for k := j + 1; k < len(tr.Messages) && after == ""; k++ {
						if tr.Messages[k].Role == "assistant" && tr.Messages[k].Content != "" {
							after = tr.Messages[k].Content
						}
					}
					if !back.MatchString(before) {
						t.Errorf("%s: the proposal of a refund does not say the money comes back: %q", bp.ID, before)
					}
					if !back.MatchString(after) {
						t.Errorf("%s: the report of a refund does not say the money comes back: %q", bp.ID, after)
					}
				}
			}
			if refunds == 0 {
				t.Errorf("no %s that refunds in 400 tasks", tc.tool)
			}
		})
	}
}

// lastPaymentRefund reports whether a retail write's result ends its
// payment history with a refund.
func lastPaymentRefund(_ *record.Blueprint, _ int, result string) bool {
	var order struct {
		History []struct {
			Type string `json:"transaction_type"`
		} `json:"payment_history"`
	}
	if json.Unmarshal([]byte(result), &order) != nil || len(order.History) == 0 {
		return false
	}
	return order.History[len(order.History)-1].Type == "refund"
}

// TestSaysWhatItKnows: the agent words a proposal and its reasoning
// from what it has read and the write's own figures, and both sides
// word reasons and cards as people do (review 2, N7, N9, N10). Each row
// looks at played dialogues of its domain; seen says a dialogue holds
// what the row checks, so a row that finds none fails rather than
// passing on nothing.
func TestSaysWhatItKnows(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	for _, tc := range []struct {
		name, domain string
		// check returns the offending texts of a dialogue and whether it
		// holds what the row checks.
		check func(tr *record.Trajectory) (bad []string, seen bool)
	}{
		{"a shortfall is reasoned from the balance, not the tool's error", "airline", func(tr *record.Trajectory) ([]string, bool) {
			return shortfallReasons(tr, "balance is not enough")
		}},
		{"a shortfall is reasoned from the balance, not the tool's error", "retail", func(tr *record.Trajectory) ([]string, bool) {
			return shortfallReasons(tr, "Insufficient gift card balance")
		}},
		{"a reason is asked as why", "retail", func(tr *record.Trajectory) ([]string, bool) {
			return matching(tr, "assistant", `(?i)what reason would you like|which reason do you want|what should the reason be`, `reason you('d like| want) to|your reason to`)
		}},
		{"a card is its brand, not 'Mastercard card'", "retail", func(tr *record.Trajectory) ([]string, bool) {
			return matching(tr, "", `(?i)\b(visa|mastercard|amex|discover) card\b`, `(?i)\b(visa|mastercard|amex|discover) ending in`)
		}},
	} {
		t.Run(tc.domain+"/"+tc.name, func(t *testing.T) {
			fx, err := testplay.NewFixture(tc.domain, 5)
			if err != nil {
				t.Fatal(err)
			}
			seen := 0
			for i := 0; i < 400 && seen < 3; i++ {
				bp, err := fx.Gen.Generate(t.Context(), i)
				if err != nil {
					t.Fatal(err)
				}
				played, err := testplay.Play(fx.D, single{bp}, 1)
				if err != nil {
					t.Fatal(err)
				}
				bad, ok := tc.check(played[0].TR)
				if ok {
					seen++
				}
				for _, b := range bad {
					t.Errorf("%s: %q", bp.ID, b)
				}
			}
			if seen == 0 {
				t.Fatal("no dialogue in 400 holds what this row checks")
			}
		})
	}
}

// shortfallReasons is every reasoning that weighs a balance (a gift
// card's balance or amount) against the amount due and quotes the tool's
// error (errText) the agent never got.
func shortfallReasons(tr *record.Trajectory, errText string) (bad []string, seen bool) {
	for _, m := range tr.Messages {
		r := m.ReasoningContent
		if m.Role != "assistant" || !strings.Contains(r, "The balance of") && !strings.Contains(r, "The amount of") || !strings.Contains(r, ", less than the") {
			continue
		}
		seen = true
		if strings.Contains(r, errText) || strings.Contains(r, "would reject it (") {
			bad = append(bad, r)
		}
	}
	return bad, seen
}

// matching is every message of role (any role for "") that matches
// badRe; seen is whether one matches seenRe, the wording the row wants.
func matching(tr *record.Trajectory, role, badRe, seenRe string) (bad []string, seen bool) {
	badP, seenP := regexp.MustCompile(badRe), regexp.MustCompile(seenRe)
	for _, m := range tr.Messages {
		if role != "" && m.Role != role {
			continue
		}
		if badP.MatchString(m.Content) {
			bad = append(bad, m.Content)
		}
		seen = seen || seenP.MatchString(m.Content) || badP.MatchString(m.Content)
	}
	return bad, seen
}
