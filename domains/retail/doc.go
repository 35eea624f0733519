// Package retail is the built-in online-retail domain, written as a pack
// in the format users write: domain.yaml (collections, how customers are
// identified, and the hints that make retail's tasks: preconditions that
// make refusals, items picked from an order and replaced by variants of
// the same product, payment chosen among the customer's methods or the
// original one, out-of-scope topics), the policy, and generator.star
// building the database from the seed. FS returns the files, with
// tau2-bench's retail tools as tools.json from the handler set itself
// (tau2.PackFS); domains loads them like any pack.
//
// The tools are answered by Go, not Starlark: the manifest names handlers:
// builtin:tau2-retail, domains/tau2's exact port of τ²'s retail tools,
// which domains.PackOptions makes available, so the agent sees the results
// and error messages τ²'s Python would give. For that the pack's records
// must be what those handlers expect: generator.star builds them in the
// shapes of τ²'s retail data model (fields in its order, every optional
// field present as None, plus created_at on orders for "my most recent
// order").
//
// The database is synth's, not τ²'s: 600 customers with addresses and
// payment methods, products with variants and orders in every status, all
// drawn from random(seed) in a fixed order, so the seed alone fixes the
// domain and a release re-verifies from it. Training on τ²'s own database
// and tasks is the import-tau2 pack's business, with its held-out tasks.
package retail
