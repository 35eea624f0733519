package model

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/synth-data/synth/internal/keywords"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// Model is what synth knows about a pack's domain, derived once from its
// manifest, tool schemas and database, hints first. The generic
// generator, user and agent share it so that a task's pieces mean the
// same to all three. The agent uses only its schema-level parts
// (collections, identify, writes, searches); the database indexes are the
// generator's.
type Model struct {
	Name    string
	Version string
	// identifying is Identifying's answer, fixed once the collections are.
	identifying []string
	Kit         *tools.Toolkit
	Base        *tools.Base
	// Clock is the pack's fixed "now" (dates a customer asks for are
	// drawn after it).
	Clock time.Time
	// computes are the pack's functions computed arguments name.
	computes map[string]tools.Handler
	// Holdout are tasks generation must not reproduce (nil: none).
	Holdout *pack.Holdout
	// Rules are the policy rules every dialogue is held to: the defaults
	// every pack has, then the pack's own.
	Rules []pack.Rule
	// Failures are the failures the pack's write tools can return.
	Failures []pack.Failure
	// WriteWeights are the pack's default weights of tasks by number of
	// writes (tasks.write_weights; nil: the run's default).
	WriteWeights []float64
	// Users is nil for a pack without customer accounts: no
	// authentication, every record a candidate.
	Users    *UserModel
	Colls    map[string]*CollModel
	Searches map[string]*SearchModel
	// Writes are the write tools tasks can be built on, by name order.
	Writes  []*WriteModel
	writeBy map[string]*WriteModel
	// Transfer is the generic tool that hands the customer to a human
	// (nil when the pack has none) and TransferParam its text parameter.
	Transfer      *tools.Tool
	TransferParam string
	// Skipped explains, per write tool, why no task uses it.
	Skipped map[string]string
	// Informs are, per collection, the questions a customer may ask
	// about a record (nil: a described field).
	Informs map[string][]*InformModel
	// Transfers are the out-of-scope requests the agent hands to a human.
	Transfers []string
	// Asks are the domain's ways of asking for each kind of piece, in
	// AskKinds' order (pack.Hints.Asks).
	Asks []AskModel

	// Generator-side indexes over the base database.
	pools     map[string][]any // distinct values per field name, any collection
	collPools map[string]map[string][]any
	userKeys  []string
	owned     map[string]map[string][]string // coll -> user -> candidate keys the list tool shows
	byCount   map[string]map[int][]string    // coll -> k -> users whose list shows k records
	owners    map[string][]string            // coll -> users whose list shows a record, sorted
	// fitting is, per write with preconditions, whether a record meets
	// them, then per owner ("" for shared records) its keys in base order.
	fitting  map[string]map[bool]map[string][]string
	allKeys  map[string][]string            // ownerless coll -> keys its list-all tool shows
	listRecs map[string]bool                // coll -> its list returns whole records
	pages    map[string]int                 // coll + "/" + user ("" for a list of all) -> pages its list has, when more than one
	byOwner  map[string]map[string][]string // coll -> user -> keys whose owner field names the user
	cache    *readCache
}

// UserModel is how customers are found and authenticated.
type UserModel struct {
	Coll     *CollModel
	Name     []string
	Identify []IdentifyModel
	// Details is the read tool returning a user's record by key and
	// DetailsParam its key parameter ("" when the pack has none).
	Details      string
	DetailsParam string
}

// IdentifyModel is one way to authenticate a customer.
type IdentifyModel struct {
	Tool   string
	Params []string          // sorted
	Paths  map[string]string // parameter -> path in the user's record
}

// CollModel is one entity collection.
type CollModel struct {
	Name  string
	Key   string
	Owner string
	Noun  string
	// Get reads one record by key through parameter GetParam.
	Get      string
	GetParam string
	// Scope are the get's other parameters, each naming what the record
	// belongs to (channel_id of a channel's message), and ScopeField the
	// record's field holding each (ServiceSid: service_sid): a nested
	// record is read by its key within its parent.
	Scope      []string
	ScopeField map[string]string
	// GetLists is set when no tool reads one record by key and the get
	// lists one parent's records instead (list_pins(channel_id)): the
	// record is the element holding its key in the list at GetField, and
	// GetParam is empty.
	GetLists bool
	GetField string
	// Within are the parent fields a record is keyed within
	// (pack.Collection.Within): its database key is their values and
	// its key's, joined by "/".
	Within []string
	// List is how the agent learns the candidate records: a user's (with
	// Param the user key parameter) or, for an ownerless collection, all.
	List     *ListModel
	Describe []string
	Compare  []string
	// Say words describe attributes: a template with {value} per path.
	Say map[string]string
}

// Unread reports whether no tool reads or lists c's records: a write on
// one (a member's role, a channel's permission overwrite) is asked for
// by naming the record's key and parents, and acts with no read first.
func (c *CollModel) Unread() bool { return c.Get == "" && c.List == nil }

// KeyText is the key a record at database key k has, as its key field
// and a customer state it: k, less its parents' keys for a record keyed
// within them ("6814/64/0" is role 0).
func (c *CollModel) KeyText(k string) string {
	if len(c.Within) == 0 {
		return k
	}
	parts := strings.SplitN(k, "/", len(c.Within)+1)
	return parts[len(parts)-1]
}

// scopeUnread gives each unread collection the parents its first write
// (by name) locates a record by: the arguments it takes from the
// target's fields other than the key, so a customer names them ("role 5
// of member 64 in guild 6814") and the agent can act on what it was
// told.
func (m *Model) scopeUnread() {
	for _, w := range m.Writes {
		c := w.Coll
		if w.TargetKind != TargetColl || !c.Unread() || len(c.Scope) > 0 {
			continue
		}
		fields := map[string]string{}
		var scope []string
		for _, p := range w.Params {
			if p.Source == SrcTarget && p.Path != c.Key && !strings.Contains(p.Path, ".") {
				scope = append(scope, p.Name)
				fields[p.Name] = p.Path
			}
		}
		c.Scope, c.ScopeField = scope, fields
	}
}

// ListedBy is the field a collection's list names records by ("" when it
// lists keys or records).
func (c *CollModel) ListedBy() string {
	if c.List == nil {
		return ""
	}
	return c.List.By
}

// ListModel is a read tool that lists candidate keys or records.
type ListModel struct {
	Tool  string
	Param string // the user-key parameter; "" for a list of every record
	Field string // dotted path of the list in the result; "" = the result
	// By is set when the list is an object from this field of each
	// record to its key: the agent finds a record by that field, then
	// reads it whole.
	By string
}

// SearchModel is a family of read tools a customer's constraints feed.
type SearchModel struct {
	Name string
	Noun string
	// Tools are called for every combination of the grid's values.
	Tools []string
	// Params are the search parameters (sorted); Grid those a customer
	// may give several values for.
	Params   []string
	Grid     []string
	Items    string
	Compare  []string
	Describe []string
	// Say words candidate fields, as a collection's Say does.
	Say map[string]string
	// Detail is the pack's template for what else the agent tells of a
	// found candidate (pack.Search.Detail).
	Detail string
	types  map[string]map[string]any // param -> schema (first tool that has it)
	pools  map[string][]string
	// Legs builds candidates of legs (pack.Legs), nil for a search
	// whose result elements are the candidates.
	Legs *pack.Legs
	// Return, when set, pairs outbound and return candidates (a round
	// trip; pack.Return).
	Return *pack.Return
	// SeedColl is a collection whose records hold several of the search
	// parameters as fields (flights: origin, destination, date): values
	// drawn together from one record describe something that exists.
	SeedColl   string
	SeedFields []string
}

// Parameter sources.
const (
	SrcTargetKey = "target_key" // the target record's key
	SrcTarget    = "target"     // a path in the target record or search result
	SrcUserKey   = "user_key"   // the customer's key
	SrcUser      = "user"       // a path in the customer's record
	SrcSlot      = "slot"       // the customer states it
	SrcConst     = "const"      // a fixed value
	SrcLike      = "like"       // the customer states it, drawn from another record (a new address)
	SrcPick      = "pick"       // some of the target's sub-records, named by the customer
	SrcReplace   = "replace"    // a replacement for each picked sub-record
	SrcChoose    = "choose"     // one of the customer's things, or the target's original one
	SrcCompute   = "compute"    // what a function of the pack's handlers returns on the state (an amount the policy sets)
)

// ParamModel says where one argument of a write comes from.
type ParamModel struct {
	Name     string
	Schema   map[string]any
	Required bool
	Source   string
	// Path is the record path of a target or user source, or for a slot
	// the target field whose value it replaces.
	Path string
	// Choices are the values a slot takes ("slot:A|B", or an enum).
	Choices []string
	// KeysOf is, for a slot that names a record to add ("key:COLL", a
	// role added to a member), the collection whose keys it takes,
	// within the target's parents.
	KeysOf string
	// Say is how a customer says a slot's values, by value or "*"
	// (pack.Arg.Say); nil says them as words.
	Say   map[string]string
	Const any
	// Compute is, for a computed argument, the pack's function that gives
	// its value, and ComputeName its name (pack.Pack.Computes).
	Compute     tools.Handler
	ComputeName string
	// Keep is, for a target source written PATH[F1,F2], the fields each
	// element of the list at Path keeps (TargetValue).
	Keep []string
	// Optional marks a parameter a task may include or leave out.
	Optional bool
	// Group is, for a like source, the record path its value is drawn
	// from ("users.address"): the arguments of one group come from one
	// record and the customer states them together.
	Group string
	// Pick, Replace and Choose describe the structured sources.
	Pick    *PickModel
	Replace *ReplaceModel
	Choose  *ChooseModel
}

// Target kinds of a write.
const (
	TargetColl   = "collection"
	TargetSearch = "search"
	TargetUser   = "user"
	TargetNone   = "none"
)

// WriteModel is one write tool tasks are built on.
type WriteModel struct {
	Tool       *tools.Tool
	Name       string
	TargetKind string
	Coll       *CollModel
	Search     *SearchModel
	Params     []*ParamModel // by name
	Phrase     string
	Outputs    []string
	// When are the policy's preconditions on the target: field → the
	// values allowed.
	When map[string][]string
	// Refuse, when set, narrows the targets refusal tasks use to those
	// the policy surely forbids (When holds its sure yes).
	Refuse map[string][]string
	// Refusals are fragments of the tool's errors that mean the policy
	// forbids the request (pack.WriteHint.Refusals).
	Refusals []string
	// RefusalRule is the allow rule a refusal in Refusals cites
	// (pack.WriteHint.RefusalRule), "" for none.
	RefusalRule string
	// Situation labels the write's tasks (pack.WriteHint.Situation).
	Situation string
	// Follows are the writes this one may come after on the same target
	// (pack.WriteHint.Follows).
	Follows []string
	// Checks are the reads the policy needs on what the target points to
	// (pack.WriteHint.Checks); ChecksMin and ChecksMax bound how many
	// they make on one record of the collection.
	Checks               []pack.Check
	ChecksMin, ChecksMax int
	// Allows are the policy's allow rules on the write (pack.RuleAllow).
	Allows []*AllowModel
	param  map[string]*ParamModel
	// outputExprs are the NAME=EXPR outputs parsed, by spec: the
	// generator, the agent and the verifier compute them for every write.
	outputExprs map[string]*expr
	// onBase keeps Accepts' answers on a pristine state: the generator
	// asks it of the same targets in task after task, and each answer
	// runs the pack's Starlark (nil: nothing kept). It maps the JSON of
	// the target's arguments to an acceptance, is shared by the
	// generator's goroutines, and only grows.
	onBase *sync.Map
}

