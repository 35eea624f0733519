package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/serve"
)

// The names a client calls besides the domain's tools. Prompts and
// resources have namespaces of their own, so no domain tool can take
// them.
const (
	PromptReset = "reset"
	PromptSay   = "say"
	// EpisodeURI is the resource of the episode: its dialogue, and once
	// it has ended its verdict and rewards (serve.SessionView).
	EpisodeURI = "synth://episode"
	// metaStep is the _meta key of a call's step score.
	metaStep = "synth/step"
)

// protocolVersions are the revisions served: those with a session. The
// 2026-07-28 revision is sessionless, and an episode is state that
// lives from one call to the next.
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Options configure a server.
type Options struct {
	// Start is the first episode: a domain, seed and index, or a release
	// and blueprint id, as POST /v1/sessions takes them. A reset that
	// names nothing starts it again; its arguments change the index,
	// the seed or the blueprint.
	Start serve.ResetRequest
	// Version is synth's, for the server's implementation info.
	Version string
	Logger  *slog.Logger
}

// Server is one client's MCP server: one episode at a time.
type Server struct {
	env  *serve.Server
	opts Options
	sdk  *sdk.Server
	log  *slog.Logger

	mu    sync.Mutex
	start serve.ResetRequest
	x     *serve.Session
	tools []string // the registered tools' names, in order
}

// New opens the first episode on env and makes its server; an episode
// that cannot be opened (a bad domain, a full server) fails here.
func New(ctx context.Context, env *serve.Server, opts Options) (*Server, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{env: env, opts: opts, log: log, start: opts.Start}
	x, resp, err := env.Open(ctx, opts.Start)
	if err != nil {
		return nil, err
	}
	version := opts.Version
	version = cmp.Or(version, "dev")
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "synth-" + resp.Domain, Title: "synth environment: " + resp.Domain, Version: version},
		&sdk.ServerOptions{
			// The domain policy: clients put instructions in the system
			// message, where synth's own dialogues have it.
			Instructions: resp.System, Logger: log, SupportedProtocolVersions: protocolVersions,
			HasTools: true, HasPrompts: true, HasResources: true,
			// The episode ends with the session (a client gone, an
			// HTTP session closed or timed out).
			InitializedHandler: func(_ context.Context, req *sdk.InitializedRequest) {
				go func() {
					_ = req.Session.Wait()
					s.Close()
				}()
			},
		})
	s.sdk.AddReceivingMiddleware(s.route)
	s.sdk.AddPrompt(&sdk.Prompt{Name: PromptReset, Title: "Reset the episode",
		Description: "Start a fresh episode on a fresh copy of the domain's database and return the customer's first message. " +
			"Without arguments the same task starts again; index (a blueprint's place in synth run's output), seed or blueprint_id (a release's) pick another.",
		Arguments: []*sdk.PromptArgument{
			{Name: "index", Description: "the blueprint's index in the run of this domain and seed (0 is the first)"},
			{Name: "seed", Description: "the run seed (synth run --seed)"},
			{Name: "blueprint_id", Description: "a blueprint of the release the server was started on"},
		}}, s.reset)
	s.sdk.AddPrompt(&sdk.Prompt{Name: PromptSay, Title: "Say to the customer",
		Description: "Send the agent's message to the customer and return the customer's answer (none when the dialogue has ended; read " + EpisodeURI + " for its verdict and rewards).",
		Arguments:   []*sdk.PromptArgument{{Name: "message", Description: "what the agent says", Required: true}}}, s.say)
	s.sdk.AddResource(&sdk.Resource{URI: EpisodeURI, Name: "episode", MIMEType: "application/json",
		Description: "The episode: its dialogue, step labels and rewards, and once it has ended the verifier's verdict and the outcome reward (as GET /v1/sessions/{id} of synth serve)."},
		s.episode)
	if err := s.setEpisode(x); err != nil {
		x.Close()
		return nil, err
	}
	return s, nil
}

// SDK is the server as the MCP SDK runs it, for a transport of the
// caller's (Run serves stdio; tests connect in memory).
func (s *Server) SDK() *sdk.Server { return s.sdk }

