package verify

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/schemas"
)

func conformBase() (*record.Blueprint, *record.Trajectory) {
	hash := strings.Repeat("0a", 32)
	bp := &record.Blueprint{
		ID: "b", Index: 3, Domain: "retail", Seed: 7, Split: "train",
		Persona: record.Persona{Name: "A B", Traits: []string{"x"}, Known: map[string]string{"email": "a@b.c"}},
		Reason:  "r", Behavior: "upfront",
		Goals: []record.Goal{
			{Intent: "i", Kind: "write", Target: record.Selector{Collection: "orders", Where: map[string]string{"status": "pending"}, Pick: "max:created_at", Label: "l"},
				Items: []record.Selector{{Collection: "items", ID: "1", Label: "x"}}, New: []record.Selector{{Collection: "variants", Label: "y", Among: map[string][]string{"a": {"b"}}}},
				Slots: map[string]string{"reason": "r"}, Revised: map[string]string{"reason": "q"}, RevisedItems: []record.Selector{{Collection: "items", Label: "z"}}},
			{Intent: "j", Kind: "inform", Target: record.Selector{Collection: "users", Label: "me"}},
		},
		Actions: []record.Action{{Tool: "t", Kind: "read", Arguments: json.RawMessage(` {"a":1,"b":[1.5,"x"]}`), Goal: -1}, {Tool: "w", Kind: "write", Arguments: json.RawMessage(`{}`), Goal: 0, Needs: []int{0}}},
		Outputs: []record.Output{{Goal: 0, Name: "refund", Value: "$1.00"}},
		NWrites: 1, NReads: 1, Evidence: []int{1}, Instruction: "do", StateHash: hash,
	}
	tr := &record.Trajectory{ID: "t", BlueprintID: "b", Domain: "retail", Engine: "embedded", Behavior: "upfront", Ending: "stop", StateHash: hash,
		Messages: []record.Message{
			{Role: "system", Content: "p"},
			{Role: "user", Content: "hi"},
			{Role: "assistant", ReasoningContent: "why", ToolCalls: []record.ToolCall{{ID: "abcdefghi", Type: "function", Function: record.FunctionCall{Name: "f", Arguments: "{}"}}}},
			{Role: "tool", Content: "ok", ToolCallID: "abcdefghi", Name: "f"},
			{Role: "assistant", Content: "done"},
		}}
	return bp, tr
}

