//go:build race

package usersim_test

const raceEnabled = true
