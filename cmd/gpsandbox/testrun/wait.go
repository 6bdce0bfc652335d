package testrun

import (
	"testing"
	"time"
)

// A test waiting for what happens in the background (a delivery, a reload, a server
// closing idle connections) sets no time of its own: a bound a loaded machine can
// overrun fails the test for nothing. It waits as long as go test's -timeout lets the
// test binary run, and fails a second before that, naming what it waited for, where
// the timeout's panic would name nothing.

// Deadline is when a wait in t gives up: a second before the test binary's deadline.
// Without one (-timeout 0, or a benchmark) it is a day away.
func Deadline(t testing.TB) time.Time {
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if end, bounded := d.Deadline(); bounded {
			return end.Add(-time.Second)
		}
	}
	return time.Now().Add(24 * time.Hour)
}

// Expiry fires at Deadline(t), for a test that waits in a select.
func Expiry(t testing.TB) <-chan time.Time { return time.After(time.Until(Deadline(t))) }

// WaitFor polls cond every 10 ms until it holds, and fails t at Deadline(t).
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := Deadline(t)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s when the test's time ran out", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
