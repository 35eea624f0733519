//go:build linux

package main

import (
	"fmt"
	"runtime/debug"
	"syscall"
)

// boundSupported: Linux caps a process's data segment, which holds Go's
// heap, with RLIMIT_DATA.
const boundSupported = true

func capHeap(n int64) error {
	lim := syscall.Rlimit{Cur: uint64(n), Max: uint64(n)}
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &lim); err != nil {
		return fmt.Errorf("cap the memory at %d bytes: %w", n, err)
	}
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(n / 4 * 3)
	return nil
}

func physicalMemory() int64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}
