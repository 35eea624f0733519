package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Merge combines the work of shard runs (synth run --shard I/N into
// several out dirs, e.g. on a shared volume) into one release in dir,
// byte-identical to a single-machine run of the same config. The shard
// outputs are read, not changed.
func Merge(outs []string, dir string, force bool) (*Manifest, error) {
	if len(outs) == 0 {
		return nil, errors.New("give the shard output directories to merge")
	}
	var cfg Config
	var fp string
	chunks := map[int]string{}
	for _, out := range outs {
		work := filepath.Join(out, workDirName)
		raw, err := os.ReadFile(filepath.Join(work, "run.json"))
		if err != nil {
			if _, merr := ReadManifest(out); merr == nil {
				return nil, fmt.Errorf("%s is a finished release, not a shard output; merge the outputs of synth run --shard I/N", out)
			}
			return nil, fmt.Errorf("%s holds no shard output (%v); run synth run --shard I/N --out %s first", out, err, out)
		}
		var rf runFile
		if err := json.Unmarshal(raw, &rf); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(work, "run.json"), err)
		}
		if fp == "" {
			fp, cfg = rf.Fingerprint, rf.Full
		} else if rf.Fingerprint != fp {
			return nil, fmt.Errorf("%s was made with another config than %s:\n  %s", out, outs[0], strings.Join(diffConfigs(cfg.outputConfig(), rf.Config), "\n  "))
		}
		done, err := doneChunks(work)
		if err != nil {
			return nil, err
		}
		for i, d := range done {
			if _, dup := chunks[i]; !dup {
				chunks[i] = d
			}
		}
	}
	if cfg.Fingerprint() != fp {
		return nil, fmt.Errorf("%s: the recorded config does not match its fingerprint; was it edited?", outs[0])
	}
	n := (cfg.N + cfg.ChunkSize - 1) / cfg.ChunkSize
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
	cfg.Out, cfg.Shard, cfg.Force = dir, "", force
	if m, err := ReadManifest(dir); err == nil {
		if m.Fingerprint == fp {
			return m, nil
		}
		if !force {
			return nil, differs("a release", dir, m.Config, m.SynthVersion, cfg)
		}
		if err := removeRelease(dir); err != nil {
			return nil, err
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("-o %s: %w", dir, err)
	}
	if len(entries) > 0 && !force {
		return nil, fmt.Errorf("-o %s is not empty; choose a new or empty directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("-o %s: %w", dir, err)
	}
	m, err := finalize(cfg, dirs, dir, false)
	if err != nil {
		return nil, err
	}
	return m, removeStale(dir, m)
}
