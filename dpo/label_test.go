package dpo_test

import (
	"context"
	"testing"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/dpo"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/internal/testplay"
)

// Every label FailureLabel gives lists the failed check among the
// checks its flaw must fail, and the flawed agents' own mistakes map
// back to themselves where the trajectory shows them unambiguously.
func TestFailureLabel(t *testing.T) {
	fx, err := testplay.NewFixture("retail", 1)
	if err != nil {
		t.Fatal(err)
	}
	exact := map[string]bool{agent.FlawNoConfirmation: true, agent.FlawSchemaInvalid: true, agent.FlawUnauthenticated: true,
		agent.FlawOmitsOutput: true, agent.FlawUnnecessaryTransfer: true}
	got := map[string]int{}
	for i := range 120 {
		bp, err := fx.Gen.Generate(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range agent.Flaws() {
			tr, fired, err := embedded.SimulateFlawed(context.Background(), fx.D, bp, 60, agent.Flaw{Kind: kind})
			if err != nil {
				t.Fatal(err)
			}
			v := fx.Ver.Verify(context.Background(), bp, tr)
			if !fired || v.Passed {
				continue
			}
			label := dpo.FailureLabel(bp, tr, v, fx.D.Tools.Kind)
			if label == "" {
				continue
			}
			got[kind]++
			if !dpo.Explains(label, v.Failed().Name) {
				t.Fatalf("%s: %s failed %s but is labelled %s", bp.ID, kind, v.Failed().Name, label)
			}
			if exact[kind] && label != kind {
				t.Errorf("%s: flaw %s (failed %s) labelled %s", bp.ID, kind, v.Failed().Name, label)
			}
		}
	}
	if len(got) < 6 {
		t.Errorf("labelled too few flaw kinds: %v", got)
	}
}
