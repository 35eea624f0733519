package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/credit"
	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/dpo"
	"github.com/synth-data/synth/engine"
	client "github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/usersim"
)

// Guard labels of failed LLM dialogues that are the simulator's fault,
// not the agent's: they are recorded in rejected/ and never paired.
const (
	// LabelPrematureStop: the customer sent ###STOP### while a
	// ground-truth write had not been run and the agent had not closed
	// the conversation (tau2's known simulator bug).
	LabelPrematureStop = "premature_stop"
	// LabelEmptyTurn: the customer, or the agent, said nothing twice.
	LabelEmptyTurn = "empty_turn"
)

// behaviorText describes each behaviour profile to an LLM customer.
var behaviorText = map[string]string{
	usersim.Upfront:     "upfront: give your identity and every detail of your request in your first message",
	usersim.Minimal:     "minimal: answer in as few words as possible and volunteer nothing",
	usersim.Piecemeal:   "piecemeal: state what you want, then give each detail only when the agent asks for it",
	usersim.Verbose:     "verbose: explain your situation at length, with friendly asides, but keep the facts exact",
	usersim.Impatient:   "impatient: you are in a hurry and say so; keep pushing the agent to get it done",
	usersim.Confused:    "confused: you are unsure of the process and may give a wrong detail first, then correct it when told",
	usersim.ChangesMind: "changes_mind: when the agent proposes the change, change your mind once about one detail, then stick to your instruction",
	usersim.Typos:       "typos: write quickly, with typos and missing capitals, but never in ids, emails, amounts or addresses",
}

// BehaviorOf describes a behaviour profile to an LLM.
func BehaviorOf(name string) string {
	if t, ok := behaviorText[name]; ok {
		return t
	}
	return name
}

// stopToken finds the customer's stop token, tolerating the ways models
// mangle it (case, spaces, fewer hashes, "OUT OF SCOPE").
var stopToken = regexp.MustCompile(`(?i)#{2,}\s*(stop|transfer|out[-_ ]?of[-_ ]?scope)\s*#*`)

// parseCustomer splits a customer reply into its text and its stop
// token. Text before a token is kept (a goodbye said with the token);
// whatever follows the token is dropped, as the conversation is over.
func parseCustomer(reply string) (text, stop string) {
	loc := stopToken.FindStringSubmatchIndex(reply)
	if loc == nil {
		return strings.TrimSpace(reply), ""
	}
	switch w := strings.ToLower(reply[loc[2]:loc[3]]); {
	case w == "stop":
		stop = client.TokenStop
	case w == "transfer":
		stop = client.TokenTransfer
	default:
		stop = client.TokenOutOfScope
	}
	return strings.TrimSpace(reply[:loc[0]]), stop
}

func endingOf(stop string) string {
	switch stop {
	case client.TokenStop:
		return record.EndStop
	case client.TokenTransfer:
		return record.EndTransfer
	case client.TokenOutOfScope:
		return record.EndOutScope
	}
	return record.EndMaxTurns
}

// agentStepsPerTurn caps the agent's requests between two customer
// messages: as the oracle, which gives up after 64 steps, a model that
// keeps calling tools without answering ends the dialogue.
const agentStepsPerTurn = 64

// errEmptyTurn ends a dialogue whose customer or agent said nothing twice.
var errEmptyTurn = errors.New("empty turn")

// episode is one played dialogue and what its guards saw.
type episode struct {
	tr         *record.Trajectory
	trial      int
	label      string // a guard label, "" when no guard fired
	detail     string
	toolErrors int
	mixed      int
	fixedIDs   int
	// oai mirrors tr.Messages as the agent's request messages: messages
	// are only appended, so each is converted once, not once per step.
	oai []openai.ChatCompletionMessage
	// tools are what the agent is sent (--tools), chosen once per trial.
	tools []openai.Tool
}

// customer speaks for the user of one dialogue.
type customer interface {
	// next returns the customer's next message and its stop token, seen
	// after the dialogue msgs and the tool calls the agent made.
	next(ctx context.Context, msgs []record.Message, calls []usersim.Executed) (text, stop string, err error)
}

