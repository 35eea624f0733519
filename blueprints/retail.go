package blueprints

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/synth-data/synth/domains/retail"
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

// Retail generates retail tasks.
type Retail struct {
	dom  *retail.Domain
	spec Spec
	draws
	users   []string
	byCount map[int][]string
	orders  map[string]map[string]any
	// Variants of each product in item-id order, typed and as generic
	// objects for selector resolution (converted once, not per task).
	variants map[string][]retail.Variant
	varObjs  map[string][]map[string]any
	maxK     int
	// probeBehavior is a profile that fits any task (changes_mind needs a write).
	probeBehavior string
}

// NewRetail prepares a generator and checks that the domain can meet the controls.
func NewRetail(dom *retail.Domain, spec Spec) (*Retail, error) {
	d, err := newDraws(spec)
	if err != nil {
		return nil, err
	}
	g := &Retail{dom: dom, spec: spec, draws: d, byCount: map[int][]string{}, orders: map[string]map[string]any{}}
	for id, u := range dom.DB.Users {
		g.users = append(g.users, id)
		g.byCount[len(u.Orders)] = append(g.byCount[len(u.Orders)], id)
		g.maxK = max(g.maxK, len(u.Orders))
	}
	sort.Strings(g.users)
	for k := range g.byCount {
		sort.Strings(g.byCount[k])
	}
	g.variants = map[string][]retail.Variant{}
	g.varObjs = map[string][]map[string]any{}
	for pid, prod := range dom.DB.Products {
		for _, k := range slices.Sorted(maps.Keys(prod.Variants)) {
			v := prod.Variants[k]
			obj, err := tools.ToObject(v)
			if err != nil {
				return nil, fmt.Errorf("variant %s: %w", k, err)
			}
			g.variants[pid] = append(g.variants[pid], v)
			g.varObjs[pid] = append(g.varObjs[pid], obj)
		}
	}
	for id, o := range dom.DB.Orders {
		obj, err := tools.ToObject(o)
		if err != nil {
			return nil, fmt.Errorf("order %s: %w", id, err)
		}
		g.orders[id] = obj
	}
	if g.probeBehavior, err = probeBehavior(spec); err != nil {
		return nil, err
	}
	if err := g.feasible(); err != nil {
		return nil, err
	}
	return g, nil
}

// Limits the retail tasks can reach: a write needs at least the
// authentication read; a write on an order described by its properties
// needs the user's details, every one of their orders and possibly a product.
const retailMaxWrites = 5

func (g *Retail) feasible() error {
	s := g.spec
	if s.Writes.Max > retailMaxWrites {
		return fmt.Errorf("--writes %s: the retail domain supports at most %d writes per task; use e.g. --writes 1-%d", s.Writes, retailMaxWrites, retailMaxWrites)
	}
	maxEv := 3 + g.maxK
	if s.Writes.Max > 0 && s.Reads.Min > maxEv {
		return fmt.Errorf("--reads %s: the retail database supports at most %d reads before a write (its busiest user has %d orders); use e.g. --reads 2-%d", s.Reads, maxEv, g.maxK, maxEv)
	}
	if s.Writes.Max > 0 && s.Reads.Max < 2 {
		return fmt.Errorf("--reads %s: every retail write needs at least 2 reads (authenticating the user, then the record it changes); use --reads 2-... or --writes 0", s.Reads)
	}
	// Probe each requested write count once, so an infeasible combination
	// fails before a long run starts rather than at its first blueprint.
	for w := s.Writes.Min; w <= s.Writes.Max; w++ {
		ok := false
		for i := 0; i < 8 && !ok; i++ {
			e := s.Reads.Min + i%(s.Reads.Max-s.Reads.Min+1)
			rng := Stream(s.Seed, retailName, -1-w*8-i, "probe")
			for a := 0; a < maxAttempts && !ok; a++ {
				_, err := g.try(context.Background(), rng, w, e, false, g.probeBehavior)
				ok = err == nil
			}
		}
		if !ok {
			return fmt.Errorf("--writes %s with --reads %s: the retail domain cannot build a task with %d writes whose every write needs %s reads; widen --reads", s.Writes, s.Reads, w, s.Reads)
		}
	}
	return nil
}

