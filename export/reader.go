package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/synth-data/synth/internal/limitio"
)

// readBatchRows bounds the rows handed to the row decoder at once; a whole
// row group of the default size fits in one batch.
const readBatchRows = 4096

// ReadSFT reads every row of an sft Parquet file. Like every reader here,
// it checks the file's column names and types against SFTSchema and fails
// with an error naming the file on any mismatch or damage. Empty lists
// and null strings read as nil and "".
func ReadSFT(path string) ([]SFTRow, error) {
	return readSFT(path, memory.DefaultAllocator)
}

// ReadDPO reads every row of a dpo Parquet file.
func ReadDPO(path string) ([]DPORow, error) {
	return readDPO(path, memory.DefaultAllocator)
}

// ScanSFT calls fn for each row of an sft Parquet file, in order. It
// decodes one row group at a time, so memory stays bounded by the largest
// row group whatever the file size, and it stops at, and returns, the
// first error fn returns.
func ScanSFT(path string, fn func(SFTRow) error) error {
	return scanSFT(path, memory.DefaultAllocator, fn)
}

// ScanDPO is ScanSFT for dpo files.
func ScanDPO(path string, fn func(DPORow) error) error {
	return scanDPO(path, memory.DefaultAllocator, fn)
}

func readSFT(path string, mem memory.Allocator) ([]SFTRow, error) {
	return readAll(path, mem, scanSFT)
}

func readDPO(path string, mem memory.Allocator) ([]DPORow, error) {
	return readAll(path, mem, scanDPO)
}

