package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// AppendMessageJSON appends the canonical JSON object of m: the OpenAI
// chat message with only the keys it has, in a fixed order (role,
// content, reasoning_content, tool_calls, tool_call_id, name, weight), content
// always present ("" on tool-call turns, which some templates need), each
// call's arguments a JSON object. It is what a row's message holds, what
// `synth export --format jsonl` prints and what a template is given.
//
// Arguments that are not a JSON object (a model's malformed call, kept on
// the rejected side of a pair) are stored as a JSON string holding the
// text, which is what a server hands a template when it cannot parse them;
// empty arguments are {}.
func AppendMessageJSON(dst []byte, m *record.Message) []byte {
	dst = append(dst, `{"role":`...)
	dst = appendString(dst, m.Role)
	dst = append(dst, `,"content":`...)
	dst = appendString(dst, m.Content)
	if m.ReasoningContent != "" {
		dst = append(dst, `,"reasoning_content":`...)
		dst = appendString(dst, m.ReasoningContent)
	}
	if len(m.ToolCalls) > 0 {
		dst = append(dst, `,"tool_calls":[`...)
		for i := range m.ToolCalls {
			tc := &m.ToolCalls[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"id":`...)
			dst = appendString(dst, tc.ID)
			dst = append(dst, `,"type":`...)
			dst = appendString(dst, tc.Type)
			dst = append(dst, `,"function":{"name":`...)
			dst = appendString(dst, tc.Function.Name)
			dst = append(dst, `,"arguments":`...)
			dst = AppendArguments(dst, tc.Function.Arguments)
			dst = append(dst, "}}"...)
		}
		dst = append(dst, ']')
	}
	if m.ToolCallID != "" {
		dst = append(dst, `,"tool_call_id":`...)
		dst = appendString(dst, m.ToolCallID)
	}
	if m.Name != "" {
		dst = append(dst, `,"name":`...)
		dst = appendString(dst, m.Name)
	}
	if m.Weight != nil {
		dst = append(dst, `,"weight":`...)
		dst = strconv.AppendInt(dst, int64(*m.Weight), 10)
	}
	return append(dst, '}')
}

// AppendArguments appends a call's arguments as a JSON value: the object
// itself, compacted, when args is a JSON object; {} when it is empty; else
// the text as a JSON string.
func AppendArguments(dst []byte, args string) []byte {
	trimmed := strings.TrimSpace(args)
	if trimmed == "" {
		return append(dst, "{}"...)
	}
	if trimmed[0] == '{' && json.Valid([]byte(trimmed)) {
		var buf bytes.Buffer
		// Compact keeps key order and escapes as written, so the text
		// read back is the text written, byte for byte, when the input
		// was already compact (as synth's own arguments are).
		if err := json.Compact(&buf, []byte(trimmed)); err == nil {
			return append(dst, buf.Bytes()...)
		}
	}
	return appendString(dst, args)
}

// appendString appends s as a JSON string. <, > and & stay as they are
// (encoding/json would write \u003c): the value is data, not HTML, and
// prompts are full of tags.
func appendString(dst []byte, s string) []byte { return tools.AppendString(dst, s, false) }

type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// ParseMessageJSON decodes one message object as AppendMessageJSON writes
// it. It refuses what would break a template or is not a message: a key
// a message does not have, a key holding null (a message leaves out the
// keys it does not have), a missing role or content, or arguments that
// are neither an object nor a string.
func ParseMessageJSON(b []byte) (record.Message, error) {
	if m, ok := parseCanonical(b); ok {
		return m, nil
	}
	return parseMessage(b)
}

// parseMessage is ParseMessageJSON for any message text.
func parseMessage(b []byte) (record.Message, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return record.Message{}, fmt.Errorf("not a message object: %w", err)
	}
	var m record.Message
	str := func(key string, dst *string) error {
		raw, ok := top[key]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		return nil
	}
	for k, v := range top {
		switch k {
		case "role", "content", "reasoning_content", "tool_calls", "tool_call_id", "name", "weight":
		default:
			return record.Message{}, fmt.Errorf("key %q is not a message key", k)
		}
		if string(bytes.TrimSpace(v)) == "null" {
			return record.Message{}, fmt.Errorf("key %q holds null: a message leaves out the keys it does not have", k)
		}
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"role", &m.Role}, {"content", &m.Content}, {"reasoning_content", &m.ReasoningContent},
		{"tool_call_id", &m.ToolCallID}, {"name", &m.Name}} {
		if err := str(f.key, f.dst); err != nil {
			return record.Message{}, err
		}
	}
	if m.Role == "" {
		return record.Message{}, fmt.Errorf("no role")
	}
	if raw, ok := top["weight"]; ok {
		var w int
		if err := json.Unmarshal(raw, &w); err != nil || w != 0 && w != 1 {
			return record.Message{}, fmt.Errorf("weight %s: want 0 or 1, as OpenAI fine-tuning takes it", raw)
		}
		if m.Role != "assistant" {
			return record.Message{}, fmt.Errorf("weight on a %s message: only an assistant message is weighted", m.Role)
		}
		m.Weight = &w
	}
	if _, ok := top["content"]; !ok {
		return record.Message{}, fmt.Errorf("no content (want \"\" on tool-call turns)")
	}
	if raw, ok := top["tool_calls"]; ok {
		var calls []wireToolCall
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&calls); err != nil {
			return record.Message{}, fmt.Errorf("tool_calls: %w", err)
		}
		if len(calls) == 0 {
			return record.Message{}, fmt.Errorf("tool_calls is empty: leave the key out instead")
		}
		m.ToolCalls = make([]record.ToolCall, len(calls))
		for i, tc := range calls {
			args, err := argumentsText(tc.Function.Arguments)
			if err != nil {
				return record.Message{}, fmt.Errorf("tool_calls[%d].function.arguments: %w", i, err)
			}
			m.ToolCalls[i] = record.ToolCall{ID: tc.ID, Type: tc.Type, Function: record.FunctionCall{Name: tc.Function.Name, Arguments: args}}
		}
	}
	return m, nil
}

// argumentsText turns stored arguments back into the JSON text of
// record.FunctionCall.Arguments.
func argumentsText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return "", fmt.Errorf("missing")
	case raw[0] == '{':
		return string(raw), nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		return s, nil
	default:
		return "", fmt.Errorf("%.40s is neither an object nor a string", raw)
	}
}

// splitTools splits the OpenAI tools array (JSON text) into its
// compacted elements, for the tools column.
func splitTools(tools string) ([]json.RawMessage, error) {
	if strings.TrimSpace(tools) == "" {
		return nil, nil
	}
	var elems []json.RawMessage
	if err := json.Unmarshal([]byte(tools), &elems); err != nil {
		return nil, fmt.Errorf("tools is not a JSON array: %w", err)
	}
	for i, e := range elems {
		e = bytes.TrimSpace(e)
		if len(e) == 0 || e[0] != '{' {
			return nil, fmt.Errorf("tools[%d] is not an object", i)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, e); err != nil {
			return nil, fmt.Errorf("tools[%d]: %w", i, err)
		}
		elems[i] = buf.Bytes()
	}
	return elems, nil
}

// joinTools is splitTools' inverse: the tools array as compact JSON text.
func joinTools(elems []string) string {
	if len(elems) == 0 {
		return ""
	}
	return "[" + strings.Join(elems, ",") + "]"
}
