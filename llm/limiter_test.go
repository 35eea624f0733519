package llm

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestAIMDCutsOnBurstsAndRecovers(t *testing.T) {
	clk := newFakeClock()
	l := newAIMD(16, 3, time.Second, 2, clk.now)
	steps := []struct {
		name      string
		advance   time.Duration
		throttles int
		successes int
		wantLimit int
	}{
		{"two 429s are no burst", 0, 2, 0, 16},
		{"the third within a second cuts", 100 * time.Millisecond, 1, 0, 8},
		{"more within the second do not cut again", 100 * time.Millisecond, 5, 0, 8},
		{"spread-out 429s are no burst", 2 * time.Second, 1, 0, 8},
		{"", 600 * time.Millisecond, 1, 0, 8},
		{"", 600 * time.Millisecond, 1, 0, 8},
		{"a later burst cuts again", time.Second, 3, 0, 4},
		{"down to 1 at most", time.Second, 3, 0, 2},
		{"", time.Second, 3, 0, 1},
		{"", time.Second, 3, 0, 1},
		{"one more per 2 successes", 0, 0, 5, 3},
		{"back up to the cap, not past it", 0, 0, 100, 16},
	}
	for _, s := range steps {
		clk.advance(s.advance)
		for range s.throttles {
			l.throttled()
		}
		for range s.successes {
			l.success()
		}
		if got := l.stats().limit; got != s.wantLimit {
			t.Fatalf("%s: limit %d, want %d", s.name, got, s.wantLimit)
		}
	}
	if l.stats().cuts != 5 {
		t.Fatalf("cuts %d, want 5", l.stats().cuts)
	}
}

func TestAIMDBlocksAtTheLimit(t *testing.T) {
	clk := newFakeClock()
	l := newAIMD(2, 3, time.Second, 1, clk.now)
	ctx := context.Background()
	for range 2 {
		if err := l.acquire(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan error, 1)
	go func() { got <- l.acquire(ctx) }()
	select {
	case <-got:
		t.Fatal("a third request got a slot under a limit of 2")
	case <-time.After(20 * time.Millisecond):
	}
	l.release()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	// A cancelled waiter leaves the queue and takes no slot.
	cctx, cancel := context.WithCancel(ctx)
	go func() { got <- l.acquire(cctx) }()
	time.Sleep(10 * time.Millisecond)
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	l.release()
	l.release()
	if s := l.stats(); s.inFlight != 0 || s.peak != 2 {
		t.Fatalf("in flight %d, peak %d; want 0 and 2", s.inFlight, s.peak)
	}
}

func TestAIMDMeanInFlight(t *testing.T) {
	clk := newFakeClock()
	l := newAIMD(8, 3, time.Second, 1, clk.now)
	ctx := context.Background()
	// 4 in flight for 1s, then 2 for 1s: mean 3.
	for range 4 {
		l.acquire(ctx)
	}
	clk.advance(time.Second)
	l.release()
	l.release()
	clk.advance(time.Second)
	l.release()
	l.release()
	clk.advance(time.Hour) // idle time does not count
	if m := l.stats().mean; m < 2.999 || m > 3.001 {
		t.Fatalf("mean in flight %v, want 3", m)
	}
}

func TestAIMDIgnoresStray429sAmongMany(t *testing.T) {
	clk := newFakeClock()
	l := newAIMD(64, 3, time.Second, 1000, clk.now)
	for range 100 {
		clk.advance(time.Millisecond)
		l.success()
	}
	for range 5 {
		l.throttled()
	}
	if got := l.stats().limit; got != 64 {
		t.Fatalf("5 429s among 105 responses cut the limit to %d", got)
	}
	for range 7 {
		l.throttled()
	}
	if got := l.stats().limit; got != 32 {
		t.Fatalf("12 429s among 112 responses: limit %d, want 32", got)
	}
	// Once the successes age out of the window, three 429s are a burst.
	clk.advance(2 * time.Second)
	for range 3 {
		l.throttled()
	}
	if got := l.stats().limit; got != 16 {
		t.Fatalf("3 429s alone: limit %d, want 16", got)
	}
}
