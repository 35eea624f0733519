package llm

import (
	"cmp"
	"maps"
	"slices"
	"sync"
	"time"
)

// Usage is token accounting per role, stage and model, in two views.
//
// Used counts every response a caller received, from the network or the
// cache: it depends only on the requests made and the responses they got,
// so a cached rerun reproduces it exactly and it belongs in a release's
// manifest. Billed counts what this process sent and paid for: requests,
// retries, cache hits and the tokens and cost of sent requests; it is for
// logs and the budget.
type Usage struct {
	Used     []UsedRow   `json:"used"`
	Billed   []BilledRow `json:"billed"`
	Unpriced []string    `json:"unpriced,omitempty"` // models used that llm.prices lacks (costed at 0)
}

// Tokens are the tokens of some responses and what they cost at the
// configured prices (an estimate: llm.prices is the config's, not the
// provider's bill). engine.TokenUsage, a release's usage, embeds it.
type Tokens struct {
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	CostUSD          float64 `json:"estimated_cost_usd"`
}

// Add sums o into t.
func (t *Tokens) Add(o Tokens) {
	t.PromptTokens += o.PromptTokens
	t.CompletionTokens += o.CompletionTokens
	t.CostUSD += o.CostUSD
}

// UsedRow is the deterministic usage of one role, stage and model.
type UsedRow struct {
	Role      Role   `json:"role,omitempty"`
	Stage     string `json:"stage,omitempty"`
	Model     string `json:"model,omitempty"`
	Responses int64  `json:"responses"`
	Tokens
}

// BilledRow is what one role, stage and model cost this process.
type BilledRow struct {
	Role      Role   `json:"role,omitempty"`
	Stage     string `json:"stage,omitempty"`
	Model     string `json:"model,omitempty"`
	Requests  int64  `json:"requests"` // HTTP requests sent, retries included
	Retries   int64  `json:"retries"`
	CacheHits int64  `json:"cache_hits"`
	Tokens
}

// UsedTotal sums the Used rows (in their sorted order, so the float sum
// is reproducible too).
func (u Usage) UsedTotal() UsedRow {
	var t UsedRow
	for _, r := range u.Used {
		t.Responses += r.Responses
		t.Tokens.Add(r.Tokens)
	}
	return t
}

// BilledTotal sums the Billed rows.
func (u Usage) BilledTotal() BilledRow {
	var t BilledRow
	for _, r := range u.Billed {
		t.Requests += r.Requests
		t.Retries += r.Retries
		t.CacheHits += r.CacheHits
		t.Tokens.Add(r.Tokens)
	}
	return t
}

// Stats are the client's live figures: throughput, concurrency, faults
// and its own overhead. They vary from run to run; keep them out of
// releases.
type Stats struct {
	Calls          int64            `json:"calls"`      // Chat calls answered, from the network or the cache
	CacheHits      int64            `json:"cache_hits"` // answered from the cache
	Requests       int64            `json:"requests"`   // HTTP requests sent, retries included
	Retries        int64            `json:"retries"`
	Throttled      int64            `json:"throttled"` // 429 responses
	Faults         map[string]int64 `json:"faults"`    // failed attempts by class (Fault* constants)
	InFlight       int              `json:"in_flight"`
	PeakInFlight   int              `json:"peak_in_flight"`
	MeanInFlight   float64          `json:"mean_in_flight"` // time-weighted, while any request was in flight
	Limit          int              `json:"limit"`          // the adaptive concurrency limit now
	MaxConcurrency int              `json:"max_concurrency"`
	Cuts           int64            `json:"cuts"`         // times a 429 burst halved the limit
	CacheErrors    int64            `json:"cache_errors"` // cache writes that failed (the response was still used)
	// UnparsedCalls counts replies to requests with tools whose text holds
	// a tool call the server did not parse: its tool-call parser is off,
	// or failed on a malformed call (servers.go).
	UnparsedCalls int64 `json:"unparsed_calls"`
	// LengthStops counts replies the server cut at the role's max_tokens
	// (finish_reason "length").
	LengthStops int64 `json:"length_stops"`
	// Overhead is the mean time a call spends in synth's own code:
	// everything but the network and deliberate waits (limits, backoff).
	Overhead time.Duration `json:"overhead_ns"`
}

type usageKey struct {
	role         Role
	stage, model string
}

type counters struct {
	responses, usedPrompt, usedCompletion                        int64
	requests, retries, cacheHits, billedPrompt, billedCompletion int64
}

