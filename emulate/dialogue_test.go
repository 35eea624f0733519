package emulate

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/verify"
)

func TestDialogueReplaysEmbeddedEngine(t *testing.T) {
	f := loadRetail(t)
	_, _, c := start(t, Options{})
	for i, bp := range f.bps[:12] {
		// Every other dialogue has no `user` field: the customer's
		// scenario and the agent's history must find the session.
		session := llm.SessionID(bp.ID, 0)
		if i%2 == 1 {
			session = ""
		}
		t.Run(bp.ID, func(t *testing.T) {
			want, err := embedded.Simulate(context.Background(), f.d, bp, maxTurns)
			if err != nil {
				t.Fatal(err)
			}
			got := drive(t, c, f, bp, session)
			if got.Ending != want.Ending || got.StateHash != want.StateHash {
				t.Errorf("ending %s in state %s, want %s in %s", got.Ending, got.StateHash, want.Ending, want.StateHash)
			}
			if !reflect.DeepEqual(got.Messages, want.Messages) {
				for i := range min(len(got.Messages), len(want.Messages)) {
					if !reflect.DeepEqual(got.Messages[i], want.Messages[i]) {
						t.Fatalf("message %d of %d/%d differs:\n got %+v\nwant %+v", i, len(got.Messages), len(want.Messages), got.Messages[i], want.Messages[i])
					}
				}
				t.Fatalf("%d messages, want %d", len(got.Messages), len(want.Messages))
			}
		})
	}
}

func TestMistakesMakeFlawedTrials(t *testing.T) {
	f := loadRetail(t)
	sch, err := schemas.Compile()
	if err != nil {
		t.Fatal(err)
	}
	ver := verify.ForDomain(f.d, sch)
	_, _, c := start(t, Options{MistakeRate: 1})
	differ, failed := 0, 0
	for i, bp := range f.bps[:12] {
		want, err := embedded.Simulate(context.Background(), f.d, bp, maxTurns)
		if err != nil {
			t.Fatal(err)
		}
		if v := ver.Verify(context.Background(), bp, want); !v.Passed {
			t.Fatalf("%s: the oracle's dialogue fails %s", bp.ID, v.Failed().Name)
		}
		got := drive(t, c, f, bp, llm.SessionID(bp.ID, i%3))
		if !reflect.DeepEqual(got.Messages, want.Messages) {
			differ++
		}
		if !ver.Verify(context.Background(), bp, got).Passed {
			failed++
		}
	}
	// A mistake is realistic when verification catches it.
	if differ < 6 || failed < 6 {
		t.Errorf("at mistake rate 1, %d of 12 dialogues differ from the oracle's and %d fail verification", differ, failed)
	}
}

func TestMistakeRateDecidesPerSession(t *testing.T) {
	f := loadRetail(t)
	s, _, _ := start(t, Options{MistakeRate: 0.5})
	bp := f.bps[0]
	flawed := map[bool]int{}
	for trial := range 16 {
		ss := s.sessions.register(llm.SessionID(bp.ID, trial), fmt.Sprint(trial), bp)
		rp, err := s.replayOf(context.Background(), ss)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := s.play(context.Background(), ss)
		if again.flaw != rp.flaw || !reflect.DeepEqual(again.agents, rp.agents) {
			t.Fatalf("trial %d: a second replay differs (flaw %q vs %q)", trial, again.flaw, rp.flaw)
		}
		flawed[rp.flaw != ""]++
	}
	if flawed[true] == 0 || flawed[false] == 0 {
		t.Errorf("at mistake rate 0.5, 16 trials split %v; want both flawed and clean trials", flawed)
	}
}

func TestDialoguesOfPacks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "helpdesk")
	if err := pack.Init(dir, "helpdesk"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, domain string
		opts         Options
		// share hands the test's domain to the server, sparing a second
		// load of a domain that takes seconds to build.
		share bool
	}{
		{"built-in airline", "airline", Options{}, true},
		{"pack directory", dir, Options{Domain: dir}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := newFixture(tc.domain, 5)
			if err != nil {
				t.Fatal(err)
			}
			s, _, c := start(t, tc.opts)
			if tc.share {
				s.domains.put(f.d.Name, 1, f.d)
			}
			for _, bp := range f.bps {
				want, err := embedded.Simulate(context.Background(), f.d, bp, maxTurns)
				if err != nil {
					t.Fatal(err)
				}
				got := drive(t, c, f, bp, llm.SessionID(bp.ID, 0))
				if got.Ending != want.Ending || !reflect.DeepEqual(got.Messages, want.Messages) {
					t.Errorf("%s: the emulated dialogue (%d messages, %s) differs from the embedded one (%d, %s)",
						bp.ID, len(got.Messages), got.Ending, len(want.Messages), want.Ending)
				}
			}
		})
	}
	// Without --domain the pack's blueprints are refused with a hint.
	f, err := newFixture(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, _, c := start(t, Options{})
	_, err = c.CreateChatCompletion(context.Background(), customerRequest(t, f.bps[0], "x/t0", nil))
	if err == nil || !strings.Contains(err.Error(), "--domain") {
		t.Errorf("a pack blueprint without --domain: %v", err)
	}
}

func TestUnknownToolCallsDoNotAdvanceReplay(t *testing.T) {
	f := loadRetail(t)
	_, _, c := start(t, Options{})
	bp := f.bps[0]
	session := llm.SessionID(bp.ID, 0)
	first := chat(t, c, customerRequest(t, bp, session, nil))
	history := []record.Message{{Role: "system", Content: f.d.Policy}, {Role: "user", Content: first}}
	want, err := c.CreateChatCompletion(context.Background(), agentRequest(f, session, history))
	if err != nil {
		t.Fatal(err)
	}
	fault := unknownToolCall(&chatRequest{User: session, Tools: []toolDef{{}}})
	call := fault.ToolCalls[0]
	if f.d.Tools.Kind(call.Function.Name) != "" {
		t.Fatalf("the injected tool %q exists", call.Function.Name)
	}
	res := f.d.Tools.Call(context.Background(), f.d.Base.NewState(), call.Function.Name, call.Function.Arguments)
	history = append(history, fromOpenAI(openai.ChatCompletionMessage{ToolCalls: fault.ToolCalls}),
		record.Message{Role: "tool", ToolCallID: call.ID, Name: call.Function.Name, Content: res.Output})
	got, err := c.CreateChatCompletion(context.Background(), agentRequest(f, session, history))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromOpenAI(got.Choices[0].Message), fromOpenAI(want.Choices[0].Message)) {
		t.Errorf("after an unknown-tool call the agent said %+v, want the reply it would have given %+v", got.Choices[0].Message, want.Choices[0].Message)
	}
}
