package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/usersim"
)

// Config is everything a run needs. Every field has a YAML key of the
// same name; command-line flags override the file.
type Config struct {
	Domain       string             `json:"domain"`
	N            int                `json:"n"`
	Seed         uint64             `json:"seed"`
	Out          string             `json:"out"`
	Engine       string             `json:"engine"`
	Writes       string             `json:"writes"`
	WriteWeights []float64          `json:"write_weights,omitempty"`
	Reads        string             `json:"reads"`
	ReadWeights  []float64          `json:"read_weights,omitempty"`
	Behaviors    []string           `json:"behaviors,omitempty"`
	Validation   float64            `json:"validation"`
	Test         float64            `json:"test"`
	MaxTurns     int                `json:"max_turns"`
	ChunkSize    int                `json:"chunk_size"`
	Shard        string             `json:"shard,omitempty"`
	Workers      int                `json:"workers"`
	DPO          bool               `json:"dpo"`
	DPOMode      string             `json:"dpo_mode"`
	DPOMix       map[string]float64 `json:"dpo_mix,omitempty"`
	DPOPairs     int                `json:"dpo_pairs"`
	License      string             `json:"license"`
	Force        bool               `json:"force,omitempty"`
}

// tau2 retail's writes per task: 0:10, 1:60, 2:23, 3:15, 4:5, 5:1 of 114 tasks.
var tau2WriteWeights = []float64{10, 60, 23, 15, 5, 1}

// Defaults returns the default configuration.
func Defaults() Config {
	return Config{
		Domain:     "retail",
		N:          1000,
		Seed:       1,
		Out:        "out/synth",
		Engine:     "embedded",
		Writes:     "0-5",
		Reads:      "2-7",
		Validation: 0.05,
		Test:       0.05,
		MaxTurns:   60,
		ChunkSize:  10000,
		Workers:    runtime.GOMAXPROCS(0),
		License:    "other",
		DPOMode:    PairSegment,
		DPOPairs:   1,
	}
}

// LoadFile reads a YAML (or JSON) config over the defaults. Unknown keys
// are errors: a typo must not silently fall back to a default.
func LoadFile(path string, into *Config) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	// YAML 1.2 (yaml.v3): under YAML 1.1, which sigs.k8s.io/yaml speaks,
	// the key "n" is the boolean false.
	var doc any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("config %s: not valid YAML: %w", path, err)
	}
	if doc == nil {
		return nil
	}
	if _, ok := doc.(map[string]any); !ok {
		return fmt.Errorf("config %s: want a mapping of keys (n: 1000, seed: 1, ...), got %T", path, doc)
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return fmt.Errorf("config %s: %s", path, strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// Spec checks the config and derives the blueprint controls.
func (c *Config) Spec() (blueprints.Spec, error) {
	var errs []error
	if c.N <= 0 {
		errs = append(errs, fmt.Errorf("-n %d: the number of blueprints must be at least 1", c.N))
	}
	switch c.Engine {
	case "embedded":
	case "llm", "hybrid":
		errs = append(errs, fmt.Errorf("--engine %s: this build runs the embedded engine only; use --engine embedded", c.Engine))
	default:
		errs = append(errs, fmt.Errorf("--engine %q: want embedded", c.Engine))
	}
	if c.Workers < 1 {
		errs = append(errs, fmt.Errorf("--workers %d: need at least 1", c.Workers))
	}
	if c.ChunkSize < 1 {
		errs = append(errs, fmt.Errorf("chunk_size %d: need at least 1", c.ChunkSize))
	}
	if c.MaxTurns < 4 {
		errs = append(errs, fmt.Errorf("max_turns %d: need at least 4", c.MaxTurns))
	}
	if c.Validation < 0 || c.Test < 0 || c.Validation+c.Test >= 1 {
		errs = append(errs, fmt.Errorf("validation %.3g and test %.3g: shares must be >= 0 and sum below 1", c.Validation, c.Test))
	}
	if c.Out == "" {
		errs = append(errs, errors.New("--out: an output directory is required"))
	}
	w, err := blueprints.ParseRange(c.Writes)
	if err != nil {
		errs = append(errs, fmt.Errorf("--writes: %w", err))
	}
	r, err := blueprints.ParseRange(c.Reads)
	if err != nil {
		errs = append(errs, fmt.Errorf("--reads: %w", err))
	}
	behaviors := c.Behaviors
	if len(behaviors) == 0 {
		behaviors = usersim.Profiles()
	}
	for _, b := range behaviors {
		if !slices.Contains(usersim.Profiles(), b) {
			errs = append(errs, fmt.Errorf("behaviors: unknown profile %q (known: %s)", b, strings.Join(usersim.Profiles(), ", ")))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return blueprints.Spec{}, err
	}
	ww := c.WriteWeights
	if ww == nil && c.Writes == Defaults().Writes {
		ww = tau2WriteWeights
	}
	return blueprints.Spec{
		Seed: c.Seed, Writes: w, WriteWeights: ww, Reads: r, ReadWeights: c.ReadWeights,
		Behaviors: behaviors, Validation: c.Validation, Test: c.Test,
	}, nil
}

// outputConfig is the part of the config that determines the output:
// the fingerprint ignores worker count and paths, so a rerun with more
// workers or a moved directory is the same release.
func (c Config) outputConfig() map[string]any {
	raw, _ := json.Marshal(c)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	for _, k := range []string{"out", "workers", "force", "shard"} {
		delete(m, k)
	}
	return m
}

// Fingerprint identifies the output a config produces with this version
// of synth: another version may phrase or verify differently.
func (c Config) Fingerprint() string {
	raw, _ := json.Marshal(map[string]any{"synth": Version, "config": c.outputConfig()})
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// diff lists the output-relevant fields that differ between two configs.
func diffConfigs(old, cur map[string]any) []string {
	keys := map[string]bool{}
	for k := range old {
		keys[k] = true
	}
	for k := range cur {
		keys[k] = true
	}
	var out []string
	for k := range keys {
		a, _ := json.Marshal(old[k])
		b, _ := json.Marshal(cur[k])
		if !bytes.Equal(a, b) {
			out = append(out, fmt.Sprintf("%s: %s in the release, %s now", k, a, b))
		}
	}
	slices.Sort(out)
	return out
}