// llmCustomer is the customer played by the user role.
type llmCustomer struct {
	ch      client.Chatter
	bp      *record.Blueprint
	trial   int
	system  string
	session string
}

func (c *llmCustomer) next(ctx context.Context, msgs []record.Message, _ []usersim.Executed) (string, string, error) {
	hist := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: c.system}, {Role: openai.ChatMessageRoleUser, Content: client.Kickoff}}
	for _, m := range msgs[1:] {
		switch {
		case m.Role == "user":
			hist = append(hist, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: m.Content})
		case m.Role == "assistant" && m.Content != "" && len(m.ToolCalls) == 0:
			hist = append(hist, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: m.Content})
		}
	}
	// An empty reply is asked once more with another seed: the same
	// request would come back from the cache as empty as before.
	for attempt := range 2 {
		req := openai.ChatCompletionRequest{Messages: hist, User: c.session, Seed: Seed(c.bp, c.trial, client.User, strconv.Itoa(attempt))}
		resp, err := c.ch.Chat(ctx, client.User, client.StageSimulate, req)
		if err != nil {
			return "", "", fmt.Errorf("blueprint %s trial %d, customer: %w", c.bp.ID, c.trial, err)
		}
		if text, stop := parseCustomer(resp.Choices[0].Message.Content); text != "" || stop != "" {
			return text, stop, nil
		}
	}
	return "", "", errEmptyTurn
}

// embeddedCustomer is the domain's rule-based user answering an LLM
// agent: it reads the agent's words for what they ask (usersim.Classify).
type embeddedCustomer struct {
	u       *usersim.Generic
	l       *usersim.Listener
	started bool
}

func (c *embeddedCustomer) next(_ context.Context, msgs []record.Message, calls []usersim.Executed) (string, string, error) {
	var t dialog.Turn
	if !c.started {
		c.started = true
		t = c.u.Start()
	} else {
		last := ""
		for i := len(msgs) - 1; i >= 0 && msgs[i].Role != "user"; i-- {
			if msgs[i].Role == "assistant" && msgs[i].Content != "" {
				last = msgs[i].Content
				break
			}
		}
		t = c.u.Respond(c.l.Interpret(last, calls))
	}
	if t.Text == "" && t.Stop == "" {
		return "", "", errEmptyTurn
	}
	c.l.Heard(t)
	return t.Text, t.Stop, nil
}

var callIDPattern = regexp.MustCompile(`^[A-Za-z0-9]{9}$`)

// idFixer keeps a model's tool-call ids when they are 9 alphanumerics
// and unused, and replaces the others with deterministic ones.
type idFixer struct {
	rng  *rand.Rand
	used map[string]bool
}

func (f *idFixer) fix(id string) (string, bool) {
	if callIDPattern.MatchString(id) && !f.used[id] {
		f.used[id] = true
		return id, false
	}
	for {
		n := agent.CallID(f.rng)
		if !f.used[n] {
			f.used[n] = true
			return n, true
		}
	}
}

// toOpenAI converts the dialogue to the agent's request messages.
func toOpenAI(msgs []record.Message) []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, len(msgs))
	for i, m := range msgs {
		o := openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ReasoningContent: m.ReasoningContent, ToolCallID: m.ToolCallID, Name: m.Name}
		for _, c := range m.ToolCalls {
			o.ToolCalls = append(o.ToolCalls, openai.ToolCall{ID: c.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: c.Function.Name, Arguments: c.Function.Arguments}})
		}
		out[i] = o
	}
	return out
}

// play runs one trial of a blueprint: the model's agent steps the
// episode until it is done.
func (e *Engine) play(ctx context.Context, ch client.Chatter, bp *record.Blueprint, trial int, system string, offered map[string]bool) (*episode, error) {
	x, err := newEpisode(e.d, bp, ch, e.opts, trial, system)
	if err != nil {
		return nil, err
	}
	x.ep.tools = e.toolsFor(offered)
	if err := x.Open(ctx); err != nil {
		return nil, err
	}
	session := client.SessionID(bp.ID, trial)
	for !x.Done() {
		msg, err := e.ask(ctx, ch, bp, trial, session, x.ep)
		if err != nil {
			return nil, err
		}
		if err := x.Act(ctx, msg); err != nil {
			return nil, err
		}
	}
	return x.ep, nil
}

