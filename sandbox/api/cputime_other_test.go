//go:build !unix

package api_test

import "time"

// processCPU cannot be read here: see cputime_unix_test.go.
func processCPU() (time.Duration, bool) { return 0, false }
