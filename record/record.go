package record

import (
	"encoding/json"
	"slices"
)

// Message is one chat turn in the OpenAI shape that TRL chat templates read.
type Message struct {
	Role             string     `json:"role"`
	Content          string     `json:"content"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"`
	Name             string     `json:"name,omitempty"`
	// Weight is OpenAI fine-tuning's per-message weight on an assistant
	// message: 0 leaves it out of the loss. Only a recovery row's mistake
	// turns (credit.Mistakes) carry it, as 0; nil everywhere else.
	Weight *int `json:"weight,omitempty"`
}

// WeightAllowed reports whether a message of role may carry weight w in
// OpenAI's fine-tuning format: none, or 0 or 1 on an assistant message.
func WeightAllowed(role string, w *int) bool {
	return w == nil || role == "assistant" && (*w == 0 || *w == 1)
}

// ToolCall is an assistant's request to run one tool.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the tool and carries its arguments as JSON text,
// exactly as the OpenAI API does (Arrow cannot store empty structs, and
// chat templates differ on dict vs string, so text is the portable form).
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool kinds, as in tau2-bench: only writes change state and are replayed.
const (
	KindRead    = "read"
	KindWrite   = "write"
	KindGeneric = "generic"
)

// Goal kinds.
const (
	GoalWrite    = "write"    // the user wants a change made
	GoalInform   = "inform"   // the user wants information; no write
	GoalRefuse   = "refuse"   // the user asks for something the policy forbids
	GoalTransfer = "transfer" // out of scope: the agent must hand over to a human
)

// Selector describes an entity the way a user would: by id when they know
// it, otherwise by attributes and an optional ordering criterion. Exactly
// one entity of the domain satisfies a blueprint's selectors.
type Selector struct {
	Collection string            `json:"collection"`
	ID         string            `json:"id,omitempty"`
	Where      map[string]string `json:"where,omitempty"`
	// Pick is "" when Where alone singles the entity out, otherwise
	// "max:FIELD" or "min:FIELD" over the entities matching Where.
	Pick string `json:"pick,omitempty"`
	// Label is how the user names it ("my most recent pending order").
	Label string `json:"label"`
	// Among holds, for an entity found by searching (a flight), the
	// values the user gives per search parameter: several for a grid
	// parameter ("SFO or OAK"), one for a fixed one. Every combination
	// is searched and Where and Pick apply to all the results together.
	Among map[string][]string `json:"among,omitempty"`
	// Back holds, for a round trip found by searching, the values the
	// user gives for the way back, as Among does (the route reversed, a
	// later date): every pair of an outbound and a return result is a
	// candidate, and Where and Pick apply to the pairs.
	Back map[string][]string `json:"back,omitempty"`
}

// Goal is one thing the user wants from the conversation.
type Goal struct {
	Intent string     `json:"intent"`
	Kind   string     `json:"kind"`
	Target Selector   `json:"target"`
	Items  []Selector `json:"items,omitempty"`
	// New is parallel to Items: the replacement for each item (exchanges,
	// item modifications).
	New []Selector `json:"new,omitempty"`
	// Slots are scalar values the user supplies (reason, payment method,
	// address fields, the question asked).
	Slots map[string]string `json:"slots,omitempty"`
	// Revised holds the first value of a slot the user changes their mind
	// about; Slots holds the final value the ground truth uses.
	Revised map[string]string `json:"revised,omitempty"`
	// RevisedItems are, likewise, the first choices (by Collection, the
	// argument) the user changes their mind about; Items holds the final.
	RevisedItems []Selector `json:"revised_items,omitempty"`
	// FailingItems are the first choices (by Collection, the argument)
	// the customer names, on which the write fails in its tool (a gift
	// card whose balance does not cover the order): the agent, which
	// tries the write on a copy of the state first, never proposes it;
	// it tells the customer the choice cannot pay, with the balance and
	// the amount, and the customer then names Items' or Slots' choice,
	// on which it succeeds.
	FailingItems []Selector `json:"failing_items,omitempty"`
	// FailingSlots are, likewise, the first values of slots (by
	// argument) the customer states, on which the write fails in its
	// tool (a name another record already has): the agent tells the
	// customer the tool's error, and the customer then states Slots'
	// value, on which it succeeds.
	FailingSlots map[string]string `json:"failing_slots,omitempty"`
	// UnavailableNew are the replacements (by Collection, the argument,
	// one per element as in New) the customer names first, one of which
	// is a variant the related record offers but not available: the
	// agent says so without proposing it, and the customer then names
	// New.
	UnavailableNew []Selector `json:"unavailable_new,omitempty"`
	// Instead marks a conditional goal: the customer asks for it in the
	// same breath as the forbidden request before it ("if that can't be
	// done, ... instead"), and the agent takes it up once it has refused
	// that one, without being asked again.
	Instead bool `json:"instead,omitempty"`
	// Situation is the label the pack gives tasks of this write, granted
	// or refused (compensation): the situations count it.
	Situation string `json:"situation,omitempty"`
}