// Generate builds blueprint index.
func (g *Retail) Generate(ctx context.Context, index int) (*record.Blueprint, error) {
	rng := Stream(g.spec.Seed, retailName, index, "blueprint")
	w := g.writes.At(index)
	e := g.reads.At(index)
	behavior := g.spec.Behaviors[g.behav.At(index)]
	if behavior == "changes_mind" && w == 0 {
		// Changing one's mind needs a write proposal to revise.
		behavior = g.probeBehavior
	}
	var last error
	for a := 0; a < maxAttempts; a++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Some (writes, reads) pairs are rare or impossible in the data
		// (four writes that each need only 4 reads); after a fair search
		// move to the neighbouring evidence levels of the range.
		// Each write must need exactly the allocated number of reads, so
		// the requested distribution holds; a pair the data cannot give
		// (four writes that each need exactly 4 reads) settles, after a
		// fair search, for the neighbouring levels of the range.
		ea, exact := e, true
		if a >= maxAttempts/3 {
			// Try the nearest levels next, alternating up and down, so
			// the levels around a hard one share its blueprints evenly;
			// the last attempts take any level of the range.
			ea, exact = neighbour(g.spec.Reads, e, (a-maxAttempts/3)/20)
		}
		bp, err := g.try(ctx, rng, w, ea, exact, behavior)
		if err == nil {
			bp.Index = index
			bp.ID = fmt.Sprintf("%s-%016x-%07d", retailName, g.spec.Seed, index)
			bp.Seed = g.spec.Seed
			bp.Split = Split(g.spec.Seed, retailName, index, g.spec.Validation, g.spec.Test)
			return bp, nil
		}
		last = err
	}
	return nil, fmt.Errorf("blueprint %d: no task with %d writes and %d reads per write after %d attempts (last: %v)", index, w, e, maxAttempts, last)
}

// neighbour returns the k-th nearest level to e inside r (e+1, e-1, e+2,
// ...), or e with exact false when the range has no k-th neighbour.
func neighbour(r Range, e, k int) (int, bool) {
	for off := 1; off <= r.Max-r.Min; off++ {
		for _, lvl := range []int{e + off, e - off} {
			if r.Contains(lvl) {
				if k == 0 {
					return lvl, true
				}
				k--
			}
		}
	}
	return e, false
}

// plan accumulates the ground truth of one task.
type plan struct {
	g    *Retail
	rng  *rand.Rand
	user *retail.User
	ledger
	goals   []record.Goal
	outputs []record.Output
	used    map[string]bool
	known   map[string]string
	unknown []string
	revise  bool // the behaviour wants a revisable slot
	revised bool
	want    int // reads each write must need; 0 accepts any in range
}

func (p *plan) call(goal int, tool string, args map[string]any, needs []int) int {
	return p.add(p.g.dom.Tools.Kind(tool), goal, tool, args, needs)
}

// ledger is the ground truth a plan accumulates, shared by the retail and
// the pack generators so both record actions the same way.
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
	raw, _ := json.Marshal(args)
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
	keys := slices.Sorted(maps.Keys(args))
	var b strings.Builder
	b.WriteString(tool)
	for _, k := range keys {
		b.WriteByte(0)
		b.WriteString(k)
		b.WriteByte('=')
		fmt.Fprint(&b, args[k])
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
	out := make([]int, 0, len(set))
	for i := range set {
		out = append(out, i)
	}
	sort.Ints(out)
	return out
}

func (p *plan) auth() int {
	if p.known["email"] != "" {
		return p.call(-1, "find_user_id_by_email", map[string]any{"email": p.user.Email}, nil)
	}
	return p.call(-1, "find_user_id_by_name_zip", map[string]any{
		"first_name": p.user.Name.FirstName, "last_name": p.user.Name.LastName, "zip": p.user.Address.Zip}, nil)
}

func (p *plan) userDetails() int {
	return p.call(-1, "get_user_details", map[string]any{"user_id": p.user.UserID}, []int{p.auth()})
}

func (p *plan) readOrder(id string, needs []int) int {
	return p.call(-1, "get_order_details", map[string]any{"order_id": id}, needs)
}

func (p *plan) order(id string) *retail.Order { return p.g.dom.DB.Orders[id] }

