package audit

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/synth-data/synth/pipeline"
)

// BenchmarkValidate measures validation throughput on a 1,000-row
// release with DPO pairs, in SFT rows re-verified per second (every
// pair's rejected side is re-simulated within the same time).
func BenchmarkValidate(b *testing.B) {
	cfg := pipeline.Defaults()
	cfg.N = 1000
	cfg.DPO = true
	cfg.Out = filepath.Join(b.TempDir(), "rel")
	if _, err := pipeline.Run(context.Background(), cfg, nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		v, err := Validate(context.Background(), cfg.Out)
		if err != nil {
			b.Fatal(err)
		}
		if !v.OK() {
			b.Fatalf("fresh release has defects: %v", v.Defects[0])
		}
		b.ReportMetric(v.RowsPerSecond(), "rows/s")
	}
}
