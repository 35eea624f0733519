package blueprints

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// Generic generates tasks for any pack from its Model: writes on records
// the customer names by key or by attributes, bookings found by
// searching, questions answered by a read.
type Generic struct {
	m    *model.Model
	spec Spec
	draws
	// probeBehavior is a profile that fits any task (changes_mind needs
	// a write with a slot to revise).
	probeBehavior string
	// usable are the writes that succeeded in trials; unusable says why
	// the others never did (a handler that always fails).
	usable   []*model.WriteModel
	unusable map[string]string
	capacity map[int]int
	// notes say how default controls were adapted to the pack.
	notes []string
	// refusable is set when some usable write has preconditions, so
	// tasks can ask for what the policy forbids.
	refusable bool
}

// probeWrites tries each write on its own a few times and keeps those
// that succeed at least once, so tasks are not drawn on a write whose
// handler always fails.
func (g *Generic) probeWrites() []*model.WriteModel {
	g.unusable = map[string]string{}
	var out []*model.WriteModel
	for _, w := range g.m.Writes {
		rng := Stream(g.spec.Seed, g.m.Name, -1000, "probe-write/"+w.Name)
		var last error
		ok := false
		for a := 0; a < 24 && !ok; a++ {
			p := g.newPlan(context.Background(), rng)
			mode := modeKey
			switch {
			case w.TargetKind == model.TargetSearch:
				mode = modeSearch
			case w.TargetKind != model.TargetColl:
				mode = modeFixed
			case w.Coll.List != nil && (w.Coll.Get == "" || a%2 == 1):
				mode = modeDescribed
			}
			if last = p.chooseUser(w, mode, 0, ""); last != nil {
				continue
			}
			last = p.attempt(func() error { return p.buildWrite(w, mode) })
			ok = last == nil
		}
		if ok {
			out = append(out, w)
		} else if last != nil {
			g.unusable[w.Name] = last.Error()
		}
	}
	return out
}

// Modes of naming a write's target.
const (
	modeKey       = "key"       // the customer gives the record's key
	modeDescribed = "described" // by attributes among their records
	modeSearch    = "search"    // found by searching a grid
	modeFixed     = "fixed"     // the user themself, or nothing to name
	modeFollow    = "follow"    // the record an earlier write of the task acted on
)

// NewGeneric prepares a generator for a pack and checks that the pack
// can meet the controls.
func NewGeneric(m *model.Model, spec Spec) (*Generic, error) {
	if _, err := newDraws(spec); err != nil {
		return nil, err
	}
	g := &Generic{m: m, spec: spec}
	var err error
	if g.probeBehavior, err = probeBehavior(spec); err != nil {
		return nil, err
	}
	if spec.Writes.Max > 0 && len(m.Writes) == 0 && !spec.AdaptWrites {
		var why []string
		for _, n := range slices.Sorted(maps.Keys(m.Skipped)) {
			why = append(why, n+": "+m.Skipped[n])
		}
		return nil, fmt.Errorf("--writes %s: pack %s has no write tool tasks can be built on (%s); add hints.writes to its domain.yaml or use --writes 0", spec.Writes, m.Name, strings.Join(why, "; "))
	}
	g.usable = g.probeWrites()
	g.refusable = slices.ContainsFunc(g.usable, (*model.WriteModel).Forbids)
	if !g.refusable && g.spec.Refusals > 0 {
		g.notes = append(g.notes, fmt.Sprintf("--refusals %g: pack %s has no write the policy forbids on some records (hints.writes.*.when or refusals), so no task holds a forbidden request", g.spec.Refusals, m.Name))
		g.spec.Refusals = 0
	}
	if len(g.usable) == 0 && spec.Writes.Max > 0 {
		if !spec.AdaptWrites || spec.Writes.Min > 0 && len(m.Writes) > 0 {
			var why []string
			for _, n := range slices.Sorted(maps.Keys(g.unusable)) {
				why = append(why, n+": "+g.unusable[n])
			}
			return nil, fmt.Errorf("--writes %s: no write tool of pack %s succeeded in trials (%s); fix its handlers or hints, or use --writes 0", spec.Writes, m.Name, strings.Join(why, "; "))
		}
		g.adaptWrites(0, 0, "no write tool of the pack can be used, so every task asks a question")
	}
	if err := g.fitReads(); err != nil {
		return nil, err
	}
	if err := g.probeCounts(); err != nil {
		return nil, err
	}
	if g.draws, err = newDraws(g.spec); err != nil {
		return nil, err
	}
	return g, nil
}

// Notes say how the generator adapted default controls to the pack.
func (g *Generic) Notes() []string { return g.notes }

// Unused says, for each write tool of the pack no task can use, why: the
// pack left it out, no argument source was found, or every trial of it
// failed or changed nothing.
func (g *Generic) Unused() map[string]string {
	out := map[string]string{}
	for _, t := range g.m.Kit.Tools() {
		if t.Kind != record.KindWrite {
			continue
		}
		if i := slices.IndexFunc(g.usable, func(w *model.WriteModel) bool { return w.Name == t.Name }); i >= 0 {
			if why := g.outOfRange(g.usable[i]); why != "" {
				out[t.Name] = why
			}
			continue
		}
		switch {
		case g.m.Skipped[t.Name] != "":
			out[t.Name] = g.m.Skipped[t.Name]
		case g.unusable[t.Name] != "":
			out[t.Name] = g.unusable[t.Name]
		default:
			out[t.Name] = "no trial of it succeeded"
		}
	}
	return out
}

// outOfRange says why a usable write makes no task under --reads: every
// number of reads its tasks can need lies outside the range (a create
// that needs none, under the default 2-7); "" when one lies inside.
func (g *Generic) outOfRange(w *model.WriteModel) string {
	if g.spec.Writes.Max == 0 {
		return ""
	}
	users := g.m.UserKeys()
	if g.m.Users == nil {
		users = []string{""}
	}
	reaches := func(e int) bool {
		for _, u := range users {
			p := &gplan{g: g, m: g.m, ctx: context.Background(), user: u}
			if len(p.modes(w, e, true)) > 0 {
				return true
			}
		}
		return false
	}
	lo, hi := g.spec.Reads.Min, g.spec.Reads.Max
	for e := lo; e <= hi; e++ {
		if reaches(e) {
			return ""
		}
	}
	var levels []string
	for e := 0; e <= maxReadLevel; e++ {
		if (e < lo || e > hi) && reaches(e) {
			levels = append(levels, strconv.Itoa(e))
		}
	}
	if len(levels) == 0 {
		return ""
	}
	return fmt.Sprintf("its tasks need %s reads, outside --reads %s: give a range that holds it to cover it", strings.Join(levels, " or "), g.spec.Reads)
}

// fitReads makes sure the reads range holds a level some write can need:
// a default range moves to the levels the pack gives, one the user asked
// for is refused naming them.
func (g *Generic) fitReads() error {
	spec := g.spec
	g.capacity = g.capacities(spec.Reads.Min, spec.Reads.Max)
	if spec.Writes.Max == 0 || len(g.usable) == 0 || slices.ContainsFunc(slices.Collect(maps.Values(g.capacity)), func(c int) bool { return c > 0 }) {
		return nil
	}
	// From 0: a pack whose creates need no read gives them too.
	reach := g.capacities(0, maxReadLevel)
	var levels []int
	for lvl, c := range reach {
		if c > 0 {
			levels = append(levels, lvl)
		}
	}
	slices.Sort(levels)
	if len(levels) == 0 {
		return fmt.Errorf("--reads %s: no write of pack %s can need a known number of reads; use --writes 0", spec.Reads, g.m.Name)
	}
	lo, hi := levels[0], levels[len(levels)-1]
	if !spec.AdaptReads {
		return fmt.Errorf("--reads %s: the writes of pack %s need between %d and %d reads; use e.g. --reads %d-%d", spec.Reads, g.m.Name, lo, hi, lo, hi)
	}
	// The default range, moved to what the pack gives, at most as wide.
	if hi-lo > spec.Reads.Max-spec.Reads.Min {
		hi = lo + spec.Reads.Max - spec.Reads.Min
	}
	g.notes = append(g.notes, fmt.Sprintf("--reads %s is out of reach of pack %s, whose writes need %d to %d reads: the tasks need %d-%d (pass --reads to choose)",
		spec.Reads, g.m.Name, levels[0], levels[len(levels)-1], lo, hi))
	g.spec.Reads, g.spec.ReadWeights = Range{lo, hi}, g.writesAt(lo, hi)
	g.capacity = g.capacities(lo, hi)
	return nil
}

// writesAt weights each reads level by how many write tools can need it,
// so that an adapted range spreads tasks over the pack's writes in
// proportion rather than over its levels: a level only one create
// reaches gets that create's share, not half the tasks.
func (g *Generic) writesAt(lo, hi int) []float64 {
	users := g.m.UserKeys()
	if g.m.Users == nil {
		users = []string{""}
	}
	users = users[:min(len(users), 64)]
	out := make([]float64, hi-lo+1)
	for e := lo; e <= hi; e++ {
		for _, w := range g.usable {
			for _, u := range users {
				p := &gplan{g: g, m: g.m, ctx: context.Background(), user: u}
				if len(p.modes(w, e, true)) > 0 {
					out[e-lo]++
					break
				}
			}
		}
	}
	return out
}

// probeCounts builds a task of each write count once, so an impossible
// control fails before a long run starts rather than at its first
// blueprint; a default writes range shrinks to the counts the pack gives.
func (g *Generic) probeCounts() error {
	m := g.m
	for w := g.spec.Writes.Min; w <= g.spec.Writes.Max; w++ {
		ok := false
		var last error
		rng := Stream(g.spec.Seed, m.Name, -1-w, "probe")
		for a := 0; a < 300 && !ok; a++ {
			e := g.spec.Reads.Min + a%(g.spec.Reads.Max-g.spec.Reads.Min+1)
			_, err := g.try(context.Background(), rng, w, e, a < 150, g.probeBehavior, g.refusable && a%2 == 1, false)
			ok = err == nil
			if !ok {
				last = worse(last, err)
			}
		}
		switch {
		case ok:
		case g.spec.AdaptWrites && w == 0 && g.spec.Writes.Max > 0:
			g.adaptWrites(1, g.spec.Writes.Max, fmt.Sprintf("a task without writes cannot be built (%v)", last))
			w = 0 // the new minimum, 1, is next
		case g.spec.AdaptWrites && w > g.spec.Writes.Min:
			g.adaptWrites(g.spec.Writes.Min, w-1, fmt.Sprintf("a task with %d writes cannot be built (%v)", w, last))
			return nil
		case w == 0:
			// There is nothing to lower: a task without writes needs only
			// the customer's reads, and one of them fails.
			return fmt.Errorf("--writes %s: pack %s cannot build a task without writes (last attempt: %v); fix the handler or hints that attempt names", g.spec.Writes, m.Name, last)
		default:
			return fmt.Errorf("--writes %s: pack %s cannot build a task with %d writes whose reads lie in --reads %s (last attempt: %v); lower --writes to at most %d, widen --reads, or fix the handler or hints that attempt names", g.spec.Writes, m.Name, w, g.spec.Reads, last, w-1)
		}
	}
	return nil
}

// adaptWrites narrows a default writes range, keeping the default
// weights of the counts that remain.
func (g *Generic) adaptWrites(lo, hi int, why string) {
	old := g.spec.Writes
	if len(g.spec.WriteWeights) == old.Max-old.Min+1 {
		g.spec.WriteWeights = slices.Clone(g.spec.WriteWeights[lo-old.Min : hi-old.Min+1])
		if slices.Max(g.spec.WriteWeights) <= 0 {
			g.spec.WriteWeights = nil
		}
	}
	g.spec.Writes = Range{lo, hi}
	g.notes = append(g.notes, fmt.Sprintf("--writes %s is out of reach of pack %s: %s, so the tasks have %s writes (pass --writes to choose)", old, g.m.Name, why, g.spec.Writes))
}

