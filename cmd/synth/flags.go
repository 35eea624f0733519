package main

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/pipeline"
)

// runFlag is a synth run flag bound to the config key it sets. The flag
// is declared once, here; a flag given on the command line overrides the
// key read from --config.
type runFlag struct {
	name  string // without dashes
	arg   string // what the value is, for the help: N, DIR, MIN-MAX; "" for a switch
	key   string // the config key, dotted for nested ones
	usage string
	value flag.Value
	// apply copies the parsed value into the config.
	apply func(*pipeline.Config)
}

// value is a flag.Value of any type, parsed and shown by the functions
// given. Its zero value (which the flag package makes to find out whether
// a default is worth printing) shows as "".
type value[T any] struct {
	v      T
	parse  func(string) (T, error)
	show   func(T) string
	isBool bool
}

func (v *value[T]) Set(s string) error {
	x, err := v.parse(s)
	if err != nil {
		return err
	}
	v.v = x
	return nil
}

func (v *value[T]) String() string {
	if v == nil || v.show == nil {
		return ""
	}
	return v.show(v.v)
}

// IsBoolFlag makes a switch of a bool flag: --dpo alone means --dpo=true.
func (v *value[T]) IsBoolFlag() bool { return v != nil && v.isBool }

// bind declares a flag for the config field that field returns, with
// that field's default as the flag's default. spec is the flag's name,
// then what its value is ("n N", "domain NAME|DIR").
func bind[T any](defaults pipeline.Config, spec, key, usage string, parse func(string) (T, error), show func(T) string, field func(*pipeline.Config) *T) runFlag {
	name, arg, _ := strings.Cut(spec, " ")
	v := &value[T]{v: *field(&defaults), parse: parse, show: show}
	return runFlag{name: name, arg: arg, key: key, usage: usage, value: v, apply: func(c *pipeline.Config) { *field(c) = v.v }}
}

func str(d pipeline.Config, name, key, usage string, field func(*pipeline.Config) *string) runFlag {
	return bind(d, name, key, usage, func(s string) (string, error) { return s, nil }, func(s string) string { return s }, field)
}

func integer(d pipeline.Config, name, key, usage string, field func(*pipeline.Config) *int) runFlag {
	return bind(d, name, key, usage, func(s string) (int, error) {
		n, err := strconv.ParseInt(s, 0, strconv.IntSize)
		if err != nil {
			return 0, numError(err, "want a whole number")
		}
		return int(n), nil
	}, strconv.Itoa, field)
}

func integer64(d pipeline.Config, name, key, usage string, field func(*pipeline.Config) *int64) runFlag {
	return bind(d, name, key, usage, func(s string) (int64, error) {
		n, err := strconv.ParseInt(s, 0, 64)
		return n, numError(err, "want a whole number")
	}, func(n int64) string { return strconv.FormatInt(n, 10) }, field)
}

func unsigned(d pipeline.Config, name, key, usage string, field func(*pipeline.Config) *uint64) runFlag {
	return bind(d, name, key, usage, func(s string) (uint64, error) {
		n, err := strconv.ParseUint(s, 0, 64)
		return n, numError(err, "want a whole number, 0 or more")
	}, func(n uint64) string { return strconv.FormatUint(n, 10) }, field)
}

func number(d pipeline.Config, name, key, usage string, field func(*pipeline.Config) *float64) runFlag {
	return bind(d, name, key, usage, func(s string) (float64, error) {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		return f, numError(err, "want a number such as 0.25")
	}, func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }, field)
}

func boolean(d pipeline.Config, name, key, usage string, field func(*pipeline.Config) *bool) runFlag {
	f := bind(d, name, key, usage, func(s string) (bool, error) {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return false, fmt.Errorf("want true or false")
		}
		return b, nil
	}, strconv.FormatBool, field)
	f.value.(*value[bool]).isBool = true
	return f
}

