package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/verify"
)

// The LLM engines. --engine llm plays each blueprint with an LLM agent
// and an LLM (or the rule-based) customer, up to --trials times, and
// keeps the first dialogue that verifies (APIGen-MT's rejection
// sampling). --engine hybrid plays the embedded dialogue and has the LLM
// rewrite its lines (ToolACE-MT's mask-and-fill), keeping every entity.
// Both may have the LLM write the customer's instruction, reviewed by a
// committee of judges. Everything a model says goes through the same
// verifier as the embedded engine.
//
// Determinism: every request is a function of the blueprint, the trial
// and the dialogue so far, with a seed derived from (run seed,
// blueprint, trial, role), so the same responses give the same release
// whatever --dialogues is; a response cache keyed by request content
// makes a rerun reproduce a release without sending a request.

// RunOptions are the parts of a run a Go caller may supply.
type RunOptions struct {
	// Chatter answers the LLM engines' requests. Nil builds an llm.Client
	// from Config.LLM.
	Chatter llm.Chatter
}

// LLMBilling is what this process sent and paid for: it differs between
// a first run and a cached rerun, so it goes to logs, never to a release.
type LLMBilling struct {
	Requests     int64   `json:"requests"`
	Retries      int64   `json:"retries"`
	CacheHits    int64   `json:"cache_hits"`
	Tokens       int64   `json:"billed_tokens"`
	CostUSD      float64 `json:"billed_cost_usd"`
	MeanInFlight float64 `json:"mean_in_flight"`
	PeakInFlight int     `json:"peak_in_flight"`
	// Overhead is the client's own time per call (no network, no waits).
	Overhead time.Duration `json:"overhead_ns_per_call"`
}

// meterable is a Chatter that can report what it billed (llm.Client).
type meterable interface {
	Usage() llm.Usage
	Stats() llm.Stats
}

func billingOf(ch llm.Chatter) *LLMBilling {
	m, ok := ch.(meterable)
	if !ok {
		return nil
	}
	u, s := m.Usage().BilledTotal(), m.Stats()
	return &LLMBilling{Requests: u.Requests, Retries: u.Retries, CacheHits: s.CacheHits, Tokens: u.PromptTokens + u.CompletionTokens,
		CostUSD: u.CostUSD, MeanInFlight: s.MeanInFlight, PeakInFlight: s.PeakInFlight, Overhead: s.Overhead}
}

// agentStepsPerTurn caps the agent's requests between two customer
// messages: as the oracle, which gives up after 64 steps, a model that
// keeps calling tools without answering ends the dialogue.
const agentStepsPerTurn = 64

// llmEngine holds what every LLM dialogue of a run shares.
type llmEngine struct {
	cfg   Config
	d     *domains.Domain
	ver   *verify.Verifier
	chat  llm.Chatter
	tools []openai.Tool // every tool of the domain, in definition order
	// choice says which of them each blueprint's agent is given (--tools).
	choice toolChoice
	// cpu bounds the CPU-heavy stages (generation, verification) to
	// --workers while --dialogues dialogues wait on the network.
	cpu chan struct{}
}

func newLLMEngine(cfg Config, d *domains.Domain, ver *verify.Verifier, ch llm.Chatter) (*llmEngine, error) {
	var tools []openai.Tool
	if err := json.Unmarshal([]byte(d.Tools.OpenAI()), &tools); err != nil {
		return nil, fmt.Errorf("domain %s: its tools are not an OpenAI tools array: %w", d.Name, err)
	}
	choice, err := parseTools(cfg.Tools)
	if err != nil {
		return nil, err
	}
	return &llmEngine{cfg: cfg, d: d, ver: ver, chat: ch, tools: tools, choice: choice, cpu: make(chan struct{}, max(cfg.Workers, 1))}, nil
}

