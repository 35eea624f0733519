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
	"github.com/synth-data/synth/llm"
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

	// The LLM engines (--engine llm or hybrid). Only the name of the
	// environment variable holding the API key is ever configured; the
	// key itself never enters a Config.
	LLM llm.Config `json:"llm"`
	// User plays the customer in the llm engine: llm or embedded (the
	// rule-based user answering the LLM agent).
	User string `json:"user"`
	// Trials is how many dialogues the llm engine plays per blueprint at
	// most before giving up (APIGen-MT's rejection sampling).
	Trials int `json:"trials"`
	// Judges review each LLM-written instruction (0: no review).
	Judges int `json:"judges"`
	// Rewrites is how often a rejected instruction is rewritten with the
	// judges' feedback before the template instruction is kept.
	Rewrites int `json:"rewrites"`
	// Instructions: template (the blueprint's own) or llm (writer role);
	// "" means llm for the llm engine and template otherwise.
	Instructions string `json:"instructions"`
	// MaxToolErrors ends an LLM dialogue after this many failed tool calls.
	MaxToolErrors int `json:"max_tool_errors"`
	// Dialogues is how many LLM dialogues run at once; 0 means twice the
	// client's max_concurrency. Output does not depend on it.
	Dialogues int `json:"dialogues"`
}

// Engines.
const (
	EngineEmbedded = "embedded"
	EngineLLM      = "llm"
	EngineHybrid   = "hybrid"
)

// llmEngine reports whether the engine talks to a model endpoint.
func (c Config) llmEngine() bool { return c.Engine == EngineLLM || c.Engine == EngineHybrid }

// llmKeys are the config keys of the LLM engines, left out of an
// embedded run's recorded config so that its fingerprint does not
// depend on settings it never reads.
var llmKeys = []string{"llm", "user", "trials", "judges", "rewrites", "instructions", "max_tool_errors", "dialogues"}

// llmRunKeys are the llm settings that change how a run spends (limits,
// concurrency, retries, where the cache lives, where the endpoint is)
// but not what it produces: responses are cached by request content,
// whatever the URL. They stay out of the fingerprint and the manifest,
// so a rerun with a larger budget or another cache folder resumes, and
// headers (which may carry credentials) are never recorded.
var llmRunKeys = []string{"base_url", "api_key_env", "headers", "timeout", "max_concurrency", "rpm", "tpm", "max_retries", "cache", "max_cost", "max_tokens"}

// resolved fills the defaults that depend on other keys: the LLM
// client's defaults, the instruction source and the dialogue count.
// Run works on the resolved config, so the fingerprint and the manifest
// record the values actually used.
func (c Config) resolved() Config {
	if !c.llmEngine() {
		return c
	}
	c.LLM = c.LLM.WithDefaults()
	if c.Instructions == "" {
		c.Instructions = "template"
		if c.Engine == EngineLLM {
			c.Instructions = "llm"
		}
	}
	if c.Dialogues == 0 {
		c.Dialogues = 2 * max(c.LLM.MaxConcurrency, 1)
	}
	return c
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

		User:          "llm",
		Trials:        3,
		Judges:        3,
		Rewrites:      2,
		MaxToolErrors: 5,
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
	case EngineEmbedded, EngineLLM, EngineHybrid:
	default:
		errs = append(errs, fmt.Errorf("--engine %q: want embedded, llm or hybrid", c.Engine))
	}
	errs = append(errs, c.checkLLM()...)
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

// checkLLM checks the keys of the LLM engines.
func (c *Config) checkLLM() []error {
	var errs []error
	if !c.llmEngine() {
		if c.Instructions == "llm" {
			errs = append(errs, fmt.Errorf("--instructions llm needs a model: use --engine llm or hybrid, or --instructions template"))
		}
		return errs
	}
	switch c.User {
	case "llm":
	case "embedded":
		if c.Engine != EngineLLM {
			errs = append(errs, fmt.Errorf("--user embedded: only the llm engine has a choice of customer (hybrid refines the embedded user's words)"))
		}
	default:
		errs = append(errs, fmt.Errorf("--user %q: want llm or embedded", c.User))
	}
	switch c.Instructions {
	case "", "template", "llm":
	default:
		errs = append(errs, fmt.Errorf("--instructions %q: want template or llm", c.Instructions))
	}
	if c.Trials < 1 {
		errs = append(errs, fmt.Errorf("--trials %d: need at least 1 dialogue per blueprint", c.Trials))
	}
	if c.Judges < 0 {
		errs = append(errs, fmt.Errorf("--judges %d: need 0 (no review) or more", c.Judges))
	}
	if c.Rewrites < 0 {
		errs = append(errs, fmt.Errorf("--rewrites %d: need 0 or more", c.Rewrites))
	}
	if c.MaxToolErrors < 1 {
		errs = append(errs, fmt.Errorf("max_tool_errors %d: need at least 1", c.MaxToolErrors))
	}
	if c.Dialogues < 0 {
		errs = append(errs, fmt.Errorf("--dialogues %d: need at least 1 (0 means twice --max-concurrency)", c.Dialogues))
	}
	if c.DPO && c.Engine == EngineHybrid {
		errs = append(errs, fmt.Errorf("--dpo with --engine hybrid: a pair's sides must share the verified dialogue's history word for word, "+
			"and hybrid rewrites it; use --engine embedded or llm for pairs"))
	}
	if err := c.LLM.WithDefaults().Check(); err != nil {
		errs = append(errs, fmt.Errorf("--engine %s: %w", c.Engine, err))
	}
	return errs
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
	if !c.llmEngine() {
		for _, k := range llmKeys {
			delete(m, k)
		}
		return m
	}
	delete(m, "dialogues")
	if l, ok := m["llm"].(map[string]any); ok {
		for _, k := range llmRunKeys {
			delete(l, k)
		}
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
