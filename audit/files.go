package audit

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/release"
)

// checkFiles compares every listed file with its entry: present, a
// regular file, of the listed size and sha256.
func (s *state) checkFiles(ctx context.Context) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(s.workers)
	for _, e := range s.doc.entries {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			sum, n, err := s.hashFile(e.Path)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					s.defects.add(e.Path, NoRow, "", "missing", "listed in the manifest but not in the release")
				} else {
					s.defects.add(e.Path, NoRow, "", "read", "%v", err)
				}
				return nil
			}
			s.mu.Lock()
			s.sums[e.Path] = sum
			s.mu.Unlock()
			if n != e.Bytes {
				s.defects.add(e.Path, NoRow, "", "bytes", "the file has %d bytes, the manifest says %d", n, e.Bytes)
			}
			if sum != e.SHA256 {
				s.defects.add(e.Path, NoRow, "", "sha256", "the file's sha256 is %s, the manifest says %s", release.Short(sum), release.Short(e.SHA256))
			}
			return nil
		})
	}
	return g.Wait()
}

// hashFile streams a release file through sha256. Symlinks are refused:
// a release is self-contained, and a link could make validate vouch for
// a file outside it.
func (s *state) hashFile(rel string) (string, int64, error) {
	p := s.path(rel)
	info, err := os.Lstat(p)
	if err != nil {
		return "", 0, err
	}
	if !info.Mode().IsRegular() {
		return "", 0, fmt.Errorf("%s is not a regular file (%s)", rel, info.Mode().Type())
	}
	f, err := limitio.OpenRegular(p)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("read %s: %w", rel, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// checkUnlisted flags every file in the release folders that the
// manifest does not list, hidden ones included: a loader globbing
// sft/*.parquet would pick up a stray shard, and a leftover temporary
// means a run did not finish cleanly.
func (s *state) checkUnlisted() {
	listed := map[string]bool{}
	for _, f := range s.doc.m.Files {
		listed[f.Path] = true
	}
	for _, top := range dataDirs {
		root := s.path(top)
		info, err := os.Lstat(root)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			s.defects.add(top+"/", NoRow, "", "read", "%v", err)
			continue
		}
		if !info.IsDir() {
			s.defects.add(top+"/", NoRow, "", "unlisted", "%s is a %s, not a folder", top, info.Mode().Type())
			continue
		}
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				rel, _ := filepath.Rel(s.dir, p)
				s.defects.add(filepath.ToSlash(rel), NoRow, "", "read", "%v", err)
				return nil
			}
			if p == root {
				return nil
			}
			rel, err := filepath.Rel(s.dir, p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			hidden := strings.HasPrefix(d.Name(), ".")
			switch {
			case d.IsDir() && hidden:
				s.defects.add(rel+"/", NoRow, "", "hidden", "hidden folder in a release folder (left over from an interrupted run?)")
				return filepath.SkipDir
			case d.IsDir():
				return nil
			case hidden:
				s.defects.add(rel, NoRow, "", "hidden", "hidden file in a release folder (left over from an interrupted run?)")
			case !listed[rel]:
				s.defects.add(rel, NoRow, "", "unlisted", "not listed in the manifest")
			}
			return nil
		})
		if err != nil {
			s.defects.add(top+"/", NoRow, "", "read", "%v", err)
		}
	}
}

// checkDomain checks that the domain pack shipped in domain/ is the one
// the manifest names and the one this synth builds for the release's
// seed: the rows are re-verified against the built-in domain, so that
// is only meaningful if the two agree.
func (s *state) checkDomain() {
	m, d := s.doc.m, s.dom
	if got := d.Base.Hash(); got != m.Domain.StateHash {
		s.defects.add("manifest.json", NoRow, "", "domain", "the %s database for seed %d hashes to %s, the manifest says %s (built by another synth version?)",
			d.Name, m.Seed, release.Short(got), release.Short(m.Domain.StateHash))
	}
	if d.Version != m.Domain.Version {
		s.defects.add("manifest.json", NoRow, "", "domain", "release built from %s %s, this synth has %s %s", d.Name, m.Domain.Version, d.Name, d.Version)
	}
	// The domain hash covers the domain/ entries: sha256 over sorted
	// "path\x00sha256\n" lines. The sums are the files' own, so a file
	// changed with its entry is caught here too.
	sums := map[string]string{}
	for _, e := range s.doc.entries {
		if e.kind == kindDomain {
			sums[e.Path] = e.SHA256
			if sum, ok := s.sums[e.Path]; ok {
				sums[e.Path] = sum
			}
		}
	}
	if got := release.DomainHash(sums); got != m.Domain.Hash {
		s.defects.add("manifest.json", NoRow, "", "domain", "the domain/ files hash to %s, the manifest says %s", release.Short(got), release.Short(m.Domain.Hash))
	}

	want := release.DomainFiles(d, m.Seed)
	// domain.json is compared field by field below, for a clearer message.
	delete(want, "domain/domain.json")
	for _, name := range slices.Sorted(maps.Keys(want)) {
		got, err := s.readListed(name)
		if err != nil {
			s.defects.add(name, NoRow, "", "domain", "%v", err)
			continue
		}
		if !bytes.Equal(got, want[name]) {
			s.defects.add(name, NoRow, "", "domain", "differs from the built-in %s domain's file (%d bytes, built-in %d)", d.Name, len(got), len(want[name]))
		}
	}
	s.checkDomainInfo()
}

