package export

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/synth-data/synth/record"
)

// Defaults for Options.
const (
	DefaultRowsPerGroup = 2048
	DefaultRowsPerFile  = 100_000
	// DefaultMaxGroupBytes keeps row groups well under the 100 MB
	// (uncompressed) the Hugging Face viewer is comfortable with, whatever
	// the length of the dialogues.
	DefaultMaxGroupBytes = 64 << 20
	// DefaultMaxFileBytes keeps shards under the Hub's 500 MB advice.
	DefaultMaxFileBytes = 256 << 20
)

// Options tunes a Writer. The zero value gives the defaults.
type Options struct {
	// RowsPerGroup is the number of rows buffered per split and written as
	// one row group.
	RowsPerGroup int
	// MaxGroupBytes ends a row group early once its buffered strings
	// reach this many bytes.
	MaxGroupBytes int64
	// RowsPerFile is the number of rows after which a split rolls to a new
	// file.
	RowsPerFile int
	// MaxFileBytes rolls to a new file early once a file reaches this many
	// bytes (checked after each row group).
	MaxFileBytes int64
	// Compression is the Parquet codec. Its zero value
	// (compress.Codecs.Uncompressed) means zstd: a release is always
	// compressed.
	Compression compress.Compression
	// Replace lets the writer publish into a config directory that already
	// holds shards: on Close, shards it did not write this time are removed
	// so that loaders globbing the directory see only the new dataset.
	// Without it NewWriter refuses such a directory.
	Replace bool
	// Allocator is the Arrow allocator; nil means a pool of the writer's
	// own, which reuses the buffers of one row group for the next.
	Allocator memory.Allocator
}

