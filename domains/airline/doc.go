// Package airline is the built-in airline domain, written as a domain
// pack: τ²-bench's airline tools over a database synth generates.
//
// The pack is in the format users write: domain.yaml (collections, how
// customers are identified, the hints that make its tasks: bookings found
// by searching nonstop and one-stop flights, cabin, bag and passenger
// changes, cancellations, compensation, and the policy's rules),
// generator.star building the database from the seed in τ²'s FlightDB
// shape (flights with a status per date around the pack's clock, users
// with memberships, payment methods and saved passengers, reservations
// the schedule flies), policy.star with the figures the policy sets (free
// bags, a booking's payment, compensation), and policy.md. FS serves the
// files; domains.Load loads them like any pack; nothing here is Go but the
// embedding.
//
// The tools are answered by Go, not Starlark: the manifest names handlers:
// builtin:tau2-airline, domains/tau2's exact port of τ²'s airline tools,
// and FS adds that handler set's own tools.json, so the pack and the
// handlers cannot disagree on a tool. The records are synth's (no τ²
// record, id or flight number), in the shapes and number kinds τ²'s model
// gives them, so the handlers answer as τ²'s Python would; training on τ²'s
// own database and tasks is the import-tau2 pack's business, which starts
// from this pack's domain.yaml and policy.star. See docs/airline.md.
package airline
