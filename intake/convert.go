package intake

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// Engine and Behavior mark records made of outside dialogues.
const (
	Engine   = "outside"
	Behavior = "outside"
)

// Domain is what conversion needs of the domain the dialogues ran on.
type Domain struct {
	Name   string
	Policy string
	Tools  *tools.Toolkit
	Base   *tools.Base
}

// The user's control tokens, as τ²-bench's user simulator emits them.
var endTokens = []struct{ token, ending string }{
	{"###STOP###", record.EndStop},
	{"###TRANSFER###", record.EndTransfer},
	{"###OUT-OF-SCOPE###", record.EndOutScope},
}

// Convert makes the synth records of a dialogue: the trajectory, and
// the blueprint holding its ground truth (nil when it has none).
func Convert(ctx context.Context, d Dialogue, dom Domain) (*record.Blueprint, *record.Trajectory) {
	msgs, ending := messages(d, dom.Policy)
	ending = cmp.Or(ending, d.Ending)
	tr := &record.Trajectory{
		ID: d.ID, BlueprintID: d.ID, Domain: dom.Name, Engine: Engine, Behavior: Behavior,
		Messages: msgs, Ending: ending,
	}
	st := dom.Base.NewState()
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if dom.Tools.Kind(c.Function.Name) == record.KindWrite {
				dom.Tools.Exec(ctx, st, c.Function.Name, c.Function.Arguments)
			}
		}
	}
	tr.StateHash = st.Hash()
	if d.Truth == nil {
		return nil, tr
	}
	return blueprint(ctx, d, dom), tr
}

// messages maps a dialogue's messages to synth's: a system message
// first (the domain's policy where the dialogue has none), call ids
// mapped to 9 alphanumerics (the form every chat template accepts; one
// source id, one synth id, so pairing and reuse are judged as they
// were), tool results named by their call, and a last user turn holding
// only a stop token made into the ending.
func messages(d Dialogue, policy string) ([]record.Message, string) {
	var out []record.Message
	if len(d.Messages) == 0 || d.Messages[0].Role != "system" {
		out = append(out, record.Message{Role: "system", Content: policy})
	}
	ids := map[string]string{}
	callName := map[string]string{}
	id := func(src string) string {
		if v, ok := ids[src]; ok {
			return v
		}
		v := callID(src)
		ids[src] = v
		return v
	}
	for _, m := range d.Messages {
		msg := record.Message{Role: m.Role, Content: m.Content, Name: m.Name, ReasoningContent: m.Reasoning, Weight: m.Weight}
		for _, c := range m.Calls {
			msg.ToolCalls = append(msg.ToolCalls, record.ToolCall{ID: id(c.ID), Type: "function", Function: record.FunctionCall{Name: c.Name, Arguments: c.Arguments}})
			callName[c.ID] = c.Name
		}
		if m.Role == "tool" {
			msg.ToolCallID = id(m.CallID)
			msg.Name = cmp.Or(msg.Name, callName[m.CallID])
		}
		out = append(out, msg)
	}
	return trimEnding(out)
}

// trimEnding reads how a dialogue ended: a last user turn holding a stop
// token (removed: synth's rows end with the agent); else a transfer as
// the agent's last act (τ-bench ends the episode at its result); else the
// agent's closing words, which end most datasets' dialogues.
func trimEnding(out []record.Message) ([]record.Message, string) {
	n := len(out)
	if n > 1 && out[n-1].Role == "user" {
		for _, t := range endTokens {
			if strings.Contains(out[n-1].Content, t.token) {
				return out[:n-1], t.ending
			}
		}
		return out, ""
	}
	for i := n - 1; i > 0 && out[i].Role != "user"; i-- {
		for _, c := range out[i].ToolCalls {
			if strings.Contains(c.Function.Name, "transfer_to_human") {
				return out, record.EndTransfer
			}
		}
	}
	if n > 1 && out[n-1].Role == "assistant" && out[n-1].Content != "" && len(out[n-1].ToolCalls) == 0 {
		return out, record.EndStop
	}
	return out, ""
}

// callID maps a source call id to 9 alphanumerics; one that has that
// form already is kept.
func callID(src string) string {
	if len(src) == 9 && strings.IndexFunc(src, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) < 0 {
		return src
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	sum := sha256.Sum256([]byte("call\x00" + src))
	b := make([]byte, 9)
	for i := range b {
		b[i] = alphabet[int(sum[i])%len(alphabet)]
	}
	return string(b)
}

// blueprint holds a dialogue's ground truth in the form the verifier
// reads: the actions with their kinds, the outputs, a transfer goal when
// the truth hands over to a human, and the state its writes reach on a
// fresh copy (a gold write that fails changes nothing, as in τ²).
func blueprint(ctx context.Context, d Dialogue, dom Domain) *record.Blueprint {
	bp := &record.Blueprint{ID: d.ID, Domain: dom.Name, Behavior: Behavior, Failures: d.Truth.Failures}
	st := dom.Base.NewState()
	transfer := false
	for _, a := range d.Truth.Actions {
		kind := dom.Tools.Kind(a.Name)
		bp.Actions = append(bp.Actions, record.Action{Tool: a.Name, Kind: kind, Arguments: json.RawMessage(a.Arguments)})
		switch {
		case kind == record.KindWrite:
			bp.NWrites++
			dom.Tools.Exec(ctx, st, a.Name, string(a.Arguments))
		case kind == record.KindGeneric && strings.Contains(a.Name, "transfer"):
			transfer = true
		}
	}
	if transfer {
		bp.Goals = append(bp.Goals, record.Goal{Intent: "transfer", Kind: record.GoalTransfer})
	}
	for i, o := range d.Truth.Outputs {
		bp.Outputs = append(bp.Outputs, record.Output{Name: "required output " + strconv.Itoa(i+1), Value: o})
	}
	bp.StateHash = st.Hash()
	return bp
}