// ask requests the agent's next message; an empty one is asked once
// more with another seed, as the same request would come back from the
// cache as empty as before.
func (e *Engine) ask(ctx context.Context, ch client.Chatter, bp *record.Blueprint, trial int, session string, ep *episode) (openai.ChatCompletionMessage, error) {
	ep.oai = append(ep.oai, toOpenAI(ep.tr.Messages[len(ep.oai):])...)
	var msg openai.ChatCompletionMessage
	for attempt := range 2 {
		req := openai.ChatCompletionRequest{Messages: ep.oai, Tools: ep.tools, User: session,
			Seed: Seed(bp, trial, client.Agent, strconv.Itoa(attempt))}
		resp, err := ch.Chat(ctx, client.Agent, client.StageSimulate, req)
		if err != nil {
			return msg, fmt.Errorf("blueprint %s trial %d, agent: %w", bp.ID, trial, err)
		}
		if msg = resp.Choices[0].Message; len(msg.ToolCalls) > 0 || strings.TrimSpace(msg.Content) != "" {
			break
		}
	}
	return msg, nil
}

// agentClosed reports whether the agent's last words closed the
// conversation: a customer who then stops with a write missing was
// dismissed by the agent (its failure), not early of its own accord.
func agentClosed(msgs []record.Message) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i]; m.Role == "assistant" && m.Content != "" {
			return usersim.Classify(m.Content).Kind == "closing"
		}
	}
	return false
}

// missedWrite names a ground-truth write tool the agent never ran
// successfully. Writes are matched by tool, not arguments: a write with
// wrong arguments is the agent's mistake, not a premature stop.
func missedWrite(bp *record.Blueprint, calls []usersim.Executed) (string, bool) {
	done := map[string]int{}
	for _, c := range calls {
		if c.Write && !c.Failed {
			done[c.Tool]++
		}
	}
	for _, a := range bp.Actions {
		if a.Kind != record.KindWrite {
			continue
		}
		if done[a.Tool] == 0 {
			return a.Tool, true
		}
		done[a.Tool]--
	}
	return "", false
}

