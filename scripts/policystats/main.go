// Command policystats measures how much of a domain's policy a release
// reaches, beside τ²-bench's own tasks of the domain: the write tools
// its dialogues use, the task shapes (the set of write tools one
// dialogue calls), the share of dialogues without a write, whether the
// facts an allow rule asks (a cancellation's reason) were asked and
// stated before the write, and the refusals by the condition they cite.
//
//	go run ./scripts/policystats [--tau2 DIR] [--tau2-domain NAME] RELEASE
//
// DIR is τ²'s data folder (default $SYNTH_TAU2_DIR, else ../shared/tau2);
// NAME the τ² domain to compare with (default the release's domain).
package main

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
)

func main() {
	tau2 := flag.String("tau2", cmp.Or(os.Getenv("SYNTH_TAU2_DIR"), filepath.Join("..", "shared", "tau2")), "τ²-bench's data folder")
	domain := flag.String("tau2-domain", "", "τ² domain to compare with (default: the release's)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: policystats [--tau2 DIR] [--tau2-domain NAME] RELEASE")
		os.Exit(2)
	}
	if err := run(os.Stdout, flag.Arg(0), *tau2, *domain); err != nil {
		fmt.Fprintln(os.Stderr, "policystats:", err)
		os.Exit(1)
	}
}

// release is what policystats reads of a release.
type release struct {
	name     string
	writes   []string // the domain's write tools
	allows   []pack.Rule
	transfer string // the domain's transfer tool, "" for none
	rows     []export.SFTRow
	bps      map[string]*record.Blueprint
}

func run(w io.Writer, dir, tau2, tau2Domain string) error {
	r, err := readRelease(dir)
	if err != nil {
		return err
	}
	tau2Domain = cmp.Or(tau2Domain, r.name)
	theirs, err := tau2Shapes(filepath.Join(tau2, tau2Domain, "tasks.json"), r.writes)
	if err != nil {
		return err
	}
	ours := map[string]int{}
	used := map[string]bool{}
	for _, row := range r.rows {
		calls := writeCalls(row.Messages, r.writes)
		ours[shape(calls)]++
		for _, c := range calls {
			used[c] = true
		}
	}
	tau2Used := map[string]bool{}
	for s := range theirs {
		for _, t := range strings.Split(s, "+") {
			if t != "" {
				tau2Used[t] = true
			}
		}
	}
	fmt.Fprintf(w, "domain %s: %d dialogues; τ² %s: %d tasks\n", r.name, len(r.rows), tau2Domain, total(theirs))
	fmt.Fprintf(w, "write tools used: %d of the domain's %d; of τ²'s %d: %d (%s)\n", len(used), len(r.writes), len(tau2Used), countIn(used, tau2Used), missing(tau2Used, used))
	fmt.Fprintf(w, "task shapes: %d; of τ²'s %d: %d (missing: %s)\n", len(ours), len(theirs), countIn(keys(ours), keys(theirs)), missing(keys(theirs), keys(ours)))
	fmt.Fprintf(w, "no write: %.1f%% (%d); τ²: %.1f%% (%d)\n", share(ours[""], len(r.rows)), ours[""], share(theirs[""], total(theirs)), theirs[""])
	for _, s := range slices.Sorted(maps.Keys(ours)) {
		fmt.Fprintf(w, "  shape %-60s %5d  τ² %d\n", cmp.Or(s, "(none)"), ours[s], theirs[s])
	}
	for _, rule := range r.allows {
		if len(rule.Asks) > 0 {
			asked(w, r, rule)
		}
	}
	refusals(w, r)
	return nil
}

