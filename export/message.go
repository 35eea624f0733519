package export

import (
	"encoding/json"
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

// jsonListBuilder appends JSON values to a list<arrow.json> column (the
// messages and tools columns), keeping typed handles on the nested
// builders so appending a row does no type switches.
type jsonListBuilder struct {
	list  *array.ListBuilder
	value *array.StringBuilder
	buf   []byte
}

func newJSONListBuilder(b array.Builder, column string) (*jsonListBuilder, error) {
	list, err := as[*array.ListBuilder](b, column)
	if err != nil {
		return nil, err
	}
	ext, err := as[*array.ExtensionBuilder](list.ValueBuilder(), column+".element")
	if err != nil {
		return nil, err
	}
	value, err := as[*array.StringBuilder](ext.StorageBuilder(), column+".element storage")
	if err != nil {
		return nil, err
	}
	return &jsonListBuilder{list: list, value: value}, nil
}

// appendMessages adds one row of messages, each as its canonical JSON
// object, and returns how many bytes it added, which the writer uses to
// keep row groups small. An empty conversation is an empty list, not
// null: the column always holds a list so loaders never see None where
// they iterate.
func (b *jsonListBuilder) appendMessages(msgs []record.Message) int64 {
	b.list.Append(true)
	n := int64(4)
	for i := range msgs {
		b.buf = AppendMessageJSON(b.buf[:0], &msgs[i])
		b.value.BinaryBuilder.Append(b.buf)
		n += int64(len(b.buf)) + 4
	}
	return n
}

// appendValues adds one row of already encoded JSON values.
func (b *jsonListBuilder) appendValues(vals []json.RawMessage) int64 {
	b.list.Append(true)
	n := int64(4)
	for _, v := range vals {
		b.value.BinaryBuilder.Append(v)
		n += int64(len(v)) + 4
	}
	return n
}

// messagesColumn reads []record.Message values from a messages column of
// either format: list<arrow.json> (version 2) or list<message struct>
// (version 1).
type messagesColumn struct {
	v2 *jsonListColumn
	v1 *messagesColumnV1
}

func newMessagesColumn(a arrow.Array, column string) (*messagesColumn, error) {
	if list, ok := a.(*array.List); ok {
		if _, isStruct := list.ListValues().(*array.Struct); isStruct {
			v1, err := newMessagesColumnV1(a, column)
			return &messagesColumn{v1: v1}, err
		}
	}
	v2, err := newJSONListColumn(a, column)
	return &messagesColumn{v2: v2}, err
}

// at decodes row i. Empty and null lists both read as nil.
func (c *messagesColumn) at(i int) ([]record.Message, error) {
	if c.v1 != nil {
		return c.v1.at(i), nil
	}
	vals := c.v2.at(i)
	if len(vals) == 0 {
		return nil, nil
	}
	out := make([]record.Message, len(vals))
	for j, v := range vals {
		m, err := ParseMessageJSON([]byte(v))
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", c.v2.column, j, err)
		}
		out[j] = m
	}
	return out, nil
}

// jsonListColumn reads the JSON texts of a list<arrow.json> column. Read
// without the stored Arrow schema (see dropStoredSchema), pqarrow gives a
// Parquet JSON column as binary; in memory it is the extension over utf8.
type jsonListColumn struct {
	column string
	list   *array.List
	values interface {
		IsNull(int) bool
		ValueString(int) string
	}
}

func newJSONListColumn(a arrow.Array, column string) (*jsonListColumn, error) {
	list, err := as[*array.List](a, column)
	if err != nil {
		return nil, err
	}
	vals := list.ListValues()
	if ext, ok := vals.(array.ExtensionArray); ok {
		vals = ext.Storage()
	}
	c := &jsonListColumn{column: column, list: list}
	switch v := vals.(type) {
	case *array.Binary:
		c.values = v
	case *array.String:
		c.values = clonedStrings{v}
	default:
		return nil, fmt.Errorf("export: internal error: %s.element is %T, want a string or binary array", column, vals)
	}
	return c, nil
}

// clonedStrings reads strings that outlive their column buffer.
type clonedStrings struct{ *array.String }

func (c clonedStrings) ValueString(i int) string { return strings.Clone(c.Value(i)) }

// at returns row i's values, copied out of the column buffer.
func (c *jsonListColumn) at(i int) []string {
	if c.list.IsNull(i) {
		return nil
	}
	start, end := c.list.ValueOffsets(i)
	if start == end {
		return nil
	}
	out := make([]string, 0, end-start)
	for j := int(start); j < int(end); j++ {
		if c.values.IsNull(j) {
			out = append(out, "")
			continue
		}
		out = append(out, c.values.ValueString(j))
	}
	return out
}

// messagesColumnV1 reads format version 1's list<message struct>.
type messagesColumnV1 struct {
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

func newMessagesColumnV1(a arrow.Array, column string) (*messagesColumnV1, error) {
	var (
		c   messagesColumnV1
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
func (c *messagesColumnV1) at(i int) []record.Message {
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
		if m.Role == "" {
			return fmt.Sprintf("%s[%d].role is empty and so", column, i)
		}
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
