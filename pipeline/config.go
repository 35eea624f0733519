package pipeline

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/synth-data/synth/dpo"
	"github.com/synth-data/synth/engine"

	"go.yaml.in/yaml/v3"

	"github.com/synth-data/synth/agent"
	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/internal/limitio"
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
	// DPOTools is what chosen and rejected keep of tool observations:
	// keep, or cut (each side ends at its first call a tool answers).
	DPOTools string `json:"dpo_tools"`
	DPOPairs int    `json:"dpo_pairs"`
	// Refusals is the share of tasks that hold a request the policy
	// forbids, where the pack has writes with preconditions.
	Refusals float64 `json:"refusals"`
	// ToolErrors is the share of tasks whose customer first names a
	// choice the write fails on in its tool, where a write has one.
	ToolErrors float64 `json:"tool_errors"`
	// ToolFailures is the share of tasks in which a failure the domain
	// declares (failures: in domain.yaml) happens at one write.
	ToolFailures float64 `json:"tool_failures"`
	License      string  `json:"license"`
	// Tools is which tools each row carries: all, relevant or
	// relevant+K ("" chooses by the domain's size, see defaultTools).
	Tools string `json:"tools"`
	Force bool   `json:"force,omitempty"`

	// LLM is the model client of an engine whose Kind has Model (llm,
	// hybrid). Only the name of the environment variable holding the API
	// key is ever configured; the key itself never enters a Config.
	LLM llm.Config `json:"llm"`
	// Options are the engines' keys (engine.Kind.Options): top-level keys
	// of the file and flags like the others, held as given; the engine
	// --engine names decodes and checks its own (MarshalJSON puts them
	// back at the top level).
	Options map[string]any `json:"-"`

	// domainID is the content hash of the pack folder Domain names, set
	// by bindDomain once the pack is loaded; "" for a built-in domain,
	// which its name identifies. The fingerprint uses it instead of the
	// path: packs/x and /abs/packs/x are the same config, and an edited
	// pack is not.
	domainID string
}

// bindDomain records the identity of the loaded domain in the config, so
// that the fingerprint follows what the domain holds, not how its folder
// was spelled.
func (c *Config) bindDomain(d *domain.Domain) {
	if c.Tools == "" {
		c.Tools = engine.DefaultTools(len(d.Tools.Tools()))
	}
	if slices.Contains(domains.Names(), c.Domain) {
		c.domainID = ""
		return
	}
	h := sha256.New()
	for _, name := range slices.Sorted(maps.Keys(d.Files)) {
		sum := sha256.Sum256(d.Files[name])
		fmt.Fprintf(h, "%s\x00%x\n", name, sum)
	}
	c.domainID = "pack:" + d.Name + ":" + hex.EncodeToString(h.Sum(nil))
}

// llmEngine reports whether the engine talks to a model endpoint.
func (c Config) llmEngine() bool {
	k, _ := kindOf(c.Engine)
	return k.Model
}

// llmRunKeys are the llm settings that change how a run spends (limits,
// concurrency, retries, where the cache lives, where the endpoint is)
// but not what it produces: responses are cached by request content,
// whatever the URL. They stay out of the fingerprint and the manifest,
// so a rerun with a larger budget or another cache folder resumes, and
// headers (which may carry credentials) are never recorded.
var llmRunKeys = []string{"base_url", "api_key_env", "headers", "timeout", "max_concurrency", "rpm", "tpm", "max_retries", "cache", "max_cost", "max_tokens"}

// resolved fills the defaults that depend on other keys: the LLM
// client's defaults and the engine's own (Kind.Resolve). Run works on the
// resolved config, so the fingerprint and the manifest record the values
// actually used.
func (c Config) resolved() Config {
	k, ok := kindOf(c.Engine)
	if !ok {
		return c
	}
	if k.Model {
		c.LLM = c.LLM.WithDefaults()
	}
	if k.Resolve == nil {
		return c
	}
	raw, err := json.Marshal(c)
	if err != nil {
		// Spec, which follows, reports what makes the config unreadable.
		return c
	}
	opts, err := k.Resolve(raw)
	if err != nil {
		// Spec, which follows, reports the key the engine cannot read.
		return c
	}
	for key, v := range opts {
		c.SetOption(key, v)
	}
	return c
}

