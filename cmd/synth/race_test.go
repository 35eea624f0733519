//go:build race

package main

// raceEnabled: the race detector's shadow memory does not fit under a
// small heap cap.
const raceEnabled = true
