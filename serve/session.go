package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/synth-data/synth/credit"
	llmengine "github.com/synth-data/synth/engine/llm"
	"github.com/synth-data/synth/record"
)

// session is one dialogue in play. mu holds it for one request at a
// time: a policy's steps are sequential by nature.
type session struct {
	mu     sync.Mutex
	id     string
	env    *env
	bp     *record.Blueprint
	x      *llmengine.Episode
	last   time.Time
	closed bool
	// verdict is set once the dialogue has ended.
	verdict *record.Verdict
	// progress is the chain steps done before the step being taken.
	progress int
	// growing labels the dialogue step by step while it goes on; final
	// holds its labels with the verdict once it has ended.
	growing *credit.Growing
	final   *credit.Labels
}

// ResetRequest starts a session at a blueprint: a release's by id, or
// the one synth run makes for a domain, seed and index.
type ResetRequest struct {
	Release     string  `json:"release,omitempty"`
	BlueprintID string  `json:"blueprint_id,omitempty"`
	Domain      string  `json:"domain,omitempty"`
	Seed        *uint64 `json:"seed,omitempty"`
	Index       *int    `json:"index,omitempty"`
}

// ResetResponse is a new session: what the policy is told, and the
// customer's first message.
type ResetResponse struct {
	SessionID   string `json:"session_id"`
	BlueprintID string `json:"blueprint_id"`
	Domain      string `json:"domain"`
	Split       string `json:"split"`
	Behavior    string `json:"behavior"`
	// System is the domain policy, the system message.
	System string `json:"system"`
	// Tools are the tools offered, in the OpenAI tools format.
	Tools json.RawMessage `json:"tools"`
	// Messages are the dialogue so far: the system message and the
	// customer's first message.
	Messages []record.Message `json:"messages"`
	// Observation is what the policy has not seen: the customer's first
	// message.
	Observation []record.Message `json:"observation"`
	MaxTurns    int              `json:"max_turns"`
	Step
}

// StepRequest is the policy's assistant message, in the OpenAI chat shape.
type StepRequest struct {
	Message *Message `json:"message"`
}

// Message is an assistant message as OpenAI-compatible servers return
// it: content a string, null or text parts; arguments JSON text (or an
// object, which some servers send).
type Message struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	ToolCalls        []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// UnmarshalJSON reads the message leniently: servers add fields of
// their own (refusal, annotations, audio), which are no fault of the
// request.
func (m *Message) UnmarshalJSON(b []byte) error {
	type plain Message
	return json.Unmarshal(b, (*plain)(m))
}

// Step is what one step did and what it scored.
type Step struct {
	// Labels are the credit labels of the step's assistant messages
	// (action class, gold class, on the chain, the write served,
	// progress, each write argument's provenance).
	Labels []credit.Turn `json:"labels"`
	// Progress is the ground-truth chain steps done so far (k) of
	// ChainLength (C).
	Progress    int `json:"progress"`
	ChainLength int `json:"chain_length"`
	// Reward is the step's dense reward: the chain steps it completed
	// over the chain's length, so a dialogue's rewards sum to its
	// coverage k/C (0 for a chain of none).
	Reward float64 `json:"reward"`
	// Done: the dialogue has ended; further steps are refused.
	Done bool `json:"done"`
	// Ending is how it ended (stop, transfer, out_of_scope, max_turns)
	// once done.
	Ending string `json:"ending,omitempty"`
	// Guard names a fault that ended the dialogue outside the verifier's
	// checks (empty_turn, premature_stop), with what it saw.
	Guard       string `json:"guard,omitempty"`
	GuardDetail string `json:"guard_detail,omitempty"`
	// Verdict is the verifier's verdict, check by check, once done.
	Verdict *record.Verdict `json:"verdict,omitempty"`
	// OutcomeReward is 1 for a dialogue that verified, 0 otherwise, once done.
	OutcomeReward *float64 `json:"outcome_reward,omitempty"`
	// Dialogue is the whole dialogue's credit labels once done: the
	// pivotal mistake of a failed one, coverage, the steps and turns.
	Dialogue *credit.Labels `json:"dialogue_labels,omitempty"`
}

// StepResponse is the environment's answer to one assistant message.
type StepResponse struct {
	// Assistant is the message as the dialogue records it: text said
	// with tool calls is its own message, and a tool-call id that is
	// not 9 alphanumerics (or is used twice) is replaced, as the llm
	// engine does; tool results answer the recorded ids.
	Assistant []record.Message `json:"assistant"`
	// Observation are the tool results, or the customer's reply.
	Observation []record.Message `json:"observation"`
	Step
}

