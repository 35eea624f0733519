package schemas

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed *.schema.json
var files embed.FS

const base = "https://synth.dev/schemas/"

// Names of the record schemas.
const (
	Blueprint  = "blueprint"
	Trajectory = "trajectory"
	Message    = "message"
	// Pack is a domain pack's manifest (domain.yaml, as a JSON value).
	Pack = "pack"
)

// Set is a compiled set of record schemas. Compile once; a compiled Set
// validates concurrently.
type Set struct {
	byName map[string]*jsonschema.Schema
}

// Compile compiles every embedded schema (Draft 2020-12).
func Compile() (*Set, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	entries, err := files.ReadDir(".")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		raw, err := files.ReadFile(e.Name())
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("schemas/%s: %w", e.Name(), err)
		}
		if err := c.AddResource(base+e.Name(), doc); err != nil {
			return nil, fmt.Errorf("schemas/%s: %w", e.Name(), err)
		}
	}
	s := &Set{byName: map[string]*jsonschema.Schema{}}
	for _, n := range []string{Blueprint, Trajectory, Message, Pack} {
		sch, err := c.Compile(base + n + ".schema.json")
		if err != nil {
			return nil, fmt.Errorf("schemas/%s.schema.json: %w", n, err)
		}
		s.byName[n] = sch
	}
	return s, nil
}

// Validate checks a record (any JSON-marshalable value) against a schema.
func (s *Set) Validate(name string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return s.ValidateJSON(name, raw)
}

// ValidateJSON checks JSON text against a schema.
func (s *Set) ValidateJSON(name string, raw []byte) error {
	sch, ok := s.byName[name]
	if !ok {
		return fmt.Errorf("no schema named %q", name)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("%s: not JSON: %w", name, err)
	}
	if err := sch.Validate(doc); err != nil {
		return fmt.Errorf("%s does not match schemas/%s.schema.json: %w", name, name, err)
	}
	return nil
}

// ValidateValue checks a generic JSON value (maps, slices, strings,
// json.Number, bools, nil) against a schema.
func (s *Set) ValidateValue(name string, v any) error {
	sch, ok := s.byName[name]
	if !ok {
		return fmt.Errorf("no schema named %q", name)
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("%s does not match schemas/%s.schema.json: %w", name, name, err)
	}
	return nil
}

// Files returns the schema files, for shipping inside a release.
func Files() map[string][]byte {
	out := map[string][]byte{}
	entries, _ := files.ReadDir(".")
	for _, e := range entries {
		b, _ := files.ReadFile(e.Name())
		out[e.Name()] = b
	}
	return out
}
