package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/synth-data/synth/serve"
)

// HTTPOptions configure Handler.
type HTTPOptions struct {
	// Version is synth's, for the servers' implementation info.
	Version string
	// SessionTimeout closes an MCP session no request touched for this
	// long (synth serve's --idle-timeout, after which its episode is
	// reaped too).
	SessionTimeout time.Duration
	// Seed is the run seed of a URL that names none.
	Seed   uint64
	Logger *slog.Logger
}

// sessionHeader is the streamable transport's session header.
const sessionHeader = "Mcp-Session-Id"

// startKey carries a new session's server from Handler to the SDK.
type startKey struct{}

// Handler serves MCP's streamable HTTP transport: each MCP session is
// one client's Server, whose first episode the query of the request
// that opens the session names (/mcp?domain=retail&seed=4&index=0, or
// /mcp?release=DIR&blueprint_id=ID), counted against env's sessions.
func Handler(env *serve.Server, opts HTTPOptions) http.Handler {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// A request of a session the SDK already holds is served by that
	// session's server; the SDK asks for one only to read its versions.
	versions := sdk.NewServer(&sdk.Implementation{Name: "synth", Version: opts.Version},
		&sdk.ServerOptions{SupportedProtocolVersions: protocolVersions, Logger: log})
	h := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		if s, ok := r.Context().Value(startKey{}).(*Server); ok {
			return s.sdk
		}
		return versions
	}, &sdk.StreamableHTTPOptions{SessionTimeout: opts.SessionTimeout, Logger: log})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get(sessionHeader) != "" || !initializes(w, r) {
			h.ServeHTTP(w, r)
			return
		}
		start, qerr := startOf(r.URL.Query(), opts.Seed)
		if qerr != nil {
			badQuery(w, qerr)
			return
		}
		s, err := New(r.Context(), env, Options{Start: start, Version: opts.Version, Logger: log})
		if err != nil {
			serve.WriteError(w, err)
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), startKey{}, s)))
	})
}

// maxBody bounds a request body read here, as the SDK bounds it.
const maxBody = sdk.DefaultMaxRequestBodyBytes

// initializes reports whether r is an initialize request, the one that
// opens a session and so an episode; others without a session (the
// sessionless revision's server/discover, which a client tries first)
// go to the SDK without one, and are refused there. The body is read
// and put back.
func initializes(w http.ResponseWriter, r *http.Request) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return false
	}
	var msg struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &msg) == nil && msg.Method == "initialize"
}

// queryError is a fault of the URL's query, naming the parameter.
type queryError struct{ field, msg string }

func (e *queryError) Error() string { return e.field + ": " + e.msg }

// badQuery answers 400 in serve's error shape.
func badQuery(w http.ResponseWriter, err *queryError) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"message": err.Error(), "field": err.field}})
}

// startOf reads the first episode from a URL's query.
func startOf(q url.Values, seed uint64) (serve.ResetRequest, *queryError) {
	var req serve.ResetRequest
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if len(q[k]) != 1 {
			return req, &queryError{k, "give it once"}
		}
		v := q.Get(k)
		switch k {
		case "domain":
			req.Domain = v
		case "release":
			req.Release = v
		case "blueprint_id":
			req.BlueprintID = v
		case "seed":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return req, &queryError{k, fmt.Sprintf("%q: want a run seed (a whole number)", v)}
			}
			req.Seed = &n
		case "index":
			n, err := strconv.Atoi(v)
			if err != nil {
				return req, &queryError{k, fmt.Sprintf("%q: want a blueprint's index in the run (0 is the first)", v)}
			}
			req.Index = &n
		default:
			return req, &queryError{k, "unknown parameter; name the episode with domain, seed and index, or release and blueprint_id (/mcp?domain=retail&seed=1&index=0)"}
		}
	}
	if req.Release == "" && req.BlueprintID == "" {
		if req.Domain == "" {
			return req, &queryError{"domain", "missing: name the domain the session plays (/mcp?domain=retail&seed=1&index=0), or a release (/mcp?release=DIR&blueprint_id=ID)"}
		}
		if req.Seed == nil {
			req.Seed = &seed
		}
		if req.Index == nil {
			zero := 0
			req.Index = &zero
		}
	}
	return req, nil
}
