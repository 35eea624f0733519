package verify

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/synth-data/synth/record"
)

// The record schemas are checked on every dialogue, and walking the
// generic value through the schema library was an eighth of a run's CPU.
// conforms and its helpers decide the common case on the typed records:
// true only when schemas/blueprint.schema.json and
// schemas/trajectory.schema.json would accept blueprintValue and
// trajectoryValue. They may say false for a record that conforms; the
// caller then runs the full validation, which also words the reason, so
// a verdict is the same either way.

func conforms(bp *record.Blueprint, tr *record.Trajectory) bool {
	return blueprintConforms(bp) && trajectoryConforms(tr)
}

func blueprintConforms(bp *record.Blueprint) bool {
	if bp.ID == "" || bp.Index < 0 || bp.Domain == "" || !oneOf(bp.Split, "train", "validation", "test") ||
		bp.Persona.Name == "" || bp.Persona.Known == nil || bp.Reason == "" || bp.Behavior == "" ||
		bp.NWrites < 0 || bp.NReads < 0 || bp.Instruction == "" || !hex64(bp.StateHash) {
		return false
	}
	// A nil slice is JSON null, which these keys' schemas refuse.
	if len(bp.Goals) == 0 || bp.Actions == nil || bp.Evidence == nil {
		return false
	}
	for i := range bp.Goals {
		if !goalConforms(&bp.Goals[i]) {
			return false
		}
	}
	for i := range bp.Actions {
		if !actionConforms(&bp.Actions[i]) {
			return false
		}
	}
	for _, o := range bp.Outputs {
		if o.Goal < 0 || o.Name == "" || o.Value == "" {
			return false
		}
	}
	for _, e := range bp.Evidence {
		if e < 0 {
			return false
		}
	}
	return true
}

func actionConforms(a *record.Action) bool {
	if a.Tool == "" || !oneOf(a.Kind, "read", "write", "generic") || a.Goal < -1 || !jsonObject(a.Arguments) {
		return false
	}
	for _, n := range a.Needs {
		if n < 0 {
			return false
		}
	}
	return true
}

func goalConforms(g *record.Goal) bool {
	if g.Intent == "" || !oneOf(g.Kind, "write", "inform", "refuse", "transfer") || !selectorConforms(&g.Target) {
		return false
	}
	for _, list := range [][]record.Selector{g.Items, g.New, g.RevisedItems} {
		for i := range list {
			if !selectorConforms(&list[i]) {
				return false
			}
		}
	}
	return true
}

func selectorConforms(s *record.Selector) bool {
	if s.Collection == "" {
		return false
	}
	if s.Pick != "" && !pickConforms(s.Pick) {
		return false
	}
	for _, vals := range s.Among {
		if len(vals) == 0 {
			return false
		}
	}
	for _, vals := range s.Back {
		if len(vals) == 0 {
			return false
		}
	}
	return true
}

// pickConforms is the pattern ^(max|min):.+$ for valid UTF-8: "." is any
// character but a newline.
func pickConforms(p string) bool {
	rest, ok := strings.CutPrefix(p, "max:")
	if !ok {
		rest, ok = strings.CutPrefix(p, "min:")
	}
	return ok && rest != "" && !strings.Contains(rest, "\n") && utf8.ValidString(rest)
}

func trajectoryConforms(tr *record.Trajectory) bool {
	if tr.ID == "" || tr.BlueprintID == "" || tr.Domain == "" || tr.Behavior == "" ||
		!oneOf(tr.Engine, "embedded", "llm", "hybrid", "outside") ||
		!oneOf(tr.Ending, "stop", "transfer", "out_of_scope", "max_turns") || !hex64(tr.StateHash) {
		return false
	}
	if len(tr.Messages) < 3 || tr.Messages[0].Role != "system" {
		return false
	}
	for i := range tr.Messages {
		if !messageConforms(&tr.Messages[i]) {
			return false
		}
	}
	return true
}

func messageConforms(m *record.Message) bool {
	switch m.Role {
	case "system", "assistant":
	case "user":
		if m.Content == "" {
			return false
		}
	case "tool":
		if m.ToolCallID == "" || m.Name == "" {
			return false
		}
	default:
		return false
	}
	if m.ToolCallID != "" && !alnum9(m.ToolCallID) {
		return false
	}
	if len(m.ToolCalls) > 0 && m.Role != "assistant" {
		return false
	}
	for i := range m.ToolCalls {
		c := &m.ToolCalls[i]
		if !alnum9(c.ID) || c.Type != "function" || c.Function.Name == "" || utf8.RuneCountInString(c.Function.Arguments) < 2 {
			return false
		}
	}
	return true
}

func oneOf(s string, set ...string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

func hex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func alnum9(s string) bool {
	if len(s) != 9 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
			return false
		}
	}
	return true
}

// jsonObject reports whether raw decodes (as blueprintValue decodes it)
// to a JSON object.
func jsonObject(raw json.RawMessage) bool {
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return json.Valid(raw)
		}
		return false
	}
	return false
}