func numbers(d pipeline.Config, name, key, usage string, field func(*pipeline.Config) *[]float64) runFlag {
	return bind(d, name, key, usage, parseNumbers, func(fs []float64) string {
		if fs == nil {
			return ""
		}
		return fmt.Sprint(fs)
	}, field)
}

func words(d pipeline.Config, name, key, usage string, field func(*pipeline.Config) *[]string) runFlag {
	return bind(d, name, key, usage, func(s string) ([]string, error) {
		parts := strings.Split(s, ",")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		return parts, nil
	}, func(ws []string) string { return strings.Join(ws, ",") }, field)
}

// numError says what is wrong with a number in words, without strconv's
// "strconv.ParseInt: parsing "x": " prefix: the flag package already
// names the flag and the value.
func numError(err error, want string) error {
	ne, ok := err.(*strconv.NumError)
	switch {
	case !ok:
		return err
	case errors.Is(ne.Err, strconv.ErrSyntax):
		return errors.New(want)
	case errors.Is(ne.Err, strconv.ErrRange):
		return errors.New("out of range")
	}
	return ne.Err
}

func parseNumbers(s string) ([]float64, error) {
	var out []float64
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", p)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseMix reads type=weight,... (--dpo-mix).
func parseMix(s string) (map[string]float64, error) {
	mix := map[string]float64{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		w, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || err != nil || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("%q: want type=weight,... e.g. wrong_target=2,no_confirmation=1", kv)
		}
		mix[strings.TrimSpace(k)] = w
	}
	return mix, nil
}

