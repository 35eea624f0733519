package blueprints_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
	"github.com/synth-data/synth/usersim"
)

// defaultSpec is close to what `synth run` uses by default (even write
// weights, so that every write count is well represented).
func defaultSpec() blueprints.Spec {
	return blueprints.Spec{
		Seed: 1, Writes: blueprints.Range{Min: 0, Max: 5}, Reads: blueprints.Range{Min: 2, Max: 7},
		Behaviors: usersim.Profiles(), Validation: 0.05, Test: 0.05,
	}
}

func loadDomain(t testing.TB) *domains.Domain {
	t.Helper()
	d, err := domains.Load("retail", 1)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// generate makes blueprints [0, n) with two workers sharing one generator
// (the generator is documented as safe for concurrent use).
func generate(t testing.TB, d *domains.Domain, spec blueprints.Spec, n int) []*record.Blueprint {
	t.Helper()
	g, err := d.Generator(spec)
	if err != nil {
		t.Fatal(err)
	}
	return generateWith(t, g, n)
}

func generateWith(t testing.TB, g blueprints.Generator, n int) []*record.Blueprint {
	t.Helper()
	bps := make([]*record.Blueprint, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	const workers = 2
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				bps[i], errs[i] = g.Generate(context.Background(), i)
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("blueprint %d: %v", i, err)
		}
	}
	return bps
}

var (
	defaultOnce sync.Once
	defaultBPs  []*record.Blueprint
	defaultDom  *domains.Domain
	defaultGen  blueprints.Generator
)

// nDefault is 1000 blueprints; the race detector makes generation ~5x
// slower, so race runs check the first 250 (the allocator's spread is
// exact for any prefix, so every check keeps its tolerance).
var nDefault = map[bool]int{false: 1000, true: 250}[raceEnabled]

// defaultBlueprints generates the default blueprints once for all tests.
func defaultBlueprints(t *testing.T) (*domains.Domain, []*record.Blueprint) {
	t.Helper()
	defaultOnce.Do(func() {
		defaultDom = loadDomain(t)
		g, err := defaultDom.Generator(defaultSpec())
		if err != nil {
			t.Fatal(err)
		}
		defaultGen = g
		defaultBPs = generateWith(t, g, nDefault)
	})
	if defaultBPs == nil {
		t.Fatal("generation failed in an earlier test")
	}
	return defaultDom, defaultBPs
}

func TestRetailBlueprintsControls(t *testing.T) {
	d, bps := defaultBlueprints(t)
	spec := defaultSpec()
	for _, bp := range bps {
		checkControls(t, d, spec, bp)
	}
}

