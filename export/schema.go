package export

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/extensions"
)

// FormatVersion is the version of the column contract the writer
// produces; the manifest records it. Version 1 (synth ≤ 0.3) stored each
// message as a null-padded struct and arguments and tools as JSON text;
// version 2 stores every message and every tool as a JSON object in a
// Json() column, so that a row loaded with Hugging Face datasets is the
// canonical conversation and renders under chat templates as it is.
// Version 3 adds the sft column kind: "" for the oracle's dialogue,
// "recovery" for a dialogue in which the customer catches a flawed
// agent's mistake and the agent corrects it. Version 4 adds the sft
// column labels: the dialogue's per-turn credit labels (package credit)
// as one Json() object. The readers read all four.
const FormatVersion = 4

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

// jsonType is Arrow's canonical JSON extension type (arrow.json) over
// utf8. pqarrow writes it as a Parquet string column with the JSON logical
// type and records the extension in the stored Arrow schema; pyarrow
// (≥ 19) restores the extension from that schema, and datasets (≥ 4.7)
// turns an arrow.json column into its Json() feature, which hands each
// value to Python as the decoded object. That is the same layout datasets
// writes for its own Json() columns.
var jsonType = sync.OnceValue(func() arrow.DataType {
	t, err := extensions.NewJSONType(arrow.BinaryTypes.String)
	if err != nil {
		// utf8 is a storage type NewJSONType always accepts.
		return arrow.BinaryTypes.String
	}
	return t
})

// messageTypeV1 is the message struct of format version 1, kept to read
// older releases: every message carried every key (null when unset) and
// function.arguments was JSON text.
func messageTypeV1() *arrow.StructType {
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
		return sftSchemaWith(listOf(jsonType()), listOf(jsonType()), jsonType(), featuresMetadata(sftFeatures()))
	})
	dpoSchema = sync.OnceValue(func() *arrow.Schema {
		return dpoSchemaWith(listOf(jsonType()), listOf(jsonType()), featuresMetadata(dpoFeatures()))
	})
	// The version 2 schemas as the reader sees them: it drops the stored
	// Arrow schema, and pqarrow reads a Parquet JSON column as binary.
	sftSchemaRead = sync.OnceValue(func() *arrow.Schema {
		bin := arrow.BinaryTypes.Binary
		return sftSchemaWith(listOf(bin), listOf(bin), bin, nil)
	})
	dpoSchemaRead = sync.OnceValue(func() *arrow.Schema {
		bin := arrow.BinaryTypes.Binary
		return dpoSchemaWith(listOf(bin), listOf(bin), nil)
	})
	sftSchemaV1 = sync.OnceValue(func() *arrow.Schema {
		return arrow.NewSchema(sftFields(listOf(messageTypeV1()), arrow.BinaryTypes.String), nil)
	})
	// Format 2 is format 3 without kind.
	sftSchemaV2 = sync.OnceValue(func() *arrow.Schema {
		return arrow.NewSchema(sftFields(listOf(jsonType()), listOf(jsonType())), nil)
	})
	sftSchemaReadV2 = sync.OnceValue(func() *arrow.Schema {
		bin := arrow.BinaryTypes.Binary
		return arrow.NewSchema(sftFields(listOf(bin), listOf(bin)), nil)
	})
	// Format 3 is format 4 without labels.
	sftSchemaV3 = sync.OnceValue(func() *arrow.Schema {
		return arrow.NewSchema(append(sftFields(listOf(jsonType()), listOf(jsonType())), kindField()), nil)
	})
	sftSchemaReadV3 = sync.OnceValue(func() *arrow.Schema {
		bin := arrow.BinaryTypes.Binary
		return arrow.NewSchema(append(sftFields(listOf(bin), listOf(bin)), kindField()), nil)
	})
	dpoSchemaV1 = sync.OnceValue(func() *arrow.Schema {
		return dpoSchemaWith(listOf(messageTypeV1()), arrow.BinaryTypes.String, nil)
	})
)

func sftSchemaWith(msgs, tools, labels arrow.DataType, md *arrow.Metadata) *arrow.Schema {
	return arrow.NewSchema(append(sftFields(msgs, tools), kindField(), nullable("labels", labels)), md)
}

// kindField is the sft column of format 3 on.
func kindField() arrow.Field { return nullable("kind", arrow.BinaryTypes.String) }

