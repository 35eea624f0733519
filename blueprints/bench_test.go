package blueprints_test

import (
	"context"
	"testing"
)

// BenchmarkGenerate measures blueprint generation under the default controls.
func BenchmarkGenerate(b *testing.B) {
	d := loadDomain(b)
	spec := defaultSpec()
	spec.WriteWeights = []float64{10, 60, 23, 15, 5, 1}
	g, err := d.Generator(spec)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := g.Generate(context.Background(), i); err != nil {
			b.Fatal(err)
		}
	}
}
