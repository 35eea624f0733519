package pipeline

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/credit"
	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/engine"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/release"
)

// Why a dialogue that passed synth verify is not kept.
const (
	NotKeptHeldOut = "held_out"       // its writes equal a held-out task's: a benchmark's test task
	NotKeptRelease = "release_checks" // it fails a check of synth's own rows
)

// Keeper writes the dialogues that passed synth verify as a release, which
// synth validate re-verifies like any other: a filter for outside data.
// Dialogues are spooled to the work dir as they come (memory stays flat)
// and written into chunks and finalized by Close, once their number is
// known. A keep is not resumed: verifying again is cheap, so an
// interrupted one leaves only its work dir, which the next keep replaces.
type Keeper struct {
	cfg     Config
	d       *domain.Domain
	work    string
	release func()
	spool   *os.File
	zw      *gzip.Writer
	bw      *bufio.Writer
	n       int
	ids     map[string]int
	sources []release.Source
	byFile  map[string]int
	notKept map[string]int
	created bool // out did not exist before: an empty keep removes it
}

type keptRecord struct {
	Blueprint  *record.Blueprint  `json:"blueprint"`
	Trajectory *record.Trajectory `json:"trajectory"`
	Verdict    record.Verdict     `json:"verdict"`
}

// NewKeeper claims out for a kept release of dialogues on d, which was
// loaded from domain (a built-in name or a pack folder) with seed. out is
// new or empty, or holds a release or work dir synth wrote, which --force
// (or, for a keep's own leftovers, nothing) lets it replace.
func NewKeeper(d *domain.Domain, domain string, seed uint64, out string, force bool) (*Keeper, error) {
	cfg := Defaults()
	cfg.Domain, cfg.Seed, cfg.Out, cfg.Force, cfg.Engine, cfg.Tools = domain, seed, out, force, release.EngineOutside, engine.ToolsAll
	cfg.Validation, cfg.Test, cfg.Writes, cfg.Reads, cfg.Behaviors = 0, 0, "", "", nil
	cfg.bindDomain(d)
	_, statErr := os.Stat(out)
	unlock, err := claimOut("--keep", out, force)
	if err != nil {
		return nil, err
	}
	k := &Keeper{cfg: cfg, d: d, release: unlock, created: errors.Is(statErr, os.ErrNotExist), work: filepath.Join(out, workDirName), ids: map[string]int{}, byFile: map[string]int{}, notKept: map[string]int{}}
	if err := k.prepare(); err != nil {
		unlock()
		return nil, err
	}
	return k, nil
}