func (o Options) withDefaults() Options {
	if o.RowsPerGroup <= 0 {
		o.RowsPerGroup = DefaultRowsPerGroup
	}
	if o.MaxGroupBytes <= 0 {
		o.MaxGroupBytes = DefaultMaxGroupBytes
	}
	if o.RowsPerFile <= 0 {
		o.RowsPerFile = DefaultRowsPerFile
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.Compression == compress.Codecs.Uncompressed {
		o.Compression = compress.Codecs.Zstd
	}
	if o.Allocator == nil {
		o.Allocator = newPoolAllocator()
	}
	return o
}

// File describes one published Parquet file, as the manifest lists it.
type File struct {
	// Path is relative to the writer's directory and slash-separated, e.g.
	// "sft/train-00000-of-00002.parquet".
	Path   string
	Split  string
	Rows   int64
	SHA256 string // hex
	Bytes  int64
}

// Split and config names become file and directory names and Hugging Face
// split names, which must match \w+; a '-' would also make the shard name
// ambiguous.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// shardPattern matches published shard names.
var shardPattern = regexp.MustCompile(`^[A-Za-z0-9_]+-[0-9]{5}-of-[0-9]{5}\.parquet$`)

type rowKind int

const (
	kindSFT rowKind = iota + 1
	kindDPO
)

func (k rowKind) String() string {
	if k == kindSFT {
		return "sft"
	}
	return "dpo"
}

// Writer streams rows into Parquet files under dir/config/, one set of
// files per split, named {split}-{i:05d}-of-{n:05d}.parquet. Files are
// written under hidden temporary names and only get their final names in
// Close, once n is known, so an interrupted export leaves no shard that a
// loader would pick up.
//
// Output is a pure function of the rows written per split (and Options):
// writing the same rows twice gives byte-identical files. Memory is bounded
// by one buffered row group per split.
//
// A Writer is not safe for concurrent use.
type Writer struct {
	config, cfgDir string
	schema         *arrow.Schema
	kind           rowKind
	opts           Options
	props          *parquet.WriterProperties
	arrowProps     pqarrow.ArrowWriterProperties
	splits         map[string]*split
	// err is sticky: once a write fails, the dataset is incomplete and
	// nothing of it may be published.
	err  error
	done bool
}

// split is the state of one split: the row group being buffered, the file
// being written and the files already finished.
type split struct {
	name         string
	rb           *array.RecordBuilder
	sft          *sftBuilder
	dpo          *dpoBuilder
	pending      int   // rows in rb
	pendingBytes int64 // rough size of the strings in rb
	cur          *shard
	done         []*shard
}

// shard is one Parquet file of a split, hashed and counted as it is
// written: the writer only ever appends, so hashing the stream gives
// exactly the file's sha256 without reading it back.
type shard struct {
	af    *AtomicFile
	fw    *pqarrow.FileWriter
	h     hash.Hash
	bytes int64
	rows  int64
	sum   string
}

// Write implements io.Writer for the Parquet writer. shard deliberately
// has no Close method: pqarrow closes sinks that have one, and the file
// must stay open to be synced.
func (s *shard) Write(p []byte) (int, error) {
	n, err := s.af.Write(p)
	s.h.Write(p[:n])
	s.bytes += int64(n)
	return n, err
}

// NewWriter returns a Writer for rows of schema (SFTSchema or DPOSchema)
// under dir/config/, creating the directory.
func NewWriter(dir, config string, schema *arrow.Schema, opts Options) (*Writer, error) {
	if !namePattern.MatchString(config) {
		return nil, fmt.Errorf("export: config name %q: use letters, digits and _ only", config)
	}
	var kind rowKind
	switch {
	case schema == nil:
		return nil, errors.New("export: NewWriter: nil schema; pass SFTSchema() or DPOSchema()")
	// The canonical schema replaces the caller's equal one, so that no
	// metadata of theirs ends up in some files and not others.
	case schemaMismatch(schema, SFTSchema()) == "":
		kind, schema = kindSFT, SFTSchema()
	case schemaMismatch(schema, DPOSchema()) == "":
		kind, schema = kindDPO, DPOSchema()
	default:
		return nil, fmt.Errorf("export: NewWriter: schema is neither SFTSchema() nor DPOSchema(): %s", schemaMismatch(schema, SFTSchema()))
	}
	opts = opts.withDefaults()
	cfgDir := filepath.Join(dir, config)
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		return nil, fmt.Errorf("export: create %s: %w", cfgDir, err)
	}
	if !opts.Replace {
		existing, err := shardsIn(cfgDir)
		if err != nil {
			return nil, err
		}
		if len(existing) > 0 {
			return nil, fmt.Errorf("export: %s already holds %s: remove the old release or set Options.Replace",
				cfgDir, existing[0])
		}
	}
	mem := opts.Allocator
	props := parquet.NewWriterProperties(append(noDictionary(schema),
		parquet.WithAllocator(mem),
		parquet.WithCompression(opts.Compression),
		// Dictionaries pay off for the repeated columns (domain, tools,
		// role, behavior, tool names). On ids and free text they only
		// cost: the writer hashes every value before falling back.
		parquet.WithDictionaryDefault(true),
		// A dictionary that outgrows its page limit falls back to plain
		// pages, and arrow-go then lists the chunk's two data-page
		// encodings in Go map order: the same rows gave different bytes
		// about one run in eight. The columns that keep a dictionary hold
		// few distinct values (a spec's tool definitions, a few names), so
		// the limit is set where no release reaches it.
		parquet.WithDictionaryPageSizeLimit(dictionaryLimit),
		// The Hub viewer and DuckDB use the page index to skip pages.
		parquet.WithPageIndexEnabled(true),
		// Our row groups are sized by RowsPerGroup; this only guards
		// against the library splitting them differently.
		parquet.WithMaxRowGroupLength(int64(opts.RowsPerGroup)),
	)...)
	return &Writer{
		config: config,
		cfgDir: cfgDir,
		schema: schema,
		kind:   kind,
		opts:   opts,
		props:  props,
		// Storing the Arrow schema lets pyarrow and datasets restore the
		// exact types (string, not large_string) instead of guessing.
		arrowProps: pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema(), pqarrow.WithAllocator(mem)),
		splits:     map[string]*split{},
	}, nil
}

// dictionaryLimit is the dictionary page size no column of a release
// reaches (see NewWriter).
const dictionaryLimit = 1 << 30

// noDictionary turns dictionary encoding off for the columns of schema
// whose values are (nearly) unique: ids and free text.
func noDictionary(schema *arrow.Schema) []parquet.WriterProperty {
	var props []parquet.WriterProperty
	off := func(path string) { props = append(props, parquet.WithDictionaryFor(path, false)) }
	off("id")
	off("blueprint_id")
	off("labels")
	// Messages are nearly all distinct; the tools column, the same
	// definitions row after row, keeps its dictionary. Parquet paths of
	// list elements go through list.element.
	for _, f := range schema.Fields() {
		switch f.Name {
		case "messages", "prompt", "chosen", "rejected":
			off(f.Name + ".list.element")
		}
	}
	return props
}

