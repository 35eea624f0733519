package export

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/synth-data/synth/record"
)

const testTools = `[{"type":"function","function":{"name":"get_order","description":"Look up an order.","parameters":{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}}},{"type":"function","function":{"name":"cancel_order","description":"Cancel a pending order.","parameters":{"type":"object","properties":{"order_id":{"type":"string"},"reason":{"type":"string"}},"required":["order_id","reason"]}}}]`

// callID returns a 9-alphanumeric tool-call id, as Mistral templates need.
func callID(row, n int) string { return fmt.Sprintf("c%04d%04d", row%10000, n%10000) }

// sampleMessages is a realistic dialogue of about 12 turns: reads before a
// confirmed write, a parallel tool call and reasoning on one turn.
func sampleMessages(i int) []record.Message {
	order := fmt.Sprintf("#W%07d", 1000000+i)
	get := func(n int) record.ToolCall {
		return record.ToolCall{ID: callID(i, n), Type: "function", Function: record.FunctionCall{
			Name: "get_order", Arguments: fmt.Sprintf(`{"order_id":"%s%d"}`, order, n)}}
	}
	return []record.Message{
		{Role: "system", Content: "You are a retail support agent. Authenticate the user before any action and confirm before every write."},
		{Role: "user", Content: fmt.Sprintf("Hi, I'd like to cancel my most recent pending order, I think it's %s.", order)},
		{Role: "assistant", Content: "", ReasoningContent: "The user wants a cancellation; I must look up both candidate orders first.",
			ToolCalls: []record.ToolCall{get(0), get(1)}},
		{Role: "tool", ToolCallID: callID(i, 0), Name: "get_order", Content: fmt.Sprintf(`{"order_id":"%s0","status":"pending","total":%d.50}`, order, 10+i%90)},
		{Role: "tool", ToolCallID: callID(i, 1), Name: "get_order", Content: fmt.Sprintf(`{"order_id":"%s1","status":"delivered","total":%d.25}`, order, 20+i%70)},
		{Role: "assistant", Content: fmt.Sprintf("I found order %s0, which is pending. Shall I cancel it? Please confirm the reason.", order)},
		{Role: "user", Content: "Yes please, I ordered it by mistake."},
		{Role: "assistant", ToolCalls: []record.ToolCall{{ID: callID(i, 2), Type: "function", Function: record.FunctionCall{
			Name: "cancel_order", Arguments: fmt.Sprintf(`{"order_id":"%s0","reason":"ordered by mistake"}`, order)}}}},
		{Role: "tool", ToolCallID: callID(i, 2), Name: "cancel_order", Content: `{"status":"cancelled","refund":"original payment method"}`},
		{Role: "assistant", Content: "Your order has been cancelled and the refund goes back to your original payment method."},
		{Role: "user", Content: "Thanks, that's all. ###STOP###"},
		{Role: "assistant", Content: "You're welcome, have a nice day!"},
	}
}

func sampleSFT(i int) SFTRow {
	r := SFTRow{
		ID:          fmt.Sprintf("sft-%06d", i),
		BlueprintID: fmt.Sprintf("bp-%06d", i/2),
		Domain:      "retail",
		Messages:    sampleMessages(i),
		Tools:       testTools,
		NWrites:     1,
		NReads:      int32(i % 4),
		Evidence:    []int32{2},
		Behavior:    []string{"cooperative", "impatient", "changes_mind"}[i%3],
		Engine:      "embedded",
		Labels:      json.RawMessage(fmt.Sprintf(`{"chain_length":3,"progress":%d,"turns":[]}`, i%4)),
	}
	if i%5 == 0 {
		// A read-only task: no writes, so no evidence.
		r.NWrites, r.Evidence = 0, nil
	}
	return r
}

func sampleDPO(i int) DPORow {
	msgs := sampleMessages(i)
	wrong := append([]record.Message(nil), msgs[7:]...)
	wrong[0] = record.Message{Role: "assistant", ToolCalls: []record.ToolCall{{ID: callID(i, 9), Type: "function",
		Function: record.FunctionCall{Name: "cancel_order", Arguments: `{"order_id":"#W0000000","reason":"ordered by mistake"}`}}}}
	return DPORow{
		ID:             fmt.Sprintf("dpo-%06d", i),
		BlueprintID:    fmt.Sprintf("bp-%06d", i),
		Domain:         "retail",
		Prompt:         msgs[:7],
		Chosen:         msgs[7:],
		Rejected:       wrong,
		Tools:          testTools,
		Failure:        "wrong_arguments",
		DivergenceTurn: 7,
	}
}

