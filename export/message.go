package export

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/synth-data/synth/record"
)

// as converts a builder or array to the concrete type the schema implies.
// The schema is checked before any conversion, so a failure here is a bug,
// reported as an error rather than a panic.
func as[T any](v any, what string) (T, error) {
	t, ok := v.(T)
	if !ok {
		var zero T
		return zero, fmt.Errorf("export: internal error: %s is %T, want %T", what, v, zero)
	}
	return t, nil
}

// structField returns the i-th child builder of sb, as type T.
func structField[T any](sb *array.StructBuilder, i int, what string) (T, error) {
	if i >= sb.NumField() {
		var zero T
		return zero, fmt.Errorf("export: internal error: %s has %d fields, want more than %d", what, sb.NumField(), i)
	}
	return as[T](sb.FieldBuilder(i), what)
}

// messagesBuilder appends []record.Message values to a list<message>
// column, keeping typed handles on every nested builder so appending a row
// does no type switches.
type messagesBuilder struct {
	list                                       *array.ListBuilder
	msg                                        *array.StructBuilder
	role, content, reasoning, toolCallID, name *array.StringBuilder
	calls                                      *array.ListBuilder
	call                                       *array.StructBuilder
	callID, callType                           *array.StringBuilder
	fn                                         *array.StructBuilder
	fnName, fnArgs                             *array.StringBuilder
}

