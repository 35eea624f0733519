//go:build !linux

package main

// boundSupported: only Linux caps the heap of a child process the way the
// bound needs; elsewhere the commands run without it.
const boundSupported = false

func capHeap(int64) error { return nil }

func physicalMemory() int64 { return 0 }
