package pool_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/synth-data/synth/internal/pool"
)

// jitter sleeps a little, differently per index, so results finish out
// of order.
func jitter(i int) {
	time.Sleep(time.Duration(rand.N(200)) * time.Microsecond * time.Duration(1+i%3))
}

func TestDeliversInOrder(t *testing.T) {
	for _, workers := range []int{1, 3, 16} {
		var got []int
		err := pool.Run(context.Background(), 500, pool.Options{Workers: workers, Window: 2 * workers},
			func(_ context.Context, i int) int { jitter(i); return i * i },
			func(i, r int) error {
				if r != i*i {
					t.Errorf("index %d delivered %d", i, r)
				}
				got = append(got, i)
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 500 {
			t.Fatalf("workers %d: %d results, want 500", workers, len(got))
		}
		for k, i := range got {
			if i != k {
				t.Fatalf("workers %d: result %d is index %d", workers, k, i)
			}
		}
	}
}

func TestWindowBoundsWhatIsHeld(t *testing.T) {
	const window = 6
	var started, delivered atomic.Int64
	var worst atomic.Int64
	err := pool.Run(context.Background(), 300, pool.Options{Workers: 4, Window: window},
		func(_ context.Context, i int) int {
			held := started.Add(1) - delivered.Load()
			for {
				w := worst.Load()
				if held <= w || worst.CompareAndSwap(w, held) {
					break
				}
			}
			if i%50 == 0 {
				time.Sleep(2 * time.Millisecond) // a slow index holds the others back
			}
			return i
		},
		func(int, int) error { delivered.Add(1); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if w := worst.Load(); w > window {
		t.Errorf("%d indices started and not delivered at once, window %d", w, window)
	}
}

func TestWindowBelowWorkersIsRaised(t *testing.T) {
	n := 0
	if err := pool.Run(context.Background(), 40, pool.Options{Workers: 8, Window: 1},
		func(_ context.Context, i int) int { return i }, func(int, int) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 40 {
		t.Errorf("%d delivered, want 40", n)
	}
}

func TestNoWorkers(t *testing.T) {
	err := pool.Run(context.Background(), 3, pool.Options{}, func(context.Context, int) int { return 0 }, func(int, int) error { return nil })
	if err == nil {
		t.Fatal("no error with 0 workers")
	}
}

func TestEmpty(t *testing.T) {
	err := pool.Run(context.Background(), 0, pool.Options{Workers: 2}, func(context.Context, int) int {
		t.Error("work called")
		return 0
	}, func(int, int) error { t.Error("deliver called"); return nil })
	if err != nil {
		t.Fatal(err)
	}
}

func TestDeliverErrorStopsTheRun(t *testing.T) {
	boom := errors.New("boom")
	var calls atomic.Int64
	var last int
	err := pool.Run(context.Background(), 10_000, pool.Options{Workers: 4, Window: 8},
		func(ctx context.Context, i int) int { calls.Add(1); return i },
		func(i, _ int) error {
			last = i
			if i == 20 {
				return boom
			}
			return nil
		})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	if last != 20 {
		t.Errorf("delivered up to %d after the error at 20", last)
	}
	if c := calls.Load(); c > 20+8+1 {
		t.Errorf("%d indices worked on; the window allows at most %d past the failed one", c, 8)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled atomic.Int64
	done := make(chan error, 1)
	go func() {
		done <- pool.Run(ctx, 1_000_000, pool.Options{Workers: 3, Window: 9},
			func(ctx context.Context, i int) int {
				if i == 5 {
					cancel()
				}
				select {
				case <-ctx.Done():
					cancelled.Add(1)
				case <-time.After(time.Millisecond):
				}
				return i
			},
			func(int, int) error { return nil })
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
}

func TestStop(t *testing.T) {
	for _, workers := range []int{1, 4} {
		var stop atomic.Bool
		var started atomic.Int64
		var got []int
		err := pool.Run(context.Background(), 1000, pool.Options{Workers: workers, Window: 4 * workers, Stop: stop.Load},
			func(_ context.Context, i int) int {
				started.Add(1)
				if i == 30 {
					stop.Store(true)
				}
				jitter(i)
				return i
			},
			func(i, _ int) error { got = append(got, i); return nil })
		if err != nil {
			t.Fatal(err)
		}
		// Every index started is delivered, in order, and none starts
		// after the hook said stop (bar those already handed out).
		if int64(len(got)) != started.Load() {
			t.Errorf("workers %d: %d started, %d delivered", workers, started.Load(), len(got))
		}
		for k, i := range got {
			if i != k {
				t.Fatalf("workers %d: result %d is index %d", workers, k, i)
			}
		}
		if len(got) < 31 || len(got) > 31+4*workers {
			t.Errorf("workers %d: %d delivered after a stop at index 30", workers, len(got))
		}
	}
}
