package agent

import (
	"math/rand/v2"
	"testing"

	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/usersim"
)

// The customer reads every form of the agent's "anything else?" as that
// question, also after a report that names a piece it could be asked for
// ("refunded … to the original payment method"): a customer who read the
// report instead answered with a payment method, and a replay through
// synth serve parted from the dialogue there.
func TestAnythingElseReadsAsAnythingElse(t *testing.T) {
	reports := []string{"", "You've been refunded $6.32 to the original payment method (gift_card_4831982).",
		"The new address is 12 Elm Street. The reason was no longer needed."}
	for _, c := range []struct {
		bank []string
		kind string
	}{{askAnythingElse, "anything_else"}, {askHelp, "help"}} {
		for _, tmpl := range c.bank {
			for seed := range 300 {
				q := dialog.Render(rand.New(rand.NewPCG(uint64(seed), 7)), tmpl, nil)
				for _, r := range reports {
					text := r + " " + q
					if got := usersim.Classify(text); got.Kind != c.kind {
						t.Errorf("%q reads as %s/%s, want %s", text, got.Kind, got.Piece, c.kind)
					}
				}
			}
		}
	}
}

// The customer reads every way the agent asks for a reason as that
// question (the reason piece), with the write's phrase in it or not.
func TestReasonAsksReadAsReason(t *testing.T) {
	for _, c := range []struct {
		bank  []string
		slots map[string]string
	}{
		{genericAskReason, map[string]string{"act": "cancel reservation QE4R4M"}},
		{genericAskReason, map[string]string{"act": "call off order #W2965069"}},
		{genericAskReasonBare, nil},
	} {
		for _, tmpl := range c.bank {
			for seed := range 50 {
				text := dialog.Render(rand.New(rand.NewPCG(uint64(seed), 7)), tmpl, c.slots)
				if got := usersim.Classify(text); got.Kind != "piece" || got.Piece != "reason" {
					t.Errorf("%q reads as %s/%s, want piece/reason", text, got.Kind, got.Piece)
				}
			}
		}
	}
}
