//go:build race

package blueprints_test

const raceEnabled = true