func newMessagesBuilder(b array.Builder, column string) (*messagesBuilder, error) {
	var (
		m   messagesBuilder
		err error
	)
	set := func(f func() error) {
		if err == nil {
			err = f()
		}
	}
	strField := func(dst **array.StringBuilder, sb **array.StructBuilder, i int, what string) {
		set(func() (e error) { *dst, e = structField[*array.StringBuilder](*sb, i, column+"."+what); return })
	}
	set(func() (e error) { m.list, e = as[*array.ListBuilder](b, column); return })
	set(func() (e error) {
		m.msg, e = as[*array.StructBuilder](m.list.ValueBuilder(), column+".element")
		return
	})
	strField(&m.role, &m.msg, 0, "role")
	strField(&m.content, &m.msg, 1, "content")
	strField(&m.reasoning, &m.msg, 2, "reasoning_content")
	set(func() (e error) { m.calls, e = structField[*array.ListBuilder](m.msg, 3, column+".tool_calls"); return })
	strField(&m.toolCallID, &m.msg, 4, "tool_call_id")
	strField(&m.name, &m.msg, 5, "name")
	set(func() (e error) {
		m.call, e = as[*array.StructBuilder](m.calls.ValueBuilder(), column+".tool_calls.element")
		return
	})
	strField(&m.callID, &m.call, 0, "tool_calls.id")
	strField(&m.callType, &m.call, 1, "tool_calls.type")
	set(func() (e error) {
		m.fn, e = structField[*array.StructBuilder](m.call, 2, column+".tool_calls.function")
		return
	})
	strField(&m.fnName, &m.fn, 0, "tool_calls.function.name")
	strField(&m.fnArgs, &m.fn, 1, "tool_calls.function.arguments")
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// appendOptional writes s, or null when s is empty: these fields are absent
// from most messages, and chat templates test them for truthiness.
func appendOptional(b *array.StringBuilder, s string) {
	if s == "" {
		b.AppendNull()
		return
	}
	b.Append(s)
}

// append adds one row and returns roughly how many bytes it added, which
// the writer uses to keep row groups small.
func (m *messagesBuilder) append(msgs []record.Message) int64 {
	// An empty conversation is an empty list, not null: the column always
	// holds a list so loaders never see None where they iterate.
	m.list.Append(true)
	n := int64(4)
	for i := range msgs {
		msg := &msgs[i]
		m.msg.Append(true)
		m.role.Append(msg.Role)
		// Content is "" rather than null on tool-call turns: some chat
		// templates fail on a null content.
		m.content.Append(msg.Content)
		appendOptional(m.reasoning, msg.ReasoningContent)
		if len(msg.ToolCalls) == 0 {
			m.calls.AppendNull()
		} else {
			m.calls.Append(true)
			for j := range msg.ToolCalls {
				tc := &msg.ToolCalls[j]
				m.call.Append(true)
				m.callID.Append(tc.ID)
				m.callType.Append(tc.Type)
				m.fn.Append(true)
				m.fnName.Append(tc.Function.Name)
				m.fnArgs.Append(tc.Function.Arguments)
				n += int64(len(tc.ID)+len(tc.Type)+len(tc.Function.Name)+len(tc.Function.Arguments)) + 32
			}
		}
		appendOptional(m.toolCallID, msg.ToolCallID)
		appendOptional(m.name, msg.Name)
		n += int64(len(msg.Role)+len(msg.Content)+len(msg.ReasoningContent)+len(msg.ToolCallID)+len(msg.Name)) + 32
	}
	return n
}

// messagesColumn reads []record.Message values from a list<message> array.
type messagesColumn struct {
	list                                       *array.List
	msg                                        *array.Struct
	role, content, reasoning, toolCallID, name *array.String
	calls                                      *array.List
	callID, callType                           *array.String
	fn                                         *array.Struct
	fnName, fnArgs                             *array.String
}

// structChild returns the i-th child of s, as type T.
func structChild[T any](s *array.Struct, i int, what string) (T, error) {
	if i >= s.NumField() {
		var zero T
		return zero, fmt.Errorf("export: internal error: %s has %d fields, want more than %d", what, s.NumField(), i)
	}
	return as[T](s.Field(i), what)
}

func newMessagesColumn(a arrow.Array, column string) (*messagesColumn, error) {
	var (
		c   messagesColumn
		err error
	)
	set := func(f func() error) {
		if err == nil {
			err = f()
		}
	}
	strField := func(dst **array.String, s **array.Struct, i int, what string) {
		set(func() (e error) { *dst, e = structChild[*array.String](*s, i, column+"."+what); return })
	}
	set(func() (e error) { c.list, e = as[*array.List](a, column); return })
	set(func() (e error) { c.msg, e = as[*array.Struct](c.list.ListValues(), column+".element"); return })
	strField(&c.role, &c.msg, 0, "role")
	strField(&c.content, &c.msg, 1, "content")
	strField(&c.reasoning, &c.msg, 2, "reasoning_content")
	set(func() (e error) { c.calls, e = structChild[*array.List](c.msg, 3, column+".tool_calls"); return })
	strField(&c.toolCallID, &c.msg, 4, "tool_call_id")
	strField(&c.name, &c.msg, 5, "name")
	var call *array.Struct
	set(func() (e error) {
		call, e = as[*array.Struct](c.calls.ListValues(), column+".tool_calls.element")
		return
	})
	strField(&c.callID, &call, 0, "tool_calls.id")
	strField(&c.callType, &call, 1, "tool_calls.type")
	set(func() (e error) { c.fn, e = structChild[*array.Struct](call, 2, column+".tool_calls.function"); return })
	strField(&c.fnName, &c.fn, 0, "tool_calls.function.name")
	strField(&c.fnArgs, &c.fn, 1, "tool_calls.function.arguments")
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// stringAt reads a string that outlives the record it came from: arrow strings
// alias the column buffer, which the allocator may free or reuse.
func stringAt(a *array.String, i int) string {
	if a.IsNull(i) {
		return ""
	}
	return strings.Clone(a.Value(i))
}

// at decodes row i. Empty and null lists both read as nil.
func (c *messagesColumn) at(i int) []record.Message {
	if c.list.IsNull(i) {
		return nil
	}
	start, end := c.list.ValueOffsets(i)
	if start == end {
		return nil
	}
	out := make([]record.Message, 0, end-start)
	for j := int(start); j < int(end); j++ {
		if c.msg.IsNull(j) {
			out = append(out, record.Message{})
			continue
		}
		m := record.Message{
			Role:             stringAt(c.role, j),
			Content:          stringAt(c.content, j),
			ReasoningContent: stringAt(c.reasoning, j),
			ToolCallID:       stringAt(c.toolCallID, j),
			Name:             stringAt(c.name, j),
		}
		if !c.calls.IsNull(j) {
			cs, ce := c.calls.ValueOffsets(j)
			if cs < ce {
				m.ToolCalls = make([]record.ToolCall, 0, ce-cs)
			}
			for k := int(cs); k < int(ce); k++ {
				tc := record.ToolCall{ID: stringAt(c.callID, k), Type: stringAt(c.callType, k)}
				if !c.fn.IsNull(k) {
					tc.Function = record.FunctionCall{Name: stringAt(c.fnName, k), Arguments: stringAt(c.fnArgs, k)}
				}
				m.ToolCalls = append(m.ToolCalls, tc)
			}
		}
		out = append(out, m)
	}
	return out
}

// invalidUTF8 returns the path of the first string in msgs that is not
// valid UTF-8, or "". Arrow strings must be UTF-8: pyarrow and datasets
// refuse to load a file holding anything else.
func invalidUTF8(column string, msgs []record.Message) string {
	for i := range msgs {
		m := &msgs[i]
		for _, f := range [...]struct{ name, s string }{
			{"role", m.Role}, {"content", m.Content}, {"reasoning_content", m.ReasoningContent},
			{"tool_call_id", m.ToolCallID}, {"name", m.Name},
		} {
			if !utf8.ValidString(f.s) {
				return fmt.Sprintf("%s[%d].%s", column, i, f.name)
			}
		}
		for j := range m.ToolCalls {
			tc := &m.ToolCalls[j]
			for _, f := range [...]struct{ name, s string }{
				{"id", tc.ID}, {"type", tc.Type}, {"function.name", tc.Function.Name},
				{"function.arguments", tc.Function.Arguments},
			} {
				if !utf8.ValidString(f.s) {
					return fmt.Sprintf("%s[%d].tool_calls[%d].%s", column, i, j, f.name)
				}
			}
		}
	}
	return ""
}
