package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
	"github.com/synth-data/synth/usersim"
)

// Turn is what the agent produced in reply to one user message: its tool
// calls with their results, then a message to the user.
type Turn struct {
	Messages []record.Message
	Ask      usersim.Ask
}

// Agent answers user turns.
type Agent interface {
	Respond(ctx context.Context, in usersim.Turn) (Turn, error)
}

// goal is what the agent has understood of one user request.
type goal struct {
	idx     int
	intent  string
	target  *record.Selector
	items   []record.Selector
	newSel  []record.Selector
	slots   map[string]string
	order   map[string]any // resolved target order
	itemObj []map[string]any
	newObj  []map[string]any
	payID   string
	checked bool // policy checked against the resolved target
	propose bool // a proposal awaits the user's answer
	confirm bool
}

// Oracle follows the policy to the letter and resolves every request
// from what its tool calls return, never from the blueprint.
type Oracle struct {
	kit *tools.Toolkit
	st  *tools.State
	rng *rand.Rand

	userID   string
	first    string
	identity map[string]string
	user     map[string]any
	orders   map[string]map[string]any
	products map[string]map[string]any
	types    map[string]any

	goals    map[int]*goal
	queue    []int
	cur      *goal
	done     []int
	userDone bool
	out      []record.Message
	refused  bool

	flaw  *Flaw
	fired bool
	hide  bool // never state amounts (the omits_output flaw)
}

// NewOracle creates the oracle for one episode.
func NewOracle(kit *tools.Toolkit, st *tools.State, rng *rand.Rand) *Oracle {
	return &Oracle{kit: kit, st: st, rng: rng, goals: map[int]*goal{},
		orders: map[string]map[string]any{}, products: map[string]map[string]any{}}
}

const idChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// CallID makes a 9-alphanumeric tool-call id, the form Mistral templates require.
func CallID(rng *rand.Rand) string {
	b := make([]byte, 9)
	for i := range b {
		b[i] = idChars[rng.IntN(len(idChars))]
	}
	return string(b)
}

func (o *Oracle) say(tmpls []string, slots map[string]string) string {
	return usersim.Render(o.rng, tmpls[o.rng.IntN(len(tmpls))], slots)
}

// call runs a tool and records the call and its observation. It returns
// the observation decoded as JSON when it is an object.
func (o *Oracle) call(ctx context.Context, name string, args map[string]any, reasoning string) (map[string]any, string, bool) {
	raw, _ := json.Marshal(args)
	id := CallID(o.rng)
	o.out = append(o.out, record.Message{Role: "assistant", ReasoningContent: reasoning,
		ToolCalls: []record.ToolCall{{ID: id, Type: "function", Function: record.FunctionCall{Name: name, Arguments: string(raw)}}}})
	res := o.kit.Call(ctx, o.st, name, string(raw))
	o.out = append(o.out, record.Message{Role: "tool", ToolCallID: id, Name: name, Content: res.Output})
	if res.Err {
		return nil, res.Output, false
	}
	var obj map[string]any
	if strings.HasPrefix(res.Output, "{") {
		_ = json.Unmarshal([]byte(res.Output), &obj)
	}
	return obj, res.Output, true
}

func (o *Oracle) reply(text string, ask usersim.Ask) Turn {
	if o.hide {
		text = hideAmounts(text)
	}
	o.out = append(o.out, record.Message{Role: "assistant", Content: text})
	ask.Done = slices.Clone(o.done)
	ask.Refused = o.refused
	o.refused = false
	t := Turn{Messages: o.out, Ask: ask}
	o.out = nil
	return t
}

