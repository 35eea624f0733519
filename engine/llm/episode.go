package llm

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domain"
	client "github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
	"github.com/synth-data/synth/usersim"
)

// Episode is one dialogue of a blueprint between an agent and the
// engine's side of it — the customer and the tools — taken one agent
// message at a time. The engine's trials step it with a model's
// replies; synth serve steps it with an outside policy's, so both play
// the same dialogue for the same messages.
type Episode struct {
	ep            *episode
	bp            *record.Blueprint
	tools         *tools.Toolkit
	maxTurns      int
	maxToolErrors int
	st            *tools.State
	cust          customer
	ids           *idFixer
	calls         []usersim.Executed
	turn          int    // customer turns so far
	steps         int    // agent messages since the customer last spoke
	stop          string // the stop token the customer's last message came with
	opened, done  bool
}

// ErrEpisodeDone is Act on an episode that has ended.
var ErrEpisodeDone = errors.New("the episode has ended")

// NewEpisode starts trial 0 of a blueprint with opts.User as the
// customer ("embedded", or "llm" played by ch's user role) and the
// tools run on the episode's own copy-on-write state. ch may be nil
// with the embedded customer.
func NewEpisode(d *domain.Domain, bp *record.Blueprint, ch client.Chatter, opts Options) (*Episode, error) {
	system := ""
	if opts.User != "embedded" {
		if ch == nil {
			return nil, fmt.Errorf("user %q: the LLM customer needs a model endpoint (llm.base_url); or use the embedded customer", opts.User)
		}
		var err error
		if system, err = client.UserPrompt(bp, BehaviorOf(bp.Behavior)); err != nil {
			return nil, err
		}
	}
	return newEpisode(d, bp, ch, opts, 0, system)
}

// newEpisode makes a trial's episode; system is the LLM customer's
// system prompt.
func newEpisode(d *domain.Domain, bp *record.Blueprint, ch client.Chatter, opts Options, trial int, system string) (*Episode, error) {
	x := &Episode{bp: bp, tools: d.Tools, maxTurns: opts.MaxTurns, maxToolErrors: opts.MaxToolErrors, st: d.Base.NewState(),
		ep: &episode{trial: trial, tr: &record.Trajectory{ID: bp.ID, BlueprintID: bp.ID, Domain: bp.Domain, Engine: Name, Behavior: bp.Behavior,
			Messages: []record.Message{{Role: "system", Content: d.Policy}}, Ending: record.EndMaxTurns}},
		ids: &idFixer{rng: blueprints.Stream(bp.Seed, bp.Domain, bp.Index, "llm-ids-"+strconv.Itoa(trial)), used: map[string]bool{}},
	}
	x.st.Inject(tools.FaultsOf(bp.Failures))
	if opts.User == "embedded" {
		// Trial 0 draws from the embedded engine's user stream; later
		// trials from their own, so they say things differently.
		purpose := "user"
		if trial > 0 {
			purpose = "user-t" + strconv.Itoa(trial)
		}
		u, err := usersim.NewGeneric(d.Model, bp, blueprints.Stream(bp.Seed, bp.Domain, bp.Index, purpose))
		if err != nil {
			return nil, err
		}
		x.cust = &embeddedCustomer{u: u, l: usersim.NewListenerFor(bp, u)}
	} else {
		x.cust = &llmCustomer{ch: ch, bp: bp, trial: trial, system: system, session: client.SessionID(bp.ID, trial)}
	}
	return x, nil
}

// Open has the customer say the first message (or end the dialogue at once).
func (x *Episode) Open(ctx context.Context) error {
	if x.opened {
		return errors.New("the episode is already open")
	}
	x.opened = true
	if x.maxTurns <= 0 {
		x.finish()
		return nil
	}
	return x.customerTurn(ctx)
}

