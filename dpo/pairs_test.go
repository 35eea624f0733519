package dpo

import (
	"slices"
	"strings"
	"testing"

	"github.com/synth-data/synth/record"
)

func msg(role, content string) record.Message { return record.Message{Role: role, Content: content} }

func call(id, name string) record.Message {
	return record.Message{Role: "assistant", ToolCalls: []record.ToolCall{{ID: id, Type: "function", Function: record.FunctionCall{Name: name, Arguments: "{}"}}}}
}

func TestMakePair(t *testing.T) {
	sys, u1 := msg("system", "policy"), msg("user", "hi")
	good := []record.Message{sys, u1, call("aaaaaaaaa", "find"), {Role: "tool", ToolCallID: "aaaaaaaaa", Name: "find", Content: "u"},
		msg("assistant", "proposal"), msg("user", "yes"), call("bbbbbbbbb", "write"), {Role: "tool", ToolCallID: "bbbbbbbbb", Name: "write", Content: "ok"}, msg("assistant", "done"), msg("user", "bye"), msg("assistant", "ciao")}
	bad := append(slices.Clone(good[:4]), call("ccccccccc", "write"), record.Message{Role: "tool", ToolCallID: "ccccccccc", Name: "write", Content: "ok"}, msg("assistant", "done"), msg("user", "bye"), msg("assistant", "ciao"))
	cases := []struct {
		mode                        string
		prompt, chosen, rejected    int
		promptLast, chosenFirstRole string
	}{
		{PairSegment, 4, 1, 3, "tool", "assistant"},
		{PairSession, 2, 9, 7, "user", "assistant"},
		// Equal-length up to the shorter side's next customer turn.
		{PairEqual, 4, 1, 1, "tool", "assistant"},
	}
	for _, tc := range cases {
		p, err := MakePair(tc.mode, good, bad)
		if err != nil {
			t.Fatalf("%s: %v", tc.mode, err)
		}
		if len(p.Prompt) != tc.prompt || len(p.Chosen) != tc.chosen || len(p.Rejected) != tc.rejected {
			t.Errorf("%s: lengths %d/%d/%d, want %d/%d/%d", tc.mode, len(p.Prompt), len(p.Chosen), len(p.Rejected), tc.prompt, tc.chosen, tc.rejected)
		}
		if p.Prompt[len(p.Prompt)-1].Role != tc.promptLast || p.Chosen[0].Role != tc.chosenFirstRole || p.Rejected[0].Role != "assistant" {
			t.Errorf("%s: prompt ends with %s, chosen starts with %s, rejected with %s", tc.mode, p.Prompt[len(p.Prompt)-1].Role, p.Chosen[0].Role, p.Rejected[0].Role)
		}
		if p.DivergenceTurn != 1 {
			t.Errorf("%s: divergence turn %d, want 1", tc.mode, p.DivergenceTurn)
		}
	}
	if _, err := MakePair(PairSegment, good, good); err == nil {
		t.Error("identical dialogues must not pair")
	}
	if _, err := MakePair(PairSegment, good, append([]record.Message{msg("system", "other")}, good[1:]...)); err == nil {
		t.Error("dialogues without shared history must not pair")
	}
	if _, err := MakePair("zigzag", good, bad); err == nil || !strings.Contains(err.Error(), "zigzag") {
		t.Errorf("unknown mode: %v", err)
	}
}
