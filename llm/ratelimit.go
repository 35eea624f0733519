package llm

import (
	"context"
	"sync"
	"time"
)

// bucket is a token bucket refilled at perMinute/60 tokens a second and
// holding at most one second's worth (at least one request's worth), so
// requests are spaced evenly instead of bursting a whole minute's quota.
// A take larger than the bucket waits for a full bucket, then goes into
// debt that later takes wait off: the TPM bucket must admit a request
// bigger than one second's tokens.
type bucket struct {
	mu     sync.Mutex
	rate   float64 // tokens per second
	burst  float64
	tokens float64
	last   time.Time
	now    func() time.Time
}

func newBucket(perMinute int, now func() time.Time) *bucket {
	rate := float64(perMinute) / 60
	burst := max(1, rate)
	return &bucket{rate: rate, burst: burst, tokens: burst, last: now(), now: now}
}

// take reserves n tokens, waiting until the bucket is out of debt. A
// cancelled wait gives the tokens back.
func (b *bucket) take(ctx context.Context, n float64) error {
	b.mu.Lock()
	b.refill(b.now())
	// Wait until the tokens earned cover the take, or fill the bucket
	// when the take is larger than it; reserving at once queues later
	// takes behind this one.
	need, before := min(n, b.burst), b.tokens
	b.tokens -= n
	var wait time.Duration
	if before < need {
		wait = time.Duration((need - before) / b.rate * float64(time.Second))
	}
	b.mu.Unlock()
	if wait <= 0 {
		return nil
	}
	if err := sleep(ctx, wait); err != nil {
		b.adjust(n)
		return err
	}
	return nil
}

// adjust gives back (n > 0) or charges (n < 0) tokens after the fact,
// when a response reports what a request really used.
func (b *bucket) adjust(n float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill(b.now())
	b.tokens = min(b.burst, b.tokens+n)
}

// refill adds the tokens earned since the last call; b.mu is held.
func (b *bucket) refill(t time.Time) {
	if d := t.Sub(b.last).Seconds(); d > 0 {
		b.tokens = min(b.burst, b.tokens+d*b.rate)
	}
	b.last = t
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