// checkControls checks the intensity bookkeeping of one blueprint.
func checkControls(t *testing.T, d *domains.Domain, spec blueprints.Spec, bp *record.Blueprint) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("blueprint %d (%s): %s", bp.Index, bp.Behavior, fmt.Sprintf(format, args...))
	}
	if !spec.Writes.Contains(bp.NWrites) {
		fail("n_writes %d outside %v", bp.NWrites, spec.Writes)
	}
	if len(bp.Evidence) != bp.NWrites {
		fail("%d evidence values for %d writes", len(bp.Evidence), bp.NWrites)
	}
	for k, e := range bp.Evidence {
		if !spec.Reads.Contains(e) {
			fail("write %d needs %d reads, outside %v", k, e, spec.Reads)
		}
	}
	writes, reads := 0, 0
	for i, a := range bp.Actions {
		if kind := d.Tools.Kind(a.Tool); kind != a.Kind {
			fail("action %d %s has kind %q, the tool's is %q", i, a.Tool, a.Kind, kind)
		}
		for _, n := range a.Needs {
			if n < 0 || n >= i || bp.Actions[n].Kind != record.KindRead {
				fail("action %d needs action %d, which is not an earlier read", i, n)
			}
		}
		if !slices.IsSorted(a.Needs) {
			fail("action %d needs are not sorted: %v", i, a.Needs)
		}
		if a.Goal < -1 || a.Goal >= len(bp.Goals) {
			fail("action %d belongs to goal %d of %d", i, a.Goal, len(bp.Goals))
		}
		switch a.Kind {
		case record.KindWrite:
			if writes < len(bp.Evidence) && len(a.Needs) != bp.Evidence[writes] {
				fail("write %d (%s) needs %d reads but its evidence is %d", writes, a.Tool, len(a.Needs), bp.Evidence[writes])
			}
			if a.Goal < 0 || bp.Goals[a.Goal].Kind != record.GoalWrite {
				fail("write %d (%s) does not serve a write goal", writes, a.Tool)
			}
			writes++
		case record.KindRead:
			reads++
		}
	}
	if writes != bp.NWrites {
		fail("%d write actions, n_writes %d", writes, bp.NWrites)
	}
	if reads != bp.NReads {
		fail("%d read actions, n_reads %d", reads, bp.NReads)
	}
	wantGoals := 0
	for _, g := range bp.Goals {
		if g.Kind == record.GoalWrite {
			wantGoals++
		}
	}
	if wantGoals != bp.NWrites {
		fail("%d write goals for %d writes", wantGoals, bp.NWrites)
	}
	if len(bp.Goals) == 0 {
		fail("no goals")
	}
	for _, o := range bp.Outputs {
		if o.Goal < 0 || o.Goal >= len(bp.Goals) || o.Value == "" {
			fail("output %+v does not belong to a goal", o)
		}
	}
	if !slices.Contains(spec.Behaviors, bp.Behavior) {
		fail("behaviour %q not requested", bp.Behavior)
	}
	if bp.Behavior == usersim.ChangesMind {
		revised := false
		for _, g := range bp.Goals {
			revised = revised || len(g.Revised) > 0
		}
		if !revised {
			fail("changes_mind without a revisable goal")
		}
	}
	if bp.Domain != "retail" || bp.Seed != spec.Seed || bp.ID == "" || bp.Instruction == "" || bp.Reason == "" || bp.StateHash == "" {
		fail("missing metadata: %+v", bp)
	}
	if !slices.Contains([]string{"train", "validation", "test"}, bp.Split) {
		fail("split %q", bp.Split)
	}
}

func TestRetailBlueprintsExecute(t *testing.T) {
	d, bps := defaultBlueprints(t)
	ctx := context.Background()
	for _, bp := range bps {
		st := d.Base.NewState()
		hash, err := blueprints.Execute(ctx, d.Tools, st, bp.Actions)
		if err != nil {
			t.Errorf("blueprint %d: %v", bp.Index, err)
			continue
		}
		if hash != bp.StateHash {
			t.Errorf("blueprint %d: ground truth executes to %s, recorded %s", bp.Index, hash, bp.StateHash)
		}
		// Replaying only the writes (as the verifier does) reaches the same state.
		var writes []record.Action
		for _, a := range bp.Actions {
			if a.Kind == record.KindWrite {
				writes = append(writes, a)
			}
		}
		if h, err := blueprints.Execute(ctx, d.Tools, d.Base.NewState(), writes); err != nil || h != bp.StateHash {
			t.Errorf("blueprint %d: the writes alone replay to %s (%v), want %s", bp.Index, h, err, bp.StateHash)
		}
		if (bp.NWrites == 0) != (bp.StateHash == d.Base.Hash()) {
			t.Errorf("blueprint %d: %d writes, but state changed = %v", bp.Index, bp.NWrites, bp.StateHash != d.Base.Hash())
		}
	}
}

func TestRetailBlueprintsIdentifiable(t *testing.T) {
	d, bps := defaultBlueprints(t)
	for _, bp := range bps {
		checkIdentifiable(t, d, bp)
	}
}

var (
	objMu    sync.Mutex
	objCache = map[*domains.Domain]map[string]map[string]any{}
)

// object returns a base record as a generic object (cached: base records
// never change).
func object(t *testing.T, d *domains.Domain, coll, id string) map[string]any {
	t.Helper()
	objMu.Lock()
	defer objMu.Unlock()
	c := objCache[d]
	if c == nil {
		c = map[string]map[string]any{}
		objCache[d] = c
	}
	if m, ok := c[coll+"/"+id]; ok {
		return m
	}
	v, ok := d.Base.Get(coll, id)
	if !ok {
		return nil
	}
	m, err := tools.ToObject(v)
	if err != nil {
		t.Fatal(err)
	}
	c[coll+"/"+id] = m
	return m
}