// Generate builds blueprint index.
func (g *Generic) Generate(ctx context.Context, index int) (*record.Blueprint, error) {
	rng := Stream(g.spec.Seed, g.m.Name, index, "blueprint")
	w := g.writes.At(index)
	e := g.reads.At(index)
	behavior := g.spec.Behaviors[g.behav.At(index)]
	if behavior == "changes_mind" && w == 0 {
		behavior = g.probeBehavior
	}
	refuse := g.refuse.At(index) == 1
	fails := g.fail.At(index) == 1 && w > 0
	// Every write must need exactly the allocated reads; when the pack
	// cannot give w writes at that level (or after a fair search) the
	// neighbouring levels of the range, and at last any level the pack
	// can give (recorded in the evidence).
	levels := g.levels(w, e)
	first := len(levels) > 0 && levels[0] == e
	rest := levels
	if first {
		rest = levels[1:]
	}
	var last error
	held, tried := 0, 0
	for a := 0; a < maxAttempts; a++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if first && a == exactTries {
			// The rest of the allocated level's share goes to the
			// neighbouring levels' schedule.
			a = maxAttempts / 3
		}
		tried++
		ea, exact := e, false
		switch {
		case first && a < maxAttempts/3:
			exact = true
		case a < 2*maxAttempts/3 && len(rest) > 0:
			k := a
			if first {
				k -= maxAttempts / 3
			}
			ea, exact = rest[(k/20)%len(rest)], true
		case a < 2*maxAttempts/3 && first:
			exact = true
		}
		if a >= maxAttempts/2 && behavior == "changes_mind" {
			// No write of this task has a slot to revise.
			behavior = g.probeBehavior
		}
		switch {
		case a >= maxAttempts/2 && w > 0:
			// No record of this task's customer is one the policy forbids
			// a request on: the write task alone.
			refuse = false
		case a >= maxAttempts/2:
			// A task without writes that cannot be the one kind is the other.
			refuse = g.refusable && a%2 == 0
		}
		bp, err := g.try(ctx, rng, w, ea, exact, behavior, refuse, fails)
		if err == nil {
			if id, ok := g.m.Holdout.Match(WriteCalls(bp)); ok {
				// A benchmark's test task is never training data.
				held++
				last = fmt.Errorf("the task equals held-out task %s", id)
				continue
			}
			if g.outage.At(index) == 1 {
				if _, err := g.failAt(ctx, bp, index); err != nil {
					return nil, fmt.Errorf("blueprint %d: %w", index, err)
				}
			}
			bp.HeldOut = held
			bp.Index = index
			bp.ID = fmt.Sprintf("%s-%016x-%07d", g.m.Name, g.spec.Seed, index)
			bp.Seed = g.spec.Seed
			bp.Split = g.split(bp)
			return bp, nil
		}
		last = worse(last, err)
	}
	// The probe at the start found such a task, so the controls are in
	// reach, only rarely: say which to loosen.
	return nil, fmt.Errorf("blueprint %d: no %s task with %d writes and %d reads per write after %d attempts (last: %v); --writes %s --reads %s is at the edge of what pack %s's records allow: lower --writes or widen --reads", index, g.m.Name, w, e, tried, last, g.spec.Writes, g.spec.Reads, g.m.Name)
}

// WriteCalls lists a blueprint's ground-truth writes, to match them
// against a pack's holdout.
func WriteCalls(bp *record.Blueprint) []pack.Call {
	var out []pack.Call
	for _, a := range bp.Actions {
		if a.Kind != record.KindWrite {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(a.Arguments))
		dec.UseNumber()
		var args map[string]any
		if dec.Decode(&args) != nil {
			continue
		}
		out = append(out, pack.Call{Name: a.Tool, Arguments: args})
	}
	return out
}

// split assigns a task to train, validation or test by hashing what the
// task is (its instruction) rather than its index: a pack's task space
// can be small enough for two indices to draw the same task, which must
// then land in the same split rather than leak from train into test.
func (g *Generic) split(bp *record.Blueprint) string {
	u := float64(Mix(g.spec.Seed, g.m.Name, "split", bp.Instruction)>>11) / (1 << 53)
	switch {
	case u < g.spec.Test:
		return "test"
	case u < g.spec.Test+g.spec.Validation:
		return "validation"
	}
	return "train"
}

// levels lists the evidence levels to try for a task of w writes
// allocated level e: e first, then its neighbours in the range nearest
// first, keeping only levels the pack can give w writes at.
func (g *Generic) levels(w, e int) []int {
	if w == 0 {
		return []int{e}
	}
	cand := []int{e}
	for off := 1; off <= g.spec.Reads.Max-g.spec.Reads.Min; off++ {
		for _, lvl := range []int{e + off, e - off} {
			if g.spec.Reads.Contains(lvl) {
				cand = append(cand, lvl)
			}
		}
	}
	var out []int
	for _, lvl := range cand {
		if g.capacity[lvl] >= w {
			out = append(out, lvl)
		}
	}
	return out
}

// capacities bounds, per evidence level of the range, how many writes
// one task can have that each need exactly that many reads: for the best
// customer, the records they could name at that level plus unbounded
// searches and writes on themselves. It overestimates (a record may be
// counted twice) and only serves to skip levels that cannot work.
func (g *Generic) capacities(lo, hi int) map[int]int {
	const unbounded = 1 << 20
	out := map[int]int{}
	users := g.m.UserKeys()
	if g.m.Users == nil {
		users = []string{""}
	}
	for e := lo; e <= hi; e++ {
		best := 0
		for _, u := range users {
			p := &gplan{g: g, m: g.m, ctx: context.Background(), user: u}
			total := 0
			counted := map[string]bool{}
			for _, w := range g.usable {
				for _, mode := range p.modes(w, e, true) {
					switch {
					case mode == modeSearch || mode == modeFixed:
						total += unbounded
					case counted[w.Coll.Name]:
						// Its records are counted once, whatever the write.
					case w.Coll.Owner != "" && g.m.Users != nil:
						counted[w.Coll.Name] = true
						total += len(g.m.OwnedKeys(w.Coll, u))
					default:
						counted[w.Coll.Name] = true
						total += len(g.m.Base.Keys(w.Coll.Name))
					}
				}
			}
			best = max(best, min(total, unbounded))
		}
		out[e] = best
	}
	return out
}

// gplan accumulates the ground truth of one task, executing every write
// as it is added so later goals are built on the state the agent will see.
type gplan struct {
	g      *Generic
	m      *model.Model
	ctx    context.Context
	rng    *rand.Rand
	st     *tools.State
	memo   map[string]readResult
	undo   undo // the state before the last accepted write
	user   string
	ident  *model.IdentifyModel
	idArgs map[string]any
	ledger
	goals   []record.Goal
	outputs []record.Output
	used    map[string]bool
	known   map[string]string
	unknown []string
	revise  bool
	revised bool
	// fail looks for a write whose customer first names a choice the
	// tool rejects (Goal.FailingItems), among writes with such a choice;
	// failed is set once one has. A task with none is built without:
	// trying again for one would cost more than the situation is worth.
	fail   bool
	failed bool
	want   int // reads each write must need; 0 accepts any
	strict bool
	// refusal is the write of the task's forbidden request, drawn before
	// the customer; nil for a task without one.
	refusal *model.WriteModel
	// handover says the task has no write after its forbidden request,
	// so a request the policy hands to a human may end it.
	handover bool
	// firstDrawn is, per search parameter, the index of the value drawn
	// first among those the customer gives.
	firstDrawn map[string]int
	// multi says the task has more writes than one: its first may then
	// need more reads than the task's level too, when it cannot need so
	// few, as the others may (pickWrite).
	multi bool
	// done are the task's writes so far with their targets, for a write
	// that follows one on the same record (WriteModel.Follows).
	done []doneWrite
	// likes are the records drawn for like: arguments, per group, which
	// the task's later writes reuse.
	likes map[string]map[string]any
}

// doneWrite is a write of the plan and what it acted on.
type doneWrite struct {
	tool string
	t    *target
}

// newPlan starts an empty plan on a fresh state of the base.
func (g *Generic) newPlan(ctx context.Context, rng *rand.Rand) *gplan {
	return &gplan{g: g, m: g.m, ctx: ctx, rng: rng, st: g.m.Base.NewState(), memo: map[string]readResult{},
		ledger: ledger{seen: map[string]int{}}, used: map[string]bool{}, known: map[string]string{}, likes: map[string]map[string]any{}}
}

// undo is a plan's state and reads at one point, to return to.
type undo struct {
	st   *tools.State
	memo map[string]readResult
}

type readResult struct {
	v  any
	ok bool
}

// try builds one candidate task with w writes whose evidence aims at e.
func (g *Generic) try(ctx context.Context, rng *rand.Rand, w, e int, exact bool, behavior string, refuse, fail bool) (*record.Blueprint, error) {
	p := g.newPlan(ctx, rng)
	p.revise = behavior == "changes_mind"
	// A customer who changes their mind has a first choice already.
	p.fail = fail && !p.revise
	if exact {
		p.want = e
	}
	p.strict = exact
	// Plan the first goal before the user: a target described among the
	// user's records fixes how many records they must have.
	var first *model.WriteModel
	firstMode, firstLvl := "", e
	p.multi = w > 1
	if w > 0 {
		first, firstMode, firstLvl = p.pickWrite(e, exact)
		if first == nil {
			return nil, fmt.Errorf("no write can need %d reads", e)
		}
	}
	if refuse {
		// The forbidden request is drawn before the customer, who must
		// own a record the policy forbids it on: a compensation refused
		// to a regular member is rare among customers, and would be rarer
		// still if the customer came first.
		p.refusal = p.pickRefusal()
	}
	if err := p.chooseUserFor(first, firstMode, e, behavior, w); err != nil {
		return nil, err
	}
	if w > 0 && refuse {
		// A request the policy forbids comes first, the writes after: a
		// customer none of whose records the policy forbids it on is
		// dropped before any write is planned.
		if err := p.attempt(p.buildRefusal); err != nil {
			return nil, err
		}
	}
	if w == 0 {
		p.handover = true
		if err := p.attempt(func() error { return p.buildNoWrite(refuse) }); err != nil {
			return nil, err
		}
	}
	for i := 0; i < w; i++ {
		wm, mode, lvl := first, firstMode, firstLvl
		if i > 0 {
			wm, mode, lvl = p.pickWrite(e, exact)
			if wm == nil {
				return nil, fmt.Errorf("no write can need %d reads", e)
			}
		}
		err := p.attemptAt(lvl, exact, func() error { return p.buildWrite(wm, mode) })
		for k := 0; k < 4 && err != nil; k++ {
			// Another target, or for later goals another write, may fit
			// this user (a write the data refuses is drawn again).
			if i > 0 {
				if wm, mode, lvl = p.pickWrite(e, exact); wm == nil {
					break
				}
			}
			err = p.attemptAt(lvl, exact, func() error { return p.buildWrite(wm, mode) })
		}
		if err != nil {
			return nil, err
		}
	}
	if p.revise && !p.revised {
		return nil, errors.New("no slot to revise for changes_mind")
	}
	if refuse && w > 0 && rng.IntN(2) == 0 {
		// Half the customers with a forbidden request have a plan B
		// they state with it, as τ²'s conditional tasks do.
		p.goals[1].Instead = true
	}
	return p.finish(ctx, behavior)
}

func (p *gplan) finish(ctx context.Context, behavior string) (*record.Blueprint, error) {
	m := p.m
	evidence := make([]int, len(p.writes))
	for i, needs := range p.writes {
		// Exact or not, a task keeps within the range asked for: a level
		// the pack cannot give is replaced by one it can, in the range.
		evidence[i] = len(needs)
		if !p.g.spec.Reads.Contains(evidence[i]) {
			return nil, fmt.Errorf("write %d needs %d reads, outside %s", i, evidence[i], p.g.spec.Reads)
		}
	}
	if len(p.goals) == 0 {
		return nil, errors.New("no goal")
	}
	bp := &record.Blueprint{
		Domain:   m.Name,
		Persona:  record.Persona{Name: p.personaName(), Known: p.known},
		Unknown:  p.unknown,
		Behavior: behavior,
		Goals:    p.goals,
		Actions:  p.actions,
		Outputs:  p.outputs,
		NWrites:  len(p.writes),
		Evidence: evidence,
	}
	if bp.Unknown == nil {
		bp.Unknown = []string{}
	}
	for _, a := range p.actions {
		if a.Kind == record.KindRead {
			bp.NReads++
		}
	}
	bp.Reason = reasonFor(m, p.goals[0])
	bp.Instruction = instruction(m, bp)
	// The plan executed every action in order on its own state, and a
	// failed write's state was rebuilt from the accepted writes, so that
	// state is the ground truth's replay and the reads are proven.
	bp.StateHash = p.st.Hash()
	return bp, nil
}

// pickWrite draws a write tool and a way of naming its target that can
// need e reads (any, when not exact), and the reads it is to need: e, or
// for a later write that cannot need as few, the fewest it can. A task
// whose first write needs few reads (cancel an order named by its id)
// may then go on with a write that always reads more (swap an item,
// which reads the item's product): τ²'s tasks pair them, and holding
// every write to the first's level never would.
func (p *gplan) pickWrite(e int, exact bool) (*model.WriteModel, string, int) {
	ws := p.g.usable
	order := p.rng.Perm(len(ws))
	for _, own := range []bool{false, true} {
		if w := p.pickFollow(order, own); w != nil && p.rng.IntN(p.followOdds(w)) == 0 {
			// Half the time a write that may follow an earlier one on its
			// record does (an order's address, then its items, as τ²'s
			// customers ask): a random draw would pair them on one record
			// too seldom to be seen. It needs the reads that record took,
			// and its own, whatever the task's level. A change to the
			// customer's own record that may follow comes second, as
			// τ²'s customers who move give an order's items a second
			// thought more often than their account.
			return w, modeFollow, 0
		}
	}
	pick := func(choosers bool) (*model.WriteModel, string, int) {
		for _, i := range order {
			w := ws[i]
			if p.user != "" && w.Refusable() && !p.hasFitting(w, true) {
				continue // nothing of this customer's the policy lets it act on
			}
			if p.revise && !p.revised && len(p.writes) == 0 && !w.Revisable() {
				continue // a customer who changes their mind needs a choice to change
			}
			if p.user != "" && !p.canChoose(w) {
				continue // a new payment method for a customer who has only one
			}
			if choosers && !w.Chooses() && !p.keyedSlot(w) {
				continue
			}
			lvl := e
			modes := p.modes(w, e, exact)
			if len(modes) == 0 && exact && (len(p.writes) > 0 || p.multi) {
				lvl, modes = p.floorLevel(w, e)
				if len(p.writes) == 0 {
					// The customer is drawn for the task's level: the
					// first write names its record by key.
					modes = slices.DeleteFunc(modes, func(m string) bool { return m == modeDescribed })
				}
			}
			if len(modes) > 0 {
				return w, modes[p.rng.IntN(len(modes))], lvl
			}
		}
		return nil, "", 0
	}
	if p.fail && !p.failed {
		// A tool error needs a choice of the customer's, or a value it
		// states that a record's key may already hold, to fail on: a
		// write with one first, any other when none can need e reads.
		if w, mode, lvl := pick(true); w != nil {
			return w, mode, lvl
		}
	}
	return pick(false)
}

