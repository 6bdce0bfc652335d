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

func TestWaitForValueReturnsTheValueThatWasDone(t *testing.T) {
	n := 0
	got := WaitForValue(t, "a value above 2", func() int { n++; return n }, func(v int) bool { return v > 2 })
	if got != 3 {
		t.Errorf("WaitForValue returned %d, want 3", got)
	}
}

func TestReceiveReturnsTheValueSent(t *testing.T) {
	ch := make(chan string, 1)
	ch <- "sent"
	if got := Receive(t, "the value", ch); got != "sent" {
		t.Errorf("Receive = %q, want sent", got)
	}
}
