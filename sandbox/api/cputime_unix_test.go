//go:build unix

package api_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used so far, user and system, on every
// thread (the collector's included); ok is false where it cannot be read.
func processCPU() (cpu time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
