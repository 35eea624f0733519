package airline

import (
	"context"
	"testing"

	"github.com/synth-data/synth/pack"
)

// BenchmarkGenerate loads the pack with a new seed each time: the
// generator runs once per seed (per run), so this is its cost; one op is
// one database. Run with -cpu 1 for databases per second per core.
func BenchmarkGenerate(b *testing.B) {
	ctx := context.Background()
	defer reportRate(b)()
	for i := 0; b.Loop(); i++ {
		if _, err := pack.Load(ctx, FS(), uint64(i+1), options()); err != nil {
			b.Fatal(err)
		}
	}
}

// reportRate starts measuring; the returned func reports databases per
// second of wall time and per second of CPU time (the figure that holds
// on a busy machine).
func reportRate(b *testing.B) func() {
	start, ok := cpuTime()
	return func() {
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "dbs/s")
		if end, ok2 := cpuTime(); ok && ok2 && end > start {
			b.ReportMetric(float64(b.N)/(end-start).Seconds(), "dbs/cpu-s")
		}
	}
}