// target picks an unused order of the user in one of the statuses and
// describes it by id (byID) or by its properties. It returns the selector,
// the order id and the reads that identify it.
func (p *plan) target(statuses []string, byID bool, extra func(*retail.Order) bool) (record.Selector, string, []int, error) {
	var cands []string
	for _, id := range p.user.Orders {
		o := p.order(id)
		if !p.used[id] && slices.Contains(statuses, o.Status) && (extra == nil || extra(o)) {
			cands = append(cands, id)
		}
	}
	if len(cands) == 0 {
		return record.Selector{}, "", nil, errors.New("no suitable order")
	}
	id := cands[p.rng.IntN(len(cands))]
	o := p.order(id)
	if byID {
		p.used[id] = true
		p.known["order_id:"+id] = id
		needs := []int{p.readOrder(id, []int{p.auth()})}
		return record.Selector{Collection: retail.Orders, ID: id, Label: "order " + id}, id, needs, nil
	}
	ud := p.userDetails()
	var objs []map[string]any
	var reads []int
	for _, oid := range p.user.Orders {
		objs = append(objs, p.g.orders[oid])
		reads = append(reads, p.readOrder(oid, []int{ud}))
	}
	want := slices.Index(p.user.Orders, id)
	word := statusWord(o.Status)
	forms := []record.Selector{
		{Where: map[string]string{"status": o.Status}, Pick: "max:created_at", Label: "my most recent " + word + " order"},
		{Where: map[string]string{"status": o.Status}, Pick: "min:created_at", Label: "the oldest " + word + " order I have"},
		{Where: map[string]string{"status": o.Status}, Pick: "max:sum:items.price", Label: "my most expensive " + word + " order"},
		{Where: map[string]string{"status": o.Status}, Pick: "min:sum:items.price", Label: "my cheapest " + word + " order"},
		{Where: map[string]string{"status": o.Status}, Label: "my " + word + " order"},
	}
	for _, it := range o.Items {
		forms = append(forms, record.Selector{
			Where: map[string]string{"status": o.Status, "items.name": it.Name},
			Label: "the " + word + " order with the " + strings.ToLower(it.Name) + " in it",
		})
	}
	p.rng.Shuffle(len(forms), func(i, j int) { forms[i], forms[j] = forms[j], forms[i] })
	for _, f := range forms {
		f.Collection = retail.Orders
		if i, err := tools.Resolve(f, objs); err == nil && i == want {
			p.used[id] = true
			p.unknown = appendOnce(p.unknown, "order ids")
			return f, id, append([]int{ud}, reads...), nil
		}
	}
	return record.Selector{}, "", nil, errors.New("order not identifiable by properties")
}

func statusWord(s string) string {
	switch s {
	case retail.StatusPending:
		return "pending"
	case retail.StatusDelivered:
		return "delivered"
	case retail.StatusProcessed:
		return "processed"
	}
	return s
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// items picks n items of an order and describes each so that it is unique
// within the order.
func (p *plan) items(o *retail.Order, n int) ([]record.Selector, []retail.OrderItem, error) {
	idx := p.rng.Perm(len(o.Items))
	if n > len(idx) {
		return nil, nil, errors.New("order has too few items")
	}
	var objs []map[string]any
	for _, it := range p.g.orders[o.OrderID]["items"].([]any) {
		objs = append(objs, it.(map[string]any))
	}
	var sels []record.Selector
	var picked []retail.OrderItem
	for _, i := range idx[:n] {
		it := o.Items[i]
		sel := record.Selector{Collection: "items", Where: map[string]string{"name": it.Name}, Label: "the " + strings.ToLower(it.Name)}
		if j, err := tools.Resolve(sel, objs); err != nil || j != i {
			keys := slices.Sorted(maps.Keys(it.Options))
			found := false
			for _, k := range keys {
				sel.Where = map[string]string{"name": it.Name, "options." + k: it.Options[k]}
				sel.Label = "the " + it.Options[k] + " " + strings.ToLower(it.Name)
				if j, err := tools.Resolve(sel, objs); err == nil && j == i {
					found = true
					break
				}
			}
			if !found {
				return nil, nil, errors.New("item not identifiable")
			}
		}
		sels = append(sels, sel)
		picked = append(picked, it)
	}
	return sels, picked, nil
}

// replacement picks an available variant of the item's product, other
// than the item, described by its options or by "cheapest/priciest
// available with X".
func (p *plan) replacement(it retail.OrderItem, exclude map[string]bool) (record.Selector, retail.Variant, error) {
	vars, objs := p.g.variants[it.ProductID], p.g.varObjs[it.ProductID]
	order := p.rng.Perm(len(vars))
	for _, i := range order {
		v := vars[i]
		if !v.Available || v.ItemID == it.ItemID || exclude[v.ItemID] {
			continue
		}
		var forms []record.Selector
		full := map[string]string{"available": "true"}
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(v.Options)) {
			full["options."+k] = v.Options[k]
			parts = append(parts, v.Options[k])
		}
		forms = append(forms, record.Selector{Where: full, Label: "the " + strings.Join(parts, ", ") + " version"})
		for _, k := range slices.Sorted(maps.Keys(v.Options)) {
			if v.Options[k] == it.Options[k] {
				continue
			}
			w := map[string]string{"available": "true", "options." + k: v.Options[k]}
			forms = append(forms,
				record.Selector{Where: w, Pick: "min:price", Label: "the cheapest available " + v.Options[k] + " one"},
				record.Selector{Where: w, Pick: "max:price", Label: "the most expensive available " + v.Options[k] + " one"})
		}
		p.rng.Shuffle(len(forms), func(a, b int) { forms[a], forms[b] = forms[b], forms[a] })
		for _, f := range forms {
			f.Collection = "variants"
			if j, err := tools.Resolve(f, objs); err == nil && j == i {
				return f, v, nil
			}
		}
	}
	return record.Selector{}, retail.Variant{}, errors.New("no replacement variant")
}

