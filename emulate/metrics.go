package emulate

import (
	"encoding/json"
	"maps"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// metrics counts what the server did, for load tests and for tests that
// assert on the traffic a client sent.
type metrics struct {
	mu        sync.Mutex
	cap       int
	requests  int64
	responses map[int]int64
	canceled  int64
	faults    map[string]int64
	roles     map[string]int64
	inFlight  int
	queued    int
	peak      int
	first     time.Time // the first request's arrival
	last      time.Time // the last change of inFlight
	area      float64   // ∫ inFlight dt in request-seconds, up to last
	prompt    int64
	complete  int64
	thoughts  Replayed
}

// Metrics is the JSON that GET /metrics serves.
type Metrics struct {
	Requests int64 `json:"requests"`
	// Responses counts responses by HTTP status ("200", "429", ...);
	// truncated and malformed bodies count as the 200s they claim to be.
	Responses map[string]int64 `json:"responses"`
	// Canceled counts requests whose client left before the answer.
	Canceled int64            `json:"canceled"`
	Faults   map[string]int64 `json:"faults"`
	Roles    map[string]int64 `json:"roles"`
	InFlight int              `json:"in_flight"`
	Queued   int              `json:"queued"`
	Peak     int              `json:"peak_in_flight"`
	// MeanInFlight is the time-weighted mean of in-flight requests since
	// the first request: sustained concurrency, to compare with the cap.
	MeanInFlight   float64 `json:"mean_in_flight"`
	MaxConcurrency int     `json:"max_concurrency"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	Tokens         Tokens  `json:"tokens"`
	// Reasoning counts the assistant messages that came back with an
	// earlier turn's reasoning, by whether the flavor's server read it.
	Reasoning Replayed `json:"reasoning_replayed"`
}

// Replayed counts assistant messages sent back with their reasoning:
// Read in the field the server reads, Ignored in one it drops.
type Replayed struct {
	Read    int64 `json:"read"`
	Ignored int64 `json:"ignored"`
}

// Tokens are the estimated tokens of the completions served.
type Tokens struct {
	Prompt     int64 `json:"prompt"`
	Completion int64 `json:"completion"`
	Total      int64 `json:"total"`
}

func newMetrics(capacity int) *metrics {
	return &metrics{cap: capacity, responses: map[int]int64{}, faults: map[string]int64{}, roles: map[string]int64{}}
}

func (m *metrics) request() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests++
	if m.first.IsZero() {
		m.first = time.Now()
		m.last = m.first
	}
}

// advance accumulates the in-flight area up to now; callers hold mu.
func (m *metrics) advance(now time.Time) {
	m.area += float64(m.inFlight) * now.Sub(m.last).Seconds()
	m.last = now
}

func (m *metrics) queue(delta int) {
	m.mu.Lock()
	m.queued += delta
	m.mu.Unlock()
}

func (m *metrics) enter() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.advance(time.Now())
	m.inFlight++
	m.peak = max(m.peak, m.inFlight)
}

func (m *metrics) leave() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.advance(time.Now())
	m.inFlight--
}

func (m *metrics) respond(status int) {
	m.mu.Lock()
	m.responses[status]++
	m.mu.Unlock()
}

func (m *metrics) cancel() {
	m.mu.Lock()
	m.canceled++
	m.mu.Unlock()
}

func (m *metrics) fault(class string) {
	m.mu.Lock()
	m.faults[class]++
	m.mu.Unlock()
}

func (m *metrics) role(r string) {
	m.mu.Lock()
	m.roles[r]++
	m.mu.Unlock()
}

func (m *metrics) reasoning(read, ignored int) {
	m.mu.Lock()
	m.thoughts.Read += int64(read)
	m.thoughts.Ignored += int64(ignored)
	m.mu.Unlock()
}

func (m *metrics) usage(u wireUsage) {
	m.mu.Lock()
	m.prompt += int64(u.PromptTokens)
	m.complete += int64(u.CompletionTokens)
	m.mu.Unlock()
}

func (m *metrics) snapshot() Metrics {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := Metrics{
		Requests: m.requests, Responses: map[string]int64{}, Canceled: m.canceled,
		Faults: map[string]int64{}, Roles: map[string]int64{},
		InFlight: m.inFlight, Queued: m.queued, Peak: m.peak, MaxConcurrency: m.cap,
		Tokens:    Tokens{Prompt: m.prompt, Completion: m.complete, Total: m.prompt + m.complete},
		Reasoning: m.thoughts,
	}
	for s, n := range m.responses {
		out.Responses[strconv.Itoa(s)] = n
	}
	for _, c := range faultClasses {
		out.Faults[c] = m.faults[c]
	}
	out.Faults[faultToolParse] = m.faults[faultToolParse]
	maps.Copy(out.Roles, m.roles)
	if !m.first.IsZero() {
		now := time.Now()
		elapsed := now.Sub(m.first).Seconds()
		area := m.area + float64(m.inFlight)*now.Sub(m.last).Seconds()
		out.ElapsedSeconds = elapsed
		if elapsed > 0 {
			out.MeanInFlight = area / elapsed
		}
	}
	return out
}

func (s *Server) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	b, err := json.MarshalIndent(s.metrics.snapshot(), "", "  ")
	if err != nil {
		s.refuse(w, &apiError{status: http.StatusInternalServerError, kind: "server_error", message: "metrics: " + err.Error()})
		return
	}
	writeBody(w, http.StatusOK, append(b, '\n'))
}
