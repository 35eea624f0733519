package verify_test

import (
	"context"
	"testing"
	"time"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/usersim"
	"github.com/synth-data/synth/verify"
)

func TestZZExplore(t *testing.T) {
	d, _ := domains.Load("retail", 1)
	spec := blueprints.Spec{Seed: 1, Writes: blueprints.Range{0, 5}, Reads: blueprints.Range{2, 7}, Behaviors: usersim.Profiles()}
	g, _ := d.Generator(spec)
	sch, _ := schemas.Compile()
	v := verify.New(d.Verify, sch)
	n := 200
	t0 := time.Now()
	bps := make([]*record.Blueprint, n)
	for i := range bps { bps[i], _ = g.Generate(context.Background(), i) }
	t.Log("gen", time.Since(t0))
	t0 = time.Now()
	trs := make([]*record.Trajectory, n)
	for i := range bps { trs[i], _ = pipeline.Simulate(context.Background(), d, bps[i], 60) }
	t.Log("sim", time.Since(t0))
	t0 = time.Now()
	for i := range bps { v.Verify(context.Background(), bps[i], trs[i]) }
	t.Log("verify", time.Since(t0))
}