// shardsIn lists the published shard names in dir.
func shardsIn(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("export: list %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".parquet") && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// WriteSFT adds r to split. The writer must have been made with SFTSchema.
func (w *Writer) WriteSFT(splitName string, r SFTRow) error {
	s, err := w.split(splitName, kindSFT)
	if err != nil {
		return err
	}
	if err := checkSFT(&r); err != nil {
		return err
	}
	if err := s.sft.tools.use(r.Tools); err != nil {
		return fmt.Errorf("export: sft row %q: %w", r.ID, err)
	}
	return w.added(s, s.sft.append(&r))
}

// WriteDPO adds r to split. The writer must have been made with DPOSchema.
func (w *Writer) WriteDPO(splitName string, r DPORow) error {
	s, err := w.split(splitName, kindDPO)
	if err != nil {
		return err
	}
	if err := checkDPO(&r); err != nil {
		return err
	}
	if err := s.dpo.tools.use(r.Tools); err != nil {
		return fmt.Errorf("export: dpo row %q: %w", r.ID, err)
	}
	return w.added(s, s.dpo.append(&r))
}

// split returns the state of the named split, creating it on first use.
func (w *Writer) split(name string, kind rowKind) (*split, error) {
	switch {
	case w.done:
		return nil, fmt.Errorf("export: write %s: writer already closed", w.cfgDir)
	case w.err != nil:
		return nil, w.err
	case kind != w.kind:
		return nil, fmt.Errorf("export: write %s: %s row on a writer made with the %s schema", w.cfgDir, kind, w.kind)
	}
	if s, ok := w.splits[name]; ok {
		return s, nil
	}
	if !namePattern.MatchString(name) {
		return nil, fmt.Errorf("export: write %s: split name %q: use letters, digits and _ only", w.cfgDir, name)
	}
	s := &split{name: name, rb: array.NewRecordBuilder(w.opts.Allocator, w.schema)}
	var err error
	if w.kind == kindSFT {
		s.sft, err = newSFTBuilder(s.rb)
	} else {
		s.dpo, err = newDPOBuilder(s.rb)
	}
	if err != nil {
		s.rb.Release()
		return nil, err
	}
	w.splits[name] = s
	return s, nil
}

// added accounts for a row just appended to s and writes a row group when
// one is full. Groups also end where a file must end, so every file holds
// exactly RowsPerFile rows but the last.
func (w *Writer) added(s *split, bytes int64) error {
	s.pending++
	s.pendingBytes += bytes
	limit := w.opts.RowsPerGroup
	if s.cur != nil {
		limit = min(limit, w.opts.RowsPerFile-int(s.cur.rows))
	} else {
		limit = min(limit, w.opts.RowsPerFile)
	}
	if s.pending < limit && s.pendingBytes < w.opts.MaxGroupBytes {
		return nil
	}
	if err := w.flush(s); err != nil {
		w.err = err
		return err
	}
	return nil
}

// flush writes the buffered rows of s as one row group, rolling to a new
// file when the current one is full.
func (w *Writer) flush(s *split) error {
	if s.pending == 0 {
		return nil
	}
	if s.cur == nil {
		if err := w.openShard(s); err != nil {
			return err
		}
	}
	if s.sft != nil {
		s.sft.tools.appendPending()
	} else {
		s.dpo.tools.appendPending()
	}
	rec := s.rb.NewRecordBatch()
	defer rec.Release()
	if err := s.cur.fw.Write(rec); err != nil {
		return fmt.Errorf("export: write %s: %w", s.cur.af.Name(), err)
	}
	s.cur.rows += int64(s.pending)
	s.pending, s.pendingBytes = 0, 0
	if s.cur.rows >= int64(w.opts.RowsPerFile) || s.cur.bytes >= w.opts.MaxFileBytes {
		return w.closeShard(s)
	}
	return nil
}

func (w *Writer) openShard(s *split) error {
	// The final name needs the file count, known only at Close; the
	// temporary name carries the index so a leftover is recognisable.
	af, err := CreateAtomic(filepath.Join(w.cfgDir, fmt.Sprintf("%s-%05d.parquet", s.name, len(s.done))))
	if err != nil {
		return err
	}
	sh := &shard{af: af, h: sha256.New()}
	fw, err := pqarrow.NewFileWriter(w.schema, sh, w.props, w.arrowProps)
	if err != nil {
		af.Abort()
		return fmt.Errorf("export: write %s: %w", af.Name(), err)
	}
	sh.fw = fw
	s.cur = sh
	return nil
}

// closeShard writes the footer of the current file of s and makes it
// durable under its temporary name.
func (w *Writer) closeShard(s *split) error {
	sh := s.cur
	s.cur = nil
	if err := sh.fw.Close(); err != nil {
		sh.af.Abort()
		return fmt.Errorf("export: write %s: %w", sh.af.Name(), err)
	}
	if err := sh.af.finish(); err != nil {
		return err
	}
	sh.sum = hex.EncodeToString(sh.h.Sum(nil))
	s.done = append(s.done, sh)
	return nil
}

// Close writes what is buffered, publishes every file under its final name
// and returns them sorted by path. Splits that got no rows have no file.
// On error nothing new is published, except when renaming itself fails
// midway, in which case some files may already carry their final names.
func (w *Writer) Close() ([]File, error) {
	if w.done {
		return nil, fmt.Errorf("export: close %s: writer already closed", w.cfgDir)
	}
	if w.err != nil {
		err := w.err
		w.Abort()
		return nil, err
	}
	names := slices.Sorted(maps.Keys(w.splits))
	for _, name := range names {
		s := w.splits[name]
		if err := w.flush(s); err != nil {
			w.Abort()
			return nil, err
		}
		if s.cur != nil {
			if err := w.closeShard(s); err != nil {
				w.Abort()
				return nil, err
			}
		}
	}

	var files []File
	keep := map[string]bool{}
	for _, name := range names {
		s := w.splits[name]
		for i, sh := range s.done {
			base := fmt.Sprintf("%s-%05d-of-%05d.parquet", s.name, i, len(s.done))
			if err := sh.af.publish(filepath.Join(w.cfgDir, base)); err != nil {
				w.Abort()
				return nil, err
			}
			keep[base] = true
			files = append(files, File{
				Path:   w.config + "/" + base,
				Split:  s.name,
				Rows:   sh.rows,
				SHA256: sh.sum,
				Bytes:  sh.bytes,
			})
		}
	}
	w.Abort() // releases the builders; every file is published by now
	if w.opts.Replace {
		if err := removeStale(w.cfgDir, keep); err != nil {
			return nil, err
		}
	}
	if err := syncDir(w.cfgDir); err != nil {
		return nil, err
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return files, nil
}

// removeStale deletes shards of an earlier release that this one did not
// overwrite, and temporaries left by an interrupted export.
func removeStale(dir string, keep map[string]bool) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("export: list %s: %w", dir, err)
	}
	for _, e := range entries {
		name := e.Name()
		stale := shardPattern.MatchString(name) && !keep[name]
		leftover := strings.HasPrefix(name, ".") && strings.Contains(name, ".parquet.tmp-")
		if e.IsDir() || !(stale || leftover) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("export: remove stale %s: %w", filepath.Join(dir, name), err)
		}
	}
	return nil
}

