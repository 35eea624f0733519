package export

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/synth-data/synth/record"
)

func TestRoundTripSFT(t *testing.T) {
	unicode := sampleSFT(3)
	unicode.Messages[1].Content = "Grüße — 注文をキャンセルしたい 🙏"
	tests := []struct {
		name string
		rows []SFTRow
	}{
		{"tool calls, reasoning and tool messages", []SFTRow{sampleSFT(1), sampleSFT(2)}},
		{"empty evidence", []SFTRow{sampleSFT(0), {ID: "x", Evidence: []int32{}}}},
		{"evidence of several writes", []SFTRow{{ID: "x", NWrites: 3, Evidence: []int32{0, 4, 1}}}},
		{"no messages", []SFTRow{{ID: "empty", Messages: []record.Message{}}}},
		{"empty strings everywhere", []SFTRow{{Messages: []record.Message{{Role: "user"}, {Role: "assistant", ToolCalls: []record.ToolCall{{}}}}}}},
		{"arguments that are not an object", []SFTRow{{ID: "x", Messages: []record.Message{{Role: "assistant", ToolCalls: []record.ToolCall{
			{ID: "a", Function: record.FunctionCall{Name: "f", Arguments: `{"order_id": "#W1",`}},
			{ID: "b", Function: record.FunctionCall{Name: "f", Arguments: `[1, 2]`}},
			{ID: "c", Function: record.FunctionCall{Name: "f", Arguments: `"text"`}},
		}}}}}},
		{"unicode", []SFTRow{unicode}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := checkedAlloc(t)
			dir := t.TempDir()
			files := writeSFT(t, dir, Options{Allocator: mem}, map[string][]SFTRow{"train": tt.rows})
			mustEqual(t, "files", fileNames(files), []string{"sft/train-00000-of-00001.parquet"})
			got, err := readSFT(abs(dir, files[0]), mem)
			if err != nil {
				t.Fatal(err)
			}
			var want []SFTRow
			for _, r := range tt.rows {
				want = append(want, normSFT(r))
			}
			mustEqual(t, "rows", got, want)
		})
	}
}

func TestRoundTripDPO(t *testing.T) {
	tests := []struct {
		name string
		rows []DPORow
	}{
		{"pairs", []DPORow{sampleDPO(0), sampleDPO(1), sampleDPO(2)}},
		{"empty sides", []DPORow{{ID: "x", Prompt: sampleMessages(0)[:2]}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := checkedAlloc(t)
			dir := t.TempDir()
			w, err := NewWriter(dir, "dpo", DPOSchema(), Options{Allocator: mem})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range tt.rows {
				if err := w.WriteDPO("test", r); err != nil {
					t.Fatal(err)
				}
			}
			files, err := w.Close()
			if err != nil {
				t.Fatal(err)
			}
			mustEqual(t, "files", fileNames(files), []string{"dpo/test-00000-of-00001.parquet"})
			got, err := readDPO(abs(dir, files[0]), mem)
			if err != nil {
				t.Fatal(err)
			}
			var want []DPORow
			for _, r := range tt.rows {
				want = append(want, normDPO(r))
			}
			mustEqual(t, "rows", got, want)
		})
	}
}

