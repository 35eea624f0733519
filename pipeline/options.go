package pipeline

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"github.com/synth-data/synth/engine"
)

// engineOptions are the keys every engine reads, each once, in the order
// of engines() and then of each engine's Options.
func engineOptions() []engine.Option {
	var out []engine.Option
	for _, k := range engines() {
		for _, o := range k.Options {
			if !slices.ContainsFunc(out, func(p engine.Option) bool { return p.Key == o.Key }) {
				out = append(out, o)
			}
		}
	}
	return out
}

// engineDefaults are the engines' keys at their defaults. A config holds
// every engine's, so a file may set them before it names the engine and
// switching engines keeps what was set.
func engineDefaults() map[string]any {
	m := map[string]any{}
	for _, o := range engineOptions() {
		m[o.Key] = o.Default
	}
	return m
}

// recorded reports whether the manifest and the fingerprint hold key for
// a run of engine k: the keys it reads, but not those that change only
// how the run spends, unless the engine lists them (Kind.Recorded).
func recorded(k engine.Kind, key string) bool {
	if k.Recorded != nil {
		return slices.Contains(k.Recorded, key)
	}
	return uses(k, key)
}

// uses reports whether engine k reads key and its value changes what the
// run makes.
func uses(k engine.Kind, key string) bool {
	i := slices.IndexFunc(k.Options, func(o engine.Option) bool { return o.Key == key })
	return i >= 0 && !k.Options[i].Run
}

// Option is the value of an engine's key (nil when no engine reads it).
func (c Config) Option(key string) any { return c.Options[key] }

// SetOption sets an engine's key. The map is copied first: a Config is
// passed by value and its copies must not change each other.
func (c *Config) SetOption(key string, v any) {
	m := maps.Clone(c.Options)
	if m == nil {
		m = map[string]any{}
	}
	m[key] = v
	c.Options = m
}

// configFields is Config without its JSON methods: the keys of its fields.
type configFields Config

// MarshalJSON writes the engines' keys at the top level, beside the
// others, as the config file has them.
func (c Config) MarshalJSON() ([]byte, error) {
	raw, err := json.Marshal(configFields(c))
	if err != nil || len(c.Options) == 0 {
		return raw, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	maps.Copy(m, c.Options)
	return json.Marshal(m)
}

// UnmarshalJSON reads a config over c: the engines' keys into Options,
// the rest into the fields. A key neither knows is an error, as it is for
// a decoder that disallows unknown fields.
func (c *Config) UnmarshalJSON(raw []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	opts := maps.Clone(c.Options)
	for _, o := range engineOptions() {
		v, ok := m[o.Key]
		if !ok {
			continue
		}
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			return err
		}
		if opts == nil {
			opts = map[string]any{}
		}
		opts[o.Key] = x
		delete(m, o.Key)
	}
	rest, err := json.Marshal(m)
	if err != nil {
		return err
	}
	// Named Config here too, so the decoder's messages name Config.n as
	// they did before Config decoded itself.
	type Config configFields
	dec := json.NewDecoder(bytes.NewReader(rest))
	dec.DisallowUnknownFields()
	if err := dec.Decode((*Config)(c)); err != nil {
		return err
	}
	c.Options = opts
	return nil
}