// Abort discards everything not yet published and releases memory. It is
// safe to call at any time and more than once, so it can be deferred.
func (w *Writer) Abort() {
	w.done = true
	for _, s := range w.splits {
		if s.cur != nil {
			// Closing releases the writer's buffers; the bytes go to a
			// temporary file that is removed right after.
			_ = s.cur.fw.Close()
			s.cur.af.Abort()
			s.cur = nil
		}
		for _, sh := range s.done {
			sh.af.Abort()
		}
		s.done = nil
		if s.rb != nil {
			s.rb.Release()
			s.rb = nil
		}
	}
	if p, ok := w.opts.Allocator.(*poolAllocator); ok {
		p.release()
	}
}

// sftBuilder holds typed handles on the column builders of an SFT record.
type sftBuilder struct {
	id, blueprintID, domain *array.StringBuilder
	messages                *jsonListBuilder
	tools                   *toolsBuilder
	nWrites, nReads         *array.Int32Builder
	evidence                *array.ListBuilder
	evidenceValues          *array.Int32Builder
	behavior, engine, kind  *array.StringBuilder
	labels                  *array.StringBuilder
}

func newSFTBuilder(rb *array.RecordBuilder) (*sftBuilder, error) {
	var b sftBuilder
	c := &columns{rb: rb}
	c.str(&b.id, 0)
	c.str(&b.blueprintID, 1)
	c.str(&b.domain, 2)
	c.set(func() (e error) { b.messages, e = newJSONListBuilder(c.field(3), "messages"); return })
	c.set(func() (e error) { b.tools, e = newToolsBuilder(c.field(4)); return })
	c.set(func() (e error) { b.nWrites, e = as[*array.Int32Builder](c.field(5), "n_writes"); return })
	c.set(func() (e error) { b.nReads, e = as[*array.Int32Builder](c.field(6), "n_reads"); return })
	c.set(func() (e error) { b.evidence, e = as[*array.ListBuilder](c.field(7), "evidence"); return })
	c.set(func() (e error) {
		b.evidenceValues, e = as[*array.Int32Builder](b.evidence.ValueBuilder(), "evidence.element")
		return
	})
	c.str(&b.behavior, 8)
	c.str(&b.engine, 9)
	c.str(&b.kind, 10)
	c.set(func() error {
		ext, e := as[*array.ExtensionBuilder](c.field(11), "labels")
		if e == nil {
			b.labels, e = as[*array.StringBuilder](ext.StorageBuilder(), "labels storage")
		}
		return e
	})
	if c.err != nil {
		return nil, c.err
	}
	return &b, nil
}