// userOf runs the blueprint's authentication on a fresh state.
func userOf(t *testing.T, d *domains.Domain, bp *record.Blueprint) string {
	t.Helper()
	for _, a := range bp.Actions {
		if strings.HasPrefix(a.Tool, "find_user_id_by_") {
			res := d.Tools.Call(context.Background(), d.Base.NewState(), a.Tool, string(a.Arguments))
			if res.Err {
				t.Fatalf("blueprint %d: %s fails: %s", bp.Index, a.Tool, res.Output)
			}
			return strings.Trim(res.Output, `" `)
		}
	}
	return ""
}

func argsOf(t *testing.T, a record.Action) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.Arguments, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func strs(v any) []string {
	l, _ := v.([]any)
	out := make([]string, len(l))
	for i, x := range l {
		out[i] = tools.Text(x)
	}
	return out
}

func variantsOf(t *testing.T, d *domains.Domain, productID string) []map[string]any {
	t.Helper()
	prod := object(t, d, "products", productID)
	vs, _ := prod["variants"].(map[string]any)
	keys := make([]string, 0, len(vs))
	for k := range vs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]map[string]any, len(keys))
	for i, k := range keys {
		out[i] = vs[k].(map[string]any)
	}
	return out
}

func money(x float64) string { return fmt.Sprintf("$%.2f", math.Round(x*100)/100) }

// checkIdentifiable resolves every selector of a blueprint the way an
// agent would (over what the tools return) and checks that exactly one
// entity qualifies, and that it is the one the ground truth acts on.
func checkIdentifiable(t *testing.T, d *domains.Domain, bp *record.Blueprint) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("blueprint %d: %s", bp.Index, fmt.Sprintf(format, args...))
	}
	uid := userOf(t, d, bp)
	if uid == "" {
		fail("no authentication action")
		return
	}
	user := object(t, d, "users", uid)
	var orders []map[string]any
	for _, id := range strs(user["orders"]) {
		orders = append(orders, object(t, d, "orders", id))
	}
	// The persona's identity is the user's.
	k := bp.Persona.Known
	if k["email"] != "" && k["email"] != user["email"] {
		fail("persona email %q is not the user's %v", k["email"], user["email"])
	}
	if k["zip"] != "" && k["zip"] != tools.Text(tools.Field(user, "address.zip")[0]) {
		fail("persona zip %q is not the user's", k["zip"])
	}
	writeOf := map[int]map[string]any{}
	for _, a := range bp.Actions {
		if a.Kind == record.KindWrite {
			writeOf[a.Goal] = argsOf(t, a)
		}
	}
	outputOf := map[int]string{}
	for _, o := range bp.Outputs {
		outputOf[o.Goal] = o.Value
	}
	for gi, g := range bp.Goals {
		w := writeOf[gi]
		if (g.Kind == record.GoalWrite) != (w != nil) {
			fail("goal %d (%s): kind %s but write %v", gi, g.Intent, g.Kind, w)
			continue
		}
		switch g.Target.Collection {
		case "orders":
			var ord map[string]any
			if g.Target.ID != "" {
				ord = object(t, d, "orders", g.Target.ID)
				if ord == nil || ord["user_id"] != uid {
					fail("goal %d: order %s is not the user's", gi, g.Target.ID)
					continue
				}
			} else {
				i, err := tools.Resolve(g.Target, orders)
				if err != nil {
					fail("goal %d (%s): %q is not identifiable among the user's %d orders: %v", gi, g.Intent, g.Target.Label, len(orders), err)
					continue
				}
				ord = orders[i]
			}
			oid := tools.Text(ord["order_id"])
			if w != nil && w["order_id"] != oid {
				fail("goal %d (%s): %q resolves to %s but the write acts on %v", gi, g.Intent, g.Target.Label, oid, w["order_id"])
			}
			status := tools.Text(ord["status"])
			switch g.Intent {
			case blueprints.IntentCancelRefused:
				if status == "pending" {
					fail("goal %d: a refused cancellation of a pending order", gi)
				}
			case blueprints.IntentReturnRefused:
				if status == "delivered" {
					fail("goal %d: a refused return of a delivered order", gi)
				}
			case blueprints.IntentOrderStatus:
				if outputOf[gi] != status {
					fail("goal %d: output %q, status %q", gi, outputOf[gi], status)
				}
			case blueprints.IntentOrderTotal:
				total := 0.0
				for _, p := range tools.Field(ord, "items.price") {
					total += p.(float64)
				}
				if outputOf[gi] != money(total) {
					fail("goal %d: output %q, total %s", gi, outputOf[gi], money(total))
				}
			case blueprints.IntentCancel:
				if w["reason"] != g.Slots["reason"] {
					fail("goal %d: cancel reason %v, slot %q", gi, w["reason"], g.Slots["reason"])
				}
			}
			checkItems(t, d, bp, gi, g, ord, w)
		case "variants":
			var pid string
			for _, id := range d.Base.Keys("products") {
				if strings.EqualFold(tools.Text(object(t, d, "products", id)["name"]), g.Slots["product"]) {
					pid = id
				}
			}
			vars := variantsOf(t, d, pid)
			i, err := tools.Resolve(g.Target, vars)
			if err != nil {
				fail("goal %d: %q is not identifiable in product %q: %v", gi, g.Target.Label, g.Slots["product"], err)
				continue
			}
			if want := money(vars[i]["price"].(float64)); outputOf[gi] != want {
				fail("goal %d: output %q, the variant costs %s", gi, outputOf[gi], want)
			}
		case "users":
			if w != nil {
				if w["user_id"] != uid {
					fail("goal %d: user write on %v, authenticated %s", gi, w["user_id"], uid)
				}
				for _, f := range []string{"address1", "address2", "city", "state", "country", "zip"} {
					if tools.Text(w[f]) != g.Slots[f] {
						fail("goal %d: %s %v, slot %q", gi, f, w[f], g.Slots[f])
					}
				}
			}
			if g.Kind == record.GoalTransfer && g.Slots["topic"] == "" {
				fail("goal %d: a transfer without a topic", gi)
			}
		default:
			fail("goal %d: target collection %q", gi, g.Target.Collection)
		}
	}
}

