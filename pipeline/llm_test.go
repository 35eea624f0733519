package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/internal/testtree"
	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/verify"
)

// llmConfig is a small run on an LLM engine against the fake.
func llmConfig(t *testing.T, engine string, n int) Config {
	t.Helper()
	cfg := smallConfig(t, n)
	cfg.Engine = engine
	cfg.LLM = llm.Config{BaseURL: "http://fake.invalid/v1", Model: "fake-model", APIKeyEnv: llm.NoKey, Cache: llm.CacheOff}
	cfg.Instructions = "template"
	return cfg
}

// fixture is one domain with its generator and verifier.
type fixture struct {
	d   *domains.Domain
	gen blueprints.Generator
	ver *verify.Verifier
	cfg Config
}

func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	cfg = cfg.resolved()
	spec, err := cfg.Spec()
	if err != nil {
		t.Fatal(err)
	}
	d, err := domains.Load(cfg.Domain, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := blueprints.NewGeneric(d.Model, spec)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schemas.Compile()
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{d: d, gen: gen, ver: verify.New(d.Verify, sch), cfg: cfg}
}

func (fx *fixture) engine(t *testing.T, ch llm.Chatter) *llmEngine {
	t.Helper()
	e, err := newLLMEngine(fx.cfg, fx.d, fx.ver, ch)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// blueprint returns the first blueprint with at least minWrites writes.
func (fx *fixture) blueprint(t *testing.T, minWrites int) *record.Blueprint {
	t.Helper()
	for i := range 200 {
		bp, err := fx.gen.Generate(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		if bp.NWrites >= minWrites {
			return bp
		}
	}
	t.Fatalf("no blueprint with %d writes", minWrites)
	return nil
}

// The LLM engine with a faithful agent and customer reproduces the
// embedded dialogue message for message; a flawed first trial is
// rejected, labelled and paired with the verified second one.
func TestLLMRunTrials(t *testing.T) {
	cfg := llmConfig(t, EngineLLM, 24)
	cfg.DPO = true
	fx := newFixture(t, cfg)
	fake := newFake(fx.d)
	fake.flaw = func(session string) string {
		if strings.HasSuffix(session, "/t0") {
			return agent.FlawNoConfirmation
		}
		return ""
	}
	res, err := RunWith(context.Background(), cfg, nil, RunOptions{Chatter: fake})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	if m.Counts.Blueprints != 24 || m.Counts.SFTRows+m.Counts.Duplicates["exact"]+m.Counts.Duplicates["near"] != 24 {
		t.Fatalf("counts %+v: every blueprint passes by its second trial", m.Counts)
	}
	l := m.LLM
	if l == nil || l.Engine != EngineLLM || l.Models["agent"] != "fake-model" || l.Total.Responses == 0 || l.Usage["agent/simulate"] == nil {
		t.Fatalf("llm section %+v", l)
	}
	if l.TrialsToPass["2"] == 0 || l.TrialsToPass["1"]+l.TrialsToPass["2"] != 24 || l.TrialRuns["1"] != 24 {
		t.Errorf("trials %v runs %v", l.TrialsToPass, l.TrialRuns)
	}
	if m.Counts.Rejected != l.TrialsToPass["2"] || m.Counts.Simulated != 24+m.Counts.Rejected || m.Failures[verify.CheckConfirmation] != m.Counts.Rejected {
		t.Errorf("rejected %d, failures %v, simulated %d, trials %v", m.Counts.Rejected, m.Failures, m.Counts.Simulated, l.TrialsToPass)
	}
	if l.Failures[agent.FlawNoConfirmation] != m.Counts.Rejected {
		t.Errorf("failure labels %v", l.Failures)
	}
	if m.DPO == nil || m.DPO.Pairs == 0 || m.DPO.ByFailure[agent.FlawNoConfirmation] != m.DPO.Pairs {
		t.Errorf("dpo %+v", m.DPO)
	}
	// Passing dialogues are the embedded ones, word for word.
	rows := readSFT(t, cfg.Out, m)
	for _, r := range rows {
		var idx int
		fmt.Sscanf(r.BlueprintID[strings.LastIndex(r.BlueprintID, "-")+1:], "%d", &idx)
		bp, _ := fx.gen.Generate(context.Background(), idx)
		want, err := Simulate(context.Background(), fx.d, bp, 60)
		if err != nil {
			t.Fatal(err)
		}
		if r.Engine != EngineLLM || !reflect.DeepEqual(r.Messages, want.Messages) {
			t.Fatalf("%s: engine %s; messages differ from the embedded dialogue", r.ID, r.Engine)
		}
	}
}

func readSFT(t *testing.T, dir string, m *Manifest) []export.SFTRow {
	t.Helper()
	var out []export.SFTRow
	for _, f := range m.Files {
		if strings.HasPrefix(f.Path, "sft/") {
			rows, err := export.ReadSFT(filepath.Join(dir, f.Path))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, rows...)
		}
	}
	return out
}

// counter counts calls per key, for hooks that act on the n-th call.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) next(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[key]++
	return c.n[key] - 1
}

