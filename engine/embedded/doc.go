// Package embedded is the offline engine: the domain's rule-based
// customer (usersim) and oracle agent (agent) talk, every tool call runs
// on the episode's own copy-on-write state, and the verifier decides.
// Simulate plays a blueprint; SimulateFlawed replays it with a flawed
// agent on the same random streams, so the flawed dialogue is the
// oracle's word for word until the flaw fires. With a DPO plan the engine
// tries flaws in the plan's order until enough of them fail for their
// expected reason, and cuts each against the verified dialogue (package
// dpo). Kind describes the engine to a run: its name, its card text and a
// constructor that reads its one config key, recovery_share.
package embedded
