package blueprints

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// Spec holds the controls of a blueprint run.
type Spec struct {
	Seed         uint64
	Writes       Range
	WriteWeights []float64
	Reads        Range
	ReadWeights  []float64
	Behaviors    []string
	// Shares of blueprints in the validation and test splits.
	Validation, Test float64
	// AdaptWrites and AdaptReads say the ranges are defaults, not the
	// user's: a pack that cannot meet them gets the nearest ranges it
	// can (noted), where a range the user asked for is refused.
	AdaptWrites, AdaptReads bool
	// Refusals is the share of tasks that hold a request the policy
	// forbids (a task's only request when it has no write, a side
	// request otherwise), where the pack has writes with preconditions.
	Refusals float64
	// ToolErrors is the share of tasks whose customer first names a
	// choice on which a write fails in its tool (Goal.FailingItems),
	// where one of its writes has such a choice; other tasks have none.
	ToolErrors float64
	// ToolFailures is the share of tasks in which a failure the domain
	// declares happens at one write (Blueprint.Failures), where a write
	// of the task can return one.
	ToolFailures float64
}

// Generator makes the blueprint at an index. Implementations are safe for
// concurrent use and deterministic per (spec, index).
type Generator interface {
	Generate(ctx context.Context, index int) (*record.Blueprint, error)
}

// maxAttempts bounds the search for a task meeting the controls; a
// feasible control finds one in a few tries, so hitting the bound means
// the controls ask for what this database cannot give.
const maxAttempts = 600

// exactTries bounds the attempts at the allocated reads level itself
// before the neighbouring levels are tried: a task there is found in a
// few tries if at all (airline's slowest took 22), while a shape the
// database cannot give at that level (capacities overestimates what can
// be built) burned a third of maxAttempts, about 8 airline blueprints in
// 1,000 costing an eighth of the run.
const exactTries = 40

// maxReadLevel is the most reads per write the generator looks at when it
// tells a user which levels a pack can give.
const maxReadLevel = 32

// ledger is the ground truth a plan accumulates.
type ledger struct {
	actions []record.Action
	seen    map[string]int // index of each read by readKey
	writes  [][]int        // needs of each write
}

// add records a ground-truth action of the given kind with the transitive
// closure of its needs; reads with the same arguments are recorded once.
func (l *ledger) add(kind string, goal int, tool string, args map[string]any, needs []int) int {
	key := readKey(tool, args)
	if kind == record.KindRead {
		if i, ok := l.seen[key]; ok {
			return i
		}
	}
	raw, _ := tools.Marshal(args)
	ns := closure(l.actions, needs)
	l.actions = append(l.actions, record.Action{Tool: tool, Kind: kind, Arguments: raw, Goal: goal, Needs: ns})
	i := len(l.actions) - 1
	if kind == record.KindRead {
		l.seen[key] = i
	}
	if kind == record.KindWrite {
		l.writes = append(l.writes, ns)
	}
	return i
}

// readKey identifies a read by tool and arguments without marshalling
// them: reads take a few string arguments.
func readKey(tool string, args map[string]any) string {
	var buf [8]string
	keys := buf[:0]
	size := len(tool)
	for k, v := range args {
		keys = append(keys, k)
		size += len(k) + 2
		if s, ok := v.(string); ok {
			size += len(s)
		}
	}
	slices.Sort(keys)
	// Sized once: the key is built a few hundred times a dialogue.
	var b strings.Builder
	b.Grow(size)
	b.WriteString(tool)
	for _, k := range keys {
		b.WriteByte(0)
		b.WriteString(k)
		b.WriteByte('=')
		// Text values, most of them, print as themselves; fmt, which the
		// rest goes through, was most of the key's cost.
		switch v := args[k].(type) {
		case string:
			b.WriteString(v)
		case json.Number:
			b.WriteString(string(v))
		default:
			fmt.Fprint(&b, v)
		}
	}
	return b.String()
}

// closure adds the reads that each needed read itself depended on.
func closure(actions []record.Action, needs []int) []int {
	set := map[int]bool{}
	var walk func(i int)
	walk = func(i int) {
		if set[i] {
			return
		}
		set[i] = true
		for _, j := range actions[i].Needs {
			walk(j)
		}
	}
	for _, i := range needs {
		walk(i)
	}
	return slices.Sorted(maps.Keys(set))
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
