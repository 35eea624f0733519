// Package schemas holds the JSON Schemas of synth's records and validates
// records against them.
//
// The schemas (Draft 2020-12, embedded) describe the blueprint, trajectory,
// message and selector records of package record as they are written to
// disk, and a pack's domain.yaml. Compile builds a Set once; Validate,
// ValidateJSON and ValidateValue check a record, JSON text or a generic
// JSON value against one schema by name, and the error names the schema
// file. verify runs them as its first check on every dialogue (from a
// hand-built generic value, which is faster than a JSON round trip), pack
// checks manifests with them, and Files is what a release ships under
// domain/schemas/, so its records are documented next to them and any
// JSON Schema tool can check them without synth.
//
// The schemas are the contract, the Go types are one implementation of it:
// when a field of package record changes, its schema changes with it, or
// every new dialogue fails the record_schema check. A compiled Set is
// immutable and safe for concurrent use; the package holds no compiled
// state of its own, so callers decide when to pay for Compile.
package schemas
