package verify

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/tools"
)

// OutsideChecks lists the checks of Outside, in the order they run; the
// domain's policy rules follow them (RulePrefix).
func OutsideChecks() []string {
	return append([]string{CheckToolResults}, Checks()...)
}

// Outside verifies a dialogue made elsewhere: its recorded tool results
// are replayed first, then every check synth runs on its own dialogues.
// Outside ground truth has no blueprint record of synth's, so the schema
// check holds the trajectory alone; bp is nil when the dialogue came
// without ground truth, and then the checks that need it fail saying so.
func (v *Verifier) Outside(ctx context.Context, bp *record.Blueprint, tr *record.Trajectory) record.Verdict {
	calls := v.parseCalls(tr)
	noTruth := func(name string) record.Check {
		return fail(name, "no ground truth: give the line a ground_truth, or a task_id with --tasks")
	}
	checks := []record.Check{
		v.toolResults(ctx, bp, tr),
		v.trajectorySchema(tr),
		toolSchema(tr, calls),
		toolCallIDs(tr),
		turns(tr),
		v.auth(tr, calls),
		v.confirmation(tr),
	}
	if bp == nil {
		checks = append(checks, noTruth(CheckState), noTruth(CheckOutputs), endingUnknownTask(tr))
	} else {
		rp := v.replay(ctx, bp, tr)
		checks = append(checks, v.state(ctx, bp, tr, rp, false), outputs(bp, tr), ending(bp, tr))
		// The policy's rules too: what is disclosed, asked and said is
		// held to the same rules as synth's own dialogues.
		checks = append(checks, v.rules(bp, tr, rp)...)
	}
	return verdictOf(checks)
}

func (v *Verifier) trajectorySchema(tr *record.Trajectory) record.Check {
	if err := v.schemas.ValidateValue(schemas.Trajectory, trajectoryValue(tr)); err != nil {
		return fail(CheckRecordSchema, "%v", err)
	}
	return pass(CheckRecordSchema)
}

// endingUnknownTask accepts either proper ending when the task (and so
// whether it needs a transfer) is unknown.
func endingUnknownTask(tr *record.Trajectory) record.Check {
	bp := &record.Blueprint{}
	if tr.Ending == record.EndTransfer {
		bp.Goals = []record.Goal{{Kind: record.GoalTransfer}}
	}
	return ending(bp, tr)
}

// toolResults replays every call in order on a fresh copy of the
// database and compares each result with the one the dialogue recorded,
// as JSON values (text that is not JSON as a string).
func (v *Verifier) toolResults(ctx context.Context, bp *record.Blueprint, tr *record.Trajectory) record.Check {
	recorded := pairResults(tr)
	st := v.d.Base.NewState()
	if bp != nil {
		st.Inject(tools.FaultsOf(bp.Failures))
	}
	n := 0
	for i, m := range tr.Messages {
		for k, c := range m.ToolCalls {
			n++
			got := v.d.Tools.Call(ctx, st, c.Function.Name, c.Function.Arguments).Output
			want, ok := recorded[[2]int{i, k}]
			if !ok {
				continue // tool_call_ids reports the unanswered call
			}
			if d := diffResult(want, got); d != "" {
				return fail(CheckToolResults, "call %d %s: recorded result differs %s", n, c.Function.Name, d)
			}
		}
	}
	return pass(CheckToolResults)
}

// diffResult says where a recorded result differs from the replayed
// one, "" when they are equal as JSON values.
func diffResult(recorded, replayed string) string {
	return diffValue(resultValue(recorded), resultValue(replayed), "")
}

func resultValue(s string) any {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return strings.TrimSpace(s)
	}
	return v
}

// diffValue finds the first path where two JSON values differ.
func diffValue(rec, rep any, path string) string {
	at := path
	at = cmp.Or(at, ".")
	switch r := rec.(type) {
	case map[string]any:
		p, ok := rep.(map[string]any)
		if !ok {
			return fmt.Sprintf("at %s (recorded an object, replayed %s)", at, clipText(valueText(rep)))
		}
		for _, k := range slices.Sorted(maps.Keys(r)) {
			if _, has := p[k]; !has {
				return fmt.Sprintf("at %s.%s (recorded, not in the replayed result)", path, k)
			}
			if d := diffValue(r[k], p[k], path+"."+k); d != "" {
				return d
			}
		}
		for _, k := range slices.Sorted(maps.Keys(p)) {
			if _, has := r[k]; !has {
				return fmt.Sprintf("at %s.%s (in the replayed result, not recorded)", path, k)
			}
		}
		return ""
	case []any:
		p, ok := rep.([]any)
		if !ok {
			return fmt.Sprintf("at %s (recorded a list, replayed %s)", at, clipText(valueText(rep)))
		}
		if len(r) != len(p) {
			return fmt.Sprintf("at %s (recorded %d elements, replayed %d)", at, len(r), len(p))
		}
		for i := range r {
			if d := diffValue(r[i], p[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	case json.Number:
		if p, ok := rep.(json.Number); ok && numbersEqual(r, p) {
			return ""
		}
	default:
		if rec == rep {
			return ""
		}
	}
	return fmt.Sprintf("at %s (recorded %s, replayed %s)", at, clipText(valueText(rec)), clipText(valueText(rep)))
}

func numbersEqual(a, b json.Number) bool {
	x, ok1 := new(big.Float).SetString(a.String())
	y, ok2 := new(big.Float).SetString(b.String())
	return ok1 && ok2 && x.Cmp(y) == 0
}

func valueText(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(b.String())
}

func clipText(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:77]) + "..."
	}
	return s
}
