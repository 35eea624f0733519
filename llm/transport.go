package llm

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"
	"time"
)

// exchange carries one attempt's data between Chat and the transport,
// through the request's context: go-openai sits in between and passes
// neither the body it should send nor the raw response it decoded.
type exchange struct {
	body []byte // the wire body to send instead of go-openai's

	sent       bool
	status     int
	retryAfter time.Duration
	raw        []byte // the response body, whole, secrets redacted
	readErr    error  // reading the body failed
	tooLarge   bool   // the body passed the limit (llm.max_response_bytes)
	stream     bool   // the server answered with an event stream
	network    time.Duration
}

type exchangeKey struct{}

// transport sends the client's own wire body (go-openai drops a
// temperature of 0, and the body must be exactly what the cache key
// hashed), adds the configured headers, and records status, Retry-After,
// the raw body and the network time for Chat.
type transport struct {
	base    http.RoundTripper
	headers http.Header
	now     func() time.Time
	limit   int64     // the most bytes a response body may have
	red     *redactor // removes echoed secrets from every body
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ex, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if ex == nil {
		return nil, fmt.Errorf("llm: request sent outside Client.Chat")
	}
	// A RoundTripper must not modify the request it was given.
	out := req.Clone(req.Context())
	maps.Copy(out.Header, t.headers)
	if req.Body != nil {
		// Redirects turned into GETs have no body and keep none.
		req.Body.Close()
		body := ex.body
		out.Body = io.NopCloser(bytes.NewReader(body))
		out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		out.ContentLength = int64(len(body))
		out.Header.Set("Content-Type", "application/json")
	}

	start := t.now()
	ex.sent = true
	resp, err := t.base.RoundTrip(out)
	if err != nil {
		ex.network += t.now().Sub(start)
		return nil, err
	}
	ex.status = resp.StatusCode
	ex.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), t.now())
	ex.stream = strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "text/event-stream")
	raw, err := io.ReadAll(io.LimitReader(resp.Body, t.limit+1))
	resp.Body.Close()
	ex.network += t.now().Sub(start)
	if err == nil && int64(len(raw)) > t.limit {
		ex.tooLarge = true
		err = fmt.Errorf("response body larger than the %d-byte limit (llm.max_response_bytes)", t.limit)
	}
	if err != nil {
		ex.readErr = err
		return nil, err
	}
	if bytes.HasPrefix(bytes.TrimLeft(raw, " \r\n"), []byte("data:")) || bytes.HasPrefix(bytes.TrimLeft(raw, " \r\n"), []byte("event:")) {
		ex.stream = true
	}
	raw = t.red.Bytes(raw)
	ex.raw = raw
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	resp.ContentLength = int64(len(raw))
	return resp, nil
}

func withExchange(ctx context.Context, ex *exchange) context.Context {
	return context.WithValue(ctx, exchangeKey{}, ex)
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// base transport.
func (t *transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