// CheckCalls are the reads the write's checks make on a target record,
// one per element of each check's list, in order.
func (w *WriteModel) CheckCalls(obj map[string]any) []pack.Call {
	var out []pack.Call
	for _, ck := range w.Checks {
		if len(unmet(ck.When, obj)) > 0 {
			continue
		}
		v, _ := ValueAt(obj, ck.Each)
		list, _ := v.([]any)
		for _, e := range list {
			el, _ := e.(map[string]any)
			args := map[string]any{}
			for p, f := range ck.Args {
				if x, ok := ValueAt(el, f); ok {
					args[p] = x
				}
			}
			out = append(out, pack.Call{Name: ck.Tool, Arguments: args})
		}
	}
	return out
}

// CountChecks is len(w.CheckCalls(obj)), without building the calls:
// the generator asks it of every record it considers as a target.
func (w *WriteModel) CountChecks(obj map[string]any) int {
	n := 0
	for _, ck := range w.Checks {
		if len(unmet(ck.When, obj)) > 0 {
			continue
		}
		v, _ := ValueAt(obj, ck.Each)
		list, _ := v.([]any)
		n += len(list)
	}
	return n
}

// TargetRecord is the record of w's collection that a call's arguments
// name, as st holds it.
func (w *WriteModel) TargetRecord(st *tools.State, args map[string]any) (map[string]any, bool) {
	key := w.KeyParam()
	if w.TargetKind != TargetColl || key == "" {
		return nil, false
	}
	k := tools.Text(args[key])
	if len(w.Coll.Within) > 0 {
		// Keyed within its parents: the arguments the target's parent
		// fields fill name them.
		var parts []string
		for _, f := range w.Coll.Within {
			for _, p := range w.Params {
				if p.Source == SrcTarget && p.Path == f {
					parts = append(parts, tools.Text(args[p.Name]))
					break
				}
			}
		}
		k = strings.Join(append(parts, k), "/")
	}
	v, ok := st.Get(w.Coll.Name, k)
	obj, _ := v.(map[string]any)
	return obj, ok && obj != nil
}

// KeyParam is the parameter that takes the target record's key, "" when
// none does.
func (w *WriteModel) KeyParam() string {
	for _, p := range w.Params {
		if p.Source == SrcTargetKey {
			return p.Name
		}
	}
	return ""
}

// RefusalReason is the condition a refusal in a tool's error or a
// policy function's failure states, as the agent cites it: without
// "Error: " or the function's name before it, or the full stop after.
func RefusalReason(err string) string {
	if after, ok := strings.CutPrefix(err, "Error: "); ok {
		err = after
	} else if _, after, ok := strings.Cut(err, ": "); ok {
		err = after
	}
	return DatesInWords(strings.TrimSuffix(err, "."))
}

// RefusedBy reports whether a tool error is one of the write's refusals:
// the policy forbids the request, the arguments are not at fault.
func (w *WriteModel) RefusedBy(toolErr string) bool {
	return slices.ContainsFunc(w.Refusals, func(f string) bool { return strings.Contains(toolErr, f) })
}

// boundChecks finds how many check reads a record of the write's
// collection needs, at least and at most.
func (m *Model) boundChecks(w *WriteModel) {
	w.ChecksMin, w.ChecksMax = -1, 0
	// A check's when names the records the write is about (an active
	// reservation); one outside it (a cancelled one) the tool refuses
	// before its flights matter, so it bounds refusal tasks, not writes:
	// counted as needing no checks, it would have the generator chase a
	// read level almost no write can have.
	guarded := slices.ContainsFunc(w.Checks, func(c pack.Check) bool { return len(c.When) > 0 })
	for _, k := range m.Base.Keys(w.Coll.Name) {
		v, _ := m.Base.Get(w.Coll.Name, k)
		obj, _ := v.(map[string]any)
		n := len(w.CheckCalls(obj))
		if n == 0 && guarded {
			continue
		}
		if w.ChecksMin < 0 || n < w.ChecksMin {
			w.ChecksMin = n
		}
		w.ChecksMax = max(w.ChecksMax, n)
	}
	w.ChecksMin = max(w.ChecksMin, 0)
}

// Param returns the parameter of that name, or nil.
func (w *WriteModel) Param(name string) *ParamModel { return w.param[name] }

// Write returns the write model of a tool, or nil.
func (m *Model) Write(name string) *WriteModel { return m.writeBy[name] }

