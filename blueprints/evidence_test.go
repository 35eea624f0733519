package blueprints

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/synth-data/synth/record"
)

// TestLedgerEvidencePerWrite builds ground truths by hand: a write's
// evidence is every read its arguments depend on, transitively, whether
// or not an earlier write depended on it too; a read repeated with the
// same arguments is one action.
func TestLedgerEvidencePerWrite(t *testing.T) {
	type step struct {
		kind  string
		tool  string
		arg   string
		needs []int // indices of earlier steps
	}
	read := func(tool, arg string, needs ...int) step { return step{record.KindRead, tool, arg, needs} }
	write := func(tool, arg string, needs ...int) step { return step{record.KindWrite, tool, arg, needs} }
	cases := []struct {
		name     string
		steps    []step
		evidence []int
		reads    int
	}{
		{"one write", []step{read("find", "u"), read("get_user", "u", 0), read("get_order", "a", 1), write("cancel", "a", 2)}, []int{3}, 3},
		{"two writes share a get_order", []step{
			read("find", "u"), read("get_user", "u", 0), read("get_order", "a", 1),
			write("cancel", "a", 2),
			read("get_order", "a", 1), // the same lookup again: one action
			write("modify_address", "a", 4),
		}, []int{3, 3}, 3},
		{"second write reads more", []step{
			read("find", "u"), read("get_user", "u", 0), read("get_order", "a", 1), read("get_order", "b", 1),
			write("cancel", "a", 2, 3),
			read("get_order", "c", 1), read("get_order", "b", 1),
			write("return", "c", 5, 6, 2),
		}, []int{4, 5}, 5},
		{"a write needing no read", []step{read("find", "u"), write("create", "x"), write("cancel", "u", 0)}, []int{0, 1}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := ledger{seen: map[string]int{}}
			idx := make([]int, len(tc.steps))
			for i, s := range tc.steps {
				needs := make([]int, len(s.needs))
				for j, n := range s.needs {
					needs[j] = idx[n]
				}
				idx[i] = l.add(s.kind, -1, s.tool, map[string]any{"id": s.arg}, needs)
			}
			got := make([]int, len(l.writes))
			for i, w := range l.writes {
				got[i] = len(w)
			}
			if !slices.Equal(got, tc.evidence) {
				t.Errorf("evidence %v, want %v", got, tc.evidence)
			}
			reads := 0
			for _, a := range l.actions {
				if a.Kind == record.KindRead {
					reads++
				}
			}
			if reads != tc.reads {
				t.Errorf("%d distinct reads, want %d", reads, tc.reads)
			}
		})
	}
}

// TestGeneratedEvidencePerWrite checks generated two-write tasks: each
// write's evidence is the reads it depends on (recomputed from the
// actions' needs), reads shared by both writes count in each, n_reads is
// the distinct reads, and the evidence stays in the --reads range.
func TestGeneratedEvidencePerWrite(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	ms := models(t)
	cases := []struct {
		pack  string
		reads Range
	}{
		{"retail", Range{2, 7}},
		{"airline", Range{2, 7}},
		{"scaffold", Range{2, 6}},
	}
	for _, tc := range cases {
		t.Run(tc.pack, func(t *testing.T) {
			g, err := NewGeneric(ms[tc.pack], Spec{Seed: 3, Writes: Range{2, 2}, Reads: tc.reads, Refusals: 0.2, Behaviors: allProfiles})
			if err != nil {
				t.Fatal(err)
			}
			shared := 0
			for i := 0; i < 60; i++ {
				bp, err := g.Generate(context.Background(), i)
				if err != nil {
					t.Fatal(err)
				}
				sets, err := writeReads(bp)
				if err != nil {
					t.Fatalf("blueprint %d: %v", i, err)
				}
				for k, s := range sets {
					if len(s) != bp.Evidence[k] {
						t.Fatalf("blueprint %d: write %d depends on %d reads, evidence says %d", i, k, len(s), bp.Evidence[k])
					}
					if !tc.reads.Contains(bp.Evidence[k]) {
						t.Errorf("blueprint %d: write %d needs %d reads, outside %s", i, k, bp.Evidence[k], tc.reads)
					}
				}
				distinct := map[string]bool{}
				for _, a := range bp.Actions {
					if a.Kind == record.KindRead {
						distinct[a.Tool+" "+string(a.Arguments)] = true
					}
				}
				if bp.NReads != len(distinct) {
					t.Fatalf("blueprint %d: n_reads %d, %d distinct reads", i, bp.NReads, len(distinct))
				}
				if len(sets) == 2 && slices.ContainsFunc(sets[0], func(r int) bool { return slices.Contains(sets[1], r) }) {
					shared++
				}
			}
			if shared == 0 {
				t.Errorf("no task's writes share a read: the test no longer covers shared lookups")
			}
		})
	}
}

// writeReads lists, per write of a blueprint, the reads it depends on,
// following needs through the reads that needed others.
func writeReads(bp *record.Blueprint) ([][]int, error) {
	var out [][]int
	for _, w := range bp.Actions {
		if w.Kind != record.KindWrite {
			continue
		}
		seen := map[int]bool{}
		stack := slices.Clone(w.Needs)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[i] {
				continue
			}
			if i < 0 || i >= len(bp.Actions) || bp.Actions[i].Kind != record.KindRead {
				return nil, fmt.Errorf("%s needs action %d, which is not a read", w.Tool, i)
			}
			seen[i] = true
			stack = append(stack, bp.Actions[i].Needs...)
		}
		reads := make([]int, 0, len(seen))
		for i := range seen {
			reads = append(reads, i)
		}
		slices.Sort(reads)
		out = append(out, reads)
	}
	return out, nil
}
