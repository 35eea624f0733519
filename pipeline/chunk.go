package pipeline

import (
	"bufio"
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
	"sort"
	"strconv"

	"github.com/synth-data/synth/dpo"
	"github.com/synth-data/synth/engine"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/release"
)

// A run is cut into chunks of consecutive blueprints. A chunk is the unit
// of durability, resume and sharding: it is written whole into a hidden
// temporary folder and renamed into the work dir when complete, so after
// any crash it is either finished or absent. Each chunk's files depend
// only on its blueprints, so a release assembled from chunks is the same
// whatever the workers, the interruptions or the machines.

const workDirName = ".synth-work"

// sigFileName holds a chunk's dedup signatures, one per verified row.
const sigFileName = "dedup.sig"

func chunkName(i int) string { return fmt.Sprintf("c-%06d", i) }

var chunkPattern = regexp.MustCompile(`^c-([0-9]{6})$`)

// doneChunks lists the committed chunks of a work dir by index.
func doneChunks(work string) (map[int]string, error) {
	dir := filepath.Join(work, "chunks")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return map[int]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	out := map[int]string{}
	for _, e := range entries {
		m := chunkPattern.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		i, _ := strconv.Atoi(m[1])
		out[i] = filepath.Join(dir, e.Name())
	}
	return out, nil
}