// NewModel compiles a loaded pack. It fails when the manifest names what
// does not exist; writes it cannot build tasks on are listed in Skipped.
func NewModel(ctx context.Context, p *pack.Pack) (*Model, error) {
	man := p.Manifest
	m := &Model{
		Name: man.Name, Version: man.Version, Kit: p.Tools, Base: p.Base,
		Colls: map[string]*CollModel{}, Searches: map[string]*SearchModel{}, writeBy: map[string]*WriteModel{},
		Skipped: map[string]string{}, cache: newReadCache(32 << 20),
		owned: map[string]map[string][]string{}, byCount: map[string]map[int][]string{}, owners: map[string][]string{}, allKeys: map[string][]string{},
		listRecs: map[string]bool{}, byOwner: map[string]map[string][]string{}, pages: map[string]int{},
		computes: p.Computes,
	}
	if m.Name == "" {
		return nil, errors.New("domain.yaml: name is empty")
	}
	if len(p.Holdout) > 0 {
		m.Holdout = pack.NewHoldout(p.Holdout)
	}
	m.Rules = append(pack.DefaultRules(), man.Rules...)
	m.Failures, m.WriteWeights = man.Failures, man.Tasks.WriteWeights
	m.Clock = time.Date(2024, 5, 15, 15, 0, 0, 0, time.UTC)
	if man.Clock != "" {
		t, err := time.Parse(time.RFC3339, man.Clock)
		if err != nil {
			return nil, fmt.Errorf("domain.yaml: clock %q is not RFC 3339: %w", man.Clock, err)
		}
		m.Clock = t
	}
	m.indexPools()
	for _, name := range slices.Sorted(maps.Keys(man.Collections)) {
		c, err := m.compileColl(name, man.Collections[name])
		if err != nil {
			return nil, err
		}
		m.Colls[name] = c
	}
	if man.Users.Collection != "" {
		if err := m.compileUsers(man.Users); err != nil {
			return nil, err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(m.Colls)) {
		if err := m.compileList(ctx, m.Colls[name], man.Collections[name].List); err != nil {
			return nil, err
		}
		if c := m.Colls[name]; c.Owner != "" {
			m.byOwner[name] = m.keysByOwner(name, c.Owner)
		}
	}
	for _, s := range man.Hints.Searches {
		sm, err := m.compileSearch(s)
		if err != nil {
			return nil, err
		}
		m.Searches[sm.Name] = sm
	}
	for _, t := range m.Kit.Tools() {
		switch t.Kind {
		case record.KindWrite:
			if why := man.Hints.Writes[t.Name].Skip; why != "" {
				m.Skipped[t.Name] = "left out by the pack: " + why
				continue
			}
			w, err := m.compileWrite(t, man.Hints.Writes[t.Name])
			if err != nil {
				// A write tasks cannot use is left out, not fatal: the
				// rest of the pack still makes tasks.
				m.Skipped[t.Name] = err.Error()
				continue
			}
			m.Writes = append(m.Writes, w)
			m.writeBy[w.Name] = w
		case record.KindGeneric:
			if m.Transfer == nil && strings.Contains(t.Name, "transfer") {
				if p := transferParam(t); p != "" {
					m.Transfer, m.TransferParam = t, p
				}
			}
		}
	}
	for name := range man.Hints.Writes {
		if _, ok := m.Kit.Tool(name); !ok {
			return nil, fmt.Errorf("domain.yaml: hints.writes.%s: no such tool in tools.json", name)
		}
	}
	if err := errors.Join(m.compileInforms(man.Hints.Informs), m.compileAsks(man.Hints.Asks)); err != nil {
		return nil, err
	}
	m.Transfers = slices.Clone(man.Hints.Transfers)
	if len(m.Transfers) > 0 && m.Transfer == nil {
		return nil, errors.New("domain.yaml: hints.transfers: the pack has no transfer tool (a generic tool named like transfer, with one required text parameter)")
	}
	sort.Slice(m.Writes, func(i, j int) bool { return m.Writes[i].Name < m.Writes[j].Name })
	if err := m.checkFollows(); err != nil {
		return nil, err
	}
	if err := m.checkChoices(); err != nil {
		return nil, err
	}
	if err := m.compileAllows(p.Allows); err != nil {
		return nil, err
	}
	m.scopeUnread()
	m.indexFitting(ctx)
	m.identifying = m.keyParams()
	return m, nil
}

// checkChoices holds a failure's alternative recovery to an argument
// the customer can choose again: a choose argument of each of its tools
// that tasks use (a tool left out makes no task to fail).
func (m *Model) checkChoices() error {
	for i, f := range m.Failures {
		if f.Recovery != pack.RecoverAlternative {
			continue
		}
		for _, t := range f.Tools {
			w := m.writeBy[t]
			if w == nil {
				continue
			}
			if p := w.param[f.Choice]; p == nil || p.Source != SrcChoose {
				return fmt.Errorf("domain.yaml: failures[%d].choice: %q is not an argument of %s that the customer chooses among their things (choose:); the alternative recovery asks the customer for another one", i, f.Choice, t)
			}
		}
	}
	return nil
}

// checkFollows holds each write's follows to writes tasks use on the
// same collection: a follow-up shares its target with the earlier write,
// or is on the customer's own record, which any of their writes may
// precede.
func (m *Model) checkFollows() error {
	for _, w := range m.Writes {
		for _, name := range w.Follows {
			prev := m.writeBy[name]
			switch {
			case prev == nil:
				return fmt.Errorf("domain.yaml: hints.writes.%s.follows: %s is no write tasks use", w.Name, name)
			case w.TargetKind == TargetUser:
			case w.TargetKind != TargetColl || prev.TargetKind != TargetColl || prev.Coll != w.Coll:
				return fmt.Errorf("domain.yaml: hints.writes.%s.follows: %s acts on another collection, not on this write's target", w.Name, name)
			}
		}
	}
	return nil
}

// keysByOwner is the base's keys of a collection by the value of their
// owner field.
func (m *Model) keysByOwner(coll, owner string) map[string][]string {
	idx := map[string][]string{}
	for _, k := range m.Base.Keys(coll) {
		v, _ := m.Base.Get(coll, k)
		if obj, err := tools.ToObject(v); err == nil {
			if u := tools.Text(obj[owner]); u != "" {
				idx[u] = append(idx[u], k)
			}
		}
	}
	return idx
}

// indexFitting records, per write with preconditions, which records of
// the base meet them and which do not, by owner: the generator draws
// targets (and forbidden requests) from these instead of trying records
// that cannot serve.
func (m *Model) indexFitting(ctx context.Context) {
	m.fitting = map[string]map[bool]map[string][]string{}
	var base *tools.State
	for _, w := range m.Writes {
		if !w.Refusable() {
			continue
		}
		idx := map[bool]map[string][]string{true: {}, false: {}}
		for _, k := range m.Base.Keys(w.Coll.Name) {
			v, _ := m.Base.Get(w.Coll.Name, k)
			obj, err := tools.ToObject(v)
			if err != nil {
				continue
			}
			owner := ""
			if w.Coll.Owner != "" && m.Users != nil {
				owner = tools.Text(obj[w.Coll.Owner])
			}
			ok := w.Allowed(obj)
			if base == nil && ok && (w.DecidedOnTarget() || len(w.Allows) > 0) {
				base = m.Base.NewState()
			}
			ok = ok && w.MayPermit(ctx, base, obj)
			if ok && w.DecidedOnTarget() {
				// Its tool says which targets it is allowed on (a
				// reservation the policy compensates), on the base state,
				// and which it refuses; one it fails for another reason
				// (no cancelled flight to compensate) is neither.
				var refused bool
				if ok, refused = w.Accepts(ctx, m.Kit, base, obj); !ok && !refused {
					continue
				}
			}
			idx[ok][owner] = append(idx[ok][owner], k)
		}
		m.fitting[w.Name] = idx
	}
}

// Fitting lists the base records of a user ("" for shared ones) that
// meet a write's preconditions (allowed) or fail them for a refusal;
// nil without preconditions.
func (m *Model) Fitting(w *WriteModel, allowed bool, user string) []string {
	idx, ok := m.fitting[w.Name]
	if !ok {
		return nil
	}
	return idx[allowed][user]
}

// transferParam is the single required string parameter of a handover
// tool (its summary).
func transferParam(t *tools.Tool) string {
	req := RequiredParams(t)
	if len(req) != 1 {
		return ""
	}
	if ParamType(paramSchema(t, req[0])) != "string" {
		return ""
	}
	return req[0]
}

// indexPools collects the distinct values each field name takes in the
// database, for slots that draw realistic values ("a new priority").
func (m *Model) indexPools() {
	seen := map[string]map[string]bool{}
	m.pools = map[string][]any{}
	m.collPools = map[string]map[string][]any{}
	const maxPool = 400
	for _, coll := range m.Base.Collections() {
		cp := map[string][]any{}
		cseen := map[string]map[string]bool{}
		for _, k := range m.Base.Keys(coll) {
			v, _ := m.Base.Get(coll, k)
			obj, err := tools.ToObject(v)
			if err != nil {
				continue
			}
			var walk func(prefix string, o map[string]any, depth int)
			walk = func(prefix string, o map[string]any, depth int) {
				// Fields in order: a field name met at several paths of
				// one record (a description and a region's description)
				// fills the shared pool in the same order every run, so
				// which values a full pool keeps does not depend on map
				// order.
				var buf [16]string
				for _, f := range sortedKeys(buf[:], o) {
					x := o[f]
					path := f
					if prefix != "" {
						path = prefix + "." + f
					}
					switch y := x.(type) {
					case map[string]any:
						if depth < 2 {
							walk(path, y, depth+1)
						}
						continue
					case []any:
						for _, e := range y {
							if em, ok := e.(map[string]any); ok && depth < 2 {
								walk(path, em, depth+1)
							}
						}
						continue
					case nil:
						continue
					}
					t := tools.Text(x)
					if t == "" || len(t) > 80 {
						continue
					}
					if cseen[path] == nil {
						cseen[path] = map[string]bool{}
					}
					if !cseen[path][t] && len(cp[path]) < maxPool {
						cseen[path][t] = true
						cp[path] = append(cp[path], x)
					}
					if seen[f] == nil {
						seen[f] = map[string]bool{}
					}
					if !seen[f][t] && len(m.pools[f]) < maxPool {
						seen[f][t] = true
						m.pools[f] = append(m.pools[f], x)
					}
				}
			}
			walk("", obj, 0)
		}
		for f := range cp {
			sortValues(cp[f])
		}
		m.collPools[coll] = cp
	}
	for f := range m.pools {
		sortValues(m.pools[f])
	}
}

func sortValues(vs []any) {
	sort.SliceStable(vs, func(i, j int) bool { return tools.Text(vs[i]) < tools.Text(vs[j]) })
}

func (m *Model) compileColl(name string, c pack.Collection) (*CollModel, error) {
	cm := &CollModel{Name: name, Key: c.Key, Owner: c.Owner, Noun: c.Noun, Get: c.Get,
		Describe: slices.Clone(c.Describe), Compare: slices.Clone(c.Compare), Say: c.Say, Within: slices.Clone(c.Within)}
	where := "domain.yaml: collections." + name
	if cm.Key == "" {
		return nil, fmt.Errorf("%s: key is empty", where)
	}
	if cm.Noun == "" {
		cm.Noun = Singular(Words(name))
	}
	if cm.Get != "" {
		t, ok := m.Kit.Tool(cm.Get)
		if !ok {
			return nil, fmt.Errorf("%s.get: no tool %q in tools.json", where, cm.Get)
		}
		req := RequiredParams(t)
		switch {
		case slices.Contains(req, cm.Key):
			cm.GetParam = cm.Key
		case len(req) == 1:
			cm.GetParam = req[0]
		default:
			return nil, fmt.Errorf("%s.get: %s must take the key as its one required parameter (has %v)", where, cm.Get, req)
		}
	} else {
		for _, t := range m.Kit.Tools() {
			if t.Kind != record.KindRead {
				continue
			}
			// A read taking only a parameter named like the key counts
			// when it gives a record of this collection back: get_user's
			// user_id does not read a channel's recipient, keyed by the
			// same name.
			if req := RequiredParams(t); len(req) == 1 && req[0] == cm.Key && m.readsBack(&CollModel{Name: cm.Name, Key: cm.Key, Get: t.Name, GetParam: cm.Key}) {
				cm.Get, cm.GetParam = t.Name, cm.Key
				break
			}
		}
		if cm.Get == "" {
			m.scopedGet(cm)
		}
		if cm.Get == "" {
			m.listedGet(cm)
		}
	}
	if len(cm.Describe) == 0 || len(cm.Compare) == 0 {
		desc, comp := m.inferAttributes(name, cm)
		if len(cm.Describe) == 0 {
			cm.Describe = desc
		}
		if len(cm.Compare) == 0 {
			cm.Compare = comp
		}
	}
	return cm, nil
}

// scopedGet finds a nested collection's get: a read whose required
// parameters are the record's key and fields of the record that name
// its parent (/channels/{channel_id}/messages/{message_id}). A candidate
// counts only if reading the first record through it gives that record
// back, so a tool of another collection is never taken for it.
func (m *Model) scopedGet(cm *CollModel) {
	keys := m.Base.Keys(cm.Name)
	if len(keys) == 0 {
		return
	}
	v, _ := m.Base.Get(cm.Name, keys[0])
	rec, err := tools.ToObject(v)
	if err != nil {
		return
	}
	for _, t := range m.Kit.Tools() {
		req := RequiredParams(t)
		if t.Kind != record.KindRead || len(req) < 2 {
			continue
		}
		var keyParam string
		fields := map[string]string{}
		var scope []string
		for _, r := range req {
			f := fieldNamed(rec, r)
			switch {
			case keyParam == "" && (f == cm.Key || namesNoun(r, cm.Noun)):
				keyParam = r
			case f != "" && f != cm.Key:
				scope = append(scope, r)
				fields[r] = f
			}
		}
		if keyParam == "" || len(scope) != len(req)-1 {
			continue
		}
		c := &CollModel{Name: cm.Name, Key: cm.Key, Get: t.Name, GetParam: keyParam, Scope: scope, ScopeField: fields}
		if m.readsBack(c) {
			cm.Get, cm.GetParam, cm.Scope, cm.ScopeField = t.Name, keyParam, scope, fields
			return
		}
	}
}

// listedGet finds, for a nested collection no tool reads by key, a read
// that lists one parent's records (GET /channels/{channel_id}/pins):
// every required parameter names a field of the record other than its
// key that holds another record's key (its parent's), and the first
// record is among what the read lists for its own parent, agreeing with
// it field by field, so another collection's list whose ids look the
// same is never taken for it.
func (m *Model) listedGet(cm *CollModel) {
	key, rec, ok := m.firstRecord(cm)
	if !ok || rec == nil {
		return
	}
	for _, t := range m.Kit.Tools() {
		req := RequiredParams(t)
		if t.Kind != record.KindRead || len(req) == 0 {
			continue
		}
		fields := map[string]string{}
		for _, r := range req {
			if f := fieldNamed(rec, r); f != "" && f != cm.Key && m.isKeyElsewhere(cm.Name, rec[f]) {
				fields[r] = f
			}
		}
		if len(fields) != len(req) {
			continue // a search by attributes (genre, year) lists no parent's records
		}
		c := &CollModel{Name: cm.Name, Key: cm.Key, Get: t.Name, Scope: req, ScopeField: fields, GetLists: true}
		res := m.Kit.Exec(context.Background(), m.Base.NewState(), t.Name, mustJSON(m.GetArgs(c, key)))
		if res.Err {
			continue
		}
		for _, field := range listFields(res.Value) {
			c.GetField = field
			if m.RecordOf(c, key, res.Value) != nil && m.listsRecordsOf(c, res.Value, field, m.keysIn(c, res.Value, field)) {
				cm.Get, cm.Scope, cm.ScopeField, cm.GetLists, cm.GetField = t.Name, req, fields, true, field
				return
			}
		}
	}
}

// isKeyElsewhere reports whether a field's value is the key of a record
// of another collection: the field names the record's parent.
func (m *Model) isKeyElsewhere(coll string, v any) bool {
	k := tools.Text(v)
	if k == "" {
		return false
	}
	for _, other := range m.Base.Collections() {
		if other == coll {
			continue
		}
		if _, ok := m.Base.Get(other, k); ok {
			return true
		}
	}
	return false
}

// RecordOf is key's record in what c's get returned: the result itself,
// or, for a get that lists a parent's records, the element holding the
// key; nil when the result holds no such record.
func (m *Model) RecordOf(c *CollModel, key string, out any) map[string]any {
	if !c.GetLists {
		obj, _ := out.(map[string]any)
		return obj
	}
	list := out
	if c.GetField != "" {
		list, _ = ValueAt(out, c.GetField)
	}
	l, _ := list.([]any)
	for _, e := range l {
		if x, ok := e.(map[string]any); ok && tools.Text(x[c.Key]) == key {
			return x
		}
	}
	return nil
}

// holds counts the parameters among names, other than c's key, that
// name a field of c's first record.
func (m *Model) holds(c *CollModel, names []string) int {
	n := 0
	for _, p := range names {
		if f := m.fieldOf(c, p); f != "" && f != c.Key && p != c.GetParam {
			n++
		}
	}
	return n
}

// fieldOf is the field of c's records that a parameter names, as
// fieldNamed finds it on the first record; "" when none (or no c).
func (m *Model) fieldOf(c *CollModel, param string) string {
	if c == nil {
		return ""
	}
	_, rec, ok := m.firstRecord(c)
	if !ok || rec == nil {
		return ""
	}
	return fieldNamed(rec, param)
}

// firstRecord is c's first record by key; ok is false when it is not an
// object, rec nil when c has none.
func (m *Model) firstRecord(c *CollModel) (key string, rec map[string]any, ok bool) {
	keys := m.Base.Keys(c.Name)
	if len(keys) == 0 {
		return "", nil, true
	}
	v, _ := m.Base.Get(c.Name, keys[0])
	rec, err := tools.ToObject(v)
	return keys[0], rec, err == nil
}

// addresses reports whether a parameter locates records of c rather
// than setting a value: a read of c requires it (list_guild_templates
// takes guild_id; no read of a messaging configuration takes the
// MessagingServiceSid an update sets).
func (m *Model) addresses(c *CollModel, param string) bool {
	for _, t := range m.Kit.Tools() {
		if t.Kind != record.KindRead || !slices.Contains(RequiredParams(t), param) {
			continue
		}
		if t.Name == c.Get || c.List != nil && t.Name == c.List.Tool {
			return true
		}
		words := " " + singularWords(Words(t.Name)) + " "
		if strings.Contains(words, " "+c.Noun+" ") || strings.Contains(words, " "+Singular(Words(c.Name))+" ") {
			return true
		}
	}
	return false
}

// IDName reports whether a parameter's name says it holds ids of records
// (guild_id, ServiceSid, webhook_token, item_ids) rather than values.
func IDName(param string) bool {
	for _, suffix := range []string{"_id", "Id", "ID", "Sid", "_token", "_ids", "Ids"} {
		if strings.HasSuffix(param, suffix) {
			return true
		}
	}
	return param == "id"
}

// readsBack reports whether c's get, given the first record's key (and
// scope), returns that record.
func (m *Model) readsBack(c *CollModel) bool {
	key, rec, ok := m.firstRecord(c)
	if !ok || rec == nil {
		return ok // no record: the name is all there is to go by
	}
	res := m.Kit.Exec(context.Background(), m.Base.NewState(), c.Get, mustJSON(m.GetArgs(c, key)))
	got := m.RecordOf(c, key, res.Value)
	return got != nil && !res.Err && tools.Text(got[c.Key]) == tools.Text(rec[c.Key])
}

// singularWords makes every word of a phrase singular.
func singularWords(s string) string {
	f := strings.Fields(s)
	for i, w := range f {
		f[i] = Singular(w)
	}
	return strings.Join(f, " ")
}

// namesNoun reports whether a parameter names a record by its noun:
// emoji_id an emoji, guild_scheduled_event_id a scheduled event.
func namesNoun(param, noun string) bool {
	base, ok := strings.CutSuffix(param, "_id")
	if !ok || noun == "" {
		return false
	}
	n := strings.ReplaceAll(noun, " ", "_")
	return base == lastWord(noun) || base == n || strings.HasSuffix(base, "_"+n)
}

// createsInto reports whether a tool makes a record of c, so that c's key
// among its parameters is the new record's (optional, or absent), not a
// target: a create named for c's own noun whose key is not required.
func createsInto(toolWords string, c *CollModel, req []string) bool {
	// The verb leads (create_order) or follows the resource
	// (domains_create, DigitalOcean's style).
	f := strings.Fields(toolWords)
	creates := func(verb string) bool {
		switch verb {
		case "create", "add", "new", "post", "insert", "place", "submit":
			return true
		}
		return false
	}
	if len(f) == 0 || !creates(f[0]) && (len(f) < 2 || !creates(f[1])) {
		return false
	}
	if slices.Contains(req, c.Key) || c.GetParam != "" && slices.Contains(req, c.GetParam) {
		return false
	}
	words := " " + singularWords(toolWords) + " " // domains_create makes a domain
	return strings.Contains(words, " "+c.Noun+" ") || strings.Contains(words, " "+Singular(Words(c.Name))+" ")
}

// nounAt is where a collection's noun last occurs in a tool's words
// (-1 when it does not).
func nounAt(toolWords string, c *CollModel) int {
	return max(strings.LastIndex(toolWords, " "+c.Noun+" "), strings.LastIndex(toolWords, " "+Singular(Words(c.Name))+" "))
}

// fieldNamed is the record's field a parameter names: the same name, or
// the same once case and underscores are set aside (ServiceSid and
// service_sid); "" when none.
func fieldNamed(rec map[string]any, param string) string {
	if _, ok := rec[param]; ok {
		return param
	}
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	for _, f := range slices.Sorted(maps.Keys(rec)) {
		if norm(f) == norm(param) {
			return f
		}
	}
	return ""
}

func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

func mustJSON(v any) string {
	raw, _ := tools.Marshal(v)
	return string(raw)
}

// inferAttributes finds the fields a customer names a record by: string
// fields with few distinct values and dates (describe), numbers and
// dates (compare).
func (m *Model) inferAttributes(name string, c *CollModel) ([]string, []string) {
	keys := m.Base.Keys(name)
	n := len(keys)
	if n == 0 {
		return nil, nil
	}
	distinct := map[string]map[string]bool{}
	present := map[string]int{}
	numeric := map[string]bool{}
	dates := map[string]bool{}
	sample := keys
	if len(sample) > 2000 {
		sample = sample[:2000]
	}
	for _, k := range sample {
		v, _ := m.Base.Get(name, k)
		obj, err := tools.ToObject(v)
		if err != nil {
			continue
		}
		for f, x := range obj {
			if f == c.Key || f == c.Owner {
				continue
			}
			switch y := x.(type) {
			case string:
				if distinct[f] == nil {
					distinct[f] = map[string]bool{}
				}
				distinct[f][y] = true
				present[f]++
				if isDate(y) {
					dates[f] = true
				}
			case float64, int64, int, json.Number:
				numeric[f] = true
				present[f]++
			}
		}
	}
	var desc, comp []string
	limit := max(12, len(sample)/20)
	for f, vals := range distinct {
		if present[f] < len(sample)*9/10 {
			continue
		}
		if dates[f] {
			comp = append(comp, f)
			continue
		}
		if len(vals) >= 2 && len(vals) <= limit {
			desc = append(desc, f)
		}
	}
	for f := range numeric {
		if present[f] >= len(sample)*9/10 {
			comp = append(comp, f)
		}
	}
	sort.Strings(desc)
	sort.Strings(comp)
	return desc, comp
}

func isDate(s string) bool {
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	_, err := time.Parse("2006-01-02", s[:10])
	return err == nil
}

func (m *Model) compileUsers(u pack.Users) error {
	c := m.Colls[u.Collection]
	if c == nil {
		return fmt.Errorf("domain.yaml: users.collection %q is not a collection", u.Collection)
	}
	um := &UserModel{Coll: c, Name: slices.Clone(u.Name), Details: c.Get, DetailsParam: c.GetParam}
	if c.GetLists {
		um.Details, um.DetailsParam = "", "" // a list of a parent's records details no one user
	}
	if len(u.Identify) == 0 {
		return errors.New("domain.yaml: users.identify is empty: give at least one tool that finds a user")
	}
	for i, id := range u.Identify {
		t, ok := m.Kit.Tool(id.Tool)
		if !ok {
			return fmt.Errorf("domain.yaml: users.identify[%d].tool: no tool %q in tools.json", i, id.Tool)
		}
		im := IdentifyModel{Tool: id.Tool, Paths: maps.Clone(id.Args)}
		for _, p := range RequiredParams(t) {
			if _, ok := id.Args[p]; !ok {
				return fmt.Errorf("domain.yaml: users.identify[%d].args: required parameter %q of %s has no user field", i, p, id.Tool)
			}
		}
		im.Params = slices.Sorted(maps.Keys(id.Args))
		um.Identify = append(um.Identify, im)
	}
	if len(um.Name) == 0 {
		um.Name = m.inferName(c)
	}
	m.Users = um
	m.userKeys = slices.Clone(m.Base.Keys(c.Name))
	return nil
}

// inferName finds the name fields of a user record.
func (m *Model) inferName(c *CollModel) []string {
	keys := m.Base.Keys(c.Name)
	if len(keys) == 0 {
		return nil
	}
	v, _ := m.Base.Get(c.Name, keys[0])
	obj, err := tools.ToObject(v)
	if err != nil {
		return nil
	}
	for _, cand := range [][]string{{"name.first_name", "name.last_name"}, {"first_name", "last_name"}, {"name.first", "name.last"},
		{"full_name"}, {"name"}, {"display_name"}, {"username"}} {
		ok := true
		for _, p := range cand {
			x, found := ValueAt(obj, p)
			if s, isStr := x.(string); !found || !isStr || s == "" {
				ok = false
			}
		}
		if ok {
			return cand
		}
	}
	return nil
}

// compileList resolves (or infers) how the agent learns a collection's
// candidate records and indexes, per user, what that list shows.
func (m *Model) compileList(ctx context.Context, c *CollModel, ref *pack.ListRef) error {
	where := "domain.yaml: collections." + c.Name + ".list"
	if ref != nil {
		t, ok := m.Kit.Tool(ref.Tool)
		if !ok {
			return fmt.Errorf("%s.tool: no tool %q in tools.json", where, ref.Tool)
		}
		lm := &ListModel{Tool: ref.Tool, Field: ref.Field, By: ref.By}
		if ref.By != "" && c.Get == "" {
			return fmt.Errorf("%s.by: a list by %s needs a get tool to read the record it finds", where, ref.By)
		}
		req := RequiredParams(t)
		if c.Owner != "" && m.Users != nil {
			switch {
			case slices.Contains(req, m.Users.Coll.Key):
				lm.Param = m.Users.Coll.Key
			case len(req) == 1:
				lm.Param = req[0]
			default:
				return fmt.Errorf("%s.tool: %s must take the user's key as its one required parameter (has %v)", where, ref.Tool, req)
			}
		} else if len(req) > 0 {
			// Without users, a list scoped by a parent record cannot show
			// a customer's candidates; tasks name these records by key.
			return nil
		}
		c.List = lm
	} else {
		c.List = m.inferList(ctx, c)
	}
	if c.List == nil {
		return nil
	}
	if c.List.Param == "" {
		keys, recs, ok := m.listed(ctx, c, "")
		if ok {
			m.allKeys[c.Name] = keys
			m.listRecs[c.Name] = recs != nil
		}
		return nil
	}
	owned := map[string][]string{}
	byCount := map[int][]string{}
	for _, u := range m.userKeys {
		keys, recs, ok := m.listed(ctx, c, u)
		if !ok {
			continue
		}
		if len(keys) > 0 {
			m.listRecs[c.Name] = recs != nil
		}
		owned[u] = keys
		byCount[len(keys)] = append(byCount[len(keys)], u)
	}
	m.owned[c.Name], m.byCount[c.Name] = owned, byCount
	m.owners[c.Name] = ownersFrom(byCount, 1)
	return nil
}

// inferList looks for a read tool that, given a user's key (owned
// collections) or nothing (ownerless ones), returns the collection's
// keys or records.
func (m *Model) inferList(ctx context.Context, c *CollModel) *ListModel {
	owned := c.Owner != "" && m.Users != nil
	var sampleUser string
	var sampleKey string
	if owned {
		for _, k := range m.Base.Keys(c.Name) {
			v, _ := m.Base.Get(c.Name, k)
			obj, err := tools.ToObject(v)
			if err != nil {
				continue
			}
			if u := tools.Text(obj[c.Owner]); u != "" {
				if _, ok := m.Base.Get(m.Users.Coll.Name, u); ok {
					sampleUser, sampleKey = u, k
					break
				}
			}
		}
		if sampleUser == "" {
			return nil
		}
	} else if keys := m.Base.Keys(c.Name); len(keys) > 0 {
		sampleKey = keys[0]
	} else {
		return nil
	}
	for _, t := range m.Kit.Tools() {
		if t.Kind != record.KindRead || t.Name == c.Get {
			continue
		}
		req := RequiredParams(t)
		args := map[string]any{}
		lm := &ListModel{Tool: t.Name}
		if owned {
			if len(req) != 1 || (req[0] != m.Users.Coll.Key && req[0] != m.Users.DetailsParam) {
				continue
			}
			lm.Param = req[0]
			args[req[0]] = sampleUser
		} else if len(req) != 0 {
			continue
		}
		out, ok := m.Read(ctx, nil, t.Name, args)
		if !ok {
			continue
		}
		for _, field := range listFields(out) {
			lm.Field = field
			if keys := m.keysIn(c, out, field); slices.Contains(keys, sampleKey) && m.listsRecordsOf(c, out, field, keys) {
				return lm
			}
		}
	}
	return nil
}

// listsRecordsOf reports whether a list result shows the collection's
// own records, not another's whose keys look the same (ids "0", "1"
// recur in every collection of an imported API): every key listed is a
// key of the collection, and a listed record agrees with the
// collection's record of its key on every field both hold, one at least
// besides the key.
func (m *Model) listsRecordsOf(c *CollModel, out any, field string, keys []string) bool {
	for _, k := range keys {
		if _, ok := m.Base.Get(c.Name, k); !ok {
			return false
		}
	}
	var list any = out
	if field != "" {
		list, _ = ValueAt(out, field)
	}
	l, _ := list.([]any)
	for _, e := range l {
		x, ok := e.(map[string]any)
		if !ok {
			return true // a list of keys, all of them the collection's
		}
		v, _ := m.Base.Get(c.Name, tools.Text(x[c.Key]))
		rec, err := tools.ToObject(v)
		if err != nil {
			return false
		}
		// An element of another kind (a channel's permission overwrite
		// {id, type, allow, deny} beside a pin {id, type, …}) may agree
		// on a field or two by chance; it holds fields the record lacks.
		shared, foreign := 0, 0
		for f, xv := range x {
			rv, ok := rec[f]
			if !ok {
				foreign++
			}
			if !ok || f == c.Key {
				continue
			}
			if _, nested := xv.(map[string]any); nested {
				continue
			}
			if _, nested := xv.([]any); nested {
				continue
			}
			if tools.Text(xv) != tools.Text(rv) {
				return false
			}
			shared++
		}
		return shared > 0 && foreign <= shared
	}
	return true
}

// listFields are the candidate paths of a list in a result: the result
// itself, then its top-level list fields in name order.
func listFields(out any) []string {
	fields := []string{""}
	if obj, ok := out.(map[string]any); ok {
		for _, f := range slices.Sorted(maps.Keys(obj)) {
			if _, isList := obj[f].([]any); isList {
				fields = append(fields, f)
			}
		}
	}
	return fields
}

// keysIn reads the keys a list result shows: its elements are keys or
// records holding the key field.
func (m *Model) keysIn(c *CollModel, out any, field string) []string {
	var list any = out
	if field != "" {
		list, _ = ValueAt(out, field)
	}
	l, ok := list.([]any)
	if !ok {
		return nil
	}
	keys := make([]string, 0, len(l))
	for _, e := range l {
		switch x := e.(type) {
		case map[string]any:
			if k := tools.Text(x[c.Key]); k != "" {
				keys = append(keys, k)
			}
		case string:
			keys = append(keys, x)
		default:
			keys = append(keys, tools.Text(x))
		}
	}
	return keys
}

// ListedRecords splits a list result into keys and, when the list holds
// whole records, the records themselves (then no per-record read is
// needed). A list by a field gives records of that field and the key
// only. Agents and the generator read lists the same way.
func (m *Model) ListedRecords(c *CollModel, out any) ([]string, []map[string]any) {
	var list any = out
	if c.List.Field != "" {
		list, _ = ValueAt(out, c.List.Field)
	}
	if c.List.By != "" {
		obj, _ := list.(map[string]any)
		var keys []string
		var recs []map[string]any
		for _, name := range slices.Sorted(maps.Keys(obj)) {
			k := tools.Text(obj[name])
			keys = append(keys, k)
			recs = append(recs, map[string]any{c.List.By: name, c.Key: k})
		}
		return keys, recs
	}
	l, _ := list.([]any)
	keys := make([]string, 0, len(l))
	var recs []map[string]any
	for _, e := range l {
		if x, ok := e.(map[string]any); ok {
			keys = append(keys, tools.Text(x[c.Key]))
			recs = append(recs, x)
			continue
		}
		keys = append(keys, tools.Text(e))
	}
	if len(recs) != len(keys) {
		recs = nil
	}
	return keys, recs
}

// listed runs a collection's list tool on the base for a user ("" for a
// list of every record), every page of it, and returns the keys it shows.
func (m *Model) listed(ctx context.Context, c *CollModel, user string) ([]string, []map[string]any, bool) {
	args := map[string]any{}
	if c.List.Param != "" {
		args[c.List.Param] = user
	}
	n := 0
	l, ok := m.ReadList(c, args, func(args map[string]any) (any, bool) {
		n++
		return m.Read(ctx, nil, c.List.Tool, args)
	})
	if ok && n > 1 {
		m.pages[c.Name+"/"+user] = n
	}
	return l.Keys, l.Recs, ok
}

// MaxPages bounds the pages of one list read, so that a tool whose
// result always names a next page cannot loop.
const MaxPages = 50

// NextPage gives the arguments that read the page after out, a result of
// the paged list tool called with args: a result with more records than
// it holds says where the next page starts ("next_page": 2,
// "next_offset": 20), named after one of the tool's parameters. nil when
// out is the last page.
func (m *Model) NextPage(tool string, args map[string]any, out any) map[string]any {
	obj, _ := out.(map[string]any)
	var pages []string // the only keys that matter, so the only ones sorted
	for k := range obj {
		if strings.HasPrefix(k, "next_") {
			pages = append(pages, k)
		}
	}
	slices.Sort(pages)
	for _, k := range pages {
		param, _ := strings.CutPrefix(k, "next_")
		if obj[k] == nil || m.ParamSchema(tool, param) == nil {
			continue
		}
		next := maps.Clone(args)
		if next == nil {
			next = map[string]any{}
		}
		next[param] = obj[k]
		return next
	}
	return nil
}

// Listing is what a list read gave: the keys of all its pages and, when
// the list holds whole records, the records (as ListedRecords gives).
// Partial is set when the last result counts more records ("total": N)
// than were read and names no next page (a list paged by a cursor the
// tool takes, or one past MaxPages): no description may then compare
// the records, as the best may be among those not shown.
type Listing struct {
	Keys    []string
	Recs    []map[string]any
	Partial bool
}

// ReadList reads a collection's list from the first page (the call with
// args) to the last through read, which runs one call of the list tool:
// a description such as "the most recent droplet" is about every
// record, not the first page's. ok is false when a page cannot be read.
func (m *Model) ReadList(c *CollModel, args map[string]any, read func(map[string]any) (any, bool)) (Listing, bool) {
	var l Listing
	whole := true
	var out any
	for n := 0; args != nil && n < MaxPages; n++ {
		var ok bool
		if out, ok = read(args); !ok {
			return Listing{}, false
		}
		k, r := m.ListedRecords(c, out)
		if len(k) > 0 && r == nil {
			whole = false
		}
		l.Keys, l.Recs = append(l.Keys, k...), append(l.Recs, r...)
		args = m.NextPage(c.List.Tool, args, out)
	}
	if !whole || len(l.Recs) != len(l.Keys) {
		l.Recs = nil
	}
	if obj, isObj := out.(map[string]any); isObj {
		if n, isNum := Number(obj["total"]); isNum && n > float64(len(l.Keys)) {
			l.Partial = true
		}
	}
	return l, true
}

func (m *Model) compileSearch(s pack.Search) (*SearchModel, error) {
	where := "domain.yaml: hints.searches." + s.Name
	if s.Name == "" {
		return nil, errors.New("domain.yaml: hints.searches: a search has no name")
	}
	if _, dup := m.Colls[s.Name]; dup {
		return nil, fmt.Errorf("%s: the name is also a collection's", where)
	}
	if len(s.Tools) == 0 {
		return nil, fmt.Errorf("%s.tools: empty", where)
	}
	sm := &SearchModel{Name: s.Name, Noun: Singular(Words(s.Name)), Tools: slices.Clone(s.Tools), Grid: slices.Clone(s.Grid),
		Items: s.Items, Compare: slices.Clone(s.Compare), Describe: slices.Clone(s.Describe), Say: s.Say, Detail: s.Detail, Legs: s.Legs,
		types: map[string]map[string]any{}, pools: map[string][]string{}}
	params := map[string]bool{}
	for _, tn := range s.Tools {
		t, ok := m.Kit.Tool(tn)
		if !ok {
			return nil, fmt.Errorf("%s.tools: no tool %q in tools.json", where, tn)
		}
		if t.Kind != record.KindRead {
			return nil, fmt.Errorf("%s.tools: %s is a %s tool; searches are reads", where, tn, t.Kind)
		}
		for _, p := range RequiredParams(t) {
			params[p] = true
			if sm.types[p] == nil {
				sm.types[p] = paramSchema(t, p)
			}
		}
	}
	sm.Params = slices.Sorted(maps.Keys(params))
	for _, g := range sm.Grid {
		if !params[g] {
			return nil, fmt.Errorf("%s.grid: %q is not a required parameter of the search tools %v", where, g, s.Tools)
		}
	}
	if len(sm.Compare) == 0 {
		return nil, fmt.Errorf("%s.compare: give at least one candidate field a customer picks by (price)", where)
	}
	if r := s.Return; r != nil {
		if len(r.Swap) != 2 || !params[r.Swap[0]] || !params[r.Swap[1]] || !params[r.After] || sm.Legs == nil || r.Kind == "" {
			return nil, fmt.Errorf("%s.return: swap two required parameters of the search tools, move a date one (after) later, on a search of legs, and name the kind field", where)
		}
		sm.Return = r
	}
	best := 0
	for _, coll := range m.Base.Collections() {
		keys := m.Base.Keys(coll)
		if len(keys) == 0 {
			continue
		}
		v, _ := m.Base.Get(coll, keys[0])
		obj, err := tools.ToObject(v)
		if err != nil {
			continue
		}
		var fields []string
		for _, p := range sm.Params {
			if x, ok := obj[p]; ok && x != nil {
				fields = append(fields, p)
			}
		}
		if len(fields) > best {
			best, sm.SeedColl, sm.SeedFields = len(fields), coll, fields
		}
	}
	for _, p := range sm.Params {
		sm.pools[p] = m.paramPool(p, sm.types[p])
		if len(sm.pools[p]) == 0 {
			return nil, fmt.Errorf("%s: no values known for parameter %q (give it an enum, a date format, or data with a field of that name)", where, p)
		}
	}
	return sm, nil
}

// paramPool lists values a customer may give for a search parameter:
// the schema's enum, dates after the clock, or the values fields of that
// name take in the database.
func (m *Model) paramPool(name string, schema map[string]any) []string {
	if enum := enumOf(schema); len(enum) > 0 {
		return enum
	}
	if isDateParam(name, schema) {
		out := make([]string, 0, 28)
		for d := 1; d <= 28; d++ {
			out = append(out, m.Clock.AddDate(0, 0, d).Format("2006-01-02"))
		}
		return out
	}
	var out []string
	for _, v := range m.pools[name] {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func isDateParam(name string, schema map[string]any) bool {
	if f, _ := schema["format"].(string); f == "date" {
		return true
	}
	if p, _ := schema["pattern"].(string); strings.Contains(p, `\d{4}-\d{2}-\d{2}`) {
		return true
	}
	return ParamType(schema) == "string" && (name == "date" || strings.HasSuffix(name, "_date") || strings.HasPrefix(name, "date_"))
}

// compileWrite decides a write's target and each parameter's source.
func (m *Model) compileWrite(t *tools.Tool, hint pack.WriteHint) (*WriteModel, error) {
	w := &WriteModel{Tool: t, Name: t.Name, Phrase: hint.Phrase, Outputs: slices.Clone(hint.Outputs), When: hint.When, Refuse: hint.Refuse, Refusals: slices.Clone(hint.Refusals), RefusalRule: hint.RefusalRule, Situation: hint.Situation, Follows: slices.Clone(hint.Follows), param: map[string]*ParamModel{}, onBase: new(sync.Map)}
	props := properties(t)
	req := RequiredParams(t)
	userKey := ""
	if m.Users != nil {
		userKey = m.Users.Coll.Key
	}
	// The target: a hint, else the first parameter named like a
	// collection's key (owned collections first), else the user.
	switch {
	case hint.Target != "":
		if c := m.Colls[hint.Target]; c != nil {
			w.TargetKind, w.Coll = TargetColl, c
			if m.Users != nil && c == m.Users.Coll {
				w.TargetKind, w.Coll = TargetUser, nil
			}
		} else if s := m.Searches[hint.Target]; s != nil {
			w.TargetKind, w.Search = TargetSearch, s
		} else {
			return nil, fmt.Errorf("target %q is neither a collection nor a search", hint.Target)
		}
	default:
		// A parameter named like a collection's key; a generic key name
		// ("id") counts only when the tool's name names the collection.
		var best *CollModel
		bestScore := 0
		toolWords := " " + Words(t.Name) + " "
		// delete_all_message_reactions_by_emoji names reactions.
		singWords := " " + singularWords(Words(t.Name)) + " "
		for _, name := range slices.Sorted(maps.Keys(m.Colls)) {
			c := m.Colls[name]
			if m.Users != nil && c == m.Users.Coll {
				continue
			}
			_, byKey := props[c.Key]
			_, byGet := props[c.GetParam]
			if !byKey && !(byGet && c.GetParam != "") {
				continue
			}
			score := 1
			for _, words := range []string{toolWords, singWords} {
				if strings.Contains(words, " "+c.Noun+" ") || strings.Contains(words, " "+Singular(Words(c.Name))+" ") {
					score += 2
					break
				}
			}
			if c.Owner != "" {
				score++
			}
			if genericKey(c.Key) && (!byGet || genericKey(c.GetParam)) && score < 3 {
				continue
			}
			if slices.ContainsFunc(c.Scope, func(s string) bool { return props[s] == nil }) {
				// The record is read within a parent the tool cannot name:
				// delete_guild_emoji has no application_id.
				continue
			}
			// On a tie the collection whose records hold more of the
			// tool's required parameters is the target (a member's role
			// holds guild_id and user_id, a guild's role only guild_id),
			// then the one read within more parents, then the one named
			// last in the tool's name: delete_guild_role acts on a role of
			// a guild.
			if best == nil || score > bestScore || score == bestScore && cmp.Or(
				cmp.Compare(m.holds(c, req), m.holds(best, req)),
				cmp.Compare(len(c.Scope), len(best.Scope)),
				cmp.Compare(nounAt(toolWords, c), nounAt(toolWords, best))) > 0 {
				best, bestScore = c, score
			}
		}
		switch {
		case best != nil && createsInto(toolWords, best, req):
			// createSpecialEvent's optional eventId names the record it
			// makes, not one it acts on.
			w.TargetKind = TargetNone
		case best != nil:
			w.TargetKind, w.Coll = TargetColl, best
		case userKey != "" && props[userKey] != nil:
			w.TargetKind = TargetUser
		default:
			w.TargetKind = TargetNone
		}
	}
	if w.TargetKind == TargetColl && w.Coll.Unread() && w.Coll.Owner != "" && m.Users != nil {
		// A customer is never told the keys of records no tool shows.
		return nil, fmt.Errorf("target collection %s belongs to customers and has no get tool to read a record by key", w.Coll.Name)
	}
	if (len(w.When) > 0 || len(w.Refusals) > 0 || len(hint.Checks) > 0) && w.TargetKind != TargetColl {
		return nil, errors.New("when:, refusals: and checks: need a target collection")
	}
	if len(hint.Checks) > 0 {
		w.Checks = slices.Clone(hint.Checks)
		m.boundChecks(w)
	}
	if w.TargetKind == TargetUser && m.Users == nil {
		return nil, errors.New("targets the user but the pack has no users")
	}
	names := slices.Sorted(maps.Keys(props))
	hinted := len(hint.Args) > 0
	for _, name := range names {
		schema, _ := props[name].(map[string]any)
		p := &ParamModel{Name: name, Schema: schema, Required: slices.Contains(req, name)}
		src, isHinted := hint.Args[name]
		switch {
		case isHinted:
			if err := m.hintedArg(w, p, src); err != nil {
				return nil, fmt.Errorf("args.%s: %w", name, err)
			}
		case hinted && !p.Required:
			continue // a hint lists the optional parameters it wants
		default:
			if !m.inferSource(w, p, userKey) {
				if p.Required {
					return nil, fmt.Errorf("no source for required parameter %q (%s); say where it comes from in hints.writes.%s.args", name, ParamType(schema), t.Name)
				}
				continue
			}
			// The target's key and parents are how the write addresses
			// it: always passed, optional in the schema or not.
			p.Optional = !p.Required && p.Source != SrcTargetKey && p.Source != SrcTarget
		}
		wordSlot(p)
		w.Params = append(w.Params, p)
		w.param[name] = p
	}
	for name := range hint.Args {
		if _, ok := props[name]; !ok {
			return nil, fmt.Errorf("args.%s: %s has no such parameter", name, t.Name)
		}
	}
	for _, p := range w.Params {
		if p.Source == SrcReplace && (w.param[p.Replace.Of] == nil || w.param[p.Replace.Of].Source != SrcPick) {
			return nil, fmt.Errorf("args.%s: replace.of %q is not a pick argument", p.Name, p.Replace.Of)
		}
	}
	for _, o := range w.Outputs {
		if _, src, ok := strings.Cut(o, "="); ok {
			e, err := parseExpr(src)
			if err != nil {
				return nil, fmt.Errorf("outputs: %q: %w", o, err)
			}
			if w.outputExprs == nil {
				w.outputExprs = map[string]*expr{}
			}
			w.outputExprs[o] = e
		}
	}
	return w, nil
}

// wordSlot gives a slot the pack says nothing about the values a person
// answers with: a yes/no setting as itself ("enabled", "not enabled"),
// never "True"; a list of codes (regions: [us_east, …]) one of its codes.
func wordSlot(p *ParamModel) {
	if p.Source != SrcSlot || len(p.Choices) > 0 || p.Say != nil {
		return
	}
	switch ParamType(p.Schema) {
	case "boolean":
		w := strings.TrimPrefix(ArgWords(p.Name), "is ")
		p.Choices = []string{"true", "false"}
		p.Say = map[string]string{"true": w, "false": "not " + w}
	case "array":
		items, _ := p.Schema["items"].(map[string]any)
		p.Choices = enumOf(items)
	}
}

func (m *Model) hintedSource(w *WriteModel, p *ParamModel, src string) error {
	switch {
	case strings.HasPrefix(src, "target."):
		if w.TargetKind != TargetColl && w.TargetKind != TargetSearch {
			if w.TargetKind == TargetUser {
				p.Source, p.Path = SrcUser, strings.TrimPrefix(src, "target.")
				return nil
			}
			return fmt.Errorf("%q needs a target collection or search", src)
		}
		p.Source, p.Path = SrcTarget, strings.TrimPrefix(src, "target.")
		if path, keep, ok := CutKeep(p.Path); ok {
			// target.flights[flight_number,date]: each element with these
			// fields only, as the write names them.
			p.Path, p.Keep = path, keep
		}
		if w.TargetKind == TargetColl && p.Path == w.Coll.Key {
			p.Source = SrcTargetKey
		}
	case strings.HasPrefix(src, "user."):
		if m.Users == nil {
			return fmt.Errorf("%q but the pack has no users", src)
		}
		p.Source, p.Path = SrcUser, strings.TrimPrefix(src, "user.")
		if p.Path == m.Users.Coll.Key {
			p.Source = SrcUserKey
		}
	case src == "slot":
		p.Source = SrcSlot
		if enum := enumOf(p.Schema); len(enum) > 0 {
			p.Choices = enum
		} else if w.TargetKind == TargetColl && m.collPools[w.Coll.Name][p.Name] != nil {
			p.Path = p.Name
		} else if f := m.fieldOf(w.Coll, p.Name); f != "" && m.collPools[w.Coll.Name][f] != nil {
			// The field under another spelling: FriendlyName sets
			// friendly_name.
			p.Path = f
		} else if !m.canDraw(p.Name, p.Schema) {
			return fmt.Errorf("slot of type %s cannot be drawn from its schema; use slot:A|B or const:JSON", ParamType(p.Schema))
		}
	case strings.HasPrefix(src, "slot:"):
		p.Source, p.Choices = SrcSlot, strings.Split(strings.TrimPrefix(src, "slot:"), "|")
	case strings.HasPrefix(src, "key:"):
		coll := strings.TrimPrefix(src, "key:")
		if m.Colls[coll] == nil {
			return fmt.Errorf("%q: want key:COLLECTION", src)
		}
		p.Source, p.KeysOf = SrcSlot, coll
	case strings.HasPrefix(src, "like:"):
		group, field, ok := CutLast(strings.TrimPrefix(src, "like:"))
		coll, _, _ := strings.Cut(group, ".")
		if !ok || m.Colls[coll] == nil {
			return fmt.Errorf("%q: want like:COLLECTION.PATH.FIELD", src)
		}
		p.Source, p.Group, p.Path = SrcLike, group, field
	case strings.HasPrefix(src, "const:"):
		p.Source = SrcConst
		if err := json.Unmarshal([]byte(strings.TrimPrefix(src, "const:")), &p.Const); err != nil {
			return fmt.Errorf("%q is not const:JSON: %w", src, err)
		}
	case strings.HasPrefix(src, "compute:"):
		name := strings.TrimPrefix(src, "compute:")
		p.Source, p.ComputeName, p.Compute = SrcCompute, name, m.computes[name]
		if p.Compute == nil {
			return fmt.Errorf("%q: the pack's policy code (or handlers file) defines no function %s", src, name)
		}
	default:
		return fmt.Errorf("source %q: want target.PATH, user.PATH, slot, slot:A|B, key:COLLECTION, const:JSON or compute:FUNCTION", src)
	}
	return nil
}

// inferSource fills a parameter's source from its name and schema; it
// reports false when none fits.
func (m *Model) inferSource(w *WriteModel, p *ParamModel, userKey string) bool {
	if w.TargetKind == TargetColl && (p.Name == w.Coll.Key || p.Name == w.Coll.GetParam) {
		p.Source = SrcTargetKey
		return true
	}
	if w.TargetKind == TargetColl && w.Coll.ScopeField[p.Name] != "" {
		// The parent the target belongs to: its own, never a new value.
		p.Source, p.Path = SrcTarget, w.Coll.ScopeField[p.Name]
		return true
	}
	if w.TargetKind == TargetColl && p.Required && IDName(p.Name) && scalarType(ParamType(p.Schema)) && m.addresses(w.Coll, p.Name) {
		// A record the target refers to that the write must name too,
		// though the get does not: DELETE /guilds/{guild_id}/templates/
		// {code} takes the template's own guild.
		if f := m.fieldOf(w.Coll, p.Name); f != "" && f != w.Coll.Key {
			p.Source, p.Path = SrcTarget, f
			return true
		}
	}
	if userKey != "" && p.Name == userKey {
		p.Source = SrcUserKey
		return true
	}
	if enum := enumOf(p.Schema); len(enum) > 0 {
		p.Source, p.Choices = SrcSlot, enum
		if w.TargetKind == TargetColl && m.collPools[w.Coll.Name][p.Name] != nil {
			p.Path = p.Name
		}
		return true
	}
	if w.TargetKind == TargetColl && m.collPools[w.Coll.Name][p.Name] != nil && scalarType(ParamType(p.Schema)) {
		p.Source, p.Path = SrcSlot, p.Name
		return true
	}
	if m.canDraw(p.Name, p.Schema) {
		p.Source = SrcSlot
		return true
	}
	return false
}

// genericKey reports whether a key name says nothing of what it keys.
func genericKey(name string) bool {
	switch strings.ToLower(name) {
	case "id", "key", "uuid", "name", "code", "slug", "sid":
		return true
	}
	return false
}

func scalarType(t string) bool {
	switch t {
	case "string", "integer", "number", "boolean":
		return true
	}
	return false
}

// canDraw reports whether a value for a parameter can be drawn from its
// schema, name and the database's values.
func (m *Model) canDraw(name string, s map[string]any) bool {
	return len(m.SchemaValues(rand.New(rand.NewPCG(1, 2)), name, s)) > 0
}

// Schema helpers: tool schemas arrive as generic JSON.

func properties(t *tools.Tool) map[string]any {
	props, _ := t.Parameters["properties"].(map[string]any)
	if props == nil {
		return map[string]any{}
	}
	return props
}

func paramSchema(t *tools.Tool, name string) map[string]any {
	s, _ := properties(t)[name].(map[string]any)
	return s
}

// RequiredParams lists the names a tool's schema marks required, sorted;
// none for a nil tool.
func RequiredParams(t *tools.Tool) []string {
	out := RequiredOrder(t)
	sort.Strings(out)
	return out
}

// RequiredOrder is RequiredParams in the schema's own order, the order
// its author wrote the form in.
func RequiredOrder(t *tools.Tool) []string {
	if t == nil {
		return nil
	}
	var out []string
	switch r := t.Parameters["required"].(type) {
	case []any:
		for _, x := range r {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	case []string:
		out = append(out, r...)
	}
	return out
}

// ParamType is a schema's main type ("" when untyped); a nullable type
// list counts as its non-null member.
func ParamType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if str, ok := x.(string); ok && str != "null" {
				return str
			}
		}
	case []string:
		for _, x := range t {
			if x != "null" {
				return x
			}
		}
	}
	if len(enumOf(s)) > 0 {
		return "string"
	}
	return ""
}

// SchemaGives reports whether a tool's argument schema tells whoever
// reads it that v is a value the argument takes: its enum (or its
// items' enum) lists it, it is a yes/no of a boolean, or its
// description names it ("either 'no longer needed' or 'ordered by
// mistake'"). An agent offers a slot's values only then: an id drawn
// from a pattern or a key no record has yet is the customer's to say.
func SchemaGives(schema map[string]any, v string) bool {
	if schema == nil {
		return false
	}
	if slices.Contains(enumOf(schema), v) {
		return true
	}
	if items, ok := schema["items"].(map[string]any); ok && slices.Contains(enumOf(items), v) {
		return true
	}
	if ParamType(schema) == "boolean" && (v == "true" || v == "false") {
		return true
	}
	desc, _ := schema["description"].(string)
	if v == "" || desc == "" {
		return false
	}
	lower, want := strings.ToLower(desc), strings.ToLower(v)
	for i := 0; ; {
		j := strings.Index(lower[i:], want)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(want)
		if (start == 0 || !wordByte(lower[start-1])) && (end == len(lower) || !wordByte(lower[end])) {
			return true
		}
		i = start + 1
	}
}

func wordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z'
}