// checkItems resolves a goal's items within its order and their
// replacements within each item's product.
func checkItems(t *testing.T, d *domains.Domain, bp *record.Blueprint, gi int, g record.Goal, ord map[string]any, w map[string]any) {
	t.Helper()
	list, _ := ord["items"].([]any)
	var items []map[string]any
	for _, it := range list {
		items = append(items, it.(map[string]any))
	}
	var got, gotNew []string
	var products []string
	for _, s := range g.Items {
		i, err := tools.Resolve(s, items)
		if err != nil {
			t.Errorf("blueprint %d goal %d: item %q is not identifiable in order %v: %v", bp.Index, gi, s.Label, ord["order_id"], err)
			return
		}
		got = append(got, tools.Text(items[i]["item_id"]))
		products = append(products, tools.Text(items[i]["product_id"]))
	}
	if len(g.New) > 0 && len(g.New) != len(g.Items) {
		t.Errorf("blueprint %d goal %d: %d replacements for %d items", bp.Index, gi, len(g.New), len(g.Items))
		return
	}
	for k, s := range g.New {
		vars := variantsOf(t, d, products[k])
		i, err := tools.Resolve(s, vars)
		if err != nil {
			t.Errorf("blueprint %d goal %d: replacement %q is not identifiable: %v", bp.Index, gi, s.Label, err)
			return
		}
		if vars[i]["available"] != true {
			t.Errorf("blueprint %d goal %d: replacement %q is unavailable", bp.Index, gi, s.Label)
		}
		gotNew = append(gotNew, tools.Text(vars[i]["item_id"]))
	}
	if w == nil {
		return
	}
	if len(g.Items) > 0 && !slices.Equal(got, strs(w["item_ids"])) {
		t.Errorf("blueprint %d goal %d: items resolve to %v, the write uses %v", bp.Index, gi, got, w["item_ids"])
	}
	if len(g.New) > 0 && !slices.Equal(gotNew, strs(w["new_item_ids"])) {
		t.Errorf("blueprint %d goal %d: replacements resolve to %v, the write uses %v", bp.Index, gi, gotNew, w["new_item_ids"])
	}
}

