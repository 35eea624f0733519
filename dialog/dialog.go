package dialog

import "github.com/synth-data/synth/record"

// Stop tokens of the tau2 protocol.
const (
	TokenStop       = "###STOP###"
	TokenTransfer   = "###TRANSFER###"
	TokenOutOfScope = "###OUT-OF-SCOPE###"
)

// Act is the meaning of a user turn. The embedded agent reads acts; the
// text says the same thing in words.
type Act struct {
	// Type is identify, request, provide, confirm, revise, done, or one
	// of the ways a customer who holds its goal turns a proposal down:
	// correct (a detail was wrong; the act carries the right one), figure
	// (the policy's figure was not stated before the yes was asked for)
	// and pushback (asks for an exception to a refusal).
	Type string
	Goal int
	// Intent is the request's intent; on a digress act, "agent" when the
	// customer asked about the agent itself.
	Intent   string
	Target   *record.Selector
	Items    []record.Selector
	New      []record.Selector
	Slots    map[string]string
	Identity map[string]string
	// Instead marks a request made for the case the one before it is
	// refused (a conditional goal).
	Instead bool
}

// Ask is what the agent's last turn asked of the user.
type Ask struct {
	Kind    string // help, identify, identify_again, piece, confirm, anything_else, closing, transferred
	Goal    int
	Piece   string
	Done    []int // goals the agent has finished
	Refused bool  // the agent just refused a request
	// RefusedGoal is the goal refused, from an agent that knows it (the
	// oracle); nil otherwise.
	RefusedGoal *int
	// Proposal is what a confirm ask proposes, so the customer can check
	// it against what it wants without parsing the words; nil from an
	// agent that does not hand it over (an LLM).
	Proposal *Proposal
}

// Proposal is the write an agent asks the customer to say yes to.
type Proposal struct {
	Tool string
	Args map[string]any
	// Stated names the figures (outputs) the proposal states.
	Stated []string
}

// Turn is one user message.
type Turn struct {
	Text string
	Acts []Act
	Stop string // a stop token when the user ends the conversation
}
