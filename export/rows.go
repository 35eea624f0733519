package export

import (
	"encoding/json"

	"github.com/synth-data/synth/record"
)

// SFTRow is one row of the sft config: a verified dialogue.
type SFTRow struct {
	ID, BlueprintID, Domain string
	Messages                []record.Message
	// Tools is the OpenAI tools array as JSON text (TRL parses a string).
	Tools           string
	NWrites, NReads int32
	// Evidence holds, for each write, the reads needed before its arguments
	// became identifiable.
	Evidence         []int32
	Behavior, Engine string
	// Kind is "" for the oracle's dialogue and "recovery" for one in which
	// the customer caught a flawed agent's mistake and the agent recovered.
	Kind string
	// Labels is the JSON object of the dialogue's credit labels (package
	// credit); nil in rows of a release before format 4.
	Labels json.RawMessage
}

// DPORow is one row of the dpo config: a shared prompt and two
// continuations, the chosen one verified and the rejected one failed.
type DPORow struct {
	ID, BlueprintID, Domain string
	// Prompt ends with a user or tool message; Chosen and Rejected start
	// with an assistant message.
	Prompt, Chosen, Rejected []record.Message
	Tools                    string
	// Failure is the taxonomy label of the rejected continuation.
	Failure        string
	DivergenceTurn int32
}
