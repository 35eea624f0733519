package serve_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"testing"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/credit"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/dpo"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/verify"
)

// A flawed agent's turns (the DPO rejected side) get the failure the
// embedded engine labelled: the environment's verdict fails the check
// the flaw explains, the outcome reward is 0, and the dialogue's
// labels name a pivotal assistant turn, the one credit.Label names
// for the flawed dialogue itself.
func TestReplayFlawed(t *testing.T) {
	n := 30
	if testing.Short() {
		n = 8
	}
	ctx := context.Background()
	sch, err := schemas.Compile()
	if err != nil {
		t.Fatal(err)
	}
	_, hs := newServer(t, nil)
	for _, domain := range []string{"retail", "airline"} {
		t.Run(domain, func(t *testing.T) {
			d, err := domains.Load(domain, 7)
			if err != nil {
				t.Fatal(err)
			}
			ver := verify.ForDomain(d, sch)
			tried, diverged, early := map[string]int{}, map[string]int{}, map[string]int{}
			for _, o := range oracles(t, domain, 7, n) {
				for _, kind := range dpo.FlawsFor(d.Model) {
					bad, fired, err := embedded.SimulateFlawed(ctx, d, o.bp, 60, agent.Flaw{Kind: kind})
					if err != nil {
						t.Fatal(err)
					}
					// A mistake the customer caught (a recovery) needs the
					// oracle's Proposal, which no outside policy hands over.
					if !fired || len(bad.Corrections) > 0 {
						continue
					}
					want := ver.Verify(ctx, o.bp, bad).Failed()
					if want == nil || !dpo.Explains(kind, want.Name) {
						continue
					}
					last, _, err := replay(http.DefaultClient, hs.URL, o, bad.Messages)
					if _, ok := errors.AsType[*divergence](err); ok {
						// The flawed agent tells the embedded user which goals
						// it believes done (Ask.Done); the environment's
						// customer reads it from the calls, and re-raises a
						// request a wrong tool or a failed call left undone.
						diverged[kind]++
						continue
					}
					if err != nil {
						t.Errorf("%s: %v", kind, err)
						continue
					}
					tried[kind]++
					got := last.Verdict.Failed()
					if !last.Done || *last.OutcomeReward != 0 || got == nil || got.Name != want.Name {
						t.Errorf("%s %s: done %v outcome %v failed check %+v, want %s", o.bp.ID, kind, last.Done, *last.OutcomeReward, got, want.Name)
						continue
					}
					parts := 0
					for parts < len(bad.Messages) && parts < len(o.tr.Messages) && reflect.DeepEqual(bad.Messages[parts], o.tr.Messages[parts]) {
						parts++
					}
					p := last.Dialogue.Pivotal
					if p < 0 || p >= len(bad.Messages) || bad.Messages[p].Role != "assistant" {
						t.Errorf("%s %s: pivotal turn %d is not an assistant message of the %d", o.bp.ID, kind, p, len(bad.Messages))
					}
					if p < parts {
						early[kind]++
					}
					if off := credit.LabelDomain(d, o.bp, bad, last.Verdict); !reflect.DeepEqual(&off, last.Dialogue) {
						t.Errorf("%s %s: the environment's labels differ from the flawed dialogue's", o.bp.ID, kind)
					}
				}
			}
			t.Logf("flawed dialogues replayed to their failure: %v; customer replies parted (the flawed agent's Done): %v; pivotal before the flaw fired: %v", tried, diverged, early)
			if len(tried) < 5 {
				t.Errorf("only %d flaws failed for their reason in %d blueprints: the test shows little", len(tried), n)
			}
		})
	}
}
