package blueprints

import (
	"fmt"
	"strings"

	"github.com/synth-data/synth/record"
)

// Instruction renders the task as the user simulator's brief, in the
// second person as tau2-bench writes them. The LLM writer rewrites it;
// the embedded user reads the structured goals instead.
func Instruction(bp *record.Blueprint) string {
	var b strings.Builder
	k := bp.Persona.Known
	fmt.Fprintf(&b, "You are %s.", bp.Persona.Name)
	if k["email"] != "" {
		fmt.Fprintf(&b, " Your email is %s.", k["email"])
	} else {
		fmt.Fprintf(&b, " Your zip code is %s.", k["zip"])
	}
	fmt.Fprintf(&b, " You are contacting customer support because you %s.", strings.TrimSuffix(bp.Reason, "."))
	for i, g := range bp.Goals {
		b.WriteString(" ")
		if i > 0 {
			b.WriteString("Also, ")
		}
		b.WriteString(GoalSentence(g))
	}
	var outs []string
	for _, o := range bp.Outputs {
		outs = append(outs, strings.ReplaceAll(o.Name, "_", " "))
	}
	if len(outs) > 0 {
		fmt.Fprintf(&b, " Make sure you learn the %s.", strings.Join(outs, " and the "))
	}
	if len(bp.Unknown) > 0 {
		fmt.Fprintf(&b, " You do not know your %s.", strings.Join(bp.Unknown, " or "))
	}
	return b.String()
}

// GoalSentence states one goal in plain words.
func GoalSentence(g record.Goal) string {
	t := g.Target.Label
	items := Labels(g.Items)
	switch g.Intent {
	case IntentCancel:
		return fmt.Sprintf("You want to cancel %s because it was %s.", t, g.Slots["reason"])
	case IntentOrderAddress:
		return fmt.Sprintf("You want %s shipped to %s instead.", t, Address(g.Slots))
	case IntentUserAddress:
		return fmt.Sprintf("You want the address on your account changed to %s.", Address(g.Slots))
	case IntentModifyPayment:
		return fmt.Sprintf("You want to pay for %s with %s.", t, g.Slots["payment"])
	case IntentModifyItems:
		return fmt.Sprintf("In %s you want to swap %s for %s, settling any difference with %s.", t, items, Labels(g.New), g.Slots["payment"])
	case IntentExchange:
		return fmt.Sprintf("From %s you want to exchange %s for %s, settling any difference with %s.", t, items, Labels(g.New), g.Slots["payment"])
	case IntentReturn:
		return fmt.Sprintf("You want to return %s from %s, refunded to %s.", items, t, g.Slots["payment"])
	case IntentOrderTotal:
		return fmt.Sprintf("You want to know the total of %s.", t)
	case IntentOrderStatus:
		return fmt.Sprintf("You want to know the status of %s.", t)
	case IntentCheapest:
		return fmt.Sprintf("You want to know the price of %s.", t)
	case IntentCancelRefused:
		return fmt.Sprintf("You want to cancel %s; accept it if the agent says it cannot be done.", t)
	case IntentReturnRefused:
		return fmt.Sprintf("You want to return %s from %s; accept it if the agent says it cannot be done.", items, t)
	case IntentOutOfScope:
		return fmt.Sprintf("You want to %s.", g.Slots["topic"])
	}
	return fmt.Sprintf("You want help with %s.", t)
}

// Address formats address slots on one line.
func Address(s map[string]string) string {
	parts := []string{s["address1"]}
	if s["address2"] != "" {
		parts = append(parts, s["address2"])
	}
	parts = append(parts, s["city"], s["state"]+" "+s["zip"])
	if s["country"] != "" && s["country"] != "USA" {
		parts = append(parts, s["country"])
	}
	return strings.Join(parts, ", ")
}

// Labels joins selector labels as a list in prose.
func Labels(sels []record.Selector) string {
	var ls []string
	for _, s := range sels {
		ls = append(ls, s.Label)
	}
	switch len(ls) {
	case 0:
		return ""
	case 1:
		return ls[0]
	}
	return strings.Join(ls[:len(ls)-1], ", ") + " and " + ls[len(ls)-1]
}