// readAll collects every row a scan yields.
func readAll[R any](path string, mem memory.Allocator, scan func(string, memory.Allocator, func(R) error) error) ([]R, error) {
	var rows []R
	err := scan(path, mem, func(r R) error {
		rows = append(rows, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}

func scanSFT(path string, mem memory.Allocator, fn func(SFTRow) error) error {
	schemas := []*arrow.Schema{sftSchemaRead(), SFTSchema(), sftSchemaReadV3(), sftSchemaV3(), sftSchemaReadV2(), sftSchemaV2(), SFTSchemaV1()}
	return scanRows(path, mem, "sft", schemas, newSFTColumns, func(r SFTRow) string { return r.ID }, fn)
}

func scanDPO(path string, mem memory.Allocator, fn func(DPORow) error) error {
	schemas := []*arrow.Schema{dpoSchemaRead(), DPOSchema(), DPOSchemaV1()}
	return scanRows(path, mem, "dpo", schemas, newDPOColumns, func(r DPORow) string { return r.ID }, fn)
}

// scanRows decodes each record batch of a file of kind with the columns
// open makes of it and calls fn on each row; id names a row that does
// not decode.
func scanRows[R any, C interface{ row(int) (R, error) }](path string, mem memory.Allocator, kind string, schemas []*arrow.Schema,
	open func(arrow.RecordBatch) (C, error), id func(R) string, fn func(R) error) error {
	return scan(path, mem, kind, schemas, func(rec arrow.RecordBatch) error {
		c, err := open(rec)
		if err != nil {
			return err
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			r, err := c.row(i)
			if err != nil {
				return rowError{i, id(r), err}
			}
			if err := fn(r); err != nil {
				return callerError{err}
			}
		}
		return nil
	})
}

// rowError is a row whose values do not decode (a message that is not a
// message object); it is a defect of the file, named by row.
type rowError struct {
	row int
	id  string
	err error
}

func (e rowError) Error() string {
	return fmt.Sprintf("not a synth file: row %d (id %q) of its batch: %v", e.row, e.id, e.err)
}
func (e rowError) Unwrap() error { return e.err }

// scan opens path, checks its schema against the accepted ones (the
// current format first, then older ones) and hands each decoded batch,
// already validated, to batch, one row group at a time.
func scan(path string, mem memory.Allocator, kind string, accept []*arrow.Schema, batch func(arrow.RecordBatch) error) error {
	var (
		pf  *file.Reader
		fr  *pqarrow.FileReader
		got *arrow.Schema
	)
	// Opened here rather than by file.OpenParquetFile so that the file is
	// closed even when the decoder panics on its footer.
	// Only a plain file: a fifo named like a shard must not block the
	// open, a link to /dev/zero must not be read.
	f, err := limitio.OpenRegular(path)
	if err != nil {
		return fmt.Errorf("export: read %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("export: read %w", err)
	}
	size := info.Size()
	err = decoding(func() (err error) {
		pf, err = file.NewParquetReader(f, file.WithReadProps(parquet.NewReaderProperties(mem)))
		if err != nil {
			return err
		}
		dropStoredSchema(pf)
		if err := checkLayout(pf.MetaData(), size); err != nil {
			return err
		}
		if fr, err = pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, mem); err != nil {
			return err
		}
		got, err = fr.Schema()
		return err
	})
	if err != nil {
		return fmt.Errorf("export: read %s: not a readable Parquet file: %w", path, err)
	}
	// Checking every type up front is what makes the typed column access
	// of the row decoders safe.
	msg := schemaMismatch(got, accept[0])
	for _, old := range accept[1:] {
		if msg != "" && schemaMismatch(got, old) == "" {
			msg = ""
		}
	}
	if msg != "" {
		return fmt.Errorf("export: read %s: not a synth %s file: %s", path, kind, msg)
	}

	// Unlike GetRecordReader, ReadRowGroups reads no column at all when
	// given nil, so list every leaf.
	leaves := make([]int, pf.MetaData().Schema.NumColumns())
	for i := range leaves {
		leaves[i] = i
	}
	var rows int64
	ctx := context.Background()
	for rg := range pf.NumRowGroups() {
		if pf.MetaData().RowGroup(rg).NumRows() == 0 {
			continue
		}
		// ReadRowGroups rather than the streaming record reader: it turns
		// the panics of damaged pages into errors itself, and memory stays
		// bounded by one row group, which the writer keeps small.
		var tbl arrow.Table
		err := decoding(func() (err error) {
			tbl, err = fr.ReadRowGroups(ctx, leaves, []int{rg})
			return err
		})
		if err != nil {
			return fmt.Errorf("export: read %s: row group %d: %w", path, rg, err)
		}
		n, err := feed(tbl, batch)
		tbl.Release()
		rows += n
		if ce := (callerError{}); errors.As(err, &ce) {
			return ce.err
		}
		if err != nil {
			return fmt.Errorf("export: read %s: row group %d: %w", path, rg, err)
		}
	}
	if rows != pf.NumRows() {
		return fmt.Errorf("export: read %s: footer says %d rows, data holds %d", path, pf.NumRows(), rows)
	}
	return nil
}

// callerError marks an error returned by the caller's callback, which scan
// passes through unwrapped rather than blaming the file.
type callerError struct{ err error }

func (e callerError) Error() string { return e.err.Error() }
func (e callerError) Unwrap() error { return e.err }

// feed hands tbl to batch in validated record batches and returns how many
// rows it handed over.
func feed(tbl arrow.Table, batch func(arrow.RecordBatch) error) (int64, error) {
	tr := array.NewTableReader(tbl, readBatchRows)
	defer tr.Release()
	var rows int64
	for {
		var rec arrow.RecordBatch
		err := decoding(func() error {
			if !tr.Next() {
				return tr.Err()
			}
			rec = tr.RecordBatch()
			// A damaged file can decode into arrays whose offsets point
			// outside their buffers; validating makes that an error
			// before the row decoders index into them.
			return array.ValidateRecordFull(rec)
		})
		if err != nil || rec == nil {
			return rows, err
		}
		rows += rec.NumRows()
		if err := batch(rec); err != nil {
			return rows, err
		}
	}
}

// decoding runs f, a call into arrow-go's Parquet decoder on file bytes,
// and turns a panic raised inside it into an error.
//
// arrow-go v18 panics rather than returning an error on some damaged files
// (an invalid logical type in the footer, a data page without its header;
// see apache/arrow#43605), and nothing short of re-implementing its Thrift
// decoding could check for every such case beforehand. Only library calls
// run under this guard: our own row decoding runs outside it on validated
// arrays, so a bug of ours still fails loudly.
func decoding(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("damaged file: the arrow-go decoder panicked: %v", p)
		}
	}()
	return f()
}

// checkLayout verifies that every column chunk the footer describes lies
// inside the file. arrow-go allocates a chunk's declared size before
// reading it, in goroutines of its own where a negative size crashes the
// process and a huge one exhausts memory.
func checkLayout(md *metadata.FileMetaData, size int64) error {
	ncols := md.Schema.NumColumns()
	for rg := range md.NumRowGroups() {
		rgm := md.RowGroup(rg)
		if rgm.NumRows() < 0 {
			return fmt.Errorf("row group %d: negative row count %d", rg, rgm.NumRows())
		}
		if rgm.NumColumns() != ncols {
			return fmt.Errorf("row group %d: %d column chunks for %d columns", rg, rgm.NumColumns(), ncols)
		}
		for c := range ncols {
			cc, err := rgm.ColumnChunk(c)
			if err != nil {
				return fmt.Errorf("row group %d column %d: %w", rg, c, err)
			}
			// The same start the reader computes: the dictionary page,
			// when there is one, comes first.
			start := cc.DataPageOffset()
			if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && start > cc.DictionaryPageOffset() {
				start = cc.DictionaryPageOffset()
			}
			n := cc.TotalCompressedSize()
			if start < 0 || n < 0 || start > size || n > size-start {
				return fmt.Errorf("row group %d column %d: chunk of %d bytes at offset %d lies outside the %d-byte file", rg, c, n, start, size)
			}
		}
	}
	return nil
}

// dropStoredSchema removes the serialized Arrow schema from the metadata of
// an opened file. arrow-go decodes it without bounds checks, so a damaged
// one can make it allocate terabytes, a fatal error no guard can catch.
// Types do not need it: pqarrow infers the same ones from the Parquet
// schema, and they are checked against ours.
func dropStoredSchema(pf *file.Reader) {
	md := pf.MetaData().FileMetaData
	kept := md.KeyValueMetadata[:0:0]
	for _, kv := range md.KeyValueMetadata {
		if kv.Key != "ARROW:schema" {
			kept = append(kept, kv)
		}
	}
	md.KeyValueMetadata = kept
}

// column returns column i of rec as type T.
func column[T any](rec arrow.RecordBatch, i int) (T, error) {
	if i >= int(rec.NumCols()) {
		var zero T
		return zero, fmt.Errorf("export: internal error: record has %d columns, want more than %d", rec.NumCols(), i)
	}
	return as[T](rec.Column(i), rec.ColumnName(i))
}

type sftColumns struct {
	id, blueprintID, domain, behavior, engine *array.String
	kind                                      *array.String // nil before format 3
	labels                                    *array.Binary // nil before format 4
	tools                                     *toolsColumn
	messages                                  *messagesColumn
	nWrites, nReads                           *array.Int32
	evidence                                  *int32List
}

func newSFTColumns(rec arrow.RecordBatch) (*sftColumns, error) {
	var (
		c   sftColumns
		err error
	)
	set := func(f func() error) {
		if err == nil {
			err = f()
		}
	}
	strCol := func(dst **array.String, i int) {
		set(func() (e error) { *dst, e = column[*array.String](rec, i); return })
	}
	strCol(&c.id, 0)
	strCol(&c.blueprintID, 1)
	strCol(&c.domain, 2)
	set(func() error {
		a, e := column[arrow.Array](rec, 3)
		if e == nil {
			c.messages, e = newMessagesColumn(a, "messages")
		}
		return e
	})
	set(func() (e error) { c.tools, e = newToolsColumn(rec, 4); return })
	set(func() (e error) { c.nWrites, e = column[*array.Int32](rec, 5); return })
	set(func() (e error) { c.nReads, e = column[*array.Int32](rec, 6); return })
	set(func() error {
		a, e := column[arrow.Array](rec, 7)
		if e == nil {
			c.evidence, e = newInt32List(a, "evidence")
		}
		return e
	})
	strCol(&c.behavior, 8)
	strCol(&c.engine, 9)
	if rec.NumCols() > 10 {
		strCol(&c.kind, 10)
	}
	if rec.NumCols() > 11 {
		set(func() (e error) { c.labels, e = column[*array.Binary](rec, 11); return })
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

func (c *sftColumns) row(i int) (SFTRow, error) {
	r := SFTRow{
		ID:          stringAt(c.id, i),
		BlueprintID: stringAt(c.blueprintID, i),
		Domain:      stringAt(c.domain, i),
		Tools:       c.tools.at(i),
		NWrites:     i32(c.nWrites, i),
		NReads:      i32(c.nReads, i),
		Evidence:    c.evidence.at(i),
		Behavior:    stringAt(c.behavior, i),
		Engine:      stringAt(c.engine, i),
	}
	if c.kind != nil {
		r.Kind = stringAt(c.kind, i)
	}
	// The writer's placeholder of a row without labels reads as none.
	if c.labels != nil && c.labels.IsValid(i) && !bytes.Equal(c.labels.Value(i), noLabels) {
		r.Labels = json.RawMessage(bytes.Clone(c.labels.Value(i)))
	}
	var err error
	r.Messages, err = c.messages.at(i)
	return r, err
}

type dpoColumns struct {
	id, blueprintID, domain, failure *array.String
	tools                            *toolsColumn
	prompt, chosen, rejected         *messagesColumn
	divergenceTurn                   *array.Int32
}

func newDPOColumns(rec arrow.RecordBatch) (*dpoColumns, error) {
	var (
		c   dpoColumns
		err error
	)
	set := func(f func() error) {
		if err == nil {
			err = f()
		}
	}
	strCol := func(dst **array.String, i int) {
		set(func() (e error) { *dst, e = column[*array.String](rec, i); return })
	}
	msgCol := func(dst **messagesColumn, i int, name string) {
		set(func() error {
			a, e := column[arrow.Array](rec, i)
			if e == nil {
				*dst, e = newMessagesColumn(a, name)
			}
			return e
		})
	}
	strCol(&c.id, 0)
	strCol(&c.blueprintID, 1)
	strCol(&c.domain, 2)
	msgCol(&c.prompt, 3, "prompt")
	msgCol(&c.chosen, 4, "chosen")
	msgCol(&c.rejected, 5, "rejected")
	set(func() (e error) { c.tools, e = newToolsColumn(rec, 6); return })
	strCol(&c.failure, 7)
	set(func() (e error) { c.divergenceTurn, e = column[*array.Int32](rec, 8); return })
	if err != nil {
		return nil, err
	}
	return &c, nil
}

func (c *dpoColumns) row(i int) (DPORow, error) {
	r := DPORow{
		ID:             stringAt(c.id, i),
		BlueprintID:    stringAt(c.blueprintID, i),
		Domain:         stringAt(c.domain, i),
		Tools:          c.tools.at(i),
		Failure:        stringAt(c.failure, i),
		DivergenceTurn: i32(c.divergenceTurn, i),
	}
	var err error
	if r.Prompt, err = c.prompt.at(i); err != nil {
		return r, err
	}
	if r.Chosen, err = c.chosen.at(i); err != nil {
		return r, err
	}
	r.Rejected, err = c.rejected.at(i)
	return r, err
}

// toolsColumn reads the tools column of either format: JSON text
// (version 1) or a list of tool objects (version 2), as the JSON text of
// the tools array.
type toolsColumn struct {
	text *array.String
	list *jsonListColumn
}

func newToolsColumn(rec arrow.RecordBatch, i int) (*toolsColumn, error) {
	a, err := column[arrow.Array](rec, i)
	if err != nil {
		return nil, err
	}
	if s, ok := a.(*array.String); ok {
		return &toolsColumn{text: s}, nil
	}
	l, err := newJSONListColumn(a, "tools")
	if err != nil {
		return nil, err
	}
	return &toolsColumn{list: l}, nil
}

func (c *toolsColumn) at(i int) string {
	if c.text != nil {
		return stringAt(c.text, i)
	}
	return joinTools(c.list.at(i))
}

// i32 reads an int32 that may be null, as 0.
func i32(a *array.Int32, i int) int32 {
	if a.IsNull(i) {
		return 0
	}
	return a.Value(i)
}

// int32List reads []int32 values from a list<int32> array.
type int32List struct {
	list   *array.List
	values *array.Int32
}

func newInt32List(a arrow.Array, name string) (*int32List, error) {
	list, err := as[*array.List](a, name)
	if err != nil {
		return nil, err
	}
	values, err := as[*array.Int32](list.ListValues(), name+".element")
	if err != nil {
		return nil, err
	}
	return &int32List{list: list, values: values}, nil
}

// at decodes row i; empty and null lists read as nil, and null elements
// as 0.
func (l *int32List) at(i int) []int32 {
	if l.list.IsNull(i) {
		return nil
	}
	start, end := l.list.ValueOffsets(i)
	if start == end {
		return nil
	}
	out := make([]int32, 0, end-start)
	for j := int(start); j < int(end); j++ {
		out = append(out, l.values.Value(j))
	}
	return out
}
