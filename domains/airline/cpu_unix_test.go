//go:build unix

package airline

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time: benchmarks report CPU per
// call besides wall time, because a shared machine stretches wall time.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
