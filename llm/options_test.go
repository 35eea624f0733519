package llm

import (
	"log/slog"
	"net/http"
	"time"
)

// WithTransport sends requests through rt instead of a network transport
// (tests, benchmarks, or a custom proxy set-up).
func WithTransport(rt http.RoundTripper) Option { return func(o *options) { o.transport = rt } }

// WithLookupEnv reads environment variables through f instead of
// os.LookupEnv.
func WithLookupEnv(f func(string) (string, bool)) Option {
	return func(o *options) { o.lookupEnv = f }
}

// WithLogger logs limit cuts and cache problems (warn) and each retry
// (debug) to l (default: nowhere). No record carries a secret.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithBackoff sets the retry backoff: full jitter under base·2ⁿ, capped
// (default 250ms and 20s).
func WithBackoff(base, ceiling time.Duration) Option {
	return func(o *options) { o.backoffBase, o.backoffCap = base, ceiling }
}

// WithAIMD tunes the adaptive concurrency limit: `burst` 429s within
// `window`, when they are also a tenth or more of the window's responses,
// halve it (at most once per window); every `increaseEvery` successes
// raise it by one (default 3, 1s, 4).
func WithAIMD(burst int, window time.Duration, increaseEvery int) Option {
	return func(o *options) { o.burst, o.burstWindow, o.increaseEvery = burst, window, increaseEvery }
}
