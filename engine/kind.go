package engine

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/dpo"
	"github.com/synth-data/synth/llm"
	"github.com/synth-data/synth/verify"
)

// Kind is an engine as a run names it (--engine): its name, what a
// release's card says of it and how it is built. The run and the release
// know engines only through their Kinds, so adding one is a package that
// describes itself and a line in the run's list, never a switch on its
// name.
type Kind struct {
	Name string
	// Model says the engine talks to a model endpoint: the run then
	// builds an LLM client for it, records the LLM keys of its config and
	// reports the usage.
	Model bool
	// Card is the engine's part of a release's dataset card.
	Card Card
	// Options are the config keys the engine reads: its block of the
	// run's config, top-level keys of the file and flags of synth run.
	Options []Option
	// Recorded lists the config keys a release of the engine records in
	// its manifest and fingerprint when they are not its Options less the
	// Run ones: the LLM engines' releases recorded keys they do not read
	// (recovery_share; hybrid's user and trials) before engines owned
	// their keys, and dropping one would change those releases' bytes.
	Recorded []string
	// Check reports every problem of the engine's keys in cfg (the run's
	// config as JSON), each naming its flag and the fix; nil checks
	// nothing.
	Check func(cfg json.RawMessage) []error
	// Resolve returns the engine's keys of cfg with the defaults that
	// depend on other keys filled in, so the recorded config says what
	// the run used; nil keeps them as given.
	Resolve func(cfg json.RawMessage) (map[string]any, error)
	// New builds the engine for a run.
	New func(ctx context.Context, s Setup) (Engine, error)
}

// Option is one config key an engine reads, with its default. Run marks
// a key that changes how a run spends (how many dialogues wait on the
// network at once) but not what it makes: the run records it in neither
// the manifest nor the fingerprint, so a rerun that changes it resumes.
type Option struct {
	Key     string
	Default any
	Run     bool
}

// Reads reports whether the engine reads the config key.
func (k Kind) Reads(key string) bool {
	return slices.ContainsFunc(k.Options, func(o Option) bool { return o.Key == key })
}

// Card is what a release's dataset card says of the engine that played
// its dialogues.
type Card struct {
	// Name names the engine where the card says what made the rows
	// ("embedded engine").
	Name string
	// Pipeline says how a blueprint became a dialogue, continuing
	// "Pipeline: blueprints (...) → ".
	Pipeline string
}

// Setup is what a run gives the engine it builds.
type Setup struct {
	Domain   *domain.Domain
	Verifier *verify.Verifier
	// Chatter answers the requests of an engine whose Kind has Model
	// (nil for the others).
	Chatter llm.Chatter
	// Plan makes DPO pairs (nil: no pairs).
	Plan     *dpo.Plan
	Seed     uint64
	MaxTurns int
	// Workers bounds the CPU-bound work done at once.
	Workers int
	// Options is the run's config as JSON: each engine decodes the keys
	// it reads itself, so the run passes them without knowing them.
	Options json.RawMessage
}
