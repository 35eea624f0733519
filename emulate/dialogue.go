package emulate

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	openai "github.com/sashabaranov/go-openai"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/record"
)

// A session is one trial of one blueprint. The customer's requests carry
// the scenario; the emulator replays the embedded engine's dialogue for
// it once and answers both sides from the replay, so a competent agent
// and a faithful customer behave exactly as synth's embedded engine does.
type session struct {
	key      string
	scenario string // the raw <scenario> text, to notice a reused key
	bp       *record.Blueprint

	once sync.Once
	rp   *replay
	err  error
	// played publishes rp once it is set, for readers that find the
	// session through the cache rather than through once.
	played atomic.Pointer[replay]
}

// replay is the dialogue both sides of a session read their lines from.
type replay struct {
	users  []string         // the customer's messages in order
	agents []record.Message // the agent's messages in order (text or tool calls)
	ending string
	flaw   string // the agent's mistake, "" for the oracle
}

// sessionCache maps session keys to sessions, and the first customer
// line of each replay to its sessions, for agent requests without a
// `user` field.
type sessionCache struct {
	mu      sync.Mutex
	lru     *lru[*session]
	byFirst map[string][]string // first customer line → session keys, oldest first
}

func newSessionCache(capacity int) *sessionCache {
	return &sessionCache{lru: newLRU[*session](capacity), byFirst: map[string][]string{}}
}

// register returns the session for key, creating it when the key is new
// or now names another scenario.
func (c *sessionCache) register(key, scenario string, bp *record.Blueprint) *session {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.lru.get(key); ok && s.scenario == scenario {
		return s
	}
	s := &session{key: key, scenario: scenario, bp: bp}
	if old, ok := c.lru.put(key, s); ok {
		for first, keys := range c.byFirst {
			if keys = slices.DeleteFunc(keys, func(k string) bool { return k == old }); len(keys) == 0 {
				delete(c.byFirst, first)
			} else {
				c.byFirst[first] = keys
			}
		}
	}
	return s
}

func (c *sessionCache) lookup(key string) (*session, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.get(key)
}

// byLines finds the latest session whose customer said lines, in order,
// before anything else: many customers open with the same words.
func (c *sessionCache) byLines(lines []string) (*session, bool) {
	if len(lines) == 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := c.byFirst[lines[0]]
	for i := len(keys) - 1; i >= 0; i-- {
		s, ok := c.lru.items[keys[i]]
		if !ok {
			continue
		}
		ss := s.Value.(*lruItem[*session]).val
		if rp := ss.played.Load(); rp != nil && len(lines) <= len(rp.users) && slices.Equal(lines, rp.users[:len(lines)]) {
			c.lru.get(keys[i])
			return ss, true
		}
	}
	return nil, false
}

// indexFirst makes a played session findable by its customer's lines.
func (c *sessionCache) indexFirst(s *session) {
	if s.rp == nil || len(s.rp.users) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, ok := c.lru.items[s.key]; ok && cur.Value.(*lruItem[*session]).val == s {
		first := s.rp.users[0]
		c.byFirst[first] = append(slices.DeleteFunc(c.byFirst[first], func(k string) bool { return k == s.key }), s.key)
	}
}

// unit maps labels to a uniform number in [0, 1).
func unit(labels ...string) float64 {
	return float64(blueprints.Mix(0, labels...)>>11) / (1 << 53)
}

// replayOf plays the session's dialogue once.
func (s *Server) replayOf(ctx context.Context, ss *session) (*replay, error) {
	ss.once.Do(func() {
		ss.rp, ss.err = s.play(context.WithoutCancel(ctx), ss)
		if ss.rp != nil {
			ss.played.Store(ss.rp)
		}
		s.sessions.indexFirst(ss)
	})
	return ss.rp, ss.err
}

