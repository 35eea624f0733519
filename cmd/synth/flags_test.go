package main

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/pipeline"
)

// flagSamples holds a value for every bound flag that differs from its
// default ("" for a switch). A flag added without a sample fails
// TestFlagsSetTheirKey.
var flagSamples = map[string]string{
	"recovery-share": "0.25", "refusals": "0.45", "tool-errors": "0.3", "tool-failures": "0.35", "domain": "airline", "n": "7", "seed": "9", "out": "out/x", "engine": "llm", "user": "embedded",
	"trials": "4", "judges": "1", "rewrites": "5", "instructions": "template", "max-tool-errors": "2",
	"dialogues": "12", "base-url": "http://127.0.0.1:1/v1", "server": "vllm", "model": "m1", "model-agent": "ma",
	"model-user": "mu", "model-judge": "mj", "model-writer": "mw", "api-key-env": "MY_KEY",
	"llm-cache": "off", "max-concurrency": "8", "max-cost": "2.5", "max-tokens": "1000",
	"writes": "1-2", "write-weights": "1,3", "reads": "3-4", "read-weights": "2,1",
	"behaviors": "minimal,typos", "workers": "3", "max-turns": "20", "chunk-size": "50",
	"shard": "1/2", "validation": "0.1", "test": "0.2", "license": "mit", "tools": "relevant+3", "dpo": "",
	"dpo-mode": "session", "dpo-tools": "cut", "dpo-pairs": "2", "dpo-mix": "wrong_target=2", "force": "",
}

// fileOnly are the config keys that have no flag: they are set in the
// --config file only. Every other key must have a flag.
var fileOnly = []string{
	"llm.headers", "llm.timeout", "llm.reasoning_field", "llm.rpm", "llm.tpm", "llm.max_retries", "llm.prices", "llm.max_response_bytes",
	"llm.roles.ROLE.temperature", "llm.roles.ROLE.top_p", "llm.roles.ROLE.seed", "llm.roles.ROLE.max_tokens",
	"llm.roles.ROLE.max_tokens_field", "llm.roles.ROLE.reasoning_effort", "llm.roles.ROLE.tool_choice",
	"llm.roles.ROLE.parallel_tool_calls", "llm.roles.ROLE.response_format", "llm.roles.ROLE.extra_body",
}

// leaves flattens a JSON value into its leaf paths.
func leaves(prefix string, v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			leaves(p, e, out)
		}
	default:
		raw, _ := json.Marshal(x)
		out[prefix] = string(raw)
	}
}

func configLeaves(t *testing.T, c pipeline.Config) map[string]string {
	t.Helper()
	raw, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	leaves("", m, out)
	return out
}

// TestFlagsSetTheirKey: each bound flag, given on the command line,
// changes its own config key and nothing else.
func TestFlagsSetTheirKey(t *testing.T) {
	base := configLeaves(t, pipeline.Defaults())
	for _, f := range runFlags(pipeline.Defaults()) {
		t.Run(f.name, func(t *testing.T) {
			sample, ok := flagSamples[f.name]
			if !ok {
				t.Fatalf("no sample value for --%s: add one to flagSamples", f.name)
			}
			// As people type them: a switch alone, a value after a space.
			args := []string{"--" + f.name, sample}
			if sample == "" {
				args = args[:1]
			}
			ra, err := parseRun(context.Background(), args, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			got := configLeaves(t, ra.cfg)
			var changed []string
			for k, v := range got {
				if base[k] != v {
					changed = append(changed, k)
				}
			}
			for k := range base {
				if _, ok := got[k]; !ok {
					changed = append(changed, k)
				}
			}
			// A map key (dpo_mix) changes below its key; a role's model
			// turns llm.roles from null into a map above it.
			within := func(p string) bool {
				return p == f.key || strings.HasPrefix(p, f.key+".") || strings.HasPrefix(f.key, p+".")
			}
			if len(changed) == 0 || slices.IndexFunc(changed, func(p string) bool { return !within(p) }) >= 0 {
				t.Errorf("--%s=%s changed %v, want only %s", f.name, sample, changed, f.key)
			}
		})
	}
}

// configKeys lists the config's leaf keys from its type, with ROLE for
// the role names of llm.roles and maps of free keys as one key.
func configKeys(t reflect.Type, prefix string, out *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		key := name
		if prefix != "" {
			key = prefix + "." + name
		}
		ft := f.Type
		switch {
		case ft.Kind() == reflect.Struct:
			configKeys(ft, key, out)
		case ft.Kind() == reflect.Map && ft.Elem().Kind() == reflect.Struct && ft.Key() == reflect.TypeFor[llm.Role]():
			configKeys(ft.Elem(), key+".ROLE", out)
		default:
			*out = append(*out, key)
		}
	}
}

