// Package tools runs a domain's typed tools against per-episode
// copy-on-write state.
//
// A Base is the domain's database, immutable once built: collections of
// JSON-marshalable records by key, indexed and hashed once. Each episode
// gets its own State from Base.NewState: reads fall through to the base,
// writes land in a small overlay, so a thousand concurrent dialogues share
// one database and none sees another's writes. A Toolkit is the compiled
// tool set: each Tool's parameter schema (Draft 2020-12) compiled once, its
// kind (read, write or generic, as τ²-bench has them: only writes change
// state and are replayed) and its Handler. Call validates a call's JSON
// arguments, runs the handler on a State and renders the observation the
// agent sees; every failure, invalid arguments included, becomes an
// observation starting with "Error: ", as a real tool server answers.
// Exec is the same without rendering a success, for the generator and the
// replays that want only the value; OpenAI gives the tools array as
// trainers and servers take it.
//
// State hashes are canonical: the hash is a lane-wise sum of one sha256
// per record over its JSON, so it depends on what the database holds, not
// on the order of the writes, and a state's hash costs a digest per record
// its overlay holds, computed when asked for, never a rehash of the base.
// Equal hashes are what the verifier's state check compares, so a record
// must marshal the same way every time; Put makes sure it marshals at all.
// Records in a Base or put in a State must not be modified afterwards:
// handlers copy before they change.
//
// Selector semantics (Field, Matches, ResolveKey) live here, below the
// generator, the agents and the verifier, so that "my most recent pending
// order" picks one record everywhere. The package knows no domain: its
// handlers come from a pack's Starlark or a built-in Go set. A Toolkit and
// a Base are safe for concurrent use; a State belongs to one episode.
package tools
