package pipeline

import (
	"context"
	"testing"

	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/verify"
)

func TestSmoke(t *testing.T) {
	cfg := Defaults()
	spec, err := cfg.Spec()
	if err != nil {
		t.Fatal(err)
	}
	d, err := domains.Load("retail", 1)
	if err != nil {
		t.Fatal(err)
	}
	g, err := d.Generator(spec)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schemas.Compile()
	if err != nil {
		t.Fatal(err)
	}
	v := verify.New(d.Verify, sch)
	fails := 0
	for i := 0; i < 3000; i++ {
		bp, err := g.Generate(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := Simulate(context.Background(), d, bp, 60)
		if err != nil {
			t.Fatal(err)
		}
		vd := v.Verify(context.Background(), bp, tr)
		if !vd.Passed {
			fails++
			if fails < 4 {
				t.Logf("bp %d %s %v: %+v", i, bp.Behavior, bp.Goals[0].Intent, vd.Failed())
				for _, m := range tr.Messages[1:] {
					t.Logf("  %s: %s %v", m.Role, m.Content, m.ToolCalls)
				}
			}
		}
	}
	t.Logf("fails %d", fails)
}
