package llm

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/dpo"
	"github.com/synth-data/synth/engine"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/internal/testplay"
	client "github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/verify"
)

// fixture is retail with its generator and verifier.
func fixture(t *testing.T) *testplay.Fixture {
	t.Helper()
	fx, err := testplay.NewFixture("retail", 1)
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

// newEngine is the LLM engine on a fixture with the run defaults; an
// embedded user plays the customer when embeddedUser is set.
func newEngine(t *testing.T, fx *testplay.Fixture, ch client.Chatter, embeddedUser bool) *Engine {
	t.Helper()
	opts := Options{MaxTurns: 60, Trials: 3, MaxToolErrors: 5, User: "llm", Workers: 2, Dialogues: 2}
	if embeddedUser {
		opts.User = "embedded"
	}
	e, err := New(fx.D, fx.Ver, ch, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// blueprint returns the first blueprint with at least minWrites writes.
func blueprint(t *testing.T, fx *testplay.Fixture, minWrites int) *record.Blueprint {
	t.Helper()
	for i := range 200 {
		bp, err := fx.Gen.Generate(context.Background(), i)
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
func confirmTurn(t *testing.T, fx *testplay.Fixture, bp *record.Blueprint) int {
	t.Helper()
	tr, err := embedded.Simulate(context.Background(), fx.D, bp, 60)
	if err != nil {
		t.Fatal(err)
	}
	k := -1
	for _, m := range tr.Messages {
		if m.Role == "user" {
			k++
		}
		for _, c := range m.ToolCalls {
			if fx.D.Tools.Kind(c.Function.Name) == record.KindWrite {
				return k
			}
		}
	}
	t.Fatal("no write")
	return 0
}

func TestLLMGuards(t *testing.T) {
	fx := fixture(t)
	bp := blueprint(t, fx, 1)
	confirm := confirmTurn(t, fx, bp)
	cases := []struct {
		name  string
		setup func(f *testplay.FakeLLM)
		check func(t *testing.T, ep *episode, v record.Verdict)
	}{
		{"faithful", func(f *testplay.FakeLLM) {}, func(t *testing.T, ep *episode, v record.Verdict) {
			if !v.Passed || ep.label != "" || ep.tr.Ending != record.EndStop {
				t.Errorf("verdict %v label %q ending %s", v.Failed(), ep.label, ep.tr.Ending)
			}
		}},
		{"empty customer turn once", func(f *testplay.FakeLLM) {
			var c counter
			f.Customer = func(s string, k int, r string) string {
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
		{"empty customer turn twice", func(f *testplay.FakeLLM) {
			f.Customer = func(s string, k int, r string) string {
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
		{"empty agent turn twice", func(f *testplay.FakeLLM) {
			f.Agent = func(s string, k int, m openai.ChatCompletionMessage) openai.ChatCompletionMessage {
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
		{"premature stop", func(f *testplay.FakeLLM) {
			f.Customer = func(s string, k int, r string) string {
				if k == confirm {
					return client.TokenStop
				}
				return r
			}
		}, func(t *testing.T, ep *episode, v record.Verdict) {
			if v.Passed || ep.label != LabelPrematureStop || ep.tr.Ending != record.EndStop || !strings.Contains(ep.detail, bp.Actions[len(bp.Actions)-1].Tool) && ep.detail == "" {
				t.Errorf("verdict %v label %q ending %s detail %q", v.Passed, ep.label, ep.tr.Ending, ep.detail)
			}
		}},
		{"goodbye with the token", func(f *testplay.FakeLLM) {
			f.Customer = func(s string, k int, r string) string {
				if r == client.TokenStop {
					return "Thanks, bye! " + client.TokenStop
				}
				return r
			}
		}, func(t *testing.T, ep *episode, v record.Verdict) {
			// The goodbye is a customer message the agent answers; the
			// fake agent has no reply left and errors, so the episode does.
		}},
		{"text with tool calls", func(f *testplay.FakeLLM) {
			f.Agent = func(s string, k int, m openai.ChatCompletionMessage) openai.ChatCompletionMessage {
				if len(m.ToolCalls) > 0 && fx.D.Tools.Kind(m.ToolCalls[0].Function.Name) == record.KindRead {
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
		{"bad call ids", func(f *testplay.FakeLLM) {
			f.Agent = func(s string, k int, m openai.ChatCompletionMessage) openai.ChatCompletionMessage {
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
		{"unknown tool", func(f *testplay.FakeLLM) {
			var c counter
			f.Agent = func(s string, k int, m openai.ChatCompletionMessage) openai.ChatCompletionMessage {
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
			if got := dpo.FailureLabel(bp, ep.tr, v, fx.D.Tools.Kind); got != agent.FlawSchemaInvalid {
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
		{"malformed arguments", func(f *testplay.FakeLLM) {
			f.Agent = func(s string, k int, m openai.ChatCompletionMessage) openai.ChatCompletionMessage {
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
		{"too many tool errors", func(f *testplay.FakeLLM) {
			f.Agent = func(s string, k int, m openai.ChatCompletionMessage) openai.ChatCompletionMessage {
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
			fake := testplay.NewFake(fx.D)
			tc.setup(fake)
			e := newEngine(t, fx, fake, false)
			system, err := client.UserPrompt(bp, BehaviorOf(bp.Behavior))
			if err != nil {
				t.Fatal(err)
			}
			ep, err := e.play(context.Background(), fake, bp, 0, system, nil)
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
			tc.check(t, ep, fx.Ver.Verify(context.Background(), bp, ep.tr))
		})
	}
}

// The rule-based customer plays against an LLM agent that behaves as
// the oracle: it reads the agent's words and the dialogues verify.
func TestLLMEmbeddedUser(t *testing.T) {
	fx := fixture(t)
	// The oracle agent of the fake needs the session's dialogue, which the
	// embedded customer never registers: play it from the blueprint.
	fake := testplay.NewFake(fx.D)
	e := newEngine(t, fx, fake, true)
	passed := 0
	for i := range 30 {
		bp, err := fx.Gen.Generate(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		// The fake agent replays the embedded dialogue, which fits only if
		// the customer, reading the agent's words, says what the embedded
		// user said when handed the oracle's Asks.
		want, err := fake.Play(context.Background(), client.SessionID(bp.ID, 0), bp)
		if err != nil {
			t.Fatal(err)
		}
		ep, err := e.play(context.Background(), fake, bp, 0, "", nil)
		if err != nil {
			t.Errorf("%s (%s): %v", bp.ID, bp.Behavior, err)
			continue
		}
		if v := fx.Ver.Verify(context.Background(), bp, ep.tr); v.Passed && reflect.DeepEqual(ep.tr.Messages, want.Messages) {
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
		{"###STOP###", "", client.TokenStop},
		{"  Thanks, that's all! ###STOP###  ", "Thanks, that's all!", client.TokenStop},
		{"Okay. ###TRANSFER###", "Okay.", client.TokenTransfer},
		{"###OUT-OF-SCOPE###", "", client.TokenOutOfScope},
		{"## stop ##", "", client.TokenStop},
		{"bye ###out of scope###", "bye", client.TokenOutOfScope},
		{"done ###STOP### and more text", "done", client.TokenStop},
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

func TestInstruct(t *testing.T) {
	fx := fixture(t)
	accept := `{"entails": true, "realistic": true}`
	reject := `{"entails": false, "realistic": true, "feedback": "name the order"}`
	cases := []struct {
		name   string
		review func(text string, seed int) string
		want   func(r *engine.ReviewStats) bool
		kept   bool
	}{
		{"majority accepts", func(string, int) string { return accept }, func(r *engine.ReviewStats) bool { return r.AcceptedFirst == 1 && r.Votes == 3 }, false},
		{"one judge rejects", func(_ string, seed int) string {
			if seed%3 == 0 {
				return reject
			}
			return accept
		}, func(r *engine.ReviewStats) bool { return r.AcceptedFirst+r.AcceptedAfterRewrite == 1 }, false},
		{"rewritten after feedback", func(text string, _ int) string {
			if strings.Count(text, "In short") < 1 || !strings.HasPrefix(text, "In short") {
				return reject
			}
			return accept
		}, func(r *engine.ReviewStats) bool { return r.AcceptedFirst == 1 }, false},
		{"never accepted", func(string, int) string { return reject }, func(r *engine.ReviewStats) bool {
			return r.KeptTemplate == 1 && r.Rewrites == 2 && r.Votes == 9 && r.VotesFor == 0
		}, true},
		{"unreadable votes", func(string, int) string { return "looks fine to me" }, func(r *engine.ReviewStats) bool {
			return r.KeptTemplate == 1 && r.UnreadableVotes == 9
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bp := blueprint(t, fx, 1)
			template := bp.Instruction
			fake := testplay.NewFake(fx.D)
			fake.Review = tc.review
			st := &engine.LLMStats{}
			if err := (Writer{Judges: 3, Rewrites: 2}).Instruct(context.Background(), fake, bp, st); err != nil {
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
