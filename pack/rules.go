package pack

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/synth-data/synth/record"
)

// Rule kinds: each is a check the verifier knows how to run, given the
// rule's parameters. A pack declares its rules next to its policy, each
// naming the policy sentence it enforces, so the verifier holds an
// engine to the policy the agent is given rather than to a subset baked
// into Go.
const (
	// RuleDisclose: before the customer's yes to Tool, the agent stated
	// every figure of Figures (outputs of the write's hint: a refund, a
	// total, a price difference), and the figure is what the write then
	// did.
	RuleDisclose = "disclose"
	// RuleFromCustomer: the values of Args of Tool come from the customer
	// (a passenger's name, a new address): each said in a customer turn
	// before the write, never filled in by the agent.
	RuleFromCustomer = "from_customer"
	// RuleMessage: after a call of After, the agent's next words hold Text
	// exactly (the transfer message).
	RuleMessage = "message"
	// RuleSay: before the customer's yes to Tool, the agent said one of
	// Phrases (a reminder or a question the policy requires).
	RuleSay = "say"
	// RuleOneWritePerYes: every write runs on a yes of its own.
	RuleOneWritePerYes = "one_write_per_yes"
	// RuleChangesState: no write that changes nothing.
	RuleChangesState = "changes_state"
	// RuleRequested: no write the customer did not ask for (its tool and
	// target are the ground truth's).
	RuleRequested = "requested"
	// RuleRefuse: a request the policy forbids is refused in words and
	// never carried out.
	RuleRefuse = "refuse"
	// RuleGrounded: every id a call passes (an argument named like an
	// id: order_id, ServiceSid, item_ids) was said before it, by the
	// customer or in a tool result; none is made up.
	RuleGrounded = "grounded"
	// RuleChecked: before each write of Tool, the agent made the reads
	// its hint's checks name for the target as it then stood, and before
	// refusing a forbidden request of Tool, the ground truth's reads of
	// those tools: no refusal or write on facts it never read.
	RuleChecked = "checked"
	// RuleComputed: every call of Tool passes for each of Args (computed
	// arguments, compute:FUNCTION) what the function gives on the state
	// before the call, and none is one the tool refuses for a reason the
	// pack counts as the policy's: no certificate the policy forbids,
	// none of another amount than it sets, even one the agent took back.
	RuleComputed = "computed"
)

// RuleKinds lists the rule kinds.
func RuleKinds() []string {
	return []string{RuleDisclose, RuleFromCustomer, RuleMessage, RuleSay, RuleOneWritePerYes, RuleChangesState, RuleRequested, RuleRefuse, RuleGrounded, RuleChecked, RuleComputed, RuleAllow}
}

// Rule is one checkable rule of a domain's policy.
type Rule struct {
	// Name names the rule in verdicts, pass rates and DPO labels.
	Name string `json:"name"`
	// Policy is the sentence of the policy the rule enforces, as the
	// policy file says it.
	Policy string `json:"policy"`
	Kind   string `json:"kind"`
	// Tool is the write the rule is about (disclose, from_customer, say,
	// checked, computed, allow).
	Tool string `json:"tool,omitempty"`
	// Figures are outputs of Tool's hint (disclose).
	Figures []string `json:"figures,omitempty"`
	// Args are argument paths of Tool (from_customer): "passengers",
	// "address1"; or its computed arguments (computed).
	Args []string `json:"args,omitempty"`
	// After is the tool a message follows (message).
	After string `json:"after,omitempty"`
	// Text is the exact message (message), or what the agent says to obey
	// a say rule.
	Text string `json:"text,omitempty"`
	// Phrases are what a say rule accepts, any one of them, case aside.
	Phrases []string `json:"phrases,omitempty"`
	// Check is the policy code's function an allow rule calls.
	Check string `json:"check,omitempty"`
	// Asks are the facts an allow rule has the agent ask first.
	Asks []Fact `json:"asks,omitempty"`
}