// SessionView is a session's whole dialogue (GET).
type SessionView struct {
	SessionID   string           `json:"session_id"`
	BlueprintID string           `json:"blueprint_id"`
	Messages    []record.Message `json:"messages"`
	Step
}

// reset starts a session.
func (s *Server) reset(w http.ResponseWriter, r *http.Request) {
	var req ResetRequest
	if err := decode(r, w, &req); err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	_, resp, err := s.Open(r.Context(), req)
	if err != nil {
		WriteError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, resp)
}

// Session is a dialogue in play held by a caller of the library rather
// than through the HTTP API (synth mcp): the same session, counted
// against MaxSessions, reaped when idle and reachable by its id over
// HTTP too.
type Session struct {
	s  *Server
	ss *session
}

// Open starts a session as POST /v1/sessions does.
func (s *Server) Open(ctx context.Context, req ResetRequest) (*Session, *ResetResponse, error) {
	e, bp, err := s.blueprint(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	x, err := llmengine.NewEpisode(e.d, bp, s.opts.Chatter, llmengine.Options{User: s.opts.User,
		MaxTurns: s.opts.Config.MaxTurns, MaxToolErrors: s.maxToolErrors})
	if err != nil {
		return nil, nil, fmt.Errorf("blueprint %s: %w", bp.ID, err)
	}
	ss := &session{id: newID(), env: e, bp: bp, x: x, last: time.Now(), growing: credit.NewGrowing(e.d, bp)}
	// Held from admission on: the reaper does not take a session whose
	// customer has not spoken yet.
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !s.admit(ss) {
		return nil, nil, &statusError{http.StatusTooManyRequests, s.retryAfter(), &reqError{"session", fmt.Sprintf("the server holds its most sessions (%d, --max-sessions); end one (DELETE /v1/sessions/{id}) or retry later", s.opts.MaxSessions)}}
	}
	if err := x.Open(ctx); err != nil {
		s.drop(ss)
		return nil, nil, &statusError{code: http.StatusBadGateway, err: fmt.Errorf("blueprint %s, the customer: %w", bp.ID, err)}
	}
	tr := x.Trajectory()
	resp := &ResetResponse{SessionID: ss.id, BlueprintID: bp.ID, Domain: bp.Domain, Split: bp.Split, Behavior: bp.Behavior,
		System: tr.Messages[0].Content, Tools: e.offered(bp), Messages: tr.Messages, Observation: tr.Messages[1:],
		MaxTurns: s.opts.Config.MaxTurns, Step: s.outcome(ctx, ss, len(tr.Messages))}
	return &Session{s: s, ss: ss}, resp, nil
}

// blueprint finds the blueprint a reset names: a release's by id, or a
// run's by domain, seed and index.
func (s *Server) blueprint(ctx context.Context, req ResetRequest) (*env, *record.Blueprint, error) {
	byRelease := req.Release != "" || req.BlueprintID != ""
	bySeed := req.Domain != "" || req.Seed != nil || req.Index != nil
	switch {
	case byRelease && bySeed:
		return nil, nil, &reqError{"release", "give either release and blueprint_id, or domain, seed and index, not both"}
	case byRelease && req.Release == "":
		return nil, nil, &reqError{"release", "missing: the release folder blueprint_id is from"}
	case byRelease && req.BlueprintID == "":
		return nil, nil, &reqError{"blueprint_id", "missing: the id of a blueprint of the release"}
	case byRelease:
		return s.fromRelease(ctx, req.Release, req.BlueprintID)
	case req.Domain == "":
		return nil, nil, &reqError{"domain", "missing: give domain, seed and index (or release and blueprint_id)"}
	case req.Seed == nil:
		return nil, nil, &reqError{"seed", "missing: the run seed (synth run --seed)"}
	case req.Index == nil:
		return nil, nil, &reqError{"index", "missing: the blueprint's index in the run (0 is the first)"}
	}
	return s.fromSeed(ctx, req.Domain, *req.Seed, *req.Index)
}

// step takes one assistant message.
func (s *Server) step(w http.ResponseWriter, r *http.Request) {
	ss := s.lookup(w, r)
	if ss == nil {
		return
	}
	defer ss.mu.Unlock()
	var req StepRequest
	if err := decode(r, w, &req); err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	if req.Message == nil {
		writeError(w, http.StatusBadRequest, &reqError{"message", "missing: the policy's assistant message ({\"role\": \"assistant\", \"content\": ..., \"tool_calls\": [...]})"})
		return
	}
	msg, err := req.Message.openAI()
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	resp, err := s.act(r.Context(), ss, msg)
	if err != nil {
		WriteError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// act steps a held session with one assistant message.
func (s *Server) act(ctx context.Context, ss *session, msg openai.ChatCompletionMessage) (*StepResponse, error) {
	if ss.x.Done() {
		return nil, &statusError{code: http.StatusConflict, err: &reqError{"session_id", fmt.Sprintf("%s has ended (%s); DELETE it and reset a new one", ss.id, ss.x.Trajectory().Ending)}}
	}
	n0 := len(ss.x.Trajectory().Messages)
	if err := ss.x.Act(ctx, msg); err != nil {
		// The customer (an LLM) failed mid-step: the dialogue cannot go on.
		s.drop(ss)
		return nil, &statusError{code: http.StatusBadGateway, err: fmt.Errorf("session %s ended: %w", ss.id, err)}
	}
	added := ss.x.Trajectory().Messages[n0:]
	k := 0
	for k < len(added) && added[k].Role == "assistant" {
		k++
	}
	return &StepResponse{Assistant: added[:k], Observation: added[k:], Step: s.outcome(ctx, ss, n0)}, nil
}

// ID is the session's id, as GET /v1/sessions/{id} takes it.
func (x *Session) ID() string { return x.ss.id }

// Step takes one assistant message as POST /v1/sessions/{id}/step does.
func (x *Session) Step(ctx context.Context, msg openai.ChatCompletionMessage) (*StepResponse, error) {
	ss, err := x.hold()
	if err != nil {
		return nil, err
	}
	defer ss.mu.Unlock()
	return x.s.act(ctx, ss, msg)
}

// View is the session's whole dialogue and score, as GET
// /v1/sessions/{id} gives them.
func (x *Session) View(ctx context.Context) (*SessionView, error) {
	ss, err := x.hold()
	if err != nil {
		return nil, err
	}
	defer ss.mu.Unlock()
	return &SessionView{SessionID: ss.id, BlueprintID: ss.bp.ID, Messages: ss.x.Trajectory().Messages, Step: x.s.view(ctx, ss)}, nil
}

// Tools are the tools the session's policy is offered, in the order
// its rows carry them.
func (x *Session) Tools() ([]Tool, error) {
	var spec []struct {
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(x.ss.env.offered(x.ss.bp), &spec); err != nil {
		return nil, fmt.Errorf("the tools of %s: %w", x.ss.bp.Domain, err)
	}
	out := make([]Tool, len(spec))
	for i, f := range spec {
		out[i] = Tool{Name: f.Function.Name, Description: f.Function.Description, Parameters: f.Function.Parameters,
			Kind: x.ss.env.d.Tools.Kind(f.Function.Name)}
	}
	return out, nil
}

// Tool is one offered tool: its OpenAI function and its kind (read,
// write or generic).
type Tool struct {
	Name, Description string
	Parameters        json.RawMessage
	Kind              string
}

// Close ends the session, as DELETE /v1/sessions/{id} does.
func (x *Session) Close() {
	ss, err := x.hold()
	if err != nil {
		return
	}
	defer ss.mu.Unlock()
	x.s.drop(ss)
}

// hold locks the session for one call, unless it has ended.
func (x *Session) hold() (*session, error) {
	ss := x.ss
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return nil, x.s.gone(ss.id)
	}
	ss.last = time.Now()
	return ss, nil
}

// outcome scores the session after a step whose messages begin at
// from: the labels of its assistant messages and the dense reward, and
// once the dialogue has ended the verdict and the outcome reward.
func (s *Server) outcome(ctx context.Context, ss *session, from int) Step {
	tr := ss.x.Trajectory()
	if ss.x.Done() && ss.verdict == nil {
		v := ss.env.ver.Verify(ctx, ss.bp, tr)
		ss.verdict = &v
	}
	var labels credit.Labels
	switch {
	case ss.final != nil:
		labels = *ss.final
	case ss.verdict != nil:
		// The verdict decides how a write matches the chain: the ended
		// dialogue is labelled once more from its start, with it.
		labels = credit.LabelDomain(ss.env.d, ss.bp, tr, ss.verdict)
		ss.final = &labels
	default:
		labels = ss.growing.Labels(tr)
	}
	st := Step{Labels: []credit.Turn{}, Progress: labels.Progress, ChainLength: labels.ChainLength}
	for _, t := range labels.Turns {
		if t.Message >= from {
			st.Labels = append(st.Labels, t)
		}
	}
	if labels.ChainLength > 0 {
		st.Reward = float64(labels.Progress-ss.progress) / float64(labels.ChainLength)
	}
	ss.progress = labels.Progress
	if !ss.x.Done() {
		return st
	}
	reward := 0.0
	if ss.verdict.Passed {
		reward = 1
	}
	st.Done, st.Ending, st.Verdict, st.OutcomeReward, st.Dialogue = true, tr.Ending, ss.verdict, &reward, &labels
	st.Guard, st.GuardDetail = ss.x.Guard()
	return st
}

// view is the session's score as a whole: every turn's labels.
func (s *Server) view(ctx context.Context, ss *session) Step {
	prev := ss.progress
	ss.progress = 0
	st := s.outcome(ctx, ss, 0)
	ss.progress = prev
	return st
}

// get shows a session's dialogue.
func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	ss := s.lookup(w, r)
	if ss == nil {
		return
	}
	defer ss.mu.Unlock()
	writeJSON(w, http.StatusOK, SessionView{SessionID: ss.id, BlueprintID: ss.bp.ID, Messages: ss.x.Trajectory().Messages, Step: s.view(r.Context(), ss)})
}

// remove ends a session.
func (s *Server) remove(w http.ResponseWriter, r *http.Request) {
	ss := s.lookup(w, r)
	if ss == nil {
		return
	}
	defer ss.mu.Unlock()
	s.drop(ss)
	writeJSON(w, http.StatusOK, map[string]string{"deleted": ss.id})
}

// drop ends a session the caller holds.
func (s *Server) drop(ss *session) {
	ss.closed = true
	s.mu.Lock()
	delete(s.sessions, ss.id)
	s.mu.Unlock()
}

// openAI converts the wire message, naming the field at fault.
func (m *Message) openAI() (openai.ChatCompletionMessage, error) {
	if m.Role != "" && m.Role != "assistant" {
		return openai.ChatCompletionMessage{}, &reqError{"message.role", fmt.Sprintf("%q: the policy speaks as the assistant", m.Role)}
	}
	out := openai.ChatCompletionMessage{Role: "assistant", ReasoningContent: m.ReasoningContent}
	text, err := contentText(m.Content)
	if err != nil {
		return out, err
	}
	out.Content = text
	for i, c := range m.ToolCalls {
		field := fmt.Sprintf("message.tool_calls[%d]", i)
		if c.Type != "" && c.Type != "function" {
			return out, &reqError{field + ".type", fmt.Sprintf("%q: only function calls are tools here", c.Type)}
		}
		if c.Function.Name == "" {
			return out, &reqError{field + ".function.name", "missing: the tool to call"}
		}
		args := "{}"
		if raw := strings.TrimSpace(string(c.Function.Arguments)); raw != "" && raw != "null" {
			if raw[0] == '"' {
				// JSON text, as OpenAI sends it; malformed text is the
				// policy's mistake and comes back as an "Error: …" result.
				if err := json.Unmarshal([]byte(raw), &args); err != nil {
					return out, &reqError{field + ".function.arguments", err.Error()}
				}
			} else {
				args = raw
			}
		}
		out.ToolCalls = append(out.ToolCalls, openai.ToolCall{ID: c.ID, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: c.Function.Name, Arguments: args}})
	}
	return out, nil
}

// contentText reads message content: a string, null, or an array of
// parts whose text parts are joined.
func contentText(raw json.RawMessage) (string, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return "", nil
	}
	if s[0] == '"' {
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return "", &reqError{"message.content", err.Error()}
		}
		return text, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", &reqError{"message.content", "want a string, null or an array of {\"type\": \"text\", \"text\": ...} parts"}
	}
	var b strings.Builder
	for i, p := range parts {
		if p.Type != "text" {
			return "", &reqError{fmt.Sprintf("message.content[%d].type", i), fmt.Sprintf("%q: only text parts", p.Type)}
		}
		b.WriteString(p.Text)
	}
	return b.String(), nil
}