// Action is one ground-truth tool call.
type Action struct {
	Tool      string          `json:"tool"`
	Kind      string          `json:"kind"`
	Arguments json.RawMessage `json:"arguments"`
	Goal      int             `json:"goal"`
	// Needs lists the indices of earlier read actions whose results this
	// action's arguments depend on (transitively closed).
	Needs []int `json:"needs,omitempty"`
}

// Output is a value the agent must tell the user (e.g. a refund amount).
type Output struct {
	Goal  int    `json:"goal"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Persona is who the simulated user is.
type Persona struct {
	Name   string            `json:"name"`
	Traits []string          `json:"traits,omitempty"`
	Known  map[string]string `json:"known"`
}

// Blueprint is a task with executed, identifiable ground truth.
type Blueprint struct {
	ID          string   `json:"id"`
	Index       int      `json:"index"`
	Domain      string   `json:"domain"`
	Seed        uint64   `json:"seed"`
	Split       string   `json:"split"`
	Persona     Persona  `json:"persona"`
	Reason      string   `json:"reason"`
	Unknown     []string `json:"unknown"`
	Behavior    string   `json:"behavior"`
	Goals       []Goal   `json:"goals"`
	Actions     []Action `json:"actions"`
	Outputs     []Output `json:"outputs"`
	NWrites     int      `json:"n_writes"`
	NReads      int      `json:"n_reads"`
	Evidence    []int    `json:"evidence"`
	Instruction string   `json:"instruction"`
	// StateHash is the canonical hash of the database after the ground
	// truth's writes, replayed on a fresh copy.
	StateHash string `json:"state_hash"`
	// HeldOut counts the tasks drawn for this index and dropped because
	// their writes equalled a held-out task's (the pack's holdout).
	HeldOut int `json:"held_out,omitempty"`
	// Failures are the tool failures the task's runtime returns, each at
	// one call (ToolFailure).
	Failures []ToolFailure `json:"tool_failures,omitempty"`
}

// NeedsTransfer reports whether the task ends in a transfer: a request
// only a human can handle, or a failure whose recovery is a transfer.
func (bp *Blueprint) NeedsTransfer() bool {
	return slices.ContainsFunc(bp.Goals, func(g Goal) bool { return g.Kind == GoalTransfer }) ||
		slices.ContainsFunc(bp.Failures, func(f ToolFailure) bool { return f.Recovery == "transfer" })
}

// ToolFailure is a failure a domain declares, returned by the runtime
// at the Call-th call of Tool in the dialogue (counting from 1) instead
// of running it: the agent must recover as Recovery says.
type ToolFailure struct {
	Kind     string `json:"kind"`
	Tool     string `json:"tool"`
	Call     int    `json:"call"`
	Error    string `json:"error"`
	Recovery string `json:"recovery"`
}

// Ending says how a dialogue ended.
const (
	EndStop     = "stop"     // the user ended it with ###STOP###
	EndTransfer = "transfer" // the agent transferred and the user sent ###TRANSFER###
	EndOutScope = "out_of_scope"
	EndMaxTurns = "max_turns"
)

// Trajectory is one simulated dialogue.
type Trajectory struct {
	ID          string    `json:"id"`
	BlueprintID string    `json:"blueprint_id"`
	Domain      string    `json:"domain"`
	Engine      string    `json:"engine"`
	Behavior    string    `json:"behavior"`
	Messages    []Message `json:"messages"`
	Ending      string    `json:"ending"`
	StateHash   string    `json:"state_hash"`
	// Kind is "" for the oracle's dialogue and KindRecovery for a flawed
	// agent's mistake that the customer caught, corrected and saw through
	// to a verified end.
	Kind string `json:"kind,omitempty"`
	// Corrections are the indices of the customer's messages that turned
	// a proposal down: a wrong detail corrected, a figure asked for.
	Corrections []int `json:"corrections,omitempty"`
	// Departs is, in a recovery dialogue, the index of the first message
	// that is not the oracle's (Departure): the flawed agent's first act
	// of its mistake, which can come turns before the proposal the
	// customer turns down (the wrong pick announced). 0: not known.
	Departs int `json:"departs,omitempty"`
}

// Departure is the index of the first message at which two dialogues
// differ in anything a chat template renders (a weight aside), or the
// shorter one's length when it is the other's prefix.
func Departure(a, b []Message) int {
	n := min(len(a), len(b))
	for i := range n {
		if !sameMessage(a[i], b[i]) {
			return i
		}
	}
	return n
}

func sameMessage(a, b Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.ReasoningContent == b.ReasoningContent &&
		a.ToolCallID == b.ToolCallID && a.Name == b.Name && slices.Equal(a.ToolCalls, b.ToolCalls)
}

// KindRecovery marks a recovery dialogue (Trajectory.Kind).
const KindRecovery = "recovery"

// Check is the outcome of one verification check.
type Check struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	Reason string `json:"reason,omitempty"`
}

// Verdict is the outcome of verifying a trajectory against its blueprint.
type Verdict struct {
	Passed bool    `json:"passed"`
	Checks []Check `json:"checks"`
}

// Failed returns the first failed check, or nil.
func (v Verdict) Failed() *Check {
	for i := range v.Checks {
		if !v.Checks[i].Passed {
			return &v.Checks[i]
		}
	}
	return nil
}