// confirmTurn is the customer reply (by count) that answers the first
// write's proposal.
func confirmTurn(t *testing.T, fx *fixture, bp *record.Blueprint) int {
	t.Helper()
	tr, err := Simulate(context.Background(), fx.d, bp, 60)
	if err != nil {
		t.Fatal(err)
	}
	k := -1
	for _, m := range tr.Messages {
		if m.Role == "user" {
			k++
		}
		for _, c := range m.ToolCalls {
			if fx.d.Tools.Kind(c.Function.Name) == record.KindWrite {
				return k
			}
		}
	}
	t.Fatal("no write")
	return 0
}

func TestLLMGuards(t *testing.T) {
	cfg := llmConfig(t, EngineLLM, 10)
	fx := newFixture(t, cfg)
	bp := fx.blueprint(t, 1)
	confirm := confirmTurn(t, fx, bp)
	cases := []struct {
		name  string
		setup func(f *fakeLLM)
		check func(t *testing.T, ep *episode, v record.Verdict)
	}{
		{"faithful", func(f *fakeLLM) {}, func(t *testing.T, ep *episode, v record.Verdict) {
			if !v.Passed || ep.label != "" || ep.tr.Ending != record.EndStop {
				t.Errorf("verdict %v label %q ending %s", v.Failed(), ep.label, ep.tr.Ending)
			}
		}},
		{"empty customer turn once", func(f *fakeLLM) {
			var c counter
			f.customer = func(s string, k int, r string) string {
				if k == 1 && c.next("k1") == 0 {
					return "   "
				}
				return r
			}
		}, func(t *testing.T, ep *episode, v record.Verdict) {
			if !v.Passed || ep.label != "" {
				t.Errorf("one empty turn is retried: verdict %v label %q", v.Failed(), ep.label)
			}
		}},
		{"empty customer turn twice", func(f *fakeLLM) {
			f.customer = func(s string, k int, r string) string {
				if k == 1 {
					return ""
				}
				return r
			}
		}, func(t *testing.T, ep *episode, v record.Verdict) {
			if v.Passed || ep.label != LabelEmptyTurn || ep.tr.Ending != record.EndMaxTurns {
				t.Errorf("verdict %v label %q ending %s", v.Passed, ep.label, ep.tr.Ending)
			}
		}},
		{"empty agent turn twice", func(f *fakeLLM) {
			f.agent = func(s string, k int, m openai.ChatCompletionMessage) openai.ChatCompletionMessage {
				if k == 0 {
					return openai.ChatCompletionMessage{Role: "assistant"}
				}
				return m
			}
		}, func(t *testing.T, ep *episode, v record.Verdict) {
			if v.Passed || ep.label != LabelEmptyTurn {
				t.Errorf("verdict %v label %q", v.Passed, ep.label)
			}
		}},
		{"premature stop", func(f *fakeLLM) {
			f.customer = func(s string, k int, r string) string {
				if k == confirm {
					return llm.TokenStop
				}
				return r
			}
		}, func(t *testing.T, ep *episode, v record.Verdict) {
			if v.Passed || ep.label != LabelPrematureStop || ep.tr.Ending != record.EndStop || !strings.Contains(ep.detail, bp.Actions[len(bp.Actions)-1].Tool) && ep.detail == "" {
				t.Errorf("verdict %v label %q ending %s detail %q", v.Passed, ep.label, ep.tr.Ending, ep.detail)
			}
		}},
		{"goodbye with the token", func(f *fakeLLM) {
			f.customer = func(s string, k int, r string) string {
				if r == llm.TokenStop {
					return "Thanks, bye! " + llm.TokenStop
				}
				return r
			}
		}, func(t *testing.T, ep *episode, v record.Verdict) {
			// The goodbye is a customer message the agent answers; the
			// fake agent has no reply left and errors, so the episode does.
		}},
		{"text with tool calls", func(f *fakeLLM) {
			f.agent = func(s string, k int, m openai.ChatCompletionMessage) openai.ChatCompletionMessage {
				if len(m.ToolCalls) > 0 && f.d.Tools.Kind(m.ToolCalls[0].Function.Name) == record.KindRead {
					m.Content = "Let me look that up."
				}
				return m
			}
		}, func(t *testing.T, ep *episode, v record.Verdict) {
			if ep.mixed == 0 || !v.Passed {
				t.Errorf("mixed %d verdict %v", ep.mixed, v.Failed())
			}
			for _, m := range ep.tr.Messages {
				if m.Content != "" && len(m.ToolCalls) > 0 {
					t.Fatal("text and tool calls in one message")
				}
			}
		}},
		{"bad call ids", func(f *fakeLLM) {
			f.agent = func(s string, k int, m openai.ChatCompletionMessage) openai.ChatCompletionMessage {
				for i := range m.ToolCalls {
					m.ToolCalls[i].ID = "call_0"
				}
				return m
			}
		}, func(t *testing.T, ep *episode, v record.Verdict) {
			if ep.fixedIDs == 0 || !v.Passed {
				t.Errorf("fixed %d verdict %v", ep.fixedIDs, v.Failed())
			}
		}},
		{"unknown tool", func(f *fakeLLM) {
			var c counter
			f.agent = func(s string, k int, m openai.ChatCompletionMessage) openai.ChatCompletionMessage {
				if k == 1 && c.next("k1") == 0 {
					return openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "abcdefghi", Type: "function",
						Function: openai.FunctionCall{Name: "delete_everything", Arguments: "{}"}}}}
				}
				return m
			}
		}, func(t *testing.T, ep *episode, v record.Verdict) {
			if ep.toolErrors != 1 || v.Passed || v.Failed().Name != verify.CheckToolSchema {
				t.Errorf("tool errors %d verdict %v", ep.toolErrors, v.Failed())
			}
			if got := FailureLabel(bp, ep.tr, v, fx.d.Tools.Kind); got != agent.FlawSchemaInvalid {
				t.Errorf("label %q", got)
			}
			found := false
			for _, m := range ep.tr.Messages {
				found = found || m.Role == "tool" && m.Name == "delete_everything" && strings.HasPrefix(m.Content, "Error: ")
			}
			if !found {
				t.Error("the unknown tool got no error observation")
			}
		}},
		{"malformed arguments", func(f *fakeLLM) {
			f.agent = func(s string, k int, m openai.ChatCompletionMessage) openai.ChatCompletionMessage {
				if len(m.ToolCalls) > 0 && k == 1 {
					m.ToolCalls[0].Function.Arguments = `{"email": "x`
				}
				return m
			}
		}, func(t *testing.T, ep *episode, v record.Verdict) {
			if ep.toolErrors == 0 || v.Passed {
				t.Errorf("tool errors %d verdict %v", ep.toolErrors, v.Passed)
			}
		}},
		{"too many tool errors", func(f *fakeLLM) {
			f.agent = func(s string, k int, m openai.ChatCompletionMessage) openai.ChatCompletionMessage {
				return openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "abcdefghi", Type: "function",
					Function: openai.FunctionCall{Name: "nope", Arguments: "{}"}}}}
			}
		}, func(t *testing.T, ep *episode, v record.Verdict) {
			if ep.toolErrors != 5 || ep.tr.Ending != record.EndMaxTurns || v.Passed {
				t.Errorf("tool errors %d ending %s", ep.toolErrors, ep.tr.Ending)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := newFake(fx.d)
			tc.setup(fake)
			e := fx.engine(t, fake)
			system, err := llm.UserPrompt(bp, behaviorOf(bp.Behavior))
			if err != nil {
				t.Fatal(err)
			}
			ep, err := e.play(context.Background(), fake, bp, 0, system)
			if tc.name == "goodbye with the token" {
				if err == nil && ep.tr.Ending != record.EndStop {
					t.Errorf("ending %s", ep.tr.Ending)
				}
				if err == nil {
					t.Error("the agent was not asked to answer the goodbye")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, ep, fx.ver.Verify(context.Background(), bp, ep.tr))
		})
	}
}

