package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/credit"
	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/engine"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/internal/pool"
	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/release"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/verify"
)

// Version is synth's version, recorded in every release.
const Version = "0.16.0"

// Result is the outcome of a run.
type Result struct {
	Dir      string
	Manifest *release.Manifest // nil for a shard run, which leaves chunks to merge
	Elapsed  time.Duration
	// Existing is true when the out dir already held this exact release.
	Existing bool
	// Resumed counts the chunks found finished from an earlier attempt.
	Resumed int
	// Chunks is the number of chunks this run (or shard) owns.
	Chunks int
	// Redone says which finished chunks of an earlier attempt were found
	// incomplete or damaged and were produced again, and why.
	Redone []string
	// Notes say how default controls were adapted to the domain.
	Notes []string
	// Stopped is "budget" when the LLM budget ran out: the release holds
	// the first Done blueprints.
	Stopped string
	Done    int
	// LLM is what this process sent and paid for (LLM engines only).
	LLM *engine.Billing
}

// item is one blueprint's journey through the stages.
type item struct {
	index int
	bp    *record.Blueprint
	// out is what the engine made of it: the dialogue kept, its
	// verdict, failed attempts, DPO pairs and LLM usage.
	out     *engine.Outcome
	bpJSON  []byte
	rejJSON []byte // the rejected/ record of a failed dialogue
	row     export.SFTRow
	labels  credit.Labels // the kept dialogue's, also in row
	sig     signature
	err     error
}

// Progress receives counts as the run advances; it may be nil.
type Progress interface {
	// Start announces the work: blueprints to do now and already done.
	Start(total, done int)
	// Update reports the counts so far, from the goroutine that writes.
	Update(Snapshot)
}

// Snapshot counts this run's blueprints per stage.
type Snapshot struct {
	Generated int // blueprints built
	Simulated int // dialogues played
	Verified  int // dialogues that passed every check
	Written   int // blueprints whose rows are in a chunk
	Pairs     int // DPO pairs written
	// LLM is what the LLM engines billed so far (nil for the embedded engine).
	LLM *engine.Billing
}

// runFile records the config of the work in a work dir.
type runFile struct {
	Fingerprint string         `json:"fingerprint"`
	Version     string         `json:"synth_version"`
	Config      map[string]any `json:"config"`
	Full        Config         `json:"full_config"`
}

// Run produces a release in cfg.Out, or with --shard I/N the chunks shard
// I owns, for `synth merge`. Rerunning the same command continues where
// an interrupted run stopped.
func Run(ctx context.Context, cfg Config, prog Progress) (*Result, error) {
	return RunWith(ctx, cfg, prog, RunOptions{})
}

// RunWith is Run with parts supplied by the caller (the LLM client).
//
// When an LLM budget (--max-cost, --max-tokens) runs out, no new
// blueprint is started. Dialogues already running finish: their requests
// still go out (llm.Admitted), so spending overshoots by at most what the
// dialogues in flight at that moment (--dialogues) still need. The first
// blueprint (in order) that was not started ends the completed prefix:
// the blueprints before it are written, those after it are dropped, and
// the run finalizes a valid partial release of that prefix (manifest
// "stopped": "budget", "blueprints_done"). Rerunning with a larger budget
// replaces it: cached responses make the finished part free.
func RunWith(ctx context.Context, cfg Config, prog Progress, opts RunOptions) (*Result, error) {
	start := time.Now()
	cfg = cfg.resolved()
	if _, err := cfg.Spec(); err != nil {
		return nil, err
	}
	shard, shards, err := ParseShard(cfg.Shard)
	if err != nil {
		return nil, err
	}
	// The domain is loaded before anything is written: a broken pack
	// leaves no out dir behind.
	d, err := domains.Load(cfg.Domain, cfg.Seed)
	if err != nil {
		return nil, err
	}
	cfg.bindDomain(d)
	// So is the generator, which checks that the domain can meet the
	// controls (--writes, --reads).
	gen, err := Generator(cfg, d)
	if err != nil {
		return nil, err
	}
	unlock, err := claimOut("--out", cfg.Out, cfg.Force)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if m, err := prepareOut(cfg); err != nil || m != nil {
		if m != nil {
			return &Result{Dir: cfg.Out, Manifest: m, Existing: true}, nil
		}
		return nil, err
	}
	work := filepath.Join(cfg.Out, workDirName)
	if err := cleanTemps(work); err != nil {
		return nil, err
	}
	done, err := doneChunks(work)
	if err != nil {
		return nil, err
	}
	nChunks := (cfg.N + cfg.ChunkSize - 1) / cfg.ChunkSize
	redone, err := dropBroken(done, cfg)
	if err != nil {
		return nil, err
	}
	lo, hi := shard*nChunks/shards, (shard+1)*nChunks/shards
	todo, resumed := pending(done, lo, hi)
	res := &Result{Dir: cfg.Out, Resumed: resumed, Chunks: hi - lo, Redone: redone, Notes: gen.Notes()}
	stopped, err := produceChunks(ctx, cfg, opts, res, d, gen, work, todo, prog, shards)
	if err != nil {
		return res, err
	}
	if shards > 1 {
		res.Elapsed = time.Since(start)
		return res, nil
	}
	if done, err = doneChunks(work); err != nil {
		return nil, err
	}
	if stopped >= 0 {
		// The completed prefix: whole chunks and the partial last one.
		nChunks = (stopped + cfg.ChunkSize - 1) / cfg.ChunkSize
		res.Stopped, res.Done = release.StoppedBudget, stopped
	}
	dirs := make([]string, nChunks)
	for c := range dirs {
		dirs[c] = done[c]
	}
	m, err := publish(cfg, d, gen, res.Notes, dirs, work)
	if err != nil {
		return nil, err
	}
	if err := removeStale(cfg.Out, m); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(work); err != nil {
		return nil, fmt.Errorf("remove %s: %w", work, err)
	}
	res.Manifest, res.Elapsed = m, time.Since(start)
	return res, nil
}

