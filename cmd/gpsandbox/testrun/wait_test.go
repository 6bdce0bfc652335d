package testrun

import (
	"testing"
	"time"
)

func TestDeadlineIsASecondBeforeTheTests(t *testing.T) {
	end, bounded := t.Deadline()
	got := Deadline(t)
	switch {
	case bounded && !got.Equal(end.Add(-time.Second)):
		t.Errorf("Deadline %v, want a second before %v", got, end)
	case !bounded && time.Until(got) < time.Hour:
		t.Errorf("Deadline %v without a -timeout, want far away", got)
	}
}

func TestWaitForReturnsOnceTheConditionHolds(t *testing.T) {
	n := 0
	WaitFor(t, "the third poll", func() bool { n++; return n == 3 })
	if n != 3 {
		t.Errorf("polled %d times, want 3", n)
	}
}
