package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	llmengine "github.com/synth-data/synth/engine/llm"
	"github.com/synth-data/synth/internal/httpbound"
	client "github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/pipeline"
)

// Options bound and configure a server.
type Options struct {
	// Config is the run config blueprints by seed and index are made
	// with (controls, --tools), and whose max_turns and max_tool_errors
	// bound each session, as they bound an llm engine dialogue.
	Config pipeline.Config
	// User is the customer: "embedded" (the rule-based user, reading the
	// policy's words) or "llm" (Chatter's user role).
	User    string
	Chatter client.Chatter
	// Root is the folder whose releases and packs a request may name;
	// "" shares none (built-in domains only).
	Root string
	// MaxSessions bounds the sessions held at once; a reset beyond it is
	// answered 429 with Retry-After.
	MaxSessions int
	// IdleTimeout ends a session no request touched for that long.
	IdleTimeout time.Duration
	// MaxDomains bounds the domains kept loaded.
	MaxDomains int
	// ReadTimeout bounds the time a request, headers and body, may take
	// to arrive: a client dripping a body a byte a second is cut off
	// (0: httpbound.ReadTimeout).
	ReadTimeout time.Duration
	Logger      *slog.Logger
}

// Defaults are synth serve's default bounds.
func Defaults() Options {
	return Options{Config: pipeline.Defaults(), User: "embedded", MaxSessions: 256, IdleTimeout: 5 * time.Minute, MaxDomains: 4,
		ReadTimeout: httpbound.ReadTimeout}
}

// Bounds of --max-sessions and --max-domains, far beyond any use: each
// session holds a dialogue and its state, each domain its database.
const (
	maxSessions = 1 << 20
	maxDomains  = 1024
)

// maxBody bounds a request body: a step is one assistant message.
const maxBody = 4 << 20

// Server is the environment: its sessions and the domains they play.
type Server struct {
	opts Options
	// maxToolErrors ends a session's dialogue, as it ends an llm engine's.
	maxToolErrors int
	log           *slog.Logger
	envs          *envs
	mux           *http.ServeMux

	mu       sync.Mutex
	sessions map[string]*session
}

// New makes a server.
func New(opts Options) (*Server, error) {
	switch {
	case opts.MaxSessions < 1 || opts.MaxSessions > maxSessions:
		return nil, fmt.Errorf("--max-sessions %d: want 1 to %d", opts.MaxSessions, maxSessions)
	case opts.IdleTimeout <= 0:
		return nil, fmt.Errorf("--idle-timeout %v: need a positive duration (e.g. 5m)", opts.IdleTimeout)
	case opts.ReadTimeout < 0:
		return nil, fmt.Errorf("read timeout %v: need a positive duration (e.g. 30s)", opts.ReadTimeout)
	case opts.MaxDomains < 1 || opts.MaxDomains > maxDomains:
		return nil, fmt.Errorf("--max-domains %d: want 1 to %d", opts.MaxDomains, maxDomains)
	case opts.User != "embedded" && opts.User != "llm":
		return nil, fmt.Errorf("--user %q: want embedded or llm", opts.User)
	case opts.User == "llm" && opts.Chatter == nil:
		return nil, errors.New("--user llm: the LLM customer needs a model endpoint (--base-url or llm.base_url in --config)")
	case opts.Config.MaxTurns < 1:
		return nil, fmt.Errorf("max_turns %d: need at least 1", opts.Config.MaxTurns)
	}
	raw, err := json.Marshal(opts.Config)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	// A session is the llm engine's Episode: it reads that engine's keys.
	episode, err := llmengine.DecodeOptions(raw)
	if err != nil {
		return nil, err
	}
	if episode.MaxToolErrors < 1 {
		return nil, fmt.Errorf("max_tool_errors %d: need at least 1", episode.MaxToolErrors)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, maxToolErrors: episode.MaxToolErrors, log: log, envs: newEnvs(opts.MaxDomains), sessions: map[string]*session{}}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("POST /v1/sessions", s.reset)
	s.mux.HandleFunc("POST /v1/sessions/{id}/step", s.step)
	s.mux.HandleFunc("GET /v1/sessions/{id}", s.get)
	s.mux.HandleFunc("DELETE /v1/sessions/{id}", s.remove)
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]int{"sessions": s.Sessions(), "max_sessions": s.opts.MaxSessions})
	})
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, &reqError{"path", fmt.Sprintf("%s %s: no such endpoint (POST /v1/sessions, POST /v1/sessions/{id}/step, GET or DELETE /v1/sessions/{id})", r.Method, r.URL.Path)})
	})
	return s, nil
}

// Handle serves h at pattern beside the environment's API (synth serve
// mounts MCP's streamable HTTP at /mcp); call it before Serve.
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// Handler is the server's HTTP handler (for tests and embedding).
func (s *Server) Handler() http.Handler { return s.mux }

