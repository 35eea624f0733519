package agent

import (
	"github.com/synth-data/synth/tools"
)

// The failure taxonomy: each flaw is one realistic mistake an agent makes
// at one decision. A flawed oracle behaves exactly like the oracle until
// its flaw fires, so its dialogue shares the oracle's prefix and diverges
// at the decision that matters.
const (
	FlawGuessedTarget       = "guessed_target"       // acts on one of several records it guessed instead of reading them all
	FlawWrongTarget         = "wrong_target"         // a near miss: the other order
	FlawWrongArgument       = "wrong_argument"       // item, payment method, address field or reason
	FlawNoConfirmation      = "no_confirmation"      // writes without the user's yes
	FlawUnauthenticated     = "unauthenticated"      // acts before authenticating the user
	FlawHallucinatedID      = "hallucinated_id"      // an id no tool returned
	FlawWrongTool           = "wrong_tool"           // a plausible but wrong tool
	FlawSchemaInvalid       = "schema_invalid"       // arguments that break the tool's schema
	FlawStopsEarly          = "stops_early"          // ends before every sub-goal is done
	FlawUnnecessaryTransfer = "unnecessary_transfer" // hands over a request it could handle
	FlawOmitsOutput         = "omits_output"         // never tells the user the amount
	// The policy's rules (pack rules):
	FlawUndisclosed       = "undisclosed"         // asks for the yes without the figure (refund, total) the policy says to tell first
	FlawNoReminder        = "no_reminder"         // skips a reminder or question the policy requires before a write
	FlawNoTransferMessage = "no_transfer_message" // transfers without the policy's exact message
	FlawAssumedArgument   = "assumed_argument"    // fills in what the policy says the customer must give (a reason, the passengers)
	FlawNoOpWrite         = "no_op_write"         // proposes a change to the value the record already has (economy to economy)
	FlawUnrequestedWrite  = "unrequested_write"   // also does the same to another of the customer's records, unasked
	FlawSilentRefusal     = "silent_refusal"      // passes over a forbidden request without saying it cannot be done
	FlawUnchecked         = "unchecked"           // acts or refuses without the reads the policy needs first (the flights' status)
	FlawMiscomputed       = "miscomputed"         // passes another value than the policy sets for a computed argument (a certificate's amount)
)

// Flaws lists every flaw kind.
func Flaws() []string {
	return []string{FlawGuessedTarget, FlawWrongTarget, FlawWrongArgument, FlawNoConfirmation, FlawUnauthenticated,
		FlawHallucinatedID, FlawWrongTool, FlawSchemaInvalid, FlawStopsEarly, FlawUnnecessaryTransfer, FlawOmitsOutput,
		FlawUndisclosed, FlawNoReminder, FlawNoTransferMessage, FlawAssumedArgument, FlawNoOpWrite,
		FlawUnrequestedWrite, FlawSilentRefusal, FlawUnchecked, FlawMiscomputed}
}

// Flaw configures a flawed oracle: the mistake fires at its first
// opportunity while the agent works on goal Goal or a later one.
type Flaw struct {
	Kind string
	Goal int
}

// nearMiss picks another candidate of the same kind as the resolved one:
// one that also fits the customer's conditions (what a pick then tells
// apart), else the one that shares the most of them (another order of
// theirs, with the same status), or -1 when there is no other.
func nearMiss(cands []map[string]any, chosen int, where map[string]string) int {
	best, bestN := -1, -1
	for j, c := range cands {
		if j == chosen {
			continue
		}
		n := 0
		for k, v := range where {
			if tools.Matches(c, map[string]string{k: v}) {
				n++
			}
		}
		if n > bestN {
			best, bestN = j, n
		}
	}
	return best
}
