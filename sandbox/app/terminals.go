package app

import (
	"context"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// startTerminalDelay completes the command waiting for the customer at the head of
// a terminal's queue by itself, with the terminal's default card (or signature, scan,
// entry), Config.TerminalDelay of sandbox time after it reached the head, as a
// customer at the terminal would; the next command's delay starts then. Zero leaves
// them waiting for a presentation.
func (a *App) startTerminalDelay(ctx context.Context) {
	if a.cfg.TerminalDelay <= 0 {
		return
	}
	wake := make(chan struct{}, 1)
	a.svc.OnTerminalWaiting(func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	a.workers.Go(func() {
		a.onClock(ctx, wake, "terminal delay", func() (time.Time, error) {
			return a.completeDueCommands(a.cfg.TerminalDelay)
		})
	})
}

// onClock runs pass whenever something may have fallen due on the sandbox clock: at
// once, when wake fires, when the clock is moved, and when the time pass returned (the
// next thing due; zero for none) comes. Like the notification worker, it sleeps in
// wall time while the clock runs; with a frozen clock only a move wakes it.
func (a *App) onClock(ctx context.Context, wake <-chan struct{}, name string, pass func() (time.Time, error)) {
	for {
		changed := a.clock.Changed() // taken before the pass: no move is missed
		next, err := pass()
		if err != nil {
			a.log.Error(name, "error", err)
			next = a.clock.Now().Add(time.Second)
		}
		var timer *time.Timer
		var fire <-chan time.Time
		if !next.IsZero() && !a.clock.Frozen() {
			timer = time.NewTimer(max(next.Sub(a.clock.Now()), time.Millisecond))
			fire = timer.C
		}
		select {
		case <-ctx.Done():
		case <-wake:
		case <-changed:
		case <-fire:
		}
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// completeDueCommands completes every waiting command whose delay has run out, and
// returns when the next one is due (zero when none waits).
func (a *App) completeDueCommands(delay time.Duration) (next time.Time, err error) {
	now := a.clock.Now()
	pending, err := a.svc.PendingDeviceRequests(now.Add(100 * 365 * 24 * time.Hour)) // every one
	if err != nil {
		return time.Time{}, err
	}
	for _, d := range pending {
		due := d.StartedAt().Add(delay)
		if due.After(now) {
			if next.IsZero() || due.Before(next) {
				next = due
			}
			continue
		}
		_, err := a.svc.CompleteDeviceRequest(d.ID, sandbox.Presentation{})
		if _, refused := sandbox.AsError(err); refused {
			continue // a card was presented meanwhile, or a reset wiped it
		} else if err != nil {
			return time.Time{}, err
		}
		a.log.Info("terminal delay", "device_request_id", d.ID)
	}
	return next, nil
}
