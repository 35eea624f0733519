// Package pack loads, validates and scaffolds domain packs: folders that
// define a domain with a manifest, OpenAI tools, sandboxed Starlark
// handlers, a database and a policy.
//
// A pack is domain.yaml (the Manifest: collections, how customers are
// identified, optional Hints that steer which tasks exist and how they are
// phrased, the clock, an optional holdout), tools.json (every function
// marked read, write or generic), handlers.star with def TOOL(db, args) per
// tool — or handlers: builtin:NAME for a Go HandlerSet the caller passes
// in Options.Builtins — a database as db.json or as generator.star's
// generate(seed), policy.md, and optionally policy_code: a Starlark file
// of the policy's functions that compute: arguments name (a pack on
// built-in handlers has no handlers file to hold them). Load checks all of
// it and compiles it into
// a Pack: the policy text, a tools.Toolkit whose handlers run in the
// sandbox, the tools.Base database, the held-out tasks' writes, and Files,
// the pack's own bytes, which a release ships so it re-verifies alone.
// LoadDir reads a folder through an os.Root, so a link cannot bring
// /proc/self/environ into every training row's system message. Validate
// reports every Problem at once with its file and line, from YAML syntax
// and schemas/pack.schema.json to references between files, and no
// problems means Load succeeds; Init writes a small runnable helpdesk pack
// to start from (synth domain init). Text that goes into rows must be
// UTF-8: a policy that is not is a problem of Load, a string of a handler
// or the generator that is not fails its call. Probe, which synth domain
// validate runs after Load, calls every handler once on the pack's own
// data under the sandbox's bounds, so a handler that loops, returns too
// much or crashes whatever it is asked is found before a run meets it.
//
// Starlark code is someone else's, so the sandbox is strict: no files,
// network or clock (NOW is the manifest's clock), a step limit per handler
// call and per generator, and caps on the sizes that cross the boundary
// (Limits), and on the messages it makes (fail(), an error quoting a
// value: 8 KiB). Starlark has no memory limit, so the commands that run a
// user's pack also run under a heap bound in a child process (cmd/synth).
// random(seed) draws from synth's own PCG stream and range reduction, so
// a seed gives the same database with every Go release; a pack is a
// function of its files and the seed.
//
// The package knows no domain and makes no tasks: it turns files into
// tools and data, and blueprints.NewModel reads the Manifest and Hints to
// decide what tasks the domain allows. A Holdout only answers whether a
// task's writes equal a held-out one; refusing such tasks is the
// generator's and the keeper's business.
package pack
