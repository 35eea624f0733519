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
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

var allProfiles = []string{"upfront", "minimal", "piecemeal", "verbose", "impatient", "confused", "changes_mind", "typos"}

// testModels loads each test pack once: the testdata library (identify
// returns a record, loans listed whole, a book search) and catalog (no
// users), the scaffold of synth domain init, airline, and a pack built
// in Go.
var testModels = sync.OnceValues(func() (map[string]*Model, error) {
	ctx := context.Background()
	out := map[string]*Model{}
	load := func(name string, p *pack.Pack, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		m, err := NewModel(ctx, p)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		out[name] = m
		return nil
	}
	for _, name := range []string{"library", "catalog"} {
		p, err := pack.LoadDir(ctx, filepath.Join("testdata", name), 1, pack.Options{})
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
	p, err = pack.Load(ctx, airline.FS(), 1, pack.Options{})
	if err := load("airline", p, err); err != nil {
		return nil, err
	}
	p, err = pack.Load(ctx, retail.FS(), 1, pack.Options{Builtins: map[string]pack.HandlerSet{"tau2-retail": tau2.RetailHandlers()}})
	if err := load("retail", p, err); err != nil {
		return nil, err
	}
	p, err = goPack()
	if err := load("gopack", p, err); err != nil {
		return nil, err
	}
	return out, nil
})

func models(t testing.TB) map[string]*Model {
	t.Helper()
	ms, err := testModels()
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// goPack is a pack built in Go: customers found by email (the tool
// returns the key as a string), notes owned by them and listed in the
// customer's record, writes whose sources are all inferred.
func goPack() (*pack.Pack, error) {
	db := map[string]map[string]any{"customers": {}, "notes": {}}
	topics := []string{"billing", "shipping", "account"}
	for u := 1; u <= 6; u++ {
		id := fmt.Sprintf("c%d", u)
		var notes []any
		for k := 0; k < u%4+1; k++ {
			nid := fmt.Sprintf("n%d%d", u, k)
			notes = append(notes, nid)
			db["notes"][nid] = map[string]any{"note_id": nid, "customer_id": id, "topic": topics[(u+k)%3], "pinned": k%2 == 0,
				"created_at": fmt.Sprintf("2025-01-%02dT10:00:00Z", 1+u+k*3), "stars": float64(k + u)}
		}
		db["customers"][id] = map[string]any{"customer_id": id, "email": id + "@example.com", "name": "Customer " + id, "notes": notes}
	}
	base, err := tools.NewBase(db)
	if err != nil {
		return nil, err
	}
	obj := func(props map[string]any, req ...string) map[string]any {
		r := make([]any, len(req))
		for i, x := range req {
			r[i] = x
		}
		return map[string]any{"type": "object", "properties": props, "required": r, "additionalProperties": false}
	}
	str := map[string]any{"type": "string"}
	get := func(coll, key string) tools.Handler {
		return func(_ context.Context, st *tools.State, args map[string]any) (any, error) {
			v, ok := st.Get(coll, args[key].(string))
			if !ok {
				return nil, fmt.Errorf("no %s %v", coll, args[key])
			}
			return v, nil
		}
	}
	kit, err := tools.NewToolkit([]*tools.Tool{
		{Name: "find_customer", Kind: record.KindRead, Description: "Find a customer's id by email.", Parameters: obj(map[string]any{"email": str}, "email"),
			Handler: func(_ context.Context, st *tools.State, args map[string]any) (any, error) {
				for _, k := range st.Keys("customers") {
					v, _ := st.Get("customers", k)
					if v.(map[string]any)["email"] == args["email"] {
						return k, nil
					}
				}
				return nil, fmt.Errorf("no customer with email %v", args["email"])
			}},
		{Name: "get_customer", Kind: record.KindRead, Description: "Get a customer.", Parameters: obj(map[string]any{"customer_id": str}, "customer_id"), Handler: get("customers", "customer_id")},
		{Name: "get_note", Kind: record.KindRead, Description: "Get a note.", Parameters: obj(map[string]any{"note_id": str}, "note_id"), Handler: get("notes", "note_id")},
		{Name: "retitle_note", Kind: record.KindWrite, Description: "Changes the topic of a note.",
			Parameters: obj(map[string]any{"note_id": str, "topic": str}, "note_id", "topic"),
			Handler: func(_ context.Context, st *tools.State, args map[string]any) (any, error) {
				v, ok := st.Get("notes", args["note_id"].(string))
				if !ok {
					return nil, fmt.Errorf("no note %v", args["note_id"])
				}
				n := map[string]any{}
				for k, x := range v.(map[string]any) {
					n[k] = x
				}
				n["topic"] = args["topic"]
				return n, st.Put("notes", args["note_id"].(string), n)
			}},
	})
	if err != nil {
		return nil, err
	}
	man := pack.Manifest{Name: "gopack", Version: "0.0.1",
		Collections: map[string]pack.Collection{"customers": {Key: "customer_id"}, "notes": {Key: "note_id", Owner: "customer_id"}},
		Users:       pack.Users{Collection: "customers", Identify: []pack.Identify{{Tool: "find_customer", Args: map[string]string{"email": "email"}}}}}
	return &pack.Pack{Manifest: man, Policy: "Be helpful.", Tools: kit, Base: base}, nil
}

var scaffoldOnce = sync.OnceValues(func() (string, error) {
	dir := filepath.Join(testTemp, "scaffold")
	return dir, pack.Init(dir, "helpdesk")
})

func scaffoldDir() (string, error) { return scaffoldOnce() }

func TestModelInference(t *testing.T) {
	m := models(t)["gopack"]
	notes := m.Colls["notes"]
	if notes.Get != "get_note" || notes.GetParam != "note_id" {
		t.Errorf("notes get = %s(%s), want get_note(note_id)", notes.Get, notes.GetParam)
	}
	if notes.List == nil || notes.List.Tool != "get_customer" || notes.List.Field != "notes" || notes.List.Param != "customer_id" {
		t.Errorf("notes list = %+v, want get_customer(customer_id).notes", notes.List)
	}
	if !slices.Contains(notes.Describe, "topic") || !slices.Contains(notes.Compare, "created_at") || !slices.Contains(notes.Compare, "stars") {
		t.Errorf("notes describe %v compare %v", notes.Describe, notes.Compare)
	}
	if m.Users.Details != "get_customer" {
		t.Errorf("user details tool %q", m.Users.Details)
	}
	w := m.Write("retitle_note")
	if w == nil || w.TargetKind != TargetColl || w.Coll != notes {
		t.Fatalf("retitle_note target: %+v", w)
	}
	tests := []struct{ param, source, path string }{
		{"note_id", SrcTargetKey, ""},
		{"topic", SrcSlot, "topic"}, // a field of the target: a new value from the data
	}
	for _, tc := range tests {
		p := w.Param(tc.param)
		if p == nil || p.Source != tc.source || p.Path != tc.path {
			t.Errorf("%s: got %+v, want source %s path %q", tc.param, p, tc.source, tc.path)
		}
	}
	if got := m.UserKeyOf(`"c3"`); got != "c3" {
		t.Errorf("UserKeyOf string = %q", got)
	}
	lib := models(t)["library"]
	if got := lib.UserKeyOf(`{"member_id":"M004","email":"x"}`); got != "M004" {
		t.Errorf("UserKeyOf record = %q", got)
	}
	if lib.Users.Details != "get_member" || lib.Colls["loans"].List == nil || lib.Colls["loans"].List.Tool != "list_loans" {
		t.Errorf("library: details %q, loans list %+v", lib.Users.Details, lib.Colls["loans"].List)
	}
	if cat := models(t)["catalog"]; cat.Users != nil || cat.Colls["items"].List == nil || cat.Write("create_item").TargetKind != TargetNone {
		t.Errorf("catalog: users %v, items list %+v", cat.Users, cat.Colls["items"].List)
	}
	// Open tools: generic ones and reads that name no customer or owned record.
	open := models(t)["airline"].OpenTools()
	for _, want := range []string{"search_direct_flight", "search_onestop_flight", "list_all_airports", "calculate"} {
		if !slices.Contains(open, want) {
			t.Errorf("airline open tools %v lack %s", open, want)
		}
	}
	for _, not := range []string{"get_reservation_details", "book_reservation", "get_user_details"} {
		if slices.Contains(open, not) {
			t.Errorf("airline open tools include %s", not)
		}
	}
}

// generated is one pack run under a spec.
type generated struct {
	pack  string
	spec  Spec
	exact bool // the pack can give every requested evidence level
}

func TestGenericControls(t *testing.T) {
	ms := models(t)
	cases := []generated{
		{"scaffold", Spec{Writes: Range{0, 5}, WriteWeights: []float64{10, 60, 23, 15, 5, 1}, Reads: Range{2, 7}}, false},
		{"scaffold", Spec{Writes: Range{1, 1}, Reads: Range{2, 7}}, true},
		{"airline", Spec{Writes: Range{0, 5}, WriteWeights: []float64{10, 60, 23, 15, 5, 1}, Reads: Range{2, 7}}, false},
		{"airline", Spec{Writes: Range{1, 1}, Reads: Range{2, 7}}, true},
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

// checkBlueprint replays a blueprint: its ground truth executes to its
// state hash, each write needs its recorded evidence and meets its
// preconditions, every selector re-resolved on the state the agent sees
// names exactly what the write's arguments name (the record, the items
// picked from it, their replacements, the customer's choice), the
// outputs recompute from those records, a forbidden request's target
// fails the preconditions, and a transfer calls the transfer tool.
func checkBlueprint(m *Model, bp *record.Blueprint) error {
	ctx := context.Background()
	hash, err := Execute(ctx, m.Kit, m.Base.NewState(), bp.Actions)
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
		tool, _ := ParseIntent(strings.TrimPrefix(g.Intent, IntentRefusePrefix))
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
			outs, err := m.OutputsOf(w, Scopes{Target: obj, Result: Decode(res.Output), Elems: elems})
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
func checkArgs(m *Model, st *tools.State, bp *record.Blueprint, g record.Goal, w *WriteModel, obj map[string]any, key string, args map[string]any) (map[string][]any, error) {
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
		case SrcTargetKey:
			if key != "" && tools.Text(args[p.Name]) != key {
				return nil, fmt.Errorf("%s=%v, the selector names %s", p.Name, args[p.Name], key)
			}
		case SrcTarget:
			if obj != nil {
				v, _ := valueAt(obj, p.Path)
				if err := same(p.Name, v); err != nil {
					return nil, err
				}
			}
		case SrcLike:
			if g.Slots[p.Name] != SlotText(args[p.Name]) {
				return nil, fmt.Errorf("%s=%v, the customer says %q", p.Name, args[p.Name], g.Slots[p.Name])
			}
		case SrcPick:
			v, _ := valueAt(obj, p.Pick.From)
			list := Elements(v)
			var ids []any
			for _, sel := range sels(g.Items, p.Name) {
				i, err := tools.ResolveKey(sel, list, p.Pick.ID)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", p.Name, err)
				}
				ids = append(ids, list[i][p.Pick.ID])
				picked[p.Name] = append(picked[p.Name], list[i])
				elems[p.Name] = append(elems[p.Name], list[i])
			}
			if err := same(p.Name, ids); err != nil {
				return nil, err
			}
		case SrcReplace:
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
		case SrcChoose:
			if g.Slots[p.Name] == p.Choose.DefaultSay {
				def, _ := p.Choose.DefaultValue(obj)
				if err := same(p.Name, def); err != nil {
					return nil, err
				}
				continue
			}
			user, _ := m.read(ctx, st, m.Users.Details, m.DetailsArgs(userOf(m, m.Base.NewState(), bp.Persona.Known)))
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
			if err := same(p.Name, list[i][p.Choose.ID]); err != nil {
				return nil, err
			}
			elems[p.Name] = []any{list[i]}
		}
	}
	return elems, nil
}

// userOf authenticates the customer of a blueprint as the agent does.
func userOf(m *Model, st *tools.State, known map[string]string) string {
	for _, id := range m.Users.Identify {
		if id.Tool == known["identify"] {
			a := map[string]any{}
			for _, p := range id.Params {
				a[p] = Typed(m.ParamSchema(id.Tool, p), known[p])
			}
			out, _ := m.read(context.Background(), st, id.Tool, a)
			return m.userKeyOfValue(out)
		}
	}
	return ""
}

// checkInform recomputes a question's answer from the records its words
// name.
func checkInform(m *Model, bp *record.Blueprint, gi int, g record.Goal, obj map[string]any) error {
	field := strings.TrimPrefix(g.Intent, IntentInformPrefix)
	want := ""
	for _, o := range bp.Outputs {
		if o.Goal == gi {
			want = o.Value
		}
	}
	in := m.Inform(g.Target.Collection, field)
	if in == nil {
		v, _ := valueAt(obj, field)
		if FormatValue(v) != want {
			return fmt.Errorf("%s is %v, output says %s", field, v, want)
		}
		return nil
	}
	rec := obj
	if in.Within != "" {
		if len(g.Items) != 1 {
			return fmt.Errorf("a question about a %s names %d of them", Singular(Words(in.Within)), len(g.Items))
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
func reResolve(m *Model, st *tools.State, sel record.Selector, known map[string]string) (map[string]any, string, error) {
	ctx := context.Background()
	if s := m.Searches[sel.Collection]; s != nil {
		var cands []map[string]any
		for _, combo := range s.Combinations(sel.Among) {
			for _, tool := range s.Tools {
				out, ok := m.read(ctx, st, tool, m.SearchArgs(tool, combo))
				if !ok {
					return nil, "", fmt.Errorf("search %s fails", tool)
				}
				cands = append(cands, s.ItemsOf(out)...)
			}
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
		out, ok := m.read(ctx, st, c.Get, map[string]any{c.GetParam: Typed(m.ParamSchema(c.Get, c.GetParam), sel.ID)})
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
	out, ok := m.read(ctx, st, c.List.Tool, args)
	if !ok {
		return nil, "", fmt.Errorf("%s fails", c.List.Tool)
	}
	keys, cands := m.ListedRecords(c, out)
	if cands == nil {
		for _, k := range keys {
			v, _ := m.read(ctx, st, c.Get, map[string]any{c.GetParam: k})
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
		v, _ := m.read(ctx, st, c.Get, m.GetArgs(c, keys[i]))
		obj, _ := v.(map[string]any)
		return obj, keys[i], nil
	}
	return cands[i], keys[i], nil
}

func TestGenericDeterministic(t *testing.T) {
	m := models(t)["airline"]
	spec := Spec{Seed: 9, Writes: Range{0, 3}, Reads: Range{2, 9}, Behaviors: allProfiles}
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
	g, err := NewGeneric(m, Spec{Seed: 1, Writes: Range{1, 1}, Reads: Range{9, 10}, Behaviors: allProfiles})
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
		combos := 1
		for _, p := range m.Searches["itinerary"].Grid {
			combos *= len(sel.Among[p])
		}
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

func TestLanguage(t *testing.T) {
	words := []struct{ in, want string }{
		{"total_baggages", "total baggages"}, {"petId", "pet id"}, {"Passkeys_RelyingParty_Id", "passkeys relying party id"},
		{"reservations", "reservations"},
	}
	for _, tc := range words {
		if got := Words(tc.in); got != tc.want {
			t.Errorf("Words(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	singular := []struct{ in, want string }{{"reservations", "reservation"}, {"categories", "category"}, {"addresses", "address"},
		{"status", "status"}, {"payment methods", "payment method"}, {"boxes", "box"},
		{"emojis", "emoji"}, {"guild emojis", "guild emoji"}, {"kiwis", "kiwi"}, {"basis", "basis"}, {"axis", "axis"}, {"tennis", "tennis"}, {"iris", "iris"}}
	for _, tc := range singular {
		if got := Singular(tc.in); got != tc.want {
			t.Errorf("Singular(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	money := map[string]bool{"refund_amount": true, "baggage_fee": true, "total": true, "total_baggages": false, "price_difference": true,
		"nonfree_baggages": false, "duration_minutes": false, "deposit": false, "charge": true}
	for name, want := range money {
		if got := IsMoney(name); got != want {
			t.Errorf("IsMoney(%q) = %v", name, got)
		}
	}
	phrases := []struct{ desc, noun, kind, want string }{
		{"Cancels a reservation.", "reservation", TargetColl, "cancel <target>"},
		{"Update the baggage information of a reservation. Be careful.", "reservation", TargetColl, "update the baggage information of <target>"},
		{"Updates an existing pet by Id", "pet", TargetColl, "update <target>"},
		{"Modifies the flights", "reservation", TargetColl, "modify the flights for <target>"},
		{"Change the email address of a member.", "account", TargetUser, "change the email address of <target>"},
		{"Create a new item in the catalogue.", "", TargetNone, "create a new item in the catalogue"},
	}
	for _, tc := range phrases {
		if got := withTarget(imperative(firstSentence(tc.desc)), tc.noun, tc.kind); got != tc.want {
			t.Errorf("phrase of %q = %q, want %q", tc.desc, got, tc.want)
		}
	}
	if got := Plain("{book|reserve} {a flight|a {long|short} trip} <target>"); got != "book a flight <target>" {
		t.Errorf("Plain = %q", got)
	}
	labels := []struct {
		where map[string]string
		pick  string
		want  string
	}{
		{map[string]string{"status": "active", "origin": "SFO"}, "max:created_at", "my most recent active reservation from SFO"},
		{map[string]string{"cabin": "basic_economy"}, "", "my reservation in basic economy"},
		{map[string]string{"priority": "high"}, "min:total_baggages", "my reservation with priority high and with the lowest total baggages"},
	}
	for _, tc := range labels {
		if got := RecordLabel(&CollModel{Noun: "reservation"}, tc.where, tc.pick, true); got != tc.want {
			t.Errorf("RecordLabel(%v, %s) = %q, want %q", tc.where, tc.pick, got, tc.want)
		}
	}
	if got := FormatValue(12.5); got != "12.50" {
		t.Errorf("FormatValue(12.5) = %q", got)
	}
	if got := SayValue("refund_amount", 300.0); got != "$300" {
		t.Errorf("SayValue = %q", got)
	}
}

// FuzzPlain checks the phrase-hint renderer on any template a pack
// author writes: it never panics and leaves no unbalanced group open.
func FuzzPlain(f *testing.F) {
	for _, s := range []string{"{book|reserve} {a flight|a trip} {target}", "{{a|b}|c", "}{|", "plain text", "{a|{b|{c|d}}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = Plain(s)
		w := &WriteModel{Phrase: s, Name: "do_it", Tool: &tools.Tool{Name: "do_it", Description: s}, TargetKind: TargetNone, param: map[string]*ParamModel{}}
		_ = FillPhrase(w.VerbPhrase(), "x", map[string]string{"a": "b"})
	})
}

func BenchmarkGenerate(b *testing.B) {
	ms := models(b)
	for _, name := range []string{"scaffold", "airline", "library", "retail"} {
		b.Run(name, func(b *testing.B) {
			g, err := NewGeneric(ms[name], Spec{Seed: 1, Writes: Range{0, 5}, WriteWeights: []float64{10, 60, 23, 15, 5, 1}, Reads: Range{2, 7}, Behaviors: allProfiles})
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

// FuzzDecodeOutputs checks what the model reads from tool observations
// (a pack's handlers are outside input): the user key of an identify
// result and typed customer text never panic.
func FuzzDecodeOutputs(f *testing.F) {
	for _, s := range []string{`"c1"`, `{"member_id":"M1"}`, `null`, `Error: no`, `[1,2]`, `{"member_id":{"x":1}}`, `"`, `12.5`} {
		f.Add(s)
	}
	m := &Model{Users: &UserModel{Coll: &CollModel{Key: "member_id"}}}
	schemas := []map[string]any{{"type": "integer"}, {"type": "number"}, {"type": "boolean"}, {"type": "array", "items": map[string]any{"type": "integer"}}, {"type": []any{"string", "null"}}}
	f.Fuzz(func(t *testing.T, s string) {
		_ = m.UserKeyOf(s)
		_ = Decode(s)
		for _, sc := range schemas {
			_ = Typed(sc, s)
		}
	})
}

// TestCachedReadText: a read the generator made first (keeping only the
// decoded value) later gives the agent the very text the tool answers.
// list_all_product_types answers with JSON text in Python's spacing,
// which rendering the decoded value would compact.
func TestCachedReadText(t *testing.T) {
	ctx := context.Background()
	m := models(t)["retail"]
	args := map[string]any{}
	if _, ok := m.read(ctx, nil, "list_all_product_types", args); !ok {
		t.Fatal("list_all_product_types failed")
	}
	st := m.Base.NewState()
	got := m.Call(ctx, st, "list_all_product_types", "{}").Output
	want := m.Kit.Call(ctx, m.Base.NewState(), "list_all_product_types", "{}").Output
	if got != want {
		t.Errorf("the cached read gives %.60q, the tool %.60q", got, want)
	}
}

func TestWithinBounds(t *testing.T) {
	for _, tc := range []struct {
		schema map[string]any
		text   string
		want   bool
	}{
		{map[string]any{"type": "integer", "minimum": 8000.0}, "28", false},
		{map[string]any{"type": "integer", "minimum": 8000.0}, "96000", true},
		{map[string]any{"type": []any{"integer", "null"}, "maximum": 10.0}, "11", false},
		{map[string]any{"type": "number", "exclusiveMinimum": 0.0}, "0", false},
		{map[string]any{"type": "number", "exclusiveMaximum": 1.0}, "0.5", true},
		{map[string]any{"type": "string", "minLength": 3.0}, "ab", false},
		{map[string]any{"type": "string", "maxLength": 3.0}, "été", true},
		{map[string]any{"type": "string", "maxLength": 3.0}, "abcd", false},
		{map[string]any{"type": "string"}, "anything", true},
		{map[string]any{"type": "integer", "minimum": 1.0}, "not a number", true},
	} {
		if got := withinBounds(tc.schema, tc.text); got != tc.want {
			t.Errorf("withinBounds(%v, %q) = %v, want %v", tc.schema, tc.text, got, tc.want)
		}
	}
}
