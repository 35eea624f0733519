package dpo_test

// shortSkip is why a long single-threaded test skips under -short: make
// test runs the tests with -short under the race detector, where only
// what runs concurrently needs it, and make test-long runs the rest.
const shortSkip = "long and single-threaded: make test (-short, -race) leaves it to make test-long"
