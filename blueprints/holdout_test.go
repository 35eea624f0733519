package blueprints

import (
	"context"
	"testing"

	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
)

// TestHoldoutNeverReleased: with the writes of the tasks drawn at some
// indices held out, those indices give other tasks, count what they
// dropped, and no task of the run equals a held-out one; the rest of the
// run is unchanged.
func TestHoldoutNeverReleased(t *testing.T) {
	m := *models(t)["retail"]
	spec := Spec{Seed: 7, Writes: Range{1, 2}, Reads: Range{2, 7}, Refusals: 0.2, Behaviors: allProfiles}
	gen := func(m *model.Model) []*record.Blueprint {
		t.Helper()
		g, err := NewGeneric(m, spec)
		if err != nil {
			t.Fatal(err)
		}
		var out []*record.Blueprint
		for i := 0; i < 30; i++ {
			bp, err := g.Generate(context.Background(), i)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, bp)
		}
		return out
	}
	free := gen(&m)
	var held []pack.HeldOut
	for _, i := range []int{0, 4, 11} {
		held = append(held, pack.HeldOut{ID: free[i].ID, Writes: WriteCalls(free[i])})
	}
	h := pack.NewHoldout(held)
	m.Holdout = h
	guarded := gen(&m)
	dropped := 0
	for i, bp := range guarded {
		if id, ok := h.Match(WriteCalls(bp)); ok {
			t.Errorf("blueprint %d equals held-out task %s", i, id)
		}
		dropped += bp.HeldOut
		switch i {
		case 0, 4, 11:
			if bp.HeldOut == 0 {
				t.Errorf("blueprint %d: the held-out task was drawn but not counted", i)
			}
		default:
			if bp.HeldOut == 0 && bp.StateHash != free[i].StateHash {
				t.Errorf("blueprint %d changed though nothing was held out there", i)
			}
		}
	}
	if dropped < 3 {
		t.Errorf("%d drops counted, want at least 3", dropped)
	}
}
