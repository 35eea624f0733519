package blueprints

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/synth-data/synth/domains/airline"
	"github.com/synth-data/synth/domains/retail"
	"github.com/synth-data/synth/domains/tau2"
	"github.com/synth-data/synth/internal/testpacks"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

var allProfiles = []string{"upfront", "minimal", "piecemeal", "verbose", "impatient", "confused", "changes_mind", "typos"}

// testModels loads each test pack once: the library (identify returns a
// record, loans listed whole, a book search) and catalog (no users) test
// packs, the scaffold of synth domain init, airline, and a pack built
// in Go.
var testModels = sync.OnceValues(func() (map[string]*model.Model, error) {
	ctx := context.Background()
	out := map[string]*model.Model{}
	load := func(name string, p *pack.Pack, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		m, err := model.NewModel(ctx, p)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		out[name] = m
		return nil
	}
	for _, name := range []string{"library", "catalog"} {
		p, err := testpacks.Load(ctx, name)
		if err := load(name, p, err); err != nil {
			return nil, err
		}
	}
	dir, err := scaffoldDir()
	if err != nil {
		return nil, err
	}
	p, err := pack.LoadDir(ctx, dir, 1, pack.Options{})
	if err := load("scaffold", p, err); err != nil {
		return nil, err
	}
	p, err = pack.Load(ctx, airline.FS(), 1, pack.Options{Builtins: tau2.HandlerSets()})
	if err := load("airline", p, err); err != nil {
		return nil, err
	}
	p, err = pack.Load(ctx, retail.FS(), 1, pack.Options{Builtins: map[string]pack.HandlerSet{"tau2-retail": tau2.RetailHandlers()}})
	if err := load("retail", p, err); err != nil {
		return nil, err
	}
	p, err = testpacks.GoPack()
	if err := load("gopack", p, err); err != nil {
		return nil, err
	}
	return out, nil
})

func models(t testing.TB) map[string]*model.Model {
	t.Helper()
	ms, err := testModels()
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

var scaffoldOnce = sync.OnceValues(func() (string, error) {
	dir := filepath.Join(testTemp, "scaffold")
	return dir, pack.Init(dir, "helpdesk")
})

func scaffoldDir() (string, error) { return scaffoldOnce() }

// generated is one pack run under a spec.
type generated struct {
	pack  string
	spec  Spec
	exact bool // the pack can give every requested evidence level
}

func TestGenericControls(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	ms := models(t)
	cases := []generated{
		{"scaffold", Spec{Writes: Range{0, 5}, WriteWeights: []float64{10, 60, 23, 15, 5, 1}, Reads: Range{2, 7}}, false},
		{"scaffold", Spec{Writes: Range{1, 1}, Reads: Range{2, 7}}, true},
		{"airline", Spec{Writes: Range{0, 5}, WriteWeights: []float64{10, 60, 23, 15, 5, 1}, Reads: Range{2, 7}}, false},
		// Every airline write but a booking reads each flight's status
		// too (its checks): none needs fewer than 3 reads.
		{"airline", Spec{Writes: Range{1, 1}, Reads: Range{3, 7}}, true},
		{"airline", Spec{Writes: Range{1, 2}, Reads: Range{9, 10}}, false},
		{"library", Spec{Writes: Range{1, 3}, Reads: Range{2, 5}}, false},
		{"catalog", Spec{Writes: Range{0, 3}, Reads: Range{1, 1}}, false},
		{"gopack", Spec{Writes: Range{1, 2}, Reads: Range{2, 5}}, false},
		{"retail", Spec{Writes: Range{0, 5}, WriteWeights: []float64{10, 60, 23, 15, 5, 1}, Reads: Range{2, 7}}, false},
		{"retail", Spec{Writes: Range{1, 1}, Reads: Range{2, 7}}, true},
	}
	for _, tc := range cases {
		for _, seed := range []uint64{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/w%s/r%s/seed%d", tc.pack, tc.spec.Writes, tc.spec.Reads, seed), func(t *testing.T) {
				m := ms[tc.pack]
				spec := tc.spec
				spec.Seed, spec.Behaviors, spec.Validation, spec.Test = seed, allProfiles, 0.05, 0.05
				g, err := NewGeneric(m, spec)
				if err != nil {
					t.Fatal(err)
				}
				n := 120
				levels := map[int]int{}
				inRange := 0
				total := 0
				for i := 0; i < n; i++ {
					bp, err := g.Generate(context.Background(), i)
					if err != nil {
						t.Fatal(err)
					}
					if want := g.writes.At(i); bp.NWrites != want {
						t.Fatalf("blueprint %d: %d writes, allocated %d", i, bp.NWrites, want)
					}
					if len(bp.Evidence) != bp.NWrites {
						t.Fatalf("blueprint %d: %d evidence entries for %d writes", i, len(bp.Evidence), bp.NWrites)
					}
					for _, e := range bp.Evidence {
						levels[e]++
						total++
						if spec.Reads.Contains(e) {
							inRange++
						}
					}
					if err := checkBlueprint(m, bp); err != nil {
						t.Fatalf("blueprint %d: %v", i, err)
					}
				}
				if tc.exact {
					// One write per task: each level holds its share to
					// within a blueprint, as the allocator spreads them.
					share := float64(total) / float64(spec.Reads.Max-spec.Reads.Min+1)
					for lvl := spec.Reads.Min; lvl <= spec.Reads.Max; lvl++ {
						if d := float64(levels[lvl]) - share; d > 1.5 || d < -1.5 {
							t.Errorf("evidence %d: %d writes, want %.1f (levels %v)", lvl, levels[lvl], share, levels)
						}
					}
				} else if tc.pack != "catalog" && inRange*10 < total*8 {
					t.Errorf("only %d of %d writes need reads in %s (levels %v)", inRange, total, spec.Reads, levels)
				}
			})
		}
	}
}

