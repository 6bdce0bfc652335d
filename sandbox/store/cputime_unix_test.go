//go:build unix

package store

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used, user and system: unlike the
// wall clock, it does not count the time the benchmark waited for a core that
// another program had.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