// enumOf lists the values a schema allows when it names them: an enum, a
// const, or, as 3.1 specs write enums with a title per value, the consts
// of an anyOf or oneOf (inside an allOf too).
func enumOf(s map[string]any) []string {
	var out []string
	switch e := s["enum"].(type) {
	case []any:
		for _, x := range e {
			if x != nil {
				out = append(out, tools.Text(x))
			}
		}
	case []string:
		out = append(out, e...)
	}
	if c, ok := s["const"]; ok && c != nil && len(out) == 0 {
		out = append(out, tools.Text(c))
	}
	if len(out) > 0 {
		return out
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		subs, _ := s[k].([]any)
		for _, sub := range subs {
			m, _ := sub.(map[string]any)
			if m["type"] == "null" {
				continue // a nullable enum
			}
			vals := enumOf(m)
			if len(vals) == 0 {
				return nil // a branch that allows any value: no enum
			}
			out = append(out, vals...)
		}
		if len(out) > 0 {
			return out
		}
	}
	subs, _ := s["allOf"].([]any)
	for _, sub := range subs {
		m, _ := sub.(map[string]any)
		if vals := enumOf(m); len(vals) > 0 {
			return vals
		}
	}
	return nil
}

// ParamSchema returns the schema of a tool's parameter (nil when absent).
func (m *Model) ParamSchema(tool, param string) map[string]any {
	t, ok := m.Kit.Tool(tool)
	if !ok {
		return nil
	}
	return paramSchema(t, param)
}