// cleanTemps removes the temporary folders of chunks a crash interrupted.
func cleanTemps(work string) error {
	dir := filepath.Join(work, "chunks")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if len(e.Name()) > 0 && e.Name()[0] == '.' {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// chunkWriter collects one chunk's items into its files.
type chunkWriter struct {
	tmp, final string
	cfg        Config
	sft, dpo   *export.Writer
	sinks      map[string]*jsonlSink
	sigs       *bufio.Writer
	sigFile    *os.File
	sigHash    hash.Hash
	sum        release.ChunkSummary
	stats      *release.Stats
}

func openChunk(work string, idx, first, end int, cfg Config, kindOf func(string) string) (*chunkWriter, error) {
	chunks := filepath.Join(work, "chunks")
	if err := os.MkdirAll(chunks, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(chunks, "."+chunkName(idx)+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("create chunk folder in %s: %w", chunks, err)
	}
	c := &chunkWriter{tmp: tmp, final: filepath.Join(chunks, chunkName(idx)), cfg: cfg, sinks: map[string]*jsonlSink{},
		stats: release.NewStats(kindOf),
		sum: release.ChunkSummary{Index: idx, First: first, End: end, Fingerprint: cfg.Fingerprint(),
			Counts: release.Counts{BySplit: map[string]int{}}, Checks: release.NewCheckStats(), Failures: map[string]int{}}}
	if c.sigFile, err = os.Create(filepath.Join(tmp, sigFileName)); err != nil {
		c.abort()
		return nil, err
	}
	c.sigHash = sha256.New()
	c.sigs = bufio.NewWriter(io.MultiWriter(c.sigFile, c.sigHash))
	// One file per split and kind: the chunk is the file unit.
	opts := export.Options{RowsPerFile: end - first + 1, MaxFileBytes: 1 << 40}
	if c.sft, err = export.NewWriter(tmp, "sft", export.SFTSchema(), opts); err != nil {
		c.abort()
		return nil, err
	}
	if cfg.DPO {
		c.sum.DPO = &engine.DPOStats{ByFailure: map[string]int{}, BySplit: map[string]int{}}
		if c.dpo, err = export.NewWriter(tmp, "dpo", export.DPOSchema(), opts); err != nil {
			c.abort()
			return nil, err
		}
	}
	return c, nil
}

// sink returns the JSON-lines file of a kind and split, created on first use.
func (c *chunkWriter) sink(kind, split string) (*jsonlSink, error) {
	name := kind + ".jsonl.gz"
	if split != "" {
		name = kind + "-" + split + ".jsonl.gz"
	}
	if s, ok := c.sinks[name]; ok {
		return s, nil
	}
	s, err := newJSONLSink(c.tmp, name)
	if err != nil {
		return nil, err
	}
	s.kind, s.split = kind, split
	c.sinks[name] = s
	return s, nil
}

func (c *chunkWriter) write(kind, split string, line []byte) error {
	s, err := c.sink(kind, split)
	if err != nil {
		return err
	}
	return s.write(line)
}

func (c *chunkWriter) add(it item) error {
	out := it.out
	cn := &c.sum.Counts
	cn.Blueprints++
	cn.Simulated++
	cn.HeldOut += it.bp.HeldOut
	release.AddVerdict(c.sum.Checks, out.Verdict)
	if err := c.write("blueprints", it.bp.Split, it.bpJSON); err != nil {
		return err
	}
	if out.Usage != nil {
		if c.sum.LLM == nil {
			c.sum.LLM = &engine.LLMStats{}
		}
		c.sum.LLM.Merge(out.Usage)
	}
	// Failed trials before the outcome: each a dialogue simulated and rejected.
	for _, a := range out.Attempts {
		cn.Simulated++
		cn.Rejected++
		release.AddVerdict(c.sum.Checks, a.Verdict)
		c.sum.Failures[a.Verdict.Failed().Name]++
		if err := c.write("rejected", "", a.Record); err != nil {
			return err
		}
	}
	if !out.Verdict.Passed {
		cn.Rejected++
		c.sum.Failures[out.Verdict.Failed().Name]++
		return c.write("rejected", "", it.rejJSON)
	}
	cn.Verified++
	cn.SFTRows++
	cn.BySplit[it.bp.Split]++
	c.stats.Add(it.bp, out.Trajectory, it.labels)
	if err := c.sft.WriteSFT(it.bp.Split, it.row); err != nil {
		return err
	}
	if err := writeSignature(c.sigs, it.sig); err != nil {
		return fmt.Errorf("chunk %d: write signatures: %w", c.sum.Index, err)
	}
	if c.dpo == nil {
		return nil
	}
	d := c.sum.DPO
	engine.AddCounts(d, &out.Pairs.Stats) // the attempt counts; pairs are counted as written
	for i, row := range out.Pairs.Rows {
		// A blueprint's pairs go to the split of its SFT row.
		r := export.DPORow(row)
		if err := c.dpo.WriteDPO(it.bp.Split, r); err != nil {
			return err
		}
		if export.AssistantOnly(&r) {
			d.AssistantOnly++
		}
		if err := c.write("dpo_failures", "", out.Pairs.Proofs[i]); err != nil {
			return err
		}
		d.Pairs++
		d.ByFailure[row.Failure]++
		d.BySplit[it.bp.Split]++
		if d.LengthRatio == nil {
			d.LengthRatio = map[string]int{}
		}
		d.LengthRatio[dpo.LengthBucket(r.Chosen, r.Rejected)]++
	}
	cn.DPOPairs = d.Pairs
	return nil
}

// chunkSink writes a run's items, in index order, into its chunks: a
// chunk is opened at its first item and committed after its last, so
// the writer of a run and of synth verify --keep is the same.
type chunkSink struct {
	work   string
	cfg    Config
	n      int // items in the run
	kindOf func(string) string
	cw     *chunkWriter
	// dirs are the chunks committed, in order.
	dirs []string
}

// put writes the item of index i.
func (s *chunkSink) put(i int, it item) error {
	size := s.cfg.ChunkSize
	c := i / size
	end := min((c+1)*size, s.n)
	if s.cw == nil {
		var err error
		if s.cw, err = openChunk(s.work, c, c*size, end, s.cfg, s.kindOf); err != nil {
			return err
		}
	}
	if err := s.cw.add(it); err != nil {
		return err
	}
	if i == end-1 {
		return s.commit()
	}
	return nil
}

// cut commits the open chunk as ending before index end (the run
// stopped there); with no chunk open there is nothing to do.
func (s *chunkSink) cut(end int) error {
	if s.cw == nil {
		return nil
	}
	s.cw.sum.End = end
	return s.commit()
}

func (s *chunkSink) commit() error {
	cw := s.cw
	s.cw = nil
	if err := cw.commit(); err != nil {
		return err
	}
	s.dirs = append(s.dirs, cw.final)
	return nil
}

// abort drops a chunk left open.
func (s *chunkSink) abort() {
	if s.cw != nil {
		s.cw.abort()
		s.cw = nil
	}
}

// commit closes every file, writes the summary and publishes the chunk.
func (c *chunkWriter) commit() error {
	var files []release.ChunkFile
	for kind, w := range map[string]*export.Writer{"sft": c.sft, "dpo": c.dpo} {
		if w == nil {
			continue
		}
		fs, err := w.Close()
		if err != nil {
			c.abort()
			return err
		}
		for _, f := range fs {
			files = append(files, release.ChunkFile{Kind: kind, Split: f.Split, Name: f.Path, Rows: f.Rows, SHA256: f.SHA256, Bytes: f.Bytes})
		}
	}
	c.sft, c.dpo = nil, nil
	for name, s := range c.sinks {
		e, err := s.commit()
		if err != nil {
			c.abort()
			return err
		}
		files = append(files, release.ChunkFile{Kind: s.kind, Split: s.split, Name: name, Rows: e.Rows, SHA256: e.SHA256, Bytes: e.Bytes})
	}
	c.sinks = nil
	if err := c.sigs.Flush(); err != nil {
		c.abort()
		return err
	}
	if err := c.sigFile.Sync(); err != nil {
		c.abort()
		return err
	}
	if err := c.sigFile.Close(); err != nil {
		c.abort()
		return err
	}
	c.sigFile = nil
	c.sum.SignaturesSHA256 = hex.EncodeToString(c.sigHash.Sum(nil))
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	c.sum.Files = files
	c.sum.Stats = c.stats
	c.sum.FirstSketch, c.sum.UsersSketch = c.stats.FirstSketch, c.stats.UsersSketch
	c.sum.Sequences, c.sum.Ngrams = c.stats.ToolSequences, c.stats.Ngrams
	c.sum.FirstSet, c.sum.UsersSet = setList(c.stats.FirstSet), setList(c.stats.UsersSet)
	c.sum.Overflow = c.stats.FirstSet == nil || c.stats.UsersSet == nil
	raw, err := json.Marshal(c.sum)
	if err != nil {
		c.abort()
		return err
	}
	if err := export.WriteFileAtomic(filepath.Join(c.tmp, "summary.json"), raw); err != nil {
		c.abort()
		return err
	}
	if err := os.Rename(c.tmp, c.final); err != nil {
		c.abort()
		return fmt.Errorf("publish chunk %s: %w", c.final, err)
	}
	return syncDir(filepath.Dir(c.final))
}

func (c *chunkWriter) abort() {
	if c.sft != nil {
		c.sft.Abort()
	}
	if c.dpo != nil {
		c.dpo.Abort()
	}
	for _, s := range c.sinks {
		s.abort()
	}
	if c.sigFile != nil {
		c.sigFile.Close()
	}
	os.RemoveAll(c.tmp)
}

// setList lists a set's hashes in order, so summaries are deterministic.
func setList(set map[uint64]bool) []uint64 {
	return slices.Sorted(maps.Keys(set))
}

func setOf(list []uint64, overflow bool) map[uint64]bool {
	if overflow {
		return nil
	}
	set := make(map[uint64]bool, len(list))
	for _, h := range list {
		set[h] = true
	}
	return set
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
