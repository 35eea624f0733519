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
// domains.PackOptions registers the sets as builtin:tau2-retail and
// builtin:tau2-airline, with ReadRetailDB and ReadAirlineDB as their
// db.json readers; the built-in retail and airline packs run on these sets
// over generated databases, and take their tools.json from here (PackFS).
//
// Import (synth domain import-tau2) makes a pack of a τ²-bench domain
// folder: τ²'s db.json and policy as they are, its tools, the domain.yaml
// and policy code of the built-in pack of that domain (whose collections,
// users and hints describe τ²'s data model), rules quoting τ²'s policy
// (retail_rules.yaml, airline_rules.yaml), and holdout.json with the
// writes of every τ² task, which generation never reproduces and synth
// verify --keep never keeps, so a benchmark's test tasks stay out of
// training data. Files are
// read only inside the folder, within fixed bounds, and the pack is loaded
// before it is renamed into place, so a broken import is never written.
//
// The package holds no τ² data and runs no Python. Handlers keep no state
// between calls but indexes over fields no tool changes, keyed by the base
// they index and bounded in number, so concurrent episodes share them
// safely and see their own writes.
package tau2
