package openapi

// shortSkip is why a long single-threaded test skips under -short: make
// test runs every test once without -race and then the race detector
// with -short, where only what runs concurrently needs it.
const shortSkip = "long and single-threaded: the race pass (-short) leaves it to the pass without -race"
