// Package agent holds the embedded engine's agent: a policy-keeping oracle
// that solves any pack's tasks by really reading and writing through the
// tools, and the flawed twins of it that make the rejected side of DPO
// pairs.
//
// Generic is that agent. It knows the domain's shape from the pack's
// model.Model (which tools identify a customer, the collections and
// writes, where each write argument comes from) but resolves every target
// and value from what the customer said and what its own tool calls
// returned, never from the blueprint: a dialogue it wins proves the task
// can be solved from the conversation alone. Respond takes a customer turn
// and works until it has something to say — authenticate, read the
// evidence, propose each write with its identifying arguments, wait for an
// explicit yes, one write per turn, tell the outcome, ask whether there is
// anything else, close. The Turn it returns holds its tool calls with
// their results (ids from CallID, the form Mistral's templates require)
// and ends with a dialog.Ask naming what it asked for, which the rule-based
// customer answers.
//
// A Flaw (Flaws lists the taxonomy) makes the agent behave exactly like
// the oracle until the flaw's first opportunity at or after its goal, and
// then make that one mistake; Fired says whether it did. The oracle and its
// flawed twin draw from the same stream, so their dialogues share a prefix
// and part at the decision that matters, which is what a preference pair
// needs. A flaw with no opportunity in a task does not fire, and the DPO
// plan (package dpo) tries another.
//
// The agent speaks through the phrase banks of generic_phrases.go and
// phrases.go, rendered with dialog's grammar; facts go into slots and are
// never varied, so the verifier finds them as the tools gave them. It does
// not read the customer's free text (only the Acts a simulated customer
// attaches), it talks to no model (the LLM agent is engine/llm's), and it
// holds no globals: every choice draws from the blueprint's "agent" stream,
// so a dialogue is a function of its blueprint.
package agent