// pickFollow is the first write in order that may follow one of the
// task's writes, on that write's record or (own) on the customer's own,
// nil for none.
func (p *gplan) pickFollow(order []int, own bool) *model.WriteModel {
	if len(p.done) == 0 {
		return nil
	}
	for _, i := range order {
		w := p.g.usable[i]
		if len(w.Follows) > 0 && (w.TargetKind == model.TargetUser) == own && p.canChoose(w) && p.mayFollow(w) {
			return w
		}
	}
	return nil
}

// followOdds is 1 in how many times w follows when it may: 2, or for a
// change to the customer's own record 2 after a write that gave a record
// the value it gives (the one new address of τ²'s customers who moved)
// and 16 after another (a change of an order's items, then of the
// default address, which τ² has a sixth as often).
func (p *gplan) followOdds(w *model.WriteModel) int {
	if w.TargetKind != model.TargetUser {
		return 2
	}
	for _, d := range p.done {
		if slices.Contains(w.Follows, d.tool) && sharesLike(w, p.m.Write(d.tool)) {
			return 2
		}
	}
	return 16
}

// sharesLike reports whether two writes draw an argument like the same
// record path (an address).
func sharesLike(a, b *model.WriteModel) bool {
	if b == nil {
		return false
	}
	return slices.ContainsFunc(a.Params, func(pa *model.ParamModel) bool {
		return pa.Source == model.SrcLike && slices.ContainsFunc(b.Params, func(pb *model.ParamModel) bool {
			return pb.Source == model.SrcLike && pb.Group == pa.Group
		})
	})
}

// mayFollow reports whether w may follow one of the task's writes: on
// that write's record, or, for a change to the customer's own record
// (their default address after an order's), after one on any of theirs.
func (p *gplan) mayFollow(w *model.WriteModel) bool {
	if w.TargetKind != model.TargetUser {
		return p.followed(w) != nil
	}
	return !p.used[p.usedKey(p.m.Users.Coll.Name, p.user)] &&
		slices.ContainsFunc(p.done, func(d doneWrite) bool { return slices.Contains(w.Follows, d.tool) })
}

// followed is the latest target of the task's writes that w may follow
// on: one of its Follows acted on it, w did not, and the record as it
// is now meets w's preconditions.
func (p *gplan) followed(w *model.WriteModel) *target {
	for j := len(p.done) - 1; j >= 0; j-- {
		d := p.done[j]
		if !slices.Contains(w.Follows, d.tool) || d.t.key == "" || d.t.sel.Collection != w.Coll.Name {
			continue
		}
		if slices.ContainsFunc(p.done, func(o doneWrite) bool { return o.tool == w.Name && o.t.key == d.t.key }) {
			continue
		}
		v, ok := p.st.Get(w.Coll.Name, d.t.key)
		obj, err := tools.ToObject(v)
		if !ok || err != nil || !w.Allowed(obj) {
			continue
		}
		return &target{sel: d.t.sel, key: d.t.key, obj: obj, needs: d.t.needs}
	}
	return nil
}

// floorLevel is the fewest reads of the range w can need for this
// customer when that is more than e, with the ways of naming its target
// there (found on the way, so the caller need not ask again); e and none
// when w can need as few (or none of the range), as the caller, having
// found no way at e, knows already. So only a write that must read more
// is let above the task's level, never one that could have met it.
// (Letting a write that can need only fewer reads, a change to the
// customer's own account, below it put that write in a fifth of all
// tasks.)
func (p *gplan) floorLevel(w *model.WriteModel, e int) (int, []string) {
	for l := p.g.spec.Reads.Min; l <= p.g.spec.Reads.Max; l++ {
		if modes := p.modes(w, l, true); len(modes) > 0 {
			if l > e {
				return l, modes
			}
			return e, nil
		}
	}
	return e, nil
}

// canChoose reports whether the customer has something to choose for
// every choice of a write that must differ from the target's original.
func (p *gplan) canChoose(w *model.WriteModel) bool {
	var user map[string]any
	for _, pm := range w.Params {
		if pm.Source != model.SrcChoose || !pm.Choose.Other {
			continue
		}
		if user == nil {
			v, _ := p.m.Base.Get(p.m.Users.Coll.Name, p.user)
			user, _ = v.(map[string]any)
		}
		n := 0
		for _, e := range pm.Choose.ChoiceElements(user) {
			if pm.Choose.Allowed(e) {
				n++
			}
		}
		if n < 2 {
			return false
		}
	}
	return true
}

// anyWrite reports whether some write can need e reads for this customer.
func (p *gplan) anyWrite(e int, exact bool) bool {
	for _, w := range p.g.usable {
		if p.user != "" && (w.Refusable() && !p.hasFitting(w, true) || !p.canChoose(w)) {
			continue
		}
		if len(p.modes(w, e, exact)) > 0 {
			return true
		}
	}
	return false
}

// hasFitting reports whether the customer has an unused record that meets
// (allowed) or fails a write's preconditions.
func (p *gplan) hasFitting(w *model.WriteModel, allowed bool) bool {
	owner := ""
	if w.Coll.Owner != "" && p.m.Users != nil {
		owner = p.user
	}
	for _, k := range p.m.Fitting(w, allowed, owner) {
		if !p.used[p.usedKey(w.Coll.Name, k)] {
			return true
		}
	}
	return false
}

// modes lists the ways of naming w's target that can need e reads. The
// count is an estimate before the user is known; the built write's
// evidence is measured and checked.
func (p *gplan) modes(w *model.WriteModel, e int, exact bool) []string {
	m := p.m
	base := 0
	if m.Users != nil {
		base = 1 // the identify read
	}
	lo, hi := p.extraReads(w, modeKey)
	fits := func(n int) bool { return !exact || n+lo <= e && e <= n+hi }
	var out []string
	switch w.TargetKind {
	case model.TargetColl:
		c := w.Coll
		if c.Unread() && fits(0) {
			out = append(out, modeKey) // named by key and parents, read by nothing
		}
		if c.Get != "" {
			n := 1
			if c.Owner != "" && m.Users != nil {
				n += base
			}
			if fits(n) {
				out = append(out, modeKey)
			}
		}
		if c.List != nil {
			lo, hi := p.extraReads(w, modeDescribed)
			for x := lo; x <= hi; x++ {
				if !exact || p.describedFits(c, e-x) {
					out = append(out, modeDescribed)
					break
				}
			}
		}
	case model.TargetSearch:
		n := len(w.Search.Tools)
		extra := 0
		if needsUser(w) && m.Users != nil {
			extra = base + lo
		}
		if !exact || (e-extra >= n && (e-extra)%n == 0 && len(gridSizes(w.Search, (e-extra)/n)) > 0) {
			out = append(out, modeSearch)
		}
	default:
		n := 0
		if m.Users != nil && (w.TargetKind == model.TargetUser || needsUser(w)) {
			n = base
		}
		if fits(n) {
			out = append(out, modeFixed)
		}
	}
	return out
}

// extraReads bounds the reads a write needs beyond naming its target:
// the customer's record (once, whatever needs it, and not again when the
// target was found in its list), the checks on what the target points
// to, and a related record per replaced element (an exchanged item's
// product).
func (p *gplan) extraReads(w *model.WriteModel, mode string) (int, int) {
	m := p.m
	userLo, userHi := 0, 0
	listedInUser := mode == modeDescribed && w.Coll != nil && w.Coll.List != nil && m.Users != nil && w.Coll.List.Tool == m.Users.Details
	if m.Users != nil && m.Users.Details != "" && !p.detailsIsIdentify() && !listedInUser {
		for _, pm := range w.Params {
			switch {
			case pm.Source == model.SrcUser:
				userLo, userHi = 1, 1
			case pm.Source == model.SrcChoose && (pm.Choose.Other || pm.Choose.Default == ""):
				userLo, userHi = 1, 1
			case pm.Source == model.SrcChoose:
				userHi = 1
			}
		}
		if w.TargetKind == model.TargetUser {
			userLo, userHi = 1, 1
		}
	}
	lo, hi := userLo+w.ChecksMin, userHi+w.ChecksMax
	for _, pm := range w.Params {
		if pm.Source == model.SrcReplace {
			if of := w.Param(pm.Replace.Of); of != nil {
				lo, hi = lo+1, hi+of.Pick.Max
			}
		}
	}
	return lo, hi
}

// describedFits reports whether some user (or, without users, the whole
// collection) has the number of listed records that makes e reads.
func (p *gplan) describedFits(c *model.CollModel, e int) bool {
	k, ok := p.describedK(c, e)
	if !ok {
		return false
	}
	if c.List.Param == "" {
		return len(p.m.AllKeys(c.Name)) == k || k < 0
	}
	if p.user != "" {
		return k < 0 || len(p.m.Listed(c.Name, p.user)) == k
	}
	return k < 0 || len(p.m.UsersListing(c.Name, k)) > 0
}

// describedK is the number of listed records a described target needs
// for e reads; -1 when the list returns whole records (no per-record
// reads, so any number works).
func (p *gplan) describedK(c *model.CollModel, e int) (int, bool) {
	m := p.m
	fixed := 1 // the list read
	if c.List.Param == "" || p.user != "" {
		fixed = m.ListPages(c.Name, p.user) // one read a page
	}
	if c.List.Param != "" && m.Users != nil && !p.listIsIdentify(c) {
		fixed++ // authentication before the list
	}
	if p.listGivesRecords(c) {
		if c.List.By != "" {
			fixed++ // the record found by name is then read
		}
		return -1, e == fixed
	}
	k := e - fixed
	return k, k >= 1
}

func (p *gplan) listIsIdentify(c *model.CollModel) bool {
	m := p.m
	for _, id := range m.Users.Identify {
		if id.Tool == c.List.Tool && len(id.Params) == 1 && id.Params[0] == c.List.Param && id.Paths[id.Params[0]] == m.Users.Coll.Key {
			return true
		}
	}
	return false
}

func (p *gplan) detailsIsIdentify() bool {
	m := p.m
	if m.Users == nil {
		return false
	}
	for _, id := range m.Users.Identify {
		if id.Tool == m.Users.Details && len(id.Params) == 1 && id.Params[0] == m.Users.DetailsParam && id.Paths[id.Params[0]] == m.Users.Coll.Key {
			return true
		}
	}
	return false
}

// listGivesRecords reports whether a collection's list returns whole
// records (then the agent needs no read per record).
func (p *gplan) listGivesRecords(c *model.CollModel) bool { return p.m.ListGivesRecords(c.Name) }

func needsUser(w *model.WriteModel) bool {
	return slices.ContainsFunc(w.Params, func(pm *model.ParamModel) bool { return pm.Source == model.SrcUser || pm.Source == model.SrcUserKey })
}

// chooseUser picks the customer: one with the right number of records
// when the first write's target is described among them.
func (p *gplan) chooseUser(first *model.WriteModel, mode string, e int, behavior string) error {
	return p.chooseUserFor(first, mode, e, behavior, 0)
}

// drawUser draws the customer from pool: one who owns a record the
// task's forbidden request is refused on, where the model knows which,
// and one with a record the first write may act on.
func (p *gplan) drawUser(pool []string, first *model.WriteModel) (string, error) {
	m := p.m
	if r := p.refusal; r != nil && r.RefusalsIndexed() && r.Coll.Owner != "" {
		pool = slices.DeleteFunc(slices.Clone(pool), func(u string) bool { return len(m.Fitting(r, false, u)) == 0 })
	}
	if len(pool) == 0 {
		return "", errors.New("no user fits the first goal")
	}
	u := pool[p.rng.IntN(len(pool))]
	if first == nil || !first.Refusable() || first.Coll.Owner == "" {
		return u, nil
	}
	// A customer with a record the policy lets the write act on: a few
	// draws find one, and only then is the pool narrowed.
	for try := 0; len(m.Fitting(first, true, u)) == 0; try++ {
		if try == 8 {
			pool = slices.DeleteFunc(slices.Clone(pool), func(u string) bool { return len(m.Fitting(first, true, u)) == 0 })
			if len(pool) == 0 {
				return "", errors.New("no user has a record the first goal may act on")
			}
			return pool[p.rng.IntN(len(pool))], nil
		}
		u = pool[p.rng.IntN(len(pool))]
	}
	return u, nil
}