// play replays the blueprint with the oracle or, for a session chosen to
// go wrong, with a flawed agent whose mistake actually happens.
func (s *Server) play(ctx context.Context, ss *session) (rp *replay, err error) {
	bp := ss.bp
	// The blueprint came over the wire: a scenario the embedded engine
	// cannot play is the client's error, whatever way it fails.
	defer func() {
		if r := recover(); r != nil {
			rp, err = nil, badf("customer request: the embedded engine cannot play blueprint %q: %v", bp.ID, r)
		}
	}()
	d, err := s.domains.get(ctx, bp.Domain, bp.Seed)
	if err != nil {
		return nil, err
	}
	if s.opts.MistakeRate > 0 && unit("mistake", ss.key) < s.opts.MistakeRate && len(bp.Goals) > 0 {
		kinds := agent.Flaws()
		start := int(blueprints.Mix(0, "flaw", ss.key) % uint64(len(kinds)))
		goal := int(blueprints.Mix(0, "goal", ss.key) % uint64(len(bp.Goals)))
		goalsToTry := []int{goal}
		if goal != 0 {
			goalsToTry = append(goalsToTry, 0)
		}
		for _, g := range goalsToTry {
			for i := range kinds {
				kind := kinds[(start+i)%len(kinds)]
				tr, fired, err := embedded.SimulateFlawed(ctx, d, bp, maxTurns, agent.Flaw{Kind: kind, Goal: g})
				if err == nil && fired {
					return newReplay(tr, kind), nil
				}
			}
		}
	}
	tr, err := embedded.Simulate(ctx, d, bp, maxTurns)
	if err != nil {
		return nil, badf("customer request: the embedded engine cannot play blueprint %q: %v", bp.ID, err)
	}
	return newReplay(tr, ""), nil
}

func newReplay(tr *record.Trajectory, flaw string) *replay {
	rp := &replay{ending: tr.Ending, flaw: flaw}
	for _, m := range tr.Messages {
		switch m.Role {
		case "user":
			rp.users = append(rp.users, m.Content)
		case "assistant":
			rp.agents = append(rp.agents, m)
		}
	}
	return rp
}

// stopToken is how the customer ends a dialogue that ended this way.
func stopToken(ending string) string {
	switch ending {
	case record.EndTransfer:
		return llm.TokenTransfer
	case record.EndOutScope:
		return llm.TokenOutOfScope
	}
	return llm.TokenStop
}

// customerTurn answers a customer request: the next line of the replay's
// customer, or the stop token once every line was said.
func (s *Server) customerTurn(ctx context.Context, req *chatRequest) (reply, error) {
	system := req.system()
	scenario, ok := llm.Between(system, "scenario")
	if !ok {
		return reply{}, badf("customer request: the system prompt has no <scenario> block (see llm.UserPrompt)")
	}
	key := req.User
	if key == "" {
		h := fnv.New64a()
		h.Write([]byte(scenario))
		key = fmt.Sprintf("scenario:%x", h.Sum64())
	}
	// Every turn carries the scenario; parse it only for a new session.
	ss, ok := s.sessions.lookup(key)
	if !ok || ss.scenario != scenario {
		bp, err := llm.ParseScenario(system)
		if err != nil {
			return reply{}, badf("customer request: %v", err)
		}
		ss = s.sessions.register(key, scenario, bp)
	}
	rp, err := s.replayOf(ctx, ss)
	if err != nil {
		return reply{}, err
	}
	// The customer's own words are the assistant messages of its flipped
	// conversation.
	k := 0
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			k++
		}
	}
	if k < len(rp.users) {
		return reply{Content: rp.users[k]}, nil
	}
	return reply{Content: stopToken(rp.ending)}, nil
}

