package agent

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/synth-data/synth/tools"
)

// The failure taxonomy: each flaw is one realistic mistake an agent makes
// at one decision. A flawed oracle behaves exactly like the oracle until
// its flaw fires, so its dialogue shares the oracle's prefix and diverges
// at the decision that matters.
const (
	FlawPrematureWrite      = "premature_write"      // skips the evidence reads and guesses
	FlawWrongTarget         = "wrong_target"         // a near miss: the other order
	FlawWrongArgument       = "wrong_argument"       // item, payment method, address field or reason
	FlawNoConfirmation      = "no_confirmation"      // writes without the user's yes
	FlawUnauthenticated     = "unauthenticated"      // acts before authenticating the user
	FlawHallucinatedID      = "hallucinated_id"      // an id no tool returned
	FlawWrongTool           = "wrong_tool"           // a plausible but wrong tool
	FlawSchemaInvalid       = "schema_invalid"       // arguments that break the tool's schema
	FlawStopsEarly          = "stops_early"          // ends before every sub-goal is done
	FlawUnnecessaryTransfer = "unnecessary_transfer" // hands over a request it could handle
	FlawOmitsOutput         = "omits_output"         // never tells the user the amount
)

// Flaws lists every flaw kind.
func Flaws() []string {
	return []string{FlawPrematureWrite, FlawWrongTarget, FlawWrongArgument, FlawNoConfirmation, FlawUnauthenticated,
		FlawHallucinatedID, FlawWrongTool, FlawSchemaInvalid, FlawStopsEarly, FlawUnnecessaryTransfer, FlawOmitsOutput}
}

// Flaw configures a flawed oracle: the mistake fires at its first
// opportunity while the agent works on goal Goal or a later one.
type Flaw struct {
	Kind string
	Goal int
}

// WithFlaw turns the oracle into a flawed agent.
func (o *Oracle) WithFlaw(f Flaw) *Oracle {
	o.flaw = &f
	return o
}

// Fired reports whether the flaw has fired.
func (o *Oracle) Fired() bool { return o.fired }

// fire reports whether the flaw of this kind fires now (once).
func (o *Oracle) fire(kind string, g *goal) bool {
	if o.flaw == nil || o.fired || o.flaw.Kind != kind || (g != nil && g.idx < o.flaw.Goal) {
		return false
	}
	o.fired = true
	return true
}

// wants reports whether a flaw of this kind is still pending, so a hook
// can check that its mistake is possible before firing.
func (o *Oracle) wants(kind string, g *goal) bool {
	return o.flaw != nil && !o.fired && o.flaw.Kind == kind && (g == nil || g.idx >= o.flaw.Goal)
}

// skipAuth is the unauthenticated flaw: guess the user id from the email
// instead of looking it up, or look the order up first and trust the user
// id it names.
func (o *Oracle) skipAuth(call func(string) map[string]any) bool {
	if !o.wants(FlawUnauthenticated, nil) {
		return false
	}
	if email := o.identity["email"]; email != "" {
		if id := guessUserID(email); id != "" {
			o.fire(FlawUnauthenticated, nil)
			o.identity = nil
			o.userID = id
			return true
		}
	}
	for _, i := range o.queue {
		if g := o.goals[i]; g.target != nil && g.target.ID != "" {
			if ord := call(g.target.ID); ord != nil {
				o.fire(FlawUnauthenticated, nil)
				o.userID = tools.Text(ord["user_id"])
				return true
			}
		}
	}
	return false
}

// guessUserID derives "olivia_smith_4821" from "olivia.smith4821@example.com",
// the shortcut an agent takes when it skips find_user_id_by_email.
func guessUserID(email string) string {
	local, _, ok := strings.Cut(email, "@")
	if !ok {
		return ""
	}
	i := len(local)
	for i > 0 && local[i-1] >= '0' && local[i-1] <= '9' {
		i--
	}
	if i == len(local) || i == 0 {
		return ""
	}
	return strings.ReplaceAll(local[:i], ".", "_") + "_" + local[i:]
}

// nearMiss picks another candidate of the same kind as the resolved one
// (another pending order when the user meant the most recent one).
func nearMiss(cands []map[string]any, chosen int, where map[string]string) int {
	for j, c := range cands {
		if j != chosen && tools.Matches(c, where) {
			return j
		}
	}
	return -1
}