// Act takes one agent message: its tool calls run, each answered by a
// tool message ("Error: …" for an unknown tool or bad arguments, as a
// real tool server answers); text without calls goes to the customer,
// who answers or ends the dialogue. A message with neither is the agent
// saying nothing, which ends the dialogue. The dialogue also ends at
// the tool error, step and turn bounds.
func (x *Episode) Act(ctx context.Context, msg openai.ChatCompletionMessage) error {
	if !x.opened || x.done {
		return ErrEpisodeDone
	}
	ep, tr := x.ep, x.ep.tr
	text := strings.TrimSpace(msg.Content)
	if len(msg.ToolCalls) == 0 {
		if text == "" {
			ep.label, ep.detail = LabelEmptyTurn, "the agent said nothing, twice"
			x.finish()
			return nil
		}
		tr.Messages = append(tr.Messages, record.Message{Role: "assistant", Content: text, ReasoningContent: msg.ReasoningContent})
		if x.stop != "" {
			// Text said with a stop token was a goodbye: the agent has
			// answered it, and the token ends the dialogue.
			tr.Ending = endingOf(x.stop)
			x.finish()
			return nil
		}
		if x.turn++; x.turn >= x.maxTurns {
			x.finish()
			return nil
		}
		return x.customerTurn(ctx)
	}
	if text != "" {
		// Text with tool calls: kept, as its own message before the
		// calls (chat templates and the verifier want them apart).
		ep.mixed++
		tr.Messages = append(tr.Messages, record.Message{Role: "assistant", Content: text})
	}
	out := record.Message{Role: "assistant", ReasoningContent: msg.ReasoningContent}
	for _, c := range msg.ToolCalls {
		id, fixed := x.ids.fix(c.ID)
		if fixed {
			ep.fixedIDs++
		}
		out.ToolCalls = append(out.ToolCalls, record.ToolCall{ID: id, Type: "function",
			Function: record.FunctionCall{Name: c.Function.Name, Arguments: c.Function.Arguments}})
	}
	tr.Messages = append(tr.Messages, out)
	for _, c := range out.ToolCalls {
		// Unknown tools and malformed arguments come back as "Error: …"
		// observations, as a real tool server would answer.
		res := x.tools.Call(ctx, x.st, c.Function.Name, c.Function.Arguments)
		if res.Err {
			ep.toolErrors++
		}
		tr.Messages = append(tr.Messages, record.Message{Role: "tool", ToolCallID: c.ID, Name: c.Function.Name, Content: res.Output})
		x.calls = append(x.calls, usersim.Executed{Tool: c.Function.Name, Arguments: c.Function.Arguments,
			Write: x.tools.Kind(c.Function.Name) == record.KindWrite, Failed: res.Err})
	}
	// As the oracle, which gives up after agentStepsPerTurn steps, a
	// model that keeps calling tools without answering ends the dialogue.
	if x.steps++; ep.toolErrors >= x.maxToolErrors || x.steps >= agentStepsPerTurn {
		x.finish()
	}
	return nil
}

// customerTurn has the customer answer the dialogue so far.
func (x *Episode) customerTurn(ctx context.Context) error {
	ep, tr := x.ep, x.ep.tr
	text, stop, err := x.cust.next(ctx, tr.Messages, x.calls)
	if errors.Is(err, errEmptyTurn) {
		ep.label, ep.detail = LabelEmptyTurn, "the customer said nothing, twice"
		x.finish()
		return nil
	}
	if err != nil {
		return err
	}
	if text == "" {
		tr.Ending = endingOf(stop)
		x.finish()
		return nil
	}
	tr.Messages = append(tr.Messages, record.Message{Role: "user", Content: text})
	x.stop, x.steps = stop, 0
	return nil
}

// finish ends the episode: the state's hash, and the premature-stop guard.
func (x *Episode) finish() {
	x.done = true
	ep := x.ep
	ep.tr.StateHash = x.st.Hash()
	if ep.label == "" && ep.tr.Ending == record.EndStop && !agentClosed(ep.tr.Messages) {
		if tool, ok := missedWrite(x.bp, x.calls); ok {
			ep.label = LabelPrematureStop
			ep.detail = fmt.Sprintf("the customer sent %s before the agent ran %s", client.TokenStop, tool)
		}
	}
}

// Done reports whether the dialogue has ended.
func (x *Episode) Done() bool { return x.done }

// Trajectory is the dialogue so far; the caller must not change it.
func (x *Episode) Trajectory() *record.Trajectory { return x.ep.tr }

// Guard is the guard label of an episode that ended on a simulator or
// agent fault the verifier does not see (empty_turn, premature_stop)
// and what it saw; "" when none fired.
func (x *Episode) Guard() (label, detail string) { return x.ep.label, x.ep.detail }
