// Package retail is the built-in online-retail domain, written as a pack
// in the format users write: domain.yaml (collections, how customers are
// identified, and the hints that make retail's tasks: preconditions that
// make refusals, items picked from an order and replaced by variants of
// the same product, payment chosen among the customer's methods or the
// original one, out-of-scope topics), tau2-bench's retail tools in
// tools.json, the policy, and generator.star building the database from
// the seed. FS returns the files; domains loads them like any pack.
package retail