func TestRolling(t *testing.T) {
	tests := []struct {
		name         string
		opts         Options
		rows         map[string]int
		wantFiles    []string
		wantRows     []int64
		wantRowGroup [][]int64 // rows per row group, per file
	}{
		{
			name:         "files and row groups",
			opts:         Options{RowsPerGroup: 2, RowsPerFile: 3},
			rows:         map[string]int{"train": 7, "validation": 2},
			wantFiles:    []string{"sft/train-00000-of-00003.parquet", "sft/train-00001-of-00003.parquet", "sft/train-00002-of-00003.parquet", "sft/validation-00000-of-00001.parquet"},
			wantRows:     []int64{3, 3, 1, 2},
			wantRowGroup: [][]int64{{2, 1}, {2, 1}, {1}, {2}},
		},
		{
			name:         "exact multiple",
			opts:         Options{RowsPerGroup: 2, RowsPerFile: 4},
			rows:         map[string]int{"test": 8},
			wantFiles:    []string{"sft/test-00000-of-00002.parquet", "sft/test-00001-of-00002.parquet"},
			wantRows:     []int64{4, 4},
			wantRowGroup: [][]int64{{2, 2}, {2, 2}},
		},
		{
			name:         "byte limit ends groups early",
			opts:         Options{RowsPerGroup: 100, MaxGroupBytes: 1},
			rows:         map[string]int{"train": 3},
			wantFiles:    []string{"sft/train-00000-of-00001.parquet"},
			wantRows:     []int64{3},
			wantRowGroup: [][]int64{{1, 1, 1}},
		},
		{
			name:         "file byte limit rolls early",
			opts:         Options{RowsPerGroup: 1, MaxFileBytes: 1},
			rows:         map[string]int{"train": 2},
			wantFiles:    []string{"sft/train-00000-of-00002.parquet", "sft/train-00001-of-00002.parquet"},
			wantRows:     []int64{1, 1},
			wantRowGroup: [][]int64{{1}, {1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Allocator = checkedAlloc(t)
			dir := t.TempDir()
			in := map[string][]SFTRow{}
			for split, n := range tt.rows {
				for i := range n {
					in[split] = append(in[split], sampleSFT(len(in)*1000+i))
				}
			}
			files := writeSFT(t, dir, tt.opts, in)
			mustEqual(t, "files", fileNames(files), tt.wantFiles)
			for _, name := range listDir(t, filepath.Join(dir, "sft")) {
				if strings.HasPrefix(name, ".") {
					t.Errorf("leftover temporary %s", name)
				}
			}

			got := map[string][]SFTRow{}
			for i, f := range files {
				if f.Rows != tt.wantRows[i] {
					t.Errorf("%s: Rows = %d, want %d", f.Path, f.Rows, tt.wantRows[i])
				}
				mustEqual(t, f.Path+" row groups", rowGroupSizes(t, abs(dir, f)), tt.wantRowGroup[i])
				rows, err := ReadSFT(abs(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				got[f.Split] = append(got[f.Split], rows...)
			}
			for split, rows := range in {
				for i := range rows {
					rows[i] = normSFT(rows[i])
				}
				mustEqual(t, split+" rows in order", got[split], rows)
			}
		})
	}
}

func rowGroupSizes(t *testing.T, path string) []int64 {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	var sizes []int64
	for i := range pf.NumRowGroups() {
		sizes = append(sizes, pf.MetaData().RowGroup(i).NumRows())
	}
	return sizes
}

// TestSchemaEveryFile checks the contract that one schema holds in every
// file of every split, and that it uses list (not large_list) and no Null.
func TestSchemaEveryFile(t *testing.T) {
	dir := t.TempDir()
	in := map[string][]SFTRow{}
	for i := range 10 {
		in[[]string{"train", "validation", "test"}[i%3]] = append(in[[]string{"train", "validation", "test"}[i%3]], sampleSFT(i))
	}
	// The first row of a split without tool calls or evidence must not
	// change the schema inferred by a loader.
	in["test"][0] = SFTRow{ID: "bare"}
	files := writeSFT(t, dir, Options{RowsPerFile: 2}, in)
	if len(files) < 5 {
		t.Fatalf("want several files per split, got %v", fileNames(files))
	}
	for _, f := range files {
		pf, err := file.OpenParquetFile(abs(dir, f), false)
		if err != nil {
			t.Fatal(err)
		}
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		got, err := fr.Schema()
		pf.Close()
		if err != nil {
			t.Fatal(err)
		}
		// arrow-go reads a Parquet JSON column as binary; pyarrow restores
		// the arrow.json extension from the stored schema (checked in
		// TestFileMetadata).
		want := sftSchemaRead()
		if got.NumFields() != want.NumFields() {
			t.Fatalf("%s: %d fields, want %d", f.Path, got.NumFields(), want.NumFields())
		}
		for i, wf := range want.Fields() {
			gf := got.Field(i)
			if gf.Name != wf.Name || !arrow.TypeEqual(gf.Type, wf.Type) || !gf.Nullable {
				t.Errorf("%s: field %d = %s, want nullable %s", f.Path, i, gf, wf)
			}
			walkTypes(gf.Type, func(dt arrow.DataType) {
				switch dt.ID() {
				case arrow.LARGE_LIST, arrow.LARGE_STRING, arrow.LARGE_BINARY, arrow.NULL, arrow.STRING_VIEW, arrow.LIST_VIEW:
					t.Errorf("%s: column %s contains %s", f.Path, gf.Name, dt)
				}
			})
		}
	}
}

// walkTypes calls fn on dt and every type nested in it.
func walkTypes(dt arrow.DataType, fn func(arrow.DataType)) {
	fn(dt)
	if nested, ok := dt.(arrow.NestedType); ok {
		for _, f := range nested.Fields() {
			walkTypes(f.Type, fn)
		}
	}
}

func TestDeterministic(t *testing.T) {
	in := map[string][]SFTRow{}
	for i := range 50 {
		split := []string{"train", "train", "validation"}[i%3]
		in[split] = append(in[split], sampleSFT(i))
	}
	opts := Options{RowsPerGroup: 8, RowsPerFile: 20}
	dirA, dirB := t.TempDir(), t.TempDir()
	a := writeSFT(t, dirA, opts, in)
	b := writeSFT(t, dirB, opts, in)
	mustEqual(t, "file lists", a, b)
	for _, f := range a {
		dataA, err := os.ReadFile(abs(dirA, f))
		if err != nil {
			t.Fatal(err)
		}
		dataB, err := os.ReadFile(abs(dirB, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(dataA, dataB) {
			t.Errorf("%s differs between runs", f.Path)
		}
		sum := sha256.Sum256(dataA)
		if got := hex.EncodeToString(sum[:]); got != f.SHA256 {
			t.Errorf("%s: File.SHA256 = %s, file hashes to %s", f.Path, f.SHA256, got)
		}
		if int64(len(dataA)) != f.Bytes {
			t.Errorf("%s: File.Bytes = %d, file has %d", f.Path, f.Bytes, len(dataA))
		}
		if info, err := os.Stat(abs(dirA, f)); err != nil || info.Mode().Perm() != filePerm {
			t.Errorf("%s: mode %v (%v), want %v", f.Path, info.Mode().Perm(), err, os.FileMode(filePerm))
		}
	}
}

// TestFileMetadata checks what loaders rely on but a round trip would not
// notice: compression, the page index, the stored Arrow schema and the
// Parquet list layout.
func TestFileMetadata(t *testing.T) {
	// Dictionary encoding where values repeat, not on ids and free text.
	wantDictionary := map[string]bool{
		"id":                    false,
		"domain":                true,
		"tools.list.element":    true,
		"messages.list.element": false,
	}
	tests := []struct {
		name  string
		codec compress.Compression
		want  compress.Compression
	}{
		{"default is zstd", 0, compress.Codecs.Zstd},
		{"snappy on request", compress.Codecs.Snappy, compress.Codecs.Snappy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			files := writeSFT(t, dir, Options{RowsPerGroup: 3, Compression: tt.codec},
				map[string][]SFTRow{"train": {sampleSFT(1), sampleSFT(2), sampleSFT(3), sampleSFT(4)}})
			pf, err := file.OpenParquetFile(abs(dir, files[0]), false)
			if err != nil {
				t.Fatal(err)
			}
			defer pf.Close()
			md := pf.MetaData()
			if md.KeyValueMetadata().FindValue("ARROW:schema") == nil {
				t.Error("no ARROW:schema in the key-value metadata")
			}
			for rg := range pf.NumRowGroups() {
				rgm := md.RowGroup(rg)
				for c := range rgm.NumColumns() {
					cc, err := rgm.ColumnChunk(c)
					if err != nil {
						t.Fatal(err)
					}
					path := cc.PathInSchema().String()
					if cc.Compression() != tt.want {
						t.Errorf("row group %d column %s: codec %s, want %s", rg, path, cc.Compression(), tt.want)
					}
					if cc.GetColumnIndexLocation() == nil || cc.GetOffsetIndexLocation() == nil {
						t.Errorf("row group %d column %s: no page index", rg, path)
					}
					if want, ok := wantDictionary[path]; ok && cc.HasDictionaryPage() != want {
						t.Errorf("row group %d column %s: dictionary page = %v, want %v", rg, path, cc.HasDictionaryPage(), want)
					}
				}
			}
			// The page index must also be readable, not just referenced.
			rgpi, err := pf.GetPageIndexReader().RowGroup(0)
			if err != nil {
				t.Fatal(err)
			}
			if oi, err := rgpi.GetOffsetIndex(0); err != nil || oi == nil || len(oi.GetPageLocations()) == 0 {
				t.Errorf("offset index of column 0: %v, %v", oi, err)
			}
			// 3-level lists named list/element, as pyarrow and DuckDB write.
			var leaves []string
			for c := range md.Schema.NumColumns() {
				leaves = append(leaves, md.Schema.Column(c).ColumnPath().String())
			}
			for _, want := range []string{"messages.list.element", "tools.list.element", "evidence.list.element"} {
				if !slices.Contains(leaves, want) {
					t.Errorf("no leaf column %s in %v", want, leaves)
				}
			}
			checkJSONColumns(t, pf)
		})
	}
}

// TestNullEncoding checks the encoding rules chat templates depend on, on
// the stored values: every message is an object with only the keys it
// has, content always a string, arguments an object, and nothing null
// (datasets before 5.0 fails decoding a null Json() value).
func TestNullEncoding(t *testing.T) {
	dir := t.TempDir()
	files := writeSFT(t, dir, Options{}, map[string][]SFTRow{"train": {sampleSFT(1)}})
	pf, err := file.OpenParquetFile(abs(dir, files[0]), false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	list := tbl.Column(3).Data().Chunk(0).(*array.List)
	vals := list.ListValues().(*array.Binary)
	in := sampleMessages(1)
	if vals.Len() != len(in) || vals.NullN() != 0 {
		t.Fatalf("%d message values with %d nulls, want %d and none", vals.Len(), vals.NullN(), len(in))
	}
	for i, m := range in {
		var obj map[string]any
		if err := json.Unmarshal(vals.Value(i), &obj); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		want := []string{"role", "content"}
		if m.ReasoningContent != "" {
			want = append(want, "reasoning_content")
		}
		if len(m.ToolCalls) > 0 {
			want = append(want, "tool_calls")
		}
		if m.Role == "tool" {
			want = append(want, "tool_call_id", "name")
		}
		got := slices.Sorted(maps.Keys(obj))
		slices.Sort(want)
		mustEqual(t, fmt.Sprintf("message %d (%s) keys", i, m.Role), got, want)
		if _, ok := obj["content"].(string); !ok {
			t.Errorf("message %d: content is %T, want a string", i, obj["content"])
		}
		calls, _ := obj["tool_calls"].([]any)
		for j, c := range calls {
			fn := c.(map[string]any)["function"].(map[string]any)
			if _, ok := fn["arguments"].(map[string]any); !ok {
				t.Errorf("message %d call %d: arguments are %T, want an object", i, j, fn["arguments"])
			}
		}
	}
	tools := tbl.Column(4).Data().Chunk(0).(*array.List)
	if tools.IsNull(0) || tools.ListValues().NullN() != 0 || tools.ListValues().Len() != 2 {
		t.Errorf("tools: want a list of the 2 tool objects, got %v", tools)
	}
	if ev := tbl.Column(7).Data().Chunk(0); ev.IsNull(0) {
		t.Error("evidence is null, want a list")
	}
}

func TestWriterErrors(t *testing.T) {
	tests := []struct {
		name  string
		write func(w *Writer) error
		want  string
	}{
		{"bad split name", func(w *Writer) error { return w.WriteSFT("train-1", sampleSFT(0)) }, `split name "train-1"`},
		{"empty split name", func(w *Writer) error { return w.WriteSFT("", sampleSFT(0)) }, `split name ""`},
		{"dpo row on sft writer", func(w *Writer) error { return w.WriteDPO("train", sampleDPO(0)) }, "dpo row on a writer made with the sft schema"},
		{"invalid UTF-8", func(w *Writer) error {
			r := sampleSFT(0)
			r.Messages[2].ToolCalls[1].Function.Arguments = "\xff"
			return w.WriteSFT("train", r)
		}, "messages[2].tool_calls[1].function.arguments is not valid UTF-8"},
		{"message without a role", func(w *Writer) error {
			r := sampleSFT(0)
			r.Messages[3].Role = ""
			return w.WriteSFT("train", r)
		}, "messages[3].role is empty"},
		{"tools that are not an array", func(w *Writer) error {
			r := sampleSFT(0)
			r.Tools = `{"type":"function"}`
			return w.WriteSFT("train", r)
		}, "tools is not a JSON array"},
		{"write after close", func(w *Writer) error {
			if _, err := w.Close(); err != nil {
				return err
			}
			return w.WriteSFT("train", sampleSFT(0))
		}, "writer already closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := NewWriter(t.TempDir(), "sft", SFTSchema(), Options{Allocator: checkedAlloc(t)})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			err = tt.write(w)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestNewWriterErrors(t *testing.T) {
	tests := []struct {
		name   string
		config string
		schema *arrow.Schema
		want   string
	}{
		{"bad config", "../sft", SFTSchema(), "config name"},
		{"nil schema", "sft", nil, "nil schema"},
		{"foreign schema", "sft", arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.LargeString}}, nil), "neither"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewWriter(t.TempDir(), tt.config, tt.schema, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestExistingRelease(t *testing.T) {
	dir := t.TempDir()
	writeSFT(t, dir, Options{RowsPerFile: 1}, map[string][]SFTRow{"train": {sampleSFT(0), sampleSFT(1)}, "test": {sampleSFT(2)}})

	_, err := NewWriter(dir, "sft", SFTSchema(), Options{})
	if err == nil || !strings.Contains(err.Error(), "Options.Replace") {
		t.Fatalf("NewWriter over an existing release: error = %v, want a refusal naming Options.Replace", err)
	}

	// An interrupted export left a temporary behind.
	if err := os.WriteFile(filepath.Join(dir, "sft", ".train-00000.parquet.tmp-123"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	files := writeSFT(t, dir, Options{Replace: true}, map[string][]SFTRow{"train": {sampleSFT(5)}})
	mustEqual(t, "files", fileNames(files), []string{"sft/train-00000-of-00001.parquet"})
	mustEqual(t, "directory", listDir(t, filepath.Join(dir, "sft")), []string{"train-00000-of-00001.parquet"})
}

func TestAbortPublishesNothing(t *testing.T) {
	dir := t.TempDir()
	w, err := NewWriter(dir, "sft", SFTSchema(), Options{RowsPerGroup: 1, RowsPerFile: 2, Allocator: checkedAlloc(t)})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := w.WriteSFT("train", sampleSFT(i)); err != nil {
			t.Fatal(err)
		}
	}
	w.Abort()
	w.Abort()
	mustEqual(t, "directory", listDir(t, filepath.Join(dir, "sft")), []string(nil))
	if _, err := w.Close(); err == nil {
		t.Fatal("Close after Abort succeeded")
	}
}

func TestScanStopsOnCallbackError(t *testing.T) {
	dir := t.TempDir()
	files := writeSFT(t, dir, Options{RowsPerGroup: 2}, map[string][]SFTRow{"train": {sampleSFT(0), sampleSFT(1), sampleSFT(2)}})
	stop := errors.New("stop")
	var seen int
	err := ScanSFT(abs(dir, files[0]), func(SFTRow) error {
		seen++
		if seen == 2 {
			return stop
		}
		return nil
	})
	if err != stop || seen != 2 {
		t.Fatalf("ScanSFT = %v after %d rows, want the callback's error after 2", err, seen)
	}
}

func BenchmarkWriteSFT(b *testing.B) {
	const n = 20_000
	rows := make([]SFTRow, n)
	for i := range rows {
		rows[i] = sampleSFT(i)
	}
	b.ReportAllocs()
	for b.Loop() {
		dir := b.TempDir()
		w, err := NewWriter(dir, "sft", SFTSchema(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		for i := range rows {
			if err := w.WriteSFT("train", rows[i]); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// TestNoDictionaryFallback: a column chunk whose dictionary outgrew its
// page limit falls back to plain pages, and arrow-go lists such a chunk's
// data-page encodings in Go map order, so the same rows gave different
// bytes from run to run. Rows whose labels and tool definitions are all
// distinct and large (an imported API's tools, a long dialogue's labels)
// must still give each chunk one data-page encoding.
func TestNoDictionaryFallback(t *testing.T) {
	var rows []SFTRow
	pad := strings.Repeat("x", 4<<10)
	for i := range 400 {
		r := sampleSFT(i)
		r.Tools = fmt.Sprintf(`[{"type":"function","function":{"name":"tool_%d","description":"%s","parameters":{"type":"object","properties":{}}}}]`, i, pad)
		r.Labels = json.RawMessage(fmt.Sprintf(`{"chain_length":3,"progress":%d,"note":"%d %s"}`, i%4, i, pad))
		rows = append(rows, r)
	}
	dir := t.TempDir()
	files := writeSFT(t, dir, Options{RowsPerGroup: 400}, map[string][]SFTRow{"train": rows})
	pf, err := file.OpenParquetFile(abs(dir, files[0]), false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	md := pf.MetaData()
	for rg := range pf.NumRowGroups() {
		rgm := md.RowGroup(rg)
		for c := range rgm.NumColumns() {
			cc, err := rgm.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			// arrow-go lists a dictionary chunk's encodings as the
			// indices', the dictionary page's and the levels' RLE, then
			// PLAIN where the dictionary fell back.
			if cc.HasDictionaryPage() && len(cc.Encodings()) > 3 {
				t.Errorf("row group %d column %s: encodings %v: its dictionary fell back to plain pages", rg, cc.PathInSchema(), cc.Encodings())
			}
		}
	}
}

// The tools column is appended when a group is written; rows whose tools
// change inside a group, or across a group's end, must each keep their own.
func TestToolsPerRow(t *testing.T) {
	other := `[{"type":"function","function":{"name":"other","parameters":{"type":"object","properties":{}}}}]`
	tests := []struct {
		name  string
		tools []string
		group int
	}{
		{"changing inside a group", []string{testTools, testTools, other, testTools, "", other}, 100},
		{"changing at group ends", []string{testTools, testTools, other, other, "", ""}, 2},
		{"groups of one", []string{other, testTools, "", testTools}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rows, want []SFTRow
			for i, tools := range tt.tools {
				r := sampleSFT(i)
				r.Tools = tools
				rows = append(rows, r)
				want = append(want, normSFT(r))
			}
			mem := checkedAlloc(t)
			dir := t.TempDir()
			files := writeSFT(t, dir, Options{Allocator: mem, RowsPerGroup: tt.group}, map[string][]SFTRow{"train": rows})
			got, err := readSFT(abs(dir, files[0]), mem)
			if err != nil {
				t.Fatal(err)
			}
			mustEqual(t, "rows", got, want)
		})
	}
}