// defaultWriteWeights weigh the default --writes range for a domain
// that declares no mix of its own (tasks.write_weights): most tasks make
// one write, a few none or several, as τ² retail's 114 tasks do (0:10,
// 1:60, 2:23, 3:15, 4:5, 5:1).
var defaultWriteWeights = []float64{10, 60, 23, 15, 5, 1}

// Defaults returns the default configuration.
func Defaults() Config {
	return Config{
		Domain:       "retail",
		N:            1000,
		Seed:         1,
		Out:          "out/synth",
		Engine:       "embedded",
		Writes:       "0-5",
		Reads:        "2-7",
		Validation:   0.05,
		Test:         0.05,
		MaxTurns:     60,
		ChunkSize:    5000,
		Workers:      runtime.GOMAXPROCS(0),
		License:      "other",
		DPOMode:      dpo.PairSegment,
		DPOTools:     dpo.ToolsKeep,
		DPOPairs:     1,
		Refusals:     0.2,
		ToolErrors:   0.2,
		ToolFailures: 0.15,
		Options:      engineDefaults(),
	}
}

// MaxConfigBytes bounds a config file. A run config is a few dozen
// keys; anything longer is not one (--config /dev/zero must fail, not
// fill the memory).
const MaxConfigBytes = 1 << 20

// LoadFile reads a YAML (or JSON) config over the defaults. Unknown keys
// are errors: a typo must not silently fall back to a default. The file
// holds one YAML document; a second one is refused rather than ignored.
// Pipes (--config <(...)) are read too, up to MaxConfigBytes and
// limitio.PipeTimeout; devices and sockets are refused.
func LoadFile(path string, into *Config) error {
	return LoadFileContext(context.Background(), path, into)
}

