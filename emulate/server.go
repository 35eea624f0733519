package emulate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/internal/httpbound"
	"github.com/synth-data/synth/record"
)

// Options configure a Server. The zero value is a perfect, instant
// emulator with 64 slots: no faults and no mistakes.
type Options struct {
	// Latency is added to every response, as a model's generation time
	// would be; it ends early when the client goes away.
	Latency time.Duration
	// MaxConcurrency is how many requests are served at once (default
	// 64); the rest wait in a queue, as vLLM's scheduler makes them.
	MaxConcurrency int
	// ErrorRate is the share of requests answered with an injected
	// fault (0..1).
	ErrorRate float64
	// MistakeRate (0..1) is how often the emulator plays a role badly: a
	// trial with a flawed agent, an instruction missing an entity, a
	// judge that finds a good instruction unrealistic, a rewrite that
	// drops an entity. DefaultOptions and `synth emulate` use 0.05.
	MistakeRate float64
	// Seed seeds the fault draws. Faults are drawn per request in arrival
	// order, never from the request's content, so a retry can succeed.
	Seed uint64
	// Domain is a pack directory; blueprints of the pack's domain are
	// played with it instead of a built-in domain.
	Domain string
	// Tasks, when set, rebuilds a blueprint from its id. Agent requests
	// name their session (blueprint id and trial) in the `user` field; a
	// session no customer request introduced — the run's customer is the
	// embedded one (--user embedded) or the emulator restarted — is then
	// played from the rebuilt blueprint instead of by a weak agent.
	Tasks func(ctx context.Context, blueprintID string) (*record.Blueprint, error)
	// Logger receives one debug line per request and warnings; nil
	// discards them.
	Logger *slog.Logger

	// Flavor is the server whose wire behaviour the emulator reproduces
	// (flavor.go); "" is FlavorGeneric.
	Flavor Flavor
	// NoToolParser answers as the flavor's server does when it runs
	// without tool calling: vLLM without --enable-auto-tool-choice, SGLang
	// without --tool-call-parser, llama.cpp with --no-jinja, an Ollama
	// model whose template has no tools. OpenAI and the generic flavor
	// have no such switch.
	NoToolParser bool
	// NoReasoningParser answers as the flavor's server does without a
	// reasoning parser: the model's thinking stays in the content as
	// <think>…</think> (vLLM and SGLang without --reasoning-parser,
	// llama.cpp with --reasoning-format none). OpenAI never returns
	// reasoning and Ollama always separates it, so neither has the switch.
	NoReasoningParser bool
	// ToolParseRate (0..1) is how often the model writes its tool calls
	// so that they do not parse; the flavor's server reports each as its
	// parser does (render.go). It is drawn apart from ErrorRate's faults,
	// so setting it leaves their sequence as it was.
	ToolParseRate float64
}

// DefaultOptions are the settings `synth emulate` starts with.
func DefaultOptions() Options {
	return Options{MaxConcurrency: defaultConcurrency, MistakeRate: 0.05, Seed: 1}
}

const (
	defaultConcurrency = 64
	// maxTurns bounds a replayed dialogue, as synth run's default does.
	maxTurns = 60
	// sessionCap bounds the replays kept: enough for a run's dialogues
	// in flight (2 × 64 by default) times its trials, with room to spare.
	sessionCap = 1024
	// domainCap bounds the loaded domains (one per domain and seed).
	domainCap = 8
	// maxBody caps a request body; synth's largest prompts are tens of KB.
	maxBody = 32 << 20
	// slowFloor is the least a slow-response fault takes.
	slowFloor = 2 * time.Second
)

// Server is the emulator. Safe for concurrent use.
type Server struct {
	opts     Options
	log      *slog.Logger
	slots    chan struct{}
	handler  http.Handler
	metrics  *metrics
	sessions *sessionCache
	domains  *domainCache

	faultMu  sync.Mutex
	faultRNG *rand.Rand
}

