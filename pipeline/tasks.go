package pipeline

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domain"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/record"
)

// Tasks returns a function that rebuilds any blueprint of a run from its
// id: blueprints depend only on the config and their index, so a server
// that knows the config knows every task (synth emulate --config). The
// domain loads on first use.
func Tasks(cfg Config) func(ctx context.Context, id string) (*record.Blueprint, error) {
	var (
		once sync.Once
		gen  *blueprints.Generic
		err  error
	)
	return func(ctx context.Context, id string) (*record.Blueprint, error) {
		once.Do(func() {
			var d *domain.Domain
			if d, err = domains.Load(cfg.Domain, cfg.Seed); err != nil {
				return
			}
			gen, err = Generator(cfg, d)
		})
		if err != nil {
			return nil, err
		}
		i := strings.LastIndexByte(id, '-')
		index, perr := strconv.Atoi(id[i+1:])
		if i < 0 || perr != nil || index < 0 || index >= cfg.N {
			return nil, fmt.Errorf("blueprint id %q: no index of this run (n %d) at its end", id, cfg.N)
		}
		bp, gerr := gen.Generate(ctx, index)
		if gerr != nil {
			return nil, gerr
		}
		if bp.ID != id {
			return nil, fmt.Errorf("blueprint id %q is not from this config (its blueprint %d is %s)", id, index, bp.ID)
		}
		return bp, nil
	}
}

// Generator is the blueprint generator a run of cfg builds on its domain
// d (domains.Load(cfg.Domain, cfg.Seed)): blueprint i of the run is its
// Generate(ctx, i). A blueprint depends on the config and its index
// only, not on n, so any index names the same task in every run of the
// config (synth serve resets to one by seed and index).
func Generator(cfg Config, d *domain.Domain) (*blueprints.Generic, error) {
	spec, err := cfg.Spec()
	if err != nil {
		return nil, err
	}
	if ww := d.Model.WriteWeights; ww != nil && cfg.WriteWeights == nil && cfg.Writes == Defaults().Writes {
		// The domain's own mix of task sizes (tasks.write_weights in its
		// domain.yaml, at most one weight per count of the default range).
		spec.WriteWeights = make([]float64, spec.Writes.Max-spec.Writes.Min+1)
		copy(spec.WriteWeights, ww)
	}
	return blueprints.NewGeneric(d.Model, spec)
}