// toolsFor is the tools a blueprint's agent is sent (--tools).
func (e *llmEngine) toolsFor(bp *record.Blueprint) []openai.Tool {
	if e.choice.all {
		return e.tools
	}
	names := e.choice.offered(e.d.Tools, bp)
	out := make([]openai.Tool, 0, len(names))
	for _, t := range e.tools {
		if t.Function != nil && names[t.Function.Name] {
			out = append(out, t)
		}
	}
	return out
}

// newChatter builds the run's client unless the caller supplied one.
func newChatter(cfg Config, opts RunOptions) (llm.Chatter, func() error, error) {
	if opts.Chatter != nil {
		return opts.Chatter, func() error { return nil }, nil
	}
	c, err := llm.New(cfg.LLM)
	if err != nil {
		return nil, nil, fmt.Errorf("--engine %s: %w", cfg.Engine, err)
	}
	return c, c.Close, nil
}

// onCPU runs f holding a CPU slot.
func (e *llmEngine) onCPU(ctx context.Context, f func()) error {
	select {
	case e.cpu <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-e.cpu }()
	f()
	return nil
}

func (e *llmEngine) verify(ctx context.Context, bp *record.Blueprint, tr *record.Trajectory) (record.Verdict, error) {
	var v record.Verdict
	err := e.onCPU(ctx, func() { v = e.ver.Verify(ctx, bp, tr) })
	return v, err
}

// seed derives a request seed from the run seed, the blueprint, the
// trial, the role and anything else that tells requests apart, so a
// retry with another seed is another request (and another cache entry).
func seed(bp *record.Blueprint, trial int, role llm.Role, extra ...string) *int {
	labels := append([]string{bp.Domain, strconv.Itoa(bp.Index), "llm", strconv.Itoa(trial), string(role)}, extra...)
	s := int(blueprints.Mix(bp.Seed, labels...) >> 33) // 31 bits: fits every server's int
	return &s
}

// dialogue plays one blueprint on the LLM engine: the instruction, then
// the trials (llm) or the refined skeleton (hybrid). It fills the item's
// outcome; failed trials before it go to it.attempts.
func (e *llmEngine) dialogue(ctx context.Context, it *item, plan *dpoPlan, offered map[string]bool) error {
	st := &LLMStats{}
	m := &meter{ch: e.chat, stats: st}
	if e.cfg.Instructions == "llm" {
		if err := e.instruct(ctx, m, it.bp, st); err != nil {
			return err
		}
	}
	var err error
	if e.cfg.Engine == EngineHybrid {
		err = e.hybrid(ctx, m, it, st)
	} else {
		err = e.trials(ctx, m, it, st, plan, offered)
	}
	it.llm = st
	return err
}

// meter counts the tokens of every response one blueprint used. The
// counts come from the responses themselves, cached or not, so they are
// the same on a rerun and belong in the release.
type meter struct {
	ch    llm.Chatter
	mu    sync.Mutex
	stats *LLMStats
}

func (m *meter) Chat(ctx context.Context, role llm.Role, stage string, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	resp, err := m.ch.Chat(ctx, role, stage, req)
	if err != nil {
		return resp, err
	}
	if len(resp.Choices) == 0 {
		return resp, fmt.Errorf("llm %s (%s): the response has no choices", role, stage)
	}
	m.mu.Lock()
	m.stats.addUsage(string(role)+"/"+stage, resp.Usage)
	m.mu.Unlock()
	return resp, nil
}

// TokenUsage is what one role spent in one stage.
type TokenUsage struct {
	Responses        int64   `json:"responses"`
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	CostUSD          float64 `json:"estimated_cost_usd"`
}

// ReviewStats counts instruction writing and review.
type ReviewStats struct {
	Written              int `json:"written"`                // blueprints whose instruction the LLM wrote
	AcceptedFirst        int `json:"accepted_first"`         // accepted without a rewrite
	AcceptedAfterRewrite int `json:"accepted_after_rewrite"` // accepted after one or more rewrites
	Rewrites             int `json:"rewrites"`               // rewrites with the judges' feedback
	KeptTemplate         int `json:"kept_template"`          // never accepted: the template instruction was kept
	Votes                int `json:"votes"`
	VotesFor             int `json:"votes_for"`
	UnreadableVotes      int `json:"unreadable_votes"` // judge replies that were not a review (counted against)
}