// chooseUserFor is chooseUser for a task of w writes: a customer who
// cannot have a second write at this level is passed over before any
// read is made for them.
func (p *gplan) chooseUserFor(first *model.WriteModel, mode string, e int, behavior string, w int) error {
	m := p.m
	if m.Users == nil {
		return nil
	}
	var pool []string
	if first != nil && mode == modeDescribed && first.Coll.List.Param != "" {
		lo, hi := p.extraReads(first, modeDescribed)
		var xs []int
		for x := lo; x <= hi; x++ {
			if _, ok := p.describedK(first.Coll, e-x); ok {
				xs = append(xs, x)
			}
		}
		extra := lo
		if len(xs) > 0 {
			extra = xs[p.rng.IntN(len(xs))]
		}
		k, ok := p.describedK(first.Coll, e-extra)
		switch {
		case !p.strict || k < 0:
			pool = m.OwnersWith(first.Coll, 1)
		case ok:
			pool = m.UsersListing(first.Coll.Name, k)
		}
	} else if first != nil && first.TargetKind == model.TargetColl && first.Coll.Owner != "" {
		pool = m.OwnersWith(first.Coll, 1)
	} else {
		pool = m.UserKeys()
	}
	u, err := p.drawUser(pool, first)
	if err != nil {
		return err
	}
	p.user = u
	canFirst := first == nil || p.canChoose(first)
	canMore := w <= 1 || p.anyWrite(e, p.strict)
	p.user = ""
	switch {
	case !canFirst:
		return fmt.Errorf("user %s has nothing to choose for %s", u, first.Name)
	case !canMore:
		return fmt.Errorf("no write can need %d reads", e)
	}
	uv, ok := m.Base.Get(m.Users.Coll.Name, u)
	if !ok {
		return fmt.Errorf("user %s is missing", u)
	}
	obj, err := tools.ToObject(uv)
	if err != nil {
		return err
	}
	// An identify method whose fields this user has.
	order := p.rng.Perm(len(m.Users.Identify))
	for _, i := range order {
		im := &m.Users.Identify[i]
		args := map[string]any{}
		known := map[string]string{}
		okAll := true
		for _, param := range im.Params {
			v, found := model.ValueAt(obj, im.Paths[param])
			if !found || v == nil {
				okAll = false
				break
			}
			if _, isList := v.([]any); isList {
				okAll = false
				break
			}
			text := model.SlotText(v)
			known[param] = text
			args[param] = model.Typed(m.ParamSchema(im.Tool, param), text)
		}
		if !okAll {
			continue
		}
		out, ok := m.Read(p.ctx, nil, im.Tool, args)
		if !ok || m.UserKeyOfValue(out) != u {
			continue
		}
		if behavior == "confused" && !m.MisspellFails(p.ctx, im, known) {
			continue
		}
		p.user, p.ident, p.idArgs = u, im, args
		p.known = known
		p.known["identify"] = im.Tool
		if !slices.Contains(im.Params, m.Users.Coll.Key) {
			p.unknown = append(p.unknown, model.Words(m.Users.Coll.Key))
		}
		return nil
	}
	return fmt.Errorf("user %s cannot be identified", u)
}

func (p *gplan) personaName() string {
	m := p.m
	if m.Users != nil && p.user != "" {
		uv, _ := m.Base.Get(m.Users.Coll.Name, p.user)
		obj, _ := tools.ToObject(uv)
		var parts []string
		for _, path := range m.Users.Name {
			if v, ok := model.ValueAt(obj, path); ok {
				if s := tools.Text(v); s != "" {
					parts = append(parts, s)
				}
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, " ")
		}
		return "the customer " + p.user
	}
	return model.PersonName(p.rng)
}

// call records a ground-truth action; reads with the same arguments are
// recorded once.
func (p *gplan) call(goal int, tool string, args map[string]any, needs []int) int {
	return p.add(p.m.Kit.Kind(tool), goal, tool, args, needs)
}

// read runs a read on the plan's state and records it as an action.
func (p *gplan) read(tool string, args map[string]any, needs []int) (int, any, bool) {
	v, ok := p.peek(tool, args)
	if !ok {
		return -1, nil, false
	}
	return p.call(-1, tool, args, needs), v, true
}

// readFailure is a read the pack's own data should answer but that fails:
// a broken handler, most often. Reports of a failed search prefer it to
// the attempts' other reasons, which it usually causes.
type readFailure struct{ error }

func (r readFailure) Unwrap() error { return r.error }

// worse keeps the error that better explains failed attempts: a read
// failure over any other, else the latest.
func worse(kept, err error) error {
	var rf readFailure
	if errors.As(kept, &rf) && !errors.As(err, &rf) {
		return kept
	}
	return err
}

// whyNot says why a read gave no record: the tool's own error (a failed
// call, its step limit, a value that is not JSON), which the memo of
// reads keeps only as a failure, or what it returned instead of an object.
func (p *gplan) whyNot(tool string, args map[string]any, v any, ok bool) string {
	if ok {
		raw, _ := json.Marshal(v)
		if len(raw) > 80 {
			raw = append(raw[:77], "..."...)
		}
		return fmt.Sprintf("%s returned %s, not an object", tool, raw)
	}
	raw, _ := json.Marshal(args)
	return strings.TrimPrefix(p.m.Call(p.ctx, p.st, tool, string(raw)).Output, "Error: ")
}

// auth is the identify read (-1 without users). The agent identifies the
// customer once, at the start: later writes (a new address) do not make
// it look them up again.
func (p *gplan) auth() []int {
	if p.m.Users == nil || p.ident == nil {
		return nil
	}
	if i, ok := p.seen[readKey(p.ident.Tool, p.idArgs)]; ok {
		return []int{i}
	}
	i, _, ok := p.read(p.ident.Tool, p.idArgs, nil)
	if !ok {
		return nil
	}
	return []int{i}
}

// userDetails reads the customer's record.
func (p *gplan) userDetails() (int, map[string]any, error) {
	m := p.m
	if m.Users == nil || m.Users.Details == "" {
		return -1, nil, errors.New("the pack has no tool that reads a user's record")
	}
	i, v, ok := p.read(m.Users.Details, m.DetailsArgs(p.user), p.auth())
	if !ok {
		return -1, nil, readFailure{fmt.Errorf("%s fails for user %s: %s", m.Users.Details, p.user, p.whyNot(m.Users.Details, m.DetailsArgs(p.user), v, ok))}
	}
	obj, _ := v.(map[string]any)
	if obj == nil {
		return -1, nil, fmt.Errorf("%s does not return a record", m.Users.Details)
	}
	return i, obj, nil
}

// attemptAt is attempt with the write held to lvl reads when exact.
func (p *gplan) attemptAt(lvl int, exact bool, build func() error) error {
	if !exact {
		return p.attempt(build)
	}
	was := p.want
	p.want = lvl
	defer func() { p.want = was }()
	return p.attempt(build)
}

// attempt runs a goal builder and rolls the plan back if it fails or its
// write misses the wanted evidence.
func (p *gplan) attempt(build func() error) error {
	snap, nw, ng, no, nu, nd := len(p.actions), len(p.writes), len(p.goals), len(p.outputs), len(p.unknown), len(p.done)
	prev := p.undo
	seen := maps.Clone(p.seen)
	used := maps.Clone(p.used)
	known := maps.Clone(p.known)
	revised := p.revised
	err := build()
	if err == nil && p.want > 0 && len(p.writes) > nw && len(p.writes[len(p.writes)-1]) != p.want {
		err = fmt.Errorf("write needs %d reads, want %d", len(p.writes[len(p.writes)-1]), p.want)
	}
	if err != nil {
		p.actions, p.writes, p.goals, p.outputs, p.unknown, p.done = p.actions[:snap], p.writes[:nw], p.goals[:ng], p.outputs[:no], p.unknown[:nu], p.done[:nd]
		p.seen, p.used, p.known, p.revised = seen, used, known, revised
		if p.undo.st != prev.st {
			// The goal's write ran (a build runs at most one): undo it.
			p.st, p.memo = p.undo.st, p.undo.memo
		}
		p.undo = prev
	}
	return err
}

// target is what a goal acts on, once found.
type target struct {
	sel   record.Selector
	key   string
	obj   map[string]any
	needs []int
}

func (p *gplan) usedKey(coll, key string) string { return coll + "\x00" + key }

// byKey picks an unused record the customer names by its key; fits (nil
// for any) says which records the goal can be about.
func (p *gplan) byKey(c *model.CollModel, fits func(map[string]any) bool) (*target, error) {
	m := p.m
	var keys []string
	owned := c.Owner != "" && m.Users != nil
	if owned {
		keys = m.OwnedKeys(c, p.user)
	} else {
		keys = m.Base.Keys(c.Name)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("no %s to act on", c.Noun)
	}
	var needs []int
	if owned {
		needs = p.auth()
	}
	for try := 0; try < 6; try++ {
		key := keys[p.rng.IntN(len(keys))]
		if p.used[p.usedKey(c.Name, key)] {
			continue
		}
		if c.Unread() {
			v, ok := p.st.Get(c.Name, key)
			obj, err := tools.ToObject(v)
			if !ok || err != nil || fits != nil && !fits(obj) {
				continue
			}
			// The customer gives the key and the parents; the agent acts
			// on what it was told, as no tool shows the record.
			kt := c.KeyText(key)
			p.known[c.Key+":"+kt] = kt
			return &target{sel: record.Selector{Collection: c.Name, ID: key, Label: c.Noun + " " + kt + m.ScopeWords(c, key)}, key: key, obj: obj}, nil
		}
		args := m.GetArgs(c, key)
		v, ok := p.peek(c.Get, args)
		obj := m.RecordOf(c, key, v)
		if !ok || obj == nil {
			continue
		}
		if owned && tools.Text(obj[c.Owner]) != "" && tools.Text(obj[c.Owner]) != p.user {
			continue
		}
		if fits != nil && !fits(obj) {
			continue
		}
		i, _, _ := p.read(c.Get, args, needs)
		p.known[c.Key+":"+key] = key
		return &target{sel: record.Selector{Collection: c.Name, ID: key, Label: c.Noun + " " + key + m.ScopeWords(c, key)}, key: key, obj: obj, needs: []int{i}}, nil
	}
	return nil, fmt.Errorf("no unused %s found", c.Noun)
}

// candidates reads what the agent reads to find a described record: the
// list, then each listed record unless the list holds them whole.
func (p *gplan) candidates(c *model.CollModel) ([]string, []map[string]any, []int, error) {
	m := p.m
	var needs []int
	if c.List.Param != "" {
		if m.Users == nil {
			return nil, nil, nil, errors.New("a per-user list without users")
		}
		needs = p.auth()
	}
	// Every page is read, each after the one that says where it starts:
	// the customer's description is about all their records.
	var reads []int
	var failed error
	l, ok := m.ReadList(c, m.ListArgs(c, p.user), func(args map[string]any) (any, bool) {
		if len(reads) > 0 {
			needs = reads[len(reads)-1:]
		}
		li, out, ok := p.read(c.List.Tool, args, needs)
		if !ok {
			failed = readFailure{fmt.Errorf("%s fails: %s", c.List.Tool, p.whyNot(c.List.Tool, args, out, ok))}
			return nil, false
		}
		reads = append(reads, li)
		return out, true
	})
	if !ok {
		return nil, nil, nil, failed
	}
	if l.Partial {
		// Records the agent cannot list may be the best: none is
		// described, and the task names its record by key instead.
		return nil, nil, nil, fmt.Errorf("%s shows only part of the %s", c.List.Tool, model.Plural(c.Noun))
	}
	keys, recs := l.Keys, l.Recs
	if len(keys) == 0 {
		return nil, nil, nil, fmt.Errorf("no %s listed", c.Noun)
	}
	pages := slices.Clone(reads)
	if recs != nil {
		return keys, recs, reads, nil
	}
	if c.Get == "" {
		return nil, nil, nil, fmt.Errorf("%s lists keys but no tool reads a %s", c.List.Tool, c.Noun)
	}
	objs := make([]map[string]any, len(keys))
	for i, k := range keys {
		gi, v, ok := p.read(c.Get, m.GetArgs(c, k), pages)
		obj := m.RecordOf(c, k, v)
		if !ok || obj == nil {
			return nil, nil, nil, readFailure{fmt.Errorf("%s %s cannot be read: %s", c.Noun, k, p.whyNot(c.Get, m.GetArgs(c, k), v, ok))}
		}
		objs[i] = obj
		reads = append(reads, gi)
	}
	return keys, objs, reads, nil
}