// asked counts the writes of an allow rule's tool before which the agent
// asked each fact (its words in an agent message) and the customer
// stated it (the goal's value in its words).
func asked(w io.Writer, r *release, rule pack.Rule) {
	n, ask, stated := 0, 0, 0
	for _, row := range r.rows {
		bp := r.bps[row.BlueprintID]
		k := 0
		for i, m := range row.Messages {
			if !callsTool(m, rule.Tool) {
				continue
			}
			n++
			agent, customer := said(row.Messages[:i])
			if slices.ContainsFunc(rule.Asks, func(f pack.Fact) bool { return strings.Contains(agent, model.Words(f.Name)) }) {
				ask++
			}
			facts := factsOfWrite(bp, rule, k)
			k++
			if len(facts) > 0 && !slices.ContainsFunc(facts, func(v string) bool { return !strings.Contains(customer, strings.ToLower(model.ValueWords(v))) }) {
				stated++
			}
		}
	}
	fmt.Fprintf(w, "allow rule %s: %d calls of %s; the agent asked the fact before %d, the customer had stated it before %d\n", rule.Name, n, rule.Tool, ask, stated)
	refused, refusedStated, handed, handedStated := 0, 0, 0, 0
	for _, row := range r.rows {
		bp := r.bps[row.BlueprintID]
		if bp == nil {
			continue
		}
		for gi, g := range bp.Goals {
			var at int
			switch {
			case g.Kind == record.GoalRefuse && g.Intent == model.IntentRefusePrefix+rule.Tool:
				refused++
				at = citingAt(row.Messages, bp, gi, rule.Name)
			case g.Kind == record.GoalTransfer && g.Intent == rule.Tool:
				handed++
				at = slices.IndexFunc(row.Messages, func(m record.Message) bool {
					return len(m.ToolCalls) > 0 && m.ToolCalls[0].Function.Name == r.transfer
				})
			default:
				continue
			}
			if at < 0 {
				continue
			}
			_, customer := said(row.Messages[:at])
			if !slices.ContainsFunc(rule.Asks, func(f pack.Fact) bool {
				return !strings.Contains(customer, strings.ToLower(model.ValueWords(g.Slots[f.Name])))
			}) {
				if g.Kind == record.GoalRefuse {
					refusedStated++
				} else {
					handedStated++
				}
			}
		}
	}
	fmt.Fprintf(w, "  refused: %d, the fact stated before the refusal in %d; handed to a human: %d, the fact stated before the transfer in %d\n", refused, refusedStated, handed, handedStated)
}

// citingAt is the first agent message that says goal gi's condition
// (the output of the rule's name), -1 for none.
func citingAt(msgs []record.Message, bp *record.Blueprint, gi int, rule string) int {
	for _, o := range bp.Outputs {
		if o.Goal == gi && o.Name == rule {
			want := strings.ToLower(o.Value)
			return slices.IndexFunc(msgs, func(m record.Message) bool {
				return m.Role == "assistant" && strings.Contains(strings.ToLower(m.Content), want)
			})
		}
	}
	return -1
}

// refusals counts the forbidden requests by the condition their goal's
// output cites (an allow rule's), else by the refused tool.
func refusals(w io.Writer, r *release) {
	by := map[string]int{}
	for _, row := range r.rows {
		bp := r.bps[row.BlueprintID]
		if bp == nil {
			continue
		}
		for gi, g := range bp.Goals {
			if g.Kind != record.GoalRefuse {
				continue
			}
			why := g.Intent + ": (no condition recorded)"
			for _, o := range bp.Outputs {
				if o.Goal == gi && slices.ContainsFunc(r.allows, func(a pack.Rule) bool { return a.Name == o.Name }) {
					why = g.Intent + ": " + o.Value
				}
			}
			by[why]++
		}
	}
	fmt.Fprintln(w, "refusals by the condition cited:")
	for _, k := range slices.Sorted(maps.Keys(by)) {
		fmt.Fprintf(w, "  %5d  %s\n", by[k], k)
	}
}

// said is what the agent and the customer said in msgs, lower-cased.
func said(msgs []record.Message) (agent, customer string) {
	var a, c strings.Builder
	for _, m := range msgs {
		switch m.Role {
		case "assistant":
			a.WriteString(strings.ToLower(m.Content) + "\n")
		case "user":
			c.WriteString(strings.ToLower(m.Content) + "\n")
		}
	}
	return a.String(), c.String()
}

// factsOfWrite are the values the k-th ground-truth write of the rule's
// tool has the customer state.
func factsOfWrite(bp *record.Blueprint, rule pack.Rule, k int) []string {
	if bp == nil {
		return nil
	}
	for _, a := range bp.Actions {
		if a.Kind != record.KindWrite || a.Tool != rule.Tool {
			continue
		}
		if k--; k >= 0 {
			continue
		}
		var out []string
		for _, f := range rule.Asks {
			if v, ok := bp.Goals[a.Goal].Slots[f.Name]; ok {
				out = append(out, v)
			}
		}
		return out
	}
	return nil
}