// checkDomainInfo compares domain/domain.json with the manifest.
func (s *state) checkDomainInfo() {
	const name = "domain/domain.json"
	raw, err := s.readListed(name)
	if err != nil {
		s.defects.add(name, NoRow, "", "domain", "%v", err)
		return
	}
	var info struct {
		Name      string `json:"name"`
		Version   string `json:"version"`
		Seed      uint64 `json:"seed"`
		StateHash string `json:"state_hash"`
	}
	if err := json.Unmarshal(raw, &info); err != nil {
		s.defects.add(name, NoRow, "", "domain", "not valid JSON: %v", err)
		return
	}
	m := s.doc.m
	if info.Name != m.Domain.Name || info.Version != m.Domain.Version || info.Seed != m.Seed || info.StateHash != m.Domain.StateHash {
		s.defects.add(name, NoRow, "", "domain", "says %s %s seed %d state %s; the manifest says %s %s seed %d state %s",
			info.Name, info.Version, info.Seed, release.Short(info.StateHash), m.Domain.Name, m.Domain.Version, m.Seed, release.Short(m.Domain.StateHash))
	}
}

// readListed reads a small release file that the manifest must list.
func (s *state) readListed(rel string) ([]byte, error) {
	listed := false
	for _, e := range s.doc.entries {
		listed = listed || e.Path == rel
	}
	if !listed {
		return nil, fmt.Errorf("the manifest does not list %s", rel)
	}
	if _, ok := s.sums[rel]; !ok {
		return nil, fmt.Errorf("%s cannot be read", rel)
	}
	return limitio.ReadRegular(s.path(rel), limitio.SmallFile)
}

// workDirName is the hidden folder synth run works in; finalisation
// removes it after the manifest is written.
const workDirName = ".synth-work"

// checkWorkDir flags the work dir of a run left beside a manifest: the run
// was stopped between writing the manifest and cleaning up (or another run
// is writing into the folder). Loaders ignore hidden folders, but the
// folder is not a clean release until the run finishes.
func (s *state) checkWorkDir() {
	info, err := os.Lstat(s.path(workDirName))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		s.defects.add(workDirName+"/", NoRow, "", "work_dir", "%v", err)
	case !info.IsDir():
		s.defects.add(workDirName+"/", NoRow, "", "work_dir", "%s is a %s where synth keeps its work dir", workDirName, info.Mode().Type())
	default:
		s.defects.add(workDirName+"/", NoRow, "", "work_dir",
			"the work dir of synth run is still here: the run stopped after writing the manifest but before cleaning up, or is still running; rerun the same synth run command, which finishes and removes it")
	}
}

// bpInfo is a blueprint and where it was read.
type bpInfo struct {
	bp    *record.Blueprint
	file  string
	line  int
	split string // from its file's name
}

// failureRecord is the proof behind a DPO pair: the check its rejected
// side failed when the run made it.
type failureRecord struct {
	PairID      string `json:"pair_id"`
	BlueprintID string `json:"blueprint_id"`
	Split       string `json:"split"`
	Failure     string `json:"failure"`
	Check       string `json:"check"`
	Reason      string `json:"reason"`
	FlawGoal    int    `json:"flaw_goal"`
	// Evidence was set by releases before 0.12 on a pair made on the
	// decision its mistake followed from (its rows did not show it);
	// validate fails such a record.
	Evidence int `json:"evidence,omitempty"`
	// Trajectory is the failed dialogue itself, for pairs of the LLM
	// engine, whose failures cannot be re-simulated.
	Trajectory *record.Trajectory `json:"trajectory,omitempty"`
	file       string
	line       int
	paired     bool // guarded by state.mu
}

// rejectedRecord is a dialogue that failed verification.
type rejectedRecord struct {
	BlueprintID string             `json:"blueprint_id"`
	Split       string             `json:"split"`
	Check       string             `json:"check"`
	Reason      string             `json:"reason"`
	Trajectory  *record.Trajectory `json:"trajectory"`
	// Trial is set on the LLM engine's records: one failed trial of a
	// blueprint that may have others, and a verified one in sft/.
	Trial *int `json:"trial,omitempty"`
	// Labels are the dialogue's credit labels (format 4 on).
	Labels json.RawMessage `json:"labels,omitempty"`
	file   string
	line   int
}

// duplicateRecord is a verified dialogue that the run dropped because
// it repeats another one, kept_blueprint_index's.
type duplicateRecord struct {
	ID        string `json:"id"`
	Split     string `json:"split"`
	KeptIndex int    `json:"kept_blueprint_index"`
	Reason    string `json:"reason"`
	file      string
	line      int
}