// The rule-based customer plays against an LLM agent that behaves as
// the oracle: it reads the agent's words and the dialogues verify.
func TestLLMEmbeddedUser(t *testing.T) {
	cfg := llmConfig(t, EngineLLM, 30)
	cfg.User = "embedded"
	fx := newFixture(t, cfg)
	// The oracle agent of the fake needs the session's dialogue, which the
	// embedded customer never registers: play it from the blueprint.
	fake := newFake(fx.d)
	e := fx.engine(t, fake)
	passed := 0
	for i := range 30 {
		bp, err := fx.gen.Generate(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		// The fake agent replays the embedded dialogue, which fits only if
		// the customer, reading the agent's words, says what the embedded
		// user said when handed the oracle's Asks.
		want, err := fake.play(context.Background(), llm.SessionID(bp.ID, 0), bp)
		if err != nil {
			t.Fatal(err)
		}
		ep, err := e.play(context.Background(), fake, bp, 0, "")
		if err != nil {
			t.Errorf("%s (%s): %v", bp.ID, bp.Behavior, err)
			continue
		}
		if v := fx.ver.Verify(context.Background(), bp, ep.tr); v.Passed && reflect.DeepEqual(ep.tr.Messages, want.Messages) {
			passed++
		}
	}
	if passed < 27 {
		t.Errorf("%d of 30 dialogues with the embedded customer verified and matched the embedded engine", passed)
	}
}

func TestParseCustomer(t *testing.T) {
	cases := []struct{ in, text, stop string }{
		{"I want to cancel my order.", "I want to cancel my order.", ""},
		{"###STOP###", "", llm.TokenStop},
		{"  Thanks, that's all! ###STOP###  ", "Thanks, that's all!", llm.TokenStop},
		{"Okay. ###TRANSFER###", "Okay.", llm.TokenTransfer},
		{"###OUT-OF-SCOPE###", "", llm.TokenOutOfScope},
		{"## stop ##", "", llm.TokenStop},
		{"bye ###out of scope###", "bye", llm.TokenOutOfScope},
		{"done ###STOP### and more text", "done", llm.TokenStop},
		{"", "", ""},
	}
	for _, tc := range cases {
		text, stop := parseCustomer(tc.in)
		if text != tc.text || stop != tc.stop {
			t.Errorf("parseCustomer(%q) = %q, %q; want %q, %q", tc.in, text, stop, tc.text, tc.stop)
		}
	}
}

func FuzzParseCustomer(f *testing.F) {
	for _, s := range []string{"hi", "###STOP###", "a ##transfer", "x ###OUT_OF_SCOPE### y", "####"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text, stop := parseCustomer(s)
		if strings.TrimSpace(text) != text || len(text) > len(s) {
			t.Fatalf("parseCustomer(%q) text %q", s, text)
		}
		if stop == "" && stopToken.MatchString(text) {
			t.Fatalf("parseCustomer(%q) left a token in %q", s, text)
		}
	})
}