// normSFT maps empty slices to nil, as the reader returns them.
func normSFT(r SFTRow) SFTRow {
	if len(r.Evidence) == 0 {
		r.Evidence = nil
	}
	r.Messages = normMessages(r.Messages)
	return r
}

func normDPO(r DPORow) DPORow {
	r.Prompt, r.Chosen, r.Rejected = normMessages(r.Prompt), normMessages(r.Chosen), normMessages(r.Rejected)
	return r
}

func normMessages(msgs []record.Message) []record.Message {
	if len(msgs) == 0 {
		return nil
	}
	out := append([]record.Message(nil), msgs...)
	for i := range out {
		if len(out[i].ToolCalls) == 0 {
			out[i].ToolCalls = nil
			continue
		}
		// Arguments are stored as the object itself: empty ones read as {}.
		calls := append([]record.ToolCall(nil), out[i].ToolCalls...)
		for j := range calls {
			if calls[j].Function.Arguments == "" {
				calls[j].Function.Arguments = "{}"
			}
		}
		out[i].ToolCalls = calls
	}
	return out
}

// checkedAlloc returns an allocator that fails the test if anything
// allocated through it is still held when the test ends.
func checkedAlloc(t testing.TB) *memory.CheckedAllocator {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// writeSFT writes rows (split → rows) with a fresh Writer under dir.
func writeSFT(t testing.TB, dir string, opts Options, rows map[string][]SFTRow) []File {
	t.Helper()
	w, err := NewWriter(dir, "sft", SFTSchema(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, split := range []string{"train", "validation", "test"} {
		for _, r := range rows[split] {
			if err := w.WriteSFT(split, r); err != nil {
				t.Fatal(err)
			}
		}
	}
	files, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// listDir returns the names in dir, hidden ones included.
func listDir(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func mustEqual(t testing.TB, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got  %+v\n want %+v", what, got, want)
	}
}

func fileNames(files []File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

func abs(dir string, f File) string { return filepath.Join(dir, filepath.FromSlash(f.Path)) }

// checkJSONColumns checks what pyarrow and datasets rely on to give the
// message and tools columns their Json() feature: the Parquet JSON logical
// type on the leaf, the arrow.json extension in the stored Arrow schema,
// and the datasets features in the "huggingface" metadata.
func checkJSONColumns(t *testing.T, pf *file.Reader) {
	t.Helper()
	md := pf.MetaData()
	for c := range md.Schema.NumColumns() {
		col := md.Schema.Column(c)
		path := col.ColumnPath().String()
		isJSON := path == "messages.list.element" || path == "tools.list.element" || path == "labels" ||
			path == "prompt.list.element" || path == "chosen.list.element" || path == "rejected.list.element"
		if got := col.LogicalType().String() == (schema.JSONLogicalType{}).String(); got != isJSON {
			t.Errorf("column %s: logical type %s", path, col.LogicalType())
		}
	}
	stored := md.KeyValueMetadata().FindValue("ARROW:schema")
	if stored == nil {
		t.Fatal("no ARROW:schema")
	}
	raw, err := base64.StdEncoding.DecodeString(*stored)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := ipc.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("stored schema: %v", err)
	}
	defer rd.Release()
	sch := rd.Schema()
	for _, f := range sch.Fields() {
		l, ok := f.Type.(*arrow.ListType)
		if !ok {
			if ext, isExt := f.Type.(arrow.ExtensionType); f.Name == "labels" && (!isExt || ext.ExtensionName() != "arrow.json") {
				t.Errorf("stored schema: labels is %s", f.Type)
			}
			continue
		}
		want := f.Name != "evidence"
		ext, ok := l.Elem().(arrow.ExtensionType)
		if got := ok && ext.ExtensionName() == "arrow.json"; got != want {
			t.Errorf("stored schema: %s is %s", f.Name, f.Type)
		}
	}
	hf := md.KeyValueMetadata().FindValue("huggingface")
	if hf == nil {
		t.Fatal("no huggingface metadata")
	}
	var feats struct {
		Info struct {
			Features map[string]json.RawMessage `json:"features"`
		} `json:"info"`
	}
	if err := json.Unmarshal([]byte(*hf), &feats); err != nil {
		t.Fatal(err)
	}
	for _, f := range sch.Fields() {
		if _, ok := feats.Info.Features[f.Name]; !ok {
			t.Errorf("huggingface features lack %s", f.Name)
		}
	}
}