// accounts holds Usage and the counting parts of Stats.
type accounts struct {
	mu     sync.Mutex
	prices map[string]Price
	rows   map[usageKey]*counters

	billedCost   float64
	billedTokens int64

	// counts holds the counting parts of Stats; overhead is their sum,
	// which stats turns into a mean per call.
	counts   Stats
	overhead time.Duration
}

func newAccounts(prices map[string]Price) *accounts {
	return &accounts{prices: prices, rows: map[usageKey]*counters{}, counts: Stats{Faults: map[string]int64{}}}
}

// row returns k's counters; a.mu is held.
func (a *accounts) row(k usageKey) *counters {
	c := a.rows[k]
	if c == nil {
		c = &counters{}
		a.rows[k] = c
	}
	return c
}

func (a *accounts) cost(model string, prompt, completion int64) float64 {
	return a.prices[model].Cost(prompt, completion)
}

// sent counts one HTTP request.
func (a *accounts) sent(k usageKey, retry bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.row(k)
	c.requests++
	a.counts.Requests++
	if retry {
		c.retries++
		a.counts.Retries++
	}
}

// fault counts a failed attempt.
func (a *accounts) fault(class string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.counts.Faults[class]++
	if class == FaultThrottled {
		a.counts.Throttled++
	}
}

// billed counts the tokens of a response this process paid for.
func (a *accounts) billed(k usageKey, prompt, completion int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.row(k)
	c.billedPrompt += prompt
	c.billedCompletion += completion
	a.billedTokens += prompt + completion
	a.billedCost += a.cost(k.model, prompt, completion)
}

// used counts a response handed to a caller.
func (a *accounts) used(k usageKey, prompt, completion int64, hit bool, overhead time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.row(k)
	c.responses++
	c.usedPrompt += prompt
	c.usedCompletion += completion
	a.counts.Calls++
	a.overhead += overhead
	if hit {
		c.cacheHits++
		a.counts.CacheHits++
	}
}

// reply counts what a live reply says about the server's parsing and
// limits.
func (a *accounts) reply(unparsed, cut bool) {
	if !unparsed && !cut {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if unparsed {
		a.counts.UnparsedCalls++
	}
	if cut {
		a.counts.LengthStops++
	}
}

func (a *accounts) cacheError() {
	a.mu.Lock()
	a.counts.CacheErrors++
	a.mu.Unlock()
}

// spent reports the billed cost and tokens so far.
func (a *accounts) spent() (float64, int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.billedCost, a.billedTokens
}

func (a *accounts) usage() Usage {
	a.mu.Lock()
	defer a.mu.Unlock()
	keys := slices.SortedFunc(maps.Keys(a.rows), func(x, y usageKey) int {
		return cmp.Or(cmp.Compare(x.role, y.role), cmp.Compare(x.stage, y.stage), cmp.Compare(x.model, y.model))
	})
	u := Usage{Used: []UsedRow{}, Billed: []BilledRow{}}
	unpriced := map[string]bool{}
	for _, k := range keys {
		c := a.rows[k]
		if c.responses > 0 {
			u.Used = append(u.Used, UsedRow{
				Role: k.role, Stage: k.stage, Model: k.model,
				Responses: c.responses,
				// From integer totals, so the figure is the same however
				// the responses interleaved.
				Tokens: Tokens{PromptTokens: c.usedPrompt, CompletionTokens: c.usedCompletion, CostUSD: a.cost(k.model, c.usedPrompt, c.usedCompletion)},
			})
			if _, ok := a.prices[k.model]; !ok {
				unpriced[k.model] = true
			}
		}
		if c.requests > 0 || c.cacheHits > 0 {
			u.Billed = append(u.Billed, BilledRow{
				Role: k.role, Stage: k.stage, Model: k.model,
				Requests: c.requests, Retries: c.retries, CacheHits: c.cacheHits,
				Tokens: Tokens{PromptTokens: c.billedPrompt, CompletionTokens: c.billedCompletion, CostUSD: a.cost(k.model, c.billedPrompt, c.billedCompletion)},
			})
		}
	}
	u.Unpriced = slices.Sorted(maps.Keys(unpriced))
	return u
}

func (a *accounts) stats() Stats {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.counts
	s.Faults = maps.Clone(a.counts.Faults)
	if s.Calls > 0 {
		s.Overhead = a.overhead / time.Duration(s.Calls)
	}
	return s
}
