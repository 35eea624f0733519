package llm

import (
	"context"
	"sync"
	"time"
)

// aimd caps requests in flight with a limit that moves between 1 and max:
// halved on a burst of 429s (at most once per window), raised by one
// after every `increaseEvery` successes. Waiters are served in arrival
// order. It also keeps the in-flight figures Stats reports.
//
// A burst is at least `burst` 429s within the window that are also at
// least throttleShare of the responses in it: at 300 responses a second,
// a few stray 429s are noise, not a sign that the server is overloaded,
// and halving on them would throw away most of the throughput.
type aimd struct {
	mu            sync.Mutex
	limit, max    int
	inFlight      int
	waiters       []chan struct{}
	burst         int           // 429s within window that make a burst
	window        time.Duration // burst window, and the least time between cuts
	increaseEvery int
	recent        []response // responses inside the window, oldest first
	// 429s among recent.
	throttledInWindow int
	lastCut           time.Time
	successes         int
	cuts              int64

	// Time-weighted in-flight: area under inFlight(t) from the first
	// acquire to the last change.
	peak       int
	area       float64 // request-seconds
	first      time.Time
	lastChange time.Time
	now        func() time.Time
}

func newAIMD(max, burst int, window time.Duration, increaseEvery int, now func() time.Time) *aimd {
	return &aimd{limit: max, max: max, burst: burst, window: window, increaseEvery: increaseEvery, now: now}
}

// acquire waits for a slot, or for ctx.
func (l *aimd) acquire(ctx context.Context) error {
	l.mu.Lock()
	if l.inFlight < l.limit && len(l.waiters) == 0 {
		l.take()
		l.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	l.waiters = append(l.waiters, ch)
	l.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		l.mu.Lock()
		for i, w := range l.waiters {
			if w == ch {
				l.waiters = append(l.waiters[:i], l.waiters[i+1:]...)
				l.mu.Unlock()
				return ctx.Err()
			}
		}
		l.mu.Unlock()
		// Granted while cancelling: hand the slot on.
		l.release()
		return ctx.Err()
	}
}

// take counts one more request in flight; l.mu is held.
func (l *aimd) take() {
	l.advance()
	l.inFlight++
	l.peak = max(l.peak, l.inFlight)
}

func (l *aimd) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.advance()
	l.inFlight--
	l.grant()
}

// grant wakes waiters while there is room; l.mu is held.
func (l *aimd) grant() {
	for l.inFlight < l.limit && len(l.waiters) > 0 {
		ch := l.waiters[0]
		l.waiters = l.waiters[1:]
		l.take()
		close(ch)
	}
}

// advance accumulates the in-flight area up to now; l.mu is held.
func (l *aimd) advance() {
	t := l.now()
	if l.first.IsZero() {
		l.first, l.lastChange = t, t
	}
	l.area += float64(l.inFlight) * t.Sub(l.lastChange).Seconds()
	l.lastChange = t
}

// throttleShare is the least share of 429s among a window's responses
// that counts as a burst.
const throttleShare = 0.1

type response struct {
	at        time.Time
	throttled bool
}

// record adds a response, forgets those older than the window, and
// returns the 429s among the rest; l.mu is held.
func (l *aimd) record(t time.Time, throttled bool) int {
	drop := 0
	for drop < len(l.recent) && t.Sub(l.recent[drop].at) >= l.window {
		if l.recent[drop].throttled {
			l.throttledInWindow--
		}
		drop++
	}
	// Reslicing forward; append moves the window to fresh memory when
	// the array runs out, so this stays amortised O(1).
	l.recent = append(l.recent[drop:], response{at: t, throttled: throttled})
	if throttled {
		l.throttledInWindow++
	}
	return l.throttledInWindow
}

func (l *aimd) success() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.record(l.now(), false)
	if l.limit >= l.max {
		l.successes = 0
		return
	}
	l.successes++
	if l.successes >= l.increaseEvery {
		l.successes = 0
		l.limit++
		l.grant()
	}
}

// throttled records a 429 and reports whether it cut the limit.
func (l *aimd) throttled() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.now()
	n := l.record(t, true)
	if n < l.burst || float64(n) < throttleShare*float64(len(l.recent)) ||
		(!l.lastCut.IsZero() && t.Sub(l.lastCut) < l.window) {
		return false
	}
	l.limit = max(1, l.limit/2)
	l.lastCut = t
	l.recent, l.throttledInWindow = l.recent[:0], 0
	l.successes = 0
	l.cuts++
	return true
}

type limiterStats struct {
	inFlight, peak, limit int
	mean                  float64
	cuts                  int64
}

func (l *aimd) stats() limiterStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := limiterStats{inFlight: l.inFlight, peak: l.peak, limit: l.limit, cuts: l.cuts}
	// Up to now while requests are in flight, else up to the last release:
	// an idle client does not dilute the figure.
	end, area := l.lastChange, l.area
	if l.inFlight > 0 {
		t := l.now()
		area += float64(l.inFlight) * t.Sub(l.lastChange).Seconds()
		end = t
	}
	if d := end.Sub(l.first).Seconds(); d > 0 {
		s.mean = area / d
	}
	return s
}
