// Package pipeline composes synth's stages into a run: blueprints,
// simulation, verification and export, concurrently and deterministically.
//
// Run (synth run) loads the domain and the generator before it writes
// anything, so a broken pack or controls the pack cannot meet leave no out
// dir behind; then it claims the out dir under a lock and resumes whatever
// finished chunks an earlier run of the same config left. Blueprints are
// cut into chunks of consecutive indices, each the unit of durability,
// resume and sharding: an ordered, bounded pool (internal/pool) generates
// each blueprint and hands it to the run's engine.Engine, which plays,
// verifies and, for --dpo, pairs it (engines in engines.go is the one
// list of the engines there are, each an engine.Kind that builds itself
// from the config and says what the card says of it); optional
// capabilities (a budget, metering, waiting on the network) are asked of
// the engine through engine's named interfaces. Results come back in
// index order into a chunk sink: each chunk is written whole into a
// hidden folder and renamed when complete, so after any crash a chunk is
// either finished or absent. finalize then assembles
// the release: duplicates removed in blueprint order (exact keys and
// MinHash over user turns and tool calls, in bounded tables), files linked
// to their final names and hashed as they are placed, statistics merged,
// the dataset card and the manifest (package release) written last. Merge does the
// same over the chunks of shard runs, Keeper over dialogues that passed
// synth verify, and Tasks rebuilds any blueprint of a config from its id
// for synth emulate.
//
// Determinism is the contract: each chunk's files depend only on its
// blueprints, and each blueprint only on the config and its index, so a
// release is byte-identical whatever the workers, interruptions, shards or
// machines, and Config.Fingerprint names the output a config gives with
// this version. LLM requests carry seeds derived from the blueprint, trial
// and role and go through a response cache, so a rerun with the same
// responses gives the same release; an LLM budget stops new blueprints and
// finalizes the completed prefix as a valid partial release.
//
// LoadFile reads a config file over the defaults; every key Config does
// not have is reported at once, with its line and the closest key
// (configkeys.go). An engine's keys (engine.Kind.Options) are top-level
// keys like the others, held in Config.Options for the engine to check
// and decode (options.go): the run knows no engine's keys. The manifest's unused writes are the generator's
// unusable ones and those no released task drew.
//
// synth deletes only what it can prove it wrote (a manifest's files, the
// work dir's publish log, its own work dir) and refuses an out dir holding
// anything else; every file it reads back is bounded by limitio. The
// package keeps no mutable globals: a run gets everything from Config and
// RunOptions, so several runs in one process, as in the tests, do not
// interfere.
package pipeline