// payment describes one of the user's payment methods uniquely, the way
// the user would name it.
func (p *plan) payment(pred func(retail.PaymentMethod) bool) (string, string, bool) {
	var ids []string
	for _, id := range slices.Sorted(maps.Keys(p.user.PaymentMethods)) {
		if pred(p.user.PaymentMethods[id]) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return "", "", false
	}
	id := ids[p.rng.IntN(len(ids))]
	return id, describePayment(p.user, id), true
}

func describePayment(u *retail.User, id string) string {
	m := u.PaymentMethods[id]
	n := 0
	for _, o := range u.PaymentMethods {
		if o.Source == m.Source {
			n++
		}
	}
	switch m.Source {
	case "gift_card":
		if n == 1 {
			return "my gift card"
		}
		return "the gift card " + id
	case "paypal":
		return "my PayPal account"
	default:
		if n == 1 {
			return "my " + titleBrand(m.Brand) + " card ending in " + m.LastFour
		}
		return "the " + titleBrand(m.Brand) + " card ending in " + m.LastFour
	}
}

func titleBrand(b string) string {
	switch strings.ToLower(b) {
	case "amex":
		return "Amex"
	case "mastercard":
		return "Mastercard"
	case "visa":
		return "Visa"
	}
	if b == "" {
		return "credit"
	}
	return strings.ToUpper(b[:1]) + b[1:]
}

// Money formats an amount the way required outputs state it; the agent
// formats what it tells the user with the same function, so an output
// check compares like with like.
func Money(x float64) string { return fmt.Sprintf("$%.2f", retail.RoundCents(x)) }

func total(items []retail.OrderItem) float64 {
	t := 0.0
	for _, it := range items {
		t += it.Price
	}
	return retail.RoundCents(t)
}

func paidWith(o *retail.Order) string {
	for _, ph := range o.PaymentHistory {
		if ph.TransactionType == "payment" {
			return ph.PaymentMethodID
		}
	}
	return ""
}

const retailName = "retail"

// Goal intents of the retail domain.
const (
	IntentCancel        = "cancel_order"
	IntentOrderAddress  = "modify_order_address"
	IntentModifyItems   = "modify_order_items"
	IntentModifyPayment = "modify_order_payment"
	IntentUserAddress   = "modify_user_address"
	IntentReturn        = "return_items"
	IntentExchange      = "exchange_items"
	IntentOrderTotal    = "ask_order_total"
	IntentOrderStatus   = "ask_order_status"
	IntentCheapest      = "ask_cheapest_variant"
	IntentCancelRefused = "cancel_not_pending"
	IntentReturnRefused = "return_not_delivered"
	IntentOutOfScope    = "out_of_scope"
)