// pending are the chunks from lo to hi not done yet, and how many are.
func pending(done map[int]string, lo, hi int) (todo []int, resumed int) {
	for c := lo; c < hi; c++ {
		if _, ok := done[c]; ok {
			resumed++
		} else {
			todo = append(todo, c)
		}
	}
	return todo, resumed
}

// produceChunks makes the chunks to do, with a model client when the
// engine needs one, and records its billing in res. stopped is the
// number of blueprints done when the budget stopped the run, else -1.
func produceChunks(ctx context.Context, cfg Config, opts RunOptions, res *Result, d *domain.Domain, gen *blueprints.Generic, work string, todo []int, prog Progress, shards int) (stopped int, err error) {
	if len(todo) == 0 {
		return -1, nil
	}
	var ch llm.Chatter
	if cfg.llmEngine() {
		var closeChat func() error
		if ch, closeChat, err = newChatter(cfg, opts); err != nil {
			return -1, err
		}
		defer closeChat()
	}
	err = produce(ctx, cfg, d, gen, work, todo, res.Resumed, prog, ch)
	res.LLM = engine.BillingOf(ch)
	var bs *budgetStop
	switch {
	case errors.As(err, &bs) && shards > 1:
		return -1, fmt.Errorf("%w: shard %s stopped; its finished chunks are kept in %s — rerun it with a larger budget to continue", err, cfg.Shard, work)
	case errors.As(err, &bs) && bs.Done == 0:
		return -1, fmt.Errorf("%w before the first blueprint was done: nothing to release; raise --max-cost / --max-tokens", llm.ErrBudget)
	case errors.As(err, &bs):
		return bs.Done, nil
	}
	return -1, err
}

// publish finalizes the release from the chunk dirs; a chunk that went
// bad after it was checked is dropped so that the rerun redoes it.
func publish(cfg Config, d *domain.Domain, gen *blueprints.Generic, notes, dirs []string, work string) (*release.Manifest, error) {
	unused := gen.Unused()
	m, err := finalize(cfg, d, notes, dirs, cfg.Out, work, true, func(m *release.Manifest) { m.UnusedWrites = unusedWrites(unused, d, m.Stats) })
	if errors.Is(err, ErrDamaged) {
		for _, d := range dirs {
			if strings.HasPrefix(err.Error(), d+string(filepath.Separator)) {
				os.RemoveAll(d)
			}
		}
		return nil, fmt.Errorf("%w; that chunk was removed: rerun the same command to redo it", err)
	}
	return m, err
}

// ParseShard reads "I/N" (0 <= I < N); "" means the whole run.
func ParseShard(s string) (int, int, error) {
	if s == "" {
		return 0, 1, nil
	}
	var i, n int
	if _, err := fmt.Sscanf(s, "%d/%d", &i, &n); err != nil || n < 1 || i < 0 || i >= n || fmt.Sprintf("%d/%d", i, n) != s {
		return 0, 0, fmt.Errorf("--shard %q: want I/N with 0 <= I < N, e.g. --shard 0/4", s)
	}
	return i, n, nil
}