// sftFields are the sft columns of formats 1 and 2.
func sftFields(msgs, tools arrow.DataType) []arrow.Field {
	str := arrow.BinaryTypes.String
	i32 := arrow.PrimitiveTypes.Int32
	return []arrow.Field{
		nullable("id", str),
		nullable("blueprint_id", str),
		nullable("domain", str),
		nullable("messages", msgs),
		nullable("tools", tools),
		nullable("n_writes", i32),
		nullable("n_reads", i32),
		nullable("evidence", listOf(i32)),
		nullable("behavior", str),
		nullable("engine", str),
	}
}

func dpoSchemaWith(msgs, tools arrow.DataType, md *arrow.Metadata) *arrow.Schema {
	str := arrow.BinaryTypes.String
	return arrow.NewSchema([]arrow.Field{
		nullable("id", str),
		nullable("blueprint_id", str),
		nullable("domain", str),
		nullable("prompt", msgs),
		nullable("chosen", msgs),
		nullable("rejected", msgs),
		nullable("tools", tools),
		nullable("failure", str),
		nullable("divergence_turn", arrow.PrimitiveTypes.Int32),
	}, md)
}

// The datasets features of each config, in the form Features.to_dict
// writes (datasets/features/features.py): datasets reads them from the
// "huggingface" key of the Parquet schema metadata and uses a column's
// entry when its Arrow type equals the column's, so a loader gets exactly
// these features rather than inferred ones.
func sftFeatures() []featureEntry {
	str, i32, jsons := featureValue("string"), featureValue("int32"), featureList(map[string]any{"_type": "Json"})
	return []featureEntry{
		{"id", str}, {"blueprint_id", str}, {"domain", str}, {"messages", jsons}, {"tools", jsons},
		{"n_writes", i32}, {"n_reads", i32}, {"evidence", featureList(i32)}, {"behavior", str}, {"engine", str}, {"kind", str},
		{"labels", map[string]any{"_type": "Json"}},
	}
}

func dpoFeatures() []featureEntry {
	str, i32, jsons := featureValue("string"), featureValue("int32"), featureList(map[string]any{"_type": "Json"})
	return []featureEntry{
		{"id", str}, {"blueprint_id", str}, {"domain", str}, {"prompt", jsons}, {"chosen", jsons},
		{"rejected", jsons}, {"tools", jsons}, {"failure", str}, {"divergence_turn", i32},
	}
}

func featureValue(dtype string) map[string]any {
	return map[string]any{"dtype": dtype, "_type": "Value"}
}

func featureList(of map[string]any) map[string]any {
	return map[string]any{"feature": of, "_type": "List"}
}

type featureEntry struct {
	name    string
	feature map[string]any
}

// featuresMetadata renders features as the "huggingface" schema metadata,
// keeping the column order (encoding/json would sort a map's keys, and
// datasets builds its Features in the order it reads them).
func featuresMetadata(fs []featureEntry) *arrow.Metadata {
	b := []byte(`{"info":{"features":{`)
	for i, f := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		name, _ := json.Marshal(f.name)
		val, _ := json.Marshal(f.feature)
		b = append(append(append(b, name...), ':'), val...)
	}
	b = append(b, "}}}"...)
	md := arrow.NewMetadata([]string{"huggingface"}, []string{string(b)})
	return &md
}

// SFTSchema returns the Arrow schema of the sft config (format version 4).
//
// messages and tools are lists of arrow.json values: each message is the
// JSON object of an OpenAI chat message with only the keys it has (role
// and content always, content "" on tool-call turns; reasoning_content,
// tool_calls, tool_call_id and name when set), each call's arguments a
// JSON object; each tool is one OpenAI tool definition. labels is one
// arrow.json value, the row's credit.Labels object. No value is null.
func SFTSchema() *arrow.Schema { return sftSchema() }

// DPOSchema returns the Arrow schema of the dpo config. Messages are encoded
// as in SFTSchema.
func DPOSchema() *arrow.Schema { return dpoSchema() }

// SFTSchemaV1 and DPOSchemaV1 are the schemas of format version 1, which
// the readers still accept.
func SFTSchemaV1() *arrow.Schema { return sftSchemaV1() }

// DPOSchemaV1 is the dpo schema of format version 1.
func DPOSchemaV1() *arrow.Schema { return dpoSchemaV1() }

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