// GetArgs are the arguments of a collection's get tool for one key,
// with the parent's key of a nested record from the record itself (a
// get that lists the parent's records takes only those).
func (m *Model) GetArgs(c *CollModel, key string) map[string]any {
	args := map[string]any{}
	if c.GetParam != "" {
		args[c.GetParam] = Typed(m.ParamSchema(c.Get, c.GetParam), key)
	}
	m.eachScope(c, key, func(s, _ string, x any) { args[s] = Typed(m.ParamSchema(c.Get, s), tools.Text(x)) })
	return args
}

// KeysWithin are the keys a key:COLL slot of w may take on a target
// record: those of COLL whose parents are the write's own (a role of
// the member's guild), in key order.
func (m *Model) KeysWithin(w *WriteModel, pm *ParamModel, target map[string]any) []string {
	c := m.Colls[pm.KeysOf]
	if c == nil {
		return nil
	}
	want := map[string]string{}
	for _, s := range c.Scope {
		wp := w.Param(s)
		if wp == nil || wp.Source != SrcTarget && wp.Source != SrcTargetKey {
			continue
		}
		if v, ok := ValueAt(target, wp.Path); ok {
			want[c.ScopeField[s]] = tools.Text(v)
		}
	}
	var out []string
	for _, k := range m.Base.Keys(c.Name) {
		v, _ := m.Base.Get(c.Name, k)
		rec, _ := tools.ToObject(v)
		ok := true
		for f, x := range want {
			if tools.Text(rec[f]) != x {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, k)
		}
	}
	return out
}

