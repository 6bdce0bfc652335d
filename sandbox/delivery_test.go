package sandbox

import (
	"testing"
	"time"
)

// An order placed wakes the schedule's worker only when it makes the next step
// earlier: placing orders one after another (the load script) wakes nothing, so that
// no order placed costs a pass over every order.
func TestOrderSchedulePlacedWakesOnlyWhenEarlier(t *testing.T) {
	wakes := 0
	q := &orderSchedule{step: time.Hour, wake: func() { wakes++ }}
	t0 := time.Date(2021, 3, 22, 10, 0, 0, 0, time.UTC)
	q.placed(t0)
	if wakes != 0 || !q.next.Equal(t0.Add(time.Hour)) {
		t.Fatalf("before the first pass: %d wakes, next %v", wakes, q.next)
	}
	q.known, q.next = true, time.Time{}
	for i, c := range []struct {
		at    time.Time
		wakes int
		next  time.Time
	}{
		{t0.Add(time.Minute), 1, t0.Add(61 * time.Minute)},     // none was due: the first
		{t0.Add(2 * time.Minute), 1, t0.Add(61 * time.Minute)}, // later: nothing to wake for
		{t0, 2, t0.Add(time.Hour)},                             // earlier
	} {
		q.placed(c.at)
		if wakes != c.wakes || !q.next.Equal(c.next) {
			t.Errorf("order %d: %d wakes, next %v; want %d, %v", i, wakes, q.next, c.wakes, c.next)
		}
	}
	if !q.recent.Equal(t0.Add(time.Hour)) {
		t.Errorf("recent %v: a pass under way must learn of the earliest order placed", q.recent)
	}
	off := &orderSchedule{wake: func() { wakes++ }}
	off.placed(t0)
	if !off.next.IsZero() {
		t.Errorf("without a step: next %v", off.next)
	}
}