func callsTool(m record.Message, tool string) bool {
	return slices.ContainsFunc(m.ToolCalls, func(c record.ToolCall) bool { return c.Function.Name == tool })
}

// writeCalls are the write tools a dialogue calls whose call went
// through, in order.
func writeCalls(msgs []record.Message, writes []string) []string {
	failed := map[string]bool{}
	for _, m := range msgs {
		if m.Role == "tool" && strings.HasPrefix(m.Content, "Error") {
			failed[m.ToolCallID] = true
		}
	}
	var out []string
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if slices.Contains(writes, c.Function.Name) && !failed[c.ID] {
				out = append(out, c.Function.Name)
			}
		}
	}
	return out
}

// shape is the set of write tools of a task, "" for none.
func shape(calls []string) string {
	s := slices.Clone(calls)
	slices.Sort(s)
	return strings.Join(slices.Compact(s), "+")
}

// tau2Shapes counts τ²'s tasks by shape, from their gold actions.
func tau2Shapes(path string, writes []string) (map[string]int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("τ²'s tasks: %w", err)
	}
	var tasks []struct {
		Eval *struct {
			Actions []struct {
				Name string `json:"name"`
			} `json:"actions"`
		} `json:"evaluation_criteria"`
	}
	if err := json.Unmarshal(data, &tasks); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]int{}
	for _, t := range tasks {
		var calls []string
		if t.Eval != nil {
			for _, a := range t.Eval.Actions {
				if slices.Contains(writes, a.Name) {
					calls = append(calls, a.Name)
				}
			}
		}
		out[shape(calls)]++
	}
	return out, nil
}

func readRelease(dir string) (*release, error) {
	r := &release{bps: map[string]*record.Blueprint{}}
	if err := readDomain(filepath.Join(dir, "domain"), r); err != nil {
		return nil, err
	}
	shards, _ := filepath.Glob(filepath.Join(dir, "sft", "*.parquet"))
	if len(shards) == 0 {
		return nil, fmt.Errorf("%s: no sft/*.parquet: not a release", dir)
	}
	for _, s := range shards {
		rows, err := export.ReadSFT(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s, err)
		}
		r.rows = append(r.rows, rows...)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "blueprints", "*.jsonl.gz"))
	for _, f := range files {
		if err := readBlueprints(f, r.bps); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// readDomain reads the release's domain, loaded from its domain/ folder
// as a run loads a pack: its name, its write tools, its allow rules and
// its transfer tool.
func readDomain(dir string, r *release) error {
	p, err := pack.LoadDir(context.Background(), dir, 0, domains.PackOptions())
	if err != nil {
		return err
	}
	d, err := domain.FromPack(p)
	if err != nil {
		return err
	}
	r.name = d.Name
	for _, rule := range p.Manifest.Rules {
		if rule.Kind == pack.RuleAllow {
			r.allows = append(r.allows, rule)
		}
	}
	for _, t := range d.Tools.Tools() {
		if t.Kind == record.KindWrite {
			r.writes = append(r.writes, t.Name)
		}
	}
	if d.Model.Transfer != nil {
		r.transfer = d.Model.Transfer.Name
	}
	return nil
}

func readBlueprints(path string, into map[string]*record.Blueprint) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	sc := bufio.NewScanner(z)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var bp record.Blueprint
		if err := json.Unmarshal(sc.Bytes(), &bp); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		into[bp.ID] = &bp
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func keys(m map[string]int) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

func countIn(a, b map[string]bool) int {
	n := 0
	for k := range a {
		if b[k] {
			n++
		}
	}
	return n
}

// missing lists what want has and got lacks, "none" for nothing.
func missing(want, got map[string]bool) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if !got[k] {
			out = append(out, cmp.Or(k, "(none)"))
		}
	}
	if len(out) == 0 {
		return "none missing"
	}
	return strings.Join(out, ", ")
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}
