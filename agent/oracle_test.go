package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/internal/testplay"
	"github.com/synth-data/synth/pipeline"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/tools"
	"github.com/synth-data/synth/usersim"
	"github.com/synth-data/synth/verify"
)

type episode struct {
	bp *record.Blueprint
	tr *record.Trajectory
}

// simulateAll generates blueprints [0, n) of a spec and plays the oracle
// on each, with two workers.
func simulateAll(t *testing.T, d *domains.Domain, g blueprints.Generator, n int) []episode {
	t.Helper()
	played, err := testplay.Play(d, g, n)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]episode, n)
	for i, p := range played {
		out[i] = episode{p.BP, p.TR}
	}
	return out
}

type env struct {
	d   *domains.Domain
	v   *verify.Verifier
	gen blueprints.Generator // of defaultSpec
}

var loadEnv = sync.OnceValues(func() (*env, error) {
	d, err := domains.Load("retail", 1)
	if err != nil {
		return nil, err
	}
	sch, err := schemas.Compile()
	if err != nil {
		return nil, err
	}
	g, err := d.Generator(defaultSpec())
	if err != nil {
		return nil, err
	}
	return &env{d: d, v: verify.New(d.Verify, sch), gen: g}, nil
})

func setup(t *testing.T) (*domains.Domain, *verify.Verifier) {
	t.Helper()
	e, err := loadEnv()
	if err != nil {
		t.Fatal(err)
	}
	return e.d, e.v
}

func defaultGen(t *testing.T) blueprints.Generator {
	t.Helper()
	e, err := loadEnv()
	if err != nil {
		t.Fatal(err)
	}
	return e.gen
}

func defaultSpec() blueprints.Spec {
	return blueprints.Spec{Seed: 1, Writes: blueprints.Range{Min: 0, Max: 5}, Reads: blueprints.Range{Min: 2, Max: 7},
		Behaviors: usersim.Profiles(), Validation: 0.05, Test: 0.05}
}

// nOracle is 300 dialogues; race runs (~5x slower) check 150.
var nOracle = map[bool]int{false: 300, true: 150}[raceEnabled]

// The oracle must pass verification on its own blueprints, every time.
func TestOraclePassesVerification(t *testing.T) {
	d, v := setup(t)
	eps := simulateAll(t, d, defaultGen(t), nOracle)
	failed := map[string]int{}
	for _, e := range eps {
		verdict := v.Verify(context.Background(), e.bp, e.tr)
		if !verdict.Passed {
			c := verdict.Failed()
			failed[c.Name]++
			t.Errorf("blueprint %d (%s, %d writes): %s: %s", e.bp.Index, e.bp.Behavior, e.bp.NWrites, c.Name, c.Reason)
		}
		checkGrounded(t, d, e)
	}
	if len(failed) > 0 {
		t.Logf("failures by check: %v", failed)
	}
}

// Every id the oracle passes to a tool came from the user or from an
// earlier tool result: it resolves, it never invents.
func checkGrounded(t *testing.T, d *domains.Domain, e episode) {
	t.Helper()
	seen := ""
	for _, m := range e.tr.Messages {
		switch m.Role {
		case "user", "tool":
			seen += "\n" + m.Content
		}
		for _, c := range m.ToolCalls {
			var args map[string]any
			if err := json.Unmarshal([]byte(c.Function.Arguments), &args); err != nil {
				t.Errorf("blueprint %d: %s arguments %q: %v", e.bp.Index, c.Function.Name, c.Function.Arguments, err)
				continue
			}
			for _, k := range []string{"order_id", "user_id", "product_id", "item_id", "payment_method_id", "item_ids", "new_item_ids"} {
				vals := []any{args[k]}
				if l, ok := args[k].([]any); ok {
					vals = l
				}
				for _, v := range vals {
					if s := tools.Text(v); s != "" && !strings.Contains(seen, s) {
						t.Errorf("blueprint %d (%s): %s passes %s %q, which neither the user nor a tool said", e.bp.Index, e.bp.Behavior, c.Function.Name, k, s)
					}
				}
			}
		}
	}
}