// try builds one candidate task with w writes whose evidence aims at e.
func (g *Retail) try(ctx context.Context, rng *rand.Rand, w, e int, exact bool, behavior string) (*record.Blueprint, error) {
	// Which user: property-described targets need the user to have
	// exactly k orders so that e reads identify them. By id, a write needs
	// 2 to 4 reads (authentication, the order, then perhaps the user's
	// payment methods and a product).
	byID := e < 3 || e == 3 && rng.IntN(3) > 0 || e == 4 && rng.IntN(3) == 0
	k := e - 2 - rng.IntN(2)
	if !exact {
		// Any level of the range will do: pick a user with enough orders
		// for w targets, by id or by properties.
		byID = rng.IntN(2) == 0
		k = min(w+rng.IntN(4), g.maxK)
	}
	var uid string
	if byID {
		uid = g.users[rng.IntN(len(g.users))]
	} else {
		if len(g.byCount[k]) == 0 {
			k = e - 2
		}
		us := g.byCount[k]
		if len(us) == 0 {
			return nil, fmt.Errorf("no user with %d orders", k)
		}
		uid = us[rng.IntN(len(us))]
	}
	u := g.dom.DB.Users[uid]
	p := &plan{g: g, rng: rng, user: u, ledger: ledger{seen: map[string]int{}}, used: map[string]bool{},
		known: map[string]string{"name": u.Name.FirstName + " " + u.Name.LastName}, revise: behavior == "changes_mind"}
	if exact {
		p.want = e
	}
	if rng.IntN(2) == 0 {
		p.known["email"] = u.Email
	} else {
		p.known["zip"] = u.Address.Zip
	}
	p.unknown = []string{"user id"}

	if w == 0 {
		if err := p.attempt(func() error { return g.noWriteGoal(p, byID) }); err != nil {
			return nil, err
		}
	}
	userAddr := false
	for i := 0; i < w; i++ {
		var err error
		switch {
		case !userAddr && e <= 2 && rng.IntN(5) == 0:
			userAddr = true
			err = p.attempt(func() error { return g.userAddressGoal(p) })
		default:
			err = g.orderWriteGoal(p, byID)
		}
		if err != nil {
			return nil, err
		}
	}
	if w > 0 && rng.IntN(6) == 0 {
		// A side request the policy forbids, mixed into a write task.
		_ = p.attempt(func() error { return g.refuseGoal(p, true) })
	}
	if p.revise && !p.revised {
		return nil, errors.New("no revisable slot for changes_mind")
	}
	evidence := make([]int, len(p.writes))
	for i, needs := range p.writes {
		evidence[i] = len(needs)
		if !g.spec.Reads.Contains(evidence[i]) {
			return nil, fmt.Errorf("write %d needs %d reads, outside %s", i, evidence[i], g.spec.Reads)
		}
	}
	if w == 0 && len(p.goals) == 0 {
		return nil, errors.New("no goal")
	}
	bp := &record.Blueprint{
		Domain:   retailName,
		Persona:  record.Persona{Name: p.known["name"], Known: p.known},
		Unknown:  p.unknown,
		Behavior: behavior,
		Goals:    p.goals,
		Actions:  p.actions,
		Outputs:  p.outputs,
		NWrites:  len(p.writes),
		Evidence: evidence,
	}
	for _, a := range p.actions {
		if a.Kind == record.KindRead {
			bp.NReads++
		}
	}
	bp.Reason = reasonFor(p.goals[0], rng)
	bp.Instruction = Instruction(bp)
	hash, err := Execute(ctx, g.dom.Tools, g.dom.Base.NewState(), bp.Actions)
	if err != nil {
		return nil, fmt.Errorf("ground truth does not execute: %w", err)
	}
	bp.StateHash = hash
	return bp, nil
}

// Execute runs ground-truth actions on a state and returns its final hash.
// Every action must succeed: a blueprint is solvable by construction.
func Execute(ctx context.Context, kit *tools.Toolkit, st *tools.State, actions []record.Action) (string, error) {
	for i, a := range actions {
		res := kit.Call(ctx, st, a.Tool, string(a.Arguments))
		if res.Err {
			return "", fmt.Errorf("action %d %s: %s", i, a.Tool, res.Output)
		}
	}
	return st.Hash(), nil
}

func (p *plan) addGoal(goal record.Goal) int {
	p.goals = append(p.goals, goal)
	return len(p.goals) - 1
}

var cancelReasons = []string{"no longer needed", "ordered by mistake"}

func (g *Retail) orderWriteGoal(p *plan, byID bool) error {
	intents := []string{IntentCancel, IntentOrderAddress, IntentModifyItems, IntentModifyPayment, IntentReturn, IntentExchange}
	p.rng.Shuffle(len(intents), func(i, j int) { intents[i], intents[j] = intents[j], intents[i] })
	if p.want > 0 {
		// Skip the intents that cannot need exactly the wanted reads, rather
		// than building them to find out.
		intents = slices.DeleteFunc(intents, func(in string) bool {
			lo, hi := g.evidenceSpan(in, byID, len(p.user.Orders))
			return p.want < lo || p.want > hi
		})
	}
	var last error
	for _, in := range intents {
		if err := g.orderWrite(p, in, byID); err != nil {
			last = err
			continue
		}
		return nil
	}
	return last
}

// evidenceSpan bounds the reads a write of an intent needs: by id, the
// authentication and the order, plus the user's payment methods and a
// product for some; by properties, the user's details and all k orders.
func (g *Retail) evidenceSpan(intent string, byID bool, k int) (int, int) {
	product := intent == IntentModifyItems || intent == IntentExchange
	base := 2
	if !byID {
		base = 2 + k
	}
	lo, hi := base, base
	if product {
		lo, hi = lo+1, hi+2 // two items may be of two products
	}
	if byID {
		switch intent {
		case IntentModifyPayment:
			lo, hi = lo+1, hi+1
		case IntentReturn, IntentExchange, IntentModifyItems:
			hi++ // paid or refunded with a described method
		}
	}
	return lo, hi
}

// orderWrite adds one write goal.
func (g *Retail) orderWrite(p *plan, intent string, byID bool) error {
	return p.attempt(func() error { return g.buildOrderWrite(p, intent, byID) })
}

