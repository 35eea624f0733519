package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/verify"
)

// Version is synth's version, recorded in every release.
const Version = "0.1.0"

// Splits in release order.
var Splits = []string{"train", "validation", "test"}

// Result is the outcome of a run.
type Result struct {
	Dir      string
	Manifest *Manifest
	Elapsed  time.Duration
	// Existing is true when the out dir already held this exact release.
	Existing bool
}

// item is one blueprint's journey through the stages.
type item struct {
	index   int
	bp      *record.Blueprint
	tr      *record.Trajectory
	verdict record.Verdict
	bpJSON  []byte
	rejJSON []byte
	row     export.SFTRow
	dpo     dpoOutcome
	err     error
}

// Progress receives counts as the run advances; it may be nil.
type Progress interface {
	Update(done, accepted, total int)
}

// Run produces a release in cfg.Out.
func Run(ctx context.Context, cfg Config, prog Progress) (*Result, error) {
	start := time.Now()
	spec, err := cfg.Spec()
	if err != nil {
		return nil, err
	}
	if done, err := prepareOut(cfg); err != nil || done != nil {
		if done != nil {
			return &Result{Dir: cfg.Out, Manifest: done, Existing: true}, nil
		}
		return nil, err
	}
	d, err := domains.Load(cfg.Domain, cfg.Seed)
	if err != nil {
		return nil, err
	}
	gen, err := d.Generator(spec)
	if err != nil {
		return nil, err
	}
	sch, err := schemas.Compile()
	if err != nil {
		return nil, err
	}
	ver := verify.New(d.Verify, sch)
	toolsJSON := d.Tools.OpenAI()
	var plan *dpoPlan
	if cfg.DPO {
		if plan, err = newDPOPlan(cfg); err != nil {
			return nil, err
		}
	}

	rel := &release{cfg: cfg, dom: d, stats: newStats(d.Tools.Kind), checks: checkStats(),
		failures: map[string]int{}, bySplit: map[string]int{},
		dpoStats: DPOStats{ByFailure: map[string]int{}, BySplit: map[string]int{}}}
	if err := rel.open(); err != nil {
		return nil, err
	}
	defer rel.abort()

	process := func(ctx context.Context, i int) item {
		it := item{index: i}
		if it.bp, it.err = gen.Generate(ctx, i); it.err != nil {
			return it
		}
		if it.tr, it.err = Simulate(ctx, d, it.bp, cfg.MaxTurns); it.err != nil {
			return it
		}
		it.verdict = ver.Verify(ctx, it.bp, it.tr)
		if it.bpJSON, it.err = json.Marshal(it.bp); it.err != nil {
			return it
		}
		if !it.verdict.Passed {
			f := it.verdict.Failed()
			it.rejJSON, it.err = json.Marshal(map[string]any{"blueprint_id": it.bp.ID, "split": it.bp.Split,
				"check": f.Name, "reason": f.Reason, "verdict": it.verdict, "trajectory": it.tr})
			return it
		}
		ev := make([]int32, len(it.bp.Evidence))
		for k, e := range it.bp.Evidence {
			ev[k] = int32(e)
		}
		it.row = export.SFTRow{ID: it.tr.ID, BlueprintID: it.bp.ID, Domain: it.bp.Domain, Messages: it.tr.Messages,
			Tools: toolsJSON, NWrites: int32(it.bp.NWrites), NReads: int32(it.bp.NReads), Evidence: ev,
			Behavior: it.bp.Behavior, Engine: it.tr.Engine}
		if plan != nil {
			it.dpo, it.err = dpoPairs(ctx, d, ver, plan, cfg, it.bp, it.tr, toolsJSON)
		}
		return it
	}

	// Stages run on a bounded pool; results are re-ordered by index so the
	// files do not depend on scheduling. The window bounds memory.
	window := cfg.Workers * 32
	g, gctx := errgroup.WithContext(ctx)
	jobs := make(chan int)
	results := make(chan item, window)
	slots := make(chan struct{}, window)
	g.Go(func() error {
		defer close(jobs)
		for i := 0; i < cfg.N; i++ {
			select {
			case slots <- struct{}{}:
			case <-gctx.Done():
				return gctx.Err()
			}
			select {
			case jobs <- i:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	for w := 0; w < cfg.Workers; w++ {
		g.Go(func() error {
			for i := range jobs {
				it := process(gctx, i)
				select {
				case results <- it:
				case <-gctx.Done():
					return gctx.Err()
				}
			}
			return nil
		})
	}
	var accepted atomic.Int64
	g.Go(func() error {
		pending := map[int]item{}
		for next := 0; next < cfg.N; {
			var it item
			select {
			case it = <-results:
			case <-gctx.Done():
				return gctx.Err()
			}
			pending[it.index] = it
			for {
				cur, ok := pending[next]
				if !ok {
					break
				}
				delete(pending, next)
				if cur.err != nil {
					return cur.err
				}
				if err := rel.add(cur); err != nil {
					return err
				}
				if cur.verdict.Passed {
					accepted.Add(1)
				}
				next++
				<-slots
				if prog != nil {
					prog.Update(next, int(accepted.Load()), cfg.N)
				}
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("run interrupted; %s holds no release (finished files are only published at the end): %w", cfg.Out, ctx.Err())
		}
		return nil, err
	}
	m, err := rel.finish()
	if err != nil {
		return nil, err
	}
	return &Result{Dir: cfg.Out, Manifest: m, Elapsed: time.Since(start)}, nil
}

// markerName marks an out dir as a release in progress, with its config fingerprint.
const markerName = ".synth-run"

// releaseEntries are the names a release owns in its out dir.
var releaseEntries = []string{"README.md", "manifest.json", "sft", "dpo", "blueprints", "rejected", "domain", markerName}

// prepareOut checks the out dir: an existing release of the same config
// is returned as done; another config is refused unless forced; a folder
// that is not ours is never touched.
func prepareOut(cfg Config) (*Manifest, error) {
	out := cfg.Out
	if m, err := ReadManifest(out); err == nil {
		if m.Fingerprint == cfg.Fingerprint() {
			return m, nil
		}
		if !cfg.Force {
			diffs := diffConfigs(m.Config, cfg.outputConfig())
			if m.SynthVersion != Version {
				diffs = append(diffs, fmt.Sprintf("synth version: %s in the release, %s now", m.SynthVersion, Version))
			}
			return nil, fmt.Errorf("--out %s holds a release made with another config:\n  %s\nchoose another --out, or pass --force to replace it", out, strings.Join(diffs, "\n  "))
		}
		for _, e := range releaseEntries {
			if err := os.RemoveAll(filepath.Join(out, e)); err != nil {
				return nil, fmt.Errorf("--force: remove %s: %w", filepath.Join(out, e), err)
			}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("--out %s: %w", out, err)
	}
	entries, err := os.ReadDir(out)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("--out %s: %w", out, err)
	}
	ours := false
	for _, e := range entries {
		if e.Name() == markerName {
			ours = true
		}
	}
	if len(entries) > 0 && !ours {
		return nil, fmt.Errorf("--out %s is not empty and holds no synth release; choose a new or empty directory", out)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("--out %s cannot be created: %w", out, err)
	}
	if err := export.WriteFileAtomic(filepath.Join(out, markerName), []byte(cfg.Fingerprint()+"\n")); err != nil {
		return nil, fmt.Errorf("--out %s is not writable: %w", out, err)
	}
	return nil, nil
}

// release gathers a run's output files and counts.
type release struct {
	cfg      Config
	dom      *domains.Domain
	sft      *export.Writer
	dpo      *export.Writer
	proofs   *jsonlSink
	dpoStats DPOStats
	bps      map[string]*jsonlSink
	rejected *jsonlSink
	stats    *Stats
	checks   map[string]*CheckStats
	failures map[string]int
	bySplit  map[string]int
	counts   Counts
}

func (r *release) open() error {
	w, err := export.NewWriter(r.cfg.Out, "sft", export.SFTSchema(), export.Options{RowsPerFile: r.cfg.RowsPerFile, Replace: true})
	if err != nil {
		return err
	}
	r.sft = w
	r.bps = map[string]*jsonlSink{}
	for _, s := range Splits {
		if r.bps[s], err = newJSONLSink(r.cfg.Out, "blueprints/"+s+".jsonl.gz"); err != nil {
			return err
		}
	}
	r.rejected, err = newJSONLSink(r.cfg.Out, "rejected/rejected.jsonl.gz")
	if err != nil || !r.cfg.DPO {
		return err
	}
	if r.dpo, err = export.NewWriter(r.cfg.Out, "dpo", export.DPOSchema(), export.Options{RowsPerFile: r.cfg.RowsPerFile, Replace: true}); err != nil {
		return err
	}
	r.proofs, err = newJSONLSink(r.cfg.Out, "rejected/dpo_failures.jsonl.gz")
	return err
}

func (r *release) add(it item) error {
	r.counts.Blueprints++
	r.counts.Simulated++
	addVerdict(r.checks, it.verdict)
	if err := r.bps[it.bp.Split].write(it.bpJSON); err != nil {
		return err
	}
	if !it.verdict.Passed {
		r.counts.Rejected++
		r.failures[it.verdict.Failed().Name]++
		return r.rejected.write(it.rejJSON)
	}
	r.counts.Verified++
	r.bySplit[it.bp.Split]++
	r.stats.add(it.bp, it.tr)
	if err := r.sft.WriteSFT(it.bp.Split, it.row); err != nil {
		return err
	}
	if r.dpo == nil {
		return nil
	}
	s := &r.dpoStats
	s.Attempts += it.dpo.stats.Attempts
	s.NotFired += it.dpo.stats.NotFired
	s.NoFailure += it.dpo.stats.NoFailure
	s.OtherReason += it.dpo.stats.OtherReason
	s.Unpairable += it.dpo.stats.Unpairable
	for i, row := range it.dpo.rows {
		// A blueprint's pairs go to the split of its SFT row.
		if err := r.dpo.WriteDPO(it.bp.Split, row); err != nil {
			return err
		}
		if err := r.proofs.write(it.dpo.proofs[i]); err != nil {
			return err
		}
		s.Pairs++
		s.ByFailure[row.Failure]++
		s.BySplit[it.bp.Split]++
	}
	return nil
}

func (r *release) abort() {
	if r.sft != nil {
		r.sft.Abort()
	}
	if r.dpo != nil {
		r.dpo.Abort()
	}
	if r.proofs != nil {
		r.proofs.abort()
	}
	for _, s := range r.bps {
		s.abort()
	}
	if r.rejected != nil {
		r.rejected.abort()
	}
}

func (r *release) finish() (*Manifest, error) {
	files, err := r.sft.Close()
	if err != nil {
		return nil, err
	}
	if r.dpo != nil {
		dfiles, err := r.dpo.Close()
		if err != nil {
			return nil, err
		}
		files = append(files, dfiles...)
	}
	var entries []FileEntry
	for _, f := range files {
		entries = append(entries, FileEntry{Path: f.Path, Split: f.Split, Rows: f.Rows, SHA256: f.SHA256, Bytes: f.Bytes})
	}
	if r.proofs != nil {
		e, err := r.proofs.commit()
		if err != nil {
			return nil, err
		}
		entries = append(entries, e)
	}
	for _, s := range Splits {
		e, err := r.bps[s].commit()
		if err != nil {
			return nil, err
		}
		e.Split = s
		entries = append(entries, e)
	}
	e, err := r.rejected.commit()
	if err != nil {
		return nil, err
	}
	entries = append(entries, e)
	domEntries, domHash, err := writeDomain(r.cfg.Out, r.dom, r.cfg.Seed)
	if err != nil {
		return nil, err
	}
	entries = append(entries, domEntries...)
	r.counts.SFTRows = r.counts.Verified
	r.counts.BySplit = r.bySplit
	m := &Manifest{
		SynthVersion: Version,
		Config:       r.cfg.outputConfig(),
		Fingerprint:  r.cfg.Fingerprint(),
		Seed:         r.cfg.Seed,
		Domain:       DomainInfo{Name: r.dom.Name, Version: r.dom.Version, Hash: domHash, StateHash: r.dom.Base.Hash()},
		Counts:       r.counts,
		Checks:       r.checks,
		Failures:     r.failures,
		Stats:        r.stats,
	}
	if r.dpo != nil {
		m.DPO = &r.dpoStats
		m.Counts.DPOPairs = r.dpoStats.Pairs
	}
	card := Card(m, entries)
	if err := export.WriteFileAtomic(filepath.Join(r.cfg.Out, "README.md"), []byte(card)); err != nil {
		return nil, err
	}
	entries = append(entries, fileEntry("README.md", []byte(card)))
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	m.Files = entries
	raw, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	// The manifest is written last: its presence marks a complete release.
	if err := export.WriteFileAtomic(filepath.Join(r.cfg.Out, "manifest.json"), append(raw, '\n')); err != nil {
		return nil, err
	}
	if err := os.Remove(filepath.Join(r.cfg.Out, markerName)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return m, nil
}
