package serve_test

import (
	"math"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/internal/testpacks"
	"github.com/synth-data/synth/internal/testplay"
	"github.com/synth-data/synth/serve"
)

// A policy that speaks as the oracle gets, step by step, the tool
// results and customer replies of the embedded engine's dialogue, and
// at the end the verifier's pass and outcome reward 1.
func TestReplayOracle(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 8
	}
	opts := serve.Defaults()
	opts.Root = filepath.Dir(testpacks.Dir("library"))
	_, hs := newServer(t, &opts)
	for _, domain := range []string{"retail", "airline", testpacks.Dir("library")} {
		t.Run(filepath.Base(domain), func(t *testing.T) {
			verified := 0
			for _, o := range oracles(t, domain, 7, n) {
				last, sum, err := replay(http.DefaultClient, hs.URL, o, o.tr.Messages)
				if err != nil {
					t.Error(err)
					continue
				}
				if !last.Done || last.Ending != o.tr.Ending || last.Verdict == nil || last.OutcomeReward == nil {
					t.Errorf("%s: after the last message done %v ending %q (want %q) verdict %v", o.bp.ID, last.Done, last.Ending, o.tr.Ending, last.Verdict)
					continue
				}
				if !last.Verdict.Passed || *last.OutcomeReward != 1 {
					t.Errorf("%s: verdict %+v, outcome reward %v; the oracle's dialogue verifies", o.bp.ID, last.Verdict.Failed(), *last.OutcomeReward)
					continue
				}
				if c := last.Dialogue.Coverage; c != 1 || last.ChainLength > 0 && math.Abs(sum-1) > 1e-9 || last.Dialogue.Pivotal != -1 {
					t.Errorf("%s: coverage %v, rewards sum to %v, pivotal %d; a verified dialogue covers its chain (1, 1, -1)", o.bp.ID, c, sum, last.Dialogue.Pivotal)
					continue
				}
				verified++
			}
			t.Logf("%d of %d oracle dialogues replayed to reward 1", verified, n)
		})
	}
}

// With --user llm the customer is the config's user role: a model that
// answers as the embedded dialogue's customer (the test fake, as synth
// emulate does) gives the oracle's policy the same dialogue and reward 1.
func TestReplayLLMCustomer(t *testing.T) {
	d, err := domains.Load("retail", 7)
	if err != nil {
		t.Fatal(err)
	}
	fake := testplay.NewFake(d)
	// The model's customer marks its words, so the test sees who spoke.
	fake.Customer = func(_ string, _ int, reply string) string {
		if strings.HasPrefix(reply, "###") {
			return reply
		}
		return "(model) " + reply
	}
	opts := serve.Defaults()
	opts.User, opts.Chatter = "llm", fake
	_, hs := newServer(t, &opts)
	for _, o := range oracles(t, "retail", 7, 6) {
		want := slices.Clone(o.tr.Messages)
		for i := range want {
			if want[i].Role == "user" {
				want[i].Content = "(model) " + want[i].Content
			}
		}
		last, _, err := replay(http.DefaultClient, hs.URL, o, want)
		if err != nil {
			t.Error(err)
			continue
		}
		if !last.Done || *last.OutcomeReward != 1 {
			t.Errorf("%s: done %v outcome %v", o.bp.ID, last.Done, *last.OutcomeReward)
		}
	}
}
