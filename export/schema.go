package export

import (
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// Every field is nullable because Hugging Face datasets, DuckDB and pyarrow
// treat Parquet fields as nullable anyway, and a required field in one shard
// and an optional one in another would give two schemas in one release.
func nullable(name string, t arrow.DataType) arrow.Field {
	return arrow.Field{Name: name, Type: t, Nullable: true}
}

// listOf builds a 32-bit-offset list whose element is named "element", the
// name pqarrow gives list elements in Parquet; using it in memory too means
// the schema we write and the one read back have the same field names.
func listOf(t arrow.DataType) *arrow.ListType {
	return arrow.ListOfField(nullable("element", t))
}

// messageType is the OpenAI chat message as TRL chat templates read it.
// function.arguments is JSON text, not a struct: Arrow cannot store the
// empty struct of a call without arguments, and text is what the OpenAI API
// itself sends.
func messageType() *arrow.StructType {
	str := arrow.BinaryTypes.String
	function := arrow.StructOf(
		nullable("name", str),
		nullable("arguments", str),
	)
	toolCall := arrow.StructOf(
		nullable("id", str),
		nullable("type", str),
		nullable("function", function),
	)
	return arrow.StructOf(
		nullable("role", str),
		nullable("content", str),
		nullable("reasoning_content", str),
		nullable("tool_calls", listOf(toolCall)),
		nullable("tool_call_id", str),
		nullable("name", str),
	)
}

// The schemas are immutable once built; building them once keeps every
// file of every split on the very same value.
var (
	sftSchema = sync.OnceValue(func() *arrow.Schema {
		str := arrow.BinaryTypes.String
		i32 := arrow.PrimitiveTypes.Int32
		return arrow.NewSchema([]arrow.Field{
			nullable("id", str),
			nullable("blueprint_id", str),
			nullable("domain", str),
			nullable("messages", listOf(messageType())),
			nullable("tools", str),
			nullable("n_writes", i32),
			nullable("n_reads", i32),
			nullable("evidence", listOf(i32)),
			nullable("behavior", str),
			nullable("engine", str),
		}, nil)
	})
	dpoSchema = sync.OnceValue(func() *arrow.Schema {
		str := arrow.BinaryTypes.String
		msgs := listOf(messageType())
		return arrow.NewSchema([]arrow.Field{
			nullable("id", str),
			nullable("blueprint_id", str),
			nullable("domain", str),
			nullable("prompt", msgs),
			nullable("chosen", msgs),
			nullable("rejected", msgs),
			nullable("tools", str),
			nullable("failure", str),
			nullable("divergence_turn", arrow.PrimitiveTypes.Int32),
		}, nil)
	})
)

// SFTSchema returns the Arrow schema of the sft config.
//
// In a message, content is never null ("" on assistant tool-call turns,
// because some chat templates break on a null content); reasoning_content,
// tool_call_id and name are null when empty; tool_calls is null, not an
// empty list, when a message has no calls, so templates testing
// `if message.tool_calls` see a falsy value in every loader.
func SFTSchema() *arrow.Schema { return sftSchema() }

// DPOSchema returns the Arrow schema of the dpo config. Messages are encoded
// as in SFTSchema.
func DPOSchema() *arrow.Schema { return dpoSchema() }

// schemaMismatch describes the first difference between got and want, or
// returns "" when got has want's column names and types in want's order.
// It ignores metadata, which differs after a round trip through Parquet
// (field ids), and so cannot use Schema.Equal.
func schemaMismatch(got, want *arrow.Schema) string {
	if got.NumFields() != want.NumFields() {
		return fmt.Sprintf("has %d columns, want %d", got.NumFields(), want.NumFields())
	}
	for i, w := range want.Fields() {
		g := got.Field(i)
		if g.Name != w.Name {
			return fmt.Sprintf("column %d is %q, want %q", i, g.Name, w.Name)
		}
		if !arrow.TypeEqual(g.Type, w.Type) {
			return fmt.Sprintf("column %q has type %s, want %s", w.Name, g.Type, w.Type)
		}
	}
	return ""
}
