package llm

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/synth-data/synth/record"
)

// The prompts synth sends are fixed templates. Their first lines name the
// role so that `synth emulate` (and a human reading logs) can tell the
// requests apart; the structured parts sit between XML-like tags.
const (
	UserHeader   = "You are playing a customer who contacts customer service."
	WriterHeader = "You write the instruction that a simulated customer will follow."
	JudgeHeader  = "You review one task for a customer-service simulation."
	RefineHeader = "You rewrite one line of a customer-service dialogue."
)

// Stop tokens the simulated customer ends a conversation with.
const (
	TokenStop       = "###STOP###"
	TokenTransfer   = "###TRANSFER###"
	TokenOutOfScope = "###OUT-OF-SCOPE###"
)

// Tag wraps s in <name>…</name>.
func Tag(name, s string) string { return "<" + name + ">\n" + s + "\n</" + name + ">" }

// Between returns the text inside the first <name>…</name> of s.
func Between(s, name string) (string, bool) {
	open, closing := "<"+name+">", "</"+name+">"
	i := strings.Index(s, open)
	if i < 0 {
		return "", false
	}
	rest := s[i+len(open):]
	j := strings.Index(rest, closing)
	if j < 0 {
		return "", false
	}
	return strings.TrimSpace(rest[:j]), true
}

// Scenario is what the simulated customer knows: the blueprint without
// its ground truth (actions, outputs, final state).
func Scenario(bp *record.Blueprint) *record.Blueprint {
	sc := *bp
	sc.Actions, sc.Outputs, sc.StateHash = nil, nil, ""
	return &sc
}

// UserPrompt is the simulated customer's system prompt.
func UserPrompt(bp *record.Blueprint, behavior string) (string, error) {
	raw, err := json.Marshal(Scenario(bp))
	if err != nil {
		return "", fmt.Errorf("blueprint %s: %w", bp.ID, err)
	}
	var b strings.Builder
	b.WriteString(UserHeader + "\n\n")
	b.WriteString("Follow your instruction. Say one message at a time, as a customer would. " +
		"Never invent facts you were not given; reveal what you know only when it is needed or asked for. " +
		"Do not call tools: you are the customer, not the agent.\n")
	fmt.Fprintf(&b, "When everything you wanted is done, or cannot be done, reply with %s alone. "+
		"If you are transferred to a human agent, reply with %s alone. "+
		"If the conversation goes outside your instruction, reply with %s alone. "+
		"Never end the conversation before the agent has actually carried out what you agreed to.\n\n",
		TokenStop, TokenTransfer, TokenOutOfScope)
	b.WriteString(Tag("instruction", bp.Instruction) + "\n\n")
	b.WriteString(Tag("behavior", behavior) + "\n\n")
	b.WriteString(Tag("scenario", string(raw)) + "\n")
	return b.String(), nil
}

// ParseScenario reads the scenario back from a customer system prompt.
func ParseScenario(system string) (*record.Blueprint, error) {
	if !strings.HasPrefix(system, UserHeader) {
		return nil, fmt.Errorf("not a customer prompt")
	}
	raw, ok := Between(system, "scenario")
	if !ok {
		return nil, fmt.Errorf("customer prompt has no <scenario> block")
	}
	var bp record.Blueprint
	if err := json.Unmarshal([]byte(raw), &bp); err != nil {
		return nil, fmt.Errorf("customer prompt <scenario>: %w", err)
	}
	return &bp, nil
}

// Review is a judge's vote, the JSON object a judge replies with.
type Review struct {
	Entails   bool   `json:"entails"`   // the instruction entails exactly the ground truth
	Realistic bool   `json:"realistic"` // it reads like a real customer
	Feedback  string `json:"feedback"`  // what to fix when either is false
}

// ParseReview reads a judge's reply, tolerating prose or a code fence
// around the JSON object.
func ParseReview(text string) (Review, error) {
	i, j := strings.Index(text, "{"), strings.LastIndex(text, "}")
	if i < 0 || j < i {
		return Review{}, fmt.Errorf("judge reply has no JSON object: %.80q", text)
	}
	var r Review
	if err := json.Unmarshal([]byte(text[i:j+1]), &r); err != nil {
		return Review{}, fmt.Errorf("judge reply: %w", err)
	}
	return r, nil
}

// Kickoff is the agent's greeting the simulated customer answers first.
// It opens every customer request and is not part of the trajectory.
//
// A customer request is [system: UserPrompt, user: Kickoff, then the
// dialogue so far seen from the customer's side]: the agent's words are
// "user" messages and the customer's own words "assistant" messages; tool
// calls and tool results are left out.
const Kickoff = "Hi! How can I help you today?"

// SessionID names one trial of one blueprint. Both the agent's and the
// customer's requests of that trial carry it in the request's `user`
// field (OpenAI's end-user id), so a server can tell sessions apart.
func SessionID(blueprintID string, trial int) string {
	return fmt.Sprintf("%s/t%d", blueprintID, trial)
}
