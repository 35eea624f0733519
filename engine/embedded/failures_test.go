package embedded_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/credit"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/engine/embedded"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/usersim"
	"github.com/synth-data/synth/verify"
)

// Every failure a built-in domain declares happens in some task when
// every task may have one: the runtime returns it at the recorded call,
// the oracle recovers as declared (the same call again, a transfer, or
// the write with another of the customer's choices after a new yes) and
// the dialogue verifies; with the recovery taken out, it does not.
func TestDeclaredFailures(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	ctx := context.Background()
	sch, err := schemas.Compile()
	if err != nil {
		t.Fatal(err)
	}
	for _, domain := range []string{"retail", "airline"} {
		t.Run(domain, func(t *testing.T) {
			d, err := domains.Load(domain, 3)
			if err != nil {
				t.Fatal(err)
			}
			gen, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: 3, Writes: blueprints.Range{Min: 1, Max: 2},
				Reads: blueprints.Range{Min: 0, Max: 6}, AdaptReads: true, Behaviors: usersim.Profiles(), ToolFailures: 1})
			if err != nil {
				t.Fatal(err)
			}
			ver := verify.ForDomain(d, sch)
			seen := map[string]bool{}
			for i := 0; i < 150; i++ {
				bp, err := gen.Generate(ctx, i)
				if err != nil {
					t.Fatal(err)
				}
				if len(bp.Failures) == 0 {
					continue
				}
				f := bp.Failures[0]
				seen[f.Kind] = true
				tr, err := embedded.Simulate(ctx, d, bp, 60)
				if err != nil {
					t.Fatal(err)
				}
				if v := ver.Verify(ctx, bp, tr); !v.Passed {
					t.Fatalf("blueprint %d (%s, %s): %s: %s", i, f.Kind, f.Recovery, v.Failed().Name, v.Failed().Reason)
				}
				at := failedCall(tr, f)
				if at < 0 {
					t.Fatalf("blueprint %d: no call of %s answered %q", i, f.Tool, f.Error)
				}
				broken := &record.Trajectory{BlueprintID: tr.BlueprintID, Domain: tr.Domain, Ending: tr.Ending, Messages: slices.Clone(tr.Messages)}
				switch f.Recovery {
				case pack.RecoverRetry:
					next := tr.Messages[at+1]
					if len(next.ToolCalls) != 1 || next.ToolCalls[0].Function != tr.Messages[at-1].ToolCalls[0].Function {
						t.Fatalf("blueprint %d: after %s the agent does not make the same call again", i, f.Kind)
					}
					// Given up after the failure: the write never happens.
					broken.Messages = slices.Delete(broken.Messages, at+1, at+3)
				case pack.RecoverTransfer:
					if tr.Ending != record.EndTransfer || tr.Messages[at+1].ToolCalls[0].Function.Name != d.Model.Transfer.Name {
						t.Fatalf("blueprint %d: after %s the agent does not transfer (ending %s)", i, f.Kind, tr.Ending)
					}
					// Carried on as if nothing failed: no hand-over.
					broken.Ending = record.EndStop
				case pack.RecoverAlternative:
					choice := d.Model.Failures[slices.IndexFunc(d.Model.Failures, func(df pack.Failure) bool { return df.Kind == f.Kind })].Choice
					failed, again := tr.Messages[at-1].ToolCalls[0].Function, laterCall(tr, at, f.Tool)
					if again == nil || argument(t, failed.Arguments, choice) == argument(t, again.Arguments, choice) {
						t.Fatalf("blueprint %d: after %s the agent does not make %s with another %s", i, f.Kind, f.Tool, choice)
					}
					// Given up after the decline: the write never happens. The
					// declined write was the customer's own first choice, not
					// the mistake.
					broken.Messages, broken.Ending = broken.Messages[:at+1], record.EndStop
					bv := ver.Verify(ctx, bp, broken)
					if l := credit.LabelDomain(d, bp, broken, &bv); l.Pivotal == at-1 {
						t.Errorf("blueprint %d: the write the service declined is labelled the mistake of the dialogue that gives up after it", i)
					}
				}
				if ver.Verify(ctx, bp, broken).Passed {
					t.Errorf("blueprint %d: a dialogue without the %s recovery verifies", i, f.Recovery)
				}
			}
			for _, f := range d.Model.Failures {
				if !seen[f.Kind] {
					t.Errorf("no task with a %s failure in 150", f.Kind)
				}
			}
		})
	}
}

// laterCall is the first call of tool after message at, nil for none.
func laterCall(tr *record.Trajectory, at int, tool string) *record.FunctionCall {
	for _, m := range tr.Messages[at+1:] {
		for _, c := range m.ToolCalls {
			if c.Function.Name == tool {
				return &c.Function
			}
		}
	}
	return nil
}

// argument is the text of a call's argument.
func argument(t *testing.T, args, name string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(m[name])
}

// failedCall is the index of the tool message answering the failure's
// call with its error, or -1.
func failedCall(tr *record.Trajectory, f record.ToolFailure) int {
	for i, m := range tr.Messages {
		if m.Role == "tool" && m.Name == f.Tool && m.Content == "Error: "+f.Error {
			return i
		}
	}
	return -1
}
