// Package testplay plays embedded-engine dialogues for tests: blueprints
// [0, n) of a generator, on two workers.
//
// Play asks the generator for each blueprint and runs it through
// pipeline.Simulate against its own copy of the domain's state, the same
// path a release takes, and returns each blueprint with its trajectory.
// Tests of the simulated customer and agent use it to look at many real
// dialogues without building a release.
//
// Two workers rather than one make every caller also exercise concurrent
// use of a domain and generator, so a data race shows under -race. The
// result is still ordered by blueprint index and does not depend on which
// worker played what, because every random choice comes from the
// blueprint's own streams. The first error stops the result and names the
// blueprint that failed. Play does not verify or export anything: that is
// for the tests of verify and pipeline.
package testplay