// LoadFileContext is LoadFile that stops waiting on a pipe when ctx ends.
func LoadFileContext(ctx context.Context, path string, into *Config) error {
	raw, err := readConfig(ctx, path)
	if err != nil {
		return err
	}
	// YAML 1.2 (yaml.v3): under YAML 1.1, which sigs.k8s.io/yaml speaks,
	// the key "n" is the boolean false.
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	var doc any
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("config %s: not valid YAML: %w", path, err)
	}
	// A stray "---" with nothing after it is harmless; a second document
	// with keys would be silently ignored, so it is refused.
	for k := 2; ; k++ {
		var extra any
		err := dec.Decode(&extra)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("config %s: document %d is not valid YAML: %w", path, k, err)
		}
		if extra != nil {
			return fmt.Errorf("config %s holds more than one YAML document (a line \"---\" starts document %d); a config is one mapping of keys: merge the documents or put each in a file of its own", path, k)
		}
	}
	if doc == nil {
		return nil
	}
	// JSON has no NaN or infinity, and its keys are strings: name the
	// key here, where the value is, rather than let the encoder fail
	// without saying where.
	doc, err = jsonable(doc, "")
	if err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	if _, ok := doc.(map[string]any); !ok {
		return fmt.Errorf("config %s: want a mapping of keys (n: 1000, seed: 1, ...), got %T", path, doc)
	}
	if err := checkKeys(path, raw); err != nil {
		return err
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	jd := json.NewDecoder(bytes.NewReader(js))
	jd.DisallowUnknownFields()
	if err := jd.Decode(into); err != nil {
		return fmt.Errorf("config %s: %s", path, strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// readConfig reads at most MaxConfigBytes of a config file.
func readConfig(ctx context.Context, path string) ([]byte, error) {
	raw, err := limitio.ReadFileContext(ctx, path, MaxConfigBytes)
	var tl *limitio.TooLarge
	switch {
	case errors.As(err, &tl):
		return nil, fmt.Errorf("config %w: a run config is a few dozen keys; is it the right file?", err)
	case err != nil:
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return raw, nil
}

// Bounds of the run controls. Each lies far beyond any sensible run; it
// is there so that a mistyped value fails with a message before anything
// is written, instead of overflowing or exhausting the memory.
const (
	// MaxN is the most blueprints a release may have.
	MaxN = 1_000_000_000
	// MaxChunks is the most chunks a release may have: file names number
	// them in five digits (sft/train-00000-of-00042.parquet).
	MaxChunks = 99_999
	// MaxWorkers bounds --workers: each worker keeps a window of finished
	// dialogues in memory.
	MaxWorkers = 1024
	// MaxWrites and MaxReads bound --writes and --reads: write decisions
	// per task, and reads needed before each write.
	MaxWrites = 16
	MaxReads  = 64
	// MaxTurnsLimit bounds max_turns (user turns per dialogue).
	MaxTurnsLimit = 10_000
)

// Check reports every problem of the config at once, each naming its flag
// or key and the fix. Run calls it before anything is read or written, so
// a mistyped value never leaves a half-made out dir behind.
func (c *Config) Check() error {
	_, err := c.Spec()
	return err
}

// Spec checks the config and derives the blueprint controls.
func (c *Config) Spec() (blueprints.Spec, error) {
	errs := c.checkRun()
	w, werr := controlRange("--writes", c.Writes, MaxWrites, "write decisions per task")
	r, rerr := controlRange("--reads", c.Reads, MaxReads, "reads before each write")
	errs = append(errs, werr, rerr)
	ww := c.WriteWeights
	if ww == nil && c.Writes == Defaults().Writes {
		ww = defaultWriteWeights
	}
	if werr == nil && c.WriteWeights != nil {
		errs = append(errs, checkWeights("--write-weights", "--writes", w, c.WriteWeights))
	}
	if rerr == nil && c.ReadWeights != nil {
		errs = append(errs, checkWeights("--read-weights", "--reads", r, c.ReadWeights))
	}
	behaviors, berrs := c.behaviors()
	errs = append(errs, berrs...)
	errs = append(errs, c.checkDraws()...)
	if err := errors.Join(errs...); err != nil {
		return blueprints.Spec{}, err
	}
	d := Defaults()
	return blueprints.Spec{
		Seed: c.Seed, Writes: w, WriteWeights: ww, Reads: r, ReadWeights: c.ReadWeights,
		Behaviors: behaviors, Validation: c.Validation, Test: c.Test, Refusals: c.Refusals, ToolErrors: c.ToolErrors,
		ToolFailures: c.ToolFailures,
		AdaptWrites:  c.Writes == d.Writes && c.WriteWeights == nil,
		AdaptReads:   c.Reads == d.Reads && c.ReadWeights == nil,
	}, nil
}

// checkRun checks the run's size and shape: numbers, engine and tools,
// workers, chunks, turns, splits and the output directory.
func (c *Config) checkRun() []error {
	var errs []error
	if path := nonFinite(reflect.ValueOf(*c), ""); path != "" {
		errs = append(errs, fmt.Errorf("%s: not a finite number (NaN or infinity); give a number", keyName(path)))
	}
	switch {
	case c.N <= 0:
		errs = append(errs, fmt.Errorf("-n %d: the number of blueprints must be at least 1", c.N))
	case c.N > MaxN:
		errs = append(errs, fmt.Errorf("-n %d: at most %d blueprints per release; make several releases with different --seed values", c.N, MaxN))
	}
	if err := checkEngine(c.Engine); err != nil {
		errs = append(errs, err)
	}
	if c.Tools != "" {
		if _, err := engine.ParseTools(c.Tools); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, c.checkEngine()...)
	switch {
	case c.Workers < 1:
		errs = append(errs, fmt.Errorf("--workers %d: need at least 1", c.Workers))
	case c.Workers > MaxWorkers:
		errs = append(errs, fmt.Errorf("--workers %d: at most %d (the output does not depend on it; the CPU count is the default)", c.Workers, MaxWorkers))
	}
	switch {
	case c.ChunkSize < 1:
		errs = append(errs, fmt.Errorf("chunk_size %d: need at least 1", c.ChunkSize))
	case c.N > 0 && c.N <= MaxN && (c.N-1)/c.ChunkSize+1 > MaxChunks:
		errs = append(errs, fmt.Errorf("-n %d with --chunk-size %d makes %d chunks; a release holds at most %d: raise --chunk-size to %d or more",
			c.N, c.ChunkSize, (c.N-1)/c.ChunkSize+1, MaxChunks, (c.N+MaxChunks-1)/MaxChunks))
	}
	switch {
	case c.MaxTurns < 4:
		errs = append(errs, fmt.Errorf("max_turns %d: need at least 4", c.MaxTurns))
	case c.MaxTurns > MaxTurnsLimit:
		errs = append(errs, fmt.Errorf("max_turns %d: at most %d user turns per dialogue", c.MaxTurns, MaxTurnsLimit))
	}
	if finite(c.Validation) && finite(c.Test) && (c.Validation < 0 || c.Test < 0 || c.Validation+c.Test >= 1) {
		errs = append(errs, fmt.Errorf("validation %.3g and test %.3g: shares must be >= 0 and sum below 1", c.Validation, c.Test))
	}
	if c.Out == "" {
		errs = append(errs, errors.New("--out: an output directory is required"))
	}
	return errs
}

// behaviors are the user profiles to draw from (all when none are named),
// with an error for each unknown one.
func (c *Config) behaviors() ([]string, []error) {
	var errs []error
	behaviors := c.Behaviors
	if len(behaviors) == 0 {
		behaviors = usersim.Profiles()
	}
	for _, b := range behaviors {
		if !slices.Contains(usersim.Profiles(), b) {
			errs = append(errs, fmt.Errorf("behaviors: unknown profile %q (known: %s)", b, strings.Join(usersim.Profiles(), ", ")))
		}
	}
	return behaviors, errs
}

// checkDraws checks the keys of what each task draws: DPO, the shard,
// the shares of refusals and tool errors.
func (c *Config) checkDraws() []error {
	var errs []error
	// The DPO keys are checked even without --dpo: a typo in them must
	// not wait for the run that finally uses them.
	if _, err := dpo.NewPlan(c.Seed, agent.Flaws(), c.DPOMix, c.DPOMode, c.DPOTools, c.DPOPairs); err != nil {
		errs = append(errs, err)
	}
	if _, _, err := ParseShard(c.Shard); err != nil {
		errs = append(errs, err)
	}
	if !(c.Refusals >= 0 && c.Refusals <= 1) {
		errs = append(errs, fmt.Errorf("--refusals %g: want a share from 0 to 1 (0: no task asks for what the policy forbids)", c.Refusals))
	}
	if !(c.ToolErrors >= 0 && c.ToolErrors <= 1) {
		errs = append(errs, fmt.Errorf("--tool-errors %g: want a share from 0 to 1 (0: no write fails on the customer's first choice)", c.ToolErrors))
	}
	if !(c.ToolFailures >= 0 && c.ToolFailures <= 1) {
		errs = append(errs, fmt.Errorf("--tool-failures %g: want a share from 0 to 1 (0: no declared tool failure happens)", c.ToolFailures))
	}
	return errs
}

// controlRange parses an intensity control and bounds its maximum.
func controlRange(flag, s string, most int, what string) (blueprints.Range, error) {
	r, err := blueprints.ParseRange(s)
	if err != nil {
		return r, fmt.Errorf("%s: %w", flag, err)
	}
	if r.Max > most {
		return r, fmt.Errorf("%s %s: at most %d %s; use e.g. %s %d-%d", flag, s, most, what, flag, min(r.Min, most), most)
	}
	return r, nil
}

// checkWeights checks that a weights list fits its control's range.
func checkWeights(flag, control string, r blueprints.Range, weights []float64) error {
	if _, err := blueprints.NewAllocator(r, weights, 0, "check", 0.5); err != nil {
		return fmt.Errorf("%s %s: %w; give one weight per value of %s %s", flag, joinFloats(weights), err, control, r)
	}
	return nil
}

func joinFloats(fs []float64) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// nonFinite returns the config key of the first NaN or infinite number in
// v, or "". Such a number cannot be written to the manifest as JSON, and
// compares false with every bound.
func nonFinite(v reflect.Value, path string) string {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if !finite(v.Float()) {
			return path
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return nonFinite(v.Elem(), path)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if p := nonFinite(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		for _, k := range keys {
			if p := nonFinite(v.MapIndex(k), joinKey(path, fmt.Sprint(k))); p != "" {
				return p
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if p := nonFinite(v.Field(i), joinKey(path, name)); p != "" {
				return p
			}
		}
	}
	return ""
}

// jsonable returns a YAML document as JSON can hold it, or names the
// first value it cannot: a NaN or infinite number, a key that is not a
// string (1: x). A mapping yaml.v3 decoded with keys of any type whose
// keys are all strings (a tagged key) is made an ordinary one.
func jsonable(v any, path string) (any, error) {
	switch x := v.(type) {
	case float64:
		if !finite(x) {
			return nil, fmt.Errorf("%s: not a finite number (.nan or .inf); give a number", path)
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var err error
			if out[i], err = jsonable(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			name, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("%s: the key %v is not a name (keys are words, such as base_url)", cmp.Or(path, "the top level"), k)
			}
			m[name] = e
		}
		return jsonable(m, path)
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			var err error
			if out[k], err = jsonable(x[k], joinKey(path, k)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return v, nil
}

// keyName names a config key as the user most likely wrote it: a
// top-level key by its flag (read_weights[1] is --read-weights), a nested
// one by its dotted path.
func keyName(path string) string {
	if strings.Contains(path, ".") {
		return path
	}
	top, index, _ := strings.Cut(path, "[")
	flag := "--" + strings.ReplaceAll(top, "_", "-")
	if i, err := strconv.Atoi(strings.TrimSuffix(index, "]")); err == nil {
		return fmt.Sprintf("%s (value %d)", flag, i+1)
	}
	return flag
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// checkEngine checks the engine's keys (Kind.Check) and, for an engine
// that talks to a model, the client's.
func (c *Config) checkEngine() []error {
	k, ok := kindOf(c.Engine)
	if !ok {
		return nil
	}
	for _, key := range slices.Sorted(maps.Keys(c.Options)) {
		if f, isFloat := c.Options[key].(float64); isFloat && !finite(f) {
			// JSON cannot hold it, so no engine can be shown its keys.
			return []error{fmt.Errorf("%s: not a finite number (NaN or infinity); give a number", keyName(key))}
		}
	}
	var errs []error
	if k.Check != nil {
		raw, err := json.Marshal(c)
		if err != nil {
			return []error{fmt.Errorf("--engine %s: %w", c.Engine, err)}
		}
		errs = append(errs, k.Check(raw)...)
	}
	if k.Model {
		if err := c.LLM.WithDefaults().Check(); err != nil {
			errs = append(errs, fmt.Errorf("--engine %s: %w", c.Engine, err))
		}
	}
	return errs
}

// outputConfig is the part of the config that determines the output:
// the fingerprint ignores worker count and paths, so a rerun with more
// workers or a moved directory is the same release.
func (c Config) outputConfig() map[string]any {
	raw, _ := json.Marshal(c)
	m := map[string]any{}
	_ = json.Unmarshal(raw, &m)
	for _, k := range []string{"out", "workers", "force", "shard"} {
		delete(m, k)
	}
	k, _ := kindOf(c.Engine)
	for _, o := range engineOptions() {
		if !recorded(k, o.Key) {
			delete(m, o.Key)
		}
	}
	if !k.Model {
		delete(m, "llm")
		return m
	}
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
	oc := c.outputConfig()
	// dpo_tools came after releases were made: the default leaves the
	// fingerprint as it was, so they resume and count as done.
	if v, _ := oc["dpo_tools"].(string); v == "" || v == dpo.ToolsKeep {
		delete(oc, "dpo_tools")
	}
	if c.domainID != "" {
		oc["domain"] = c.domainID
	}
	raw, _ := json.Marshal(map[string]any{"synth": Version, "config": oc})
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
