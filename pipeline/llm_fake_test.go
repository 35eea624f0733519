package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	openai "github.com/sashabaranov/go-openai"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/record"
)

// fakeLLM answers the LLM engines in process, as synth emulate does over
// HTTP: the customer and the agent replay the embedded dialogue of the
// blueprint (or a flawed one), the writer returns the template
// instruction reworded, judges accept, the refiner prefixes the line.
// Hooks change single replies to exercise the guards.
type fakeLLM struct {
	d *domains.Domain

	mu       sync.Mutex
	sessions map[string]*record.Trajectory
	requests atomic.Int64

	// flaw names the flaw the agent of a session plays ("" none).
	flaw func(session string) string
	// customer may replace the customer's k-th reply of a session.
	customer func(session string, k int, reply string) string
	// agent may replace the agent's k-th reply of a session.
	agent func(session string, k int, msg openai.ChatCompletionMessage) openai.ChatCompletionMessage
	// refine may replace a rewrite.
	refine func(line string, seed int) string
	// review answers a judge; nil accepts.
	review func(instruction string, seed int) string
	// budget makes every request after this many fail with ErrBudget (0: none).
	budget int64
}

func newFake(d *domains.Domain) *fakeLLM {
	return &fakeLLM{d: d, sessions: map[string]*record.Trajectory{}}
}

func reply(content string, calls ...openai.ToolCall) openai.ChatCompletionResponse {
	return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{
		Role: openai.ChatMessageRoleAssistant, Content: content, ToolCalls: calls}}},
		Usage: openai.Usage{PromptTokens: 10, CompletionTokens: len(content)/4 + 1, TotalTokens: 11 + len(content)/4}}
}

func (f *fakeLLM) Chat(ctx context.Context, role llm.Role, stage string, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	if n := f.requests.Add(1); f.budget > 0 && n > f.budget {
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
		return reply("In short: " + bp.Instruction), nil
	case strings.HasPrefix(system, llm.JudgeHeader):
		text, _ := llm.Between(last, "instruction")
		if f.review != nil {
			return reply(f.review(text, seed)), nil
		}
		return reply(`{"entails": true, "realistic": true, "feedback": ""}`), nil
	case strings.HasPrefix(system, llm.RefineHeader):
		line, _ := llm.Between(last, "line")
		if f.refine != nil {
			return reply(f.refine(line, seed)), nil
		}
		return reply("So, " + line), nil
	}
	return openai.ChatCompletionResponse{}, fmt.Errorf("fake: unexpected %s request", role)
}

// play returns the dialogue a session replays.
func (f *fakeLLM) play(ctx context.Context, session string, bp *record.Blueprint) (*record.Trajectory, error) {
	f.mu.Lock()
	tr, ok := f.sessions[session]
	f.mu.Unlock()
	if ok {
		return tr, nil
	}
	var err error
	if kind := f.flawOf(session); kind != "" {
		tr, _, err = SimulateFlawed(ctx, f.d, bp, 60, agent.Flaw{Kind: kind})
	} else {
		tr, err = Simulate(ctx, f.d, bp, 60)
	}
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.sessions[session] = tr
	f.mu.Unlock()
	return tr, nil
}

func (f *fakeLLM) flawOf(session string) string {
	if f.flaw == nil {
		return ""
	}
	return f.flaw(session)
}

func (f *fakeLLM) customerTurn(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	bp, err := llm.ParseScenario(req.Messages[0].Content)
	if err != nil {
		return openai.ChatCompletionResponse{}, err
	}
	tr, err := f.play(ctx, req.User, bp)
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
	if out == "" {
		out = llm.TokenStop
	}
	if k < len(users) {
		out = users[k]
	}
	if f.customer != nil {
		out = f.customer(req.User, k, out)
	}
	return reply(out), nil
}

func (f *fakeLLM) agentTurn(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
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
	if f.agent != nil {
		msg = f.agent(req.User, k, msg)
	}
	resp := reply(msg.Content)
	resp.Choices[0].Message = msg
	return resp, nil
}