// The write control is exact: its values are spread by the allocator and
// the generator never gives up on one.
func TestRetailBlueprintsDistribution(t *testing.T) {
	_, bps := defaultBlueprints(t)
	spec := defaultSpec()
	writes := map[int]int{}
	reads := map[int]int{}
	behav := map[string]int{}
	splits := map[string]int{}
	for _, bp := range bps {
		writes[bp.NWrites]++
		for _, e := range bp.Evidence {
			reads[e]++
		}
		behav[bp.Behavior]++
		splits[bp.Split]++
	}
	nw := spec.Writes.Max - spec.Writes.Min + 1
	for w := spec.Writes.Min; w <= spec.Writes.Max; w++ {
		if want := float64(nDefault) / float64(nw); math.Abs(float64(writes[w])-want) > 2 {
			t.Errorf("%d blueprints with %d writes, want %.1f ± 2", writes[w], w, want)
		}
	}
	// Evidence levels may move to a neighbour when a pair is rare, but
	// every level of the range is reached.
	for e := spec.Reads.Min; e <= spec.Reads.Max; e++ {
		if reads[e] == 0 {
			t.Errorf("no write needs %d reads (distribution %v)", e, reads)
		}
	}
	for _, b := range spec.Behaviors {
		if behav[b] < nDefault/len(spec.Behaviors)/2 {
			t.Errorf("behaviour %s: %d blueprints (distribution %v)", b, behav[b], behav)
		}
	}
	if splits["validation"] == 0 || splits["test"] == 0 || splits["train"] < nDefault*8/10 {
		t.Errorf("splits %v", splits)
	}
	t.Logf("writes %v, evidence %v, behaviours %v, splits %v", writes, reads, behav, splits)
}

// DESIGN.md: write and read intensity "are controls with exact, requested
// distributions". Under the default write mix (tau2's) every level of the
// default reads range 2-7 gets its share of writes. (With an even write
// mix, 4- and 5-write tasks cannot have every write at exactly 5 reads —
// a user with 3 orders has too few targets — so those tasks move to the
// nearest feasible level, and per-write shares spread less evenly.)
func TestRetailReadDistribution(t *testing.T) {
	d := loadDomain(t)
	spec := defaultSpec()
	spec.WriteWeights = []float64{10, 60, 23, 15, 5, 1}
	g, err := d.Generator(spec)
	if err != nil {
		t.Fatal(err)
	}
	n := 600
	if raceEnabled {
		n = 200
	}
	c := map[int]int{}
	total := 0
	for _, bp := range generateWith(t, g, n) {
		for _, e := range bp.Evidence {
			c[e]++
			total++
		}
	}
	levels := spec.Reads.Max - spec.Reads.Min + 1
	tol := 0.03
	if raceEnabled {
		tol = 0.05
	}
	for e := spec.Reads.Min; e <= spec.Reads.Max; e++ {
		if got := float64(c[e]) / float64(total); math.Abs(got-1/float64(levels)) > tol {
			t.Errorf("%.1f%% of writes need %d reads, want %.1f%% ± %.0f", 100*got, e, 100/float64(levels), 100*tol)
		}
	}
}

// Weighted write counts follow the weights.
func TestRetailBlueprintsWriteWeights(t *testing.T) {
	d := loadDomain(t)
	spec := defaultSpec()
	spec.WriteWeights = []float64{10, 60, 23, 15, 5, 1}
	n := map[bool]int{false: 120, true: 60}[raceEnabled]
	bps := generate(t, d, spec, n)
	c := map[int]int{}
	for _, bp := range bps {
		c[bp.NWrites]++
	}
	for w, wt := range spec.WriteWeights {
		if want := float64(n) * wt / 114; math.Abs(float64(c[w])-want) > 2 {
			t.Errorf("%d blueprints with %d writes, want %.1f ± 2", c[w], w, want)
		}
	}
}