// described picks an unused record among the candidates and finds words
// that single it out: attributes, and an ordering criterion if needed.
func (p *gplan) described(c *model.CollModel, fits func(map[string]any) bool) (*target, error) {
	keys, objs, reads, err := p.candidates(c)
	if err != nil {
		return nil, err
	}
	mine := c.List.Param != ""
	// The first 4 candidates in a random order that fit are tried. fits
	// may run the write's tool (acceptedBy), so it is asked only until 4
	// have passed, not of every candidate.
	tried := 0
	for _, t := range p.rng.Perm(len(keys)) {
		if tried == 4 {
			break
		}
		if fits != nil && !fits(objs[t]) {
			continue
		}
		tried++
		if p.used[p.usedKey(c.Name, keys[t])] {
			continue
		}
		rf := describe(c, objs[t], len(objs))
		forms := rf.forms
		p.rng.Shuffle(len(forms), func(i, j int) { forms[i], forms[j] = forms[j], forms[i] })
		for _, form := range forms {
			f := rf.selector(form)
			f.Collection = c.Name
			if idlePick(f, objs, c.Key) {
				continue
			}
			if i, err := tools.ResolveKey(f, objs, c.Key); err == nil && i == t {
				f.Label = model.RecordLabel(c, f.Where, f.Pick, mine)
				p.unknown = appendOnce(p.unknown, model.Words(c.Key)+"s")
				obj := objs[t]
				if c.List.By != "" {
					// The list names records; the agent then reads the one it found.
					gi, v, ok := p.read(c.Get, p.m.GetArgs(c, keys[t]), reads)
					full := p.m.RecordOf(c, keys[t], v)
					if !ok || full == nil {
						return nil, fmt.Errorf("%s %s cannot be read", c.Noun, keys[t])
					}
					obj, reads = full, append(slices.Clone(reads), gi)
				}
				return &target{sel: f, key: keys[t], obj: obj, needs: reads}, nil
			}
		}
	}
	return nil, fmt.Errorf("no %s identifiable by its attributes", c.Noun)
}

// recordForms are the ways a customer may describe a record. A list
// field ("items.name") describes it by any one of its values ("the order
// with the laptop in it"). A form is its attributes' indexes, its Where
// built (selector) only for the forms tried: the first that singles the
// record out ends the search, and building every form's map cost more
// than the rest of it.
type recordForms struct {
	attrs []formAttr
	forms []recordForm
}

type formAttr struct{ path, val string }

// recordForm says "where a (and b) ... [pick]"; -1 for no attribute.
type recordForm struct {
	a, b int
	pick string
}

// describe lists the forms of record r among n candidates.
func describe(c *model.CollModel, r map[string]any, n int) recordForms {
	var rf recordForms
	for _, d := range c.Describe {
		v, ok := model.ValueAt(r, d)
		if !ok || v == nil {
			continue
		}
		var one [1]any
		var vals []any
		switch x := v.(type) {
		case map[string]any:
			continue
		case []any:
			vals = x
		default:
			one[0] = x
			vals = one[:]
		}
		from := len(rf.attrs)
		for _, x := range vals {
			if _, isMap := x.(map[string]any); isMap || x == nil {
				continue
			}
			s := tools.Text(x)
			// An enum's "no value" member (TRACE_SPAN_TYPE_UNKNOWN) says
			// the API cannot tell: no one describes a record by it.
			if s == "" || len(s) > 40 || slices.ContainsFunc(rf.attrs[from:], func(a formAttr) bool { return a.val == s }) || model.Sentinel(s) {
				continue
			}
			rf.attrs = append(rf.attrs, formAttr{d, s})
		}
	}
	// The forms are made at their final size: growing them was most of
	// what describing a candidate allocated.
	na := len(rf.attrs)
	rf.forms = make([]recordForm, 0, 1+na+na*(na-1)/2+(na+1)*2*len(c.Compare))
	if n == 1 {
		rf.forms = append(rf.forms, recordForm{a: -1, b: -1})
	}
	// One attribute, or two of different fields.
	for i, a := range rf.attrs {
		rf.forms = append(rf.forms, recordForm{a: i, b: -1})
		for j := i + 1; j < len(rf.attrs); j++ {
			if rf.attrs[j].path != a.path {
				rf.forms = append(rf.forms, recordForm{a: i, b: j})
			}
		}
	}
	// An ordering criterion, alone or with one attribute.
	picks := make([]string, 0, 2*len(c.Compare))
	for _, f := range c.Compare {
		picks = append(picks, "max:"+f, "min:"+f)
	}
	for i := -1; i < len(rf.attrs); i++ {
		for _, pick := range picks {
			rf.forms = append(rf.forms, recordForm{a: i, b: -1, pick: pick})
		}
	}
	return rf
}

// selector spells a form.
func (rf recordForms) selector(f recordForm) record.Selector {
	sel := record.Selector{Pick: f.pick}
	if f.a >= 0 {
		a := rf.attrs[f.a]
		sel.Where = map[string]string{a.path: a.val}
		if f.b >= 0 {
			b := rf.attrs[f.b]
			sel.Where[b.path] = b.val
		}
	}
	return sel
}

// chooseOptional picks the optional parameters a write sets: when it
// would otherwise change nothing the customer states (an update with
// every field optional), one or two of them.
func (p *gplan) chooseOptional(w *model.WriteModel) []string {
	var opt []string
	says := false
	for _, pm := range w.Params {
		switch {
		case pm.Optional:
			opt = append(opt, pm.Name)
		case pm.Source == model.SrcSlot || pm.Source == model.SrcUser:
			says = true
		}
	}
	if says || len(opt) == 0 {
		return nil
	}
	p.rng.Shuffle(len(opt), func(i, j int) { opt[i], opt[j] = opt[j], opt[i] })
	n := 1
	if len(opt) > 1 && p.rng.IntN(3) == 0 {
		n = 2
	}
	out := opt[:n]
	sort.Strings(out)
	return out
}

// buildWrite adds one write goal with its reads and executes it.
func (p *gplan) buildWrite(w *model.WriteModel, mode string) error {
	return p.buildGoal(w, mode, false)
}

// buildGoal adds a write goal, or with refuse a request the tool refuses
// for a reason the pack counts as the policy's (w.Refusals): the same
// target, reads and arguments a write has, the write tried and undone.
func (p *gplan) buildGoal(w *model.WriteModel, mode string, refuse bool) error {
	m := p.m
	gi := len(p.goals)
	opts := p.chooseOptional(w)
	goal := record.Goal{Intent: model.IntentOf(w, opts), Kind: record.GoalWrite, Slots: map[string]string{}, Situation: w.Situation}
	params := w.Included(opts)
	var needs []int
	var userObj map[string]any
	for _, pm := range params {
		switch pm.Source {
		case model.SrcUserKey:
			needs = append(needs, p.auth()...)
		case model.SrcUser:
			if userObj == nil {
				i, obj, err := p.userDetails()
				if err != nil {
					return err
				}
				userObj = obj
				needs = append(needs, i)
			}
		}
	}
	fits := p.targetsFor(w, refuse)
	if w.DecidedOnTarget() {
		// A computed argument's write is allowed on few targets (a
		// reservation with a disrupted flight the policy compensates):
		// the tool, tried on the target, says which.
		fits = p.acceptedBy(w, refuse)
	}
	if p.want > 0 && len(w.Checks) > 0 && w.TargetKind == model.TargetColl {
		// A target whose checks alone overshoot the reads wanted (a
		// reservation of four flights, for 4 reads) is passed over before
		// the write is built on it.
		left := p.want - len(closure(p.actions, needs)) - 1
		allowed := fits
		fits = func(obj map[string]any) bool {
			return w.CountChecks(obj) <= left && (allowed == nil || allowed(obj))
		}
	}
	t, err := p.writeTarget(w, mode, needs, fits)
	if err != nil {
		return err
	}
	needs = append(needs, t.needs...)
	if refuse {
		if rule, v, ok := w.RefusedOnTarget(p.ctx, p.st, t.obj); ok {
			// Refused on the record alone: the agent refuses once it has
			// read it, and nothing it would have asked or looked up
			// after (the reason, the items, their replacements) is in
			// the ground truth.
			goal.Target = t.sel
			p.outputs = append(p.outputs, record.Output{Goal: gi, Name: rule.Rule.Name, Value: v.Why})
			return p.keepRefusal(w, t, goal, "")
		}
	}
	if !refuse {
		checks, err := p.checks(w, t)
		if err != nil {
			return err
		}
		needs = append(needs, checks...)
	}
	goal.Target = t.sel
	a := &argState{plan: p, w: w, t: t, goal: &goal, user: userObj, args: map[string]any{}, revisable: map[string]string{},
		elems: map[string][]any{}, base: needs, refusing: refuse && len(w.Allows) > 0}
	for _, pm := range params {
		if err := a.fill(pm); err != nil {
			return err
		}
	}
	computeErr := w.Compute(p.ctx, p.st, a.args, t.key)
	if computeErr != nil && !(refuse && w.RefusedBy(computeErr.Error())) {
		return computeErr
	}
	a.keepComputable()
	needs = append(needs, a.needs...)
	if refuse && len(w.Allows) > 0 && computeErr == nil {
		// A computed argument the policy gives no value has refused
		// the request already (below), with no value for the rules.
		return p.refusedByRules(w, t, goal, a.args, needs)
	}
	if refuse {
		// The checks' reads only once the tool refuses: most targets tried
		// are not refused, and their reads would be spent for nothing. A
		// computed argument the policy gives no value is refused already.
		if computeErr != nil {
			return p.keepRefusal(w, t, goal, computeErr.Error())
		}
		why, err := p.toolRefusal(w, t, a.args)
		if err != nil {
			return err
		}
		return p.keepRefusal(w, t, goal, why)
	}
	if p.want > 0 && len(closure(p.actions, needs)) != p.want {
		return fmt.Errorf("write needs %d reads, want %d", len(closure(p.actions, needs)), p.want)
	}
	// After the reads are counted: the rules run the pack's Starlark,
	// and most goals that fail fail on their reads.
	if err := p.allowedByRules(w, &goal, a.args, t.sel.Label); err != nil {
		return err
	}
	for _, f := range w.Facts() {
		// A first value to change from was drawn before the rules
		// chose the fact (a reason): one that is the fact is no change.
		if alt, ok := a.revisable[f.Name]; ok && alt == goal.Slots[f.Name] {
			delete(a.revisable, f.Name)
		}
	}
	if p.fail && !p.failed && a.unavailable != nil {
		goal.UnavailableNew = a.unavailable
		p.failed = true
	}
	if p.fail && !p.failed {
		if first := a.failingChoice(); first != nil {
			goal.FailingItems = []record.Selector{*first}
			p.failed = true
		}
	}
	if p.fail && !p.failed {
		if first := a.failingSlot(); first != nil {
			goal.FailingSlots = first
			p.failed = true
		}
	}
	switch {
	case p.revise && !p.revised && len(a.revisable) > 0:
		keys := slices.Sorted(maps.Keys(a.revisable))
		k := keys[p.rng.IntN(len(keys))]
		goal.Revised = map[string]string{k: a.revisable[k]}
		goal.RevisedItems = nil
		p.revised = true
	case a.revisedChoice:
		p.revised = true
	default:
		goal.RevisedItems = nil
	}
	raw, err := tools.Marshal(a.args)
	if err != nil {
		return err
	}
	// The handler may change records or advance a counter before it
	// fails, and a goal built on it may still be rolled back: the state
	// before it (a fork shares the records) and its reads come back then.
	before := undo{st: p.st.Fork(), memo: p.memo}
	was := p.st.Hash()
	res := m.Kit.Exec(p.ctx, p.st, w.Name, string(raw))
	if res.Err {
		p.st, p.memo = before.st, before.memo
		return fmt.Errorf("%s fails: %s", w.Name, res.Output)
	}
	if p.st.Hash() == was {
		// The policy forbids a write that changes nothing (a member
		// added to a thread they are in): no task asks for one.
		p.st, p.memo = before.st, before.memo
		return fmt.Errorf("%s changes nothing on %s", w.Name, t.sel.Label)
	}
	p.undo = before
	p.memo = map[string]readResult{}
	p.call(gi, w.Name, a.args, needs)
	if t.key != "" {
		p.used[p.usedKey(t.sel.Collection, t.key)] = true
	}
	p.done = append(p.done, doneWrite{tool: w.Name, t: t})
	outs, err := m.OutputsOf(w, model.Scopes{Target: t.obj, Result: model.ResultValue(res), User: userObj, Elems: a.elems})
	if err != nil {
		return err
	}
	for _, o := range outs {
		p.outputs = append(p.outputs, record.Output{Goal: gi, Name: o.Name, Value: o.Value})
	}
	if len(goal.Slots) == 0 {
		goal.Slots = nil
	}
	p.goals = append(p.goals, goal)
	return nil
}

// checks makes the reads the policy needs on what the target points to
// (each flight's status before a cancellation), after the target's own.
func (p *gplan) checks(w *model.WriteModel, t *target) ([]int, error) {
	var out []int
	for _, c := range w.CheckCalls(t.obj) {
		i, v, ok := p.read(c.Name, c.Arguments, t.needs)
		if !ok {
			return nil, readFailure{fmt.Errorf("%s on %s fails: %s", c.Name, t.sel.Label, p.whyNot(c.Name, c.Arguments, v, ok))}
		}
		out = append(out, i)
	}
	return out, nil
}

// acceptedBy tells the targets on which the write, with the arguments
// its target and computed sources give, goes through; with refuse, those
// on which the tool refuses it for one of the pack's refusals.
func (p *gplan) acceptedBy(w *model.WriteModel, refuse bool) func(map[string]any) bool {
	return func(obj map[string]any) bool {
		accepted, refused := w.Accepts(p.ctx, p.m.Kit, p.st, obj)
		if refuse {
			return refused
		}
		return accepted
	}
}