// attempt runs a goal builder on the plan and rolls the plan back if the
// builder fails or its write misses the wanted evidence, so a failed
// attempt leaves no stray actions or claims.
func (p *plan) attempt(build func() error) error {
	snap, nw, ng, no := len(p.actions), len(p.writes), len(p.goals), len(p.outputs)
	seen := make(map[string]int, len(p.seen))
	for k, v := range p.seen {
		seen[k] = v
	}
	used := make(map[string]bool, len(p.used))
	for k, v := range p.used {
		used[k] = v
	}
	known := make(map[string]string, len(p.known))
	for k, v := range p.known {
		known[k] = v
	}
	revised := p.revised
	err := build()
	if err == nil && p.want > 0 && len(p.writes) > nw && len(p.writes[len(p.writes)-1]) != p.want {
		err = fmt.Errorf("write needs %d reads, want %d", len(p.writes[len(p.writes)-1]), p.want)
	}
	if err != nil {
		p.actions, p.writes, p.goals, p.outputs = p.actions[:snap], p.writes[:nw], p.goals[:ng], p.outputs[:no]
		p.seen, p.used, p.known, p.revised = seen, used, known, revised
	}
	return err
}

func (g *Retail) buildOrderWrite(p *plan, intent string, byID bool) error {
	rng := p.rng
	goal := record.Goal{Intent: intent, Kind: record.GoalWrite, Slots: map[string]string{}}
	gi := len(p.goals)
	switch intent {
	case IntentCancel:
		sel, id, needs, err := p.target([]string{retail.StatusPending}, byID, nil)
		if err != nil {
			return err
		}
		goal.Target = sel
		reason := cancelReasons[rng.IntN(2)]
		goal.Slots["reason"] = reason
		if p.revise && !p.revised {
			goal.Revised = map[string]string{"reason": cancelReasons[0]}
			if reason == cancelReasons[0] {
				goal.Revised["reason"] = cancelReasons[1]
			}
			p.revised = true
		}
		p.call(gi, "cancel_pending_order", map[string]any{"order_id": id, "reason": reason}, needs)
		p.outputs = append(p.outputs, record.Output{Goal: gi, Name: "refund", Value: Money(total(p.order(id).Items))})
	case IntentOrderAddress:
		sel, id, needs, err := p.target([]string{retail.StatusPending}, byID, nil)
		if err != nil {
			return err
		}
		goal.Target = sel
		addr := g.otherAddress(rng, p.order(id).Address)
		addrSlots(goal.Slots, addr)
		args := addrArgs(addr)
		args["order_id"] = id
		p.call(gi, "modify_pending_order_address", args, needs)
	case IntentModifyPayment:
		sel, id, needs, err := p.target([]string{retail.StatusPending}, byID, nil)
		if err != nil {
			return err
		}
		o := p.order(id)
		cur, tot := paidWith(o), total(o.Items)
		pm, desc, ok := p.payment(func(m retail.PaymentMethod) bool {
			return m.ID != cur && (m.Source != "gift_card" || m.Balance != nil && *m.Balance >= tot)
		})
		if !ok {
			return errors.New("no other payment method")
		}
		goal.Target = sel
		goal.Slots["payment"] = desc
		needs = append(needs, p.userDetails())
		if p.revise && !p.revised {
			if alt, adesc, ok := p.payment(func(m retail.PaymentMethod) bool { return m.ID != cur && m.ID != pm }); ok && alt != "" {
				goal.Revised = map[string]string{"payment": adesc}
				p.revised = true
			}
		}
		p.call(gi, "modify_pending_order_payment", map[string]any{"order_id": id, "payment_method_id": pm}, needs)
	case IntentReturn, IntentExchange, IntentModifyItems:
		status := retail.StatusDelivered
		if intent == IntentModifyItems {
			status = retail.StatusPending
		}
		sel, id, needs, err := p.target([]string{status}, byID, nil)
		if err != nil {
			return err
		}
		o := p.order(id)
		n := 1 + rng.IntN(min(2, len(o.Items)))
		isels, items, err := p.items(o, n)
		if err != nil {
			return err
		}
		goal.Target, goal.Items = sel, isels
		var ids, newIDs []string
		diff := 0.0
		if intent != IntentReturn {
			exclude := map[string]bool{}
			for _, it := range items {
				r, v, err := p.replacement(it, exclude)
				if err != nil {
					return err
				}
				exclude[v.ItemID] = true
				goal.New = append(goal.New, r)
				newIDs = append(newIDs, v.ItemID)
				diff += v.Price - it.Price
				// The product id comes from the order's details.
				needs = append(needs, p.call(-1, "get_product_details", map[string]any{"product_id": it.ProductID}, []int{p.readOrder(id, nil)}))
			}
		}
		for _, it := range items {
			ids = append(ids, it.ItemID)
		}
		diff = retail.RoundCents(diff)
		orig := paidWith(o)
		pm := orig
		goal.Slots["payment"] = "the original payment method"
		// Refunds may go to a gift card; a price difference may be paid
		// with any method that covers it.
		if rng.IntN(2) == 0 {
			pred := func(m retail.PaymentMethod) bool {
				if m.ID == orig {
					return false
				}
				if intent == IntentReturn {
					return m.Source == "gift_card"
				}
				return m.Source != "gift_card" || m.Balance != nil && *m.Balance >= diff
			}
			if alt, desc, ok := p.payment(pred); ok {
				pm = alt
				goal.Slots["payment"] = desc
				needs = append(needs, p.userDetails())
			}
		}
		if om := p.user.PaymentMethods[orig]; intent != IntentReturn && pm == orig && om.Source == "gift_card" && (om.Balance == nil || *om.Balance < diff) {
			return errors.New("gift card cannot cover the difference")
		}
		if _, ok := p.user.PaymentMethods[orig]; !ok && pm == orig {
			return errors.New("original payment method no longer on file")
		}
		if p.revise && !p.revised && pm != orig && intent == IntentReturn {
			goal.Revised = map[string]string{"payment": "the original payment method"}
			p.revised = true
		}
		args := map[string]any{"order_id": id, "item_ids": ids, "payment_method_id": pm}
		switch intent {
		case IntentReturn:
			p.call(gi, "return_delivered_order_items", args, needs)
			p.outputs = append(p.outputs, record.Output{Goal: gi, Name: "refund", Value: Money(total(items))})
		case IntentExchange:
			args["new_item_ids"] = newIDs
			p.call(gi, "exchange_delivered_order_items", args, needs)
			p.outputs = append(p.outputs, record.Output{Goal: gi, Name: "price_difference", Value: Money(math.Abs(diff))})
		default:
			args["new_item_ids"] = newIDs
			p.call(gi, "modify_pending_order_items", args, needs)
			p.outputs = append(p.outputs, record.Output{Goal: gi, Name: "price_difference", Value: Money(math.Abs(diff))})
		}
		goal.Slots["difference"] = Money(diff)
	default:
		return fmt.Errorf("unknown intent %q", intent)
	}
	p.addGoal(goal)
	return nil
}

