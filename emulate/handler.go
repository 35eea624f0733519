package emulate

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/synth-data/synth/llm"
)

// Roles the emulator recognises.
const (
	roleAgent    = "agent"
	roleCustomer = "customer"
	roleWriter   = "writer"
	roleJudge    = "judge"
	roleRefiner  = "refiner"
	roleGeneric  = "generic"
)

// detectRole tells synth's requests apart: the agent is the one with
// tools, the others open their system prompt with a protocol header.
func detectRole(req *chatRequest) string {
	if len(req.Tools) > 0 {
		return roleAgent
	}
	first, _, _ := strings.Cut(req.system(), "\n")
	switch strings.TrimSpace(first) {
	case llm.UserHeader:
		return roleCustomer
	case llm.WriterHeader:
		return roleWriter
	case llm.JudgeHeader:
		return roleJudge
	case llm.RefineHeader:
		return roleRefiner
	}
	return roleGeneric
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	s.metrics.request()
	status := s.serveChat(w, r)
	if status == 0 {
		s.metrics.cancel()
		return
	}
	s.metrics.respond(status)
}

// serveChat answers one chat completion; it returns the status written,
// or 0 when the client left first.
func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) int {
	ctx := r.Context()
	body, err := readBody(w, r)
	if err != nil {
		return s.fail(w, err)
	}
	req, err := parseRequest(body, s.opts.Flavor == FlavorOpenAI)
	if err != nil {
		return s.fail(w, err)
	}
	// Servers validate a request before it is queued.
	if e := s.opts.Flavor.check(req, s.opts.NoToolParser); e != nil {
		return s.refuse(w, e)
	}
	role := detectRole(req)
	s.metrics.reasoning(s.opts.Flavor.readReasoning(req))

	// Wait for a slot as a real inference server queues requests.
	s.metrics.queue(1)
	select {
	case s.slots <- struct{}{}:
		s.metrics.queue(-1)
	case <-ctx.Done():
		s.metrics.queue(-1)
		return 0
	}
	defer func() { <-s.slots }()
	s.metrics.enter()
	defer s.metrics.leave()
	s.metrics.role(role)

	fault := s.drawFault(role == roleAgent)
	if fault != "" {
		s.metrics.fault(fault)
	}
	s.log.Debug("chat completion", "role", role, "user", req.User, "messages", len(req.Messages), "fault", fault)
	switch fault {
	case faultRateLimit:
		w.Header().Set("Retry-After", "1")
		kind := "rate_limit_exceeded"
		if s.opts.Flavor == FlavorOpenAI {
			// OpenAI types a 429 by the limit hit: requests or tokens.
			kind = "requests"
		}
		return s.refuse(w, &apiError{status: http.StatusTooManyRequests, kind: kind, code: "rate_limit_exceeded",
			message: "Rate limit reached for requests (injected by synth emulate --error-rate). Please try again in 1s."})
	case faultServer:
		return s.refuse(w, &apiError{status: http.StatusInternalServerError, kind: "server_error",
			message: "The server had an error while processing your request (injected by synth emulate --error-rate)."})
	}

	var rp reply
	if fault == faultUnknownTool {
		rp = unknownToolCall(req)
	} else if rp, err = s.answer(ctx, role, req); err != nil {
		return s.fail(w, err)
	}
	g := s.generate(req, rp)
	out, usage, refusal := s.opts.Flavor.respond(req, body, g, s.opts.NoReasoningParser)
	delay := s.opts.Latency
	if fault == faultSlow {
		delay = max(10*delay, slowFloor)
	}
	if !wait(ctx, delay) {
		return 0
	}
	s.metrics.usage(usage)
	if refusal != nil {
		// A failure found after generating (llama.cpp's tool-call
		// parser): the tokens were spent all the same.
		return s.refuse(w, refusal)
	}
	switch fault {
	case faultTruncated:
		// A complete HTTP response whose JSON stops halfway, as a proxy
		// that cut the upstream connection sends it.
		out = truncate(out)
	case faultMalformed:
		out = malform(out)
	}
	writeBody(w, http.StatusOK, out)
	return http.StatusOK
}

// generate is what the model writes for the role's reply under this
// request: without reasoning when the request turns thinking off, with
// tool calls that do not parse when the tool-parse fault is drawn (or
// left as text when the server does not parse them), cut at the token
// limit the flavor's server reads.
func (s *Server) generate(req *chatRequest, rp reply) generation {
	f := s.opts.Flavor
	g := generation{reply: rp}
	if !f.thinks(req) {
		g.ReasoningContent = ""
	}
	if len(g.ToolCalls) > 0 {
		switch {
		case s.opts.NoToolParser && f == FlavorSGLang:
			g.unparsed = true
		case s.drawToolParse(req):
			g.malformed = true
			s.metrics.fault(faultToolParse)
		}
	}
	if n, ok := f.maxTokens(req); ok {
		g = limit(g, n)
	}
	return g
}

// refuse writes e in the flavor's error shape and returns its status.
func (s *Server) refuse(w http.ResponseWriter, e *apiError) int {
	writeBody(w, e.status, s.opts.Flavor.errorBody(e))
	return e.status
}

// fail writes the error body for err and returns its status.
func (s *Server) fail(w http.ResponseWriter, err error) int {
	var bad *badRequest
	if errors.As(err, &bad) {
		return s.refuse(w, invalid("%s", bad.msg))
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return 0
	}
	s.log.Warn("chat completion failed", "err", err)
	return s.refuse(w, &apiError{status: http.StatusInternalServerError, kind: "server_error", message: "synth emulate: " + err.Error()})
}

// answer plays the role the request is for.
func (s *Server) answer(ctx context.Context, role string, req *chatRequest) (reply, error) {
	switch role {
	case roleAgent:
		return s.agentTurn(ctx, req)
	case roleCustomer:
		return s.customerTurn(ctx, req)
	case roleWriter:
		return s.write(req)
	case roleJudge:
		return s.judge(req)
	case roleRefiner:
		return s.refine(req)
	}
	return genericReply(req), nil
}

// genericReply answers a request that is none of synth's roles.
func genericReply(req *chatRequest) reply {
	words := 0
	for _, m := range req.Messages {
		if m.Role == "user" {
			words += len(strings.Fields(m.Content))
		}
	}
	return reply{Content: "This is synth emulate, a test server: it plays synth's agent, customer, writer, judge and refine roles. " +
		"Your message had " + strconv.Itoa(words) + " words."}
}

func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	b, _ := json.Marshal(struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{"list", []model{{ID: "synth-emulate", Object: "model", Created: created, OwnedBy: "synth"}}})
	writeBody(w, http.StatusOK, b)
}
