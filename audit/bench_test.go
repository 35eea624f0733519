package audit

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/synth-data/synth/pipeline"
)

// BenchmarkValidate measures validation throughput on 1,000-blueprint
// releases, in rows re-checked per second: SFT rows (full verifier and a
// replay of every tool call) plus, with DPO, pairs (the rejected side
// re-simulated and verified).
func BenchmarkValidate(b *testing.B) {
	for _, dpo := range []bool{false, true} {
		name := "sft"
		if dpo {
			name = "sft+dpo"
		}
		b.Run(name, func(b *testing.B) {
			cfg := pipeline.Defaults()
			cfg.N = 1000
			cfg.DPO = dpo
			cfg.Out = filepath.Join(b.TempDir(), "rel")
			if _, err := pipeline.Run(context.Background(), cfg, nil); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				v, err := (Validator{}).Validate(context.Background(), cfg.Out)
				if err != nil {
					b.Fatal(err)
				}
				if !v.OK() {
					b.Fatalf("a fresh release has defects: %v", v.Defects[0])
				}
				b.ReportMetric(v.RowsPerSecond(), "rows/s")
			}
		})
	}
}