// execute runs ground-truth actions on a state and returns its final hash.
// Every action must succeed: a blueprint is solvable by construction.
func execute(ctx context.Context, kit *tools.Toolkit, st *tools.State, actions []record.Action) (string, error) {
	for i, a := range actions {
		res := kit.Exec(ctx, st, a.Tool, string(a.Arguments))
		if res.Err {
			return "", fmt.Errorf("action %d %s: %s", i, a.Tool, res.Output)
		}
	}
	return st.Hash(), nil
}

// checkBlueprint replays a blueprint: its ground truth executes to its
// state hash, each write needs its recorded evidence and meets its
// preconditions, every selector re-resolved on the state the agent sees
// names exactly what the write's arguments name (the record, the items
// picked from it, their replacements, the customer's choice), the
// outputs recompute from those records, a forbidden request's target
// fails the preconditions, and a transfer calls the transfer tool.
func checkBlueprint(m *model.Model, bp *record.Blueprint) error {
	ctx := context.Background()
	hash, err := execute(ctx, m.Kit, m.Base.NewState(), bp.Actions)
	if err != nil {
		return err
	}
	if hash != bp.StateHash {
		return fmt.Errorf("ground truth hashes to %s, recorded %s", hash, bp.StateHash)
	}
	st := m.Base.NewState()
	k := 0
	for gi, g := range bp.Goals {
		var write *record.Action
		for ; k < len(bp.Actions); k++ {
			if a := bp.Actions[k]; a.Kind == record.KindWrite && a.Goal == gi {
				write = &bp.Actions[k]
				break
			}
		}
		if g.Kind == record.GoalTransfer {
			found := false
			for _, a := range bp.Actions {
				found = found || a.Goal == gi && m.Transfer != nil && a.Tool == m.Transfer.Name
			}
			if !found || write != nil {
				return fmt.Errorf("goal %d: a transfer without the transfer call, or with a write", gi)
			}
			continue
		}
		obj, key, err := reResolve(m, st, g.Target, bp.Persona.Known)
		if err != nil {
			return fmt.Errorf("goal %d: %w", gi, err)
		}
		if g.Kind == record.GoalInform {
			if err := checkInform(m, bp, gi, g, obj); err != nil {
				return fmt.Errorf("goal %d: %w", gi, err)
			}
			continue
		}
		tool, _ := model.ParseIntent(strings.TrimPrefix(g.Intent, model.IntentRefusePrefix))
		w := m.Write(tool)
		if g.Kind == record.GoalRefuse {
			if write != nil || w == nil || w.Allowed(obj) {
				return fmt.Errorf("goal %d: a forbidden request on a target the policy allows, or with a write", gi)
			}
			continue
		}
		if write == nil {
			return fmt.Errorf("goal %d has no write", gi)
		}
		if obj != nil && !w.Allowed(obj) {
			return fmt.Errorf("goal %d: %s on a target its preconditions forbid", gi, w.Name)
		}
		var args map[string]any
		if err := json.Unmarshal(write.Arguments, &args); err != nil {
			return err
		}
		elems, err := checkArgs(m, st, bp, g, w, obj, key, args)
		if err != nil {
			return fmt.Errorf("goal %d: %w", gi, err)
		}
		res := m.Kit.Call(ctx, st, write.Tool, string(write.Arguments))
		if res.Err {
			return fmt.Errorf("goal %d: %s", gi, res.Output)
		}
		if got := len(write.Needs); got != bp.Evidence[countWrites(bp, k)] {
			return fmt.Errorf("goal %d: needs %d reads, evidence says %d", gi, got, bp.Evidence[countWrites(bp, k)])
		}
		if len(w.Outputs) > 0 {
			outs, err := m.OutputsOf(w, model.Scopes{Target: obj, Result: model.Decode(res.Output), Elems: elems})
			if err != nil {
				return fmt.Errorf("goal %d: %w", gi, err)
			}
			for _, o := range outs {
				if !slices.Contains(bp.Outputs, record.Output{Goal: gi, Name: o.Name, Value: o.Value}) {
					return fmt.Errorf("goal %d: output %s recomputes to %s, not in %v", gi, o.Name, o.Value, bp.Outputs)
				}
			}
		}
		k++
	}
	return nil
}

