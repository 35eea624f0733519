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
	Type     string // identify, request, provide, confirm, revise, done
	Goal     int
	Intent   string
	Target   *record.Selector
	Items    []record.Selector
	New      []record.Selector
	Slots    map[string]string
	Identity map[string]string
}

// Ask is what the agent's last turn asked of the user.
type Ask struct {
	Kind    string // help, identify, identify_again, piece, confirm, anything_else, closing, transferred
	Goal    int
	Piece   string
	Done    []int // goals the agent has finished
	Refused bool  // the agent just refused a request
}

// Turn is one user message.
type Turn struct {
	Text string
	Acts []Act
	Stop string // a stop token when the user ends the conversation
}