// readBlueprints loads every blueprint. A blueprint id in two files is
// a split leak when the files' splits differ.
func (s *state) readBlueprints() {
	readRecords(s, kindBlueprints, "blueprint", "a blueprint", func(e entry, line int, bp *record.Blueprint) {
		switch prev, dup := s.bps[bp.ID]; {
		case bp.ID == "":
			s.defects.add(e.Path, line, "", "blueprint", "blueprint without an id")
			return
		case dup && prev.split != e.split:
			s.defects.add(e.Path, line, bp.ID, "split", "blueprint is in split %s here and in split %s (%s line %d)", e.split, prev.split, prev.file, prev.line+1)
			return
		case dup:
			s.defects.add(e.Path, line, bp.ID, "duplicate", "blueprint also at %s line %d", prev.file, prev.line+1)
			return
		}
		if bp.Split != e.split {
			s.defects.add(e.Path, line, bp.ID, "split", "blueprint says split %q but is in the %s file", bp.Split, e.split)
		}
		if s.dom != nil && s.dom.Model != nil {
			if id, held := s.dom.Model.Holdout.Match(blueprints.WriteCalls(bp)); held {
				s.defects.add(e.Path, line, bp.ID, "holdout", "the task's writes equal held-out task %s of %s: a benchmark's test task is in the release", id, s.dom.HoldoutFile)
			}
		}
		if bp.Domain != s.doc.m.Domain.Name || bp.Seed != s.doc.m.Seed {
			s.defects.add(e.Path, line, bp.ID, "blueprint", "blueprint of domain %s seed %d in a release of %s seed %d", bp.Domain, bp.Seed, s.doc.m.Domain.Name, s.doc.m.Seed)
		}
		s.bps[bp.ID] = &bpInfo{bp: bp, file: e.Path, line: line, split: e.split}
	})
}

// readFailures loads the proofs of the DPO pairs.
func (s *state) readFailures() {
	readRecords(s, kindDPOFailures, "dpo", "a failure record", func(e entry, line int, r *failureRecord) {
		if prev, dup := s.failures[r.PairID]; dup {
			s.defects.add(e.Path, line, r.PairID, "duplicate", "failure record also at %s line %d", prev.file, prev.line+1)
			return
		}
		r.file, r.line = e.Path, line
		s.failures[r.PairID] = r
	})
}

// readRejected loads the dialogues that failed verification.
func (s *state) readRejected() {
	readRecords(s, kindRejected, "rejected", "a rejected record", func(e entry, line int, r *rejectedRecord) {
		r.file, r.line = e.Path, line
		s.rejected = append(s.rejected, r)
	})
}

// readDuplicates loads the records of the dialogues dropped as
// duplicates of others.
func (s *state) readDuplicates() {
	readRecords(s, kindDuplicates, "duplicates", "a duplicate record", func(e entry, line int, r *duplicateRecord) {
		r.file, r.line = e.Path, line
		s.dups = append(s.dups, r)
	})
}

// readRecords decodes each line of the kind's files as a T and hands it
// to keep; a line that is not one is a defect of check.
func readRecords[T any](s *state, kind, check, what string, keep func(e entry, line int, r *T)) {
	for _, e := range s.entries(kind) {
		s.readJSONLEntry(e, func(line int, raw []byte) {
			r := new(T)
			if err := json.Unmarshal(raw, r); err != nil {
				s.defects.add(e.Path, line, "", check, "not %s: %v", what, err)
				return
			}
			keep(e, line, r)
		})
	}
}

// readJSONLEntry reads a listed JSON-lines file, recording its line
// count and any damage as defects.
func (s *state) readJSONLEntry(e entry, fn func(line int, raw []byte)) {
	if _, ok := s.sums[e.Path]; !ok {
		s.unreadable[e.kind] = true // already reported as missing or unreadable
		return
	}
	n, err := readJSONL(s.path(e.Path), e.Rows, fn)
	if err != nil {
		s.unreadable[e.kind] = true
		s.defects.add(e.Path, NoRow, "", "read", "%v", err)
		return
	}
	if int64(n) != e.Rows {
		s.defects.add(e.Path, NoRow, "", "rows", "the file holds %d lines, the manifest says %d", n, e.Rows)
	}
}

// readJSONL calls fn with each line of a gzipped JSON-lines file and its
// 0-based number, and returns the number of lines. A line longer than
// limitio.Line, or a line past the rows the manifest lists, ends the read:
// a small compressed file can expand without end, and its lines are held
// in memory.
func readJSONL(path string, rows int64, fn func(line int, raw []byte)) (int, error) {
	f, err := limitio.OpenRegular(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return 0, fmt.Errorf("%s is not gzip: %w", filepath.Base(path), err)
	}
	br := bufio.NewReaderSize(zr, 1<<16)
	n := 0
	for {
		line, err := limitio.ReadLine(br, limitio.Line)
		if len(line) > 0 {
			if int64(n) >= rows {
				return n, fmt.Errorf("the file holds more than the %d lines the manifest lists", rows)
			}
			if line[len(line)-1] != '\n' {
				return n, fmt.Errorf("line %d: the file ends without a newline (truncated?)", n+1)
			}
			fn(n, line)
			n++
		}
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("after line %d: %w", n, err)
		}
	}
}
