package engine

import (
	"context"

	"github.com/synth-data/synth/record"
)

// Engine plays the dialogue of one blueprint and verifies it. Every
// engine is held to the same verifier, so a dialogue's verdict means the
// same whichever engine played it.
type Engine interface {
	// Dialogue plays bp with offered as the tools the agent is given
	// (nil: every tool of the domain). An error is a fault of the run (a
	// tool set that cannot be loaded, an LLM server that refuses), never
	// a dialogue that failed verification: that is an Outcome.
	Dialogue(ctx context.Context, bp *record.Blueprint, offered map[string]bool) (*Outcome, error)
}

// Outcome is what an engine made of one blueprint.
type Outcome struct {
	// Trajectory is the dialogue kept: the one that verified, or the last
	// that failed.
	Trajectory *record.Trajectory
	Verdict    record.Verdict
	// Rejected is the rejected/ record of a failed Trajectory when the
	// engine writes its own (the LLM engine adds the trial and its
	// failure label); nil leaves the standard record to the caller.
	Rejected []byte
	// Attempts are the failed dialogues before Trajectory, each a
	// rejected record of its own.
	Attempts []Attempt
	// Pairs are the DPO pairs of a verified Trajectory (empty without a
	// Plan).
	Pairs Pairs
	// Usage counts what an LLM engine's responses used (nil otherwise).
	Usage *LLMStats
}

// Attempt is a failed dialogue of a blueprint that has a later outcome.
type Attempt struct {
	Verdict record.Verdict
	Record  []byte // its rejected/ record
}

// Budgeted is an engine that spends a budget: once Spent reports an
// error no new blueprint should start. A dialogue already started
// finishes, so the work in flight is not wasted.
type Budgeted interface {
	Spent() error
}

// Metered is an engine that can say what it billed so far (requests,
// tokens, cost), for progress and logs; never for a release, since a
// cached rerun bills nothing.
type Metered interface {
	Billing() *Billing
}

// Waiting is an engine whose dialogues mostly wait on the network: it
// wants InFlight dialogues at once, more than there are CPUs. The
// caller still bounds its own CPU work (generation) to its workers.
type Waiting interface {
	InFlight() int
}

// Pairs are a blueprint's DPO pairs, each with its proof (the
// dpo_failures/ record saying which check its rejected side failed), and
// how the flawed attempts ended.
type Pairs struct {
	Rows   []PairRow
	Proofs [][]byte
	Stats  DPOStats
}

// PairRow is one DPO row: the fields of export.DPORow, which it converts
// to, so that engines make rows without depending on the file format.
type PairRow struct {
	ID, BlueprintID, Domain string
	// Prompt ends with a user or tool message; Chosen and Rejected start
	// with an assistant message.
	Prompt, Chosen, Rejected []record.Message
	Tools                    string
	// Failure is the taxonomy label of the rejected continuation.
	Failure        string
	DivergenceTurn int32
}

// DPOStats counts how flawed attempts ended.
type DPOStats struct {
	Attempts    int `json:"attempts"`
	NotFired    int `json:"not_applicable"`
	NoFailure   int `json:"verified_anyway"`
	OtherReason int `json:"failed_for_another_reason"`
	Unpairable  int `json:"unpairable"`
	// LabelNotShown counts the failed dialogues and LLM trials whose
	// rows never show the labelled mistake (dpo.Plan.Cut): paired, they
	// would teach a label nothing shows.
	LabelNotShown int `json:"label_not_shown"`
	Pairs         int `json:"pairs"`
	// AssistantOnly counts the pairs whose chosen and rejected hold
	// assistant messages only: the ones OpenAI's preference fine-tuning
	// takes (export.AssistantOnly).
	AssistantOnly int            `json:"pairs_assistant_only"`
	ByFailure     map[string]int `json:"pairs_by_failure"`
	BySplit       map[string]int `json:"pairs_by_split"`
	// LengthRatio counts the pairs by the ratio of their chosen side's
	// length to their rejected side's (dpo.LengthBucket): a trainer's
	// model learns a length the sides differ by instead of the decision.
	LengthRatio map[string]int `json:"length_ratio,omitempty"`
}