// checkArgs re-resolves each argument from the goal's words; it returns
// the records the choice arguments name.
func checkArgs(m *model.Model, st *tools.State, bp *record.Blueprint, g record.Goal, w *model.WriteModel, obj map[string]any, key string, args map[string]any) (map[string][]any, error) {
	ctx := context.Background()
	elems := map[string][]any{}
	picked := map[string][]map[string]any{}
	same := func(name string, v any) error {
		a, _ := json.Marshal(args[name])
		b, _ := json.Marshal(v)
		if string(a) != string(b) {
			return fmt.Errorf("%s=%s, the customer's words name %s", name, a, b)
		}
		return nil
	}
	sels := func(list []record.Selector, param string) []record.Selector {
		var out []record.Selector
		for _, s := range list {
			if s.Collection == param {
				out = append(out, s)
			}
		}
		return out
	}
	for _, p := range w.Included(nil) {
		if _, set := args[p.Name]; !set {
			continue
		}
		switch p.Source {
		case model.SrcTargetKey:
			if key != "" && tools.Text(args[p.Name]) != key {
				return nil, fmt.Errorf("%s=%v, the selector names %s", p.Name, args[p.Name], key)
			}
		case model.SrcTarget:
			if obj != nil {
				v, _ := p.TargetValue(obj)
				if err := same(p.Name, v); err != nil {
					return nil, err
				}
			}
		case model.SrcLike:
			if g.Slots[p.Name] != model.SlotText(args[p.Name]) {
				return nil, fmt.Errorf("%s=%v, the customer says %q", p.Name, args[p.Name], g.Slots[p.Name])
			}
		case model.SrcPick:
			owner := obj
			if p.Pick.User {
				user, _ := m.Read(ctx, st, m.Users.Details, m.DetailsArgs(userOf(m, m.Base.NewState(), bp.Persona.Known)))
				owner, _ = user.(map[string]any)
			}
			v, _ := model.ValueAt(owner, p.Pick.From)
			list := model.Elements(v)
			var ids []any
			for _, sel := range sels(g.Items, p.Name) {
				i, err := tools.ResolveKey(sel, list, p.Pick.ID)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", p.Name, err)
				}
				ids = append(ids, p.Pick.Value(list[i]))
				picked[p.Name] = append(picked[p.Name], list[i])
				elems[p.Name] = append(elems[p.Name], list[i])
			}
			if err := same(p.Name, ids); err != nil {
				return nil, err
			}
		case model.SrcReplace:
			var ids []any
			news := sels(g.New, p.Name)
			for j, e := range picked[p.Replace.Of] {
				rel, _, err := reResolve(m, st, record.Selector{Collection: p.Replace.Coll.Name, ID: tools.Text(e[p.Replace.Via])}, bp.Persona.Known)
				if err != nil || j >= len(news) {
					return nil, fmt.Errorf("%s: %v", p.Name, err)
				}
				cands := p.Replace.Candidates(rel, e)
				i, err := tools.ResolveKey(news[j], cands, p.Replace.ID)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", p.Name, err)
				}
				ids = append(ids, cands[i][p.Replace.ID])
				elems[p.Name] = append(elems[p.Name], cands[i])
			}
			if err := same(p.Name, ids); err != nil {
				return nil, err
			}
		case model.SrcChoose:
			if g.Slots[p.Name] == p.Choose.DefaultSay {
				def, _ := p.Choose.DefaultValue(obj)
				if err := same(p.Name, def); err != nil {
					return nil, err
				}
				continue
			}
			user, _ := m.Read(ctx, st, m.Users.Details, m.DetailsArgs(userOf(m, m.Base.NewState(), bp.Persona.Known)))
			uobj, _ := user.(map[string]any)
			list := p.Choose.ChoiceElements(uobj)
			choice := sels(g.Items, p.Name)
			if len(choice) != 1 {
				return nil, fmt.Errorf("%s: %d choices", p.Name, len(choice))
			}
			i, err := tools.ResolveKey(choice[0], list, p.Choose.ID)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p.Name, err)
			}
			if !p.Choose.Allowed(list[i]) {
				return nil, fmt.Errorf("%s: the customer chose what the hint does not allow", p.Name)
			}
			if got := p.Chosen(args[p.Name]); tools.Text(got) != tools.Text(list[i][p.Choose.ID]) {
				return nil, fmt.Errorf("%s chooses %v, the customer's words name %v", p.Name, got, list[i][p.Choose.ID])
			}
			elems[p.Name] = []any{list[i]}
		}
	}
	return elems, nil
}

