// Package serve is an HTTP environment for multi-turn RL rollouts over
// any domain (synth serve): a session resets to one blueprint, the
// policy steps it with its assistant messages in the OpenAI chat shape,
// and the environment runs the tool calls on the session's own
// copy-on-write state, has the customer answer, and scores each step
// with the blueprint's credit labels and the end with the verifier's
// verdict. The dialogue is the llm engine's Episode, stepped from
// outside, so a policy that speaks as the oracle gets the dialogue the
// embedded engine wrote.
package serve
