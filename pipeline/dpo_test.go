package pipeline

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/dpo"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/internal/testtree"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/release"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/verify"
)

// readJSONL decodes every line of the gzip JSON-lines files matching a glob.
func readJSONL[T any](t *testing.T, pattern string) []T {
	t.Helper()
	paths, _ := filepath.Glob(pattern)
	if len(paths) == 0 {
		t.Fatalf("no files match %s", pattern)
	}
	var out []T
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(zr)
		for dec.More() {
			var v T
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		f.Close()
	}
	return out
}

func readProofs(t *testing.T, dir string) []map[string]any {
	return readJSONL[map[string]any](t, filepath.Join(dir, "rejected", "dpo_failures-*.jsonl.gz"))
}

func readBlueprints(t *testing.T, dir string) map[string]*record.Blueprint {
	t.Helper()
	out := map[string]*record.Blueprint{}
	for _, bp := range readJSONL[*record.Blueprint](t, filepath.Join(dir, "blueprints", "*.jsonl.gz")) {
		out[bp.ID] = bp
	}
	return out
}

func TestDPORelease(t *testing.T) {
	var trees []map[string]string
	var dir string
	for _, workers := range []int{1, 8} {
		cfg := smallConfig(t, 250)
		cfg.Workers = workers
		cfg.DPO = true
		cfg.SetOption("recovery_share", 0) // the pair count is the oracle rows' (see TestDPOMix)
		if _, err := Run(context.Background(), cfg, nil); err != nil {
			t.Fatal(err)
		}
		trees = append(trees, testtree.Hashes(t, cfg.Out))
		dir = cfg.Out
	}
	for name, h := range trees[0] {
		if trees[1][name] != h {
			t.Errorf("%s differs between --workers 1 and --workers 8", name)
		}
	}
	m, err := release.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.DPO == nil || m.DPO.Pairs < 250 {
		t.Fatalf("want at least one pair per blueprint: %+v", m.DPO)
	}
	for _, f := range agent.Flaws() {
		if f == agent.FlawUnchecked || f == agent.FlawMiscomputed {
			continue // retail has no checks to skip, no computed argument
		}
		if unshown[f] || f == agent.FlawOmitsOutput {
			// An omitted answer shows only in a question (a write's
			// figures are the disclose rule's), and retail's τ² mix
			// asks about one in 250 tasks; dpo.TestCutRefusesUnshownLabel
			// and domains.TestPackFlaws hold the flaw.
			continue
		}
		if m.DPO.ByFailure[f] == 0 {
			t.Errorf("no %s pairs in %v", f, m.DPO.ByFailure)
		}
	}
	bps := readBlueprints(t, dir)
	rows := map[string]export.DPORow{}
	for _, f := range m.Files {
		if !strings.HasPrefix(f.Path, "dpo/") {
			continue
		}
		got, err := export.ReadDPO(filepath.Join(dir, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range got {
			rows[r.ID] = r
			if bps[r.BlueprintID].Split != f.Split {
				t.Errorf("pair %s is in %s, its blueprint in %s", r.ID, f.Split, bps[r.BlueprintID].Split)
			}
			if last := r.Prompt[len(r.Prompt)-1].Role; last != "user" && last != "tool" {
				t.Errorf("pair %s: prompt ends with %s", r.ID, last)
			}
			if r.Chosen[0].Role != "assistant" || r.Rejected[0].Role != "assistant" {
				t.Errorf("pair %s: chosen/rejected must start with the assistant", r.ID)
			}
			if reflect.DeepEqual(r.Chosen, r.Rejected) {
				t.Errorf("pair %s: chosen equals rejected", r.ID)
			}
		}
	}
	if len(rows) != m.DPO.Pairs {
		t.Fatalf("%d rows, manifest says %d", len(rows), m.DPO.Pairs)
	}
	// Every rejected side, simulated again from its blueprint with its
	// flaw, fails verification for the recorded, expected reason.
	d, err := domains.Load("retail", 1)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schemas.Compile()
	if err != nil {
		t.Fatal(err)
	}
	ver := verify.ForDomain(d, sch)
	for i, p := range readProofs(t, dir) {
		kind, check := p["failure"].(string), p["check"].(string)
		if !dpo.Explains(kind, check) {
			t.Errorf("pair %v: %s failed %s, expected one of %v", p["pair_id"], kind, check, dpo.Expected(kind))
		}
		if i%5 != 0 {
			continue // a fifth is enough to re-prove; the proofs were checked when written
		}
		bp := bps[p["blueprint_id"].(string)]
		bad, fired, err := embedded.SimulateFlawed(context.Background(), d, bp, 60, agent.Flaw{Kind: kind, Goal: int(p["flaw_goal"].(float64))})
		if err != nil || !fired {
			t.Fatalf("pair %v: re-simulation: fired=%v err=%v", p["pair_id"], fired, err)
		}
		row := rows[p["pair_id"].(string)]
		f := ver.Verify(context.Background(), bp, bad).Failed()
		if check == dpo.CheckCaught {
			// Caught: the dialogue recovers, and the customer says no
			// after the rejected side.
			end := len(row.Prompt) + len(row.Rejected)
			if f != nil || !slices.ContainsFunc(bad.Corrections, func(c int) bool { return c >= end }) {
				t.Errorf("pair %v: caught, but re-verified as %+v with the customer's no at %v (rejected ends at %d)", p["pair_id"], f, bad.Corrections, end)
			}
		} else if f == nil || f.Name != check {
			t.Errorf("pair %v: re-verified as %+v, recorded %s", p["pair_id"], f, check)
		}
		if !reflect.DeepEqual(bad.Messages[len(row.Prompt):len(row.Prompt)+len(row.Rejected)], row.Rejected) {
			t.Errorf("pair %v: the rejected side is not the flawed dialogue's continuation", p["pair_id"])
		}
	}
}

// unshown are the failure types whose rows rarely show their mistake
// on retail, so that their pairs are dropped (label_not_shown): an
// assumed argument is paired only where its write runs before the next
// customer turn (a proposal that lists a value names it too), and a
// guess is mostly right (verified anyway) or refused by its write.
var unshown = map[string]bool{agent.FlawAssumedArgument: true, agent.FlawGuessedTarget: true}

// The numbers: at -n 1000, at least one pair per blueprint on
// average and every failure type at least 5% of the pairs, where the
// mistake is possible often enough.
func TestDPOMix(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1000-blueprint run; skipped with -short")
	}
	cfg := smallConfig(t, 1000)
	cfg.DPO = true
	// A recovery row keeps only the pairs that part from the oracle
	// before its mistake (about 5 in 100 blueprints lose their pair): the
	// issue's numbers are for the oracle's rows.
	cfg.SetOption("recovery_share", 0)
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Manifest.DPO
	if float64(d.Pairs)/float64(res.Manifest.Counts.Blueprints) < 1 {
		t.Errorf("%d pairs for %d blueprints", d.Pairs, res.Manifest.Counts.Blueprints)
	}
	// A flaw can only fire where its mistake is possible, and a pair only
	// counts when its rejected side shows the label (Plan.Cut). The rule
	// flaws need a reminder the policy requires (exchanges, item changes)
	// or a transfer (a few percent of tasks); an output the proposal now
	// states before the yes is rarely still missing after it; and on
	// retail the guesses and near misses mostly land on an order
	// the write refuses (delivered, not pending), so the wrong write never
	// runs and the pair is dropped, until the flawed agents guess records
	// the write accepts. An argument the policy says the customer must
	// give can only be assumed when the customer has not already given it
	// (retail's cancellation reason, which most requests state), and a
	// write can only be made a no-op where the customer changes an
	// address. A forbidden request to pass over comes in one write task
	// in six, and a second record the write accepts (another pending
	// order) is rare. Those types need a pair, not 5%.
	rare := map[string]bool{agent.FlawNoReminder: true, agent.FlawNoTransferMessage: true, agent.FlawOmitsOutput: true,
		agent.FlawGuessedTarget: true, agent.FlawWrongTarget: true, agent.FlawAssumedArgument: true, agent.FlawNoOpWrite: true,
		agent.FlawSilentRefusal: true, agent.FlawUnrequestedWrite: true}
	for _, f := range agent.Flaws() {
		if f == agent.FlawUnchecked || f == agent.FlawMiscomputed {
			continue // retail has no checks to skip and no computed argument
		}
		share := float64(d.ByFailure[f]) / float64(d.Pairs)
		switch {
		case unshown[f]:
		case rare[f] && d.ByFailure[f] == 0:
			t.Errorf("%s: no pair", f)
		case !rare[f] && share < 0.05:
			t.Errorf("%s: %.1f%% of pairs, want at least 5%%", f, 100*share)
		}
	}
}