// userOf authenticates the customer of a blueprint as the agent does.
func userOf(m *model.Model, st *tools.State, known map[string]string) string {
	for _, id := range m.Users.Identify {
		if id.Tool == known["identify"] {
			a := map[string]any{}
			for _, p := range id.Params {
				a[p] = model.Typed(m.ParamSchema(id.Tool, p), known[p])
			}
			out, _ := m.Read(context.Background(), st, id.Tool, a)
			return m.UserKeyOfValue(out)
		}
	}
	return ""
}

// checkInform recomputes a question's answer from the records its words
// name.
func checkInform(m *model.Model, bp *record.Blueprint, gi int, g record.Goal, obj map[string]any) error {
	field := strings.TrimPrefix(g.Intent, model.IntentInformPrefix)
	want := ""
	for _, o := range bp.Outputs {
		if o.Goal == gi {
			want = o.Value
		}
	}
	in := m.Inform(g.Target.Collection, field)
	if in == nil {
		v, _ := model.ValueAt(obj, field)
		if model.FormatValue(v) != want {
			return fmt.Errorf("%s is %v, output says %s", field, v, want)
		}
		return nil
	}
	rec := obj
	if in.Within != "" {
		if len(g.Items) != 1 {
			return fmt.Errorf("a question about a %s names %d of them", model.Singular(model.Words(in.Within)), len(g.Items))
		}
		cands := in.SubCandidates(obj)
		i, err := tools.ResolveKey(g.Items[0], cands, "")
		if err != nil {
			return err
		}
		rec = cands[i]
	}
	_, got, err := in.Answer(rec)
	if err != nil || got != want {
		return fmt.Errorf("%s recomputes to %s (%v), output says %s", field, got, err, want)
	}
	return nil
}

func countWrites(bp *record.Blueprint, upto int) int {
	n := 0
	for i := 0; i < upto; i++ {
		if bp.Actions[i].Kind == record.KindWrite {
			n++
		}
	}
	return n
}