// produce runs the stages over the blueprints of the given chunks on a
// bounded pool and writes each chunk as its last item arrives. Results
// are re-ordered by index, so files do not depend on scheduling.
func produce(ctx context.Context, cfg Config, d *domain.Domain, gen *blueprints.Generic, work string, todo []int, resumed int, prog Progress, ch llm.Chatter) error {
	sch, err := schemas.Compile()
	if err != nil {
		return err
	}
	ver := verify.ForDomain(d, sch)
	choice, err := engine.ParseTools(cfg.Tools)
	if err != nil {
		return err
	}
	eng, err := newEngine(ctx, cfg, d, ver, ch)
	if err != nil {
		return err
	}
	indices := blueprintIndices(todo, cfg.ChunkSize, cfg.N)
	if prog != nil {
		prog.Start(len(indices), min(resumed*cfg.ChunkSize, cfg.N))
	}
	opts := poolOptions(cfg.Workers, eng)
	budgeted, _ := eng.(engine.Budgeted)
	metered, _ := eng.(engine.Metered)
	// cpu bounds generation to --workers however many dialogues wait.
	cpu := make(chan struct{}, max(cfg.Workers, 1))
	var generated, simulated atomic.Int64
	// budget is set once the LLM budget is spent: no blueprint starts after.
	var budget atomic.Bool
	opts.Stop = budget.Load
	process := func(ctx context.Context, i int) item {
		it := item{index: i}
		if budget.Load() || budgeted != nil && budgeted.Spent() != nil {
			budget.Store(true)
			it.err = errBudgetSkipped
			return it
		}
		select {
		case cpu <- struct{}{}:
		case <-ctx.Done():
			it.err = ctx.Err()
			return it
		}
		it.bp, it.err = gen.Generate(ctx, i)
		<-cpu
		if it.err != nil {
			return it
		}
		generated.Add(1)
		offered := choice.Offered(d.Tools, it.bp)
		if it.out, it.err = eng.Dialogue(ctx, it.bp, offered); it.err != nil {
			if isBudget(it.err) {
				budget.Store(true)
			}
			return it
		}
		simulated.Add(1)
		it.err = finish(&it, d, offered)
		return it
	}
	sink := &chunkSink{work: work, cfg: cfg, n: cfg.N, kindOf: d.Tools.Kind}
	defer sink.abort()
	var snap Snapshot
	deliver := func(k int, it item) error {
		i := indices[k]
		if isBudget(it.err) {
			// The first blueprint the budget left unfinished: the chunk
			// so far is committed as the release's last.
			if err := sink.cut(i); err != nil {
				return err
			}
			return &budgetStop{Done: i}
		}
		if it.err != nil {
			return it.err
		}
		if err := sink.put(i, it); err != nil {
			return err
		}
		if it.out.Verdict.Passed {
			snap.Verified++
		}
		snap.Pairs += len(it.out.Pairs.Rows)
		if prog != nil {
			snap.Written = k + 1
			snap.Generated, snap.Simulated = int(generated.Load()), int(simulated.Load())
			if metered != nil {
				snap.LLM = metered.Billing()
			}
			prog.Update(snap)
		}
		return nil
	}
	err = pool.Run(ctx, len(indices), opts, func(ctx context.Context, k int) item { return process(ctx, indices[k]) }, deliver)
	return stopError(ctx, err, work)
}

// stopError is why the pool stopped: the budget, an interrupt (the
// finished chunks kept), or a failure; nil when it finished.
func stopError(ctx context.Context, err error, work string) error {
	if err == nil {
		return nil
	}
	var bs *budgetStop
	if errors.As(err, &bs) && ctx.Err() == nil {
		return bs
	}
	if ctx.Err() != nil {
		return fmt.Errorf("run interrupted; finished chunks are kept in %s — rerun the same command to continue: %w", work, ctx.Err())
	}
	return err
}

// blueprintIndices are the blueprints of the chunks to do, in order.
func blueprintIndices(todo []int, chunkSize, n int) []int {
	var indices []int
	for _, c := range todo {
		for i := c * chunkSize; i < min((c+1)*chunkSize, n); i++ {
			indices = append(indices, i)
		}
	}
	return indices
}

// poolOptions size the worker pool for the engine. The window bounds the
// results held for in-order writing. Dialogues that wait on the network
// vary a lot in length: a wide window keeps the pool busy behind a slow
// one.
func poolOptions(workers int, eng engine.Engine) pool.Options {
	opts := pool.Options{Workers: workers, Window: workers * 32}
	if w, ok := eng.(engine.Waiting); ok {
		opts.Workers = w.InFlight()
		opts.Window = opts.Workers * 8
	}
	return opts
}

