package pipeline

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkRun measures end-to-end throughput (blueprints, dialogue,
// verification, Parquet) in verified rows per second, per built-in domain.
func BenchmarkRun(b *testing.B) {
	for _, domain := range []string{"retail", "airline"} {
		b.Run(domain, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				cfg := Defaults()
				cfg.Domain = domain
				cfg.N = 5000
				cfg.Out = filepath.Join(b.TempDir(), "out")
				res, err := Run(context.Background(), cfg, nil)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(res.Manifest.Counts.Verified)/res.Elapsed.Seconds(), "rows/s")
			}
		})
	}
}