// Generating an index twice, with fresh domains and generators, gives
// the same blueprint: output does not depend on workers or order.
func TestRetailBlueprintsDeterministic(t *testing.T) {
	_, bps := defaultBlueprints(t)
	d := loadDomain(t)
	g, err := d.Generator(defaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	// Backwards and sparse, unlike the shared two-worker run.
	for _, i := range []int{nDefault - 1, nDefault / 2, 37, 36, 1, 0, 123, nDefault - 2} {
		a, err := g.Generate(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(bps[i])
		if string(ja) != string(jb) {
			t.Errorf("blueprint %d differs between generators:\n%s\n%s", i, ja, jb)
		}
		again, _ := g.Generate(context.Background(), i)
		if jc, _ := json.Marshal(again); string(jc) != string(ja) {
			t.Errorf("blueprint %d differs on a second call", i)
		}
	}
}

func TestRetailBlueprintsHighReads(t *testing.T) {
	d := loadDomain(t)
	spec := defaultSpec()
	spec.Reads = blueprints.Range{Min: 6, Max: 10}
	bps := generate(t, d, spec, map[bool]int{false: 100, true: 50}[raceEnabled])
	writes := 0
	for _, bp := range bps {
		checkControls(t, d, spec, bp)
		checkIdentifiable(t, d, bp)
		for k, e := range bp.Evidence {
			if e < 6 {
				t.Errorf("blueprint %d: write %d needs only %d reads", bp.Index, k, e)
			}
		}
		writes += bp.NWrites
	}
	if writes == 0 {
		t.Error("no writes at all")
	}
}

func TestRetailInfeasibleControls(t *testing.T) {
	d := loadDomain(t)
	r := func(a, b int) blueprints.Range { return blueprints.Range{Min: a, Max: b} }
	cases := []struct {
		name   string
		modify func(*blueprints.Spec)
		want   []string // every one must appear in the error
	}{
		{"reads beyond the busiest user", func(s *blueprints.Spec) { s.Reads = r(50, 60) }, []string{"--reads", "50-60"}},
		{"too many writes", func(s *blueprints.Spec) { s.Writes = r(0, 9) }, []string{"--writes", "0-9"}},
		{"writes without reads", func(s *blueprints.Spec) { s.Writes = r(1, 2); s.Reads = r(0, 0) }, []string{"--reads"}},
		{"several writes with one read", func(s *blueprints.Spec) { s.Writes = r(2, 3); s.Reads = r(1, 1) }, []string{"--reads"}},
		{"write weights of the wrong length", func(s *blueprints.Spec) { s.WriteWeights = []float64{1, 2} }, []string{"--writes", "weights"}},
		{"zero read weights", func(s *blueprints.Spec) { s.ReadWeights = []float64{0, 0, 0, 0, 0, 0} }, []string{"--reads", "zero"}},
		{"no behaviours", func(s *blueprints.Spec) { s.Behaviors = nil }, []string{"behaviour"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := defaultSpec()
			tc.modify(&spec)
			_, err := d.Generator(spec)
			if err == nil {
				t.Fatal("the generator accepted infeasible controls")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
	// Feasible edges are accepted.
	for _, s := range []struct{ w, r blueprints.Range }{{r(1, 1), r(2, 2)}, {r(0, 5), r(2, 17)}} {
		spec := defaultSpec()
		spec.Writes, spec.Reads = s.w, s.r
		if _, err := d.Generator(spec); err != nil {
			t.Errorf("writes %v reads %v: %v", s.w, s.r, err)
		}
	}
}

// Library callers build Specs without ParseRange; an invalid range must
// be an error naming the flag, not a panic.
func TestRetailInvalidRangesAreErrors(t *testing.T) {
	d := loadDomain(t)
	for _, w := range []blueprints.Range{{Min: 3, Max: 1}, {Min: -1, Max: 1}} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("writes %v: panic %v", w, r)
				}
			}()
			spec := defaultSpec()
			spec.Writes = w
			if _, err := d.Generator(spec); err == nil || !strings.Contains(err.Error(), "--writes") {
				t.Errorf("writes %v: error %v, want one naming --writes", w, err)
			}
		}()
	}
}

// A behaviour list may start with (or consist of) changes_mind while the
// write range includes 0: blueprints without writes use another profile.
func TestRetailChangesMindFirst(t *testing.T) {
	d := loadDomain(t)
	spec := defaultSpec()
	spec.Behaviors = []string{usersim.ChangesMind, usersim.Upfront}
	g, err := d.Generator(spec)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if _, err := g.Generate(context.Background(), i); err != nil {
			t.Error(err)
		}
	}
}

func TestRetailGenerateCancelled(t *testing.T) {
	defaultBlueprints(t)
	g := defaultGen
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.Generate(ctx, 0); err == nil {
		t.Error("Generate ignored a cancelled context")
	}
}
