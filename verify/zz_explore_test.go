package verify_test

import (
	"testing"

	"github.com/synth-data/synth/blueprints"
	"github.com/synth-data/synth/domains"
	"github.com/synth-data/synth/usersim"
)

func TestZZSpecs(t *testing.T) {
	d, _ := domains.Load("retail", 1)
	for _, s := range []blueprints.Spec{
		{Seed: 1, Writes: blueprints.Range{0, 5}, Reads: blueprints.Range{6, 10}, Behaviors: usersim.Profiles()},
		{Seed: 1, Writes: blueprints.Range{0, 5}, Reads: blueprints.Range{2, 7}, Behaviors: []string{"changes_mind"}},
		{Seed: 1, Writes: blueprints.Range{0, 5}, Reads: blueprints.Range{2, 7}, Behaviors: []string{"changes_mind", "upfront"}},
		{Seed: 1, Writes: blueprints.Range{0, 5}, Reads: blueprints.Range{50, 60}, Behaviors: usersim.Profiles()},
		{Seed: 1, Writes: blueprints.Range{0, 9}, Reads: blueprints.Range{2, 7}, Behaviors: usersim.Profiles()},
		{Seed: 1, Writes: blueprints.Range{0, 5}, Reads: blueprints.Range{2, 7}, Behaviors: []string{"nonsense"}},
	} {
		_, err := d.Generator(s)
		t.Log(s.Writes, s.Reads, s.Behaviors, err)
	}
}
