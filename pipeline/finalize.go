package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/engine"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/release"
)

// finalName is where a chunk file lands in the release: the k-th of n
// files of its kind and split.
func finalName(f release.ChunkFile, k, n int) string {
	switch f.Kind {
	case "sft", "dpo":
		return fmt.Sprintf("%s/%s-%05d-of-%05d.parquet", f.Kind, f.Split, k, n)
	case "blueprints":
		return fmt.Sprintf("blueprints/%s-%05d-of-%05d.jsonl.gz", f.Split, k, n)
	case "rejected", "dpo_failures":
		return fmt.Sprintf("rejected/%s-%05d-of-%05d.jsonl.gz", f.Kind, k, n)
	}
	return ""
}

// finalize assembles a release in out from the complete, ordered list of
// chunk folders: their files are linked (or, for a merge from other
// folders, copied) to their final names, each hashed as it is placed, the
// statistics merge, and the manifest is written last. Every file is
// recorded in the work dir's publish log before it is placed, so what a
// killed finalisation left is known to be synth's.
//
// extra, when not nil, adds to the manifest before the card is written
// from it (a kept release's sources).
func finalize(cfg Config, d *domain.Domain, notes []string, chunkDirs []string, out, work string, link bool, extra func(*release.Manifest)) (*release.Manifest, error) {
	sums, err := readSummaries(cfg, chunkDirs)
	if err != nil {
		return nil, err
	}
	// Duplicates go before anything is placed: chunks that hold some are
	// rewritten without them into a scratch folder of the release.
	dups, drop, err := findDuplicates(chunkDirs, sums)
	if err != nil {
		return nil, err
	}
	scratch := filepath.Join(work, "dedup")
	defer os.RemoveAll(scratch)
	srcs, err := rewriteChunks(chunkDirs, sums, drop, scratch)
	if err != nil {
		return nil, err
	}
	m, total := mergeSummaries(cfg, d, notes, sums)
	if extra != nil {
		extra(m)
	}
	plan, entries := chunkPlan(chunkDirs, sums, srcs, total)
	for _, dup := range dups {
		m.Counts.Duplicates[dup.Reason]++
	}
	if len(dups) > 0 {
		e, err := writeDuplicates(scratch, dups)
		if err != nil {
			return nil, err
		}
		plan = append(plan, placement{path: e.Path, src: filepath.Join(scratch, filepath.FromSlash(e.Path)), sha: e.SHA256})
		entries = append(entries, e)
	}
	domFiles := release.DomainFiles(d, cfg.Seed)
	domSums := map[string]string{}
	for _, n := range slices.Sorted(maps.Keys(domFiles)) {
		e := release.FileEntryOf(n, domFiles[n])
		domSums[n] = e.SHA256
		plan = append(plan, placement{path: n, data: domFiles[n], sha: e.SHA256})
		entries = append(entries, e)
	}
	m.Domain = release.DomainInfo{Name: d.Name, Version: d.Version, Hash: release.DomainHash(domSums), StateHash: d.Base.Hash()}
	kind, _ := kindOf(cfg.Engine)
	card := []byte(release.Card(m, entries, kind.Card))
	ce := release.FileEntryOf("README.md", card)
	plan = append(plan, placement{path: ce.Path, data: card, sha: ce.SHA256})
	entries = append(entries, ce)
	if err := logPublish(work, plan); err != nil {
		return nil, err
	}
	for _, p := range plan {
		if err := p.place(out, work, link); err != nil {
			return nil, err
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	m.Files = entries
	raw, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	// The manifest is written last: its presence marks a complete release.
	if err := export.WriteFileAtomic(filepath.Join(out, "manifest.json"), append(raw, '\n')); err != nil {
		return nil, err
	}
	return m, nil
}

// readSummaries reads each chunk's summary, refusing one that is
// incomplete or belongs to another run.
func readSummaries(cfg Config, chunkDirs []string) ([]*release.ChunkSummary, error) {
	sums := make([]*release.ChunkSummary, len(chunkDirs))
	for i, dir := range chunkDirs {
		s, err := release.ReadSummary(dir)
		if err != nil {
			return nil, fmt.Errorf("chunk %d is incomplete (%w); rerun the same command to finish it", i, err)
		}
		if s.Index != i || s.Fingerprint != cfg.Fingerprint() {
			return nil, fmt.Errorf("%s belongs to another run (chunk %d, config %s)", dir, s.Index, release.Short(s.Fingerprint))
		}
		sums[i] = s
	}
	return sums, nil
}

// rewriteChunks writes each chunk that holds duplicates again without
// them, under scratch; srcs[i] maps chunk i's file names to the rewritten
// files.
func rewriteChunks(chunkDirs []string, sums []*release.ChunkSummary, drop map[int]map[string]bool, scratch string) ([]map[string]string, error) {
	srcs := make([]map[string]string, len(sums))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range sums {
		if len(drop[i]) == 0 {
			continue
		}
		// Chunks are independent: rewrite them side by side.
		g.Go(func() error {
			var err error
			srcs[i], err = dropRows(chunkDirs[i], filepath.Join(scratch, chunkName(i)), sums[i], drop[i])
			return err
		})
	}
	return srcs, g.Wait()
}

// mergeSummaries starts the manifest from the chunks' counts, checks,
// failures, statistics, DPO and model usage; total counts the files of
// each kind and split.
func mergeSummaries(cfg Config, d *domain.Domain, notes []string, sums []*release.ChunkSummary) (*release.Manifest, map[string]int) {
	m := &release.Manifest{
		SynthVersion: Version, Format: export.FormatVersion, Config: cfg.outputConfig(), Fingerprint: cfg.Fingerprint(), Seed: cfg.Seed,
		Counts: release.Counts{BySplit: map[string]int{}, Duplicates: map[string]int{"exact": 0, "near": 0}}, Checks: release.NewCheckStats(), Failures: map[string]int{}, Stats: release.NewStats(d.Tools.Kind),
	}
	if cfg.DPO {
		m.DPO = &engine.DPOStats{ByFailure: map[string]int{}, BySplit: map[string]int{}}
	}
	if cfg.llmEngine() {
		m.LLM = &engine.LLMStats{}
	}
	m.Notes = notes
	if n := len(sums); n > 0 && sums[n-1].End < cfg.N {
		m.Stopped, m.BlueprintsDone = release.StoppedBudget, sums[n-1].End
	}
	total := map[string]int{}
	for _, s := range sums {
		mergeSummary(m, s)
		for _, f := range s.Files {
			total[f.Kind+"/"+f.Split]++
		}
	}
	m.Stats.Distinct()
	if d.Model != nil && d.Model.Holdout != nil {
		m.Holdout = &release.HoldoutInfo{File: "domain/" + d.HoldoutFile, Tasks: d.Model.Holdout.Len(), Dropped: m.Counts.HeldOut}
	}
	if m.LLM != nil {
		finishLLM(m.LLM, cfg)
	}
	return m, total
}

// mergeSummary adds one chunk's counts, checks, failures, statistics,
// DPO and model usage to the manifest.
func mergeSummary(m *release.Manifest, s *release.ChunkSummary) {
	engine.AddCounts(&m.Counts, &s.Counts)
	for k, c := range s.Checks {
		cs := m.Checks[k]
		if cs == nil {
			cs = &release.CheckStats{}
			m.Checks[k] = cs
		}
		cs.Passed += c.Passed
		cs.Failed += c.Failed
		cs.Rate = release.Ratio(cs.Passed, cs.Passed+cs.Failed)
	}
	for k, v := range s.Failures {
		m.Failures[k] += v
	}
	s.Stats.FirstSketch, s.Stats.UsersSketch = s.FirstSketch, s.UsersSketch
	s.Stats.ToolSequences, s.Stats.Ngrams = s.Sequences, s.Ngrams
	s.Stats.FirstSet, s.Stats.UsersSet = setOf(s.FirstSet, s.Overflow), setOf(s.UsersSet, s.Overflow)
	m.Stats.Merge(s.Stats)
	if m.DPO != nil && s.DPO != nil {
		engine.AddCounts(m.DPO, s.DPO)
	}
	if m.LLM != nil {
		m.LLM.Merge(s.LLM)
	}
}

// chunkPlan names each chunk file's place in the release (the k-th of the
// total files of its kind and split, in chunk order) and its entry.
func chunkPlan(chunkDirs []string, sums []*release.ChunkSummary, srcs []map[string]string, total map[string]int) ([]placement, []release.FileEntry) {
	seen := map[string]int{}
	var entries []release.FileEntry
	var plan []placement
	for i, s := range sums {
		for _, f := range s.Files {
			key := f.Kind + "/" + f.Split
			name := finalName(f, seen[key], total[key])
			seen[key]++
			src := filepath.Join(chunkDirs[i], f.Name)
			if alt, ok := srcs[i][f.Name]; ok {
				src = alt
			}
			plan = append(plan, placement{path: name, src: src, sha: f.SHA256})
			entries = append(entries, release.FileEntry{Path: name, Split: f.Split, Rows: f.Rows, SHA256: f.SHA256, Bytes: f.Bytes})
		}
	}
	return plan, entries
}

// writeDuplicates records each removed dialogue with its kept twin.
func writeDuplicates(dir string, dups []Duplicate) (release.FileEntry, error) {
	if err := os.MkdirAll(filepath.Join(dir, "rejected"), 0o755); err != nil {
		return release.FileEntry{}, err
	}
	s, err := newJSONLSink(dir, "rejected/duplicates.jsonl.gz")
	if err != nil {
		return release.FileEntry{}, err
	}
	for _, d := range dups {
		raw, err := json.Marshal(d)
		if err != nil {
			s.abort()
			return release.FileEntry{}, err
		}
		if err := s.write(raw); err != nil {
			s.abort()
			return release.FileEntry{}, err
		}
	}
	return s.commit()
}

// placement is one file of the release: a chunk file to link or copy
// (src) or bytes to write (data), with the sha256 it must have.
type placement struct {
	path, src, sha string
	data           []byte
}

// ErrDamaged marks a finished file whose bytes no longer match the sha256
// recorded when it was written.
var ErrDamaged = errors.New("damaged")

// place puts a file at its final path, hashing what it places: a chunk
// file whose bytes differ from its summary's sha256 is refused, never
// published. A file already there with the right content (a finalisation
// that crashed midway) is kept as is. Within one file system the file is
// hard-linked, not moved, so the chunk stays whole until the work dir is
// removed and a finalisation that crashed can simply run again.
//
// Temporary names live in stage, the work dir, so a kill mid-copy leaves
// no half-written file among the release's.
func (p placement) place(out, stage string, link bool) error {
	dst := filepath.Join(out, filepath.FromSlash(p.path))
	if got, err := fileSHA(dst); err == nil && got == p.sha {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if p.src == "" {
		return export.WriteFileAtomicIn(stage, dst, p.data)
	}
	if link {
		got, err := fileSHA(p.src)
		if err != nil {
			return fmt.Errorf("assemble %s: %w", dst, err)
		}
		if got != p.sha {
			return damaged(p.src, got, p.sha)
		}
		tmp := filepath.Join(stage, "."+strings.ReplaceAll(p.path, "/", "_")+".tmp-link")
		os.Remove(tmp)
		if err := os.Link(p.src, tmp); err == nil {
			if err := os.Rename(tmp, dst); err != nil {
				os.Remove(tmp)
				return fmt.Errorf("publish %s: %w", dst, err)
			}
			return nil
		}
	}
	in, err := limitio.OpenRegular(p.src)
	if err != nil {
		return fmt.Errorf("assemble %s: %w", dst, err)
	}
	defer in.Close()
	af, err := export.CreateAtomicIn(stage, dst)
	if err != nil {
		return err
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(af, h), in); err != nil {
		af.Abort()
		return fmt.Errorf("copy %s to %s: %w", p.src, dst, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != p.sha {
		af.Abort()
		return damaged(p.src, got, p.sha)
	}
	return af.Commit()
}

func damaged(path, got, want string) error {
	return fmt.Errorf("%s is %w: its sha256 is %s, but %s was recorded when it was written", path, ErrDamaged, release.Short(got), release.Short(want))
}

// logPublish appends the files finalisation will place to the work dir's
// publish log, durably, before any of them is placed.
func logPublish(work string, plan []placement) error {
	var buf []byte
	for _, p := range plan {
		line, _ := json.Marshal(published{Path: p.path, SHA256: p.sha})
		buf = append(append(buf, line...), '\n')
	}
	f, err := os.OpenFile(filepath.Join(work, publishLogName), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(buf); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// unusedWrites is every write tool of the domain no released task uses:
// those the generator cannot build a task for (unusable, with why), and
// those it can but drew for no task of this release, which a reader of
// the card would otherwise take as covered.
func unusedWrites(unusable map[string]string, d *domain.Domain, s *release.Stats) map[string]string {
	out := maps.Clone(unusable)
	if out == nil {
		out = map[string]string{}
	}
	if s == nil {
		return out
	}
	used := map[string]bool{}
	for intent, n := range s.Intents {
		if tool, _ := model.ParseIntent(intent); n > 0 {
			used[tool] = true
		}
	}
	for _, t := range d.Tools.Tools() {
		if t.Kind != record.KindWrite || used[t.Name] || out[t.Name] != "" {
			continue
		}
		out[t.Name] = fmt.Sprintf("no task of this release's %d uses it, though the generator can build one: a larger -n may cover it", s.Rows)
	}
	return out
}