func TestEntities(t *testing.T) {
	bp := &record.Blueprint{Persona: record.Persona{Name: "Mia Li", Known: map[string]string{"email": "mia.li@example.com", "zip": "80218"}},
		Goals: []record.Goal{{Target: record.Selector{Where: map[string]string{"status": "pending", "color": "navy"}},
			Slots: map[string]string{"reason": "no longer needed", "address1": "12 Elm St"}}}}
	values := blueprintValues(bp)
	cases := []struct {
		line string
		want []string
	}{
		{"Hi, I'm Mia Li and my email is mia.li@example.com.", []string{"Mia Li", "mia.li@example.com"}},
		{"Order #W1234567 is pending; the refund of $1,234.50 goes back.", []string{"#W1234567", "pending", "$1,234.50"}},
		{"Cancel it, it's no longer needed.", []string{"no longer needed"}},
		{"Ship it to 12 Elm St, zip 80218 please", []string{"12 Elm St", "80218"}},
		{"It was placed on 2024-05-01 at 10:22:00.", []string{"2024-05-01", "10:22:00"}},
		{"Pending items in the navyblue bag", nil},
		{"pay with gift_card_7 or credit_card_12", []string{"gift_card_7", "credit_card_12"}},
	}
	for _, tc := range cases {
		if got := Entities(tc.line, values); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Entities(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestAcceptRewrite(t *testing.T) {
	cases := []struct {
		speaker, orig, rewrite string
		ents                   []string
		want                   bool
	}{
		{"user", "Yes, go ahead.", "Yep, please go ahead with it.", nil, true},
		{"user", "Yes, go ahead.", "Hmm, wait, go ahead.", nil, false},
		{"user", "Cancel #W1.", "Please cancel #W1 for me.", []string{"#W1"}, true},
		{"user", "Cancel #W1.", "Please cancel it for me.", []string{"#W1"}, false},
		{"assistant", "Refund $3.20.", "You'll get $3.20 back.", []string{"$3.20"}, true},
		{"assistant", "Bye.", "", nil, false},
		{"user", "Thanks.", "Thanks ###STOP###", nil, false},
	}
	for _, tc := range cases {
		if got := acceptRewrite(tc.speaker, tc.orig, tc.rewrite, tc.ents); got != tc.want {
			t.Errorf("acceptRewrite(%q, %q, %q) = %v", tc.orig, tc.rewrite, tc.ents, got)
		}
	}
}

// Every label FailureLabel gives lists the failed check among the
// checks its flaw must fail, and the flawed agents' own mistakes map
// back to themselves where the trajectory shows them unambiguously.
func TestFailureLabel(t *testing.T) {
	cfg := smallConfig(t, 10)
	fx := newFixture(t, cfg)
	exact := map[string]bool{agent.FlawNoConfirmation: true, agent.FlawSchemaInvalid: true, agent.FlawUnauthenticated: true,
		agent.FlawOmitsOutput: true, agent.FlawUnnecessaryTransfer: true}
	got := map[string]int{}
	for i := range 120 {
		bp, err := fx.gen.Generate(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range agent.Flaws() {
			tr, fired, err := SimulateFlawed(context.Background(), fx.d, bp, 60, agent.Flaw{Kind: kind})
			if err != nil {
				t.Fatal(err)
			}
			v := fx.ver.Verify(context.Background(), bp, tr)
			if !fired || v.Passed {
				continue
			}
			label := FailureLabel(bp, tr, v, fx.d.Tools.Kind)
			if label == "" {
				continue
			}
			got[kind]++
			if !slices.Contains(Expected(label), v.Failed().Name) {
				t.Fatalf("%s: %s failed %s but is labelled %s", bp.ID, kind, v.Failed().Name, label)
			}
			if exact[kind] && label != kind {
				t.Errorf("%s: flaw %s (failed %s) labelled %s", bp.ID, kind, v.Failed().Name, label)
			}
		}
	}
	if len(got) < 6 {
		t.Errorf("labelled too few flaw kinds: %v", got)
	}
}

func TestHybrid(t *testing.T) {
	cfg := llmConfig(t, EngineHybrid, 20)
	fx := newFixture(t, cfg)
	fake := newFake(fx.d)
	// Every third rewrite loses its entities (and digits): rejected, retried.
	fake.refine = func(line string, seed int) string {
		if seed%3 == 0 {
			return "So, something."
		}
		return "So, " + line
	}
	res, err := RunWith(context.Background(), cfg, nil, RunOptions{Chatter: fake})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	r := m.LLM.Refine
	if r == nil || r.Lines == 0 || r.Kept == 0 || r.Kept+r.Rejected != r.Lines || r.Retries == 0 {
		t.Fatalf("refine stats %+v", r)
	}
	if m.Counts.Rejected != 0 || m.Counts.Verified != 20 {
		t.Fatalf("counts %+v", m.Counts)
	}
	rows := readSFT(t, cfg.Out, m)
	refined := 0
	for _, row := range rows {
		if row.Engine != EngineHybrid {
			t.Errorf("%s: engine %s", row.ID, row.Engine)
		}
		for _, msg := range row.Messages {
			if strings.HasPrefix(msg.Content, "So, ") {
				refined++
			}
		}
	}
	if refined == 0 {
		t.Error("no refined line in the release")
	}
}

func TestInstruct(t *testing.T) {
	cfg := llmConfig(t, EngineLLM, 5)
	cfg.Judges, cfg.Rewrites = 3, 2
	fx := newFixture(t, cfg)
	accept := `{"entails": true, "realistic": true}`
	reject := `{"entails": false, "realistic": true, "feedback": "name the order"}`
	cases := []struct {
		name   string
		review func(text string, seed int) string
		want   func(r *ReviewStats) bool
		kept   bool
	}{
		{"majority accepts", func(string, int) string { return accept }, func(r *ReviewStats) bool { return r.AcceptedFirst == 1 && r.Votes == 3 }, false},
		{"one judge rejects", func(_ string, seed int) string {
			if seed%3 == 0 {
				return reject
			}
			return accept
		}, func(r *ReviewStats) bool { return r.AcceptedFirst+r.AcceptedAfterRewrite == 1 }, false},
		{"rewritten after feedback", func(text string, _ int) string {
			if strings.Count(text, "In short") < 1 || !strings.HasPrefix(text, "In short") {
				return reject
			}
			return accept
		}, func(r *ReviewStats) bool { return r.AcceptedFirst == 1 }, false},
		{"never accepted", func(string, int) string { return reject }, func(r *ReviewStats) bool {
			return r.KeptTemplate == 1 && r.Rewrites == 2 && r.Votes == 9 && r.VotesFor == 0
		}, true},
		{"unreadable votes", func(string, int) string { return "looks fine to me" }, func(r *ReviewStats) bool {
			return r.KeptTemplate == 1 && r.UnreadableVotes == 9
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bp := fx.blueprint(t, 1)
			template := bp.Instruction
			fake := newFake(fx.d)
			fake.review = tc.review
			e := fx.engine(t, fake)
			st := &LLMStats{}
			if err := e.instruct(context.Background(), fake, bp, st); err != nil {
				t.Fatal(err)
			}
			if !tc.want(st.Review) {
				t.Errorf("review stats %+v", *st.Review)
			}
			if kept := bp.Instruction == template; kept != tc.kept {
				t.Errorf("instruction %q (template kept %v, want %v)", bp.Instruction, kept, tc.kept)
			}
		})
	}
}

// Results do not depend on how many dialogues run at once.
func TestLLMDeterministicAcrossDialogues(t *testing.T) {
	var trees []map[string]string
	for _, n := range []int{1, 16} {
		cfg := llmConfig(t, EngineLLM, 30)
		cfg.Dialogues = n
		cfg.Instructions = "llm"
		cfg.DPO = true
		fx := newFixture(t, cfg)
		fake := newFake(fx.d)
		fake.flaw = func(s string) string {
			if strings.HasSuffix(s, "/t0") && len(s)%2 == 0 {
				return agent.FlawWrongArgument
			}
			return ""
		}
		if _, err := RunWith(context.Background(), cfg, nil, RunOptions{Chatter: fake}); err != nil {
			t.Fatal(err)
		}
		trees = append(trees, testtree.Hashes(t, cfg.Out))
	}
	if !reflect.DeepEqual(trees[0], trees[1]) {
		t.Error("releases differ between --dialogues 1 and 16")
	}
}

func TestLLMBudgetStop(t *testing.T) {
	cfg := llmConfig(t, EngineLLM, 40)
	cfg.ChunkSize = 16
	fx := newFixture(t, cfg)
	fake := newFake(fx.d)
	fake.budget = 600
	res, err := RunWith(context.Background(), cfg, nil, RunOptions{Chatter: fake})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	if res.Stopped != StoppedBudget || m.Stopped != StoppedBudget || m.BlueprintsDone != res.Done || res.Done <= 0 || res.Done >= 40 {
		t.Fatalf("stopped %q/%q after %d (manifest %d)", res.Stopped, m.Stopped, res.Done, m.BlueprintsDone)
	}
	if m.Counts.Blueprints != res.Done {
		t.Errorf("blueprints %d, done %d", m.Counts.Blueprints, res.Done)
	}
	// A rerun with the budget lifted replaces the partial release.
	fake2 := newFake(fx.d)
	res2, err := RunWith(context.Background(), cfg, nil, RunOptions{Chatter: fake2})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Existing || res2.Manifest.Stopped != "" || res2.Manifest.Counts.Blueprints != 40 {
		t.Errorf("rerun: existing %v stopped %q blueprints %d", res2.Existing, res2.Manifest.Stopped, res2.Manifest.Counts.Blueprints)
	}
}

func TestLLMBudgetBeforeAnything(t *testing.T) {
	cfg := llmConfig(t, EngineLLM, 5)
	fx := newFixture(t, cfg)
	fake := newFake(fx.d)
	fake.budget = 1
	_, err := RunWith(context.Background(), cfg, nil, RunOptions{Chatter: fake})
	if !errors.Is(err, llm.ErrBudget) || !strings.Contains(err.Error(), "nothing to release") {
		t.Fatalf("err %v", err)
	}
}

func TestLLMConfig(t *testing.T) {
	base := llmConfig(t, EngineLLM, 10).resolved()
	fp := base.Fingerprint()
	for name, change := range map[string]func(c *Config){
		"max cost":        func(c *Config) { c.LLM.MaxCost = 3 },
		"max tokens":      func(c *Config) { c.LLM.MaxTokens = 1000 },
		"cache":           func(c *Config) { c.LLM.Cache = "/elsewhere" },
		"concurrency":     func(c *Config) { c.LLM.MaxConcurrency = 7 },
		"dialogues":       func(c *Config) { c.Dialogues = 3 },
		"base url":        func(c *Config) { c.LLM.BaseURL = "http://other:1/v1" },
		"api key env":     func(c *Config) { c.LLM.APIKeyEnv = "OTHER_KEY" },
		"headers":         func(c *Config) { c.LLM.Headers = map[string]string{"X-Team": "a"} },
		"workers and out": func(c *Config) { c.Workers, c.Out = 3, "/x" },
	} {
		c := base
		change(&c)
		if c.resolved().Fingerprint() != fp {
			t.Errorf("%s changes the fingerprint", name)
		}
	}
	for name, change := range map[string]func(c *Config){
		"model":  func(c *Config) { c.LLM.Roles = map[llm.Role]llm.RoleConfig{llm.Agent: {Model: "other"}} },
		"trials": func(c *Config) { c.Trials = 5 },
		"judges": func(c *Config) { c.Judges = 0 },
		"user":   func(c *Config) { c.User = "embedded" },
	} {
		c := base
		change(&c)
		if c.resolved().Fingerprint() == fp {
			t.Errorf("%s does not change the fingerprint", name)
		}
	}
	emb := smallConfig(t, 10).outputConfig()
	for _, k := range llmKeys {
		if _, ok := emb[k]; ok {
			t.Errorf("embedded config records %s", k)
		}
	}
	raw, _ := json.Marshal(base.outputConfig())
	for _, k := range []string{"base_url", "api_key_env", "cache", "max_concurrency", "dialogues"} {
		if strings.Contains(string(raw), `"`+k+`"`) {
			t.Errorf("recorded config holds %s: %s", k, raw)
		}
	}
	bad := []struct {
		change func(c *Config)
		want   string
	}{
		{func(c *Config) { c.Engine = "gpt" }, "want embedded, llm or hybrid"},
		{func(c *Config) { c.User = "robot" }, "--user"},
		{func(c *Config) { c.Engine, c.User = EngineHybrid, "embedded" }, "--user embedded"},
		{func(c *Config) { c.Trials = 0 }, "--trials"},
		{func(c *Config) { c.Judges = -1 }, "--judges"},
		{func(c *Config) { c.Instructions = "magic" }, "--instructions"},
		{func(c *Config) { c.LLM.BaseURL = "" }, "llm.base_url"},
		{func(c *Config) { c.Engine, c.DPO = EngineHybrid, true }, "--dpo with --engine hybrid"},
		{func(c *Config) { c.Engine, c.Instructions = EngineEmbedded, "llm" }, "--instructions llm"},
	}
	for _, tc := range bad {
		c := llmConfig(t, EngineLLM, 10)
		tc.change(&c)
		c = c.resolved()
		if _, err := c.Spec(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func FuzzEntities(f *testing.F) {
	for _, s := range []string{"Order #W1 costs $3.50", "mia@x.io, 2024-01-02 10:00", "", "$", "@@..", "Mia Li pending"} {
		f.Add(s)
	}
	values := []string{"Mia Li", "pending", "12 Elm St", "$"}
	f.Fuzz(func(t *testing.T, line string) {
		for _, e := range Entities(line, values) {
			if e == "" || !strings.Contains(line, e) {
				t.Fatalf("Entities(%q) gave %q, not in the line", line, e)
			}
		}
	})
}