func (g *Retail) userAddressGoal(p *plan) error {
	addr := g.otherAddress(p.rng, p.user.Address)
	goal := record.Goal{Intent: IntentUserAddress, Kind: record.GoalWrite, Slots: map[string]string{},
		Target: record.Selector{Collection: retail.Users, Label: "my account"}}
	addrSlots(goal.Slots, addr)
	args := addrArgs(addr)
	args["user_id"] = p.user.UserID
	gi := len(p.goals)
	// The agent reads the current address to state the change (old → new).
	p.call(gi, "modify_user_address", args, []int{p.userDetails()})
	p.addGoal(goal)
	return nil
}

// otherAddress borrows another user's address: real-looking and valid.
func (g *Retail) otherAddress(rng *rand.Rand, not retail.Address) retail.Address {
	for {
		u := g.dom.DB.Users[g.users[rng.IntN(len(g.users))]]
		if u.Address != not {
			return u.Address
		}
	}
}

func addrSlots(s map[string]string, a retail.Address) {
	s["address1"], s["address2"], s["city"], s["state"], s["country"], s["zip"] = a.Address1, a.Address2, a.City, a.State, a.Country, a.Zip
}

func addrArgs(a retail.Address) map[string]any {
	return map[string]any{"address1": a.Address1, "address2": a.Address2, "city": a.City, "state": a.State, "country": a.Country, "zip": a.Zip}
}

// noWriteGoal adds an inform, refuse or transfer goal.
func (g *Retail) noWriteGoal(p *plan, byID bool) error {
	switch p.rng.IntN(5) {
	case 0, 1:
		return g.informGoal(p, byID)
	case 2, 3:
		return g.refuseGoal(p, byID)
	default:
		gi := len(p.goals)
		topics := []string{"change the email address on my account", "file a complaint about a rude courier",
			"get a price match against another store", "close my account entirely", "report a fraudulent charge on my card",
			"ask for compensation for a late delivery", "set up a business account with bulk pricing"}
		topic := topics[p.rng.IntN(len(topics))]
		p.call(gi, "transfer_to_human_agents", map[string]any{"summary": "User " + p.user.UserID + " wants to " + topic + "; this is outside what I can handle."}, []int{p.auth()})
		p.addGoal(record.Goal{Intent: IntentOutOfScope, Kind: record.GoalTransfer, Slots: map[string]string{"topic": topic},
			Target: record.Selector{Collection: retail.Users, Label: "my account"}})
		return nil
	}
}

