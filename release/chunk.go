package release

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/synth-data/synth/engine"
	"github.com/synth-data/synth/internal/limitio"
)

// ChunkFile is one file a chunk produced.
type ChunkFile struct {
	Kind   string `json:"kind"` // sft, dpo, blueprints, rejected, dpo_failures
	Split  string `json:"split,omitempty"`
	Name   string `json:"name"` // relative to the chunk folder
	Rows   int64  `json:"rows"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// ChunkSummary is written last into a chunk folder: counts, statistics
// and files, everything the final manifest needs without re-reading rows.
type ChunkSummary struct {
	Index       int    `json:"index"`
	First       int    `json:"first"`
	End         int    `json:"end"`
	Fingerprint string `json:"fingerprint"`
	// SignaturesSHA256 is the hash of the chunk's dedup signatures.
	SignaturesSHA256 string                 `json:"signatures_sha256"`
	Counts           Counts                 `json:"counts"`
	Checks           map[string]*CheckStats `json:"checks"`
	Failures         map[string]int         `json:"failures"`
	Stats            *Stats                 `json:"stats"`
	FirstSketch      *hll                   `json:"first_sketch"`
	UsersSketch      *hll                   `json:"users_sketch"`
	Sequences        map[string]int         `json:"tool_sequences"`
	FirstSet         []uint64               `json:"first_set,omitempty"`
	UsersSet         []uint64               `json:"users_set,omitempty"`
	Overflow         bool                   `json:"exact_sets_overflowed,omitempty"`
	Ngrams           map[string]*ngrams     `json:"ngrams"`
	DPO              *engine.DPOStats       `json:"dpo,omitempty"`
	LLM              *engine.LLMStats       `json:"llm,omitempty"`
	Files            []ChunkFile            `json:"files"`
}

// ReadSummary reads a chunk folder's summary.json.
func ReadSummary(dir string) (*ChunkSummary, error) {
	raw, err := limitio.ReadRegular(filepath.Join(dir, "summary.json"), limitio.SmallFile)
	if err != nil {
		return nil, err
	}
	var s ChunkSummary
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "summary.json"), err)
	}
	return &s, nil
}