// corrupt changes one argument of a resolved goal to a plausible wrong
// value; it reports whether it found one to change.
func (o *Oracle) corrupt(g *goal) bool {
	items := itemList(g.order)
	if len(g.itemObj) > 0 && len(items) > len(g.itemObj) {
		for _, it := range items {
			if !slices.ContainsFunc(g.itemObj, func(x map[string]any) bool { return tools.Text(x["item_id"]) == tools.Text(it["item_id"]) }) {
				if len(g.newSel) > 0 {
					break // a replacement must match the item's product
				}
				g.itemObj = append([]map[string]any{it}, g.itemObj[1:]...)
				return true
			}
		}
	}
	if g.payID != "" && o.user != nil {
		pms, _ := o.user["payment_methods"].(map[string]any)
		keys := slices.Sorted(maps.Keys(pms))
		for _, id := range keys {
			if id != g.payID {
				g.payID = id
				return true
			}
		}
	}
	if z := g.slots["zip"]; len(z) == 5 {
		g.slots = maps.Clone(g.slots)
		g.slots["zip"] = z[:4] + string('0'+(z[4]-'0'+1)%10)
		return true
	}
	if r := g.slots["reason"]; r != "" {
		g.slots = maps.Clone(g.slots)
		g.slots["reason"] = map[string]string{"no longer needed": "ordered by mistake", "ordered by mistake": "no longer needed"}[r]
		return true
	}
	return false
}

// wrongTools maps a write to the plausible wrong tool an agent confuses it with.
var wrongTools = map[string]string{
	"modify_pending_order_address":   "modify_user_address",
	"exchange_delivered_order_items": "modify_pending_order_items",
	"modify_pending_order_items":     "exchange_delivered_order_items",
	"return_delivered_order_items":   "exchange_delivered_order_items",
}

// mistake applies the write-time flaws to a call about to be made.
func (o *Oracle) mistake(g *goal, name string, args map[string]any) (string, map[string]any) {
	switch {
	case o.wants(FlawWrongTool, g) && wrongTools[name] != "":
		o.fire(FlawWrongTool, g)
		wrong := wrongTools[name]
		args = maps.Clone(args)
		switch wrong {
		case "modify_user_address":
			delete(args, "order_id")
			args["user_id"] = o.userID
		case "return_delivered_order_items":
			delete(args, "reason")
			args["item_ids"] = ids(itemList(g.order), "item_id")
			args["payment_method_id"] = paidBy(g.order)
		case "exchange_delivered_order_items":
			if _, ok := args["new_item_ids"]; !ok {
				args["new_item_ids"] = args["item_ids"]
			}
		}
		return wrong, args
	case g.order == nil && o.fire(FlawHallucinatedID, g):
		// No order to point at: make up the user id instead.
		args = maps.Clone(args)
		args["user_id"] = fmt.Sprintf("%s_%04d", strings.ToLower(o.first), o.rng.IntN(10000))
		return name, args
	case o.fire(FlawSchemaInvalid, g):
		args = maps.Clone(args)
		if v, ok := args["item_ids"].([]string); ok && len(v) > 0 {
			args["item_ids"] = v[0] // a string where the schema wants a list
		} else if _, ok := args["order_id"]; ok {
			delete(args, "order_id")
		} else {
			delete(args, "zip")
		}
		return name, args
	}
	return name, args
}

var amount = regexp.MustCompile(`\s*(?:at|of|for a total of|priced at)?\s*\$\d[\d,]*(?:\.\d+)?`)

// hideAmounts removes every amount of money from the agent's words.
func hideAmounts(s string) string {
	s = amount.ReplaceAllString(s, "")
	return strings.NewReplacer(", )", ")", ",)", ")", ", .", ".", ",.", ".", " .", ".").Replace(s)
}

// hallucinate replaces the resolved order's id with an invented one
// before the proposal, so the agent states and uses an id no tool returned.
func (o *Oracle) hallucinate(g *goal) {
	if g.order == nil || !o.fire(FlawHallucinatedID, g) {
		return
	}
	g.order = maps.Clone(g.order)
	g.order["order_id"] = fmt.Sprintf("#W%07d", o.rng.IntN(10000000))
}

func paidBy(ord map[string]any) string {
	for _, ph := range paymentHistory(ord) {
		if tools.Text(ph["transaction_type"]) == "payment" {
			return tools.Text(ph["payment_method_id"])
		}
	}
	return ""
}
