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
	// Evidence is 0 when the rejected side shows its label itself. A
	// pair made on the decision its mistake followed from (Plan.Cut) has
	// Evidence n: the dialogues up to their n-th user message after the
	// divergence show it.
	Evidence int
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
		n := min(nextUser(good, d, 1)-d, nextUser(bad, d, 1)-d)
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

// ErrLabelNotShown is why a pair was not made: neither its rejected
// side nor the dialogue it was cut from shows its label.
var ErrLabelNotShown = errors.New("the rejected side does not show its label")

// Cut makes the pair of a verified dialogue (good) and a failed one
// (bad) that the plan's mode and tool cut give, and checks with lc that
// its rejected side shows label.
//
// Its sides end before the next customer turn (session pairs aside):
// the pair is cut where the decision is made, and prompt + side keeps
// the prompt's rendering a prefix under chat templates that render an
// assistant turn's reasoning only after the last user message (Qwen3.5,
// Qwen3.6), which a side spanning a later customer turn would break.
//
// Many mistakes are decided in one turn and acted on in the next: a
// wrong order proposed, and cancelled after the customer's yes; a write
// proposed without the reminder a rule wants, run after it. The rows
// then hold the decision, not its consequence. Cut follows the
// dialogues past the cut, one customer turn at a time, and where they
// show the label the pair is made on the decision, with Evidence
// saying how far the dialogues had to go: a flawed agent speaks the
// oracle's words until its flaw fires, so the first difference is the
// flaw's decision. Callers whose failed dialogue may part from the
// verified one before its mistake (an LLM's trials) refuse such pairs.
// A pair whose dialogues never show the label is an error wrapping
// ErrLabelNotShown, and never mislabelled.
func (p *Plan) Cut(ctx context.Context, lc *LabelChecker, bp *record.Blueprint, label string, good, bad []record.Message) (Pair, error) {
	pair, err := p.CutAt(good, bad)
	if err != nil {
		return Pair{}, err
	}
	ok, why := lc.Shows(ctx, bp, label, pair.Prompt, pair.Chosen, pair.Rejected)
	if ok {
		return pair, nil
	}
	if p.mode == PairSession {
		return Pair{}, fmt.Errorf("%s: %w: %s", label, ErrLabelNotShown, why)
	}
	d := len(pair.Prompt)
	prevC, prevR := -1, -1
	for n := 1; ; n++ {
		c, r := Evidence(good, bad, d, n)
		// Followed as far as they go: both dialogues end.
		if len(c) == prevC && len(r) == prevR {
			return Pair{}, fmt.Errorf("%s: %w: %s", label, ErrLabelNotShown, why)
		}
		prevC, prevR = len(c), len(r)
		if len(c) == len(pair.Chosen) && len(r) == len(pair.Rejected) {
			continue // the rows themselves, checked above
		}
		if ok, _ := lc.Shows(ctx, bp, label, pair.Prompt, c, r); ok {
			pair.Evidence = n
			return pair, nil
		}
	}
}

// Evidence returns the sides of good and bad that Pair.Evidence n names:
// each dialogue from the divergence (after a prompt of d messages) up to
// its n-th user message after it. synth validate rebuilds them to check
// a pair made on a decision.
func Evidence(good, bad []record.Message, d, n int) (chosen, rejected []record.Message) {
	return good[d:nextUser(good, d, n)], bad[d:nextUser(bad, d, n)]
}

// CutAt cuts a pair at the first difference without a label check: for
// a mistake the customer caught, whose rejected side is the proposal it
// turned down. The tool cut applies as in Cut.
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
