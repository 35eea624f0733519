package release

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/engine"
	"github.com/synth-data/synth/internal/limitio"
	"github.com/synth-data/synth/schemas"
)

// Splits in release order.
var Splits = []string{"train", "validation", "test"}

// StoppedBudget is Manifest.Stopped of a run the LLM budget stopped.
const StoppedBudget = "budget"

// Manifest describes a release. It is written last; a folder without one
// is not a release.
type Manifest struct {
	SynthVersion string `json:"synth_version"`
	// Format is the version of the column contract of the release's
	// Parquet files (export.FormatVersion): 2 stores messages and tools as
	// Json() objects, 3 adds the sft column kind (recovery rows), 4 the
	// sft column labels (per-turn credit labels); releases without it are
	// format 1 (struct messages, arguments and tools as JSON text). The
	// readers read all four.
	Format      int                    `json:"format,omitempty"`
	Config      map[string]any         `json:"config"`
	Fingerprint string                 `json:"fingerprint"`
	Seed        uint64                 `json:"seed"`
	Domain      DomainInfo             `json:"domain"`
	Counts      Counts                 `json:"counts"`
	Checks      map[string]*CheckStats `json:"checks"`
	Failures    map[string]int         `json:"failures"`
	Stats       *Stats                 `json:"stats"`
	DPO         *engine.DPOStats       `json:"dpo,omitempty"`
	LLM         *engine.LLMStats       `json:"llm,omitempty"`
	// Stopped is "budget" when the LLM budget ran out; the release then
	// holds the first BlueprintsDone blueprints of the n asked for.
	Stopped        string `json:"stopped,omitempty"`
	BlueprintsDone int    `json:"blueprints_done,omitempty"`
	// Notes say how default controls were adapted to the domain (a pack
	// whose writes need fewer reads than the default range).
	Notes []string `json:"notes,omitempty"`
	// UnusedWrites are the domain's write tools no task uses, each with
	// why (the pack leaves it out, no source for an argument, every trial
	// failed or changed nothing): the writes a release does not cover.
	UnusedWrites map[string]string `json:"unused_writes,omitempty"`
	// Holdout is set when the domain holds tasks out of generation.
	Holdout *HoldoutInfo `json:"holdout,omitempty"`
	// Sources are the input files of a release synth verify --keep made.
	Sources []Source    `json:"sources,omitempty"`
	Files   []FileEntry `json:"files"`
}

// DomainInfo identifies the domain a release was built from.
type DomainInfo struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	Hash      string `json:"hash"`       // over the files in domain/
	StateHash string `json:"state_hash"` // canonical hash of the initial database
}

// Counts per stage.
type Counts struct {
	Blueprints int            `json:"blueprints"`
	Simulated  int            `json:"simulated"`
	Verified   int            `json:"verified"`
	Rejected   int            `json:"rejected"`
	SFTRows    int            `json:"sft_rows"`
	BySplit    map[string]int `json:"sft_rows_by_split"`
	DPOPairs   int            `json:"dpo_pairs,omitempty"`
	// Duplicates removed before export, by reason (exact, near).
	Duplicates map[string]int `json:"duplicates_removed,omitempty"`
	// HeldOut counts drawn tasks dropped because their writes equalled a
	// held-out task's.
	HeldOut int `json:"held_out_dropped,omitempty"`
}

// HoldoutInfo says a release was checked against a pack's held-out
// tasks (a benchmark's test set) and how many drawn tasks equalled one.
type HoldoutInfo struct {
	File    string `json:"file"`
	Tasks   int    `json:"tasks"`
	Dropped int    `json:"dropped"`
}

// FileEntry is one file of a release.
type FileEntry struct {
	Path   string `json:"path"`
	Split  string `json:"split,omitempty"`
	Rows   int64  `json:"rows,omitempty"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// ReadManifest reads DIR/manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, "manifest.json")
	raw, err := limitio.ReadRegular(path, limitio.Manifest)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s is not a valid manifest: %w", path, err)
	}
	return &m, nil
}

// CheckFiles is the cheap check of a release's files that every command
// reading it makes before it reads: each file the manifest lists under
// prefix ("" for all) is a plain file inside the release, of the size
// listed. A truncated shard, one linked to /dev/zero or swapped for a
// fifo is found here, by the commands that read only part of a release
// (inspect, stats), as synth validate finds it by its sha256.
func (m *Manifest) CheckFiles(dir, prefix string) error {
	for _, f := range m.Files {
		if !strings.HasPrefix(f.Path, prefix) {
			continue
		}
		if !filepath.IsLocal(filepath.FromSlash(f.Path)) {
			return fmt.Errorf("%s: the manifest lists %q, which is not a path inside the release; run synth validate %s", dir, f.Path, dir)
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		info, err := os.Lstat(p)
		switch {
		case err != nil:
			return fmt.Errorf("%s is damaged: %w; run synth validate %s", dir, err, dir)
		case !info.Mode().IsRegular():
			return fmt.Errorf("%s is damaged: %s is not a regular file (%s); run synth validate %s", dir, f.Path, limitio.Kind(info.Mode()), dir)
		case info.Size() != f.Bytes:
			return fmt.Errorf("%s is damaged: %s is %d bytes, the manifest says %d; run synth validate %s", dir, f.Path, info.Size(), f.Bytes, dir)
		}
	}
	return nil
}

// FileEntryOf is the entry of a file of the release at rel holding data.
func FileEntryOf(rel string, data []byte) FileEntry {
	sum := sha256.Sum256(data)
	return FileEntry{Path: rel, SHA256: hex.EncodeToString(sum[:]), Bytes: int64(len(data))}
}

// DomainFiles returns what a release ships in domain/: the domain's
// defining files, its identity, and the record schemas, so the release
// can be re-checked without synth's config.
func DomainFiles(d *domain.Domain, seed uint64) map[string][]byte {
	files := map[string][]byte{}
	for name, b := range d.Files {
		files["domain/"+name] = b
	}
	info, _ := json.MarshalIndent(map[string]any{"name": d.Name, "version": d.Version, "seed": seed, "state_hash": d.Base.Hash()}, "", "  ")
	files["domain/domain.json"] = append(info, '\n')
	for name, b := range schemas.Files() {
		files["domain/schemas/"+name] = b
	}
	return files
}

// DomainHash is the manifest's domain hash: sha256 over the sorted
// "path\x00sha256\n" lines of the domain/ files.
func DomainHash(sums map[string]string) string {
	paths := slices.Sorted(maps.Keys(sums))
	h := sha256.New()
	for _, p := range paths {
		h.Write([]byte(p + "\x00" + sums[p] + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// EngineOutside marks a release of dialogues made elsewhere and kept by
// synth verify --keep.
const EngineOutside = "outside"

// Source is one input file of a kept release.
type Source struct {
	File      string `json:"file"` // the name it was given, without its folders
	SHA256    string `json:"sha256"`
	Dialogues int    `json:"dialogues"`
	Passed    int    `json:"passed"`
	Kept      int    `json:"kept"`
}