// Sessions is the number of sessions held.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// Serve serves on ln until ctx ends, then lets the requests in flight
// finish (up to a grace period) and drops every session. Connections
// carry internal/httpbound's bounds: a request must arrive within
// Options.ReadTimeout, idle connections end, headers are bounded.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := httpbound.Server(s.mux, s.opts.ReadTimeout, slog.NewLogLogger(s.log.Handler(), slog.LevelWarn))
	reapCtx, stopReap := context.WithCancel(ctx)
	defer stopReap()
	go s.reapLoop(reapCtx)
	return httpbound.Serve(ctx, hs, ln, s.log, func() {
		s.mu.Lock()
		clear(s.sessions)
		s.mu.Unlock()
	})
}

// reapLoop ends idle sessions a few times per idle timeout.
func (s *Server) reapLoop(ctx context.Context) {
	t := time.NewTicker(max(s.opts.IdleTimeout/4, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.reap()
		}
	}
}

// reap ends the sessions idle for longer than the timeout. A session in
// the middle of a step is not idle.
func (s *Server) reap() {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id, ss := range s.sessions {
		if !ss.mu.TryLock() {
			continue
		}
		if now.Sub(ss.last) > s.opts.IdleTimeout {
			ss.closed = true
			delete(s.sessions, id)
			n++
		}
		ss.mu.Unlock()
	}
	if n > 0 {
		s.log.Info("idle sessions ended", "sessions", n, "idle_timeout", s.opts.IdleTimeout)
	}
}

// newID is a session id: random, as it names no data.
func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "s" + hex.EncodeToString(b[:])
}

// admit adds a session unless the server holds its most; it reports
// whether it did.
func (s *Server) admit(ss *session) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sessions) >= s.opts.MaxSessions {
		return false
	}
	s.sessions[ss.id] = ss
	return true
}

// lookup finds a session and holds it for one request; release it with
// ss.mu.Unlock.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request) *session {
	id := r.PathValue("id")
	s.mu.Lock()
	ss, ok := s.sessions[id]
	s.mu.Unlock()
	if ok {
		ss.mu.Lock()
		if !ss.closed {
			ss.last = time.Now()
			return ss
		}
		ss.mu.Unlock()
	}
	WriteError(w, s.gone(id))
	return nil
}

// gone is the error of a session that is no more.
func (s *Server) gone(id string) error {
	return &statusError{code: http.StatusNotFound, err: &reqError{"session_id", fmt.Sprintf("%q: no such session (ended, reaped after %v idle, or never made)", id, s.opts.IdleTimeout)}}
}

// reqError is a fault of the request, naming the field at fault.
type reqError struct {
	field, msg string
}

func (e *reqError) Error() string { return e.field + ": " + e.msg }

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// statusError is an error with the HTTP status the API answers it with
// (and, for 429, its Retry-After).
type statusError struct {
	code  int
	retry string
	err   error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// WriteError answers an error of Open or of a Session's calls as the
// HTTP API does: a fault of the request 400, a full server 429 with
// Retry-After, an ended dialogue 409, a session that is no more 404, a
// failed customer model 502, anything else 500.
func WriteError(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	if se, ok := errors.AsType[*statusError](err); ok {
		code = se.code
		if se.retry != "" {
			w.Header().Set("Retry-After", se.retry)
		}
	} else if _, ok := errors.AsType[*reqError](err); ok {
		code = http.StatusBadRequest
	}
	writeError(w, code, err)
}

// writeError answers {"error": {"message", "field"}}.
func writeError(w http.ResponseWriter, code int, err error) {
	body := map[string]string{"message": err.Error()}
	if re, ok := errors.AsType[*reqError](err); ok {
		body["field"] = re.field
	}
	writeJSON(w, code, map[string]any{"error": body})
}

// decode reads a request body strictly: unknown fields are errors, so
// a misspelt key is not silently ignored.
func decode(r *http.Request, w http.ResponseWriter, into any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		var ute *json.UnmarshalTypeError
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &ute):
			return &reqError{ute.Field, fmt.Sprintf("want a JSON %s, got %s", ute.Type, ute.Value)}
		case errors.As(err, &mbe):
			return &reqError{"body", fmt.Sprintf("larger than %d bytes", maxBody)}
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			return &reqError{name, "unknown field; see the endpoint's fields in docs/serve.md"}
		}
		return &reqError{"body", fmt.Sprintf("not the JSON object this endpoint takes: %v", err)}
	}
	return nil
}

// retryAfter is the Retry-After of a full server, in seconds: a session
// frees up at the latest when one idles out.
func (s *Server) retryAfter() string {
	return strconv.Itoa(max(1, min(int(s.opts.IdleTimeout/time.Second)/4, 30)))
}
