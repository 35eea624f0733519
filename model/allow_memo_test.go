package model

import (
	"context"
	"sync"
	"testing"

	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/tools"
)

// TestAllowMemoBounded: an allow rule's memo keeps at most mostAnswers
// answers, whatever the arguments customers state, and still answers
// from it a question it kept.
func TestAllowMemoBounded(t *testing.T) {
	calls := 0
	a := &AllowModel{onBase: new(sync.Map), Check: func(context.Context, *tools.State, map[string]any, map[string]any) (pack.Verdict, error) {
		calls++
		return pack.Verdict{}, nil
	}}
	st := emptyState(t)
	ctx := context.Background()
	for i := range mostAnswers + 500 {
		if _, err := a.check(ctx, st, map[string]any{"address": i}, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	kept := 0
	a.onBase.Range(func(any, any) bool { kept++; return true })
	if kept > mostAnswers || kept == 0 {
		t.Errorf("the memo keeps %d answers, want 1 to %d", kept, mostAnswers)
	}
	before := calls
	if _, err := a.check(ctx, st, map[string]any{"address": 0}, nil, false); err != nil || calls != before {
		t.Errorf("a kept answer ran the rule again (%d calls, was %d): %v", calls, before, err)
	}
}

// TestAllowMemoKeepsOwn: the answers on records' own arguments are kept
// apart from the bounded ones, so a memo full of customers' arguments
// still answers MayPermit's questions without running the rule.
func TestAllowMemoKeepsOwn(t *testing.T) {
	calls := 0
	a := &AllowModel{onBase: new(sync.Map), Check: func(context.Context, *tools.State, map[string]any, map[string]any) (pack.Verdict, error) {
		calls++
		return pack.Verdict{}, nil
	}}
	st := emptyState(t)
	ctx := context.Background()
	for i := range mostAnswers + 10 {
		if _, err := a.check(ctx, st, map[string]any{"address": i}, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	for _, own := range []bool{true, true} {
		if _, err := a.check(ctx, st, map[string]any{"order_id": "#W1"}, nil, own); err != nil {
			t.Fatal(err)
		}
	}
	if want := mostAnswers + 11; calls != want {
		t.Errorf("the rule ran %d times, want %d: the second question on a record's own arguments ran it again", calls, want)
	}
}
