package dpo

import (
	"context"
	"errors"
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
	// PairSession: whole conversations after the opening user message
	// (DMPO, ETO). The only mode whose sides span customer turns.
	PairSession = "session"
	// PairEqual: equal-length segments after the shared history, up to
	// the shorter side's next user turn (SDPO).
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
		return Pair{Prompt: good[:d], Chosen: good[d:nextUser(good, d)], Rejected: bad[d:nextUser(bad, d)], DivergenceTurn: turns}, nil
	case PairSession:
		// The whole conversations after the opening turn: the prompt is
		// the policy and the first user message, shared by construction.
		open := nextUser(good, 0) + 1
		return Pair{Prompt: good[:open], Chosen: good[open:], Rejected: bad[open:], DivergenceTurn: turns}, nil
	case PairEqual:
		n := min(nextUser(good, d)-d, nextUser(bad, d)-d)
		return Pair{Prompt: good[:d], Chosen: good[d : d+n], Rejected: bad[d : d+n], DivergenceTurn: turns}, nil
	}
	return Pair{}, fmt.Errorf("unknown pair mode %q (want %s, %s or %s)", mode, PairSegment, PairSession, PairEqual)
}

// nextUser returns the index of the first user message at or after
// from, or len(msgs).
func nextUser(msgs []record.Message, from int) int {
	for i := from; i < len(msgs); i++ {
		if msgs[i].Role == "user" {
			return i
		}
	}
	return len(msgs)
}

// What chosen and rejected hold of the tool observations (--dpo-tools).
const (
	// ToolsKeep: each side as the dialogue went, tool results included.
	ToolsKeep = "keep"
	// ToolsCut: each side ends at (and includes) its first assistant
	// message whose calls a tool answers. TRL's DPO loss counts every
	// completion token, so a kept observation trains the model to
	// produce the tool's answer, which it never writes; a cut pair
	// compares the agent's own decisions only.
	ToolsCut = "cut"
)

// ToolsModes lists the --dpo-tools values.
func ToolsModes() []string { return []string{ToolsKeep, ToolsCut} }

// ErrLabelNotShown is why a pair was not made: its rejected side does
// not show its label.
var ErrLabelNotShown = errors.New("the rejected side does not show its label")

// Cut makes the pair of a verified dialogue (good) and a failed one
// (bad) that the plan's mode and tool cut give, checks with lc that its
// rejected side shows label, and ends both sides where it is shown.
//
// Its sides end before the next customer turn (session pairs aside):
// the pair is cut where the decision is made, and prompt + side keeps
// the prompt's rendering a prefix under chat templates that render an
// assistant turn's reasoning only after the last user message (Qwen3.5,
// Qwen3.6), which a side spanning a later customer turn would break.
//
// A label is what the rows teach, so the rows themselves must show it:
// a mistake acted on only after the customer's next turn (a wrong order
// proposed, cancelled after the yes) shows in the proposal's words or
// not at all. A pair whose rows do not show its label is an error
// wrapping ErrLabelNotShown, and never mislabelled.
func (p *Plan) Cut(ctx context.Context, lc *LabelChecker, bp *record.Blueprint, label string, good, bad []record.Message) (Pair, error) {
	pair, err := p.CutAt(good, bad)
	if err != nil {
		return Pair{}, err
	}
	if ok, why := lc.Shows(ctx, bp, label, pair.Prompt, pair.Chosen, pair.Rejected); !ok {
		return Pair{}, fmt.Errorf("%s: %w: %s", label, ErrLabelNotShown, why)
	}
	if p.mode != PairSession {
		pair.Chosen, pair.Rejected = tighten(ctx, lc, bp, label, pair)
	}
	return pair, nil
}

// tighten ends the rejected side at the first of its agent's messages
// by which it shows label, and the chosen side at the first of its own
// as far along that the pair still shows it. What a side does after its
// mistake (the tool's answer, the agent's words on it, text the flawed
// agent shares with the oracle) teaches nothing about the decision and
// makes the sides' lengths differ for reasons other than the mistake: a
// trainer's model would learn the length.
func tighten(ctx context.Context, lc *LabelChecker, bp *record.Blueprint, label string, pair Pair) (chosen, rejected []record.Message) {
	k := len(pair.Rejected)
	for i, m := range pair.Rejected {
		if m.Role != "assistant" {
			continue
		}
		if ok, _ := lc.Shows(ctx, bp, label, pair.Prompt, pair.Chosen, pair.Rejected[:i+1]); ok {
			k = i + 1
			break
		}
	}
	for j := min(k, len(pair.Chosen)); j <= len(pair.Chosen); j++ {
		if pair.Chosen[j-1].Role != "assistant" {
			continue
		}
		if ok, _ := lc.Shows(ctx, bp, label, pair.Prompt, pair.Chosen[:j], pair.Rejected[:k]); ok {
			return pair.Chosen[:j], pair.Rejected[:k]
		}
	}
	return pair.Chosen, pair.Rejected[:k]
}

// CutAt cuts a pair at the first difference without a label check. The
// tool cut applies as in Cut.
func (p *Plan) CutAt(good, bad []record.Message) (Pair, error) {
	pair, err := MakePair(p.mode, good, bad)
	if err != nil {
		return Pair{}, err
	}
	if p.tools == ToolsCut {
		pair.Chosen, pair.Rejected = cutTools(pair.Chosen), cutTools(pair.Rejected)
	}
	return pair, nil
}

// cutTools ends a side at its first assistant message whose calls a
// tool message answers.
func cutTools(side []record.Message) []record.Message {
	for i, m := range side {
		if m.Role == "assistant" && len(m.ToolCalls) > 0 && i+1 < len(side) && side[i+1].Role == "tool" {
			return side[:i+1]
		}
	}
	return side
}