// canonical renders JSON arguments with sorted keys.
func canonical(raw string) string {
	var v any
	if json.Unmarshal([]byte(raw), &v) != nil {
		return raw
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// With a high read intensity, the oracle reads at least as much as the
// blueprint says each write needs, before that write.
func TestOracleHighReads(t *testing.T) {
	d, v := setup(t)
	spec := defaultSpec()
	spec.Reads = blueprints.Range{Min: 6, Max: 10}
	g, err := d.Generator(spec)
	if err != nil {
		t.Fatal(err)
	}
	eps := simulateAll(t, d, g, map[bool]int{false: 80, true: 40}[raceEnabled])
	writes := 0
	for _, e := range eps {
		if verdict := v.Verify(context.Background(), e.bp, e.tr); !verdict.Passed {
			c := verdict.Failed()
			t.Errorf("blueprint %d (%s): %s: %s", e.bp.Index, e.bp.Behavior, c.Name, c.Reason)
		}
		// The blueprint's writes, in order, with the reads each needs.
		var needs [][]string
		for _, a := range e.bp.Actions {
			if a.Kind != record.KindWrite {
				continue
			}
			var ns []string
			for _, i := range a.Needs {
				ns = append(ns, e.bp.Actions[i].Tool+canonical(string(e.bp.Actions[i].Arguments)))
			}
			needs = append(needs, ns)
		}
		reads, k := 0, 0
		done := map[string]bool{}
		for _, m := range e.tr.Messages {
			for _, c := range m.ToolCalls {
				switch d.Tools.Kind(c.Function.Name) {
				case record.KindRead:
					reads++
					done[c.Function.Name+canonical(c.Function.Arguments)] = true
				case record.KindWrite:
					writes++
					if reads < 6 {
						t.Errorf("blueprint %d (%s): write %d (%s) after only %d reads", e.bp.Index, e.bp.Behavior, k, c.Function.Name, reads)
					}
					if k < len(needs) {
						for _, need := range needs[k] {
							if !done[need] {
								t.Errorf("blueprint %d (%s): write %d (%s) without the evidence read %s", e.bp.Index, e.bp.Behavior, k, c.Function.Name, need)
							}
						}
					}
					k++
				}
			}
		}
		if k != e.bp.NWrites {
			t.Errorf("blueprint %d: %d writes, want %d", e.bp.Index, k, e.bp.NWrites)
		}
	}
	if writes == 0 {
		t.Error("no writes at all")
	}
}

// The same blueprint plays out word for word the same.
func TestOracleDeterministic(t *testing.T) {
	d, _ := setup(t)
	g := defaultGen(t)
	for _, i := range []int{0, 5, 17} {
		bp, err := g.Generate(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		var runs []string
		for range 2 {
			tr, err := pipeline.Simulate(context.Background(), d, bp, 60)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(tr)
			runs = append(runs, string(raw))
		}
		if runs[0] != runs[1] {
			t.Errorf("blueprint %d plays differently twice", i)
		}
	}
}

// A dialogue cut short by the turn limit ends with max_turns, and
// verification rejects it.
func TestOracleMaxTurns(t *testing.T) {
	d, v := setup(t)
	g := defaultGen(t)
	for i := range 10 {
		bp, err := g.Generate(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		if bp.NWrites < 2 {
			continue
		}
		tr, err := pipeline.Simulate(context.Background(), d, bp, 2)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Ending != record.EndMaxTurns {
			t.Errorf("blueprint %d: ending %q after 2 turns", i, tr.Ending)
		}
		if verdict := v.Verify(context.Background(), bp, tr); verdict.Passed {
			t.Errorf("blueprint %d: a truncated dialogue passes", i)
		}
		return
	}
	t.Fatal("no blueprint with 2 writes among the first 10")
}
