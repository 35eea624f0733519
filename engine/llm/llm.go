package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	openai "github.com/sashabaranov/go-openai"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/dpo"
	"github.com/synth-data/synth/engine"
	client "github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/verify"
)

// Name is the engine's name, as --engine takes it and trajectories record.
const Name = "llm"

// Options are what an LLM engine takes from the run's config; the JSON
// names are the config keys (DecodeOptions).
type Options struct {
	MaxTurns      int    `json:"max_turns"`
	Trials        int    `json:"trials"`          // dialogues tried per blueprint
	MaxToolErrors int    `json:"max_tool_errors"` // tool errors that end a dialogue
	User          string `json:"user"`            // the customer: "embedded" (rule-based) or "llm"
	// Instructions is "llm" to have the writer write each customer
	// instruction, reviewed by Judges judges and rewritten up to Rewrites
	// times; anything else keeps the blueprint's template instruction.
	Instructions string `json:"instructions"`
	Judges       int    `json:"judges"`
	Rewrites     int    `json:"rewrites"`
	Workers      int    `json:"workers"`   // CPU-bound work (verification) at once
	Dialogues    int    `json:"dialogues"` // dialogues in flight
}

// DecodeOptions reads the LLM engines' keys of a run's config.
func DecodeOptions(raw []byte) (Options, error) {
	var o Options
	if err := json.Unmarshal(raw, &o); err != nil {
		return o, fmt.Errorf("llm engine options: %w", err)
	}
	return o, nil
}

// Base is what the LLM engines share: the client, the CPU bound and the
// optional capabilities the pipeline asks for.
type Base struct {
	Chat      client.Chatter
	dialogues int
	// cpu bounds the CPU-heavy stages (verification, the skeleton) to
	// the workers while many dialogues wait on the network.
	cpu chan struct{}
}

// NewBase shares ch among dialogues, workers of which may use the CPU at once.
func NewBase(ch client.Chatter, workers, dialogues int) Base {
	return Base{Chat: ch, dialogues: max(dialogues, 1), cpu: make(chan struct{}, max(workers, 1))}
}

// Spent reports a spent budget when the client has one (engine.Budgeted).
func (b *Base) Spent() error {
	if s, ok := b.Chat.(engine.Budgeted); ok {
		return s.Spent()
	}
	return nil
}

// Billing is what the client billed so far (engine.Metered).
func (b *Base) Billing() *engine.Billing { return engine.BillingOf(b.Chat) }

// InFlight is how many dialogues the engine wants at once (engine.Waiting).
func (b *Base) InFlight() int { return b.dialogues }

// OnCPU runs f holding a CPU slot.
func (b *Base) OnCPU(ctx context.Context, f func()) error {
	select {
	case b.cpu <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-b.cpu }()
	f()
	return nil
}

// Verify verifies a dialogue holding a CPU slot.
func (b *Base) Verify(ctx context.Context, ver *verify.Verifier, bp *record.Blueprint, tr *record.Trajectory) (record.Verdict, error) {
	var v record.Verdict
	err := b.OnCPU(ctx, func() { v = ver.Verify(ctx, bp, tr) })
	return v, err
}

// Engine is the LLM engine: an LLM agent (and an LLM or the rule-based
// customer) play each blueprint up to Trials times, and the first
// dialogue that verifies is kept (APIGen-MT's rejection sampling).
type Engine struct {
	Base
	opts  Options
	d     *domain.Domain
	ver   *verify.Verifier
	plan  *dpo.Plan
	tools []openai.Tool // every tool of the domain, in definition order
	// labels checks that a pair's rejected side shows its label.
	labels *dpo.LabelChecker
}

// New makes the LLM engine of a domain; plan may be nil (no pairs).
func New(d *domain.Domain, ver *verify.Verifier, ch client.Chatter, plan *dpo.Plan, opts Options) (*Engine, error) {
	var tools []openai.Tool
	if err := json.Unmarshal([]byte(d.Tools.OpenAI()), &tools); err != nil {
		return nil, fmt.Errorf("domain %s: its tools are not an OpenAI tools array: %w", d.Name, err)
	}
	return &Engine{Base: NewBase(ch, opts.Workers, opts.Dialogues), opts: opts, d: d, ver: ver, plan: plan, tools: tools, labels: dpo.NewLabelChecker(d, ver)}, nil
}

// Dialogue writes the instruction (with Instructions "llm"), then plays
// the trials.
func (e *Engine) Dialogue(ctx context.Context, bp *record.Blueprint, offered map[string]bool) (*engine.Outcome, error) {
	// Once started, a dialogue finishes even if the budget runs out
	// meanwhile, so the work in flight is not wasted.
	ctx = client.Admitted(ctx)
	st := &engine.LLMStats{}
	m := engine.NewMeter(e.Chat, st)
	if e.opts.Instructions == "llm" {
		w := Writer{Judges: e.opts.Judges, Rewrites: e.opts.Rewrites}
		if err := w.Instruct(ctx, m, bp, st); err != nil {
			return nil, err
		}
	}
	out, err := e.trials(ctx, m, bp, st, offered)
	if err != nil {
		return nil, err
	}
	out.Usage = st
	return out, nil
}

// toolsFor is the tools a blueprint's agent is sent (--tools).
func (e *Engine) toolsFor(offered map[string]bool) []openai.Tool {
	if offered == nil {
		return e.tools
	}
	out := make([]openai.Tool, 0, len(offered))
	for _, t := range e.tools {
		if t.Function != nil && offered[t.Function.Name] {
			out = append(out, t)
		}
	}
	return out
}

// Seed derives a request seed from the run seed, the blueprint, the
// trial, the role and anything else that tells requests apart, so a
// retry with another seed is another request (and another cache entry).
func Seed(bp *record.Blueprint, trial int, role client.Role, extra ...string) *int {
	labels := append([]string{bp.Domain, strconv.Itoa(bp.Index), "llm", strconv.Itoa(trial), string(role)}, extra...)
	s := int(blueprints.Mix(bp.Seed, labels...) >> 33) // 31 bits: fits every server's int
	return &s
}