// NamedRecord is what a customer naming an unread record tells of it:
// its key and its parents' keys, the fields a write on it takes.
func (m *Model) NamedRecord(c *CollModel, key string) map[string]any {
	out := map[string]any{c.Key: c.KeyText(key)}
	m.eachScope(c, key, func(_, field string, x any) { out[field] = x })
	return out
}

// eachScope calls f with each parent parameter of a nested record, the
// record's field holding it and that field's value.
func (m *Model) eachScope(c *CollModel, key string, f func(param, field string, x any)) {
	if len(c.Scope) == 0 {
		return
	}
	v, _ := m.Base.Get(c.Name, key)
	rec, _ := tools.ToObject(v)
	for _, s := range c.Scope {
		if x, ok := rec[c.ScopeField[s]]; ok {
			f(s, c.ScopeField[s], x)
		}
	}
}

// ScopeWords says where a nested record is ("in channel 21"): what a
// customer naming it by key must say for its get to be called; "" for a
// record that is not nested.
func (m *Model) ScopeWords(c *CollModel, key string) string {
	if len(c.Scope) == 0 {
		return ""
	}
	v, _ := m.Base.Get(c.Name, key)
	rec, _ := tools.ToObject(v)
	var parts []string
	for _, s := range c.Scope {
		if x, ok := rec[c.ScopeField[s]]; ok {
			w := Words(s)
			for _, suffix := range []string{" id", " sid", " key", " uuid", " name"} {
				w = strings.TrimSuffix(w, suffix)
			}
			parts = append(parts, w+" "+tools.Text(x))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " in " + strings.Join(parts, " and ")
}

// ListArgs are the arguments of a collection's list tool for a user:
// none when the list is not per user.
func (m *Model) ListArgs(c *CollModel, user string) map[string]any {
	args := map[string]any{}
	if c.List.Param != "" {
		args[c.List.Param] = Typed(m.ParamSchema(c.List.Tool, c.List.Param), user)
	}
	return args
}

// DetailsArgs are the arguments of the tool that reads a user's record.
func (m *Model) DetailsArgs(user string) map[string]any {
	u := m.Users
	return map[string]any{u.DetailsParam: Typed(m.ParamSchema(u.Details, u.DetailsParam), user)}
}

// Typed converts what a customer said into the type a parameter's schema
// wants; text that does not parse stays text, for the schema to reject.
func Typed(schema map[string]any, text string) any {
	switch ParamType(schema) {
	case "integer":
		var n json.Number = json.Number(strings.TrimSpace(text))
		if i, err := n.Int64(); err == nil {
			return i
		}
	case "number":
		var n json.Number = json.Number(strings.TrimSpace(text))
		if f, err := n.Float64(); err == nil {
			return f
		}
	case "boolean":
		switch strings.ToLower(strings.TrimSpace(text)) {
		case "true", "yes":
			return true
		case "false", "no":
			return false
		}
	case "object":
		if name, prop, ok := soleProperty(schema); ok {
			return map[string]any{name: Typed(prop, text)}
		}
	case "array":
		items, _ := schema["items"].(map[string]any)
		if n, ok := Number(schema["minItems"]); ok && n >= 2 {
			// A list that needs several elements is said as "a, b".
			var out []any
			for _, part := range strings.Split(text, ", ") {
				out = append(out, Typed(items, part))
			}
			return out
		}
		return []any{Typed(items, text)}
	}
	return text
}

// soleProperty is the one property of an object that has nothing else
// (access_tokens: {hugging_face_token}), when it is a scalar: a person
// states the object as that value.
func soleProperty(s map[string]any) (string, map[string]any, bool) {
	props, _ := s["properties"].(map[string]any)
	if ParamType(s) != "object" || len(props) != 1 {
		return "", nil, false
	}
	for name, p := range props {
		if m, ok := p.(map[string]any); ok && scalarType(ParamType(m)) {
			return name, m, true
		}
	}
	return "", nil, false
}

// ValueAt walks a dotted path through objects; a list met on the way
// fans out, so "payment_methods.id" yields every method's id as a list.
// It reports whether anything was found.
func ValueAt(obj any, path string) (any, bool) {
	if path == "" {
		return obj, obj != nil
	}
	step, rest, more := strings.Cut(path, ".")
	switch x := obj.(type) {
	case map[string]any:
		next, ok := x[step]
		if !ok {
			return nil, false
		}
		if !more {
			return next, true
		}
		return ValueAt(next, rest)
	case []any:
		var out []any
		for _, e := range x {
			if v, ok := ValueAt(e, path); ok {
				if l, isList := v.([]any); isList && more {
					out = append(out, l...)
				} else {
					out = append(out, v)
				}
			}
		}
		return out, len(out) > 0
	}
	return nil, false
}

// UserChoices returns the elements a customer chooses among for a
// user-record path ("payment_methods.id": the payment methods, field
// "id"), or nil when the path names one value.
func UserChoices(user map[string]any, path string) ([]map[string]any, string) {
	prefix, field, ok := CutLast(path)
	if !ok {
		return nil, ""
	}
	v, found := ValueAt(user, prefix)
	if !found {
		return nil, ""
	}
	l, isList := v.([]any)
	if !isList {
		return nil, ""
	}
	var elems []map[string]any
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			if _, has := m[field]; has {
				elems = append(elems, m)
			}
		}
	}
	if len(elems) < 2 {
		return nil, ""
	}
	return elems, field
}

