package pipeline

import "testing"

// shortSkip is why a long single-threaded test skips under -short: make
// test runs every test once without -race and then the race detector
// with -short, where only what runs concurrently needs it.
const shortSkip = "long and single-threaded: the race pass (-short) leaves it to the pass without -race"

// shrink is how much smaller the race pass (-short) makes the long
// resume and merge runs: the workers and chunks still interleave, at a
// third of the size.
func shrink() int {
	if testing.Short() {
		return 3
	}
	return 1
}
