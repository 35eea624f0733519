package llm

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Config is the LLM section of a run's config (YAML key "llm"). It holds
// no secret: the API key is read from the environment variable it names,
// and header values may name variables too (${NAME}), so the config can be
// written into a release manifest as it is.
type Config struct {
	BaseURL   string            `json:"base_url"`          // e.g. http://127.0.0.1:8089/v1
	APIKeyEnv string            `json:"api_key_env"`       // variable holding the key; "none" sends no key
	Headers   map[string]string `json:"headers,omitempty"` // extra request headers; ${NAME} is read from the environment
	Timeout   string            `json:"timeout"`           // per request (Go duration)

	// Server names the kind of server at BaseURL, as synth emulate's
	// --flavor does: openai, vllm, sglang, ollama or llamacpp; "" for one
	// not named. It chooses the request field that carries an assistant
	// turn's reasoning back to the server on the next turns
	// (ReasoningFieldOf): each server reads one and drops the other.
	Server string `json:"server,omitempty"`
	// ReasoningField overrides the server's field: reasoning,
	// reasoning_content, or none (vLLM before 0.20 reads
	// reasoning_content: server vllm, reasoning_field reasoning_content).
	ReasoningField string `json:"reasoning_field,omitempty"`

	// Model is the model of every role that does not name its own.
	Model string              `json:"model,omitempty"`
	Roles map[Role]RoleConfig `json:"roles"`

	MaxConcurrency int `json:"max_concurrency"` // in-flight cap; the adaptive limit stays below it
	RPM            int `json:"rpm,omitempty"`   // requests per minute, 0 = unlimited
	TPM            int `json:"tpm,omitempty"`   // tokens per minute, 0 = unlimited
	MaxRetries     int `json:"max_retries"`     // retries after the first attempt; -1 = none

	Cache string `json:"cache"` // response cache directory; "" = user cache dir; "off" = none

	// MaxResponseBytes bounds one response body (0: DefaultMaxResponseBytes).
	// A larger reply fails its request at once: it is neither cached nor
	// retried, since the same request would get the same reply.
	MaxResponseBytes int64 `json:"max_response_bytes,omitempty"`

	Prices    map[string]Price `json:"prices,omitempty"`     // model -> USD per 1M tokens
	MaxCost   float64          `json:"max_cost,omitempty"`   // USD billed in this run; 0 = no limit
	MaxTokens int64            `json:"max_tokens,omitempty"` // tokens billed in this run; 0 = no limit
}