// Respond reads the user's acts and acts until it has something to say.
func (o *Oracle) Respond(ctx context.Context, in usersim.Turn) (Turn, error) {
	for _, a := range in.Acts {
		o.absorb(a)
	}
	var lead []string
	for steps := 0; steps < 64; steps++ {
		if err := ctx.Err(); err != nil {
			return Turn{}, err
		}
		if o.userID == "" {
			if o.skipAuth(func(id string) map[string]any { return o.ensureOrder(ctx, id) }) {
				continue
			}
			if o.identity == nil {
				return o.reply(joinText(lead, o.say(greetIdentify, nil)), usersim.Ask{Kind: "identify"}), nil
			}
			if !o.authenticate(ctx) {
				return o.reply(joinText(lead, o.say(identifyAgain, nil)), usersim.Ask{Kind: "identify_again"}), nil
			}
			lead = append(lead, o.say(authed, map[string]string{"first": o.first}))
			continue
		}
		if o.cur == nil {
			if len(o.queue) == 0 {
				if o.userDone {
					return o.reply(joinText(lead, o.say(closings, map[string]string{"first": o.first})), usersim.Ask{Kind: "closing"}), nil
				}
				if len(o.goals) == 0 {
					return o.reply(joinText(lead, o.say(askHelp, nil)), usersim.Ask{Kind: "help"}), nil
				}
				return o.reply(joinText(lead, o.say(askAnythingElse, nil)), usersim.Ask{Kind: "anything_else"}), nil
			}
			o.cur = o.goals[o.queue[0]]
			o.queue = o.queue[1:]
		}
		t, said, fin := o.work(ctx, o.cur)
		if said != "" {
			lead = append(lead, said)
		}
		if fin {
			o.done = append(o.done, o.cur.idx)
			o.cur = nil
			continue
		}
		if t != nil {
			last := &t.Messages[len(t.Messages)-1]
			last.Content = joinText(lead, last.Content)
			if o.hide {
				last.Content = hideAmounts(last.Content)
			}
			return *t, nil
		}
	}
	return Turn{}, fmt.Errorf("oracle made no progress in 64 steps")
}

func joinText(lead []string, last string) string {
	return strings.TrimSpace(strings.Join(append(slices.Clone(lead), last), " "))
}

func (o *Oracle) absorb(a usersim.Act) {
	switch a.Type {
	case "identify":
		o.identity = a.Identity
	case "request", "provide", "revise":
		g := o.goals[a.Goal]
		if g == nil {
			g = &goal{idx: a.Goal, slots: map[string]string{}}
			o.goals[a.Goal] = g
			o.queue = append(o.queue, a.Goal)
		}
		if a.Intent != "" {
			g.intent = a.Intent
		}
		if a.Target != nil {
			t := *a.Target
			g.target = &t
		}
		if a.Items != nil {
			g.items = a.Items
		}
		if a.New != nil {
			g.newSel = a.New
		}
		for k, v := range a.Slots {
			g.slots[k] = v
			if k == "payment" {
				g.payID = ""
			}
		}
		if a.Type == "revise" {
			g.propose, g.confirm = false, false
		}
		if a.Type == "request" && slices.Contains(o.done, a.Goal) {
			// A re-raised goal the agent believes finished: look again.
			o.done = slices.DeleteFunc(o.done, func(d int) bool { return d == a.Goal })
			if !slices.Contains(o.queue, a.Goal) && (o.cur == nil || o.cur.idx != a.Goal) {
				o.queue = append(o.queue, a.Goal)
			}
		}
	case "confirm":
		if g := o.goals[a.Goal]; g != nil && g.propose {
			g.confirm = true
		}
	case "done":
		o.userDone = true
	}
}

func (o *Oracle) authenticate(ctx context.Context) bool {
	id := o.identity
	o.identity = nil
	var out string
	var ok bool
	if id["email"] != "" {
		_, out, ok = o.call(ctx, "find_user_id_by_email", map[string]any{"email": id["email"]}, "")
	} else {
		_, out, ok = o.call(ctx, "find_user_id_by_name_zip", map[string]any{"first_name": id["first_name"], "last_name": id["last_name"], "zip": id["zip"]}, "")
	}
	if !ok {
		return false
	}
	o.userID = strings.Trim(out, "\" ")
	o.first = id["first_name"]
	return true
}

// need returns the pieces the agent must have for an intent.
func need(intent string) []string {
	switch action(intent) {
	case "cancel":
		return []string{"target", "reason"}
	case "order_address":
		return []string{"target", "address"}
	case "user_address":
		return []string{"address"}
	case "payment":
		return []string{"target", "payment"}
	case "items", "exchange":
		return []string{"target", "items", "new", "payment"}
	case "return":
		return []string{"target", "items", "payment"}
	case "transfer":
		return []string{"topic"}
	}
	return []string{"target"}
}

