// Package blueprints generates tasks with executed, identifiable ground
// truth under write and read intensity controls.
//
// The generator reads the domain through its compiled model.Model (package
// model: customers and how they authenticate, collections, searches,
// writes and where each write argument comes from), the same Model the
// simulated customer (usersim) and the agent read, so that a task's pieces
// mean the same to all three.
//
// NewGeneric checks that the pack can meet a Spec's controls before any
// task is drawn: it tries each write in trials and drops those whose
// handler never succeeds, and where the ranges are defaults rather than
// the user's it moves them into the pack's reach and says so (Notes); a
// range the user asked for and the pack cannot give is refused, naming
// the levels it can. Generate(index) then builds one Blueprint: goals a
// customer states, the Selectors that name their targets (exactly one
// record satisfies each), the ground-truth Actions with the reads each
// write needs, the outputs the agent must say, and the state hash of the
// writes. Every action is executed on the plan's own state as it is
// planned, so a blueprint is solvable by construction and its reads are
// proven, not assumed. A task whose writes equal a held-out task's (the
// pack's holdout) is drawn again: a benchmark's test task never becomes
// training data.
//
// Determinism is the contract: a blueprint is a function of the spec and
// its index alone. Every random choice draws from Stream, seeded by Mix
// over (seed, domain, index, purpose), never from a shared source, so the
// output does not depend on scheduling, worker count or sharding; Split
// hashes the index into train, validation or test the same way. The
// Allocators spread writes, reads and behaviour profiles over indices with
// low-discrepancy sequences rather than random draws, so any prefix or
// shard holds each level in proportion to its weight. Generators are safe
// for concurrent use; the Model's read cache only holds answers of the
// untouched base.
//
// The package writes no dialogue and judges none: usersim and agent play
// the task, verify decides whether the dialogue solved it.
package blueprints