// agentTurn answers an agent request with the replay's next agent
// message, or as a weak agent when the session is unknown.
func (s *Server) agentTurn(ctx context.Context, req *chatRequest) (reply, error) {
	ss, ok := s.sessions.lookup(req.User)
	if !ok || req.User == "" {
		var lines []string
		for _, m := range req.Messages {
			if m.Role == "user" {
				lines = append(lines, m.Content)
			}
		}
		ss, ok = s.sessions.byLines(lines)
	}
	if !ok {
		if ss, ok = s.rebuild(ctx, req.User); !ok {
			return weakAgent(req), nil
		}
	}
	rp, err := s.replayOf(ctx, ss)
	if err != nil {
		s.log.Warn("agent request for a session that cannot be replayed; answering as a weak agent", "user", req.User, "err", err)
		return weakAgent(req), nil
	}
	// Count the agent's turns so far; calls of tools that do not exist
	// are the injected unknown-tool faults and do not advance the replay.
	k := 0
	for _, m := range req.Messages {
		if m.Role != "assistant" {
			continue
		}
		known := true
		for _, c := range m.ToolCalls {
			if !req.hasTool(c.Function.Name) {
				known = false
			}
		}
		if known {
			k++
		}
	}
	if k >= len(rp.agents) {
		return reply{Content: "Thank you for contacting us. Is there anything else I can help you with?"}, nil
	}
	m := rp.agents[k]
	out := reply{Content: m.Content, ReasoningContent: m.ReasoningContent}
	for _, c := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, openai.ToolCall{ID: c.ID, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: c.Function.Name, Arguments: c.Function.Arguments}})
	}
	return out, nil
}

// rebuild registers the session named by an agent request's `user`
// field ("BLUEPRINT/tN", llm.SessionID) from Options.Tasks.
func (s *Server) rebuild(ctx context.Context, user string) (*session, bool) {
	id, trial, ok := strings.Cut(user, "/t")
	if s.opts.Tasks == nil || !ok || id == "" || strings.Trim(trial, "0123456789") != "" {
		return nil, false
	}
	bp, err := s.opts.Tasks(ctx, id)
	if err != nil {
		s.log.Warn("cannot rebuild the blueprint of an agent request; answering as a weak agent", "user", user, "err", err)
		return nil, false
	}
	return s.sessions.register(user, "rebuilt:"+id, bp), true
}

// transferTool is the handover tool of synth's domains.
const transferTool = "transfer_to_human_agents"

// weakAgent is what a model without the context does: apologise and hand
// the customer over, a realistic failure rather than a server error.
func weakAgent(req *chatRequest) reply {
	transferred := false
	first := ""
	for _, m := range req.Messages {
		if m.Role == "user" && first == "" {
			first = m.Content
		}
		for _, c := range m.ToolCalls {
			if c.Function.Name == transferTool {
				transferred = true
			}
		}
	}
	if transferred {
		return reply{Content: "You are being transferred to a human agent now. I'm sorry I could not sort this out myself."}
	}
	if !req.hasTool(transferTool) {
		return reply{Content: "I'm sorry, I am unable to help with this request right now."}
	}
	summary := "The customer needs help"
	if first != "" {
		summary = "The customer wrote: " + clip(first, 200)
	}
	args := map[string]string{}
	for _, t := range req.Tools {
		if t.Function.Name != transferTool {
			continue
		}
		var schema struct {
			Required []string `json:"required"`
		}
		_ = json.Unmarshal(t.Function.Parameters, &schema)
		for _, p := range schema.Required {
			args[p] = summary
		}
	}
	raw, _ := json.Marshal(args)
	return reply{
		Content:   "I'm sorry, I can't look into this myself. Let me transfer you to a human agent.",
		ToolCalls: []openai.ToolCall{{ID: callID("weak", req.User, first), Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: transferTool, Arguments: string(raw)}}},
	}
}

// plausibleTools are names a confused model invents.
var plausibleTools = []string{"lookup_customer_account", "search_orders", "get_order_status", "check_refund_status", "find_customer"}

// unknownToolCall is the unknown-tool fault: a well-formed call of a tool
// the request does not offer.
func unknownToolCall(req *chatRequest) reply {
	name := "lookup_record"
	for _, n := range plausibleTools {
		if !req.hasTool(n) {
			name = n
			break
		}
	}
	last := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			last = m.Content
		}
	}
	raw, _ := json.Marshal(map[string]string{"query": clip(last, 120)})
	return reply{ToolCalls: []openai.ToolCall{{ID: callID("fault", req.User, strconv.Itoa(len(req.Messages))), Type: openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: name, Arguments: string(raw)}}}}
}

// callID derives a 9-alphanumeric tool-call id from labels.
func callID(labels ...string) string {
	h := blueprints.Mix(0, labels...)
	return agent.CallID(rand.New(rand.NewPCG(h, h^0xda942042e4dd58b5)))
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
