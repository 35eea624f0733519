package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/export"
)

// finalName is where a chunk file lands in the release: the k-th of n
// files of its kind and split.
func finalName(f ChunkFile, k, n int) string {
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
// folders, copied) to their final names, the statistics merge, and the
// manifest is written last.
func finalize(cfg Config, chunkDirs []string, out string, link bool) (*Manifest, error) {
	sums := make([]*ChunkSummary, len(chunkDirs))
	for i, dir := range chunkDirs {
		s, err := readSummary(dir)
		if err != nil {
			return nil, fmt.Errorf("chunk %d is incomplete (%w); rerun the same command to finish it", i, err)
		}
		if s.Index != i || s.Fingerprint != cfg.Fingerprint() {
			return nil, fmt.Errorf("%s belongs to another run (chunk %d, config %s)", dir, s.Index, short(s.Fingerprint))
		}
		sums[i] = s
	}
	d, err := domains.Load(cfg.Domain, cfg.Seed)
	if err != nil {
		return nil, err
	}
	// Duplicates go before anything is placed: chunks that hold some are
	// rewritten without them into a scratch folder of the release.
	dups, drop, err := findDuplicates(chunkDirs, sums)
	if err != nil {
		return nil, err
	}
	scratch := filepath.Join(out, ".synth-dedup")
	defer os.RemoveAll(scratch)
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
	if err := g.Wait(); err != nil {
		return nil, err
	}
	m := &Manifest{
		SynthVersion: Version, Config: cfg.outputConfig(), Fingerprint: cfg.Fingerprint(), Seed: cfg.Seed,
		Counts: Counts{BySplit: map[string]int{}, Duplicates: map[string]int{"exact": 0, "near": 0}}, Checks: checkStats(), Failures: map[string]int{}, Stats: newStats(d.Tools.Kind),
	}
	if cfg.DPO {
		m.DPO = &DPOStats{ByFailure: map[string]int{}, BySplit: map[string]int{}}
	}
	if cfg.llmEngine() {
		m.LLM = &LLMStats{}
	}
	if n := len(sums); n > 0 && sums[n-1].End < cfg.N {
		m.Stopped, m.BlueprintsDone = StoppedBudget, sums[n-1].End
	}
	total := map[string]int{}
	for _, s := range sums {
		mergeCounts(&m.Counts, s.Counts)
		for k, c := range s.Checks {
			cs := m.Checks[k]
			if cs == nil {
				cs = &CheckStats{}
				m.Checks[k] = cs
			}
			cs.Passed += c.Passed
			cs.Failed += c.Failed
			cs.Rate = ratio(cs.Passed, cs.Passed+cs.Failed)
		}
		for k, v := range s.Failures {
			m.Failures[k] += v
		}
		s.Stats.FirstSketch, s.Stats.UsersSketch = s.FirstSketch, s.UsersSketch
		s.Stats.ToolSequences, s.Stats.Ngrams = s.Sequences, s.Ngrams
		s.Stats.FirstSet, s.Stats.UsersSet = setOf(s.FirstSet, s.Overflow), setOf(s.UsersSet, s.Overflow)
		m.Stats.merge(s.Stats)
		if m.DPO != nil && s.DPO != nil {
			mergeDPO(m.DPO, s.DPO)
		}
		if m.LLM != nil {
			m.LLM.merge(s.LLM)
		}
		for _, f := range s.Files {
			total[f.Kind+"/"+f.Split]++
		}
	}
	m.Stats.distinct()
	if m.LLM != nil {
		m.LLM.finish(cfg)
	}
	seen := map[string]int{}
	var entries []FileEntry
	for i, s := range sums {
		for _, f := range s.Files {
			key := f.Kind + "/" + f.Split
			name := finalName(f, seen[key], total[key])
			seen[key]++
			src := filepath.Join(chunkDirs[i], f.Name)
			if alt, ok := srcs[i][f.Name]; ok {
				src = alt
			}
			if err := place(src, filepath.Join(out, filepath.FromSlash(name)), f.SHA256, link); err != nil {
				return nil, err
			}
			entries = append(entries, FileEntry{Path: name, Split: f.Split, Rows: f.Rows, SHA256: f.SHA256, Bytes: f.Bytes})
		}
	}
	for _, dup := range dups {
		m.Counts.Duplicates[dup.Reason]++
	}
	if len(dups) > 0 {
		e, err := writeDuplicates(out, dups)
		if err != nil {
			return nil, err
		}
		entries = append(entries, e)
	}
	domEntries, domHash, err := writeDomain(out, d, cfg.Seed)
	if err != nil {
		return nil, err
	}
	entries = append(entries, domEntries...)
	m.Domain = DomainInfo{Name: d.Name, Version: d.Version, Hash: domHash, StateHash: d.Base.Hash()}
	card := Card(m, entries)
	if err := export.WriteFileAtomic(filepath.Join(out, "README.md"), []byte(card)); err != nil {
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
	if err := export.WriteFileAtomic(filepath.Join(out, "manifest.json"), append(raw, '\n')); err != nil {
		return nil, err
	}
	return m, nil
}

// writeDuplicates records each removed dialogue with its kept twin.
func writeDuplicates(out string, dups []Duplicate) (FileEntry, error) {
	s, err := newJSONLSink(out, "rejected/duplicates.jsonl.gz")
	if err != nil {
		return FileEntry{}, err
	}
	for _, d := range dups {
		raw, err := json.Marshal(d)
		if err != nil {
			s.abort()
			return FileEntry{}, err
		}
		if err := s.write(raw); err != nil {
			s.abort()
			return FileEntry{}, err
		}
	}
	return s.commit()
}

func mergeCounts(dst *Counts, src Counts) {
	dst.Blueprints += src.Blueprints
	dst.Simulated += src.Simulated
	dst.Verified += src.Verified
	dst.Rejected += src.Rejected
	dst.SFTRows += src.SFTRows
	dst.DPOPairs += src.DPOPairs
	for k, v := range src.BySplit {
		dst.BySplit[k] += v
	}
}

func mergeDPO(dst, src *DPOStats) {
	dst.Attempts += src.Attempts
	dst.NotFired += src.NotFired
	dst.NoFailure += src.NoFailure
	dst.OtherReason += src.OtherReason
	dst.Unpairable += src.Unpairable
	dst.Pairs += src.Pairs
	for k, v := range src.ByFailure {
		dst.ByFailure[k] += v
	}
	for k, v := range src.BySplit {
		dst.BySplit[k] += v
	}
}

// place puts a chunk file at its final path. A file already there with
// the right content (a finalisation that crashed midway) is kept as is.
// Within one file system the file is hard-linked, not moved, so the chunk
// stays whole until the work dir is removed and a finalisation that
// crashed can simply run again.
func place(src, dst, sum string, link bool) error {
	if got, err := fileSHA(dst); err == nil && got == sum {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if link {
		tmp := filepath.Join(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-link")
		os.Remove(tmp)
		if err := os.Link(src, tmp); err == nil {
			if err := os.Rename(tmp, dst); err != nil {
				os.Remove(tmp)
				return fmt.Errorf("publish %s: %w", dst, err)
			}
			return nil
		}
	}
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("assemble %s: %w", dst, err)
	}
	defer in.Close()
	af, err := export.CreateAtomic(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(af, in); err != nil {
		af.Abort()
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return af.Commit()
}

// removeRelease deletes what a release owns in out (for --force), never
// anything else.
func removeRelease(out string) error {
	for _, e := range []string{"README.md", "manifest.json", "sft", "dpo", "blueprints", "rejected", "domain", workDirName} {
		if err := os.RemoveAll(filepath.Join(out, e)); err != nil {
			return fmt.Errorf("--force: remove %s: %w", filepath.Join(out, e), err)
		}
	}
	return nil
}

// removeStale deletes release files that the new manifest does not list,
// left by an interrupted earlier attempt, and temporaries of a
// finalisation that was killed midway.
func removeStale(out string, m *Manifest) error {
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == workDirName {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), ".") && strings.Contains(d.Name(), ".tmp") {
			return os.Remove(p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, f := range m.Files {
		keep[filepath.FromSlash(f.Path)] = true
	}
	for _, dir := range []string{"sft", "dpo", "blueprints", "rejected"} {
		entries, err := os.ReadDir(filepath.Join(out, dir))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		for _, e := range entries {
			rel := filepath.Join(dir, e.Name())
			if !keep[rel] && !strings.HasPrefix(e.Name(), ".") {
				if err := os.Remove(filepath.Join(out, rel)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