// reResolve finds a selector's record the way the agent does: by key, or
// by reading the candidates and applying the selector (tools.Resolve
// semantics: exactly one, no tie).
func reResolve(m *model.Model, st *tools.State, sel record.Selector, known map[string]string) (map[string]any, string, error) {
	ctx := context.Background()
	if s := m.Searches[sel.Collection]; s != nil {
		search := func(among map[string][]string) ([]map[string]any, error) {
			var cands []map[string]any
			for _, combo := range s.Combinations(among) {
				for _, tool := range s.Tools {
					args := m.SearchArgs(tool, combo)
					out, ok := m.Read(ctx, st, tool, args)
					if !ok {
						return nil, fmt.Errorf("search %s fails", tool)
					}
					cands = append(cands, s.ItemsOf(out, args)...)
				}
			}
			return cands, nil
		}
		cands, err := search(sel.Among)
		if err != nil {
			return nil, "", err
		}
		if sel.Back != nil {
			// A round trip: the way back is searched too, as the agent does.
			back, err := search(sel.Back)
			if err != nil {
				return nil, "", err
			}
			cands = s.Pairs(cands, back)
		}
		i, err := tools.ResolveKey(sel, cands, "")
		if err != nil {
			return nil, "", err
		}
		return cands[i], "", nil
	}
	c := m.Colls[sel.Collection]
	if c == nil || (m.Users != nil && c == m.Users.Coll) {
		return nil, "", nil // the user themself, or nothing to name
	}
	if sel.ID != "" {
		out, ok := m.Read(ctx, st, c.Get, map[string]any{c.GetParam: model.Typed(m.ParamSchema(c.Get, c.GetParam), sel.ID)})
		obj, _ := out.(map[string]any)
		if !ok || obj == nil {
			return nil, "", fmt.Errorf("%s %s cannot be read", c.Noun, sel.ID)
		}
		return obj, sel.ID, nil
	}
	args := map[string]any{}
	if c.List.Param != "" {
		// The agent authenticates at the start, before any write (a new
		// address would change the zip it identifies by).
		args[c.List.Param] = userOf(m, m.Base.NewState(), known)
	}
	out, ok := m.Read(ctx, st, c.List.Tool, args)
	if !ok {
		return nil, "", fmt.Errorf("%s fails", c.List.Tool)
	}
	keys, cands := m.ListedRecords(c, out)
	if cands == nil {
		for _, k := range keys {
			v, _ := m.Read(ctx, st, c.Get, map[string]any{c.GetParam: k})
			obj, _ := v.(map[string]any)
			cands = append(cands, obj)
		}
	}
	i, err := tools.ResolveKey(sel, cands, c.Key)
	if err != nil {
		return nil, "", err
	}
	if c.List.By != "" {
		// The list names records by a field; the one found is read whole.
		v, _ := m.Read(ctx, st, c.Get, m.GetArgs(c, keys[i]))
		obj, _ := v.(map[string]any)
		return obj, keys[i], nil
	}
	return cands[i], keys[i], nil
}

func TestGenericDeterministic(t *testing.T) {
	m := models(t)["airline"]
	spec := Spec{Seed: 9, Writes: Range{0, 3}, Reads: Range{2, 9}, Refusals: 0.2, Behaviors: allProfiles}
	gen := func() []*record.Blueprint {
		g, err := NewGeneric(m, spec)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]*record.Blueprint, 40)
		var wg sync.WaitGroup
		errs := make([]error, len(out))
		// In reverse and concurrently: no order or scheduling may leak in.
		for i := len(out) - 1; i >= 0; i-- {
			wg.Go(func() { out[i], errs[i] = g.Generate(context.Background(), i) })
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	a, b := gen(), gen()
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			ja, _ := json.Marshal(a[i])
			jb, _ := json.Marshal(b[i])
			t.Fatalf("blueprint %d differs:\n%s\n%s", i, ja, jb)
		}
	}
	spec.Seed = 10
	g, _ := NewGeneric(m, spec)
	c, _ := g.Generate(context.Background(), 0)
	if reflect.DeepEqual(a[0].Actions, c.Actions) {
		t.Error("another seed gives the same task")
	}
}

