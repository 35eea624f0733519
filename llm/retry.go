package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Fault classes, the keys of Stats.Faults.
const (
	FaultThrottled  = "429"        // too many requests
	FaultServer     = "5xx"        // server errors (and 408)
	FaultTimeout    = "timeout"    // no complete response within llm.timeout
	FaultConnection = "connection" // refused, reset, closed
	FaultTruncated  = "truncated"  // the body ended early
	FaultMalformed  = "malformed"  // the body is not a chat completion
	FaultEmpty      = "empty"      // a completion without choices
	FaultClient     = "4xx"        // the request was refused; not retried
	FaultTooLarge   = "too_large"  // the body passed llm.max_response_bytes; not retried
	FaultStream     = "stream"     // an event stream instead of one JSON body; not retried
	// FaultToolParse is a server's tool-call parser failing on the
	// model's output with an error (llama.cpp answers 500); the client
	// reads it as the servers that return the unparsed text do.
	FaultToolParse = "tool_parse"
)

// Error is a request that failed for good: refused, or still failing
// after every retry. Its text names the role, the status and the server's
// last message, never the API key.
type Error struct {
	Role     Role
	Stage    string
	Attempts int    // requests sent
	Status   int    // last HTTP status, 0 when none arrived
	Fault    string // last fault class
	Message  string // the server's last message, or what went wrong
	Param    string // the request field the server named, when it named one
	Hint     string // the change that fixes it, when synth can tell (servers.go)
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "llm %s (%s): ", e.Role, e.Stage)
	if e.Fault == FaultClient {
		b.WriteString("request refused")
	} else {
		fmt.Fprintf(&b, "gave up after %d attempt(s)", e.Attempts)
	}
	if e.Status >= 300 {
		fmt.Fprintf(&b, ": HTTP %d %s", e.Status, http.StatusText(e.Status))
	} else {
		fmt.Fprintf(&b, ": %s", e.Fault)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	switch {
	case e.Hint != "":
		fmt.Fprintf(&b, " (%s)", e.Hint)
	case e.Status == http.StatusUnauthorized, e.Status == http.StatusForbidden:
		b.WriteString(" (check the key in the variable named by llm.api_key_env)")
	case e.Status == http.StatusNotFound:
		b.WriteString(" (check llm.base_url and the role's model)")
	}
	return b.String()
}

// outcome is what one attempt came to.
type outcome struct {
	fault      string // "" on success
	status     int
	message    string
	param      string        // the field the server's error named
	code       string        // the server's error code, as text
	hint       string        // the fix, from diagnose
	retryAfter time.Duration // from the server, 0 when absent
}

func (o outcome) retriable() bool {
	return o.fault != "" && o.fault != FaultClient && o.fault != FaultTooLarge && o.fault != FaultStream
}

// classify reads an attempt's error. go-openai reports HTTP errors as
// *APIError, or as *RequestError when the body is not an OpenAI error
// object; a RequestError may wrap an empty APIError, so it is checked
// first and its status taken from it.
// Timeouts are the caller's to detect (the attempt's deadline).
func classify(err error, ex *exchange) outcome {
	o := outcome{status: ex.status, retryAfter: ex.retryAfter}
	var reqErr *openai.RequestError
	var apiErr *openai.APIError
	switch {
	case errors.As(err, &reqErr):
		o.status = reqErr.HTTPStatusCode
		o.message = strings.TrimSpace(string(reqErr.Body))
		if errors.As(reqErr.Err, &apiErr) && apiErr.Message != "" {
			o.message = apiErr.Message
		} else if m, p := otherErrorShape(reqErr.Body); m != "" {
			o.message, o.param = m, p
		}
		o.fault = statusFault(o.status)
	case errors.As(err, &apiErr):
		o.status = apiErr.HTTPStatusCode
		o.message = apiErr.Message
		if apiErr.Param != nil {
			o.param = *apiErr.Param
		}
		if apiErr.Code != nil {
			o.code = fmt.Sprint(apiErr.Code)
		}
		o.fault = statusFault(o.status)
	case ex.tooLarge:
		// The same request would get the same runaway reply: fail now.
		o.fault, o.message = FaultTooLarge, ex.readErr.Error()+"; raise llm.max_response_bytes in the config if replies this long are expected, or lower the role's max_tokens"
	case ex.stream && ex.status < 300:
		o.fault, o.message = FaultStream, "the server answered with an event stream (text/event-stream) to a request with \"stream\" unset; "+
			"synth reads one JSON chat completion per request: check that the server or a proxy in front of it does not force streaming"
	case ex.readErr != nil:
		o.fault, o.message = FaultTruncated, "response body cut short: "+ex.readErr.Error()
	case ex.sent && ex.status == 0:
		// url.Error's text names the method and URL, which hold no secret.
		o.fault, o.message = FaultConnection, err.Error()
	case ex.sent:
		// A 2xx body go-openai could not decode.
		o.fault, o.message = FaultMalformed, err.Error()
	default:
		// Refused before sending (go-openai's request checks).
		o.fault, o.message = FaultClient, err.Error()
	}
	if len(o.message) > 300 {
		o.message = o.message[:300] + "…"
	}
	return o
}

// otherErrorShape reads an error body that is not OpenAI's
// {"error": {...}}: SGLang's flat {"object": "error", "message", "param",
// ...} (python/sglang/srt/entrypoints/openai/protocol.py ErrorResponse),
// the {"error": "text"} of Ollama's native routes and of proxies, and
// FastAPI's {"detail": "text"}.
func otherErrorShape(body []byte) (message, param string) {
	var e struct {
		Message *string         `json:"message"`
		Param   *string         `json:"param"`
		Error   json.RawMessage `json:"error"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &e) != nil {
		return "", ""
	}
	if e.Param != nil {
		param = *e.Param
	}
	if e.Message != nil && *e.Message != "" {
		return *e.Message, param
	}
	for _, raw := range []json.RawMessage{e.Error, e.Detail} {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return s, param
		}
	}
	return "", ""
}

func statusFault(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return FaultThrottled
	case status == http.StatusRequestTimeout || status >= 500:
		return FaultServer
	default:
		return FaultClient
	}
}

// backoff is the wait before retry number n (1-based): full jitter over an
// exponential ceiling, or the server's Retry-After plus a little jitter so
// that throttled clients do not return in step. The jitter draws from its
// own random source: it changes timing, never output.
func backoff(n int, base, ceiling, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return retryAfter + time.Duration(rand.Int64N(int64(base)+1))
	}
	exp := base
	for i := 1; i < n && exp < ceiling; i++ {
		exp *= 2
	}
	exp = min(exp, ceiling)
	return time.Duration(rand.Int64N(int64(exp) + 1))
}

// maxRetryAfter bounds the wait a Retry-After is read as, so that no
// value overflows; the request's budget (llm.timeout per attempt) is what
// decides whether a wait is taken or the request fails, naming it.
const maxRetryAfter = 365 * 24 * time.Hour

// parseRetryAfter reads a Retry-After header: delay-seconds or an
// HTTP-date (RFC 9110 §10.2.3). Unparsable or past values give 0.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		// Some servers send fractions; RFC 9110 only integers.
		if secs <= 0 || secs != secs {
			return 0
		}
		if secs >= maxRetryAfter.Seconds() {
			return maxRetryAfter
		}
		return time.Duration(secs * float64(time.Second))
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	d := t.Sub(now)
	if d <= 0 {
		return 0
	}
	return min(d, maxRetryAfter)
}