// conforms may only say true where the schemas accept the records:
// every mutation here breaks or keeps the records' validity, and the
// fast check must never pass what the full validation refuses.
func TestConformsAgreesWithSchemas(t *testing.T) {
	sch, err := schemas.Compile()
	if err != nil {
		t.Fatal(err)
	}
	slow := func(bp *record.Blueprint, tr *record.Trajectory) bool {
		bv, err := blueprintValue(bp)
		if err != nil {
			return false
		}
		return sch.ValidateValue(schemas.Blueprint, bv) == nil && sch.ValidateValue(schemas.Trajectory, trajectoryValue(tr)) == nil
	}
	type mut struct {
		name string
		f    func(bp *record.Blueprint, tr *record.Trajectory)
	}
	muts := []mut{
		{"none", func(*record.Blueprint, *record.Trajectory) {}},
		{"no id", func(bp *record.Blueprint, _ *record.Trajectory) { bp.ID = "" }},
		{"negative index", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Index = -1 }},
		{"no domain", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Domain = "" }},
		{"bad split", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Split = "dev" }},
		{"no persona name", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Persona.Name = "" }},
		{"nil known", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Persona.Known = nil }},
		{"empty known", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Persona.Known = map[string]string{} }},
		{"no traits", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Persona.Traits = nil }},
		{"no reason", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Reason = "" }},
		{"unknown", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Unknown = []string{"x"} }},
		{"no behavior", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Behavior = "" }},
		{"nil goals", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Goals = nil }},
		{"empty goals", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Goals = []record.Goal{} }},
		{"no intent", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Goals[1].Intent = "" }},
		{"bad goal kind", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Goals[0].Kind = "read" }},
		{"no target collection", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Goals[1].Target.Collection = "" }},
		{"no item collection", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Goals[0].Items[0].Collection = "" }},
		{"no new collection", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Goals[0].New[0].Collection = "" }},
		{"no revised item collection", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Goals[0].RevisedItems[0].Collection = "" }},
		{"bad pick", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Goals[0].Target.Pick = "top:x" }},
		{"pick without field", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Goals[0].Target.Pick = "min:" }},
		{"pick with newline", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Goals[0].Target.Pick = "min:a\nb" }},
		{"min pick", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Goals[0].Target.Pick = "min:a b" }},
		{"empty among", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Goals[0].New[0].Among["a"] = []string{} }},
		{"nil among", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Goals[0].New[0].Among["a"] = nil }},
		{"nil actions", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Actions = nil }},
		{"empty actions", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Actions = []record.Action{} }},
		{"no tool", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Actions[0].Tool = "" }},
		{"bad action kind", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Actions[0].Kind = "inform" }},
		{"goal -2", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Actions[0].Goal = -2 }},
		{"negative need", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Actions[1].Needs = []int{-1} }},
		{"array arguments", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Actions[0].Arguments = json.RawMessage(`[1]`) }},
		{"broken arguments", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Actions[0].Arguments = json.RawMessage(`{"a":}`) }},
		{"trailing arguments", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Actions[0].Arguments = json.RawMessage(`{} {}`) }},
		{"empty arguments", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Actions[0].Arguments = nil }},
		{"nil outputs", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Outputs = nil }},
		{"negative output goal", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Outputs[0].Goal = -1 }},
		{"no output name", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Outputs[0].Name = "" }},
		{"no output value", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Outputs[0].Value = "" }},
		{"negative writes", func(bp *record.Blueprint, _ *record.Trajectory) { bp.NWrites = -1 }},
		{"negative reads", func(bp *record.Blueprint, _ *record.Trajectory) { bp.NReads = -1 }},
		{"nil evidence", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Evidence = nil }},
		{"negative evidence", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Evidence = []int{-1} }},
		{"no instruction", func(bp *record.Blueprint, _ *record.Trajectory) { bp.Instruction = "" }},
		{"upper hash", func(bp *record.Blueprint, _ *record.Trajectory) { bp.StateHash = strings.ToUpper(bp.StateHash) }},
		{"short hash", func(bp *record.Blueprint, _ *record.Trajectory) { bp.StateHash = bp.StateHash[2:] }},
		{"held out", func(bp *record.Blueprint, _ *record.Trajectory) { bp.HeldOut = 2 }},
		{"no trajectory id", func(_ *record.Blueprint, tr *record.Trajectory) { tr.ID = "" }},
		{"no blueprint id", func(_ *record.Blueprint, tr *record.Trajectory) { tr.BlueprintID = "" }},
		{"no trajectory domain", func(_ *record.Blueprint, tr *record.Trajectory) { tr.Domain = "" }},
		{"bad engine", func(_ *record.Blueprint, tr *record.Trajectory) { tr.Engine = "oracle" }},
		{"no trajectory behavior", func(_ *record.Blueprint, tr *record.Trajectory) { tr.Behavior = "" }},
		{"bad ending", func(_ *record.Blueprint, tr *record.Trajectory) { tr.Ending = "done" }},
		{"bad trajectory hash", func(_ *record.Blueprint, tr *record.Trajectory) { tr.StateHash = "x" }},
		{"two messages", func(_ *record.Blueprint, tr *record.Trajectory) { tr.Messages = tr.Messages[:2] }},
		{"no system first", func(_ *record.Blueprint, tr *record.Trajectory) { tr.Messages[0].Role = "user" }},
		{"bad role", func(_ *record.Blueprint, tr *record.Trajectory) { tr.Messages[1].Role = "customer" }},
		{"empty user", func(_ *record.Blueprint, tr *record.Trajectory) { tr.Messages[1].Content = "" }},
		{"empty assistant", func(_ *record.Blueprint, tr *record.Trajectory) { tr.Messages[4].Content = "" }},
		{"tool without id", func(_ *record.Blueprint, tr *record.Trajectory) { tr.Messages[3].ToolCallID = "" }},
		{"tool without name", func(_ *record.Blueprint, tr *record.Trajectory) { tr.Messages[3].Name = "" }},
		{"short tool call id", func(_ *record.Blueprint, tr *record.Trajectory) { tr.Messages[3].ToolCallID = "abc" }},
		{"user tool call id", func(_ *record.Blueprint, tr *record.Trajectory) { tr.Messages[1].ToolCallID = "abcdefghi" }},
		{"user name", func(_ *record.Blueprint, tr *record.Trajectory) { tr.Messages[1].Name = "me" }},
		{"user tool calls", func(_ *record.Blueprint, tr *record.Trajectory) { tr.Messages[1].ToolCalls = tr.Messages[2].ToolCalls }},
		{"bad call id", func(_ *record.Blueprint, tr *record.Trajectory) { tr.Messages[2].ToolCalls[0].ID = "abcdefgh!" }},
		{"bad call type", func(_ *record.Blueprint, tr *record.Trajectory) { tr.Messages[2].ToolCalls[0].Type = "tool" }},
		{"no call name", func(_ *record.Blueprint, tr *record.Trajectory) { tr.Messages[2].ToolCalls[0].Function.Name = "" }},
		{"short arguments", func(_ *record.Blueprint, tr *record.Trajectory) { tr.Messages[2].ToolCalls[0].Function.Arguments = "{" }},
		{"two-rune arguments", func(_ *record.Blueprint, tr *record.Trajectory) {
			tr.Messages[2].ToolCalls[0].Function.Arguments = "é!"
		}},
		{"one-rune arguments", func(_ *record.Blueprint, tr *record.Trajectory) {
			tr.Messages[2].ToolCalls[0].Function.Arguments = "é"
		}},
		{"empty tool calls", func(_ *record.Blueprint, tr *record.Trajectory) { tr.Messages[2].ToolCalls = []record.ToolCall{} }},
	}
	for _, m := range muts {
		bp, tr := conformBase()
		m.f(bp, tr)
		fast, full := conforms(bp, tr), slow(bp, tr)
		if fast && !full {
			t.Errorf("%s: conforms passes what the schemas refuse", m.name)
		}
		if full && !fast {
			t.Errorf("%s: conforms refuses what the schemas accept (correct, but the fast path is missed)", m.name)
		}
	}
}