// runFlags declares every synth run flag that sets a config key, in the
// order they apply: --model before the per-role models, which win over it.
func runFlags(d pipeline.Config) []runFlag {
	flags := []runFlag{
		str(d, "domain NAME|DIR", "domain", "built-in domain (retail, airline) or a domain pack folder", func(c *pipeline.Config) *string { return &c.Domain }),
		integer(d, "n N", "n", "number of blueprints (tasks); each yields one dialogue", func(c *pipeline.Config) *int { return &c.N }),
		unsigned(d, "seed S", "seed", "seed: same config and seed give byte-identical output", func(c *pipeline.Config) *uint64 { return &c.Seed }),
		str(d, "out DIR", "out", "output directory for the release", func(c *pipeline.Config) *string { return &c.Out }),
		str(d, "engine E", "engine", "dialogue engine: embedded (offline), llm (an OpenAI-compatible endpoint plays agent and customer) or hybrid (embedded dialogues, lines rewritten by the LLM)", func(c *pipeline.Config) *string { return &c.Engine }),
		option(d, "user U", "user", "customer of the llm engine: llm, or embedded (the rule-based user)", str),
		option(d, "trials K", "trials", "llm engine: dialogues per blueprint at most; the first that verifies is kept", integer),
		option(d, "judges N", "judges", "judges reviewing each LLM-written instruction (0: no review)", integer),
		option(d, "rewrites K", "rewrites", "rewrites of a rejected instruction before the template one is kept", integer),
		option(d, "instructions I", "instructions", "customer instructions: template or llm (default: llm for the llm engine, template otherwise)", str),
		option(d, "max-tool-errors N", "max_tool_errors", "llm engine: failed tool calls that end a dialogue", integer),
		option(d, "dialogues N", "dialogues", "LLM dialogues played at once (default: 2 x --max-concurrency); output does not depend on it", integer),
		str(d, "base-url URL", "llm.base_url", "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8089/v1 (synth emulate) or https://api.openai.com/v1", func(c *pipeline.Config) *string { return &c.LLM.BaseURL }),
		str(d, "server NAME", "llm.server", "the server at --base-url: openai, vllm, sglang, ollama or llamacpp; chooses the field earlier reasoning goes back in (reasoning for vllm and ollama, reasoning_content for sglang and llamacpp)", func(c *pipeline.Config) *string { return &c.LLM.Server }),
		modelFlag(d),
	}
	for _, r := range llm.Roles() {
		flags = append(flags, roleModelFlag(r))
	}
	return append(flags,
		str(d, "api-key-env VAR", "llm.api_key_env", "environment variable holding the API key (default OPENAI_API_KEY; none: send no key)", func(c *pipeline.Config) *string { return &c.LLM.APIKeyEnv }),
		str(d, "llm-cache DIR", "llm.cache", "LLM response cache folder (default: the user cache dir; off: no cache)", func(c *pipeline.Config) *string { return &c.LLM.Cache }),
		integer(d, "max-concurrency N", "llm.max_concurrency", "most LLM requests in flight (default 64)", func(c *pipeline.Config) *int { return &c.LLM.MaxConcurrency }),
		number(d, "max-cost USD", "llm.max_cost", "stop taking new blueprints once this many USD are billed (llm.prices); 0: no limit", func(c *pipeline.Config) *float64 { return &c.LLM.MaxCost }),
		integer64(d, "max-tokens N", "llm.max_tokens", "stop taking new blueprints once this many tokens are billed; 0: no limit", func(c *pipeline.Config) *int64 { return &c.LLM.MaxTokens }),
		str(d, "writes MIN-MAX", "writes", "write intensity MIN-MAX: write decisions per task (weighted as in tau2 retail for 0-5)", func(c *pipeline.Config) *string { return &c.Writes }),
		numbers(d, "write-weights W,...", "write_weights", "comma-separated weights, one per value of --writes (default: for the default range the domain's tasks.write_weights, else mostly one write as in τ² retail's tasks; even for other ranges)", func(c *pipeline.Config) *[]float64 { return &c.WriteWeights }),
		str(d, "reads MIN-MAX", "reads", "read intensity MIN-MAX: read calls needed before each write's arguments are identifiable", func(c *pipeline.Config) *string { return &c.Reads }),
		numbers(d, "read-weights W,...", "read_weights", "comma-separated weights, one per value of --reads (default: even)", func(c *pipeline.Config) *[]float64 { return &c.ReadWeights }),
		words(d, "behaviors a,b", "behaviors", "comma-separated behaviour profiles (default: all)", func(c *pipeline.Config) *[]string { return &c.Behaviors }),
		integer(d, "workers K", "workers", "concurrent workers (default: the CPU count; output does not depend on it)", func(c *pipeline.Config) *int { return &c.Workers }),
		integer(d, "max-turns N", "max_turns", "maximum user turns per dialogue", func(c *pipeline.Config) *int { return &c.MaxTurns }),
		integer(d, "chunk-size N", "chunk_size", "blueprints per chunk: the unit of resume and sharding, and of Parquet files", func(c *pipeline.Config) *int { return &c.ChunkSize }),
		str(d, "shard I/N", "shard", "produce only shard I of N (I/N), for synth merge", func(c *pipeline.Config) *string { return &c.Shard }),
		number(d, "validation F", "validation", "share of blueprints in the validation split", func(c *pipeline.Config) *float64 { return &c.Validation }),
		number(d, "test F", "test", "share of blueprints in the test split", func(c *pipeline.Config) *float64 { return &c.Test }),
		str(d, "tools MODE", "tools", "tools each row carries: all, relevant (the task's own and the generic ones) or relevant+K (K distractors besides); default all up to 32 tools, else relevant+8", func(c *pipeline.Config) *string { return &c.Tools }),
		str(d, "license ID", "license", "license written into the dataset card", func(c *pipeline.Config) *string { return &c.License }),
		boolean(d, "dpo", "dpo", "also write DPO preference pairs from verified failures (dpo/)", func(c *pipeline.Config) *bool { return &c.DPO }),
		str(d, "dpo-mode M", "dpo_mode", "pair shape: segment (next assistant segment), session (whole conversations) or equal (equal-length segments)", func(c *pipeline.Config) *string { return &c.DPOMode }),
		str(d, "dpo-tools T", "dpo_tools", "tool observations in chosen/rejected: keep, or cut (each side ends at its first tool call, so no tool result counts in the DPO loss)", func(c *pipeline.Config) *string { return &c.DPOTools }),
		integer(d, "dpo-pairs K", "dpo_pairs", "most DPO pairs per blueprint", func(c *pipeline.Config) *int { return &c.DPOPairs }),
		number(d, "refusals F", "refusals", "share of tasks that hold a request the policy forbids, which the agent must refuse (packs with preconditions; 0: none)", func(c *pipeline.Config) *float64 { return &c.Refusals }),
		number(d, "tool-errors F", "tool_errors", "share of tasks whose customer first names a choice the write fails on in its tool (a gift card short of the amount), which the agent reads before proposing it and says cannot pay, with the figures, before the customer names another (packs whose writes take a choice; 0: none)", func(c *pipeline.Config) *float64 { return &c.ToolErrors }),
		number(d, "tool-failures F", "tool_failures", "share of tasks in which a failure the domain declares (failures: in domain.yaml: a declined payment, a sold-out flight, a timeout) happens at one write, and the agent recovers as the policy says: retries, or apologises and transfers (0: none)", func(c *pipeline.Config) *float64 { return &c.ToolFailures }),
		option(d, "recovery-share F", "recovery_share", "share of SFT rows that are recovery dialogues: a flawed agent's mistake the customer catches and the agent corrects (embedded engine; 0: none)", number),
		bind(d, "dpo-mix t=w,...", "dpo_mix", "failure mix as type=weight,... (default: every type equally)", parseMix, func(m map[string]float64) string {
			if m == nil {
				return ""
			}
			return fmt.Sprint(m)
		}, func(c *pipeline.Config) *map[string]float64 { return &c.DPOMix }),
		boolean(d, "force", "force", "replace a release made with another config in --out", func(c *pipeline.Config) *bool { return &c.Force }),
	)
}

