// Package domains loads a domain by name: its database, tools, policy,
// blueprint generator and verification rules.
//
// Every domain is a pack. Load takes a built-in name (retail and airline,
// embedded in the binary by the subpackages of the same names) or a folder
// holding domain.yaml, loads it with pack.Load and PackOptions, and hands
// the Pack to FromPack. PackOptions is where the Go handler sets built
// into synth are named for packs to use as handlers: builtin:NAME —
// tau2-retail and tau2-airline from domains/tau2 — together with the
// readers that hold a τ²-bench db.json to the data model those handlers
// implement. FromPack compiles the pack once into a blueprints.Model and
// wires the generic parts to it: blueprints.NewGeneric as the generator,
// usersim.NewGeneric as the embedded customer, agent.NewGeneric as the
// embedded agent (flawed when given a Flaw), and a verify.Domain whose
// authentication, ownership and consent rules come from the same Model.
//
// A Domain is built once per run and shared by every worker: its Base and
// Toolkit are immutable, and each episode works on its own Base.NewState,
// so nothing a dialogue does reaches another. Load is deterministic for a
// seed (a generated database is generate(seed)), which is what lets synth
// validate rebuild a release's domain from its name or from the pack files
// the release ships (Files) and get the same state hashes.
//
// There is no domain-specific path here: the built-in domains are packs in
// the format users write, so what works for them works for a user's pack.
// A domain's knowledge lives in its pack files and, for τ²'s exact tools,
// in domains/tau2's handler sets, never in this package.
package domains
