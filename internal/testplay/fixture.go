package testplay

import (
	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/schemas"
	"github.com/synth-data/synth/usersim"
	"github.com/synth-data/synth/verify"
)

// Fixture is a domain with a generator and a verifier, as a run builds
// them, for tests of the stages below the pipeline.
type Fixture struct {
	D   *domain.Domain
	Gen *blueprints.Generic
	Ver *verify.Verifier
}

// NewFixture loads a domain for seed with 0-2 writes per task and every
// behaviour, read levels adapted to the domain.
func NewFixture(domain string, seed uint64) (*Fixture, error) {
	d, err := domains.Load(domain, seed)
	if err != nil {
		return nil, err
	}
	gen, err := blueprints.NewGeneric(d.Model, blueprints.Spec{Seed: seed, Writes: blueprints.Range{Min: 0, Max: 2},
		Reads: blueprints.Range{Min: 0, Max: 6}, AdaptReads: true, Refusals: 0.2, Behaviors: usersim.Profiles(), Validation: 0.05, Test: 0.05})
	if err != nil {
		return nil, err
	}
	sch, err := schemas.Compile()
	if err != nil {
		return nil, err
	}
	return &Fixture{D: d, Gen: gen, Ver: verify.ForDomain(d, sch)}, nil
}