func CutLast(path string) (string, string, bool) {
	i := strings.LastIndexByte(path, '.')
	if i < 0 {
		return "", "", false
	}
	return path[:i], path[i+1:], true
}

// UserKeyOf extracts the user's key from an identify tool's result: the
// result itself when it is a string, else its key field.
func (m *Model) UserKeyOf(output string) string {
	out := strings.TrimSpace(output)
	if strings.HasPrefix(out, "{") && m.Users != nil {
		if obj, err := tools.DecodeObject(out); err == nil {
			return tools.Text(obj[m.Users.Coll.Key])
		}
		return ""
	}
	if strings.HasPrefix(out, `"`) {
		var s string
		if json.Unmarshal([]byte(out), &s) == nil {
			return s
		}
	}
	if out == "null" {
		return ""
	}
	return strings.Trim(out, "\" ")
}

// ResultValue is the value a tool call's observation holds: the
// handler's own record or list when it returned one (the observation is
// its JSON, so decoding it again would only cost time), else the
// observation decoded. Callers must not change it: it may be a record
// of the state.
func ResultValue(res tools.Result) any {
	if res.Err {
		return Decode(res.Output)
	}
	switch v := res.Value.(type) {
	case map[string]any, []any:
		return v
	case string:
		// Text as the agent reads it: a tool may answer with JSON text
		// (a catalogue), or with a plain word (an id).
		return Decode(v)
	}
	if res.Output != "" {
		return Decode(res.Output)
	}
	out, err := tools.Render(res.Value)
	if err != nil {
		return nil
	}
	return Decode(out)
}

