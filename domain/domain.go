package domain

import (
	"context"
	"fmt"

	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/pack"
	"github.com/synth-data/synth/tools"
)

// Domain is a loaded domain, ready for a run: the pack compiled into the
// model the stages share. The verifier takes its rules from the same
// model (verify.ForDomain).
type Domain struct {
	Name    string
	Version string
	Policy  string
	Tools   *tools.Toolkit
	Base    *tools.Base
	// Files are the domain's defining files, shipped in a release's
	// domain/ folder so the release re-verifies on its own.
	Files map[string][]byte
	// HoldoutFile names the file of Files holding the tasks generation
	// must not reproduce ("" for none).
	HoldoutFile string
	// Model is the compiled pack: the generator builds tasks from it, the
	// engines the customer and the agent.
	Model *model.Model
}

// FromPack makes a domain of a loaded pack and its compiled model; the
// verifier derives its rules from that model (verify.ForDomain).
func FromPack(p *pack.Pack) (*Domain, error) {
	m, err := model.NewModel(context.Background(), p)
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", p.Manifest.Name, err)
	}
	d := &Domain{
		Name:        m.Name,
		Version:     m.Version,
		Policy:      p.Policy,
		Tools:       p.Tools,
		Base:        p.Base,
		Files:       p.Files,
		HoldoutFile: p.Manifest.Holdout,
		Model:       m,
	}
	return d, nil
}
