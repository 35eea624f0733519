package openapi

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// BenchmarkImportScale imports generated specs of 1k, 5k and 20k
// operations (5 per resource): the time per operation should stay flat.
//
//	go test ./openapi -run '^$' -bench ImportScale -benchtime 1x
func BenchmarkImportScale(b *testing.B) {
	for _, n := range []int{1000, 5000, 20000} {
		raw := manyOps(n)
		b.Run(fmt.Sprintf("ops=%d", n), func(b *testing.B) {
			for b.Loop() {
				res, err := Import(context.Background(), raw, Options{Seed: 1, MaxOperations: n})
				if err != nil {
					b.Fatal(err)
				}
				if res.Operations != n {
					b.Fatalf("%d operations", res.Operations)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/op-imported")
		})
	}
}

// Import work grows linearly with the operations: allocations (a
// measure that does not depend on the machine's load) at 4,000
// operations are at most 5 times those at 1,000; a quadratic step
// would make them 16 times.
func TestImportLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 5,000 operations")
	}
	allocs := func(n int) float64 {
		raw := manyOps(n)
		return testing.AllocsPerRun(1, func() {
			if _, err := Import(context.Background(), raw, Options{Seed: 1, MaxOperations: n}); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := allocs(1000), allocs(4000)
	if ratio := large / small; ratio > 5 {
		t.Errorf("4x the operations cost %.1fx the allocations (%.0f vs %.0f): import is not linear", ratio, large, small)
	}
}

// A cancelled context stops an import in every stage, promptly: within
// two seconds (a generous bound for a loaded machine under -race), where
// the whole import takes 7 s without -race.
func TestImportCancel(t *testing.T) {
	raw := manyOps(20000)
	for _, after := range []time.Duration{0, 50 * time.Millisecond, 300 * time.Millisecond, 1200 * time.Millisecond} {
		t.Run(after.String(), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			timer := time.AfterFunc(after, cancel)
			defer timer.Stop()
			start := time.Now()
			_, err := Import(ctx, raw, Options{Seed: 1, MaxOperations: 20000})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("import after cancel: %v", err)
			}
			if late := time.Since(start) - after; late > 2*time.Second {
				t.Errorf("the import returned %v after the cancel", late)
			}
		})
	}
}
