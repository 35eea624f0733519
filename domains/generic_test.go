package domains_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/audit"
	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/dpo"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/internal/testpacks"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/usersim"
	"github.com/synth-data/synth/verify"
)

// packDirs are the packs the generic engine is tested on: the test packs
// library (identify returns a record, loans listed whole, a search with
// an items path) and catalog (no users), the scaffold of synth domain
// init, and the built-in airline.
func packDirs(t testing.TB) map[string]string {
	t.Helper()
	scaffold, err := scaffoldOnce()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"library":  testpacks.Dir("library"),
		"catalog":  testpacks.Dir("catalog"),
		"scaffold": scaffold,
		"airline":  "airline",
	}
}

var scaffoldOnce = sync.OnceValues(func() (string, error) {
	dir := filepath.Join(testTemp, "helpdesk")
	return dir, pack.Init(dir, "helpdesk")
})

var loaded sync.Map // dir -> *domain.Domain

func load(t testing.TB, dir string) *domain.Domain {
	t.Helper()
	if d, ok := loaded.Load(dir); ok {
		return d.(*domain.Domain)
	}
	d, err := domains.Load(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	loaded.Store(dir, d)
	return d
}

func TestNamesAndLoad(t *testing.T) {
	if got := domains.Names(); !slices.Equal(got, []string{"airline", "retail"}) {
		t.Errorf("Names() = %v", got)
	}
	bad := []struct{ arg, want string }{
		{"nosuch", "unknown domain"},
		{t.TempDir(), "no domain.yaml"},
		{"./nowhere", "no domain.yaml"},
	}
	for _, tc := range bad {
		if _, err := domains.Load(tc.arg, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%q) = %v, want an error with %q", tc.arg, err, tc.want)
		}
	}
	d := load(t, "airline")
	if d.Name != "airline" || d.Model == nil || d.Files["domain.yaml"] == nil || d.Base == nil || d.Tools == nil {
		t.Errorf("airline: name %q, model %v, files %d", d.Name, d.Model != nil, len(d.Files))
	}
	if !slices.Contains(d.Model.AuthTools(), "get_user_details") {
		t.Errorf("airline auth tools %v", d.Model.AuthTools())
	}
}

// TestPackDialogues plays and verifies every generated dialogue: none
// may fail any check, under several seeds and controls.
func TestPackDialogues(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	cases := []struct {
		pack          string
		writes, reads string
		n             int
	}{
		{"scaffold", "0-5", "2-7", 200},
		{"scaffold", "1-3", "3-6", 150},
		{"airline", "0-5", "2-7", 200},
		{"airline", "1-2", "9-10", 100},
		{"library", "0-4", "2-6", 200},
		{"catalog", "0-3", "1-1", 200},
	}
	dirs := packDirs(t)
	sch, err := schemas.Compile()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		for _, seed := range []uint64{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/w%s/r%s/seed%d", tc.pack, tc.writes, tc.reads, seed), func(t *testing.T) {
				d := load(t, dirs[tc.pack])
				w, _ := blueprints.ParseRange(tc.writes)
				r, _ := blueprints.ParseRange(tc.reads)
				gen, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: seed, Writes: w, Reads: r, Refusals: 0.2, Behaviors: usersim.Profiles(), Validation: 0.05, Test: 0.05})
				if err != nil {
					t.Fatal(err)
				}
				ver := verify.ForDomain(d, sch)
				behaviors := map[string]int{}
				for i := 0; i < tc.n; i++ {
					bp, err := gen.Generate(context.Background(), i)
					if err != nil {
						t.Fatal(err)
					}
					tr, err := embedded.Simulate(context.Background(), d, bp, 60)
					if err != nil {
						t.Fatal(err)
					}
					if v := ver.Verify(context.Background(), bp, tr); !v.Passed {
						f := v.Failed()
						t.Fatalf("blueprint %d (%s): %s: %s\n%s", i, bp.Behavior, f.Name, f.Reason, transcript(tr))
					}
					behaviors[bp.Behavior]++
				}
				for _, p := range usersim.Profiles() {
					if behaviors[p] == 0 {
						t.Errorf("no dialogue with profile %s", p)
					}
				}
			})
		}
	}
}

func transcript(tr *record.Trajectory) string {
	var b strings.Builder
	for _, m := range tr.Messages[1:] {
		fmt.Fprintf(&b, "[%s] %s", m.Role, m.Content)
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, " CALL %s %s", c.Function.Name, c.Function.Arguments)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestPackFlaws checks the flawed generic agent: each flaw it can make
// on a pack fires and fails verification for its expected reason at
// least once, as DPO pairs need.
func TestPackFlaws(t *testing.T) {
	sch, err := schemas.Compile()
	if err != nil {
		t.Fatal(err)
	}
	dirs := packDirs(t)
	// Airline's transfers are tasks without writes, and its checks are on
	// compensation, a few tasks in a hundred.
	for _, c := range []struct {
		name   string
		writes blueprints.Range
		tasks  int
	}{{"scaffold", blueprints.Range{Min: 1, Max: 2}, 40}, {"airline", blueprints.Range{Min: 0, Max: 2}, 200}} {
		name := c.name
		t.Run(name, func(t *testing.T) {
			d := load(t, dirs[name])
			gen, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: 5, Writes: c.writes, Reads: blueprints.Range{Min: 2, Max: 7},
				Refusals: 0.2, Behaviors: usersim.Profiles()})
			if err != nil {
				t.Fatal(err)
			}
			ver := verify.ForDomain(d, sch)
			paired := map[string]int{}
			for i := 0; i < c.tasks; i++ {
				bp, err := gen.Generate(context.Background(), i)
				if err != nil {
					t.Fatal(err)
				}
				for _, kind := range pipelineFlaws() {
					bad, fired, err := embedded.SimulateFlawed(context.Background(), d, bp, 60, agentFlaw(kind))
					if err != nil {
						t.Fatal(err)
					}
					if !fired {
						continue
					}
					f := ver.Verify(context.Background(), bp, bad).Failed()
					if f == nil && len(bad.Corrections) > 0 {
						// The customer caught the mistake: the pair is at it.
						f = &record.Check{Name: dpo.CheckCaught}
					}
					if f != nil && dpo.Explains(kind, f.Name) {
						paired[kind]++
					}
				}
			}
			for _, kind := range pipelineFlaws() {
				if paired[kind] == 0 && canBreak(d, kind) {
					t.Errorf("flaw %s never failed for its expected reason (pairs: %v)", kind, paired)
				}
			}
		})
	}
}