// toolRefusal is the tool's error when it refuses the write on its
// target with one of the pack's refusals, run on a copy of the state.
func (p *gplan) toolRefusal(w *model.WriteModel, t *target, args map[string]any) (string, error) {
	raw, err := tools.Marshal(args)
	if err != nil {
		return "", err
	}
	res := p.m.Kit.Exec(p.ctx, p.st.Fork(), w.Name, string(raw))
	switch {
	case !res.Err:
		return "", fmt.Errorf("%s succeeds on %s", w.Name, t.sel.Label)
	case !w.RefusedBy(res.Output):
		return "", fmt.Errorf("%s fails on %s for a reason that is no refusal: %s", w.Name, t.sel.Label, res.Output)
	}
	return res.Output, nil
}

// keepRefusal keeps goal as a forbidden request, refused by the tool or
// a computed argument's function with the error refusal, or by its
// allow rules (refusal ""). A refusal's reason is recorded as the
// condition of the write's refusal rule, where it names one.
func (p *gplan) keepRefusal(w *model.WriteModel, t *target, goal record.Goal, refusal string) error {
	// What the policy needs read before the refusal is in the ground
	// truth: the agent must make those reads too (the checked rule).
	if _, err := p.checks(w, t); err != nil {
		return err
	}
	if w.RefusalRule != "" && refusal != "" {
		p.outputs = append(p.outputs, record.Output{Goal: len(p.goals), Name: w.RefusalRule, Value: model.RefusalReason(refusal)})
	}
	goal.Intent, goal.Kind = model.IntentRefusePrefix+goal.Intent, record.GoalRefuse
	goal.Revised, goal.RevisedItems = nil, nil
	if len(goal.Slots) == 0 {
		goal.Slots = nil
	}
	if t.key != "" {
		p.used[p.usedKey(t.sel.Collection, t.key)] = true
	}
	p.goals = append(p.goals, goal)
	return nil
}

// writeTarget finds what a write acts on, among the records fits allows.
func (p *gplan) writeTarget(w *model.WriteModel, mode string, needs []int, fits func(map[string]any) bool) (*target, error) {
	m := p.m
	if mode == modeFollow && w.TargetKind != model.TargetUser {
		// The record is the customer's already, named as before; it was
		// used by the write this one follows.
		if t := p.followed(w); t != nil && (fits == nil || fits(t.obj)) {
			return t, nil
		}
		return nil, fmt.Errorf("no record of the task's writes for %s to follow on", w.Name)
	}
	var t *target
	var err error
	switch w.TargetKind {
	case model.TargetColl:
		if mode == modeDescribed {
			t, err = p.described(w.Coll, fits)
		} else {
			t, err = p.byKey(w.Coll, fits)
		}
	case model.TargetSearch:
		size := 0
		if p.want > 0 {
			extra := len(closure(p.actions, needs))
			n := len(w.Search.Tools)
			if (p.want-extra) < n || (p.want-extra)%n != 0 {
				return nil, fmt.Errorf("a search by %s cannot need exactly %d reads", w.Name, p.want)
			}
			size = (p.want - extra) / n
		}
		t, err = p.search(w.Search, size)
	case model.TargetUser:
		if p.used[p.usedKey(m.Users.Coll.Name, p.user)] {
			return nil, errors.New("the account already has a change in this task")
		}
		t = &target{sel: record.Selector{Collection: m.Users.Coll.Name, Label: "my account"}, key: p.user, needs: p.auth()}
		// The agent reads the account to state what changes (old → new).
		if i, obj, uerr := p.userDetails(); uerr == nil {
			t.obj, t.needs = obj, append(t.needs, i)
		}
	default:
		t = &target{sel: record.Selector{Collection: w.Name, Label: ""}}
	}
	if err != nil {
		return nil, err
	}
	if t.key != "" && p.used[p.usedKey(t.sel.Collection, t.key)] {
		return nil, errors.New("target already used")
	}
	return t, nil
}

// argState fills one write goal's arguments.
type argState struct {
	plan      *gplan
	w         *model.WriteModel
	t         *target
	goal      *record.Goal
	user      map[string]any
	args      map[string]any
	revisable map[string]string
	needs     []int
	// elems holds, per pick, replace and choose argument, the records it
	// names, for the outputs computed from them.
	elems  map[string][]any
	picked map[string][]map[string]any
	likes  map[string]map[string]any
	// unavailable is the customer's first choice of replacements, one of
	// them an unavailable variant (Goal.UnavailableNew), nil for none.
	unavailable []record.Selector
	// revisedChoice is set when a choice has a first value the customer
	// changes their mind from.
	revisedChoice bool
	// base are the reads the write needs before its arguments (the
	// target's and the customer's).
	base []int
	// refusing holds a request its allow rules are to refuse: a choice
	// may be any of the customer's things (choose).
	refusing bool
}

// reads counts the reads the write needs so far.
func (a *argState) reads() int {
	return len(closure(a.plan.actions, slices.Concat(a.base, a.needs)))
}

func (a *argState) fill(pm *model.ParamModel) error {
	p := a.plan
	switch pm.Source {
	case model.SrcTargetKey:
		a.args[pm.Name] = model.Typed(pm.Schema, a.w.Coll.KeyText(a.t.key))
	case model.SrcTarget:
		v, ok := pm.TargetValue(a.t.obj)
		if !ok {
			return fmt.Errorf("target has no %s", pm.Path)
		}
		a.args[pm.Name] = v
	case model.SrcUserKey:
		a.args[pm.Name] = model.Typed(pm.Schema, p.user)
	case model.SrcUser:
		v, sel, err := p.userValue(pm, a.user)
		if err != nil {
			return err
		}
		if sel != nil {
			a.goal.Items = append(a.goal.Items, *sel)
		}
		a.args[pm.Name] = v
	case model.SrcSlot:
		text, alt, err := p.drawSlot(a.w, pm, a.t.obj)
		if err != nil {
			return err
		}
		a.goal.Slots[pm.Name] = text
		if alt != "" {
			a.revisable[pm.Name] = alt
		}
		a.args[pm.Name] = model.Typed(pm.Schema, text)
	case model.SrcConst:
		a.args[pm.Name] = pm.Const
	case model.SrcLike:
		return a.like(pm)
	case model.SrcPick:
		return a.pick(pm)
	case model.SrcReplace:
		return a.replace(pm)
	case model.SrcChoose:
		return a.choose(pm)
	}
	return nil
}

// keepComputable drops a first value a customer would change their mind
// from when the policy's function gives the write no value with it (one
// checked bag in total where the reservation has two): the agent could
// not propose it, so the customer never gets to change it.
func (a *argState) keepComputable() {
	if !a.w.Computes() {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(a.revisable)) {
		pm := a.w.Param(k)
		if pm == nil {
			continue
		}
		args := maps.Clone(a.args)
		args[k] = model.Typed(pm.Schema, a.revisable[k])
		if a.w.Compute(a.plan.ctx, a.plan.st, args, a.t.key) != nil {
			delete(a.revisable, k)
		}
	}
}

// like states a value drawn from another record, one record per group:
// a new address is another customer's whole address, never the current one.
func (a *argState) like(pm *model.ParamModel) error {
	p := a.plan
	if a.likes == nil {
		a.likes = map[string]map[string]any{}
	}
	coll, path, _ := strings.Cut(pm.Group, ".")
	cur, _ := model.ValueAt(a.t.obj, path)
	rec, ok := a.likes[pm.Group]
	if prev := p.likes[pm.Group]; !ok && prev != nil && !reflect.DeepEqual(prev, cur) {
		// A customer who moved gives every record the one new address.
		rec, ok = prev, true
		a.likes[pm.Group] = rec
	}
	if !ok {
		keys := p.m.Base.Keys(coll)
		for try := 0; try < 12 && rec == nil; try++ {
			v, _ := p.m.Base.Get(coll, keys[p.rng.IntN(len(keys))])
			obj, err := tools.ToObject(v)
			if err != nil {
				continue
			}
			if v, _ := model.ValueAt(obj, path); v != nil {
				if x, ok := v.(map[string]any); ok && !reflect.DeepEqual(x, cur) {
					rec = x
				}
			}
		}
		if rec == nil {
			return fmt.Errorf("no other %s to draw from", model.Words(path))
		}
		a.likes[pm.Group] = rec
		p.likes[pm.Group] = rec
	}
	v, ok := rec[pm.Path]
	if !ok {
		return fmt.Errorf("%s has no %s", pm.Group, pm.Path)
	}
	text := model.SlotText(v)
	a.goal.Slots[pm.Name] = text
	a.args[pm.Name] = model.Typed(pm.Schema, text)
	return nil
}

// pick names some of the target's sub-records, or of the customer's
// record, each so that it alone fits.
func (a *argState) pick(pm *model.ParamModel) error {
	p := a.plan
	pk := pm.Pick
	owner, whose := a.t.obj, "the target"
	if pk.User {
		if a.user == nil {
			i, obj, err := p.userDetails()
			if err != nil {
				return err
			}
			a.user = obj
			a.needs = append(a.needs, i)
		}
		owner, whose = a.user, "the customer"
	}
	v, _ := model.ValueAt(owner, pk.From)
	elems := model.Elements(v)
	lo, hi := pk.Min, pk.Max
	if pk.SameAs != "" {
		same, _ := model.ValueAt(a.t.obj, pk.SameAs)
		lo = len(model.Elements(same))
		hi = lo
	}
	if len(elems) < lo || lo == 0 {
		return fmt.Errorf("%s has %d %s, fewer than %d", whose, len(elems), model.Words(pk.From), max(lo, 1))
	}
	n := lo + p.rng.IntN(min(hi, len(elems))-lo+1)
	var ids []any
	var chosen []map[string]any
	for _, i := range p.rng.Perm(len(elems))[:n] {
		sel, err := model.ElementSelector(pm.Name, elems, i, pk.ID, pk.Describe, pk.Say, pk.Bare)
		if err != nil {
			return err
		}
		a.goal.Items = append(a.goal.Items, sel)
		ids = append(ids, pk.Value(elems[i]))
		chosen = append(chosen, elems[i])
	}
	if a.picked == nil {
		a.picked = map[string][]map[string]any{}
	}
	a.picked[pm.Name] = chosen
	a.elems[pm.Name] = asAny(chosen)
	a.args[pm.Name] = ids
	return nil
}

// replace draws, for each picked element, a candidate of its related
// record (read by the agent) that the customer describes.
func (a *argState) replace(pm *model.ParamModel) error {
	p := a.plan
	r := pm.Replace
	of := a.picked[r.Of]
	if of == nil {
		return fmt.Errorf("%s is filled before %s", pm.Name, r.Of)
	}
	var ids []any
	var chosen []map[string]any
	for _, e := range of {
		key := tools.Text(e[r.Via])
		ri, rv, ok := p.read(r.Coll.Get, p.m.GetArgs(r.Coll, key), a.t.needs)
		rel := p.m.RecordOf(r.Coll, key, rv)
		if !ok || rel == nil {
			return fmt.Errorf("%s %s cannot be read", r.Coll.Noun, key)
		}
		a.needs = append(a.needs, ri)
		cands := r.Candidates(rel, e)
		if len(cands) == 0 {
			return fmt.Errorf("no replacement for %s", tools.Text(e[r.ID]))
		}
		sel, j, err := p.replacementSelector(pm, cands, e)
		if err != nil {
			return err
		}
		if p.fail && !p.failed && a.unavailable == nil {
			if first, ok := p.unavailableSelector(pm, rel, e, cands); ok {
				a.unavailable = append(slices.Clone(a.goal.New), first)
			}
		}
		a.goal.New = append(a.goal.New, sel)
		if a.unavailable != nil && len(a.unavailable) < len(a.goal.New) {
			a.unavailable = append(a.unavailable, sel)
		}
		ids = append(ids, cands[j][r.ID])
		chosen = append(chosen, cands[j])
	}
	a.elems[pm.Name] = asAny(chosen)
	a.args[pm.Name] = ids
	return nil
}

// unavailableSelector describes, by all its attributes, a variant of
// the related record that is no candidate (not available) for the
// customer to name first, half the time there is one: the agent tells
// it apart from the candidates and says it is not available.
func (p *gplan) unavailableSelector(pm *model.ParamModel, rel, elem map[string]any, cands []map[string]any) (record.Selector, bool) {
	r := pm.Replace
	un := r.Unavailable(rel, elem)
	if len(un) == 0 || p.rng.IntN(2) == 0 {
		return record.Selector{}, false
	}
	for _, j := range p.rng.Perm(len(un)) {
		forms := r.ReplacementForms(un[j], elem)
		if len(forms) == 0 || forms[0].Pick != "" {
			continue
		}
		f := forms[0]
		f.Collection = pm.Name
		if _, err := tools.ResolveKey(f, cands, r.ID); err == nil {
			continue
		}
		if i, err := tools.ResolveKey(f, un, r.ID); err == nil && i == j {
			f.Label = r.ReplacementLabel(f, un[j])
			return f, true
		}
	}
	return record.Selector{}, false
}

