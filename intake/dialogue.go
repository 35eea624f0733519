package intake

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/synth-data/synth/record"
)

// Dialogue is one dialogue as a file holds it.
type Dialogue struct {
	// ID is the dialogue's own id, else one made from its position.
	ID string
	// Source says where it is: "FILE:LINE" or "FILE: simulations[3]".
	Source string
	// Format is the layout it was read from (FormatJSONL, ...).
	Format   string
	Messages []Message
	// Truth is the ground truth given with the dialogue or found by its
	// TaskID; nil when there is none.
	Truth  *Truth
	TaskID string
	// Ending is the source's own word on how it ended ("" when it says
	// nothing): τ²'s termination reason, mapped to synth's endings.
	Ending string
	// Err is set when the line or entry could not be read; the rest of
	// the file is read on.
	Err error
}

// Message is one message, in OpenAI's roles.
type Message struct {
	Role    string
	Content string
	// Reasoning is an assistant's reasoning, where the source keeps it
	// (reasoning_content, or vLLM's newer reasoning).
	Reasoning string
	Calls     []Call
	// CallID is the call a tool message answers; Name its tool, where
	// the source says.
	CallID string
	Name   string
	// Weight is OpenAI fine-tuning's per-message weight (0 or 1 on an
	// assistant message), kept so a row comes back as it went in.
	Weight *int
}

// Call is one tool call with its arguments as JSON text.
type Call struct {
	ID, Name, Arguments string
}

// Truth is a dialogue's ground truth: the actions that solve its task
// and what the agent must tell the user.
type Truth struct {
	Actions []Action
	Outputs []string
	// Failures are the tool failures the dialogue's runtime returned
	// (a synth blueprint's tool_failures): the replay returns them too.
	Failures []record.ToolFailure
}

// Action is one ground-truth call.
type Action struct {
	Name      string
	Arguments json.RawMessage
}

// The layouts Read knows.
const (
	FormatJSONL    = "jsonl"
	FormatTau2     = "tau2-results"
	FormatTauBench = "tau-bench-trajectories"
)

// openAIMessage is a chat message as OpenAI's API and most datasets
// write it; content may be text, null or a list of parts, arguments
// text or an object.
type openAIMessage struct {
	Role          string          `json:"role"`
	Content       json.RawMessage `json:"content"`
	ToolCalls     []openAICall    `json:"tool_calls"`
	ToolCallID    string          `json:"tool_call_id"`
	Name          string          `json:"name"`
	Reasoning     string          `json:"reasoning_content"`
	ReasoningVLLM string          `json:"reasoning"`
	Weight        *int            `json:"weight"`
}

type openAICall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

func (m openAIMessage) message(i int) (Message, error) {
	text, err := contentText(m.Content)
	if err != nil {
		return Message{}, fmt.Errorf("messages[%d].content: %w", i, err)
	}
	if !record.WeightAllowed(m.Role, m.Weight) {
		return Message{}, fmt.Errorf("messages[%d].weight: %d on this %s message: OpenAI's fine-tuning weight is 0 or 1, on assistant messages only", i, *m.Weight, m.Role)
	}
	out := Message{Role: m.Role, Content: text, CallID: m.ToolCallID, Name: m.Name, Reasoning: m.Reasoning, Weight: m.Weight}
	out.Reasoning = cmp.Or(out.Reasoning, m.ReasoningVLLM)
	for j, c := range m.ToolCalls {
		args, err := argumentsText(c.Function.Arguments)
		if err != nil {
			return Message{}, fmt.Errorf("messages[%d].tool_calls[%d].function.arguments: %w", i, j, err)
		}
		if c.Function.Name == "" {
			return Message{}, fmt.Errorf("messages[%d].tool_calls[%d]: no function name", i, j)
		}
		out.Calls = append(out.Calls, Call{ID: c.ID, Name: c.Function.Name, Arguments: args})
	}
	return out, nil
}

func openAIMessages(msgs []openAIMessage) ([]Message, error) {
	out := make([]Message, 0, len(msgs))
	for i, m := range msgs {
		switch m.Role {
		case "system", "user", "assistant", "tool":
		case "":
			return nil, fmt.Errorf("messages[%d]: no role", i)
		default:
			return nil, fmt.Errorf("messages[%d]: role %q is not system, user, assistant or tool", i, m.Role)
		}
		msg, err := m.message(i)
		if err != nil {
			return nil, err
		}
		out = append(out, msg)
	}
	return out, nil
}

// contentText reads message content: a string, null, or OpenAI's list
// of parts (the text parts joined).
func contentText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	switch raw[0] {
	case '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", err
		}
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "text" || p.Type == "" {
				b.WriteString(p.Text)
			}
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("content must be text, null or a list of parts, not %s", clip(raw))
}

// argumentsText reads a call's arguments: JSON text as OpenAI sends it,
// or an object as some datasets store it.
func argumentsText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "{}", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	if raw[0] != '{' {
		return "", fmt.Errorf("arguments must be JSON text or an object, not %s", clip(raw))
	}
	return string(raw), nil
}

// truthOf reads ground truth in synth's JSONL layout.
func truthOf(raw json.RawMessage) (*Truth, error) {
	var g struct {
		Actions []struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
			Kwargs    json.RawMessage `json:"kwargs"`
		} `json:"actions"`
		Outputs  []string             `json:"outputs"`
		Failures []record.ToolFailure `json:"tool_failures"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		return nil, err
	}
	t := &Truth{Outputs: g.Outputs, Failures: g.Failures}
	for i, a := range g.Actions {
		if a.Name == "" {
			return nil, fmt.Errorf("actions[%d]: no name", i)
		}
		args := a.Arguments
		if len(args) == 0 {
			args = a.Kwargs
		}
		text, err := argumentsText(args)
		if err != nil {
			return nil, fmt.Errorf("actions[%d].arguments: %w", i, err)
		}
		t.Actions = append(t.Actions, Action{Name: a.Name, Arguments: json.RawMessage(text)})
	}
	return t, nil
}

func clip(raw []byte) string {
	if len(raw) > 40 {
		return string(raw[:37]) + "..."
	}
	return string(raw)
}
