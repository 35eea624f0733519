package pool

import (
	"context"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"
)

// Options say how wide a run is.
type Options struct {
	// Workers is how many goroutines call the work function at once.
	Workers int
	// Window bounds the indices started and not yet delivered; it is at
	// least Workers.
	Window int
	// Stop, when set, is asked before each index starts: once it reports
	// true no further index starts.
	Stop func() bool
}

// Run calls work(ctx, i) for every i in [0, n) on o.Workers goroutines
// and deliver(i, result) for each i in increasing order, from a single
// goroutine. It returns the first error of deliver or of ctx; work's
// context is cancelled when that happens. When o.Stop ends the run
// early, Run delivers every index already started and returns nil.
func Run[T any](ctx context.Context, n int, o Options, work func(ctx context.Context, i int) T, deliver func(i int, r T) error) error {
	if o.Workers < 1 {
		return fmt.Errorf("pool: %d workers: need at least 1", o.Workers)
	}
	window := max(o.Window, o.Workers)
	type result struct {
		i int
		r T
	}
	g, gctx := errgroup.WithContext(ctx)
	jobs := make(chan int)
	results := make(chan result, window)
	// slots holds one token per index started and not yet delivered.
	slots := make(chan struct{}, window)
	g.Go(func() error {
		defer close(jobs)
		for i := range n {
			if o.Stop != nil && o.Stop() {
				return nil
			}
			select {
			case slots <- struct{}{}:
			case <-gctx.Done():
				return gctx.Err()
			}
			select {
			case jobs <- i:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	var workers sync.WaitGroup
	for range o.Workers {
		workers.Go(func() {
			for i := range jobs {
				r := work(gctx, i)
				// results has room for every index holding a slot.
				results <- result{i, r}
			}
		})
	}
	go func() {
		workers.Wait()
		close(results)
	}()
	g.Go(func() error {
		pending := map[int]T{}
		next := 0
		for {
			var res result
			var ok bool
			select {
			case res, ok = <-results:
			case <-gctx.Done():
				return gctx.Err()
			}
			if !ok {
				// Every index started was delivered (Stop ended the run),
				// or the run was cancelled.
				return gctx.Err()
			}
			pending[res.i] = res.r
			for {
				r, ok := pending[next]
				if !ok {
					break
				}
				delete(pending, next)
				if err := deliver(next, r); err != nil {
					return err
				}
				next++
				<-slots
			}
		}
	})
	err := g.Wait()
	// Workers finish the index they hold (its work sees gctx cancelled)
	// before Run returns, so no work call outlives the run.
	workers.Wait()
	return err
}