// Run serves one session on t until it ends or ctx does, then closes
// the episode.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	defer s.Close()
	return s.sdk.Run(ctx, t)
}

// Close ends the episode.
func (s *Server) Close() {
	s.mu.Lock()
	x := s.x
	s.mu.Unlock()
	if x != nil {
		x.Close()
	}
}

// setEpisode makes x the episode, registering its tools when they are
// not the ones registered (a blueprint of a large domain is offered a
// subset), so that clients are told the list changed.
func (s *Server) setEpisode(x *serve.Session) error {
	list, err := x.Tools()
	if err != nil {
		return err
	}
	names := make([]string, len(list))
	for i, t := range list {
		names[i] = t.Name
	}
	s.mu.Lock()
	old, prev := s.x, s.tools
	s.x, s.tools = x, names
	s.mu.Unlock()
	if old != nil {
		old.Close()
	}
	if slices.Equal(names, prev) {
		return nil
	}
	gone := slices.DeleteFunc(slices.Clone(prev), func(n string) bool { return slices.Contains(names, n) })
	if len(gone) > 0 {
		s.sdk.RemoveTools(gone...)
	}
	for _, t := range list {
		s.sdk.AddTool(toolOf(t), s.callTool)
	}
	return nil
}

// toolOf is a domain tool as MCP lists it: its name, description and
// parameter schema as the rows carry them; reads and generic tools
// (a calculator, a transfer) are marked read-only, as they change no
// state, and writes destructive.
func toolOf(t serve.Tool) *sdk.Tool {
	params := t.Parameters
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage(`{"type":"object"}`)
	}
	out := &sdk.Tool{Name: t.Name, Description: t.Description, InputSchema: params, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}
	if t.Kind == record.KindWrite {
		// Said outright, though MCP's default says so too: an importer
		// reads the kind without guessing from the name.
		yes := true
		out.Annotations = &sdk.ToolAnnotations{DestructiveHint: &yes}
	}
	return out
}

// current is the episode now.
func (s *Server) current() *serve.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.x
}

// route sends every tools/call to the episode, unknown tools included:
// the episode answers those as synth's dialogues do ("Error: unknown
// tool …"), as a tool result, where the SDK would answer a protocol error.
func (s *Server) route(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if r, ok := req.(*sdk.CallToolRequest); ok && method == "tools/call" && r.Params != nil {
			return s.callTool(ctx, r)
		}
		return next(ctx, method, req)
	}
}

// callTool runs one call in the episode as one assistant message with
// one tool call: its result is the tool message synth's dialogue has,
// an "Error: …" one marked isError.
func (s *Server) callTool(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	args := strings.TrimSpace(string(req.Params.Arguments))
	if args == "" || args == "null" {
		args = "{}"
	}
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{
		Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: req.Params.Name, Arguments: args}}}}
	x := s.current()
	st, err := x.Step(ctx, msg)
	if err != nil {
		return textResult(true, "Error: "+ended(ctx, x, err)), nil
	}
	for _, m := range st.Observation {
		if m.Role == "tool" {
			res := textResult(strings.HasPrefix(m.Content, toolError), m.Content)
			res.Meta = stepMeta(st.Step)
			return res, nil
		}
	}
	return nil, fmt.Errorf("tool %s: the episode answered no tool message", req.Params.Name)
}

// ended says why an episode took no step, and what to do.
func ended(ctx context.Context, x *serve.Session, err error) string {
	if v, verr := x.View(ctx); verr == nil && v.Done {
		return fmt.Sprintf("the episode has ended (%s); its verdict and rewards are in %s; start a new one with the prompt %q", v.Ending, EpisodeURI, PromptReset)
	}
	return fmt.Sprintf("%v; start a new episode with the prompt %q", err, PromptReset)
}

// toolError begins every failed call's observation (tools.Toolkit.Call),
// as the verifier and the credit labels read them.
const toolError = "Error: "

func textResult(isError bool, text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, IsError: isError}
}