// Decode turns a tool's observation into the value the agent reasons
// over: JSON when it parses, else the text.
func Decode(output string) any {
	if v, err := tools.DecodeJSON(output); err == nil {
		return v
	}
	return output
}

// Read runs a read tool and returns its value; ok is false when the
// tool failed. st nil reads the base. The generator reads values only:
// nothing renders an observation it does not show anyone.
func (m *Model) Read(ctx context.Context, st *tools.State, tool string, args map[string]any) (any, bool) {
	raw, err := tools.Marshal(args)
	if err != nil {
		return nil, false
	}
	if st == nil {
		st = m.Base.NewState()
	}
	if m.Kit.Kind(tool) != record.KindRead {
		res := m.Kit.Exec(ctx, st, tool, string(raw))
		return ResultValue(res), !res.Err
	}
	key := tool + "\x00" + string(raw)
	if out, ok := m.cache.get(key); ok && st.Holds(out.trace) {
		return out.value, !out.err
	}
	var res tools.Result
	tr := st.Traced(func() { res = m.Kit.Exec(ctx, st, tool, string(raw)) })
	v := ResultValue(res)
	m.keep(st, key, tr, cachedRead{text: res.Output, rendered: res.Err, err: res.Err, value: v, result: res.Value})
	return v, !res.Err
}

// keep caches a read's answer when it is the base's: the call only read,
// and st holds what it read as the base does.
func (m *Model) keep(st *tools.State, key string, tr *tools.Trace, r cachedRead) {
	if tr.Reusable() && st.Holds(tr) {
		r.trace = tr
		m.cache.put(key, r)
	}
}

// Call runs a tool as Toolkit.Call does, but answers a read from a cache
// of the base's answers when the state holds, as the base does, every
// record the answer was read from: handlers are deterministic, so the
// answer is the one the tool would give, and generator and agents ask
// the same questions (the same searches) often.
func (m *Model) Call(ctx context.Context, st *tools.State, name, args string) tools.Result {
	kind := m.Kit.Kind(name)
	if kind != record.KindRead {
		return m.Kit.Call(ctx, st, name, args)
	}
	key := name + "\x00" + args
	if out, ok := m.cache.get(key); ok && st.Holds(out.trace) {
		if !out.rendered {
			// The generator asked first and kept only the value.
			text := m.Kit.Observe(st, tools.Result{Kind: kind, Value: out.result}).Output
			out.text, out.rendered = text, true
			m.cache.set(key, out)
		}
		return tools.Result{Output: out.text, Err: out.err, Kind: kind, Value: out.value}
	}
	var res tools.Result
	tr := st.Traced(func() { res = m.Kit.Call(ctx, st, name, args) })
	// The value is kept with the text: every later reader shares it, so
	// no one may change it (they only read it).
	m.keep(st, key, tr, cachedRead{text: res.Output, rendered: true, err: res.Err, value: ResultValue(res)})
	return res
}

// readCache holds base-state read results up to a byte budget; past it
// new results are not kept.
type readCache struct {
	mu    sync.RWMutex
	m     map[string]cachedRead
	bytes int
	max   int
}

type cachedRead struct {
	text     string
	rendered bool // text holds the observation (else only value is known)
	err      bool
	value    any
	// result is the handler's own value, which renders the observation:
	// value is decoded (a tool answering with JSON text gives a map),
	// and rendering that would change the text's spacing.
	result any
	// trace is what the answer was read from.
	trace *tools.Trace
}

func newReadCache(maxBytes int) *readCache {
	return &readCache{m: map[string]cachedRead{}, max: maxBytes}
}

func (c *readCache) get(k string) (cachedRead, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.m[k]
	return v, ok
}

// set replaces an entry (its observation, once rendered).
func (c *readCache) set(k string, v cachedRead) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[k]; ok {
		c.bytes += len(v.text) - len(old.text)
		c.m[k] = v
	}
}

func (c *readCache) put(k string, v cachedRead) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := len(k) + len(v.text) + v.trace.Size(); c.bytes+n <= c.max {
		if _, dup := c.m[k]; !dup {
			c.m[k] = v
			c.bytes += n
		}
	}
}

// OpenTools are the tools a customer may use before authenticating:
// generic tools and reads that name no customer or owned record. Without
// users every tool is open.
func (m *Model) OpenTools() []string {
	var out []string
	for _, t := range m.Kit.Tools() {
		if m.Users == nil || t.Kind == record.KindGeneric {
			out = append(out, t.Name)
			continue
		}
		if t.Kind != record.KindRead || slices.Contains(m.AuthTools(), t.Name) {
			continue
		}
		open := true
		for p := range properties(t) {
			if p == m.Users.Coll.Key || p == m.Users.DetailsParam {
				open = false
			}
			for _, c := range m.Colls {
				if c.Owner != "" && (p == c.Key || p == c.GetParam) {
					open = false
				}
			}
		}
		if open {
			out = append(out, t.Name)
		}
	}
	return out
}

// AuthTools are the identify tools.
func (m *Model) AuthTools() []string {
	if m.Users == nil {
		return nil
	}
	var out []string
	for _, id := range m.Users.Identify {
		if !slices.Contains(out, id.Tool) {
			out = append(out, id.Tool)
		}
	}
	return out
}

// KeyIdentifies reports whether a customer is identified by stating
// their own key (an identify tool that takes only the user record's key,
// as τ²'s airline get_user_details): nothing more can be checked than
// that they said it.
func (m *Model) KeyIdentifies() bool {
	if m.Users == nil {
		return false
	}
	for _, id := range m.Users.Identify {
		if len(id.Paths) == 1 && id.Paths[id.Params[0]] == m.Users.Coll.Key {
			return true
		}
	}
	return false
}

// Owner returns the customer a call acts for: the owner of a record any
// key argument names, else the user-key argument.
func (m *Model) Owner(st *tools.State, args map[string]any) string {
	if m.Users == nil {
		return ""
	}
	for _, name := range slices.Sorted(maps.Keys(m.Colls)) {
		c := m.Colls[name]
		if c.Owner == "" {
			continue
		}
		for _, p := range []string{c.Key, c.GetParam} {
			id, _ := args[p].(string)
			if id == "" {
				continue
			}
			v, ok := st.Get(c.Name, id)
			if !ok {
				continue
			}
			if obj, err := tools.ToObject(v); err == nil {
				if o := tools.Text(obj[c.Owner]); o != "" {
					return o
				}
			}
		}
	}
	for _, p := range []string{m.Users.Coll.Key, m.Users.DetailsParam} {
		if id, _ := args[p].(string); id != "" {
			return id
		}
	}
	return ""
}

// Identifying lists the parameters that name a record (every collection's
// key and get parameter): a write's proposal must say them before the
// customer's yes counts as consent.
// The agent asks it of every list element it says, so it is computed
// once; callers must not change the slice.
func (m *Model) Identifying() []string { return m.identifying }

func (m *Model) keyParams() []string {
	set := map[string]bool{}
	for _, c := range m.Colls {
		set[c.Key] = true
		if c.GetParam != "" {
			set[c.GetParam] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// AskModel is how a domain's agents ask for one kind of piece.
type AskModel struct {
	Kind string
	Set  *keywords.Set
}

// AskKinds are the kinds of piece a customer reads a question as asking
// for, the most specific first (a "reason" before an "address": "the
// reason for the new address" asks a reason).
func AskKinds() []string { return []string{"reason", "address", "payment", "new", "items", "target"} }

// compileAsks compiles a pack's asks into m.Asks in AskKinds' order.
func (m *Model) compileAsks(asks map[string][]string) error {
	for _, kind := range slices.Sorted(maps.Keys(asks)) {
		if !slices.Contains(AskKinds(), kind) {
			return fmt.Errorf("domain.yaml: hints.asks.%s: no such kind of piece (%s)", kind, strings.Join(AskKinds(), ", "))
		}
	}
	for _, kind := range AskKinds() {
		if len(asks[kind]) == 0 {
			continue
		}
		set, err := keywords.Compile(asks[kind]...)
		if err != nil {
			return fmt.Errorf("domain.yaml: hints.asks.%s: %w", kind, err)
		}
		m.Asks = append(m.Asks, AskModel{Kind: kind, Set: set})
	}
	return nil
}