// trials plays up to --trials dialogues of a blueprint and keeps the
// first that verifies; the failed ones go to rejected/ and, with --dpo,
// are paired with the verified one.
func (e *Engine) trials(ctx context.Context, m *engine.Meter, bp *record.Blueprint, st *engine.LLMStats, offered map[string]bool) (*engine.Outcome, error) {
	system, err := client.UserPrompt(bp, BehaviorOf(bp.Behavior))
	if err != nil {
		return nil, err
	}
	var fails []failedTrial
	var good *record.Trajectory
	var goodV record.Verdict
	for t := 0; t < e.opts.Trials && good == nil; t++ {
		ep, err := e.play(ctx, m, bp, t, system, offered)
		if err != nil {
			return nil, err
		}
		v, err := e.Verify(ctx, e.ver, bp, ep.tr)
		if err != nil {
			return nil, err
		}
		n := strconv.Itoa(t + 1)
		engine.Bump(&st.TrialRuns, n, 1)
		st.ToolErrors += ep.toolErrors
		st.MixedText += ep.mixed
		st.FixedCallIDs += ep.fixedIDs
		if v.Passed {
			engine.Bump(&st.TrialPasses, n, 1)
			engine.Bump(&st.TrialsToPass, n, 1)
			good, goodV = ep.tr, v
			break
		}
		f := failedTrial{ep: ep, v: v}
		if ep.label == "" {
			f.flaw = dpo.FailureLabel(bp, ep.tr, v, e.d.Tools.Kind)
		}
		fails = append(fails, f)
	}
	if good == nil {
		engine.Bump(&st.TrialsToPass, "none", 1)
	}
	records := make([][]byte, len(fails))
	for i, f := range fails {
		label := f.ep.label
		label = cmp.Or(label, f.flaw)
		switch label {
		case LabelPrematureStop:
			st.PrematureStops++
		case LabelEmptyTurn:
			st.EmptyTurns++
		}
		label = cmp.Or(label, "unlabelled")
		engine.Bump(&st.Failures, label, 1)
		fc := f.v.Failed()
		rec := map[string]any{"blueprint_id": bp.ID, "split": bp.Split, "check": fc.Name, "reason": fc.Reason, "verdict": f.v,
			"trajectory": f.ep.tr, "engine": Name, "trial": f.ep.trial, "label": label,
			"labels": credit.LabelDomain(e.d, bp, f.ep.tr, &f.v)}
		if f.ep.detail != "" {
			rec["detail"] = f.ep.detail
		}
		if records[i], err = json.Marshal(rec); err != nil {
			return nil, err
		}
	}
	out := &engine.Outcome{}
	if good != nil {
		out.Trajectory, out.Verdict = good, goodV
		for i, f := range fails {
			out.Attempts = append(out.Attempts, engine.Attempt{Verdict: f.v, Record: records[i]})
		}
		if e.plan != nil {
			out.Pairs, err = e.pairs(ctx, bp, good, fails, offered)
		}
		return out, err
	}
	last := len(fails) - 1
	for i, f := range fails[:last] {
		out.Attempts = append(out.Attempts, engine.Attempt{Verdict: f.v, Record: records[i]})
	}
	out.Trajectory, out.Verdict, out.Rejected = fails[last].ep.tr, fails[last].v, records[last]
	return out, nil
}

// failedTrial is a trial that did not verify.
type failedTrial struct {
	ep *episode
	v  record.Verdict
	// flaw is its taxonomy label (FailureLabel); "" when a guard fired
	// or the taxonomy has none.
	flaw string
}

// pairs turns failed trials into DPO pairs against the verified one, cut
// by the same Plan.Cut as the embedded engine's, so a pair's label is
// what its rejected side shows. A failure the taxonomy
// has no label for (a simulator error, an id the engine fixed, a
// malformed turn) is not paired.
func (e *Engine) pairs(ctx context.Context, bp *record.Blueprint, good *record.Trajectory, fails []failedTrial, offered map[string]bool) (engine.Pairs, error) {
	var out engine.Pairs
	for _, f := range fails {
		if len(out.Rows) >= e.plan.Most() {
			break
		}
		out.Stats.Attempts++
		label := f.flaw
		if label == "" {
			out.Stats.OtherReason++
			continue
		}
		pair, err := e.plan.Cut(ctx, e.labels, bp, label, good.Messages, f.ep.tr.Messages)
		switch {
		case errors.Is(err, dpo.ErrLabelNotShown):
			// A model's trial may part from the verified dialogue long
			// before its mistake: the rows must show it themselves.
			out.Stats.LabelNotShown++
			continue
		case err != nil:
			out.Stats.Unpairable++
			continue
		}
		fc := f.v.Failed()
		id := fmt.Sprintf("%s-%s-t%d", bp.ID, label, f.ep.trial)
		out.Rows = append(out.Rows, engine.PairRow{ID: id, BlueprintID: bp.ID, Domain: bp.Domain,
			Prompt: pair.Prompt, Chosen: pair.Chosen, Rejected: pair.Rejected, Tools: engine.RowTools(e.d.Tools, offered, pair.Prompt, pair.Chosen, pair.Rejected),
			Failure: label, DivergenceTurn: int32(pair.DivergenceTurn)})
		proof, err := json.Marshal(map[string]any{"pair_id": id, "blueprint_id": bp.ID, "split": bp.Split,
			"failure": label, "check": fc.Name, "reason": fc.Reason, "engine": Name, "trial": f.ep.trial, "trajectory": f.ep.tr})
		if err != nil {
			return out, err
		}
		out.Proofs = append(out.Proofs, proof)
	}
	return out, nil
}