// RoleConfig is one role's model and sampling settings. Nil pointers and
// zero MaxTokens leave the server's defaults.
type RoleConfig struct {
	Model       string   `json:"model,omitempty"`
	Temperature *float32 `json:"temperature,omitempty"`
	TopP        *float32 `json:"top_p,omitempty"`
	Seed        *int     `json:"seed,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
	// MaxTokensField names the request field MaxTokens is sent in:
	// "max_tokens" (the default; Ollama, llama.cpp, vLLM and SGLang read
	// it) or "max_completion_tokens" (OpenAI's reasoning models refuse
	// max_tokens). A setting, not a guess from the model's name.
	MaxTokensField string `json:"max_tokens_field,omitempty"`
	// ReasoningEffort is sent as reasoning_effort (OpenAI's reasoning
	// models, gpt-oss on vLLM: low, medium, high).
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
	// ToolChoice is sent as tool_choice on requests that carry tools:
	// "auto", "required", "none", or {"type": "function", "function":
	// {"name": ...}}.
	ToolChoice any `json:"tool_choice,omitempty"`
	// ParallelToolCalls is sent as parallel_tool_calls on requests that
	// carry tools.
	ParallelToolCalls *bool `json:"parallel_tool_calls,omitempty"`
	// ResponseFormat asks the judge's server for structured output:
	// "json_schema" (the review's JSON schema, strict), "json_object", or
	// "" for none. A server that refuses it (HTTP 400/422 naming
	// response_format) is asked again without it, and the client stops
	// sending it.
	ResponseFormat string `json:"response_format,omitempty"`
	// ExtraBody is merged into the request body last, overriding any key
	// synth set: vendor fields such as chat_template_kwargs
	// ({"enable_thinking": false} for Qwen3 on vLLM and SGLang), top_k,
	// min_p, repetition_penalty, or Ollama's options.
	ExtraBody map[string]any `json:"extra_body,omitempty"`
}

// Request fields RoleConfig.MaxTokensField may name.
const (
	FieldMaxTokens           = "max_tokens"
	FieldMaxCompletionTokens = "max_completion_tokens"
)

// Servers Config.Server names.
const (
	ServerOpenAI   = "openai"
	ServerVLLM     = "vllm"
	ServerSGLang   = "sglang"
	ServerOllama   = "ollama"
	ServerLlamaCPP = "llamacpp"
)

// Request fields an assistant message's reasoning goes back in
// (Config.ReasoningField).
const (
	FieldReasoning        = "reasoning"
	FieldReasoningContent = "reasoning_content"
	FieldNone             = "none"
)

// ReasoningFieldOf is the field the config's server reads an assistant
// turn's reasoning from, on input:
//
//	vllm      reasoning (vLLM 0.20 on: entrypoints/chat_utils.py reads
//	          message["reasoning"] only; reasoning_content is dropped)
//	ollama    reasoning (openai/openai.go: Message.Reasoning → Thinking)
//	sglang    reasoning_content (entrypoints/openai/protocol.py:
//	          ChatCompletionMessageGenericParam.reasoning_content)
//	llamacpp  reasoning_content (common/chat.cpp, the OpenAI-compatible
//	          message parser)
//	openai    none (the Chat Completions API has no such input field;
//	          its reasoning models return none either)
//	""        reasoning_content, what synth sent before servers were named
func (c Config) ReasoningFieldOf() string {
	if c.ReasoningField != "" {
		return c.ReasoningField
	}
	switch c.Server {
	case ServerVLLM, ServerOllama:
		return FieldReasoning
	case ServerOpenAI:
		return FieldNone
	}
	return FieldReasoningContent
}

// Price is what a model costs, in USD per million tokens.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
}

// Cost is the price of the tokens, in USD.
func (p Price) Cost(prompt, completion int64) float64 {
	return (float64(prompt)*p.Input + float64(completion)*p.Output) / 1e6
}

// Defaults.
const (
	DefaultAPIKeyEnv      = "OPENAI_API_KEY"
	DefaultTimeout        = "120s"
	DefaultMaxConcurrency = 64
	DefaultMaxRetries     = 8
	// DefaultMaxResponseBytes bounds a response body: a chat completion is
	// kilobytes; megabytes mean a runaway generation or the wrong server.
	DefaultMaxResponseBytes = 4 << 20
	// NoKey as api_key_env sends no Authorization header (local servers).
	NoKey = "none"
	// CacheOff as cache disables the response cache.
	CacheOff = "off"
)

// Bounds of the numbers in the config. Each lies far beyond any sensible
// setting; it is there so that a mistyped value (max_retries 1000000000
// against a closed port) fails with a message instead of running forever
// or overflowing.
const (
	MaxTimeout       = time.Hour
	MaxRetries       = 100
	MaxConcurrency   = 4096
	MaxPerMinute     = 1_000_000_000
	MaxResponseBytes = 1 << 30
	MaxRoleTokens    = 10_000_000
)

// Roles lists every role, in a fixed order.
func Roles() []Role { return []Role{Agent, User, Judge, Writer} }

// WithDefaults fills unset fields. It copies the maps it changes, so the
// receiver's maps are never written.
func (c Config) WithDefaults() Config {
	c.APIKeyEnv = cmp.Or(c.APIKeyEnv, DefaultAPIKeyEnv)
	if c.Timeout == "" {
		c.Timeout = DefaultTimeout
	}
	c.MaxConcurrency = cmp.Or(c.MaxConcurrency, DefaultMaxConcurrency)
	if c.MaxRetries == 0 {
		c.MaxRetries = DefaultMaxRetries
	}
	c.MaxResponseBytes = cmp.Or(c.MaxResponseBytes, DefaultMaxResponseBytes)
	if c.Model != "" {
		roles := make(map[Role]RoleConfig, len(Roles()))
		maps.Copy(roles, c.Roles)
		for _, r := range Roles() {
			rc := roles[r]
			rc.Model = cmp.Or(rc.Model, c.Model)
			roles[r] = rc
		}
		c.Roles = roles
	}
	return c
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Check reports every problem of the config at once, each naming its
// key. Call it on WithDefaults' result.
func (c Config) Check() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("llm.%s: "+format, append([]any{key}, args...)...))
	}
	c.checkEndpoint(bad)
	c.checkRoles(bad)
	c.checkRates(bad)
	c.checkCost(bad)
	if c.MaxTokens < 0 {
		bad("max_tokens", "%d: want 0 (no limit) or more", c.MaxTokens)
	}
	if c.MaxResponseBytes < 0 || c.MaxResponseBytes > MaxResponseBytes {
		bad("max_response_bytes", "%d: want a byte count up to %d (0: the default %d)", c.MaxResponseBytes, int64(MaxResponseBytes), DefaultMaxResponseBytes)
	}
	return errors.Join(errs...)
}

// checkEndpoint checks how the server is reached: its URL, kind,
// reasoning field, key variable, headers and timeout.
func (c Config) checkEndpoint(bad func(key, format string, args ...any)) {
	if c.BaseURL == "" {
		bad("base_url", "required (the server's OpenAI-compatible root, e.g. http://127.0.0.1:8089/v1)")
	} else if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("base_url", "%q is not an http(s) URL (e.g. http://127.0.0.1:8089/v1)", c.BaseURL)
	} else if u.User != nil {
		bad("base_url", "must not carry credentials; put the key in the variable named by llm.api_key_env")
	}
	switch c.Server {
	case "", ServerOpenAI, ServerVLLM, ServerSGLang, ServerOllama, ServerLlamaCPP:
	default:
		bad("server", "%q: want openai, vllm, sglang, ollama, llamacpp or empty (a server not named)", c.Server)
	}
	switch c.ReasoningField {
	case "", FieldReasoning, FieldReasoningContent, FieldNone:
	default:
		bad("reasoning_field", "%q: want %s, %s, %s or empty (the server's own)", c.ReasoningField, FieldReasoning, FieldReasoningContent, FieldNone)
	}
	if c.APIKeyEnv != NoKey && !envName.MatchString(c.APIKeyEnv) {
		bad("api_key_env", "%q is not an environment variable name (want e.g. OPENAI_API_KEY, or %q for no key)", c.APIKeyEnv, NoKey)
	}
	for _, name := range slices.Sorted(maps.Keys(c.Headers)) {
		if !validHeaderName(name) {
			bad("headers", "%q is not a valid HTTP header name", name)
		}
		if _, err := expandHeader(c.Headers[name], func(string) (string, bool) { return "x", true }); err != nil {
			bad("headers."+name, "%v", err)
		}
	}
	if d, err := time.ParseDuration(c.Timeout); err != nil || d <= 0 {
		bad("timeout", "%q is not a positive duration (e.g. 120s, 2m)", c.Timeout)
	} else if d > MaxTimeout {
		bad("timeout", "%s: at most %s per request", c.Timeout, MaxTimeout)
	}
}

// checkRoles checks that every role is known and well configured.
func (c Config) checkRoles(bad func(key, format string, args ...any)) {
	for _, r := range slices.Sorted(maps.Keys(c.Roles)) {
		if !slices.Contains(Roles(), r) {
			bad("roles."+string(r), "unknown role (known: agent, user, judge, writer)")
		}
	}
	for _, r := range Roles() {
		rc, ok := c.Roles[r]
		checkRole("roles."+string(r), rc, ok, bad)
	}
}

// checkRates checks the concurrency, rate limits and retries.
func (c Config) checkRates(bad func(key, format string, args ...any)) {
	switch {
	case c.MaxConcurrency < 1:
		bad("max_concurrency", "%d: need at least 1", c.MaxConcurrency)
	case c.MaxConcurrency > MaxConcurrency:
		bad("max_concurrency", "%d: at most %d requests in flight", c.MaxConcurrency, MaxConcurrency)
	}
	if c.RPM < 0 || c.RPM > MaxPerMinute {
		bad("rpm", "%d: want 0 (unlimited) to %d", c.RPM, MaxPerMinute)
	}
	if c.TPM < 0 || c.TPM > MaxPerMinute {
		bad("tpm", "%d: want 0 (unlimited) to %d", c.TPM, MaxPerMinute)
	}
	if c.MaxRetries < -1 || c.MaxRetries > MaxRetries {
		bad("max_retries", "%d: want -1 (no retries), 0 (the default %d) or up to %d", c.MaxRetries, DefaultMaxRetries, MaxRetries)
	}
}

// checkCost checks the prices and that a cost limit has a price for
// every model it must count.
func (c Config) checkCost(bad func(key, format string, args ...any)) {
	for _, m := range slices.Sorted(maps.Keys(c.Prices)) {
		p := c.Prices[m]
		if p.Input < 0 || p.Output < 0 || math.IsNaN(p.Input) || math.IsNaN(p.Output) || math.IsInf(p.Input, 0) || math.IsInf(p.Output, 0) {
			bad("prices."+m, "input %v, output %v: want USD per million tokens, 0 or more", p.Input, p.Output)
		}
	}
	if c.MaxCost < 0 || math.IsNaN(c.MaxCost) || math.IsInf(c.MaxCost, 0) {
		bad("max_cost", "%v: want USD, 0 (no limit) or more", c.MaxCost)
	}
	if c.MaxCost > 0 {
		for _, r := range Roles() {
			if m := c.Roles[r].Model; m != "" {
				if _, ok := c.Prices[m]; !ok {
					bad("prices", "no price for model %q (role %s): llm.max_cost needs a price for every model", m, r)
				}
			}
		}
	}
}

// checkRole checks one role's settings; ok says the config names it.
func checkRole(key string, rc RoleConfig, ok bool, bad func(key, format string, args ...any)) {
	if !ok || rc.Model == "" {
		bad(key+".model", "required (set it, or llm.model for every role)")
	}
	if t := rc.Temperature; t != nil && (*t < 0 || *t > 2 || isNaN32(*t)) {
		bad(key+".temperature", "%v is outside 0-2", *t)
	}
	if p := rc.TopP; p != nil && (*p < 0 || *p > 1 || isNaN32(*p)) {
		bad(key+".top_p", "%v is outside 0-1", *p)
	}
	if rc.MaxTokens < 0 || rc.MaxTokens > MaxRoleTokens {
		bad(key+".max_tokens", "%d: want 0 (the server's default) to %d", rc.MaxTokens, MaxRoleTokens)
	}
	switch rc.MaxTokensField {
	case "", FieldMaxTokens, FieldMaxCompletionTokens:
	default:
		bad(key+".max_tokens_field", "%q: want %s or %s", rc.MaxTokensField, FieldMaxTokens, FieldMaxCompletionTokens)
	}
	switch rc.ResponseFormat {
	case "", "json_schema", "json_object":
	default:
		bad(key+".response_format", "%q: want json_schema, json_object or empty", rc.ResponseFormat)
	}
	switch tc := rc.ToolChoice.(type) {
	case nil:
	case string:
		if tc != "auto" && tc != "required" && tc != "none" {
			bad(key+".tool_choice", "%q: want auto, required, none or {type: function, function: {name: ...}}", tc)
		}
	case map[string]any:
	default:
		bad(key+".tool_choice", "want auto, required, none or {type: function, function: {name: ...}}")
	}
	for k := range rc.ExtraBody {
		if k == "model" || k == "messages" || k == "stream" {
			bad(key+".extra_body."+k, "synth sets %s itself; remove it from extra_body", k)
		}
	}
}

// cacheDir resolves the cache setting to a directory, "" meaning none.
func (c Config) cacheDir() (string, error) {
	switch c.Cache {
	case CacheOff:
		return "", nil
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("llm.cache: no user cache directory (%w); set llm.cache to a directory, or %q", err, CacheOff)
		}
		return filepath.Join(base, "synth", "llm"), nil
	default:
		return c.Cache, nil
	}
}

// expandHeader replaces each ${NAME} in v with the variable's value, so
// that secrets in headers stay out of the config.
func expandHeader(v string, lookup func(string) (string, bool)) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(v, "${")
		if i < 0 {
			b.WriteString(v)
			return b.String(), nil
		}
		j := strings.IndexByte(v[i:], '}')
		if j < 0 {
			return "", fmt.Errorf("unclosed ${ in header value")
		}
		name := v[i+2 : i+j]
		if !envName.MatchString(name) {
			return "", fmt.Errorf("${%s}: not an environment variable name", name)
		}
		val, ok := lookup(name)
		if !ok || val == "" {
			return "", fmt.Errorf("environment variable %s is not set; export it", name)
		}
		b.WriteString(v[:i])
		b.WriteString(val)
		v = v[i+j+1:]
	}
}

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		// RFC 9110 token characters.
		if r > 0x7e || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return http.CanonicalHeaderKey(s) != ""
}

func isNaN32(f float32) bool { return f != f }