// finish makes the records of a played blueprint: its JSON, and the SFT
// row and dedup signature of a verified dialogue or the rejected/ record
// of a failed one.
func finish(it *item, d *domain.Domain, offered map[string]bool) error {
	var err error
	if it.bpJSON, err = json.Marshal(it.bp); err != nil {
		return err
	}
	out := it.out
	it.labels = credit.LabelDomain(d, it.bp, out.Trajectory, &out.Verdict)
	if !out.Verdict.Passed {
		if it.rejJSON = out.Rejected; it.rejJSON == nil {
			f := out.Verdict.Failed()
			it.rejJSON, err = json.Marshal(map[string]any{"blueprint_id": it.bp.ID, "split": it.bp.Split,
				"check": f.Name, "reason": f.Reason, "verdict": out.Verdict, "trajectory": out.Trajectory, "labels": it.labels})
		}
		return err
	}
	if it.row, err = sftRow(it.bp, out.Trajectory, it.labels, engine.RowTools(d.Tools, offered, out.Trajectory.Messages)); err != nil {
		return err
	}
	it.sig = signTrajectory(it.index, out.Trajectory.ID, it.bp.Split, out.Trajectory)
	return nil
}

// sftRow is the SFT row of a verified dialogue with its credit labels.
func sftRow(bp *record.Blueprint, tr *record.Trajectory, l credit.Labels, toolsJSON string) (export.SFTRow, error) {
	ev := make([]int32, len(bp.Evidence))
	for k, e := range bp.Evidence {
		ev[k] = int32(e)
	}
	// Labels.MarshalJSON writes what json.Marshal would, compact and
	// escaped; json.Marshal would only read it through again.
	labels, err := l.MarshalJSON()
	if err != nil {
		return export.SFTRow{}, fmt.Errorf("labels of %s: %w", tr.ID, err)
	}
	msgs := tr.Messages
	if mistakes := credit.Mistakes(l); len(mistakes) > 0 {
		// A recovery row trains on the correction, not on the mistake the
		// customer caught: the mistake's messages weigh 0.
		msgs = slices.Clone(msgs)
		for _, i := range mistakes {
			msgs[i].Weight = new(int)
		}
	}
	return export.SFTRow{ID: tr.ID, BlueprintID: bp.ID, Domain: bp.Domain, Messages: msgs,
		Tools: toolsJSON, NWrites: int32(bp.NWrites), NReads: int32(bp.NReads), Evidence: ev,
		Behavior: bp.Behavior, Engine: tr.Engine, Kind: tr.Kind, Labels: labels}, nil
}

// claimOut makes sure out can be written and takes its lock: the target
// is not an obviously wrong folder (/, $HOME), and a folder holding
// something synth did not write is refused before anything is created
// in it. The caller holds the lock until it is done.
func claimOut(flag, out string, force bool) (release func(), err error) {
	if err := checkTarget(flag, out); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(out)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s %s: %w", flag, out, err)
	}
	if len(entries) == 1 && entries[0].Name() == workDirName && onlyLock(filepath.Join(out, workDirName)) {
		entries = nil // another process holds or just dropped the lock: lockOut says which
	}
	if len(entries) > 0 {
		o, err := readOwned(out)
		if err != nil {
			return nil, err
		}
		switch {
		case force:
			if err := o.foreign(flag); err != nil {
				return nil, err
			}
		case !o.manifest && !o.work:
			return nil, fmt.Errorf("%s %s is not empty and holds no synth release; choose a new or empty directory", flag, out)
		}
	}
	return lockOut(flag, out)
}

