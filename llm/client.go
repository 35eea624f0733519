package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Client is the Chatter for an OpenAI-compatible endpoint. It is safe for
// concurrent use. It never prints, logs or marshals the API key.
type Client struct {
	cfg     Config
	timeout time.Duration
	oa      *openai.Client
	http    *http.Client
	cache   *diskCache // nil when off
	limiter *aimd
	rpm     *bucket // nil when unlimited
	tpm     *bucket // nil when unlimited
	acct    *accounts
	canon   *canonicalizer
	red     *redactor // the key and expanded header values, and their encodings
	log     *slog.Logger
	// noResponseFormat is set once a server refused the judge's
	// response_format: later requests go without it.
	noResponseFormat atomic.Bool
	// completionTokens holds, per role, whether the server refused
	// max_tokens and asked for max_completion_tokens (OpenAI's reasoning
	// models): later requests of the role send that instead.
	completionTokens map[Role]*atomic.Bool
	// warned holds the server problems already logged, one line each.
	warned sync.Map
	now    func() time.Time

	backoffBase, backoffCap time.Duration
}

var _ Chatter = (*Client)(nil)

// Option adjusts a Client beyond its Config: the tests' transport,
// environment, logger and timings (options_test.go).
type Option func(*options)

type options struct {
	transport               http.RoundTripper
	lookupEnv               func(string) (string, bool)
	log                     *slog.Logger
	backoffBase, backoffCap time.Duration
	burst                   int
	burstWindow             time.Duration
	increaseEvery           int
	now                     func() time.Time
}

