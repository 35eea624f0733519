//go:build !unix

package airline

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
