package pipeline

import (
	"context"
	"path/filepath"
	"testing"
)

func BenchmarkZZAirline(b *testing.B) {
	for i := 0; i < b.N; i++ {
		cfg := Defaults()
		cfg.N = 1500
		cfg.Domain = "airline"
		cfg.Out = filepath.Join(b.TempDir(), "out")
		if _, err := Run(context.Background(), cfg, nil); err != nil {
			b.Fatal(err)
		}
	}
}
