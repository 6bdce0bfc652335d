package sandbox

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2021, 3, 22, 10, 0, 0, 0, time.UTC)

func TestFrozenClockMovesOnlyWhenTold(t *testing.T) {
	c := NewFrozenClock(t0.Add(123456 * time.Microsecond))
	if got := c.Now(); !got.Equal(t0.Add(123 * time.Millisecond)) {
		t.Fatalf("Now %v: want milliseconds", got)
	}
	time.Sleep(2 * time.Millisecond)
	if !c.Now().Equal(t0.Add(123*time.Millisecond)) || !c.Frozen() {
		t.Fatal("a frozen clock moved")
	}
	c.Advance(25 * time.Hour)
	c.Set(c.Now().Add(-time.Hour))
	if want := t0.Add(24*time.Hour + 123*time.Millisecond); !c.Now().Equal(want) {
		t.Errorf("Now %v, want %v", c.Now(), want)
	}
}

func TestRunningClockKeepsItsOffset(t *testing.T) {
	wall := t0
	c := NewVirtualClock()
	c.wall = func() time.Time { return wall }
	c.Set(t0.Add(48 * time.Hour))
	wall = wall.Add(time.Second)
	if want := t0.Add(48*time.Hour + time.Second); !c.Now().Equal(want) {
		t.Fatalf("Now %v, want %v", c.Now(), want)
	}
	c.Freeze(true)
	wall = wall.Add(time.Minute)
	c.Advance(time.Hour)
	if want := t0.Add(49*time.Hour + time.Second); !c.Now().Equal(want) {
		t.Fatalf("frozen: Now %v, want %v", c.Now(), want)
	}
	c.Freeze(false) // runs on from where it stood, not from the wall
	wall = wall.Add(time.Second)
	if want := t0.Add(49*time.Hour + 2*time.Second); !c.Now().Equal(want) || c.Frozen() {
		t.Fatalf("unfrozen: Now %v, want %v", c.Now(), want)
	}
}

func TestClockChangedSignalsEveryMove(t *testing.T) {
	c := NewFrozenClock(t0)
	for _, step := range []struct {
		name string
		move func()
	}{
		{"advance", func() { c.Advance(time.Second) }},
		{"set", func() { c.Set(t0) }},
		{"unfreeze", func() { c.Freeze(false) }},
		{"freeze", func() { c.Freeze(true) }},
	} {
		name, move := step.name, step.move
		ch := c.Changed()
		select {
		case <-ch:
			t.Fatalf("%s: signalled before the move", name)
		default:
		}
		move()
		select {
		case <-ch:
		default:
			t.Errorf("%s: not signalled", name)
		}
	}
}

// Every lifetime the sandbox counts ahead of its clock ends within GP's timestamps
// when it starts at the latest time the clock may show.
func TestClockHorizonCoversEveryLifetime(t *testing.T) {
	_, latest := ClockLimits()
	for name, d := range map[string]time.Duration{
		"token":            MaxTokenSeconds * time.Second,
		"idempotency key":  IdempotencyWindow,
		"order step":       MaxOrderStep,
		"terminal delay":   MaxTerminalDelay,
		"duplicate window": MaxDuplicateWindow,
	} {
		if end := latest.Add(d); end.After(lastTimestamp) || FormatTime(end) > "9999-12-31T23:59:59.999Z" {
			t.Errorf("%s: %v from %s ends at %s, past GP's last timestamp", name, d, FormatTime(latest), FormatTime(end))
		}
	}
}

// The clock refuses a time past its latest, naming the latest, and a running clock
// that reaches it stays there.
func TestClockStopsAtItsLatest(t *testing.T) {
	_, latest := ClockLimits()
	if got := FormatTime(latest); got != "9998-12-31T23:59:59.999Z" {
		t.Fatalf("latest %s", got)
	}
	c := NewFrozenClock(t0)
	if err := c.Set(latest); err != nil || !c.Now().Equal(latest) {
		t.Fatalf("set to the latest: %v, now %v", err, c.Now())
	}
	for _, move := range []func() error{
		func() error { return c.Set(latest.Add(time.Millisecond)) },
		func() error { return c.Set(lastTimestamp) },
		func() error { return c.Advance(time.Millisecond) },
	} {
		err := move()
		e, ok := AsError(err)
		if !ok || e.Code != CodeInvalidRequestData || e.Detail != "40213" || !strings.Contains(e.Description, "to 9998-12-31T23:59:59.999Z") {
			t.Errorf("past the latest: %v", err)
		}
		if !c.Now().Equal(latest) {
			t.Errorf("a refused move moved the clock to %v", c.Now())
		}
	}
	wall := t0
	running := NewVirtualClock()
	running.wall = func() time.Time { return wall }
	if err := running.Set(latest.Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	wall = wall.Add(time.Hour)
	if !running.Now().Equal(latest) {
		t.Errorf("a running clock went past its latest: %v", running.Now())
	}
}

// An id holding a card number is refused: ids are shown as written. Other digits,
// a UUID's, an ARN's or a GP id's, are fine.
func TestIDProblemOfACardNumber(t *testing.T) {
	for id, refused := range map[string]bool{
		"TRN_4263970000005262":                     true,
		"4263-9700-0000-5262":                      true,
		"TRN_CapturedSale000000000000000001":       false,
		"TRN_74537604221431003881865":              false,
		"PMT_c5921403-8716-6234-3d2b-b6622bc468e2": false,
	} {
		if got := IDProblem(id); (got != "") != refused || refused && strings.Contains(got, "0000") {
			t.Errorf("IDProblem(%q) = %q, want refused: %v, the number masked", id, got, refused)
		}
	}
	// A date and a counter are not grouped as a card number is, though a tenth of
	// them pass the Luhn check.
	for n := range 100 {
		if id := fmt.Sprintf("TRN_2024-12-05-%04d", n); IDProblem(id) != "" {
			t.Errorf("IDProblem(%q) = %q", id, IDProblem(id))
		}
	}
}