// prepareOut checks the out dir, under its lock: an existing release of
// the same config is returned as done; another config is refused unless
// forced; with --force only what synth provably wrote is deleted, and a
// folder holding anything else is refused. It records the config in the
// work dir.
func prepareOut(cfg Config) (*release.Manifest, error) {
	out := cfg.Out
	o, err := readOwned(out)
	if err != nil {
		return nil, err
	}
	work := filepath.Join(out, workDirName)
	runPath := filepath.Join(work, "run.json")
	m, err := release.ReadManifest(out)
	switch {
	case err == nil && m.Fingerprint == cfg.Fingerprint() && m.Stopped != "":
		// A release the budget stopped is redone whole: its blueprints'
		// responses are cached, so only the rest is paid for.
		if err := o.clear("--out"); err != nil {
			return nil, err
		}
	case err == nil && m.Fingerprint == cfg.Fingerprint():
		// Done; a finalisation killed after the manifest left its work
		// dir, which is cleaned up now.
		if o.work {
			if err := removeStale(out, m); err != nil {
				return nil, err
			}
			if err := os.RemoveAll(work); err != nil {
				return nil, err
			}
		}
		return m, nil
	case err == nil:
		if !cfg.Force {
			return nil, differs("a release", out, m.Config, m.SynthVersion, cfg)
		}
		if err := o.clear("--out"); err != nil {
			return nil, err
		}
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("--out %s: %w", out, err)
	}
	if raw, err := limitio.ReadRegular(runPath, limitio.SmallFile); err == nil {
		var rf runFile
		if err := json.Unmarshal(raw, &rf); err != nil {
			return nil, fmt.Errorf("%s is damaged (%v); remove %s or pass --force", runPath, err, work)
		}
		if rf.Fingerprint == cfg.Fingerprint() {
			return nil, nil // resume
		}
		// A run that failed before finishing a chunk left nothing worth
		// keeping: the corrected command replaces it without --force.
		done, err := doneChunks(work)
		if err != nil {
			return nil, err
		}
		if len(done) > 0 && !cfg.Force {
			return nil, differs("an unfinished run", out, rf.Config, rf.Version, cfg)
		}
		if err := o.clear("--out"); err != nil {
			return nil, err
		}
	}
	entries, err := os.ReadDir(out)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("--out %s: %w", out, err)
	}
	for _, e := range entries {
		if e.Name() == workDirName {
			continue
		}
		if !cfg.Force {
			return nil, fmt.Errorf("--out %s is not empty and holds no synth release; choose a new or empty directory", out)
		}
		if err := o.clear("--out"); err != nil {
			return nil, err
		}
		break
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, fmt.Errorf("--out %s cannot be created: %w", out, err)
	}
	raw, _ := json.MarshalIndent(runFile{Fingerprint: cfg.Fingerprint(), Version: Version, Config: cfg.outputConfig(), Full: cfg}, "", "  ")
	if err := export.WriteFileAtomic(runPath, raw); err != nil {
		return nil, fmt.Errorf("--out %s is not writable: %w", out, err)
	}
	return nil, nil
}

func differs(what, out string, old map[string]any, version string, cfg Config) error {
	diffs := diffConfigs(old, cfg.outputConfig())
	if version != Version {
		diffs = append(diffs, fmt.Sprintf("synth version: %s in the release, %s now", version, Version))
	}
	if len(diffs) == 0 {
		diffs = append(diffs, "domain: the files of pack "+cfg.Domain+" differ from those it was made with")
	}
	return fmt.Errorf("--out %s holds %s made with another config:\n  %s\nchoose another --out, or pass --force to replace it", out, what, strings.Join(diffs, "\n  "))
}

func fileSHA(path string) (string, error) {
	f, err := limitio.OpenRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// dropBroken removes the chunks a rerun must redo: those a budget stop
// committed short of their end (left when finalisation did not complete),
// and those that are incomplete or damaged — no summary, a summary of
// another run, or a file whose size or sha256 differs from its summary.
// It returns why each was dropped.
func dropBroken(done map[int]string, cfg Config) ([]string, error) {
	var redone []string
	for _, c := range slices.Sorted(maps.Keys(done)) {
		dir := done[c]
		s, err := checkChunk(dir, c, cfg.Fingerprint())
		why := ""
		switch {
		case err != nil:
			why = err.Error()
		case s.End != min((c+1)*cfg.ChunkSize, cfg.N):
			why = "" // a budget stop's partial chunk: redone silently
		default:
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("remove the chunk %s to redo it: %w", dir, err)
		}
		delete(done, c)
		if why != "" {
			redone = append(redone, fmt.Sprintf("chunk %d is redone: %s", c, why))
		}
	}
	return redone, nil
}

// checkChunk reads a finished chunk's summary and checks every file it
// lists against its size and sha256.
func checkChunk(dir string, idx int, fingerprint string) (*release.ChunkSummary, error) {
	s, err := release.ReadSummary(dir)
	if err != nil {
		return nil, fmt.Errorf("its summary cannot be read (%v)", err)
	}
	if s.Index != idx || s.Fingerprint != fingerprint {
		return nil, fmt.Errorf("%s belongs to another run (chunk %d, config %s)", dir, s.Index, release.Short(s.Fingerprint))
	}
	names := []string{sigFileName}
	sums := []string{s.SignaturesSHA256}
	for _, f := range s.Files {
		names, sums = append(names, f.Name), append(sums, f.SHA256)
	}
	for i, name := range names {
		path := filepath.Join(dir, filepath.FromSlash(name))
		got, err := fileSHA(path)
		if err != nil {
			return nil, fmt.Errorf("%s cannot be read (%v)", path, err)
		}
		if got != sums[i] {
			return nil, damaged(path, got, sums[i])
		}
	}
	return s, nil
}
