//go:build unix

package pack

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used; benchmarks divide by it
// as well as by wall time, because on a shared machine wall time counts
// other processes' turns.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