// New checks the options and builds a server. With Options.Domain set it
// loads the pack once to learn its domain's name.
func New(opts Options) (*Server, error) {
	var errs []error
	if opts.Latency < 0 {
		errs = append(errs, fmt.Errorf("latency %s: must not be negative (--latency)", opts.Latency))
	}
	if opts.MaxConcurrency < 0 {
		errs = append(errs, fmt.Errorf("max concurrency %d: must be at least 1, or 0 for the default %d (--max-concurrency)", opts.MaxConcurrency, defaultConcurrency))
	}
	if !(opts.ErrorRate >= 0 && opts.ErrorRate <= 1) {
		errs = append(errs, fmt.Errorf("error rate %v: must be between 0 and 1 (--error-rate)", opts.ErrorRate))
	}
	if !(opts.MistakeRate >= 0 && opts.MistakeRate <= 1) {
		errs = append(errs, fmt.Errorf("mistake rate %v: must be between 0 and 1 (--mistake-rate)", opts.MistakeRate))
	}
	flavor, err := ParseFlavor(string(opts.Flavor))
	if err != nil {
		errs = append(errs, err)
	}
	if err == nil && opts.NoToolParser && !flavor.hasToolSwitch() {
		errs = append(errs, fmt.Errorf("--no-tool-parser: the %s flavor always parses tool calls; use it with --flavor vllm, sglang, ollama or llamacpp", flavor))
	}
	if err == nil && opts.NoReasoningParser && !flavor.hasReasoningParser() {
		errs = append(errs, fmt.Errorf("--no-reasoning-parser: the %s flavor has no reasoning parser to turn off; use it with --flavor generic, vllm, sglang or llamacpp", flavor))
	}
	if !(opts.ToolParseRate >= 0 && opts.ToolParseRate <= 1) {
		errs = append(errs, fmt.Errorf("tool parse failure rate %v: must be between 0 and 1 (--tool-parse-failures)", opts.ToolParseRate))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	opts.Flavor = flavor
	opts.MaxConcurrency = cmp.Or(opts.MaxConcurrency, defaultConcurrency)
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{
		opts:     opts,
		log:      log,
		slots:    make(chan struct{}, opts.MaxConcurrency),
		metrics:  newMetrics(opts.MaxConcurrency),
		sessions: newSessionCache(sessionCap),
		domains:  &domainCache{lru: newLRU[*domainEntry](domainCap)},
		faultRNG: rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)),
	}
	if opts.Domain != "" {
		// The seed only shapes the pack's generated database, not its name.
		d, err := domains.Load(opts.Domain, opts.Seed)
		if err != nil {
			return nil, fmt.Errorf("--domain %s: %w", opts.Domain, err)
		}
		s.domains.packDir, s.domains.packName = opts.Domain, d.Name
		s.domains.put(d.Name, opts.Seed, d)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("POST /chat/completions", s.chat)
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("GET /models", s.models)
	mux.HandleFunc("GET /metrics", s.serveMetrics)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/chat/completions", "/chat/completions", "/v1/models", "/models", "/metrics":
			s.refuse(w, &apiError{status: http.StatusMethodNotAllowed, kind: "invalid_request_error", message: fmt.Sprintf("%s %s: method not allowed", r.Method, r.URL.Path)})
			return
		}
		s.refuse(w, &apiError{status: http.StatusNotFound, kind: "invalid_request_error",
			message: fmt.Sprintf("no route for %s %s: synth emulate serves POST /v1/chat/completions, GET /v1/models and GET /metrics", r.Method, r.URL.Path)})
	})
	s.handler = mux
	return s, nil
}

// Handler serves the OpenAI-compatible routes and /metrics.
func (s *Server) Handler() http.Handler { return s.handler }

// Serve serves on ln until ctx ends; requests in flight get a grace
// period to finish. It closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := httpbound.Server(s.handler, 0, slog.NewLogLogger(s.log.Handler(), slog.LevelWarn))
	return httpbound.Serve(ctx, hs, ln, s.log, nil)
}

// Fault classes.
const (
	faultRateLimit   = "rate_limit"   // 429 with Retry-After
	faultServer      = "server_error" // 500
	faultSlow        = "slow"         // a correct response, very late
	faultTruncated   = "truncated"    // a 200 whose JSON body is cut short
	faultMalformed   = "malformed"    // a 200 whose body is not JSON
	faultUnknownTool = "unknown_tool" // an agent reply calling a tool that does not exist
	// faultToolParse is a tool call the model wrote so that it does not
	// parse (Options.ToolParseRate), drawn apart from the classes above.
	faultToolParse = "tool_parse"
)

var faultClasses = []string{faultRateLimit, faultServer, faultSlow, faultTruncated, faultMalformed, faultUnknownTool}

// drawFault draws whether this request fails and how. It always takes
// two draws so the sequence does not depend on the roles requested.
func (s *Server) drawFault(agentRequest bool) string {
	s.faultMu.Lock()
	u, c := s.faultRNG.Float64(), s.faultRNG.Float64()
	s.faultMu.Unlock()
	if u >= s.opts.ErrorRate {
		return ""
	}
	n := len(faultClasses)
	if !agentRequest {
		n-- // only an agent can call an unknown tool
	}
	return faultClasses[int(c*float64(n))]
}

// drawToolParse decides whether this reply's tool calls come out
// malformed. The draw is the request's own (its session, seed and
// length), not the next of a shared sequence: a model at temperature 0
// writes the same broken call for the same request, and which requests
// fail does not depend on the order concurrent dialogues arrive in.
func (s *Server) drawToolParse(req *chatRequest) bool {
	if s.opts.ToolParseRate <= 0 {
		return false
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%d\x00", s.opts.Seed, req.User, len(req.Messages))
	if req.Seed != nil {
		fmt.Fprintf(h, "%d", *req.Seed)
	}
	u := float64(h.Sum64()>>11) / (1 << 53)
	return u < s.opts.ToolParseRate
}

// wait sleeps d unless ctx ends first; it reports whether it slept.
func wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
