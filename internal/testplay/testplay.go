package testplay

import (
	"context"
	"fmt"
	"sync"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/record"
)

// Dialogue is one blueprint and the dialogue the embedded engine played.
type Dialogue struct {
	BP *record.Blueprint
	TR *record.Trajectory
}

// Play generates blueprints [0, n) and simulates each on its own state,
// two at a time, so tests also exercise concurrent use of a domain.
func Play(d *domain.Domain, g blueprints.Generator, n int) ([]Dialogue, error) {
	out := make([]Dialogue, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := w; i < n; i += 2 {
				bp, err := g.Generate(context.Background(), i)
				if err != nil {
					errs[i] = err
					continue
				}
				tr, err := embedded.Simulate(context.Background(), d, bp, 60)
				out[i], errs[i] = Dialogue{bp, tr}, err
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("blueprint %d: %w", i, err)
		}
	}
	return out, nil
}
