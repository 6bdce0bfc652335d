package sandbox

import (
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