// RefineStats counts the hybrid engine's rewrites.
type RefineStats struct {
	Lines     int `json:"lines"`     // user and assistant lines offered for rewriting
	Kept      int `json:"kept"`      // rewrites that kept every entity and were used
	Rejected  int `json:"rejected"`  // lines whose every rewrite was rejected: the original stayed
	Retries   int `json:"retries"`   // rewrites rejected and asked again
	Fallbacks int `json:"fallbacks"` // dialogues that failed re-verification and went out as the skeleton
}

// LLMStats is the manifest's llm section: what the LLM engines did and
// used. Every figure is deterministic (it depends on the responses, not
// on whether they came from the network or the cache); what was billed
// goes to the logs only.
type LLMStats struct {
	Engine       string            `json:"engine"`
	User         string            `json:"user,omitempty"`
	Instructions string            `json:"instructions,omitempty"`
	Models       map[string]string `json:"models,omitempty"`
	Trials       int               `json:"trials,omitempty"`
	Judges       int               `json:"judges"`
	Rewrites     int               `json:"rewrites"`

	// Usage per "role/stage": tokens of every response used, and the
	// cost they would have at llm.prices.
	Usage map[string]*TokenUsage `json:"usage"`
	Total TokenUsage             `json:"total"`

	// TrialsToPass counts blueprints by the trial that first verified
	// ("1", "2", ...), or "none".
	TrialsToPass map[string]int `json:"trials_to_pass,omitempty"`
	// TrialRuns and TrialPasses count the dialogues played and verified
	// at each trial number; PassRate is their ratio.
	TrialRuns   map[string]int     `json:"trial_runs,omitempty"`
	TrialPasses map[string]int     `json:"trial_passes,omitempty"`
	PassRate    map[string]float64 `json:"pass_rate_by_trial,omitempty"`
	// Failures counts failed dialogues by taxonomy label (premature_stop
	// and empty_turn are simulator failures, not the agent's).
	Failures       map[string]int `json:"failures,omitempty"`
	PrematureStops int            `json:"premature_stops"`
	EmptyTurns     int            `json:"empty_turns"`
	MixedText      int            `json:"text_with_tool_calls"` // agent replies with text and tool calls (the text kept as its own message)
	ToolErrors     int            `json:"tool_errors"`          // tool calls answered with an error observation
	FixedCallIDs   int            `json:"fixed_call_ids"`       // tool-call ids replaced by 9-alphanumeric ones

	Review *ReviewStats `json:"instructions_review,omitempty"`
	Refine *RefineStats `json:"refine,omitempty"`
}

func (s *LLMStats) addUsage(key string, u openai.Usage) {
	s.usage(key).add(TokenUsage{Responses: 1, PromptTokens: int64(u.PromptTokens), CompletionTokens: int64(u.CompletionTokens)})
}

// usage is the entry of key, created on first use.
func (s *LLMStats) usage(key string) *TokenUsage {
	if s.Usage == nil {
		s.Usage = map[string]*TokenUsage{}
	}
	t := s.Usage[key]
	if t == nil {
		t = &TokenUsage{}
		s.Usage[key] = t
	}
	return t
}

// add sums the token counts of o (not the cost, which finish derives).
func (t *TokenUsage) add(o TokenUsage) {
	t.Responses += o.Responses
	t.PromptTokens += o.PromptTokens
	t.CompletionTokens += o.CompletionTokens
}

func bump(m *map[string]int, k string, n int) {
	if *m == nil {
		*m = map[string]int{}
	}
	(*m)[k] += n
}