// noLabels is the labels value of a row without any: a Json() column
// holds no null, which datasets before 5.0 cannot decode.
var noLabels = []byte("{}")

func (b *sftBuilder) append(r *SFTRow) int64 {
	b.id.Append(r.ID)
	b.blueprintID.Append(r.BlueprintID)
	b.domain.Append(r.Domain)
	n := b.messages.appendMessages(r.Messages)
	n += b.tools.add()
	b.nWrites.Append(r.NWrites)
	b.nReads.Append(r.NReads)
	// No evidence (a read-only task) is an empty list, not null.
	b.evidence.Append(true)
	b.evidenceValues.AppendValues(r.Evidence, nil)
	b.behavior.Append(r.Behavior)
	b.engine.Append(r.Engine)
	b.kind.Append(r.Kind)
	labels := []byte(r.Labels)
	if len(labels) == 0 {
		labels = noLabels
	}
	b.labels.BinaryBuilder.Append(labels)
	return n + int64(len(r.ID)+len(r.BlueprintID)+len(r.Domain)+len(r.Tools)+len(r.Behavior)+len(r.Engine)+len(r.Kind)+len(labels)+4*len(r.Evidence)) + 64
}

// columns hands out a record builder's column builders by index as the
// types a row builder holds, keeping the first error.
type columns struct {
	rb  *array.RecordBuilder
	err error
}

func (c *columns) field(i int) array.Builder {
	if i < len(c.rb.Fields()) {
		return c.rb.Field(i)
	}
	return nil
}

func (c *columns) set(f func() error) {
	if c.err == nil {
		c.err = f()
	}
}

// str takes column i as a string column, named by its schema field.
func (c *columns) str(dst **array.StringBuilder, i int) {
	c.set(func() (e error) { *dst, e = as[*array.StringBuilder](c.field(i), c.rb.Schema().Field(i).Name); return })
}

// dpoBuilder holds typed handles on the column builders of a DPO record.
type dpoBuilder struct {
	id, blueprintID, domain  *array.StringBuilder
	prompt, chosen, rejected *jsonListBuilder
	tools                    *toolsBuilder
	failure                  *array.StringBuilder
	divergenceTurn           *array.Int32Builder
}

func newDPOBuilder(rb *array.RecordBuilder) (*dpoBuilder, error) {
	var b dpoBuilder
	c := &columns{rb: rb}
	c.str(&b.id, 0)
	c.str(&b.blueprintID, 1)
	c.str(&b.domain, 2)
	c.set(func() (e error) { b.prompt, e = newJSONListBuilder(c.field(3), "prompt"); return })
	c.set(func() (e error) { b.chosen, e = newJSONListBuilder(c.field(4), "chosen"); return })
	c.set(func() (e error) { b.rejected, e = newJSONListBuilder(c.field(5), "rejected"); return })
	c.set(func() (e error) { b.tools, e = newToolsBuilder(c.field(6)); return })
	c.str(&b.failure, 7)
	c.set(func() (e error) { b.divergenceTurn, e = as[*array.Int32Builder](c.field(8), "divergence_turn"); return })
	if c.err != nil {
		return nil, c.err
	}
	return &b, nil
}

