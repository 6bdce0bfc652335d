package testrun

import (
	"testing"
	"time"
)

// A test waiting for what happens in the background (a delivery, a reload, a server
// closing idle connections) sets no time of its own: a bound a loaded machine can
// overrun fails the test for nothing. It waits as long as go test's -timeout lets the
// test binary run, and fails a second before that, naming what it waited for, where
// the timeout's panic would name nothing. Not for a test inside a testing/synctest
// bubble: its clock is not the one the deadline is on, and the bubble's own time
// passes as the test waits.

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

// Receive waits for a value from ch, and fails t at Deadline(t) naming what it
// waited for.
func Receive[T any](t testing.TB, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-Expiry(t):
		t.Fatalf("still waiting for %s when the test's time ran out", what)
		panic("unreachable")
	}
}

// WaitFor polls cond every 10 ms until it holds, and fails t at Deadline(t).
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	WaitForValue(t, what, cond, func(held bool) bool { return held })
}

// WaitForValue polls get every 10 ms until done holds for what it returned, and
// returns that. At Deadline(t) it fails t naming what it waited for and, unless it
// is a bool, the last value get returned: what the test saw instead.
func WaitForValue[T any](t testing.TB, what string, get func() T, done func(T) bool) T {
	t.Helper()
	deadline := Deadline(t)
	for {
		v := get()
		switch {
		case done(v):
			return v
		case time.Now().After(deadline):
			if _, isBool := any(v).(bool); isBool {
				t.Fatalf("still waiting for %s when the test's time ran out", what)
			}
			t.Fatalf("still waiting for %s when the test's time ran out; last seen: %v", what, v)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
