// Package verify decides whether a dialogue becomes training data: schema
// checks, state replay, required outputs and policy.
//
// A Verifier holds one domain's rules (Domain: its tools and base, which
// tools authenticate and which may run before, whose record a call
// touches, which arguments a proposal must name) and judges a blueprint
// and its trajectory with the checks of Checks, in order: the records
// match their schemas, every call's arguments match its tool's schema,
// call ids are well formed and paired with their results, the turns are
// well formed (system policy first, no empty turn, no leaked stop token),
// no account is touched before the customer is authenticated or beyond
// their own, each write was proposed with its identifying details and
// accepted by an explicit yes before it ran, replaying the dialogue's
// writes on a fresh state gives the ground truth's state hash (τ²-bench's
// reward), the agent said every required output, and the dialogue ended as
// the task needs. Every check runs even after one fails, so a Verdict says
// all that is wrong, and the pipeline, the DPO pairs and the manifest's
// pass rates use its first failure and its per-check results.
//
// Outside judges a dialogue made elsewhere the same way, after one more
// check: each recorded tool result must be what replaying the call gives.
// Its ground truth may hold a write that fails and changes nothing, as
// τ²'s evaluation allows; without ground truth the checks that need it
// fail saying so.
//
// The verifier takes no one's word for what happened: the final state is
// replayed from the dialogue's writes rather than read from it, the
// blueprint's own hash is recomputed from its ground truth, and an outside
// dialogue's recorded results are held to a replay before any check relies
// on them. It judges by rule, with no model and no network, so a verdict
// is a pure function of the dialogue, its blueprint and the domain, and
// synth validate reaches the same one later from the release alone. It
// does not judge style or fluency. A Verifier is safe for concurrent use.
package verify
