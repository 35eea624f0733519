package usersim

import (
	"fmt"
	"strings"

	"github.com/synth-data/synth/record"
)

// Stop tokens of the tau2 protocol.
const (
	TokenStop       = "###STOP###"
	TokenTransfer   = "###TRANSFER###"
	TokenOutOfScope = "###OUT-OF-SCOPE###"
)

// Behaviour profiles.
const (
	Upfront     = "upfront"
	Minimal     = "minimal"
	Piecemeal   = "piecemeal"
	Verbose     = "verbose"
	Impatient   = "impatient"
	Confused    = "confused"
	ChangesMind = "changes_mind"
	Typos       = "typos"
)

// Profiles lists the behaviour profiles in their canonical order.
func Profiles() []string {
	return []string{Upfront, Minimal, Piecemeal, Verbose, Impatient, Confused, ChangesMind, Typos}
}

type profile struct {
	identityFirst bool // give identity in the first message
	revealAll     bool // give every piece with the request
	terse         bool // 1–2 word answers
	verbose       bool
	impatient     bool
	typos         bool
	confused      bool
	changes       bool
}

func profileOf(name string) (profile, error) {
	switch name {
	case Upfront:
		return profile{identityFirst: true, revealAll: true}, nil
	case Minimal:
		return profile{terse: true}, nil
	case Piecemeal:
		return profile{}, nil
	case Verbose:
		return profile{identityFirst: true, revealAll: true, verbose: true}, nil
	case Impatient:
		return profile{identityFirst: true, revealAll: true, impatient: true}, nil
	case Confused:
		return profile{confused: true}, nil
	case ChangesMind:
		return profile{identityFirst: true, revealAll: true, changes: true}, nil
	case Typos:
		return profile{typos: true}, nil
	}
	return profile{}, fmt.Errorf("unknown behaviour profile %q (known: %s)", name, strings.Join(Profiles(), ", "))
}

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
