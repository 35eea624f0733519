//go:build race

package agent_test

const raceEnabled = true