// prepare clears what out held (synth's own files only) and opens the
// spool in a fresh work dir.
func (k *Keeper) prepare() error {
	o, err := readOwned(k.cfg.Out)
	if err != nil {
		return err
	}
	if o.manifest || o.work {
		ownLeftover := !o.manifest && k.leftoverOfKeep()
		if !k.cfg.Force && !ownLeftover {
			return fmt.Errorf("--keep %s holds a synth release or run; choose another folder, or pass --force to replace it", k.cfg.Out)
		}
		if err := o.clear("--keep"); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(k.work, 0o755); err != nil {
		return fmt.Errorf("--keep %s cannot be created: %w", k.cfg.Out, err)
	}
	raw, _ := json.MarshalIndent(runFile{Fingerprint: k.cfg.Fingerprint(), Version: Version, Config: k.cfg.outputConfig(), Full: k.cfg}, "", "  ")
	if err := export.WriteFileAtomic(filepath.Join(k.work, "run.json"), raw); err != nil {
		return fmt.Errorf("--keep %s is not writable: %w", k.cfg.Out, err)
	}
	if k.spool, err = os.Create(filepath.Join(k.work, "kept.jsonl.gz")); err != nil {
		return fmt.Errorf("--keep %s: %w", k.cfg.Out, err)
	}
	k.zw = gzip.NewWriter(k.spool)
	k.bw = bufio.NewWriterSize(k.zw, 1<<16)
	return nil
}

// leftoverOfKeep reports whether the work dir is an interrupted keep's,
// which holds nothing worth keeping.
func (k *Keeper) leftoverOfKeep() bool {
	raw, err := limitio.ReadRegular(filepath.Join(k.work, "run.json"), limitio.SmallFile)
	if err != nil {
		return false
	}
	var rf runFile
	return json.Unmarshal(raw, &rf) == nil && rf.Config["engine"] == release.EngineOutside
}

// Sources records the input files, in the order their dialogues come,
// with their sha256 ("" for one that cannot be read: the verification
// reports it unreadable, and it gives no dialogue).
func (k *Keeper) Sources(files []string) {
	for _, path := range files {
		if _, dup := k.byFile[path]; dup {
			continue // named twice: its dialogues count once, under its first entry
		}
		sum, _ := fileSHA(path)
		k.sources = append(k.sources, release.Source{File: filepath.Base(path), SHA256: sum})
		k.byFile[path] = len(k.sources) - 1
	}
}

// Add offers one dialogue of file, in input order: passed is synth
// verify's verdict, r the dialogue in a release's form with the verdict
// of synth's own checks (nil when it did not pass). A passing dialogue
// is kept unless its writes equal a held-out task's or it fails a check
// synth's own rows must pass; Add says why it was not kept ("" when it
// was kept or did not pass).
func (k *Keeper) Add(file string, passed bool, bp *record.Blueprint, tr *record.Trajectory, v record.Verdict) (string, error) {
	i, ok := k.byFile[file]
	if !ok {
		return "", fmt.Errorf("keeper: %s is not one of the sources", file)
	}
	src := &k.sources[i]
	src.Dialogues++
	if !passed {
		return "", nil
	}
	src.Passed++
	if id, held := k.holdout().Match(blueprints.WriteCalls(bp)); held {
		k.notKept[NotKeptHeldOut]++
		return fmt.Sprintf("%s: its writes equal held-out task %s", NotKeptHeldOut, id), nil
	}
	if !v.Passed {
		f := v.Failed()
		k.notKept[NotKeptRelease]++
		return fmt.Sprintf("%s: %s: %s", NotKeptRelease, f.Name, f.Reason), nil
	}
	b, t := *bp, *tr
	b.ID = k.id(bp.ID)
	b.Index, t.ID, t.BlueprintID = k.n, b.ID, b.ID
	raw, err := json.Marshal(keptRecord{&b, &t, v})
	if err != nil {
		return "", err
	}
	if _, err := k.bw.Write(append(raw, '\n')); err != nil {
		return "", fmt.Errorf("--keep %s: spool: %w", k.cfg.Out, err)
	}
	k.n++
	src.Kept++
	return "", nil
}

func (k *Keeper) holdout() *pack.Holdout {
	if k.d.Model == nil {
		return nil
	}
	return k.d.Model.Holdout
}

// id returns a release id for a dialogue's own id: the id itself, with a
// suffix when an earlier dialogue had it.
func (k *Keeper) id(id string) string {
	k.ids[id]++
	if n := k.ids[id]; n > 1 {
		return id + "#" + strconv.Itoa(n)
	}
	return id
}

// Kept is how many dialogues are kept so far.
func (k *Keeper) Kept() int { return k.n }

// NotKept counts the passing dialogues left out, by reason.
func (k *Keeper) NotKept() map[string]int { return k.notKept }

// Close writes the kept dialogues as a release and returns its manifest;
// with none kept it writes nothing, removes what it made and returns nil.
func (k *Keeper) Close(ctx context.Context) (*release.Manifest, error) {
	defer k.release()
	if err := k.closeSpool(); err != nil {
		return nil, err
	}
	if k.n == 0 {
		os.RemoveAll(k.work)
		if k.created {
			os.Remove(k.cfg.Out) // removes only an empty folder
		}
		return nil, nil
	}
	k.cfg.N = k.n
	dirs, err := k.writeChunks(ctx)
	if err != nil {
		return nil, err
	}
	notes := []string{fmt.Sprintf("dialogues made outside synth and kept by synth verify --keep: %d of %d passed every check and were kept", k.n, k.passed())}
	for _, why := range []string{NotKeptHeldOut, NotKeptRelease} {
		if n := k.notKept[why]; n > 0 {
			notes = append(notes, fmt.Sprintf("%d passing dialogues were not kept (%s)", n, why))
		}
	}
	m, err := finalize(k.cfg, k.d, notes, dirs, k.cfg.Out, k.work, true, func(m *release.Manifest) {
		m.Sources = k.sources
		m.Counts.HeldOut = k.notKept[NotKeptHeldOut]
		if m.Holdout != nil {
			m.Holdout.Dropped = m.Counts.HeldOut
		}
	})
	if err != nil {
		return nil, err
	}
	if err := removeStale(k.cfg.Out, m); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(k.work); err != nil {
		return nil, fmt.Errorf("remove %s: %w", k.work, err)
	}
	return m, nil
}

func (k *Keeper) passed() int {
	n := 0
	for _, s := range k.sources {
		n += s.Passed
	}
	return n
}

// Abort leaves out without a release: the work dir is removed.
func (k *Keeper) Abort() {
	if k.spool != nil {
		k.spool.Close()
	}
	os.RemoveAll(k.work)
	k.release()
}

func (k *Keeper) closeSpool() error {
	if k.spool == nil {
		return nil
	}
	err := errors.Join(k.bw.Flush(), k.zw.Close(), k.spool.Close())
	k.spool = nil
	if err != nil {
		return fmt.Errorf("--keep %s: spool: %w", k.cfg.Out, err)
	}
	return nil
}

// writeChunks reads the spool back and writes the kept dialogues into
// chunks, as a run writes its blueprints.
func (k *Keeper) writeChunks(ctx context.Context) ([]string, error) {
	f, err := limitio.OpenRegular(filepath.Join(k.work, "kept.jsonl.gz"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("read the spool: %w", err)
	}
	br := bufio.NewReaderSize(zr, 1<<16)
	sink := &chunkSink{work: k.work, cfg: k.cfg, n: k.n, kindOf: k.d.Tools.Kind}
	defer sink.abort()
	for i := 0; i < k.n; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		line, err := limitio.ReadLine(br, limitio.Line)
		if err != nil && !(errors.Is(err, io.EOF) && len(line) > 0) {
			return nil, fmt.Errorf("read the spool, dialogue %d: %w", i, err)
		}
		var rec keptRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("read the spool, dialogue %d: %w", i, err)
		}
		it := item{index: i, bp: rec.Blueprint, out: &engine.Outcome{Trajectory: rec.Trajectory, Verdict: rec.Verdict}}
		if it.bpJSON, err = json.Marshal(it.bp); err != nil {
			return nil, err
		}
		it.labels = credit.LabelDomain(k.d, it.bp, rec.Trajectory, &rec.Verdict)
		if it.row, err = sftRow(it.bp, rec.Trajectory, it.labels, k.d.Tools.OpenAI()); err != nil {
			return nil, err
		}
		it.sig = signTrajectory(i, rec.Trajectory.ID, it.bp.Split, rec.Trajectory)
		if err := sink.put(i, it); err != nil {
			return nil, err
		}
	}
	return sink.dirs, nil
}
