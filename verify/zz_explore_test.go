package verify_test

import (
	"context"
	"testing"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/usersim"
)

func TestZZSpecs(t *testing.T) {
	d, _ := domains.Load("retail", 1)
	for _, s := range []blueprints.Spec{
		{Seed: 1, Writes: blueprints.Range{-1, 1}, Reads: blueprints.Range{2, 7}, Behaviors: usersim.Profiles()},
		{Seed: 1, Writes: blueprints.Range{3, 1}, Reads: blueprints.Range{2, 7}, Behaviors: usersim.Profiles()},
	} {
		func() {
			defer func() { if r := recover(); r != nil { t.Log("PANIC", s.Writes, r) } }()
			g, err := d.Generator(s)
			t.Log(s.Writes, s.Reads, err)
			if err == nil {
				for i := 0; i < 10; i++ {
					bp, err := g.Generate(context.Background(), i)
					if err != nil { t.Log(i, err); continue }
					t.Log(i, bp.NWrites, len(bp.Goals))
				}
			}
		}()
	}
}