// Unchecked is policy text no rule checks, with the reason.
type Unchecked struct {
	Policy string `json:"policy"`
	Why    string `json:"why"`
}

// DefaultRules are the rules every pack is held to, whatever it
// declares: they need no parameter and hold for any policy that asks
// for a confirmation before a write.
func DefaultRules() []Rule {
	return []Rule{
		{Name: "one_write_per_confirmation", Kind: RuleOneWritePerYes, Policy: "(every domain) Obtain the user's explicit confirmation before each update."},
		{Name: "write_changes_something", Kind: RuleChangesState, Policy: "(every domain) Make no update that changes nothing."},
		{Name: "only_requested_writes", Kind: RuleRequested, Policy: "(every domain) Take no action the user did not ask for."},
		{Name: "ids_from_the_dialogue", Kind: RuleGrounded, Policy: "(every domain) Never make up an id: use only ids the user gave or a tool returned."},
	}
}

var ruleName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// PolicyText normalises policy text for matching a rule's sentence:
// markdown emphasis and list marks dropped, whitespace collapsed.
func PolicyText(s string) string {
	s = strings.NewReplacer("**", "", "`", "", "\u2019", "'").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// checkRules checks the manifest's rules against the policy, the tools
// and the write hints.
func (c *checker) checkRules() {
	m := &c.man
	policy := PolicyText(c.policy)
	seen := map[string]bool{}
	for _, r := range DefaultRules() {
		seen[r.Name] = true
	}
	for i, r := range m.Rules {
		at := loc("rules", strconv.Itoa(i))
		switch {
		case !ruleName.MatchString(r.Name):
			c.addY(child(at, "name"), "rule name %q: use lower case letters, digits and _", r.Name)
		case seen[r.Name]:
			c.addY(child(at, "name"), "rule %q is declared twice (or is a default rule every pack has)", r.Name)
		}
		seen[r.Name] = true
		if c.policy != "" && (strings.TrimSpace(r.Policy) == "" || !strings.Contains(policy, PolicyText(r.Policy))) {
			c.addY(child(at, "policy"), "rule %s: give the sentence of %s it enforces, word for word (%q is not in it)", r.Name, m.Policy, r.Policy)
		}
		if !slices.Contains(RuleKinds(), r.Kind) {
			c.addY(child(at, "kind"), "rule %s: kind %q is not one of %s", r.Name, r.Kind, strings.Join(RuleKinds(), ", "))
			continue
		}
		needs := func(field string, ok bool) {
			if !ok {
				c.addY(at, "rule %s (%s) needs %s", r.Name, r.Kind, field)
			}
		}
		switch r.Kind {
		case RuleDisclose, RuleFromCustomer, RuleSay, RuleChecked, RuleComputed, RuleAllow:
			needs("tool", r.Tool != "")
			if r.Tool != "" {
				c.toolRef(child(at, "tool"), r.Tool, record.KindWrite)
			}
		}
		switch r.Kind {
		case RuleDisclose:
			needs("figures", len(r.Figures) > 0)
			outs := outputNames(m.Hints.Writes[r.Tool].Outputs)
			for k, f := range r.Figures {
				if !slices.Contains(outs, f) {
					c.addY(loc("rules", strconv.Itoa(i), "figures", strconv.Itoa(k)), "rule %s: %q is not an output of hints.writes.%s (outputs: %s)", r.Name, f, r.Tool, strings.Join(outs, ", "))
				}
			}
		case RuleFromCustomer:
			needs("args", len(r.Args) > 0)
			if td := c.byName[r.Tool]; td != nil {
				for k, a := range r.Args {
					root, _, _ := strings.Cut(a, ".")
					if !td.props[root] {
						c.addY(loc("rules", strconv.Itoa(i), "args", strconv.Itoa(k)), "rule %s: %s has no parameter %q", r.Name, r.Tool, root)
					}
				}
			}
		case RuleComputed:
			needs("args", len(r.Args) > 0)
			for k, a := range r.Args {
				if src := m.Hints.Writes[r.Tool].Args[a].Source; !strings.HasPrefix(src, "compute:") {
					c.addY(loc("rules", strconv.Itoa(i), "args", strconv.Itoa(k)), "rule %s: hints.writes.%s.args.%s is not a computed argument (compute:FUNCTION)", r.Name, r.Tool, a)
				}
			}
		case RuleAllow:
			c.checkAllow(i, r)
		case RuleChecked:
			if r.Tool != "" && len(m.Hints.Writes[r.Tool].Checks) == 0 {
				c.addY(child(at, "tool"), "rule %s: hints.writes.%s has no checks to hold the agent to", r.Name, r.Tool)
			}
		case RuleMessage:
			needs("after", r.After != "")
			needs("text", r.Text != "")
			if r.After != "" {
				c.toolRef(child(at, "after"), r.After, "")
			}
			if r.Text != "" && c.policy != "" && !strings.Contains(c.policy, r.Text) {
				c.addY(child(at, "text"), "rule %s: the message %q is not in %s word for word", r.Name, r.Text, m.Policy)
			}
		case RuleSay:
			needs("phrases", len(r.Phrases) > 0)
			needs("text", r.Text != "")
			if r.Text != "" && len(r.Phrases) > 0 && !SaysAny(r.Text, r.Phrases) {
				c.addY(child(at, "text"), "rule %s: text %q says none of its phrases", r.Name, r.Text)
			}
		}
	}
	for i, u := range m.Unchecked {
		at := loc("unchecked", strconv.Itoa(i))
		if c.policy != "" && !strings.Contains(policy, PolicyText(u.Policy)) {
			c.addY(child(at, "policy"), "%q is not in %s word for word", u.Policy, m.Policy)
		}
		if strings.TrimSpace(u.Why) == "" {
			c.addY(child(at, "why"), "say why no rule checks it")
		}
	}
}

// SaysAny reports whether text holds one of phrases, case aside: how a
// say rule is judged, and checked against its own text.
func SaysAny(text string, phrases []string) bool {
	low := strings.ToLower(text)
	return slices.ContainsFunc(phrases, func(p string) bool { return strings.Contains(low, strings.ToLower(p)) })
}

// outputNames are the names of a write hint's outputs: NAME=EXPR names
// NAME, a result path names itself with dots as underscores.
func outputNames(outs []string) []string {
	var names []string
	for _, o := range outs {
		if name, _, ok := strings.Cut(o, "="); ok {
			names = append(names, strings.TrimSpace(name))
			continue
		}
		names = append(names, strings.ReplaceAll(o, ".", "_"))
	}
	return names
}

var (
	policyItem    = regexp.MustCompile(`^\s*[-*]\s+`)
	sentenceBreak = regexp.MustCompile(`([.!?:;])\s+([A-Za-z])`)
)

// Uncovered lists the sentences of a policy that no rule enforces and
// no unchecked entry explains: a built-in domain's policy has none, so
// every sentence is either checked or says why it cannot be. Headings
// and tables are not sentences.
func Uncovered(policy string, rules []Rule, unchecked []Unchecked) []string {
	var covered []string
	for _, r := range rules {
		covered = append(covered, PolicyText(r.Policy))
	}
	for _, u := range unchecked {
		covered = append(covered, PolicyText(u.Policy))
	}
	var out []string
	for _, line := range strings.Split(policy, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "|") {
			continue
		}
		t = PolicyText(policyItem.ReplaceAllString(t, ""))
		for _, s := range strings.Split(sentenceBreak.ReplaceAllString(t, "$1\n$2"), "\n") {
			if !slices.ContainsFunc(covered, func(c string) bool { return strings.Contains(c, s) }) {
				out = append(out, s)
			}
		}
	}
	return out
}
