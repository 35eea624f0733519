// Package airline is the built-in airline domain, written as a domain
// pack: flights, users, reservations, Starlark handlers and the agent
// policy.
//
// The pack is synth's own airline in the format users write: domain.yaml
// (collections, how customers are identified, the hints that make its
// tasks: bookings found by searching a grid of origins and dates, flight
// and passenger changes, cancellations, baggage, compensation), tools.json
// with τ²-bench's airline tool names, handlers.star answering them,
// generator.star building the database from the seed (a hub-and-spoke
// network over a 31-day schedule around the pack's clock, users with
// memberships, payment methods and saved passengers, and reservations
// consistent with the flights), and policy.md. FS serves the files and
// domains.Load loads them like any pack; nothing here is Go but the
// embedding.
//
// Handlers validate everything before they write, so a failed call leaves
// the database untouched, and the fees and allowances they charge are the
// ones generator.star and the policy state. The database is a function of
// the seed, so the same seed gives the same domain on every machine. The
// airline that answers exactly as τ²-bench's does is another pack: synth
// domain import-tau2 makes it from τ²'s own files on builtin:tau2-airline.
package airline