// TestEveryKeyHasAFlag: every config key is bound by exactly one flag or
// is a file-only key, and every flag binds a key the config has.
func TestEveryKeyHasAFlag(t *testing.T) {
	var keys []string
	configKeys(reflect.TypeFor[pipeline.Config](), "", &keys)
	// The engines' keys (Config.Options) are top-level keys too.
	keys = append(keys, slices.Sorted(maps.Keys(pipeline.Defaults().Options))...)
	bound := map[string]string{}
	for _, f := range runFlags(pipeline.Defaults()) {
		key := f.key
		for _, r := range llm.Roles() {
			key = strings.Replace(key, ".roles."+string(r)+".", ".roles.ROLE.", 1)
		}
		if strings.Contains(f.key, ".roles.") {
			bound[key] += "--" + f.name + " "
			continue
		}
		if prev, dup := bound[key]; dup {
			t.Errorf("config key %s is bound by %s and --%s", key, prev, f.name)
		}
		bound[key] = "--" + f.name
		if !slices.Contains(keys, key) {
			t.Errorf("--%s binds %q, which is not a config key", f.name, f.key)
		}
	}
	if got := strings.Fields(bound["llm.roles.ROLE.model"]); len(got) != len(llm.Roles()) {
		t.Errorf("llm.roles.ROLE.model is bound by %v, want one flag per role", got)
	}
	for _, k := range keys {
		by, isBound := bound[k]
		switch file := slices.Contains(fileOnly, k); {
		case isBound && file:
			t.Errorf("config key %s is bound by %s and listed as file-only", k, by)
		case !isBound && !file:
			t.Errorf("config key %s has no flag: bind one in runFlags, or list it in fileOnly (and the README) if it is set in the file only", k)
		}
	}
}

// TestFlagsOverrideFile: the file's keys stand unless a flag is given;
// --model overrides a role model from the file, --model-ROLE overrides
// --model, and flags order on the command line does not matter.
func TestFlagsOverrideFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.yaml")
	yaml := "n: 5\nseed: 9\nwrites: 1-3\nllm:\n  model: file-model\n  roles:\n    judge: {model: file-judge, temperature: 0}\n"
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		args  []string
		check func(c pipeline.Config) bool
	}{
		{"file only", nil, func(c pipeline.Config) bool {
			return c.N == 5 && c.Seed == 9 && c.Writes == "1-3" && c.LLM.Roles[llm.Judge].Model == "file-judge" && c.Reads == pipeline.Defaults().Reads
		}},
		{"flag wins", []string{"-n", "7"}, func(c pipeline.Config) bool { return c.N == 7 && c.Seed == 9 }},
		{"--model over the file's role model", []string{"--model", "cli"}, func(c pipeline.Config) bool {
			rc := c.LLM.Roles[llm.Judge]
			return c.LLM.Model == "cli" && rc.Model == "cli" && rc.Temperature != nil
		}},
		{"--model-judge over --model, in any order", []string{"--model-judge", "j", "--model", "cli"}, func(c pipeline.Config) bool {
			return c.LLM.Model == "cli" && c.LLM.Roles[llm.Judge].Model == "j"
		}},
		{"a flag set to its default still wins", []string{"--seed", "1"}, func(c pipeline.Config) bool { return c.Seed == 1 && c.N == 5 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ra, err := parseRun(context.Background(), append([]string{"--config", path}, tc.args...), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(ra.cfg) {
				t.Errorf("config %+v", ra.cfg)
			}
		})
	}
}

// TestFlagValueErrors: a malformed value is a usage error (exit 2) that
// names the flag.
func TestFlagValueErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-n", "many"}, {"--seed", "-1"}, {"--dpo-mix", "wrong_target"}, {"--dpo-mix", "=2"},
		{"--write-weights", "1,x"}, {"--validation", "half"}, {"--dpo=maybe"}, {"-n", "99999999999999999999"},
	} {
		code, _, stderr := synth(t, append([]string{"run"}, args...)...)
		name, _, _ := strings.Cut(strings.TrimLeft(args[0], "-"), "=")
		if code != 2 || !strings.Contains(stderr, " "+dashed(name)+": ") || !strings.Contains(stderr, "see synth run --help") {
			t.Errorf("%v: exit %d, stderr %q", args, code, firstLine(stderr))
		}
	}
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// FuzzRunFlags: any value of any bound flag either parses or is a usage
// error, and a parsed config is checked without panicking.
func FuzzRunFlags(f *testing.F) {
	names := make([]string, 0, len(flagSamples))
	for _, fl := range runFlags(pipeline.Defaults()) {
		names = append(names, fl.name)
	}
	for i, n := range names {
		f.Add(i, flagSamples[n])
	}
	f.Add(0, "NaN")
	f.Add(1, "=,=")
	f.Fuzz(func(t *testing.T, i int, v string) {
		if i < 0 || i >= len(names) {
			return
		}
		ra, err := parseRun(context.Background(), []string{"--" + names[i] + "=" + v}, io.Discard)
		if err != nil {
			return
		}
		_ = ra.cfg.Check()
	})
}

// TestFileOnlyKeysDocumented: the config keys no flag sets are listed in
// docs/llm.md, where a reader of synth run --help is sent for them.
func TestFileOnlyKeysDocumented(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "llm.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range fileOnly {
		want := "`" + k + "`"
		if _, last, ok := strings.Cut(k, ".ROLE."); ok {
			want = "`" + last + "`"
		}
		if !strings.Contains(string(raw), want) {
			t.Errorf("docs/llm.md does not list the file-only key %s (as %s)", k, want)
		}
	}
}