// canBreak reports whether a pack gives a flaw its mistake: the rule
// flaws need a rule of their kind (and a transfer, for its message), and
// hiding an output after the write is no mistake when the policy has it
// stated before the yes.
func canBreak(d *domain.Domain, kind string) bool {
	m := d.Model
	switch kind {
	case agent.FlawUndisclosed:
		return len(m.RulesFor(pack.RuleDisclose, "")) > 0
	case agent.FlawNoReminder:
		return len(m.RulesFor(pack.RuleSay, "")) > 0
	case agent.FlawAssumedArgument:
		return len(m.RulesFor(pack.RuleFromCustomer, "")) > 0
	case agent.FlawSilentRefusal:
		return slices.ContainsFunc(m.Writes, (*model.WriteModel).Forbids)
	case agent.FlawNoTransferMessage:
		return m.TransferMessage() != "" && len(m.Transfers) > 0
	case agent.FlawUnchecked:
		return len(m.RulesFor(pack.RuleChecked, "")) > 0
	case agent.FlawMiscomputed:
		return len(m.RulesFor(pack.RuleComputed, "")) > 0
	case agent.FlawOmitsOutput:
		// Most writes with outputs must leave one unstated before the
		// yes for 40 tasks to hold a chance.
		with, hidden := 0, 0
		for _, w := range m.Writes {
			if len(w.Outputs) > 0 {
				with++
				if len(w.Outputs) > len(m.Disclosed(w.Name)) {
					hidden++
				}
			}
		}
		return 2*hidden > with
	}
	return true
}

// TestPackRelease runs the pipeline on a pack directory: the release
// validates on its own (loading the pack from its domain/ folder), and
// does not depend on the number of workers.
func TestPackRelease(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	dirs := packDirs(t)
	for _, name := range []string{"scaffold", "airline"} {
		t.Run(name, func(t *testing.T) {
			sums := map[int]string{}
			for _, workers := range []int{1, 8} {
				cfg := pipeline.Defaults()
				cfg.Domain, cfg.N, cfg.Seed, cfg.Workers, cfg.DPO = dirs[name], 60, 4, workers, true
				cfg.Out = filepath.Join(t.TempDir(), "out")
				res, err := pipeline.Run(context.Background(), cfg, nil)
				if err != nil {
					t.Fatal(err)
				}
				if res.Manifest.Counts.Rejected != 0 || res.Manifest.Counts.SFTRows != 60 {
					t.Fatalf("counts %+v", res.Manifest.Counts)
				}
				if res.Manifest.Counts.DPOPairs == 0 {
					t.Errorf("no DPO pairs")
				}
				v, err := (audit.Validator{}).Validate(context.Background(), cfg.Out)
				if err != nil {
					t.Fatal(err)
				}
				if !v.OK() {
					t.Fatalf("synth validate: %v", v.Defects)
				}
				sums[workers] = releaseSum(t, cfg.Out)
			}
			if sums[1] != sums[8] {
				t.Errorf("workers 1 and 8 give different data: %s vs %s", sums[1], sums[8])
			}
		})
	}
}

// releaseSum hashes a release's data files (Parquet and blueprints).
func releaseSum(t *testing.T, dir string) string {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !(strings.HasSuffix(p, ".parquet") || strings.Contains(p, "blueprints")) {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		h.Write([]byte(rel))
		h.Write(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// BenchmarkEpisode generates, plays and verifies one pack dialogue per op.
func BenchmarkEpisode(b *testing.B) {
	dirs := packDirs(b)
	sch, err := schemas.Compile()
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"scaffold", "airline"} {
		b.Run(name, func(b *testing.B) {
			d := load(b, dirs[name])
			gen, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: 1, Writes: blueprints.Range{Min: 0, Max: 5}, WriteWeights: []float64{10, 60, 23, 15, 5, 1},
				Reads: blueprints.Range{Min: 2, Max: 7}, Refusals: 0.2, Behaviors: usersim.Profiles()})
			if err != nil {
				b.Fatal(err)
			}
			ver := verify.ForDomain(d, sch)
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				bp, err := gen.Generate(context.Background(), i)
				if err != nil {
					b.Fatal(err)
				}
				tr, err := embedded.Simulate(context.Background(), d, bp, 60)
				if err != nil {
					b.Fatal(err)
				}
				if !ver.Verify(context.Background(), bp, tr).Passed {
					b.Fatal("rejected")
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "verified/s")
		})
	}
}