// TestSearchEvidence is WRIT's example: a customer flexible on dates and
// airports asks for the cheapest or fastest itinerary; the agent must
// search every combination before the booking.
func TestSearchEvidence(t *testing.T) {
	m := models(t)["airline"]
	g, err := NewGeneric(m, Spec{Seed: 1, Writes: Range{1, 1}, Reads: Range{9, 10}, Refusals: 0.2, Behaviors: allProfiles})
	if err != nil {
		t.Fatal(err)
	}
	bookings := 0
	for i := 0; i < 150; i++ {
		bp, err := g.Generate(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		if bp.Goals[0].Intent != "book_reservation" {
			continue
		}
		bookings++
		sel := bp.Goals[0].Target
		combos, back := 1, 0
		for _, p := range m.Searches["itinerary"].Grid {
			combos *= len(sel.Among[p])
		}
		if sel.Back != nil {
			// A round trip searches its way back too.
			back = 1
			for _, p := range m.Searches["itinerary"].Grid {
				back *= len(sel.Back[p])
			}
		}
		combos += back
		reads := 0
		for _, a := range bp.Actions {
			if a.Kind == record.KindRead {
				reads++
			}
			if a.Kind == record.KindWrite {
				break
			}
		}
		if bp.Evidence[0] < 9 || reads < 9 || combos*2+1 != bp.Evidence[0] {
			t.Errorf("blueprint %d: evidence %d, %d reads before the booking, %d combinations (%v)", i, bp.Evidence[0], reads, combos, sel.Among)
		}
		if sel.Pick == "" || len(sel.Among["origin"])+len(sel.Among["date"]) < 3 {
			t.Errorf("blueprint %d: %+v is not a flexible search", i, sel)
		}
	}
	if bookings < 10 {
		t.Errorf("only %d bookings among 150 tasks at --reads 9-10", bookings)
	}
}

func BenchmarkGenerate(b *testing.B) {
	ms := models(b)
	for _, name := range []string{"scaffold", "airline", "library", "retail"} {
		b.Run(name, func(b *testing.B) {
			g, err := NewGeneric(ms[name], Spec{Seed: 1, Writes: Range{0, 5}, WriteWeights: []float64{10, 60, 23, 15, 5, 1}, Reads: Range{2, 7}, Behaviors: allProfiles, Refusals: 0.2})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, err := g.Generate(context.Background(), i); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestRefusalShare: --refusals sets the share of tasks with a forbidden
// request exactly, none at 0; a request the policy's function or the
// tool refuses (airline's compensation) names its target.
func TestRefusalShare(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	ms := models(t)
	for _, tc := range []struct {
		pack  string
		share float64
	}{{"airline", 0.3}, {"airline", 0}, {"retail", 0.2}} {
		m := ms[tc.pack]
		g, err := NewGeneric(m, Spec{Seed: 2, Writes: Range{0, 3}, Reads: Range{0, 7}, AdaptReads: true, Behaviors: allProfiles, Refusals: tc.share})
		if err != nil {
			t.Fatal(err)
		}
		const n = 200
		refusing, byTool, withWrites, conditional := 0, 0, 0, 0
		for i := range n {
			bp, err := g.Generate(context.Background(), i)
			if err != nil {
				t.Fatal(err)
			}
			for k, goal := range bp.Goals {
				if !goal.Instead {
					continue
				}
				// A plan B follows the forbidden request it stands in for,
				// and is a write the ground truth makes.
				if k != 1 || bp.Goals[0].Kind != record.GoalRefuse || goal.Kind != record.GoalWrite ||
					!slices.ContainsFunc(bp.Actions, func(a record.Action) bool { return a.Goal == k && a.Kind == record.KindWrite }) {
					t.Errorf("%s: goal %d is a plan B (%s) not after a forbidden request, or without its write", bp.ID, k, goal.Intent)
				}
				conditional++
			}
			if len(bp.Goals) > 1 && bp.Goals[0].Kind == record.GoalRefuse {
				withWrites++
			}
			has := false
			for _, goal := range bp.Goals {
				if goal.Kind != record.GoalRefuse {
					continue
				}
				has = true
				tool, _ := model.ParseIntent(strings.TrimPrefix(goal.Intent, model.IntentRefusePrefix))
				w := m.Write(tool)
				if len(w.When) > 0 {
					continue
				}
				byTool++
				if goal.Target.ID == "" && len(goal.Target.Where) == 0 && goal.Target.Pick == "" {
					t.Errorf("%s: refusal of %s names no target", bp.ID, tool)
				}
			}
			if has {
				refusing++
			}
		}
		want := int(tc.share * n)
		if refusing < want-2 || refusing > want+2 {
			t.Errorf("%s --refusals %g: %d of %d tasks hold a forbidden request, want about %d", tc.pack, tc.share, refusing, n, want)
		}
		if byTool > 0 {
			t.Logf("%s: %d refusals come from the policy's functions or the tool's refusals", tc.pack, byTool)
		}
		// Half the refusal tasks with writes are conditional.
		if withWrites > 0 && (conditional*4 < withWrites || conditional*4 > withWrites*3) {
			t.Errorf("%s: %d of %d refusal tasks with writes carry a plan B, want about half", tc.pack, conditional, withWrites)
		}
		if tc.share > 0 && conditional == 0 {
			t.Errorf("%s: no conditional task", tc.pack)
		}
	}
}

// A record is never described by an enum's "no value" member: the
// evaluation dataset of type EVALUATION_DATASET_TYPE_UNKNOWN is told
// apart by its name.
func TestRecordFormsSkipSentinels(t *testing.T) {
	c := &model.CollModel{Name: "datasets", Key: "id", Noun: "dataset", Describe: []string{"dataset_type", "name"}}
	r := map[string]any{"id": "7", "dataset_type": "EVALUATION_DATASET_TYPE_UNKNOWN", "name": "new review"}
	rf := describe(c, r, 3)
	if len(rf.forms) == 0 {
		t.Fatal("no forms")
	}
	for _, form := range rf.forms {
		f := rf.selector(form)
		if _, ok := f.Where["dataset_type"]; ok {
			t.Errorf("form %v describes the record by a sentinel", f.Where)
		}
	}
}

// A pick whose filter alone leaves one record orders nothing: "the most
// recent key named Lunar Forest" when one key has that name.
func TestIdlePick(t *testing.T) {
	keys := []map[string]any{
		{"id": "1", "name": "Lunar Forest", "created_at": "2025-01-01T00:00:00Z"},
		{"id": "2", "name": "Amber Falcon", "created_at": "2025-02-01T00:00:00Z"},
		{"id": "3", "name": "Amber Falcon", "created_at": "2025-03-01T00:00:00Z"},
	}
	cases := []struct {
		sel  record.Selector
		idle bool
	}{
		{record.Selector{Where: map[string]string{"name": "Lunar Forest"}, Pick: "max:created_at"}, true},
		{record.Selector{Where: map[string]string{"name": "Amber Falcon"}, Pick: "max:created_at"}, false},
		{record.Selector{Pick: "max:created_at"}, false},
		{record.Selector{Where: map[string]string{"name": "Lunar Forest"}}, false},
	}
	for _, c := range cases {
		if got := idlePick(c.sel, keys, "id"); got != c.idle {
			t.Errorf("idlePick(%v %s) = %v, want %v", c.sel.Where, c.sel.Pick, got, c.idle)
		}
	}
}

// A search whose candidates are made per key (airline's cabin) has the
// customer name the key in every request: a price is one cabin's.
func TestSearchNamesPerKey(t *testing.T) {
	if testing.Short() {
		t.Skip(shortSkip)
	}
	m := models(t)["airline"]
	g, err := NewGeneric(m, Spec{Seed: 4, Writes: Range{1, 2}, Reads: Range{2, 9}, AdaptReads: true, Behaviors: allProfiles})
	if err != nil {
		t.Fatal(err)
	}
	searches := 0
	for i := range 150 {
		bp, err := g.Generate(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		for _, goal := range bp.Goals {
			s := m.Searches[goal.Target.Collection]
			if s == nil {
				continue
			}
			searches++
			if _, ok := goal.Target.Where[s.Legs.Per]; !ok {
				t.Errorf("%s: %q names no %s", bp.ID, goal.Target.Label, s.Legs.Per)
			}
		}
	}
	if searches == 0 {
		t.Error("no booking found by search in 150 tasks")
	}
}
