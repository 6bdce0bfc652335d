package app

import (
	"context"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// startTerminalDelay completes the commands waiting on an INITIATED terminal by
// themselves, with the terminal's default card, Config.TerminalDelay of sandbox time
// after they were sent, as a customer tapping at the terminal would. Zero leaves them
// waiting for a presentation.
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
	a.workers.Go(func() { a.runTerminalDelay(ctx, wake) })
}

// runTerminalDelay is the loop of startTerminalDelay. Like the notification worker, it
// sleeps in wall time until the next command is due while the clock runs, and looks
// again whenever the clock is moved or a command starts waiting.
func (a *App) runTerminalDelay(ctx context.Context, wake <-chan struct{}) {
	delay := a.cfg.TerminalDelay
	for {
		changed := a.clock.Changed() // taken before the pass: no move is missed
		next, err := a.completeDueCommands(delay)
		if err != nil {
			a.log.Error("terminal delay", "error", err)
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
		due := d.TimeCreated.Add(delay)
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