// stepMeta is a step's score for _meta: the dense reward, the chain's
// progress and, once the dialogue has ended, how.
func stepMeta(st serve.Step) sdk.Meta {
	m := map[string]any{"reward": st.Reward, "progress": st.Progress, "chain_length": st.ChainLength, "done": st.Done}
	if st.Done {
		m["ending"] = st.Ending
		if st.OutcomeReward != nil {
			m["outcome_reward"] = *st.OutcomeReward
		}
	}
	return sdk.Meta{metaStep: m}
}

// reset starts a fresh episode: the same blueprint, or the one its
// arguments name.
func (s *Server) reset(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	s.mu.Lock()
	next := s.start
	s.mu.Unlock()
	if err := resetArgs(&next, req.Params.Arguments); err != nil {
		return nil, err
	}
	x, resp, err := s.env.Open(ctx, next)
	if err != nil {
		return nil, err
	}
	if err := s.setEpisode(x); err != nil {
		x.Close()
		return nil, err
	}
	s.mu.Lock()
	s.start = next
	s.mu.Unlock()
	out := &sdk.GetPromptResult{
		Description: fmt.Sprintf("A fresh episode of %s: blueprint %s (%s split, %s customer); the customer speaks first.", resp.Domain, resp.BlueprintID, resp.Split, resp.Behavior),
		Messages:    said(resp.Observation),
		Meta: sdk.Meta{"synth/episode": map[string]any{"session_id": resp.SessionID, "blueprint_id": resp.BlueprintID,
			"domain": resp.Domain, "split": resp.Split, "behavior": resp.Behavior, "max_turns": resp.MaxTurns}},
	}
	return out, nil
}

// resetArgs applies a reset's arguments to the episode it restarts.
func resetArgs(next *serve.ResetRequest, args map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(args)) {
		v := strings.TrimSpace(args[k])
		if v == "" {
			continue
		}
		switch k {
		case "index":
			n, err := strconv.Atoi(v)
			if err != nil || next.Release != "" {
				return fmt.Errorf("reset: index %q: want a blueprint's index in the run (0, 1, …), on a server started on a domain", v)
			}
			next.Index = &n
		case "seed":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil || next.Release != "" {
				return fmt.Errorf("reset: seed %q: want a run seed (a whole number), on a server started on a domain", v)
			}
			next.Seed = &n
		case "blueprint_id":
			if next.Release == "" {
				return fmt.Errorf("reset: blueprint_id %q: the server was started on a domain, not a release; give index", v)
			}
			next.BlueprintID = v
		default:
			return fmt.Errorf("reset: unknown argument %q (index, seed or blueprint_id)", k)
		}
	}
	return nil
}

// say gives the agent's message to the customer and returns the answer.
func (s *Server) say(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	text, ok := req.Params.Arguments["message"]
	if !ok {
		return nil, errors.New("say: missing argument message (what the agent says to the customer)")
	}
	x := s.current()
	st, err := x.Step(ctx, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: text})
	if err != nil {
		return nil, fmt.Errorf("say: %s", ended(ctx, x, err))
	}
	desc := "The customer answers."
	if st.Done {
		desc = fmt.Sprintf("The dialogue has ended (%s); read %s for its verdict and rewards.", st.Ending, EpisodeURI)
	}
	return &sdk.GetPromptResult{Description: desc, Messages: said(st.Observation), Meta: stepMeta(st.Step)}, nil
}

// said turns the customer's messages into prompt messages.
func said(msgs []record.Message) []*sdk.PromptMessage {
	out := []*sdk.PromptMessage{}
	for _, m := range msgs {
		if m.Role == "user" {
			out = append(out, &sdk.PromptMessage{Role: "user", Content: &sdk.TextContent{Text: m.Content}})
		}
	}
	return out
}

// episode reads the episode: its dialogue and score.
func (s *Server) episode(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	v, err := s.current().View(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; start a new episode with the prompt %q", EpisodeURI, err, PromptReset)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: EpisodeURI, MIMEType: "application/json", Text: string(raw)}}}, nil
}