// New checks cfg (after WithDefaults), reads the API key from the
// variable cfg.APIKeyEnv names and prepares the cache directory.
func New(cfg Config, opts ...Option) (*Client, error) {
	o := options{
		lookupEnv:   os.LookupEnv,
		log:         slog.New(slog.DiscardHandler),
		backoffBase: 250 * time.Millisecond, backoffCap: 20 * time.Second,
		burst: 3, burstWindow: time.Second, increaseEvery: 4,
		now: time.Now,
	}
	for _, opt := range opts {
		opt(&o)
	}
	cfg = cfg.WithDefaults()
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	var secrets []string
	key := ""
	if cfg.APIKeyEnv != NoKey {
		v, ok := o.lookupEnv(cfg.APIKeyEnv)
		if !ok || strings.TrimSpace(v) == "" {
			return nil, fmt.Errorf("llm.api_key_env: environment variable %s is not set; export the API key in it, name another variable in llm.api_key_env, or set it to %q for a server without keys", cfg.APIKeyEnv, NoKey)
		}
		key = strings.TrimSpace(v)
		secrets = append(secrets, key)
	}
	headers := http.Header{}
	for _, name := range slices.Sorted(maps.Keys(cfg.Headers)) {
		raw := cfg.Headers[name]
		v, err := expandHeader(raw, o.lookupEnv)
		if err != nil {
			return nil, fmt.Errorf("llm.headers.%s: %w", name, err)
		}
		if v != raw {
			secrets = append(secrets, v)
		}
		headers.Set(name, v)
	}
	timeout, _ := time.ParseDuration(cfg.Timeout) // Check parsed it
	base := o.transport
	if base == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		// Keep a warm connection for every request that may be in flight;
		// the default of 2 idle connections per host would reconnect
		// constantly at 64.
		t.MaxIdleConns = max(t.MaxIdleConns, cfg.MaxConcurrency)
		t.MaxIdleConnsPerHost = cfg.MaxConcurrency
		base = t
	}
	oc := openai.DefaultConfig(key)
	oc.BaseURL = cfg.BaseURL
	// The timeout is a per-attempt context deadline rather than
	// http.Client.Timeout: a deadline that fires mid-body must be told
	// apart from a server cutting the body short.
	red := newRedactor(secrets)
	hc := &http.Client{Transport: &transport{base: base, headers: headers, now: o.now, limit: cfg.MaxResponseBytes, red: red}}
	oc.HTTPClient = hc
	c := &Client{
		cfg:         cfg,
		timeout:     timeout,
		oa:          openai.NewClientWithConfig(oc),
		http:        hc,
		limiter:     newAIMD(cfg.MaxConcurrency, o.burst, o.burstWindow, o.increaseEvery, o.now),
		acct:        newAccounts(cfg.Prices),
		canon:       newCanonicalizer(),
		red:         red,
		log:         o.log,
		now:         o.now,
		backoffBase: o.backoffBase,
		backoffCap:  o.backoffCap,

		completionTokens: map[Role]*atomic.Bool{},
	}
	for _, r := range Roles() {
		c.completionTokens[r] = &atomic.Bool{}
	}
	if cfg.RPM > 0 {
		c.rpm = newBucket(cfg.RPM, o.now)
	}
	if cfg.TPM > 0 {
		c.tpm = newBucket(cfg.TPM, o.now)
	}
	dir, err := cfg.cacheDir()
	if err != nil {
		return nil, err
	}
	if dir != "" {
		if c.cache, err = newDiskCache(dir); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Config returns the client's config with defaults filled in (no secret).
func (c *Client) Config() Config { return c.cfg }

// Chat sends req for role, accounted under stage: it fills in the role's
// settings, serves it from the cache when it can, else waits for the
// limits, sends, retries what is worth retrying and caches the response.
// After the budget is spent it returns an error wrapping ErrBudget for
// anything the cache cannot answer, unless ctx carries Admitted work.
func (c *Client) Chat(ctx context.Context, role Role, stage string, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	start := c.now()
	rc, ok := c.cfg.Roles[role]
	if !ok || rc.Model == "" {
		return openai.ChatCompletionResponse{}, fmt.Errorf("llm %s (%s): llm.roles.%s.model is not configured", role, stage, role)
	}
	if req.Stream {
		return openai.ChatCompletionResponse{}, fmt.Errorf("llm %s (%s): streaming requests are not supported", role, stage)
	}
	if rc.MaxTokens > 0 && c.completionTokens[role].Load() {
		rc.MaxTokensField = FieldMaxCompletionTokens
	}
	resp, err := c.chatFormatted(ctx, role, stage, rc, req, start)
	if rc.MaxTokens > 0 && rc.MaxTokensField != FieldMaxCompletionTokens && refusedMaxTokens(err) {
		// OpenAI's reasoning models refuse max_tokens by name and ask for
		// max_completion_tokens: the server said which field it reads, so
		// send that, now and for the rest of the run.
		c.completionTokens[role].Store(true)
		c.log.Warn("llm: the server refused max_tokens; sending max_completion_tokens from now on (set llm.roles."+string(role)+".max_tokens_field: max_completion_tokens)", "role", role)
		rc.MaxTokensField = FieldMaxCompletionTokens
		return c.chatFormatted(ctx, role, stage, rc, req, start)
	}
	return resp, err
}

// refusedMaxTokens reports whether err is a server's refusal of
// max_tokens that names max_completion_tokens instead.
func refusedMaxTokens(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Fault == FaultClient && e.Status == http.StatusBadRequest &&
		(e.Param == "max_tokens" || strings.Contains(e.Message, "max_completion_tokens"))
}

// chatFormatted sends the role's request, asking the judge's server for
// structured output while it takes it.
func (c *Client) chatFormatted(ctx context.Context, role Role, stage string, rc RoleConfig, req openai.ChatCompletionRequest, start time.Time) (openai.ChatCompletionResponse, error) {
	final := finalRequest(rc, req)
	if role == Judge && rc.ResponseFormat != "" && final.ResponseFormat == nil && !c.noResponseFormat.Load() {
		resp, err := c.chat(ctx, role, stage, rc, withResponseFormat(final, rc.ResponseFormat), start)
		if !refusedResponseFormat(err) {
			return resp, err
		}
		// Structured output is not supported everywhere (older vLLM
		// without guided decoding, Ollama before 0.5, some proxies): the
		// prompt already asks for the JSON object, so ask again without.
		c.noResponseFormat.Store(true)
		c.log.Warn("llm: the server refused response_format; asking the judge without it from now on", "err", err)
	}
	return c.chat(ctx, role, stage, rc, final, start)
}

// refusedResponseFormat reports whether err is a server's refusal of the
// request's response_format.
func refusedResponseFormat(err error) bool {
	var e *Error
	if !errors.As(err, &e) || e.Fault != FaultClient || (e.Status != http.StatusBadRequest && e.Status != http.StatusUnprocessableEntity) {
		return false
	}
	msg := strings.ToLower(e.Message)
	return strings.Contains(msg, "response_format") || strings.Contains(msg, "json_schema") || strings.Contains(msg, "structured") || strings.Contains(msg, "guided")
}

// chat sends final, the request with the role's settings filled in.
func (c *Client) chat(ctx context.Context, role Role, stage string, rc RoleConfig, final openai.ChatCompletionRequest, start time.Time) (openai.ChatCompletionResponse, error) {
	body, err := wireBody(final, rc, c.cfg.ReasoningFieldOf(), c.canon)
	if err != nil {
		return openai.ChatCompletionResponse{}, fmt.Errorf("llm %s (%s): %w", role, stage, err)
	}
	k := usageKey{role: role, stage: stage, model: final.Model}
	var key string
	if c.cache != nil {
		key = cacheKey(c.cfg.BaseURL, body)
		resp, found, err := c.cache.get(key)
		if err == nil && found {
			c.acct.used(k, int64(resp.Usage.PromptTokens), int64(resp.Usage.CompletionTokens), true, c.now().Sub(start))
			return resp, nil
		}
		if found {
			c.log.Warn("llm cache: ignoring an unreadable entry; fetching it again", "key", key, "err", err)
		}
	}
	resp, raw, paused, err := c.send(ctx, role, stage, rc, k, final, body)
	if err != nil {
		return openai.ChatCompletionResponse{}, err
	}
	if c.cache != nil {
		// The entry in place wins: identical requests racing here, in this
		// process or another, all return the response that was kept.
		if kept, err := c.cache.put(key, raw); err != nil {
			c.acct.cacheError()
			c.log.Warn("llm cache: could not store a response; it is used but will be fetched again next run", "key", key, "err", err)
		} else {
			resp = kept
		}
	}
	c.acct.used(k, int64(resp.Usage.PromptTokens), int64(resp.Usage.CompletionTokens), false, c.now().Sub(start)-paused)
	return resp, nil
}

// send makes the request, retrying, and returns the decoded response,
// its raw body and the time spent waiting or on the network.
func (c *Client) send(ctx context.Context, role Role, stage string, rc RoleConfig, k usageKey, final openai.ChatCompletionRequest, body []byte) (resp openai.ChatCompletionResponse, raw []byte, paused time.Duration, err error) {
	retries := max(0, c.cfg.MaxRetries)
	var last outcome
	// The body is the same on every attempt, and so is its estimate.
	est := estimateTokens(body, final)
	// The request's budget: llm.timeout for each attempt it may make. No
	// wait between attempts may outlast it; time queued for a slot or the
	// rate limits is the run's, not the request's, and does not count.
	budget, spent := requestBudget(c.timeout, retries), time.Duration(0)
	attempt := 0
	for ; attempt <= retries; attempt++ {
		if err := c.checkBudget(ctx); err != nil {
			return resp, nil, paused, fmt.Errorf("llm %s (%s): %w", role, stage, err)
		}
		t0 := c.now()
		if err := c.wait(ctx, est); err != nil {
			return resp, nil, paused, c.ctxErr(role, stage, err)
		}
		paused += c.now().Sub(t0)
		// Again: the budget may have run out while this call queued.
		if err := c.checkBudget(ctx); err != nil {
			c.limiter.release()
			c.refund(est)
			return resp, nil, paused, fmt.Errorf("llm %s (%s): %w", role, stage, err)
		}
		ex := &exchange{body: body}
		c.acct.sent(k, attempt > 0)
		actx, cancel := context.WithTimeout(withExchange(ctx, ex), c.timeout)
		// go-openai builds the HTTP request, sets the key, and decodes the
		// response and errors; the body it would encode is replaced by the
		// transport with ours, so it gets only the model, not the whole
		// request to encode a second time.
		sentAt := c.now()
		resp, err = c.oa.CreateChatCompletion(actx, openai.ChatCompletionRequest{Model: final.Model})
		timedOut := actx.Err() != nil
		cancel()
		spent += c.now().Sub(sentAt)
		paused += ex.network
		if ctx.Err() != nil {
			c.limiter.release()
			c.refund(est)
			return resp, nil, paused, c.ctxErr(role, stage, ctx.Err())
		}
		var o outcome
		if resp, o, err = c.attemptResult(resp, err, timedOut, ex, final.Model); err == nil {
			c.accept(k, role, final, &resp, ex.raw, est)
			return resp, ex.raw, paused, nil
		}
		last = o
		c.limiter.release()
		c.refund(est)
		c.failed(&last, role, rc)
		if !last.retriable() || attempt == retries {
			break
		}
		d, ok := c.retryWait(attempt+1, &last, budget, spent, retries+1)
		if !ok {
			break
		}
		c.log.Debug("llm: retrying", "role", role, "stage", stage, "fault", last.fault, "status", last.status,
			"attempt", attempt+1, "wait", d, "message", last.message)
		t1 := c.now()
		if err := sleep(ctx, d); err != nil {
			return resp, nil, paused, c.ctxErr(role, stage, err)
		}
		paused += c.now().Sub(t1)
		spent += d
	}
	return openai.ChatCompletionResponse{}, nil, paused, &Error{
		Role: role, Stage: stage, Attempts: attempt + 1,
		Status: last.status, Fault: last.fault, Message: last.message,
		Param: last.param, Hint: last.hint,
	}
}

// attemptResult reads an attempt's response: the outcome when it failed,
// or the reply a failed tool-call parse left as text.
func (c *Client) attemptResult(resp openai.ChatCompletionResponse, err error, timedOut bool, ex *exchange, model string) (openai.ChatCompletionResponse, outcome, error) {
	var last outcome
	switch {
	case err == nil && len(resp.Choices) == 0:
		err = errNoChoices
		last = outcome{fault: FaultEmpty, status: ex.status, message: "the response has no choices"}
	case err != nil && timedOut:
		last = outcome{fault: FaultTimeout, status: ex.status, message: fmt.Sprintf("no complete response within %s (llm.timeout)", c.timeout)}
	case err != nil:
		last = classify(err, ex)
	}
	if err != nil && !timedOut {
		if r, raw, ok := unparsedReply(ex.status, ex.raw, model); ok {
			// llama.cpp's tool-call parser failed on the model's
			// output: read it as vLLM and SGLang return one, the text
			// as content. The same request would fail the same way,
			// so it is not retried, and it is cached like a reply.
			c.acct.fault(FaultToolParse)
			resp, ex.raw, err = r, raw, nil
		}
	}
	return resp, last, err
}

// accept counts a reply: its reasoning normalized, the limits told of
// its success and real size, its tokens billed.
func (c *Client) accept(k usageKey, role Role, final openai.ChatCompletionRequest, resp *openai.ChatCompletionResponse, raw []byte, est float64) {
	normalizeReasoning(resp, raw)
	c.noteReply(role, final, *resp)
	c.limiter.success()
	prompt, completion := int64(resp.Usage.PromptTokens), int64(resp.Usage.CompletionTokens)
	if c.tpm != nil {
		c.tpm.adjust(est - float64(prompt+completion))
	}
	c.acct.billed(k, prompt, completion)
	// Released after billing, so a call that takes the slot sees
	// this one's cost in the budget.
	c.limiter.release()
}

// failed records a failed attempt: its message without secrets, the fix
// when synth can tell it, its fault counted, and a burst of 429s noted.
func (c *Client) failed(last *outcome, role Role, rc RoleConfig) {
	last.message = c.scrub(last.message)
	if last.fault == FaultClient || last.fault == FaultServer {
		if hint, permanent := diagnose(*last, role, rc); hint != "" {
			last.hint = hint
			if permanent {
				// A set-up the server refuses, whatever its status
				// says: asking again changes nothing.
				last.fault = FaultClient
			}
		}
	}
	c.acct.fault(last.fault)
	if last.fault == FaultThrottled && c.limiter.throttled() {
		c.log.Warn("llm: burst of 429s, halving concurrency", "limit", c.limiter.stats().limit)
	}
}

// retryWait is the wait before retry n: the server's Retry-After or the
// backoff, within what is left of the request's budget. A server asking
// for longer than that would park the run: it is false then, and last's
// message names the wait.
func (c *Client) retryWait(n int, last *outcome, budget, spent time.Duration, attempts int) (time.Duration, bool) {
	left := max(budget-spent, 0)
	if last.retryAfter > left {
		last.message = fmt.Sprintf("%s; the server asked to wait %s before retrying (Retry-After), more than the %s left of the request's budget of %s (llm.timeout %s × %d attempts, llm.max_retries + 1): raise llm.timeout or llm.max_retries to wait that long, or try later",
			last.message, last.retryAfter.Round(time.Second), left.Round(time.Second), budget, c.timeout, attempts)
		return 0, false
	}
	return min(backoff(n, c.backoffBase, c.backoffCap, last.retryAfter), left), true
}

// requestBudget is the time one request may take, attempts and the waits
// between them together: llm.timeout for each attempt it may make.
func requestBudget(timeout time.Duration, retries int) time.Duration {
	n := time.Duration(retries + 1)
	if timeout > math.MaxInt64/n {
		return math.MaxInt64
	}
	return timeout * n
}

// noteReply counts and logs, once each, what a live reply says about
// the server: a tool call left as text, a reply cut at max_tokens.
func (c *Client) noteReply(role Role, final openai.ChatCompletionRequest, resp openai.ChatCompletionResponse) {
	if len(resp.Choices) == 0 {
		return
	}
	ch := resp.Choices[0]
	unparsed := len(final.Tools) > 0 && hasUnparsedCall(ch.Message)
	cut := ch.FinishReason == openai.FinishReasonLength
	c.acct.reply(unparsed, cut)
	if unparsed {
		c.warnOnce("unparsed", "llm: a reply holds a tool call as text, unparsed: the server's tool-call parser is off or failed on it "+
			"(vLLM --enable-auto-tool-choice --tool-call-parser NAME, SGLang --tool-call-parser NAME; see docs/llm.md for each server's flags); "+
			"such turns fail verification", "role", role)
	}
	if cut {
		c.warnOnce("length:"+string(role), "llm: the server cut a reply at max_tokens (finish_reason length); raise llm.roles."+string(role)+".max_tokens if that is not meant", "role", role)
	}
}

func (c *Client) warnOnce(key, msg string, args ...any) {
	if _, seen := c.warned.LoadOrStore(key, true); !seen {
		c.log.Warn(msg, args...)
	}
}

// wait takes the rate limits' tokens, then a concurrency slot.
func (c *Client) wait(ctx context.Context, est float64) error {
	if c.rpm != nil {
		if err := c.rpm.take(ctx, 1); err != nil {
			return err
		}
	}
	if c.tpm != nil {
		if err := c.tpm.take(ctx, est); err != nil {
			return err
		}
	}
	if err := c.limiter.acquire(ctx); err != nil {
		c.refund(est)
		return err
	}
	return nil
}

// refund returns a failed attempt's estimated tokens to the TPM bucket.
func (c *Client) refund(est float64) {
	if c.tpm != nil {
		c.tpm.adjust(est)
	}
}

type admittedKey struct{}

// Admitted marks ctx as work started before the budget ran out: its
// requests are still sent after that, so a dialogue in flight finishes
// instead of being cut off halfway. Callers check Spent before admitting
// new work; the overshoot is bounded by the work admitted at once.
func Admitted(ctx context.Context) context.Context {
	return context.WithValue(ctx, admittedKey{}, true)
}

// Spent returns an error wrapping ErrBudget once the billed cost or
// tokens reach llm.max_cost or llm.max_tokens.
func (c *Client) Spent() error { return c.checkBudget(context.Background()) }

func (c *Client) checkBudget(ctx context.Context) error {
	if admitted, _ := ctx.Value(admittedKey{}).(bool); admitted {
		return nil
	}
	if c.cfg.MaxCost <= 0 && c.cfg.MaxTokens <= 0 {
		return nil
	}
	cost, tokens := c.acct.spent()
	if c.cfg.MaxCost > 0 && cost >= c.cfg.MaxCost {
		return fmt.Errorf("%w: $%.6g billed of llm.max_cost $%.6g", ErrBudget, cost, c.cfg.MaxCost)
	}
	if c.cfg.MaxTokens > 0 && tokens >= c.cfg.MaxTokens {
		return fmt.Errorf("%w: %d tokens billed of llm.max_tokens %d", ErrBudget, tokens, c.cfg.MaxTokens)
	}
	return nil
}

func (c *Client) ctxErr(role Role, stage string, err error) error {
	return fmt.Errorf("llm %s (%s): %w", role, stage, err)
}

// scrub removes every secret from a server's message: a server may echo
// the Authorization header back in an error.
func (c *Client) scrub(s string) string { return c.red.String(s) }

// Usage returns token accounting so far.
func (c *Client) Usage() Usage { return c.acct.usage() }

// Stats returns the live figures so far.
func (c *Client) Stats() Stats {
	s := c.acct.stats()
	l := c.limiter.stats()
	s.InFlight, s.PeakInFlight, s.MeanInFlight, s.Limit, s.Cuts = l.inFlight, l.peak, l.mean, l.limit, l.cuts
	s.MaxConcurrency = c.cfg.MaxConcurrency
	return s
}

// Format prints the client without its key, whatever the verb: fmt would
// otherwise print unexported fields, the key among them.
func (c *Client) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "llm.Client{base_url: %s, api_key_env: %s}", c.cfg.BaseURL, c.cfg.APIKeyEnv)
}

var _ fmt.Formatter = (*Client)(nil)

// Close releases idle connections.
func (c *Client) Close() error {
	c.http.CloseIdleConnections()
	return nil
}

var _ io.Closer = (*Client)(nil)
