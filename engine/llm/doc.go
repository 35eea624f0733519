// Package llm is the LLM engine: an LLM agent, and an LLM (or the
// rule-based) customer, play each blueprint up to Options.Trials times;
// the first dialogue that verifies is kept (APIGen-MT's rejection
// sampling), earlier ones become failed attempts and, with a DPO plan,
// pairs labelled by dpo.FailureLabel. Guards tell the simulator's
// failures from the agent's (a customer who stops before a write, turns
// left empty twice) and never pair them. Writer has the LLM write the
// customer's instruction, reviewed by a committee of judges. Kind
// describes the engine to a run: its name, its card text and a
// constructor that decodes its config keys (Options, DecodeOptions).
//
// Base is what the LLM engines share (the hybrid one too): the client, a
// bound on CPU work while many dialogues wait on the network, and the
// capabilities engine names (Budgeted, Metered, Waiting). Determinism:
// every request is a function of the blueprint, the trial and the
// dialogue so far, with a seed from Seed, so the same responses give the
// same release whatever the concurrency; the client's cache makes a rerun
// reproduce it without a request.
//
// The package is named llm like the client it drives; it imports that
// client as client.
package llm
