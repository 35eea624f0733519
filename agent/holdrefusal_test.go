package agent

import (
	"math/rand/v2"
	"testing"

	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/usersim"
)

// Every way the agent holds a refusal against a plea reads as a refusal to
// whoever reads the agent's words alone: the customer of an episode
// stepped from outside (serve, MCP) and the credit labels. One that does
// not makes the customer take it for a new turn and the replay part from
// the dialogue.
func TestHeldRefusalsReadAsRefusals(t *testing.T) {
	banks := map[string][]string{"holdRefusal": holdRefusal, "holdRefusalAgain": holdRefusalAgain, "holdRefusalHigher": holdRefusalHigher}
	for name, bank := range banks {
		for i, tmpl := range bank {
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			for range 200 {
				if text := dialog.Expand(rng, tmpl); !usersim.Refuses(text) {
					t.Errorf("%s[%d]: %q does not read as a refusal", name, i, text)
					break
				}
			}
		}
	}
}
