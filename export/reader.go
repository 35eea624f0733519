package export

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// readBatchRows bounds the rows handed to the row decoder at once; a whole
// row group of the default size fits in one batch.
const readBatchRows = 4096

// ReadSFT reads every row of an sft Parquet file.
func ReadSFT(path string) ([]SFTRow, error) {
	return readSFT(path, memory.DefaultAllocator)
}

// ReadDPO reads every row of a dpo Parquet file.
func ReadDPO(path string) ([]DPORow, error) {
	return readDPO(path, memory.DefaultAllocator)
}

// ScanSFT calls fn for each row of an sft Parquet file, in order, decoding
// one row group at a time so memory stays bounded by the largest row group
// whatever the file size.
// It stops at, and returns, the first error fn returns.
func ScanSFT(path string, fn func(SFTRow) error) error {
	return scanSFT(path, memory.DefaultAllocator, fn)
}

// ScanDPO is ScanSFT for dpo files.
func ScanDPO(path string, fn func(DPORow) error) error {
	return scanDPO(path, memory.DefaultAllocator, fn)
}

func readSFT(path string, mem memory.Allocator) ([]SFTRow, error) {
	var rows []SFTRow
	err := scanSFT(path, mem, func(r SFTRow) error {
		rows = append(rows, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}

func readDPO(path string, mem memory.Allocator) ([]DPORow, error) {
	var rows []DPORow
	err := scanDPO(path, mem, func(r DPORow) error {
		rows = append(rows, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}

func scanSFT(path string, mem memory.Allocator, fn func(SFTRow) error) error {
	return scan(path, mem, "sft", SFTSchema(), func(rec arrow.RecordBatch) error {
		c, err := newSFTColumns(rec)
		if err != nil {
			return err
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			if err := fn(c.row(i)); err != nil {
				return err
			}
		}
		return nil
	})
}

func scanDPO(path string, mem memory.Allocator, fn func(DPORow) error) error {
	return scan(path, mem, "dpo", DPOSchema(), func(rec arrow.RecordBatch) error {
		c, err := newDPOColumns(rec)
		if err != nil {
			return err
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			if err := fn(c.row(i)); err != nil {
				return err
			}
		}
		return nil
	})
}

// callerError marks an error returned by the caller's callback, which scan
// passes through unwrapped rather than blaming the file.
type callerError struct{ err error }

func (e callerError) Error() string { return e.err.Error() }
func (e callerError) Unwrap() error { return e.err }

// scan opens path, checks its schema against want and hands each decoded
// batch, already validated, to batch.
func scan(path string, mem memory.Allocator, kind string, want *arrow.Schema, batch func(arrow.RecordBatch) error) error {
	pf, err := file.OpenParquetFile(path, false, file.WithReadProps(parquet.NewReaderProperties(mem)))
	if err != nil {
		return fmt.Errorf("export: read %s: not a readable Parquet file: %w", path, err)
	}
	defer pf.Close()
	dropStoredSchema(pf)
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, mem)
	if err != nil {
		return fmt.Errorf("export: read %s: %w", path, err)
	}
	got, err := fr.Schema()
	if err != nil {
		return fmt.Errorf("export: read %s: schema: %w", path, err)
	}
	// Checking every type up front is what makes the typed column access
	// below safe.
	if msg := schemaMismatch(got, want); msg != "" {
		return fmt.Errorf("export: read %s: not a synth %s file: %s", path, kind, msg)
	}

	var rows int64
	ctx := context.Background()
	for rg := 0; rg < pf.NumRowGroups(); rg++ {
		if pf.MetaData().RowGroup(rg).NumRows() == 0 {
			continue
		}
		n, err := scanRowGroup(ctx, fr, rg, func(rec arrow.RecordBatch) error {
			// A damaged file can decode into arrays whose offsets point
			// outside their buffers; validating first keeps that an error.
			if err := array.ValidateRecordFull(rec); err != nil {
				return err
			}
			if err := batch(rec); err != nil {
				return callerError{err}
			}
			return nil
		})
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

// dropStoredSchema removes the serialized Arrow schema from the metadata of
// an opened file. arrow-go decodes it without bounds checks, so a damaged
// one can make it allocate terabytes and kill the process, where every
// other defect gives an error. Types do not need it: pqarrow infers the
// same ones from the Parquet schema, and they are checked against ours.
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

// scanRowGroup decodes row group rg and feeds it to fn in batches,
// returning how many rows it read. It reads through ReadRowGroups, whose
// column decoding turns the panics arrow-go raises on some damaged pages
// into errors; its streaming record reader does not, and a damaged file
// must never take the caller's process down.
func scanRowGroup(ctx context.Context, fr *pqarrow.FileReader, rg int, fn func(arrow.RecordBatch) error) (int64, error) {
	tbl, err := fr.ReadRowGroups(ctx, nil, []int{rg})
	if err != nil {
		return 0, err
	}
	defer tbl.Release()
	tr := array.NewTableReader(tbl, readBatchRows)
	defer tr.Release()
	var rows int64
	for tr.Next() {
		rec := tr.RecordBatch()
		rows += rec.NumRows()
		if err := fn(rec); err != nil {
			return rows, err
		}
	}
	return rows, tr.Err()
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
	id, blueprintID, domain, tools, behavior, engine *array.String
	messages                                         *messagesColumn
	nWrites, nReads                                  *array.Int32
	evidence                                         *int32List
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
	strCol(&c.tools, 4)
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
	if err != nil {
		return nil, err
	}
	return &c, nil
}

func (c *sftColumns) row(i int) SFTRow {
	return SFTRow{
		ID:          str(c.id, i),
		BlueprintID: str(c.blueprintID, i),
		Domain:      str(c.domain, i),
		Messages:    c.messages.at(i),
		Tools:       str(c.tools, i),
		NWrites:     i32(c.nWrites, i),
		NReads:      i32(c.nReads, i),
		Evidence:    c.evidence.at(i),
		Behavior:    str(c.behavior, i),
		Engine:      str(c.engine, i),
	}
}

type dpoColumns struct {
	id, blueprintID, domain, tools, failure *array.String
	prompt, chosen, rejected                *messagesColumn
	divergenceTurn                          *array.Int32
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
	strCol(&c.tools, 6)
	strCol(&c.failure, 7)
	set(func() (e error) { c.divergenceTurn, e = column[*array.Int32](rec, 8); return })
	if err != nil {
		return nil, err
	}
	return &c, nil
}

func (c *dpoColumns) row(i int) DPORow {
	return DPORow{
		ID:             str(c.id, i),
		BlueprintID:    str(c.blueprintID, i),
		Domain:         str(c.domain, i),
		Prompt:         c.prompt.at(i),
		Chosen:         c.chosen.at(i),
		Rejected:       c.rejected.at(i),
		Tools:          str(c.tools, i),
		Failure:        str(c.failure, i),
		DivergenceTurn: i32(c.divergenceTurn, i),
	}
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