func (p *gplan) replacementSelector(pm *model.ParamModel, cands []map[string]any, elem map[string]any) (record.Selector, int, error) {
	r := pm.Replace
	for _, j := range p.rng.Perm(len(cands)) {
		forms := r.ReplacementForms(cands[j], elem)
		p.rng.Shuffle(len(forms), func(x, y int) { forms[x], forms[y] = forms[y], forms[x] })
		for _, f := range forms {
			f.Collection = pm.Name
			if i, err := tools.ResolveKey(f, cands, r.ID); err == nil && i == j {
				f.Label = r.ReplacementLabel(f, cands[j])
				return f, j, nil
			}
		}
	}
	return record.Selector{}, -1, errors.New("no replacement can be told apart")
}

// choose picks one of the customer's things, or keeps the target's
// original one. A request the allow rules are to refuse may pick what
// Where and Other keep a granted write from (a refund to a card that is
// neither the original nor a gift card): the rules then decide.
func (a *argState) choose(pm *model.ParamModel) error {
	p := a.plan
	ch := pm.Choose
	def, hasDef := ch.DefaultValue(a.t.obj)
	if ch.Other && !hasDef && ch.Default != "" {
		return errors.New("the target names no current value to change")
	}
	keep := p.rng.IntN(2) == 0
	if p.revise && !p.revised && len(a.revisable) == 0 {
		keep = false // a customer who changes their mind chooses, then again
	}
	if p.want > 0 && a.user == nil {
		// Choosing one of the customer's things costs the read of their
		// record: keep the original when the write has its reads already,
		// choose when it lacks exactly that one.
		switch a.reads() {
		case p.want:
			keep = true
		case p.want - 1:
			keep = false
		}
	}
	if hasDef && !ch.Other && keep {
		a.goal.Slots[pm.Name] = ch.DefaultSay
		a.args[pm.Name] = def
		return nil
	}
	user := a.user
	if user == nil {
		i, obj, err := p.userDetails()
		if err != nil {
			return err
		}
		a.user, user = obj, obj
		a.needs = append(a.needs, i)
	}
	elems := ch.ChoiceElements(user)
	var opts []int
	for i, e := range elems {
		ok := ch.Allowed(e) || a.refusing
		if hasDef && tools.Text(e[ch.ID]) == tools.Text(def) {
			// The original is kept above, or must change (Other): a
			// request the rules refuse may still name it (a new payment
			// method that is the one the order is paid with).
			ok = a.refusing && ch.Other
		}
		if ok {
			opts = append(opts, i)
		}
	}
	if len(opts) == 0 {
		if hasDef && !ch.Other {
			a.goal.Slots[pm.Name] = ch.DefaultSay
			a.args[pm.Name] = def
			return nil
		}
		return fmt.Errorf("the customer has no %s to choose", model.Singular(model.Words(model.LastStep(ch.From))))
	}
	i := opts[p.rng.IntN(len(opts))]
	sel, err := ch.ChoiceSelector(pm.Name, elems, i)
	if err != nil {
		return err
	}
	a.goal.Items = append(a.goal.Items, sel)
	a.args[pm.Name] = elems[i][ch.ID]
	a.elems[pm.Name] = []any{elems[i]}
	if len(opts) > 1 && p.revise && !p.revised {
		// A first choice to change from, for a customer who changes
		// their mind: another of their things.
		for _, j := range p.rng.Perm(len(opts)) {
			if opts[j] == i {
				continue
			}
			if first, err := ch.ChoiceSelector(pm.Name, elems, opts[j]); err == nil {
				a.goal.RevisedItems = append(a.goal.RevisedItems, first)
				a.revisedChoice = true
				break
			}
		}
	}
	return nil
}

// failingChoice finds another of the customer's things for a choice
// argument on which the tool rejects the write, for a reason that is
// no refusal, and changes nothing (a gift card short of the amount): the
// customer names it first. nil when there is none, or when the customer's
// things were never read.
func (a *argState) failingChoice() *record.Selector {
	p := a.plan
	if a.user == nil {
		return nil
	}
	for _, pm := range a.w.Params {
		if pm.Source != model.SrcChoose {
			continue
		}
		ch := pm.Choose
		elems := ch.ChoiceElements(a.user)
		def, hasDef := ch.DefaultValue(a.t.obj)
		cur := tools.Text(pm.Chosen(a.args[pm.Name]))
		for _, j := range p.rng.Perm(len(elems)) {
			id := tools.Text(elems[j][ch.ID])
			if id == cur || !ch.Allowed(elems[j]) || hasDef && id == tools.Text(def) {
				continue
			}
			args := maps.Clone(a.args)
			args[pm.Name] = elems[j][ch.ID]
			if a.w.Compute(p.ctx, p.st, args, a.t.key) != nil {
				continue
			}
			raw, err := tools.Marshal(args)
			if err != nil {
				continue
			}
			st := p.st.Fork()
			was := st.Hash()
			res := p.m.Kit.Exec(p.ctx, st, a.w.Name, string(raw))
			if !res.Err || a.w.RefusedBy(res.Output) || st.Hash() != was {
				continue
			}
			if sel, err := ch.ChoiceSelector(pm.Name, elems, j); err == nil {
				return &sel
			}
		}
	}
	return nil
}

// failingSlot finds, for a value the customer states, a first one on
// which the tool rejects the write, for a reason that is no refusal and
// naming that value, and changes nothing (a name another record already
// has, for a create that needs one no other record has): the customer
// states it first. The values tried are the keys of the collections
// keyed by the argument's field, one drawn per collection: those a
// customer plausibly wants again (the same name), and the ones a tool
// that keeps keys unique turns down. nil when none fails; the plan's RNG
// is drawn only when a collection is so keyed, so a pack with none plans
// as it did.
func (a *argState) failingSlot() map[string]string {
	p := a.plan
	for _, pm := range a.w.Params {
		cur, ok := a.goal.Slots[pm.Name]
		if !ok || pm.Source != model.SrcSlot || pm.KeysOf != "" || a.w.GroupOf(pm.Name) != "" || pm.Schema["enum"] != nil {
			continue
		}
		if _, set := a.args[pm.Name]; !set {
			continue
		}
		field := pm.Path
		field = cmp.Or(field, pm.Name)
		var failing []string
		for _, c := range slices.Sorted(maps.Keys(p.m.Colls)) {
			coll := p.m.Colls[c]
			if !sameName(coll.Key, field) {
				continue
			}
			var keys []string
			for _, v := range p.m.FieldValues(c, coll.Key) {
				if t := model.SlotText(v); t != cur && t != "" && model.WithinBounds(pm.Schema, t) {
					keys = append(keys, t)
				}
			}
			keys = model.Choosable(keys)
			if len(keys) == 0 {
				continue
			}
			v := keys[p.rng.IntN(len(keys))]
			if a.failsOn(pm, v) {
				failing = append(failing, v)
			}
		}
		if len(failing) > 0 {
			return map[string]string{pm.Name: failing[p.rng.IntN(len(failing))]}
		}
	}
	return nil
}

// failsOn reports whether the write, with value v for slot pm and the
// goal's other arguments, fails in its tool for a reason that is no
// refusal, naming v, and leaves the state as it was: tried on a fork.
func (a *argState) failsOn(pm *model.ParamModel, v string) bool {
	p := a.plan
	args := maps.Clone(a.args)
	args[pm.Name] = model.Typed(pm.Schema, v)
	raw, err := tools.Marshal(args)
	if err != nil {
		return false
	}
	st := p.st.Fork()
	was := st.Hash()
	res := p.m.Kit.Exec(p.ctx, st, a.w.Name, string(raw))
	return res.Err && !a.w.RefusedBy(res.Output) && st.Hash() == was && model.NamedIn(res.Output, v)
}

// keyedSlot reports whether a value the customer states for the write
// is a field some collection is keyed by (a name), which failingSlot
// tries the keys of.
func (p *gplan) keyedSlot(w *model.WriteModel) bool {
	for _, pm := range w.Params {
		if pm.Source != model.SrcSlot || pm.KeysOf != "" || w.GroupOf(pm.Name) != "" || pm.Schema["enum"] != nil {
			continue
		}
		field := pm.Path
		field = cmp.Or(field, pm.Name)
		for _, c := range p.m.Colls {
			if sameName(c.Key, field) {
				return true
			}
		}
	}
	return false
}

// sameName reports whether two field names are one spelt two ways
// (phone_number, PhoneNumber).
func sameName(a, b string) bool {
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	return a != "" && norm(a) == norm(b)
}

func asAny(ms []map[string]any) []any {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}

// userValue takes a write argument from the customer's record; when the
// path holds several values (payment methods) the customer says which,
// by a description the agent resolves.
func (p *gplan) userValue(pm *model.ParamModel, user map[string]any) (any, *record.Selector, error) {
	if model.ParamType(pm.Schema) != "array" {
		if elems, field := model.UserChoices(user, pm.Path); elems != nil {
			i := p.rng.IntN(len(elems))
			sel, err := choiceSelector(pm, elems, i, field)
			if err != nil {
				return nil, nil, err
			}
			return elems[i][field], sel, nil
		}
	}
	v, ok := model.ValueAt(user, pm.Path)
	if !ok || v == nil {
		return nil, nil, fmt.Errorf("the user's record has no %s", pm.Path)
	}
	if l, isList := v.([]any); isList && model.ParamType(pm.Schema) != "array" {
		if len(l) != 1 {
			return nil, nil, fmt.Errorf("the user's %s holds %d values", pm.Path, len(l))
		}
		v = l[0]
	}
	return v, nil, nil
}

// choiceSelector describes element i among the customer's elements by
// the fewest attributes that single it out (its id as a last resort).
func choiceSelector(pm *model.ParamModel, elems []map[string]any, i int, field string) (*record.Selector, error) {
	prefix, _, _ := model.CutLast(pm.Path)
	noun := model.Singular(model.Words(model.LastStep(prefix)))
	var attrs []string
	for _, f := range slices.Sorted(maps.Keys(elems[i])) {
		if f == field {
			continue
		}
		switch elems[i][f].(type) {
		case string:
			if s := elems[i][f].(string); s != "" && len(s) <= 30 {
				attrs = append(attrs, f)
			}
		}
	}
	try := func(where map[string]string) *record.Selector {
		sel := record.Selector{Collection: pm.Name, Where: where}
		if j, err := tools.ResolveKey(sel, elems, field); err == nil && j == i {
			sel.Label = model.ChoiceLabel(noun, where)
			return &sel
		}
		return nil
	}
	for _, a := range attrs {
		if s := try(map[string]string{a: tools.Text(elems[i][a])}); s != nil {
			return s, nil
		}
	}
	for x, a := range attrs {
		for _, b := range attrs[x+1:] {
			if s := try(map[string]string{a: tools.Text(elems[i][a]), b: tools.Text(elems[i][b])}); s != nil {
				return s, nil
			}
		}
	}
	if s := try(map[string]string{field: tools.Text(elems[i][field])}); s != nil {
		return s, nil
	}
	return nil, fmt.Errorf("the user's %s cannot be told apart", noun)
}

// currentSlot is the value the target has now for a slot named as one of
// its fields (a cabin, a number of bags): no change, so neither the
// customer's choice nor a first one they revise is it ("" when the slot
// names no plain field of the target).
func currentSlot(pm *model.ParamModel, obj map[string]any) string {
	field := pm.Path
	field = cmp.Or(field, pm.Name)
	if obj == nil {
		return ""
	}
	v, ok := model.ValueAt(obj, field)
	if !ok {
		return ""
	}
	switch v.(type) {
	case map[string]any, []any:
		return ""
	}
	return model.SlotText(v)
}

// drawSlot draws the value a customer states for a parameter and, for a
// customer who changes their mind, a different first value.
func (p *gplan) drawSlot(w *model.WriteModel, pm *model.ParamModel, obj map[string]any) (string, string, error) {
	cur := currentSlot(pm, obj)
	var pool []string
	switch {
	case pm.KeysOf != "":
		// A record to add (a role to a member) is one of the named
		// collection's within the target's parents; one the target
		// holds already changes nothing, and the write is tried again
		// as for any slot.
		pool = p.m.KeysWithin(w, pm, obj)
		if len(pool) == 0 {
			return "", "", fmt.Errorf("no record of %s to add for %s", pm.KeysOf, pm.Name)
		}
	case len(pm.Choices) > 0:
		pool = pm.Choices
	case pm.Path != "" && w.TargetKind == model.TargetColl:
		// The records' values, where the write's own schema accepts
		// them: a record may hold what the write refuses (a channel's
		// bitrate of 28 where an update needs at least 8,000).
		for _, v := range p.m.FieldValues(w.Coll.Name, pm.Path) {
			if t := model.SlotText(v); model.WithinBounds(pm.Schema, t) {
				pool = append(pool, t)
			}
		}
		if len(pool) == 0 {
			pool = p.m.SchemaValues(p.rng, pm.Name, pm.Schema)
		}
	default:
		pool = p.m.SchemaValues(p.rng, pm.Name, pm.Schema)
	}
	var opts []string
	documents := 0
	for _, v := range model.Choosable(pool) {
		switch {
		case !sayable(v):
			documents++
		case v != cur || cur == "":
			opts = append(opts, v)
		}
	}
	if len(opts) == 0 && documents > 0 {
		// The value is a document (the spec's schema): one made up in
		// its place would be prose where a schema belongs.
		return "", "", fmt.Errorf("no value a customer would type for %s", pm.Name)
	}
	if len(opts) == 0 && len(pm.Choices) == 0 {
		// Every record holds the one value the spec's example gives (a
		// museum whose events are all in the "Computer Room"): a change
		// needs another, drawn from the parameter's type and name.
		vals := p.m.SchemaValues(p.rng, pm.Name, model.WithoutExamples(pm.Schema))
		if model.ParamType(pm.Schema) == "string" && pm.Schema["format"] == nil && pm.Schema["pattern"] == nil {
			vals = append(vals, model.InventedText(p.rng, pm.Name)...)
		}
		for _, v := range model.Choosable(vals) {
			if v != cur && model.WithinBounds(pm.Schema, v) && sayable(v) {
				opts = append(opts, v)
			}
		}
	}
	if len(opts) == 0 {
		return "", "", fmt.Errorf("no value for %s", pm.Name)
	}
	i := p.rng.IntN(len(opts))
	alt := ""
	if len(opts) > 1 {
		j := p.rng.IntN(len(opts) - 1)
		if j >= i {
			j++
		}
		alt = opts[j]
	}
	return opts[i], alt, nil
}