func (g *Retail) informGoal(p *plan, byID bool) error {
	gi := len(p.goals)
	if p.rng.IntN(3) == 0 {
		// The cheapest available variant of a product type with one option value.
		ids := slices.Sorted(maps.Keys(g.dom.DB.Products))
		prod := g.dom.DB.Products[ids[p.rng.IntN(len(ids))]]
		vars, objs := g.variants[prod.ProductID], g.varObjs[prod.ProductID]
		v := vars[p.rng.IntN(len(vars))]
		keys := slices.Sorted(maps.Keys(v.Options))
		k := keys[p.rng.IntN(len(keys))]
		sel := record.Selector{Collection: "variants", Where: map[string]string{"available": "true", "options." + k: v.Options[k]}, Pick: "min:price",
			Label: "the cheapest available " + v.Options[k] + " " + strings.ToLower(prod.Name)}
		i, err := tools.Resolve(sel, objs)
		if err != nil {
			return err
		}
		// The user still identifies themselves: the policy authenticates first.
		p.auth()
		lst := p.call(-1, "list_all_product_types", map[string]any{}, nil)
		p.call(-1, "get_product_details", map[string]any{"product_id": prod.ProductID}, []int{lst})
		p.addGoal(record.Goal{Intent: IntentCheapest, Kind: record.GoalInform, Target: sel, Slots: map[string]string{"product": prod.Name}})
		p.outputs = append(p.outputs, record.Output{Goal: gi, Name: "price", Value: Money(vars[i].Price)})
		p.unknown = appendOnce(p.unknown, "product ids")
		return nil
	}
	statuses := []string{retail.StatusPending, retail.StatusDelivered, retail.StatusProcessed}
	sel, id, _, err := p.target(statuses, byID, nil)
	if err != nil {
		return err
	}
	o := p.order(id)
	if p.rng.IntN(2) == 0 {
		p.addGoal(record.Goal{Intent: IntentOrderTotal, Kind: record.GoalInform, Target: sel})
		p.outputs = append(p.outputs, record.Output{Goal: gi, Name: "total", Value: Money(total(o.Items))})
	} else {
		p.addGoal(record.Goal{Intent: IntentOrderStatus, Kind: record.GoalInform, Target: sel})
		p.outputs = append(p.outputs, record.Output{Goal: gi, Name: "status", Value: o.Status})
	}
	return nil
}

// refuseGoal asks for something the policy forbids on an order in the
// wrong status.
func (g *Retail) refuseGoal(p *plan, byID bool) error {
	if p.rng.IntN(2) == 0 {
		sel, _, _, err := p.target([]string{retail.StatusDelivered, retail.StatusProcessed, retail.StatusCancelled}, byID, nil)
		if err != nil {
			return err
		}
		p.addGoal(record.Goal{Intent: IntentCancelRefused, Kind: record.GoalRefuse, Target: sel, Slots: map[string]string{"reason": cancelReasons[p.rng.IntN(2)]}})
		return nil
	}
	sel, id, _, err := p.target([]string{retail.StatusPending, retail.StatusProcessed}, byID, nil)
	if err != nil {
		return err
	}
	o := p.order(id)
	isels, _, err := p.items(o, 1)
	if err != nil {
		return err
	}
	p.addGoal(record.Goal{Intent: IntentReturnRefused, Kind: record.GoalRefuse, Target: sel, Items: isels})
	return nil
}

func reasonFor(g record.Goal, rng *rand.Rand) string {
	pick := func(s ...string) string { return s[rng.IntN(len(s))] }
	switch g.Intent {
	case IntentCancel:
		return pick("changed plans and no longer needs the purchase", "placed the order by mistake", "found the item elsewhere")
	case IntentOrderAddress, IntentUserAddress:
		return pick("moved to a new place", "wants the delivery sent to a different address", "is staying somewhere else for a while")
	case IntentModifyItems, IntentExchange:
		return pick("picked the wrong variant", "wants a different option than the one ordered", "the item does not suit them")
	case IntentModifyPayment:
		return pick("wants to pay with a different method", "wants to use up a gift card balance")
	case IntentReturn:
		return pick("is unhappy with the item", "the item arrived but is not needed anymore")
	case IntentOutOfScope:
		return "has a request the store's self-service agent cannot handle"
	case IntentCancelRefused, IntentReturnRefused:
		return "wants something the store policy does not allow"
	}
	return "wants to check on an order"
}
