package engine

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/synth-data/synth/llm"
)

// Billing is what this process sent and paid for: it differs between
// a first run and a cached rerun, so it goes to logs, never to a release.
type Billing struct {
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

// Billed is a Chatter that can report what it billed (llm.Client).
type Billed interface {
	Usage() llm.Usage
	Stats() llm.Stats
}

// BillingOf is what ch billed so far; nil when it does not say.
func BillingOf(ch llm.Chatter) *Billing {
	m, ok := ch.(Billed)
	if !ok {
		return nil
	}
	u, s := m.Usage().BilledTotal(), m.Stats()
	return &Billing{Requests: u.Requests, Retries: u.Retries, CacheHits: s.CacheHits, Tokens: u.PromptTokens + u.CompletionTokens,
		CostUSD: u.CostUSD, MeanInFlight: s.MeanInFlight, PeakInFlight: s.PeakInFlight, Overhead: s.Overhead}
}

// Meter counts the tokens of every response one blueprint used. The
// counts come from the responses themselves, cached or not, so they are
// the same on a rerun and belong in the release.
type Meter struct {
	ch    llm.Chatter
	mu    sync.Mutex
	stats *LLMStats
}

// NewMeter counts what ch answers into stats.
func NewMeter(ch llm.Chatter, stats *LLMStats) *Meter { return &Meter{ch: ch, stats: stats} }

// Chat sends req and counts the response's tokens under role/stage.
func (m *Meter) Chat(ctx context.Context, role llm.Role, stage string, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
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
	Responses int64 `json:"responses"`
	llm.Tokens
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
	s.usage(key).Add(TokenUsage{Responses: 1, Tokens: llm.Tokens{PromptTokens: int64(u.PromptTokens), CompletionTokens: int64(u.CompletionTokens)}})
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

// Add sums o into t. Until the release is finished the costs are 0: they
// are derived from the totals at the configured prices.
func (t *TokenUsage) Add(o TokenUsage) {
	t.Responses += o.Responses
	t.Tokens.Add(o.Tokens)
}

// Bump adds n to the count of k, making the map on first use.
func Bump(m *map[string]int, k string, n int) {
	if *m == nil {
		*m = map[string]int{}
	}
	(*m)[k] += n
}

// AddCounts adds src's counts to dst's, field by field: an int adds, and
// a map[string]int adds key by key (made on first use). It is the one
// merge of the counter sections chunks and blueprints report (DPOStats,
// ReviewStats, RefineStats, release.Counts); fields of other kinds are
// left alone, so those types hold nothing else (TestAddCounts).
func AddCounts[T any](dst, src *T) {
	d, s := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem()
	for i := range d.NumField() {
		df, sf := d.Field(i), s.Field(i)
		switch {
		case sf.Kind() == reflect.Int:
			df.SetInt(df.Int() + sf.Int())
		case sf.Kind() == reflect.Map && sf.Type().Elem().Kind() == reflect.Int && sf.Len() > 0:
			if df.IsNil() {
				df.Set(reflect.MakeMap(df.Type()))
			}
			for it := sf.MapRange(); it.Next(); {
				n := it.Value().Int()
				if old := df.MapIndex(it.Key()); old.IsValid() {
					n += old.Int()
				}
				df.SetMapIndex(it.Key(), reflect.ValueOf(n).Convert(df.Type().Elem()))
			}
		}
	}
}

// ReviewCounts is the instruction review section, made on first use.
func (s *LLMStats) ReviewCounts() *ReviewStats {
	if s.Review == nil {
		s.Review = &ReviewStats{}
	}
	return s.Review
}

// RefineCounts is the hybrid rewrite section, made on first use.
func (s *LLMStats) RefineCounts() *RefineStats {
	if s.Refine == nil {
		s.Refine = &RefineStats{}
	}
	return s.Refine
}

// Merge adds another blueprint's (or chunk's) counts.
func (s *LLMStats) Merge(o *LLMStats) {
	if o == nil {
		return
	}
	for k, u := range o.Usage {
		s.usage(k).Add(*u)
	}
	for _, p := range []struct{ dst, src *map[string]int }{
		{&s.TrialsToPass, &o.TrialsToPass}, {&s.TrialRuns, &o.TrialRuns}, {&s.TrialPasses, &o.TrialPasses}, {&s.Failures, &o.Failures},
	} {
		for k, v := range *p.src {
			Bump(p.dst, k, v)
		}
	}
	s.PrematureStops += o.PrematureStops
	s.EmptyTurns += o.EmptyTurns
	s.MixedText += o.MixedText
	s.ToolErrors += o.ToolErrors
	s.FixedCallIDs += o.FixedCallIDs
	if o.Review != nil {
		AddCounts(s.ReviewCounts(), o.Review)
	}
	if o.Refine != nil {
		AddCounts(s.RefineCounts(), o.Refine)
	}
}
