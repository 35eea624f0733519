package testplay

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	openai "github.com/sashabaranov/go-openai"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/record"
)

// FakeLLM answers the LLM engines in process, as synth emulate does over
// HTTP: the customer and the agent replay the embedded dialogue of the
// blueprint (or a flawed one), the writer returns the template
// instruction reworded, judges accept, the refiner prefixes the line.
// Hooks change single replies to exercise the guards.
type FakeLLM struct {
	d *domain.Domain

	mu       sync.Mutex
	sessions map[string]*record.Trajectory
	requests atomic.Int64 // requests answered, see Requests

	// Flaw names the flaw the agent of a session plays ("" none).
	Flaw func(session string) string
	// Customer may replace the customer's k-th reply of a session.
	Customer func(session string, k int, reply string) string
	// Agent may replace the agent's k-th reply of a session.
	Agent func(session string, k int, msg openai.ChatCompletionMessage) openai.ChatCompletionMessage
	// Refine may replace a rewrite.
	Refine func(line string, seed int) string
	// Review answers a judge; nil accepts.
	Review func(instruction string, seed int) string
	// Budget makes every request after this many fail with ErrBudget (0: none).
	Budget int64
}

// NewFake answers for the dialogues of d.
func NewFake(d *domain.Domain) *FakeLLM {
	return &FakeLLM{d: d, sessions: map[string]*record.Trajectory{}}
}

// Reply is a response with content and tool calls, its usage made up.
func Reply(content string, calls ...openai.ToolCall) openai.ChatCompletionResponse {
	return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{
		Role: openai.ChatMessageRoleAssistant, Content: content, ToolCalls: calls}}},
		Usage: openai.Usage{PromptTokens: 10, CompletionTokens: len(content)/4 + 1, TotalTokens: 11 + len(content)/4}}
}

// Chat answers a request as the role it is for.
func (f *FakeLLM) Chat(ctx context.Context, role llm.Role, stage string, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	if n := f.requests.Add(1); f.Budget > 0 && n > f.Budget {
		return openai.ChatCompletionResponse{}, fmt.Errorf("fake: %w", llm.ErrBudget)
	}
	if err := ctx.Err(); err != nil {
		return openai.ChatCompletionResponse{}, err
	}
	system := req.Messages[0].Content
	last := req.Messages[len(req.Messages)-1].Content
	seed := 0
	if req.Seed != nil {
		seed = *req.Seed
	}
	switch {
	case role == llm.User:
		return f.customerTurn(ctx, req)
	case role == llm.Agent:
		return f.agentTurn(req)
	case strings.HasPrefix(system, llm.WriterHeader):
		raw, _ := llm.Between(last, "blueprint")
		var bp record.Blueprint
		if err := json.Unmarshal([]byte(raw), &bp); err != nil {
			return openai.ChatCompletionResponse{}, err
		}
		return Reply("In short: " + bp.Instruction), nil
	case strings.HasPrefix(system, llm.JudgeHeader):
		text, _ := llm.Between(last, "instruction")
		if f.Review != nil {
			return Reply(f.Review(text, seed)), nil
		}
		return Reply(`{"entails": true, "realistic": true, "feedback": ""}`), nil
	case strings.HasPrefix(system, llm.RefineHeader):
		line, _ := llm.Between(last, "line")
		if f.Refine != nil {
			return Reply(f.Refine(line, seed)), nil
		}
		return Reply("So, " + line), nil
	}
	return openai.ChatCompletionResponse{}, fmt.Errorf("fake: unexpected %s request", role)
}

// Play returns the dialogue a session replays.
func (f *FakeLLM) Play(ctx context.Context, session string, bp *record.Blueprint) (*record.Trajectory, error) {
	f.mu.Lock()
	tr, ok := f.sessions[session]
	f.mu.Unlock()
	if ok {
		return tr, nil
	}
	var err error
	if kind := f.flawOf(session); kind != "" {
		tr, _, err = embedded.SimulateFlawed(ctx, f.d, bp, 60, agent.Flaw{Kind: kind})
	} else {
		tr, err = embedded.Simulate(ctx, f.d, bp, 60)
	}
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.sessions[session] = tr
	f.mu.Unlock()
	return tr, nil
}

func (f *FakeLLM) flawOf(session string) string {
	if f.Flaw == nil {
		return ""
	}
	return f.Flaw(session)
}

func (f *FakeLLM) customerTurn(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	bp, err := llm.ParseScenario(req.Messages[0].Content)
	if err != nil {
		return openai.ChatCompletionResponse{}, err
	}
	tr, err := f.Play(ctx, req.User, bp)
	if err != nil {
		return openai.ChatCompletionResponse{}, err
	}
	k := 0
	for _, m := range req.Messages[2:] {
		if m.Role == openai.ChatMessageRoleAssistant {
			k++
		}
	}
	var users []string
	for _, m := range tr.Messages {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	out := map[string]string{record.EndStop: llm.TokenStop, record.EndTransfer: llm.TokenTransfer, record.EndOutScope: llm.TokenOutOfScope}[tr.Ending]
	out = cmp.Or(out, llm.TokenStop)
	if k < len(users) {
		out = users[k]
	}
	if f.Customer != nil {
		out = f.Customer(req.User, k, out)
	}
	return Reply(out), nil
}

func (f *FakeLLM) agentTurn(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	f.mu.Lock()
	tr, ok := f.sessions[req.User]
	f.mu.Unlock()
	if !ok {
		return openai.ChatCompletionResponse{}, fmt.Errorf("fake: agent request for unknown session %q", req.User)
	}
	known := map[string]bool{}
	for _, t := range req.Tools {
		known[t.Function.Name] = true
	}
	// Count the agent's replies so far, as the emulator does: a reply
	// that called an unknown tool (an injected fault) does not count,
	// and text split off tool calls is one reply with them.
	k := 0
	for i, m := range req.Messages {
		if m.Role != openai.ChatMessageRoleAssistant {
			continue
		}
		if len(m.ToolCalls) > 0 && !known[m.ToolCalls[0].Function.Name] {
			continue
		}
		if m.Content != "" && len(m.ToolCalls) == 0 && i+1 < len(req.Messages) && len(req.Messages[i+1].ToolCalls) > 0 {
			continue
		}
		k++
	}
	var replies []record.Message
	for _, m := range tr.Messages {
		if m.Role == "assistant" {
			replies = append(replies, m)
		}
	}
	if k >= len(replies) {
		return openai.ChatCompletionResponse{}, fmt.Errorf("fake: session %s has %d agent replies, asked for reply %d", req.User, len(replies), k+1)
	}
	m := replies[k]
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: m.Content, ReasoningContent: m.ReasoningContent}
	for _, c := range m.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{ID: c.ID, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: c.Function.Name, Arguments: c.Function.Arguments}})
	}
	if f.Agent != nil {
		msg = f.Agent(req.User, k, msg)
	}
	resp := Reply(msg.Content)
	resp.Choices[0].Message = msg
	return resp, nil
}

// Requests counts the requests answered so far.
func (f *FakeLLM) Requests() int64 { return f.requests.Load() }