// action maps a user intent to what the agent would do. Forbidden
// variants map to the same action: the agent finds out they are forbidden
// from the order's status, as a real agent would.
func action(intent string) string {
	switch intent {
	case blueprints.IntentCancel, blueprints.IntentCancelRefused:
		return "cancel"
	case blueprints.IntentReturn, blueprints.IntentReturnRefused:
		return "return"
	case blueprints.IntentOrderAddress:
		return "order_address"
	case blueprints.IntentUserAddress:
		return "user_address"
	case blueprints.IntentModifyPayment:
		return "payment"
	case blueprints.IntentModifyItems:
		return "items"
	case blueprints.IntentExchange:
		return "exchange"
	case blueprints.IntentOutOfScope:
		return "transfer"
	case blueprints.IntentCheapest:
		return "cheapest"
	case blueprints.IntentOrderTotal:
		return "total"
	case blueprints.IntentOrderStatus:
		return "status"
	}
	return "unknown"
}

func (o *Oracle) has(g *goal, piece string) bool {
	switch piece {
	case "target":
		return g.target != nil
	case "items":
		return len(g.items) > 0
	case "new":
		return len(g.newSel) > 0
	case "address":
		return g.slots["address1"] != ""
	}
	return g.slots[piece] != ""
}

func (o *Oracle) askFor(g *goal, piece string) *Turn {
	verb := map[string]string{"return": "return", "exchange": "exchange", "items": "change", "cancel": "cancel"}[action(g.intent)]
	payverb := "pay or receive any price difference"
	if action(g.intent) == "return" {
		payverb = "receive the refund"
	}
	t := o.reply(o.say(askPiece[piece], map[string]string{"verb": verb, "payverb": payverb}), usersim.Ask{Kind: "piece", Goal: g.idx, Piece: piece})
	return &t
}

// work advances one goal: ask what is missing, read what identifies the
// target, check the policy, propose, execute. It returns a turn to send,
// or text to prepend and whether the goal is finished.
func (o *Oracle) work(ctx context.Context, g *goal) (*Turn, string, bool) {
	act := action(g.intent)
	if act == "transfer" {
		if !o.has(g, "topic") {
			return o.askFor(g, "topic"), "", false
		}
		if o.fire(FlawStopsEarly, g) {
			// Brushes the request off instead of handing it over.
			t := o.reply("I'm afraid I can't help with that. "+o.say(closings, map[string]string{"first": o.first}), usersim.Ask{Kind: "closing"})
			return &t, "", false
		}
		o.call(ctx, "transfer_to_human_agents", map[string]any{"summary": "User " + o.userID + " wants to " + g.slots["topic"] + "; this is outside what I can handle."},
			"The request is outside the policy's scope, so it must go to a human agent.")
		t := o.reply(o.say(transferMsg, nil), usersim.Ask{Kind: "transferred"})
		return &t, "", false
	}
	if o.fire(FlawUnnecessaryTransfer, g) {
		o.call(ctx, "transfer_to_human_agents", map[string]any{"summary": "User " + o.userID + " needs help with a " + strings.ReplaceAll(g.intent, "_", " ") + " request."}, "")
		t := o.reply(o.say(transferMsg, nil), usersim.Ask{Kind: "transferred"})
		return &t, "", false
	}
	if hasAmount(act) && o.fire(FlawOmitsOutput, g) {
		o.hide = true
	}
	pieces := need(g.intent)
	// The target first: its status decides whether anything else matters.
	if slices.Contains(pieces, "target") {
		if !o.has(g, "target") {
			return o.askFor(g, "target"), "", false
		}
		if !g.checked {
			said, stop := o.resolveTarget(ctx, g)
			g.checked = true
			if stop {
				return nil, said, true
			}
			if said != "" {
				return nil, said, false
			}
		}
	}
	if act == "total" || act == "status" || act == "cheapest" {
		return nil, o.answer(g), true
	}
	for _, p := range pieces {
		if !o.has(g, p) {
			return o.askFor(g, p), "", false
		}
	}
	if msg := o.resolveDetails(ctx, g); msg != "" {
		return nil, msg, true
	}
	if act == "user_address" {
		o.ensureUser(ctx)
	}
	if !g.confirm && !g.propose {
		o.hallucinate(g)
	}
	if !g.confirm && o.fire(FlawNoConfirmation, g) {
		return nil, o.execute(ctx, g), true
	}
	if !g.confirm {
		g.propose = true
		t := o.reply(o.proposal(g), usersim.Ask{Kind: "confirm", Goal: g.idx})
		return &t, "", false
	}
	if o.fire(FlawStopsEarly, g) {
		t := o.reply(o.say(doneLead, nil)+" "+o.say(closings, map[string]string{"first": o.first}), usersim.Ask{Kind: "closing"})
		return &t, "", false
	}
	return nil, o.execute(ctx, g), true
}