// option declares a flag for an engine's config key
// (pipeline.Config.Options) with the key's default, as kind (str,
// integer, number) declares one for a field.
func option[T any](d pipeline.Config, spec, key, usage string, kind func(pipeline.Config, string, string, string, func(*pipeline.Config) *T) runFlag) runFlag {
	held := new(T)
	if v, ok := d.Option(key).(T); ok {
		*held = v
	}
	f := kind(d, spec, key, usage, func(*pipeline.Config) *T { return held })
	set := f.apply
	f.apply = func(c *pipeline.Config) {
		set(c)
		c.SetOption(key, *held)
	}
	return f
}

// modelFlag is --model: the model of every role, so a model the file
// names for one role yields to it too.
func modelFlag(d pipeline.Config) runFlag {
	f := str(d, "model M", "llm.model", "model of every LLM role", func(c *pipeline.Config) *string { return &c.LLM.Model })
	set := f.apply
	f.apply = func(c *pipeline.Config) {
		set(c)
		c.LLM.Roles = maps.Clone(c.LLM.Roles)
		for r, rc := range c.LLM.Roles {
			rc.Model = c.LLM.Model
			c.LLM.Roles[r] = rc
		}
	}
	return f
}

// roleModelFlag is --model-ROLE, the model of one role (llm.roles.ROLE.model).
func roleModelFlag(r llm.Role) runFlag {
	v := &value[string]{parse: func(s string) (string, error) { return s, nil }, show: func(s string) string { return s }}
	return runFlag{
		name:  "model-" + string(r),
		arg:   "M",
		key:   "llm.roles." + string(r) + ".model",
		usage: "model of the " + string(r) + " role (overrides --model)",
		value: v,
		apply: func(c *pipeline.Config) {
			c.LLM.Roles = maps.Clone(c.LLM.Roles)
			if c.LLM.Roles == nil {
				c.LLM.Roles = map[llm.Role]llm.RoleConfig{}
			}
			rc := c.LLM.Roles[r]
			rc.Model = v.v
			c.LLM.Roles[r] = rc
		},
	}
}

// override applies the flags given on the command line to cfg, in the
// order of flags.
func override(fs *flag.FlagSet, flags []runFlag, cfg *pipeline.Config) {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, f := range flags {
		if given[f.name] {
			f.apply(cfg)
		}
	}
}