func (b *dpoBuilder) append(r *DPORow) int64 {
	b.id.Append(r.ID)
	b.blueprintID.Append(r.BlueprintID)
	b.domain.Append(r.Domain)
	n := b.prompt.appendMessages(r.Prompt) + b.chosen.appendMessages(r.Chosen) + b.rejected.appendMessages(r.Rejected)
	n += b.tools.add()
	b.failure.Append(r.Failure)
	b.divergenceTurn.Append(r.DivergenceTurn)
	return n + int64(len(r.ID)+len(r.BlueprintID)+len(r.Domain)+len(r.Tools)+len(r.Failure)) + 48
}

// checkSFT rejects a row that would make an unloadable file.
func checkSFT(r *SFTRow) error {
	bad := firstInvalid(
		"id", r.ID, "blueprint_id", r.BlueprintID, "domain", r.Domain, "tools", r.Tools,
		"behavior", r.Behavior, "engine", r.Engine, "kind", r.Kind, "labels", string(r.Labels))
	if bad == "" {
		bad = invalidUTF8("messages", r.Messages)
	}
	if bad == "" && len(r.Labels) > 0 && !json.Valid(r.Labels) {
		return fmt.Errorf("export: sft row %q: labels are not a JSON value", r.ID)
	}
	if bad != "" {
		return fmt.Errorf("export: sft row %q: %s is not valid UTF-8", r.ID, bad)
	}
	return nil
}

// checkDPO rejects a row that would make an unloadable file.
func checkDPO(r *DPORow) error {
	bad := firstInvalid(
		"id", r.ID, "blueprint_id", r.BlueprintID, "domain", r.Domain, "tools", r.Tools,
		"failure", r.Failure)
	for _, c := range []struct {
		name string
		msgs []record.Message
	}{{"prompt", r.Prompt}, {"chosen", r.Chosen}, {"rejected", r.Rejected}} {
		if bad == "" {
			bad = invalidUTF8(c.name, c.msgs)
		}
	}
	if bad != "" {
		return fmt.Errorf("export: dpo row %q: %s is not valid UTF-8", r.ID, bad)
	}
	return nil
}

// firstInvalid takes name, value pairs and returns the first name whose
// value is not valid UTF-8.
func firstInvalid(pairs ...string) string {
	for i := 0; i+1 < len(pairs); i += 2 {
		if !utf8.ValidString(pairs[i+1]) {
			return pairs[i]
		}
	}
	return ""
}

// toolsBuilder writes the tools column. Every row of a release carries
// the same tools text, so the last split is remembered rather than
// parsed again for each row, and the rows that repeat it are only counted
// until the group is written: appended as they came, the same ~12 KB of
// definitions per retail row were a third of every buffered row group, and
// a chunk's validation and test groups fill only as the chunk ends.
type toolsBuilder struct {
	list      *jsonListBuilder
	lastText  string
	last      []json.RawMessage
	lastBytes int64
	// pending rows carry last and are not in list yet.
	pending int
}

func newToolsBuilder(b array.Builder) (*toolsBuilder, error) {
	list, err := newJSONListBuilder(b, "tools")
	if err != nil {
		return nil, err
	}
	return &toolsBuilder{list: list}, nil
}

// use makes text the tools of the rows added next.
func (t *toolsBuilder) use(text string) error {
	if t.last != nil && text == t.lastText {
		return nil
	}
	elems, err := splitTools(text)
	if err != nil {
		return err
	}
	t.appendPending()
	t.lastText, t.last = text, elems
	t.lastBytes = 4
	for _, e := range elems {
		t.lastBytes += int64(len(e)) + 4
	}
	return nil
}

// add takes one row whose tools are the text last used and returns the bytes
// it stands for, as appendValues counts them.
func (t *toolsBuilder) add() int64 {
	t.pending++
	return t.lastBytes
}

// appendPending puts the counted rows into the column, before the group
// is built or the tools change.
func (t *toolsBuilder) appendPending() {
	for ; t.pending > 0; t.pending-- {
		t.list.appendValues(t.last)
	}
}

var _ io.Writer = (*shard)(nil)