// hasAmount reports whether an action's outcome carries a required output.
func hasAmount(act string) bool {
	switch act {
	case "cancel", "return", "exchange", "items", "total", "cheapest":
		return true
	}
	return false
}

func (o *Oracle) ensureUser(ctx context.Context) map[string]any {
	if o.user == nil {
		o.user, _, _ = o.call(ctx, "get_user_details", map[string]any{"user_id": o.userID}, "")
	}
	return o.user
}

func (o *Oracle) ensureOrder(ctx context.Context, id string) map[string]any {
	if ord, ok := o.orders[id]; ok {
		return ord
	}
	ord, _, ok := o.call(ctx, "get_order_details", map[string]any{"order_id": id}, "")
	if ok {
		o.orders[id] = ord
	}
	return ord
}

func (o *Oracle) ensureProduct(ctx context.Context, id string) map[string]any {
	if p, ok := o.products[id]; ok {
		return p
	}
	p, _, ok := o.call(ctx, "get_product_details", map[string]any{"product_id": id}, "")
	if ok {
		o.products[id] = p
	}
	return p
}

// resolveTarget finds the entity the user described by reading; it
// returns text for the user and whether the goal ends here (refused).
func (o *Oracle) resolveTarget(ctx context.Context, g *goal) (string, bool) {
	sel := *g.target
	if sel.Collection == "variants" {
		if o.types == nil {
			o.types, _, _ = o.call(ctx, "list_all_product_types", map[string]any{}, "")
		}
		name := g.slots["product"]
		pid := ""
		for k, v := range o.types {
			if strings.EqualFold(k, name) {
				pid = tools.Text(v)
			}
		}
		prod := o.ensureProduct(ctx, pid)
		vars := variantList(prod)
		i, err := tools.Resolve(sel, vars)
		if err != nil {
			return "I'm sorry, I couldn't find " + sel.Label + ".", true
		}
		g.newObj = []map[string]any{vars[i]}
		return "", false
	}
	var ord map[string]any
	if sel.ID != "" {
		ord = o.ensureOrder(ctx, sel.ID)
		if ord == nil {
			return "I'm sorry, I couldn't find order " + sel.ID + ".", true
		}
		if tools.Text(ord["user_id"]) != o.userID {
			return o.say(refuse["owner"], nil), true
		}
	} else {
		u := o.ensureUser(ctx)
		ids := tools.Field(u, "orders")
		if len(ids) > 1 && o.fire(FlawPrematureWrite, g) {
			// Guess the latest order instead of reading them all.
			ord = o.ensureOrder(ctx, tools.Text(ids[len(ids)-1]))
		} else {
			var cands []map[string]any
			for _, id := range ids {
				if ord := o.ensureOrder(ctx, tools.Text(id)); ord != nil {
					cands = append(cands, ord)
				}
			}
			i, err := tools.Resolve(sel, cands)
			if err != nil {
				return "I'm sorry, I couldn't single out " + sel.Label + " on your account.", true
			}
			if o.wants(FlawWrongTarget, g) {
				if j := nearMiss(cands, i, sel.Where); j >= 0 {
					o.fire(FlawWrongTarget, g)
					i = j
				}
			}
			ord = cands[i]
		}
		if ord == nil {
			return "I'm sorry, I couldn't find that order.", true
		}
	}
	g.order = ord
	status := tools.Text(ord["status"])
	detail := fmt.Sprintf("order %s is %s", tools.Text(ord["order_id"]), status)
	switch action(g.intent) {
	case "cancel", "order_address", "payment", "items":
		if status != "pending" {
			o.refused = true
			what := map[string]string{"cancel": "cancel it", "order_address": "change its address", "payment": "change its payment method", "items": "modify its items"}[action(g.intent)]
			return o.say(refuse["status"], map[string]string{"detail": detail, "action": what}), true
		}
	case "return", "exchange":
		if status != "delivered" {
			o.refused = true
			what := map[string]string{"return": "return items from it", "exchange": "exchange items from it"}[action(g.intent)]
			return o.say(refuse["status"], map[string]string{"detail": detail, "action": what}), true
		}
	}
	if sel.ID == "" {
		return o.say(found, map[string]string{"what": yours(sel.Label) + ", order " + tools.Text(ord["order_id"]), "detail": describeOrder(ord)}), false
	}
	return "", false
}

