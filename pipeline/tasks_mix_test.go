package pipeline

import (
	"context"
	"testing"

	"github.com/synth-data/synth/domains"
)

// A domain's tasks.write_weights set the mix of task sizes when the run
// sets no write control of its own; --writes or --write-weights win.
func TestDomainTaskMix(t *testing.T) {
	d, err := domains.Load("airline", 1)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		set      func(*Config)
		min, max int // tasks of 200 that write nothing
	}{
		// τ²'s airline: 24 of 50 tasks write nothing.
		{"domain's mix", func(*Config) {}, 86, 106},
		{"--write-weights", func(c *Config) { c.WriteWeights = []float64{0, 1, 1, 0, 0, 0} }, 0, 0},
		{"--writes", func(c *Config) { c.Writes = "1-2" }, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Defaults()
			cfg.Domain = "airline"
			// A transfer after a declared failure drops its write from the
			// ground truth.
			cfg.ToolFailures = 0
			tc.set(&cfg)
			g, err := Generator(cfg, d)
			if err != nil {
				t.Fatal(err)
			}
			none := 0
			for i := range 200 {
				bp, err := g.Generate(context.Background(), i)
				if err != nil {
					t.Fatal(err)
				}
				if bp.NWrites == 0 {
					none++
				}
			}
			if none < tc.min || none > tc.max {
				t.Errorf("%d of 200 tasks write nothing, want %d to %d", none, tc.min, tc.max)
			}
		})
	}
}