// longestSaid bounds a value a customer types into the chat: about a
// sentence.
const longestSaid = 120

// sayable reports whether a customer would type v into a chat: not a
// document (an Avro schema, a JSON body, on one line or several), which no
// customer recites and no agent can take from "the schema I sent".
// A write that needs one is not a task.
func sayable(v string) bool {
	t := strings.TrimSpace(v)
	return len(t) <= longestSaid && !strings.ContainsAny(t, "\n\r") && !strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "[")
}

// keyKnown reports whether a customer can name a record of c by its key
// and the agent read it: a customer knows the keys of its own records
// (an order number) and, without accounts, those of the records it
// works on; a catalogue's (a product id) it has never been told: it
// names the record, and the agent finds it in the list.
func keyKnown(m *model.Model, c *model.CollModel) bool {
	catalogue := m.Users != nil && c.Owner == "" && c.List != nil
	return c.Get != "" && (c.Owner == "" || m.Users != nil) && !catalogue
}

// buildFieldInform adds a question answered by a read: a field of a
// record or of the best search result.
func (p *gplan) buildFieldInform() error {
	m := p.m
	gi := len(p.goals)
	var opts []func() (*target, string, error)
	for _, name := range slices.Sorted(maps.Keys(m.Colls)) {
		c := m.Colls[name]
		if m.Users != nil && c == m.Users.Coll {
			continue
		}
		if keyKnown(m, c) {
			opts = append(opts, func() (*target, string, error) {
				t, err := p.byKey(c, nil)
				return t, "", err
			})
		}
		if c.List != nil {
			opts = append(opts, func() (*target, string, error) {
				t, err := p.described(c, nil)
				return t, "", err
			})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(m.Searches)) {
		s := m.Searches[name]
		opts = append(opts, func() (*target, string, error) {
			t, err := p.search(s, 0)
			if err != nil {
				return nil, "", err
			}
			_, field, _ := strings.Cut(t.sel.Pick, ":")
			return t, field, nil
		}, func() (*target, string, error) {
			t, err := p.search(s, 0)
			if err != nil {
				return nil, "", err
			}
			_, field, _ := strings.Cut(t.sel.Pick, ":")
			return t, field, nil
		})
	}
	if len(opts) == 0 {
		return errors.New("the pack has no record or search a customer can ask about")
	}
	t, field, err := opts[p.rng.IntN(len(opts))]()
	if err != nil {
		return err
	}
	if field == "" {
		field = p.informField(t)
	}
	if field == "" {
		return errors.New("nothing to ask about the record")
	}
	v, ok := model.ValueAt(t.obj, field)
	if !ok {
		return fmt.Errorf("no %s to tell", field)
	}
	val := model.FormatValue(v)
	if val == "" {
		return fmt.Errorf("empty %s", field)
	}
	if t.key != "" {
		p.used[p.usedKey(t.sel.Collection, t.key)] = true
	}
	p.goals = append(p.goals, record.Goal{Intent: model.IntentInformPrefix + field, Kind: record.GoalInform, Target: t.sel})
	p.outputs = append(p.outputs, record.Output{Goal: gi, Name: field, Value: val})
	return nil
}

// informField picks a field of the record to ask about: one the customer
// did not use to describe it.
func (p *gplan) informField(t *target) string {
	c := p.m.Colls[t.sel.Collection]
	if c == nil {
		return ""
	}
	var fields []string
	for _, f := range slices.Concat(c.Describe, c.Compare) {
		if _, in := t.sel.Where[f]; in || strings.HasSuffix(t.sel.Pick, ":"+f) || slices.Contains(fields, f) {
			continue
		}
		v, ok := model.ValueAt(t.obj, f)
		if !ok || v == nil {
			continue
		}
		switch v.(type) {
		case map[string]any, []any:
			continue
		}
		if s := model.FormatValue(v); s != "" && len(s) <= 40 {
			fields = append(fields, f)
		}
	}
	if len(fields) == 0 {
		return ""
	}
	return fields[p.rng.IntN(len(fields))]
}

// reasonFor says why the customer calls.
func reasonFor(m *model.Model, g record.Goal) string {
	if f, ok := strings.CutPrefix(g.Intent, model.IntentInformPrefix); ok {
		return "need to know the " + model.Words(model.LastStep(f)) + " of " + article(nounOf(m, g.Target))
	}
	if g.Intent == model.IntentTransfer {
		return "need to " + g.Slots["topic"]
	}
	tool, _ := model.ParseIntent(strings.TrimPrefix(g.Intent, model.IntentRefusePrefix))
	w := m.Write(tool)
	if w == nil {
		return "need help with your account"
	}
	t := ""
	if n := w.TargetNoun(); n != "" {
		t = article(n)
		if w.TargetKind == model.TargetUser {
			t = "your account"
		}
	}
	return "need to " + model.Plain(model.FillPhrase(w.VerbPhrase(), t, nil))
}

func nounOf(m *model.Model, sel record.Selector) string {
	if c := m.Colls[sel.Collection]; c != nil {
		return c.Noun
	}
	if s := m.Searches[sel.Collection]; s != nil {
		return s.Noun
	}
	return "record"
}

func article(noun string) string {
	if noun == "" {
		return ""
	}
	if strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// instruction renders a pack task as the user simulator's brief, in the
// second person as tau2-bench writes them.
func instruction(m *model.Model, bp *record.Blueprint) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are %s.", bp.Persona.Name)
	k := bp.Persona.Known
	if tool := k["identify"]; tool != "" {
		var ids []string
		for _, im := range m.Users.Identify {
			if im.Tool != tool {
				continue
			}
			for _, param := range im.Params {
				ids = append(ids, "your "+model.Words(param)+" is "+k[param])
			}
			break
		}
		if len(ids) > 0 {
			fmt.Fprintf(&b, " To identify yourself: %s.", model.JoinAnd(ids))
		}
	}
	fmt.Fprintf(&b, " You are contacting customer support because you %s.", strings.TrimSuffix(bp.Reason, "."))
	for i, g := range bp.Goals {
		b.WriteString(" ")
		planB := i+1 < len(bp.Goals) && bp.Goals[i+1].Instead
		s := goalSentence(m, g, planB)
		switch {
		case g.Instead:
			// A plan B, asked for at once with the request it stands in for.
			s = "In your first message, also say that if that cannot be done, " + strings.ToLower(s[:1]) + s[1:]
		case i > 0:
			s = "Also, " + strings.ToLower(s[:1]) + s[1:]
		}
		b.WriteString(s)
	}
	var outs []string
	for _, o := range bp.Outputs {
		if bp.Goals[o.Goal].Kind == record.GoalRefuse {
			// Why a request is refused is the agent's to tell, not a
			// figure the customer comes for.
			continue
		}
		if w := model.Words(o.Name); !slices.Contains(outs, w) {
			outs = append(outs, w)
		}
	}
	if len(outs) > 0 {
		fmt.Fprintf(&b, " Make sure you learn the %s.", strings.Join(outs, " and the "))
	}
	if len(bp.Unknown) > 0 {
		fmt.Fprintf(&b, " You do not know your %s: if asked for one, say so and give what you do know instead.", strings.Join(bp.Unknown, " or "))
	}
	return b.String()
}

// goalSentence states one goal of a pack task in plain words; planB says
// the customer has another request for the case this one is refused.
func goalSentence(m *model.Model, g record.Goal, planB bool) string {
	if f, ok := strings.CutPrefix(g.Intent, model.IntentInformPrefix); ok {
		about := g.Target.Label
		if len(g.Items) > 0 {
			about = g.Items[0].Label
		}
		return fmt.Sprintf("You want to know the %s of %s.", model.Words(model.LastStep(f)), secondPerson(about))
	}
	if g.Intent == model.IntentTransfer {
		return "You want to " + g.Slots["topic"] + "."
	}
	tool, _ := model.ParseIntent(strings.TrimPrefix(g.Intent, model.IntentRefusePrefix))
	w := m.Write(tool)
	if w == nil {
		return "You want help with " + secondPerson(g.Target.Label) + "."
	}
	var b strings.Builder
	want := "You want to "
	if g.Instead {
		want = "You want instead to "
	}
	b.WriteString(want + model.Plain(model.FillPhrase(w.VerbPhrase(), secondPerson(g.Target.Label), g.Slots)) + ".")
	groups := map[string][]string{}
	for _, k := range slices.Sorted(maps.Keys(g.Slots)) {
		if strings.Contains(w.VerbPhrase(), "<"+k+">") {
			continue
		}
		if grp := w.GroupOf(k); grp != "" {
			groups[grp] = append(groups[grp], k)
			continue
		}
		if said := model.SaySlot(w.Param(k), g.Slots[k]); said != "" {
			fmt.Fprintf(&b, " You want %s.", said)
			continue
		}
		v := g.Slots[k]
		if p := w.Param(k); p != nil && len(p.Choices) > 0 {
			// One of a few values, said as words: "change of plan".
			v = model.ValueWords(v)
		}
		fmt.Fprintf(&b, " The %s should be %s.", model.ArgWords(k), v)
	}
	for _, grp := range slices.Sorted(maps.Keys(groups)) {
		fmt.Fprintf(&b, " The new %s is %s.", model.Words(model.LastStep(grp)), model.GroupText(w, grp, g.Slots))
	}
	writeChoices(&b, "For the %s, use %s.", g.Items)
	writeChoices(&b, "Replace them with %[2]s, in that order (the %[1]s).", g.New)
	for _, k := range slices.Sorted(maps.Keys(g.Revised)) {
		fmt.Fprintf(&b, " At first you ask for %s as the %s, then change your mind.", g.Revised[k], model.ArgWords(k))
	}
	for _, it := range g.RevisedItems {
		fmt.Fprintf(&b, " At first you ask for %s as the %s, then change your mind.", secondPerson(it.Label), model.ArgWords(it.Collection))
	}
	for _, it := range g.FailingItems {
		fmt.Fprintf(&b, " At first you offer %s as the %s; when the agent says it cannot be used, offer the one above.", secondPerson(it.Label), model.ArgWords(it.Collection))
	}
	for _, k := range slices.Sorted(maps.Keys(g.FailingSlots)) {
		fmt.Fprintf(&b, " At first you ask for %s as the %s; when the agent says it did not go through, ask for %s instead.", g.FailingSlots[k], model.ArgWords(k), g.Slots[k])
	}
	if len(g.UnavailableNew) > 0 {
		var first []string
		for _, it := range g.UnavailableNew {
			first = append(first, it.Label)
		}
		fmt.Fprintf(&b, " At first you ask for %s as the replacement; when the agent says one is not available, ask for the replacements above.", model.JoinAnd(first))
	}
	switch {
	case g.Kind == record.GoalRefuse && planB:
		// With a plan B the customer does not plead.
		b.WriteString(" If the agent says it cannot be done, accept it: you have another request for that case.")
	case g.Kind == record.GoalRefuse:
		b.WriteString(" If the agent says it cannot be done, ask once for an exception; if it still refuses, accept it.")
	}
	return b.String()
}

// writeChoices states a goal's choices per argument, in order.
func writeChoices(b *strings.Builder, format string, sels []record.Selector) {
	var order []string
	by := map[string][]string{}
	for _, it := range sels {
		if _, seen := by[it.Collection]; !seen {
			order = append(order, it.Collection)
		}
		by[it.Collection] = append(by[it.Collection], secondPerson(it.Label))
	}
	for _, c := range order {
		b.WriteString(" " + fmt.Sprintf(format, model.ArgWords(c), model.JoinAnd(by[c])))
	}
}

// secondPerson turns the customer's words about their things into the
// brief's ("my reservation" → "your reservation").
func secondPerson(label string) string {
	if rest, ok := strings.CutPrefix(label, "my "); ok {
		return "your " + rest
	}
	return label
}