// yours turns the user's words about their things into the agent's.
func yours(label string) string {
	r := strings.NewReplacer("my ", "your ", "I have", "you have", "I placed", "you placed")
	return r.Replace(label)
}

func variantList(prod map[string]any) []map[string]any {
	vs, _ := prod["variants"].(map[string]any)
	keys := make([]string, 0, len(vs))
	for k := range vs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]map[string]any, 0, len(keys))
	for _, k := range keys {
		if m, ok := vs[k].(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func itemList(ord map[string]any) []map[string]any {
	list, _ := ord["items"].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func num(v any) float64 {
	f, _ := strconv.ParseFloat(tools.Text(v), 64)
	return f
}

func options(it map[string]any) string {
	opts, _ := it["options"].(map[string]any)
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, tools.Text(opts[k]))
	}
	return strings.Join(parts, ", ")
}

func describeOrder(ord map[string]any) string {
	var parts []string
	total := 0.0
	for _, it := range itemList(ord) {
		parts = append(parts, fmt.Sprintf("%s (%s) at %s", tools.Text(it["name"]), options(it), blueprints.Money(num(it["price"]))))
		total += num(it["price"])
	}
	return fmt.Sprintf("It was placed on %s, is %s, and contains %s, for a total of %s.",
		strings.Replace(tools.Text(ord["created_at"]), "T", " at ", 1), tools.Text(ord["status"]), strings.Join(parts, "; "), blueprints.Money(total))
}

func orderTotal(ord map[string]any) float64 {
	t := 0.0
	for _, it := range itemList(ord) {
		t += num(it["price"])
	}
	return math.Round(t*100) / 100
}

func (o *Oracle) answer(g *goal) string {
	if o.hide {
		return "I've pulled that up for you; everything on it looks in order."
	}
	switch action(g.intent) {
	case "total":
		return fmt.Sprintf("The total of order %s is %s.", tools.Text(g.order["order_id"]), blueprints.Money(orderTotal(g.order)))
	case "status":
		return fmt.Sprintf("Order %s is currently %s.", tools.Text(g.order["order_id"]), tools.Text(g.order["status"]))
	default:
		v := g.newObj[0]
		return fmt.Sprintf("%s is the %s variant (item %s), priced at %s.", strings.ToUpper(g.target.Label[:1])+yours(g.target.Label[1:]), options(v), tools.Text(v["item_id"]), blueprints.Money(num(v["price"])))
	}
}

// resolveDetails maps items, replacements and payment descriptions to
// ids; it returns a message when the request cannot be carried out.
func (o *Oracle) resolveDetails(ctx context.Context, g *goal) string {
	if len(g.items) > 0 && len(g.itemObj) != len(g.items) {
		g.itemObj = nil
		list := itemList(g.order)
		for _, s := range g.items {
			i, err := tools.Resolve(s, list)
			if err != nil {
				return "I'm sorry, I couldn't find " + s.Label + " in that order."
			}
			g.itemObj = append(g.itemObj, list[i])
		}
	}
	if len(g.newSel) > 0 && len(g.newObj) != len(g.newSel) {
		g.newObj = nil
		for i, s := range g.newSel {
			prod := o.ensureProduct(ctx, tools.Text(g.itemObj[i]["product_id"]))
			vars := variantList(prod)
			j, err := tools.Resolve(s, vars)
			if err != nil {
				return "I'm sorry, " + s.Label + " isn't available for that product."
			}
			v := maps.Clone(vars[j])
			v["name"] = prod["name"]
			g.newObj = append(g.newObj, v)
		}
	}
	if _, ok := g.slots["payment"]; ok && g.payID == "" {
		g.payID = o.paymentID(ctx, g)
		if g.payID == "" {
			return "I'm sorry, I couldn't find " + g.slots["payment"] + " on your account."
		}
	}
	if o.wants(FlawWrongArgument, g) && o.corrupt(g) {
		o.fire(FlawWrongArgument, g)
	}
	return ""
}

func (o *Oracle) paymentID(ctx context.Context, g *goal) string {
	desc := strings.ToLower(g.slots["payment"])
	if strings.Contains(desc, "original") {
		for _, ph := range paymentHistory(g.order) {
			if tools.Text(ph["transaction_type"]) == "payment" {
				return tools.Text(ph["payment_method_id"])
			}
		}
		return ""
	}
	u := o.ensureUser(ctx)
	pms, _ := u["payment_methods"].(map[string]any)
	var match []string
	for id, v := range pms {
		m, _ := v.(map[string]any)
		src := tools.Text(m["source"])
		switch {
		case strings.Contains(desc, strings.ToLower(id)):
			return id
		case strings.Contains(desc, "gift card") && src == "gift_card" && !strings.Contains(desc, "gift_card_"):
			match = append(match, id)
		case strings.Contains(desc, "paypal") && src == "paypal":
			match = append(match, id)
		case strings.Contains(desc, "ending in") && src == "credit_card" && strings.HasSuffix(desc, tools.Text(m["last_four"])):
			match = append(match, id)
		}
	}
	if len(match) != 1 {
		return ""
	}
	return match[0]
}

func paymentHistory(ord map[string]any) []map[string]any {
	list, _ := ord["payment_history"].([]any)
	var out []map[string]any
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func (o *Oracle) itemsText(list []map[string]any) string {
	var parts []string
	for _, it := range list {
		parts = append(parts, fmt.Sprintf("%s (%s, item %s, %s)", tools.Text(it["name"]), options(it), tools.Text(it["item_id"]), blueprints.Money(num(it["price"]))))
	}
	return strings.Join(parts, "; ")
}

func (o *Oracle) diff(g *goal) float64 {
	d := 0.0
	for i := range g.itemObj {
		if i < len(g.newObj) {
			d += num(g.newObj[i]["price"]) - num(g.itemObj[i]["price"])
		}
	}
	return math.Round(d*100) / 100
}

func (o *Oracle) proposal(g *goal) string {
	oid := tools.Text(g.order["order_id"])
	addr := blueprints.Address(g.slots)
	var what string
	switch action(g.intent) {
	case "cancel":
		what = fmt.Sprintf("cancel order %s (%s) with the reason '%s'. The full amount of %s will be refunded to the original payment method.",
			oid, o.itemsText(itemList(g.order)), g.slots["reason"], blueprints.Money(orderTotal(g.order)))
	case "order_address":
		what = fmt.Sprintf("change the shipping address of order %s to %s.", oid, addr)
	case "user_address":
		old := "the one on file"
		if a, ok := o.user["address"].(map[string]any); ok {
			old = blueprints.Address(map[string]string{"address1": tools.Text(a["address1"]), "address2": tools.Text(a["address2"]),
				"city": tools.Text(a["city"]), "state": tools.Text(a["state"]), "country": tools.Text(a["country"]), "zip": tools.Text(a["zip"])})
		}
		what = fmt.Sprintf("change the default address on your account from %s to %s.", old, addr)
	case "payment":
		what = fmt.Sprintf("switch the payment of order %s (total %s) to %s (%s).", oid, blueprints.Money(orderTotal(g.order)), yours(g.slots["payment"]), g.payID)
	case "return":
		total := 0.0
		for _, it := range g.itemObj {
			total += num(it["price"])
		}
		what = fmt.Sprintf("return %s from order %s. You'll be refunded %s to %s (%s).", o.itemsText(g.itemObj), oid, blueprints.Money(total), yours(g.slots["payment"]), g.payID)
	case "items", "exchange":
		verb := "exchange"
		if action(g.intent) == "items" {
			verb = "modify order " + oid + ", replacing"
		}
		d := o.diff(g)
		settle := fmt.Sprintf("The price difference of %s will be charged to %s (%s).", blueprints.Money(math.Abs(d)), yours(g.slots["payment"]), g.payID)
		if d < 0 {
			settle = fmt.Sprintf("The price difference of %s will be refunded to %s (%s).", blueprints.Money(-d), yours(g.slots["payment"]), g.payID)
		}
		if verb == "exchange" {
			what = fmt.Sprintf("exchange %s from order %s for %s. %s", o.itemsText(g.itemObj), oid, o.itemsText(g.newObj), settle)
		} else {
			what = fmt.Sprintf("%s %s with %s. %s Note that an order's items can only be modified once.", verb, o.itemsText(g.itemObj), o.itemsText(g.newObj), settle)
		}
	}
	lead := o.say(proposeLead, nil)
	if strings.HasSuffix(lead, ":") {
		what = "I'll " + what
	}
	return lead + " " + what + " " + o.say(confirmAsk, nil)
}

// reasoning is the short thought before a write: why the policy allows it
// and where its arguments came from.
func reasoning(g *goal, oid string) string {
	switch action(g.intent) {
	case "user_address":
		return "The user is authenticated and explicitly confirmed the new address, so I can update it on their account."
	case "cancel", "order_address", "payment", "items":
		return fmt.Sprintf("Order %s is pending and belongs to the authenticated user, who confirmed the details explicitly; the ids come from the tool results.", oid)
	}
	return fmt.Sprintf("Order %s is delivered and belongs to the authenticated user, who confirmed the details explicitly; the item and payment ids come from the tool results.", oid)
}

func ids(list []map[string]any, key string) []string {
	out := make([]string, len(list))
	for i, m := range list {
		out[i] = tools.Text(m[key])
	}
	return out
}

// execute makes the confirmed write and reports its outcome.
func (o *Oracle) execute(ctx context.Context, g *goal) string {
	oid := tools.Text(g.order["order_id"])
	var name string
	args := map[string]any{}
	addrArgs := func() {
		for _, k := range []string{"address1", "address2", "city", "state", "country", "zip"} {
			args[k] = g.slots[k]
		}
	}
	var report string
	switch action(g.intent) {
	case "cancel":
		name, args["order_id"], args["reason"] = "cancel_pending_order", oid, g.slots["reason"]
		report = fmt.Sprintf("Order %s is cancelled; %s will be refunded to the original payment method.", oid, blueprints.Money(orderTotal(g.order)))
	case "order_address":
		name, args["order_id"] = "modify_pending_order_address", oid
		addrArgs()
		report = fmt.Sprintf("Order %s will now ship to %s.", oid, blueprints.Address(g.slots))
	case "user_address":
		name, args["user_id"] = "modify_user_address", o.userID
		addrArgs()
		report = fmt.Sprintf("Your default address is now %s.", blueprints.Address(g.slots))
	case "payment":
		name, args["order_id"], args["payment_method_id"] = "modify_pending_order_payment", oid, g.payID
		report = fmt.Sprintf("Order %s is now paid with %s.", oid, yours(g.slots["payment"]))
	case "return":
		name, args["order_id"], args["item_ids"], args["payment_method_id"] = "return_delivered_order_items", oid, ids(g.itemObj, "item_id"), g.payID
		total := 0.0
		for _, it := range g.itemObj {
			total += num(it["price"])
		}
		report = fmt.Sprintf("The return for order %s is requested. You'll receive %s to %s once the items arrive; you'll get an email with the return label.", oid, blueprints.Money(total), yours(g.slots["payment"]))
	case "items", "exchange":
		name = "modify_pending_order_items"
		if action(g.intent) == "exchange" {
			name = "exchange_delivered_order_items"
		}
		args["order_id"], args["item_ids"], args["new_item_ids"], args["payment_method_id"] = oid, ids(g.itemObj, "item_id"), ids(g.newObj, "item_id"), g.payID
		d := o.diff(g)
		what := "now holds the new items"
		if name == "exchange_delivered_order_items" {
			what = "has an exchange requested; you'll get an email with instructions for sending the items back"
		}
		dir := "charged to"
		if d < 0 {
			dir = "refunded to"
		}
		report = fmt.Sprintf("Order %s %s. The price difference of %s is %s %s.", oid, what, blueprints.Money(math.Abs(d)), dir, yours(g.slots["payment"]))
	}
	name, args = o.mistake(g, name, args)
	_, out, ok := o.call(ctx, name, args, reasoning(g, oid))
	if !ok {
		return "I'm sorry, the change didn't go through: " + strings.TrimPrefix(out, "Error: ") + "."
	}
	return o.say(doneLead, nil) + " " + report
}
