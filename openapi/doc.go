// Package openapi imports OpenAPI 3.0/3.1 specs as domain packs (synth
// domain import-openapi), so any documented API becomes a domain synth can
// generate on without writing a pack by hand.
//
// Import reads the spec (YAML or JSON, with the relative files its $refs
// name, through Options.Files), turns every operation into one OpenAI tool
// whose parameters are a self-contained Draft 2020-12 schema ($refs
// inlined within depth and size limits; a parameter schema that does not
// compile is replaced by a permissive one, with a warning), and maps the
// operations onto resources: the paths that list, get, create, update and
// delete records of one collection, nested ones scoped by their parent
// ids. Mapped operations get Starlark handlers over db.json, a database
// seeded from the schemas with values a person would believe (formats,
// examples, patterns, enums and bounds, parent ids that exist, dates near
// Clock); unmapped ones get a handler that fails with a message until
// someone writes it. It also writes domain.yaml with the collections and a
// persona (a customer, or the employee, operator or developer the API is
// really used by), a policy, and IMPORT.md, which lists every operation,
// how it was mapped and every warning with its line. ImportFile does the
// same from a file into a folder: it reads through an os.Root, so links
// cannot lead outside the spec's folder, and writes to a temporary sibling
// renamed into place, so a failed import leaves nothing behind.
//
// ImportTools is the same for RPC-style tools, an MCP server's (synth
// domain import-mcp): no paths, so the collections come from the tools'
// names and arguments instead (toolsmap.go: the noun after the verb,
// the argument a get, update or delete names one record by, the ones
// they share as its scope), and tools over lists of records get
// handlers of their own (create or delete each element, add values to
// the lists of the records the elements name, search text, read
// everything). Both front ends end in assemble: the seeded database,
// the manifest and hints, the handlers, the policy and IMPORT.md.
//
// An import is a pure function of the spec, its files and Options: the
// same seed gives the same db.json, and the output is in a fixed order.
// Specs are hostile input: what is read is bounded (MaxSpecBytes,
// MaxOperations), a $ref that cannot be followed fails only its operation,
// and a crash inside the parser becomes an error naming the spec. The
// importer calls no API and fetches no remote $ref; the pack it writes is
// a starting point, checked by pack.Load like any other, not a claim that
// the API behaves as its handlers do.
package openapi
