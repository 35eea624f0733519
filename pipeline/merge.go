package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/export"
	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/internal/realpath"
	"github.com/synth-data/synth/release"
)

// apartFrom refuses a merge target that is one of the shard outputs,
// lies in one or holds one, however it is spelled (links, ..): the merge
// clears its target's work dir, which would be the shard's chunks.
func apartFrom(outs []string, dir string) error {
	for _, out := range outs {
		_, in := realpath.Within(out, dir)
		_, holds := realpath.Within(dir, out)
		if in || holds {
			return fmt.Errorf("-o %s is the shard output %s, or lies in it or holds it: synth merge only reads the shard outputs; give -o a folder of its own", dir, out)
		}
	}
	return nil
}

// Merge combines the work of shard runs (synth run --shard I/N into
// several out dirs, e.g. on a shared volume) into one release in dir,
// byte-identical to a single-machine run of the same config. The shard
// outputs are read, not changed.
func Merge(outs []string, dir string, force bool) (*release.Manifest, error) {
	if len(outs) == 0 {
		return nil, errors.New("give the shard output directories to merge")
	}
	if err := apartFrom(outs, dir); err != nil {
		return nil, err
	}
	cfg, fp, chunks, err := readShards(outs)
	if err != nil {
		return nil, err
	}
	d, err := domains.Load(cfg.Domain, cfg.Seed)
	if err != nil {
		return nil, err
	}
	cfg.bindDomain(d)
	if cfg.Fingerprint() != fp {
		return nil, fmt.Errorf("%s: the recorded config does not match its fingerprint; was it (or the domain pack %s) edited?", outs[0], cfg.Domain)
	}
	dirs, err := chunkDirs(chunks, (cfg.N+cfg.ChunkSize-1)/cfg.ChunkSize, fp)
	if err != nil {
		return nil, err
	}
	cfg.Out, cfg.Shard, cfg.Force = dir, "", force
	unlock, err := claimOut("-o", dir, force)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if m, err := mergeTarget(dir, fp, cfg, force); m != nil || err != nil {
		return m, err
	}
	// The merge's own work dir marks what it places as synth's.
	work := filepath.Join(dir, workDirName)
	raw, _ := json.MarshalIndent(runFile{Fingerprint: fp, Version: Version, Config: cfg.outputConfig(), Full: cfg}, "", "  ")
	if err := export.WriteFileAtomic(filepath.Join(work, "run.json"), raw); err != nil {
		return nil, fmt.Errorf("-o %s is not writable: %w", dir, err)
	}
	// The shards adapted the controls as one run does: ask the generator.
	gen, err := Generator(cfg, d)
	if err != nil {
		return nil, err
	}
	unused := gen.Unused()
	m, err := finalize(cfg, d, gen.Notes(), dirs, dir, work, false, func(m *release.Manifest) { m.UnusedWrites = unusedWrites(unused, d, m.Stats) })
	if err != nil {
		return nil, err
	}
	if err := removeStale(dir, m); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(work); err != nil {
		return nil, fmt.Errorf("remove %s: %w", work, err)
	}
	return m, nil
}

// readShards reads each shard output's recorded config and finished
// chunks; the shards must share one config (the first's), and a chunk
// two shards finished is taken from the first.
func readShards(outs []string) (Config, string, map[int]string, error) {
	var cfg Config
	var fp string
	chunks := map[int]string{}
	for _, out := range outs {
		work := filepath.Join(out, workDirName)
		raw, err := limitio.ReadRegular(filepath.Join(work, "run.json"), limitio.SmallFile)
		if err != nil {
			if _, merr := release.ReadManifest(out); merr == nil {
				return cfg, "", nil, fmt.Errorf("%s is a finished release, not a shard output; merge the outputs of synth run --shard I/N", out)
			}
			return cfg, "", nil, fmt.Errorf("%s holds no shard output (%v); run synth run --shard I/N --out %s first", out, err, out)
		}
		var rf runFile
		if err := json.Unmarshal(raw, &rf); err != nil {
			return cfg, "", nil, fmt.Errorf("%s: %w", filepath.Join(work, "run.json"), err)
		}
		if fp == "" {
			fp, cfg = rf.Fingerprint, rf.Full
		} else if rf.Fingerprint != fp {
			return cfg, "", nil, fmt.Errorf("%s was made with another config than %s:\n  %s", out, outs[0], strings.Join(diffConfigs(cfg.outputConfig(), rf.Config), "\n  "))
		}
		done, err := doneChunks(work)
		if err != nil {
			return cfg, "", nil, err
		}
		for i, d := range done {
			if _, dup := chunks[i]; !dup {
				chunks[i] = d
			}
		}
	}
	return cfg, fp, chunks, nil
}

// chunkDirs puts the n chunks in order, refusing when one is missing or
// was not made by the run with fingerprint fp.
func chunkDirs(chunks map[int]string, n int, fp string) ([]string, error) {
	var missing []string
	dirs := make([]string, n)
	for i := range dirs {
		d, ok := chunks[i]
		if !ok {
			missing = append(missing, fmt.Sprint(i))
			continue
		}
		dirs[i] = d
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("chunks %s of %d are missing: a shard has not finished (rerun its synth run --shard command), or not every shard output was given", strings.Join(missing, ", "), n)
	}
	for i, d := range dirs {
		if _, err := checkChunk(d, i, fp); err != nil {
			return nil, fmt.Errorf("chunk %d in %s cannot be merged: %w; rerun the shard that made it", i, d, err)
		}
	}
	return dirs, nil
}

// mergeTarget readies the claimed target dir: the release already there
// when it is this merge's, else an empty dir (cleared with force, or left
// as an unfinished merge of the same shards left it).
func mergeTarget(dir, fp string, cfg Config, force bool) (*release.Manifest, error) {
	o, err := readOwned(dir)
	if err != nil {
		return nil, err
	}
	if m, err := release.ReadManifest(dir); err == nil {
		if m.Fingerprint == fp {
			return m, nil
		}
		if !force {
			return nil, differs("a release", dir, m.Config, m.SynthVersion, cfg)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("-o %s: %w", dir, err)
	}
	for _, e := range entries {
		if e.Name() == workDirName {
			continue
		}
		if o.work && o.workFP == fp && !o.manifest && o.foreign("-o") == nil {
			return nil, nil // an earlier merge of the same shards that did not finish: redone over
		}
		if !force {
			return nil, fmt.Errorf("-o %s is not empty; choose a new or empty directory", dir)
		}
		return nil, o.clear("-o")
	}
	return nil, nil
}
