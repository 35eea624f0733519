// Package tau2 runs τ²-bench's retail and airline tools in Go, exactly: for
// any database and call sequence, each result, error and write is what
// τ²'s own Python tools give (its oracle.py is the reference the tests
// hold them to), so synth can generate on τ²'s environments and check
// dialogues made there.
//
// The parts fit together as a pack: CheckRetailDB or CheckAirlineDB turns
// a τ² db.json into the database pydantic would hold (model_dump form),
// KeyOrder adds the key order τ²'s dict scans follow (under
// OrderCollection), RetailTools or AirlineTools is the tools.json with
// τ²'s names, parameters and descriptions, and RetailHandlers or
// AirlineHandlers is the built-in handler set the pack names. The
// handlers work on generic JSON records in a tools.State, copy what they
// change, and reproduce τ²'s Python down to its text: str() and repr() of
// numbers, round(x, 2), pydantic's validation messages, Python's eval for
// calculate, and the quirks of τ²'s code (see the comments at each).
package tau2
