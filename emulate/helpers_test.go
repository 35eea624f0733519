package emulate

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// retail is the built-in domain at seed 1 with its first blueprints,
// built once for all tests.
var retail = sync.OnceValues(func() (*fixture, error) { return newFixture("retail", 24) })

// newFixture loads a domain (a name or a pack directory) at seed 1 with
// its first n blueprints.
func newFixture(domain string, n int) (*fixture, error) {
	d, err := domains.Load(domain, 1)
	if err != nil {
		return nil, err
	}
	cfg := pipeline.Defaults()
	spec, err := cfg.Spec()
	if err != nil {
		return nil, err
	}
	gen, err := blueprints.NewGeneric(d.Model, spec)
	if err != nil {
		return nil, err
	}
	f := &fixture{d: d}
	for i := range n {
		bp, err := gen.Generate(context.Background(), i)
		if err != nil {
			return nil, err
		}
		f.bps = append(f.bps, bp)
	}
	if err := json.Unmarshal([]byte(d.Tools.OpenAI()), &f.tools); err != nil {
		return nil, err
	}
	return f, nil
}

type fixture struct {
	d     *domain.Domain
	bps   []*record.Blueprint
	tools []openai.Tool
}

func loadRetail(t testing.TB) *fixture {
	t.Helper()
	f, err := retail()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// start serves a new emulator over real HTTP and returns a go-openai
// client for it.
func start(t testing.TB, opts Options) (*Server, *httptest.Server, *openai.Client) {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	cfg := openai.DefaultConfig("sk-test")
	cfg.BaseURL = ts.URL + "/v1"
	return s, ts, openai.NewClientWithConfig(cfg)
}

// customerRequest is the request synth's LLM engine sends for the
// customer's next line: the scenario prompt, the kickoff, and the
// dialogue seen from the customer's side (tool traffic left out).
func customerRequest(t testing.TB, bp *record.Blueprint, session string, msgs []record.Message) openai.ChatCompletionRequest {
	t.Helper()
	sys, err := llm.UserPrompt(bp, bp.Behavior)
	if err != nil {
		t.Fatal(err)
	}
	req := openai.ChatCompletionRequest{Model: "user-model", User: session, Messages: []openai.ChatCompletionMessage{
		{Role: "system", Content: sys}, {Role: "user", Content: llm.Kickoff}}}
	for _, m := range msgs {
		switch {
		case m.Role == "user":
			req.Messages = append(req.Messages, openai.ChatCompletionMessage{Role: "assistant", Content: m.Content})
		case m.Role == "assistant" && m.Content != "":
			req.Messages = append(req.Messages, openai.ChatCompletionMessage{Role: "user", Content: m.Content})
		}
	}
	return req
}

// agentRequest is the request for the agent's next message.
func agentRequest(f *fixture, session string, msgs []record.Message) openai.ChatCompletionRequest {
	req := openai.ChatCompletionRequest{Model: "agent-model", User: session, Tools: f.tools}
	for _, m := range msgs {
		om := openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ReasoningContent: m.ReasoningContent, ToolCallID: m.ToolCallID, Name: m.Name}
		for _, c := range m.ToolCalls {
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{ID: c.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: c.Function.Name, Arguments: c.Function.Arguments}})
		}
		req.Messages = append(req.Messages, om)
	}
	return req
}

// fromOpenAI turns a reply into a trajectory message.
func fromOpenAI(m openai.ChatCompletionMessage) record.Message {
	out := record.Message{Role: "assistant", Content: m.Content, ReasoningContent: m.ReasoningContent}
	for _, c := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, record.ToolCall{ID: c.ID, Type: string(c.Type),
			Function: record.FunctionCall{Name: c.Function.Name, Arguments: c.Function.Arguments}})
	}
	return out
}

// drive plays one dialogue against the emulator the way the LLM engine
// does: customer turn, then agent turns (executing its tool calls) until
// it speaks, until the customer sends a stop token.
func drive(t testing.TB, c *openai.Client, f *fixture, bp *record.Blueprint, session string) *record.Trajectory {
	t.Helper()
	ctx := context.Background()
	st := f.d.Base.NewState()
	st.Inject(tools.FaultsOf(bp.Failures))
	tr := &record.Trajectory{ID: bp.ID, BlueprintID: bp.ID, Domain: bp.Domain, Engine: "llm", Behavior: bp.Behavior,
		Messages: []record.Message{{Role: "system", Content: f.d.Policy}}, Ending: record.EndMaxTurns}
	defer func() { tr.StateHash = st.Hash() }()
	for turn := 0; turn < 60; turn++ {
		res, err := c.CreateChatCompletion(ctx, customerRequest(t, bp, session, tr.Messages[1:]))
		if err != nil {
			t.Fatalf("customer turn %d: %v", turn, err)
		}
		text := res.Choices[0].Message.Content
		switch text {
		case llm.TokenStop:
			tr.Ending = record.EndStop
		case llm.TokenTransfer:
			tr.Ending = record.EndTransfer
		case llm.TokenOutOfScope:
			tr.Ending = record.EndOutScope
		}
		if tr.Ending != record.EndMaxTurns {
			return tr
		}
		if strings.Contains(text, "###") || text == "" {
			t.Fatalf("customer turn %d: %q", turn, text)
		}
		tr.Messages = append(tr.Messages, record.Message{Role: "user", Content: text})
		for step := 0; ; step++ {
			if step > 64 {
				t.Fatalf("agent made no progress after %d steps", step)
			}
			res, err := c.CreateChatCompletion(ctx, agentRequest(f, session, tr.Messages))
			if err != nil {
				t.Fatalf("agent turn %d step %d: %v", turn, step, err)
			}
			m := fromOpenAI(res.Choices[0].Message)
			tr.Messages = append(tr.Messages, m)
			if len(m.ToolCalls) == 0 {
				break
			}
			for _, call := range m.ToolCalls {
				r := f.d.Tools.Call(ctx, st, call.Function.Name, call.Function.Arguments)
				tr.Messages = append(tr.Messages, record.Message{Role: "tool", ToolCallID: call.ID, Name: call.Function.Name, Content: r.Output})
			}
		}
	}
	return tr
}
