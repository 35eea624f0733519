package engine

import (
	"fmt"
	"reflect"

	"github.com/synth-data/synth/record"
)

// Pair modes.
const (
	// PairSegment: prompt = the shared history up to the divergence (it
	// ends with a user or tool message), chosen and rejected = each side's
	// next assistant segment, up to the next user turn (ToolGraph).
	PairSegment = "segment"
	// PairSession: whole conversations after the opening user message (DMPO, ETO).
	PairSession = "session"
	// PairEqual: equal-length segments after the shared history (SDPO).
	PairEqual = "equal"
)

// PairModes lists the pair modes.
func PairModes() []string { return []string{PairSegment, PairSession, PairEqual} }

// Pair is one preference pair built from a verified and a failed dialogue
// of the same blueprint.
type Pair struct {
	Prompt, Chosen, Rejected []record.Message
	// DivergenceTurn counts the user turns in the shared history.
	DivergenceTurn int
}

// MakePair aligns a verified dialogue (good) and a failed one (bad) of the
// same blueprint at their first difference and cuts the pair for a mode.
// Every engine's failures go through here, so pairs mean the same thing
// whoever produced them.
func MakePair(mode string, good, bad []record.Message) (Pair, error) {
	d := 0
	for d < len(good) && d < len(bad) && reflect.DeepEqual(good[d], bad[d]) {
		d++
	}
	if d == len(good) && d == len(bad) {
		return Pair{}, fmt.Errorf("the dialogues are identical")
	}
	if d == 0 || d >= len(good) || d >= len(bad) {
		return Pair{}, fmt.Errorf("no shared history to branch from (diverge at message %d of %d/%d)", d, len(good), len(bad))
	}
	if r := good[d-1].Role; r != "user" && r != "tool" {
		return Pair{}, fmt.Errorf("the dialogues diverge after a %s message", r)
	}
	if good[d].Role != "assistant" || bad[d].Role != "assistant" {
		return Pair{}, fmt.Errorf("the dialogues diverge at a %s/%s message, not the agent's", good[d].Role, bad[d].Role)
	}
	turns := 0
	for _, m := range good[:d] {
		if m.Role == "user" {
			turns++
		}
	}
	switch mode {
	case PairSegment, "":
		return Pair{Prompt: good[:d], Chosen: good[d:nextUser(good, d, 1)], Rejected: bad[d:nextUser(bad, d, 1)], DivergenceTurn: turns}, nil
	case PairSession:
		// The whole conversations after the opening turn: the prompt is
		// the policy and the first user message, shared by construction.
		open := nextUser(good, 0, 1) + 1
		return Pair{Prompt: good[:open], Chosen: good[open:], Rejected: bad[open:], DivergenceTurn: turns}, nil
	case PairEqual:
		n := min(nextUser(good, d, 2)-d, nextUser(bad, d, 2)-d)
		return Pair{Prompt: good[:d], Chosen: good[d : d+n], Rejected: bad[d : d+n], DivergenceTurn: turns}, nil
	}
	return Pair{}, fmt.Errorf("unknown pair mode %q (want %s, %s or %s)", mode, PairSegment, PairSession, PairEqual)
}

// nextUser returns the index of the k-th user message at or after from,
// or len(msgs).
func nextUser(msgs []record.Message, from, k int) int {
	for i := from; i < len(msgs); i++ {
		if msgs[i].Role == "user" {
			k--
			if k == 0 {
				return i
			}
		}
	}
	return len(msgs)
}