func (s *LLMStats) review() *ReviewStats {
	if s.Review == nil {
		s.Review = &ReviewStats{}
	}
	return s.Review
}

func (s *LLMStats) refine() *RefineStats {
	if s.Refine == nil {
		s.Refine = &RefineStats{}
	}
	return s.Refine
}

// merge adds another blueprint's (or chunk's) counts.
func (s *LLMStats) merge(o *LLMStats) {
	if o == nil {
		return
	}
	for k, u := range o.Usage {
		s.usage(k).add(*u)
	}
	for _, p := range []struct{ dst, src *map[string]int }{
		{&s.TrialsToPass, &o.TrialsToPass}, {&s.TrialRuns, &o.TrialRuns}, {&s.TrialPasses, &o.TrialPasses}, {&s.Failures, &o.Failures},
	} {
		for k, v := range *p.src {
			bump(p.dst, k, v)
		}
	}
	s.PrematureStops += o.PrematureStops
	s.EmptyTurns += o.EmptyTurns
	s.MixedText += o.MixedText
	s.ToolErrors += o.ToolErrors
	s.FixedCallIDs += o.FixedCallIDs
	if r := o.Review; r != nil {
		d := s.review()
		d.Written += r.Written
		d.AcceptedFirst += r.AcceptedFirst
		d.AcceptedAfterRewrite += r.AcceptedAfterRewrite
		d.Rewrites += r.Rewrites
		d.KeptTemplate += r.KeptTemplate
		d.Votes += r.Votes
		d.VotesFor += r.VotesFor
		d.UnreadableVotes += r.UnreadableVotes
	}
	if r := o.Refine; r != nil {
		d := s.refine()
		d.Lines += r.Lines
		d.Kept += r.Kept
		d.Rejected += r.Rejected
		d.Retries += r.Retries
		d.Fallbacks += r.Fallbacks
	}
}

// finish adds what the config says and what follows from the counts:
// the models, costs at the configured prices (summed in key order, so
// the float sums are reproducible), totals and pass rates.
func (s *LLMStats) finish(cfg Config) {
	s.Engine, s.Instructions, s.Judges, s.Rewrites = cfg.Engine, cfg.Instructions, cfg.Judges, cfg.Rewrites
	if cfg.Engine == EngineLLM {
		s.User, s.Trials = cfg.User, cfg.Trials
	}
	s.Models = map[string]string{}
	for _, r := range llm.Roles() {
		if m := cfg.LLM.Roles[r].Model; m != "" {
			s.Models[string(r)] = m
		}
	}
	if s.Usage == nil {
		s.Usage = map[string]*TokenUsage{}
	}
	s.Total = TokenUsage{}
	for _, k := range slices.Sorted(maps.Keys(s.Usage)) {
		u := s.Usage[k]
		role, _, _ := strings.Cut(k, "/")
		p := cfg.LLM.Prices[cfg.LLM.Roles[llm.Role(role)].Model]
		u.CostUSD = (float64(u.PromptTokens)*p.Input + float64(u.CompletionTokens)*p.Output) / 1e6
		s.Total.add(*u)
		s.Total.CostUSD += u.CostUSD
	}
	s.PassRate = nil
	for k, runs := range s.TrialRuns {
		if s.PassRate == nil {
			s.PassRate = map[string]float64{}
		}
		s.PassRate[k] = ratio(s.TrialPasses[k], runs)
	}
}

// errBudgetSkipped marks a blueprint not started because the budget ran out.
var errBudgetSkipped = fmt.Errorf("not started: %w", llm.ErrBudget)

// budgetStop is produce's report that the budget stopped the run: the
// blueprints before Done are complete and written.
type budgetStop struct{ Done int }

func (b *budgetStop) Error() string {
	return fmt.Sprintf("%v after %d blueprints", llm.ErrBudget, b.Done)
}

func (b *budgetStop) Unwrap() error { return llm.ErrBudget }

func isBudget(err error) bool { return errors.Is(err, llm.ErrBudget) }
