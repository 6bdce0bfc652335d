// Package notify delivers order status notifications from the outbox the Service
// writes: a POST of the order JSON, signed with X-GP-Signature, to the order's
// status_url, retried with exponential backoff on the sandbox clock. The body is
// rendered and signed here at each attempt, from the order and app key the entry
// kept: the same bytes every time.
//
// The outbox lives in the store, so deliveries survive a restart: a new Worker simply
// finds the pending entries. Entries of one order are delivered one after the other in
// the order of the changes; a later change waits until the earlier one is delivered or
// has failed for good. Different orders are delivered concurrently and independently:
// a listener that hangs holds up its own order's changes, never another order's.
//
// Retries are scheduled in sandbox time. The worker sleeps until the earliest due
// attempt in wall time while the clock runs, and re-plans whenever the clock is moved
// (admin clock advance or set) and whenever a new entry is written, so advancing a
// frozen clock past a retry fires it at once.
package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// Defaults of Config.
const (
	DefaultAttempts = 8
	Timeout         = 5 * time.Second  // per attempt
	FirstRetry      = 10 * time.Second // backoff after the first failure, doubled each time
	MaxRetry        = time.Hour        // backoff cap
)

// idleConnsPerListener is how many idle connections the default client keeps to one
// status_url host. Deliveries are not capped (one goroutine per order with a change
// due); 64 is sized for a test suite's listener under load, the 64 connections of the
// load script, not a limit: more deliveries at once dial beyond it.
const idleConnsPerListener = 64

// Backoff is the wait after the n-th failed attempt (n >= 1): 10 s, 20 s, 40 s, ...
// capped at an hour [SB].
func Backoff(n int) time.Duration {
	d := FirstRetry
	for i := 1; i < n && d < MaxRetry; i++ {
		d *= 2
	}
	return min(d, MaxRetry)
}

// What a Decider can do with a notification before its first attempt.
const (
	Deliver   = ""          // send it normally
	Drop      = "drop"      // never send it; it is logged as DROPPED
	Duplicate = "duplicate" // send it twice
	Delay     = "delay"     // send it after Decision.Delay of sandbox time
)

// Decision is a scenario's verdict on one notification.
type Decision struct {
	Action string
	Delay  time.Duration
}

// A Decider decides the fate of a notification once, before its first attempt. It is
// the hook for scenario rules with `operation: notification`; nil delivers everything.
type Decider func(sandbox.Notification) Decision

// A Renderer renders a notification's body: the Order (or the device request) as the
// API shows it, a wire shape the api package owns (api.NotificationBody). It must be
// deterministic, since a retry sends the bytes the first attempt signed.
type Renderer func(sandbox.Notification) ([]byte, error)

// Config wires a Worker.
type Config struct {
	Service     *sandbox.Service
	Render      Renderer     // required
	MaxAttempts int          // DefaultAttempts when zero
	Client      *http.Client // a client with Timeout and no redirects when nil
	Logger      *slog.Logger
	Decide      Decider
}

// Worker delivers the outbox. Run it once; Wake it when entries are written.
type Worker struct {
	svc         *sandbox.Service
	render      Renderer
	clock       sandbox.Clock
	maxAttempts int
	client      *http.Client
	log         *slog.Logger
	decide      Decider
	wake        chan struct{}

	mu       sync.Mutex
	inFlight map[string]bool // orders with an attempt under way
	sending  sync.WaitGroup  // the attempts under way, for Run to wait on at the end
}

// New builds a Worker and registers it with the Service, so that every committed
// outbox entry wakes it. It panics without a Renderer: a wiring mistake, which would
// otherwise show only as every delivery failing.
func New(cfg Config) *Worker {
	if cfg.Render == nil {
		panic("notify: Config.Render is required")
	}
	w := &Worker{
		svc: cfg.Service, render: cfg.Render, clock: cfg.Service.Clock(), maxAttempts: cfg.MaxAttempts,
		client: cfg.Client, log: cfg.Logger, decide: cfg.Decide, wake: make(chan struct{}, 1),
		inFlight: map[string]bool{},
	}
	if w.maxAttempts <= 0 {
		w.maxAttempts = DefaultAttempts
	}
	if w.client == nil {
		// Keep idle connections for concurrent deliveries: with http's default of two
		// idle connections per host, concurrent deliveries to one listener dialled a
		// new connection nearly every time, and left one in TIME_WAIT.
		transport := http.DefaultTransport.(*http.Transport).Clone()
		transport.MaxIdleConnsPerHost = idleConnsPerListener
		w.client = &http.Client{
			Transport: transport,
			Timeout:   Timeout,
			// A redirect is an answer like any other non-2xx: retried, not followed.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	cfg.Service.OnNotification(w.Wake)
	return w
}

// Wake makes the worker look at the outbox again. It never blocks.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run delivers until ctx is done, and returns once the attempts under way have ended.
// An attempt cut short by ctx is not recorded, so it is made again after a restart.
func (w *Worker) Run(ctx context.Context) {
	defer w.client.CloseIdleConnections()
	defer w.sending.Wait()
	movable, _ := w.clock.(sandbox.MovableClock)
	for {
		var changed <-chan struct{}
		if movable != nil {
			changed = movable.Changed() // taken before the pass: no move is missed
		}
		next, err := w.pass(ctx)
		if ctx.Err() != nil {
			return
		}
		var timer *time.Timer
		var fire <-chan time.Time
		switch {
		case err != nil:
			w.log.Error("notification outbox", "error", err)
			timer = time.NewTimer(time.Second)
		case !next.IsZero() && (movable == nil || !movable.Frozen()):
			timer = time.NewTimer(max(next.Sub(w.clock.Now()), time.Millisecond))
		}
		if timer != nil {
			fire = timer.C
		}
		select {
		case <-ctx.Done():
		case <-w.wake:
		case <-changed:
		case <-fire:
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// pass starts the due attempt of every order that has none under way, each in its own
// goroutine, and returns the earliest future attempt among the others. An attempt
// wakes the worker when it ends, since the next change of its order may then be due.
//
// The outbox is read under mu: an attempt records its outcome before it leaves the
// in-flight set under mu, so an order that is not in flight here has no outcome
// pending, and its head read here is current (never one just delivered).
func (w *Worker) pass(ctx context.Context) (next time.Time, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	heads, err := w.svc.NextNotifications()
	if err != nil {
		return time.Time{}, err
	}
	now := w.clock.Now()
	for _, n := range heads {
		switch {
		case w.inFlight[n.OrderID]:
		case n.NextAttempt.After(now):
			if next.IsZero() || n.NextAttempt.Before(next) {
				next = n.NextAttempt
			}
		default:
			w.inFlight[n.OrderID] = true
			w.sending.Add(1)
			go w.attempt(ctx, n)
		}
	}
	return next, nil
}

// attempt delivers n, then takes its order out of the in-flight set and wakes the
// worker.
func (w *Worker) attempt(ctx context.Context, n sandbox.Notification) {
	defer w.sending.Done()
	if err := w.deliver(ctx, n); err != nil {
		w.log.Error("notification outbox", "error", err)
		select { // back off rather than resend at once
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
	w.mu.Lock()
	delete(w.inFlight, n.OrderID)
	w.mu.Unlock()
	w.Wake()
}

// deliver applies the scenario decision (once) and makes one attempt (two for a
// duplicate). It fails only when the outcome could not be recorded.
func (w *Worker) deliver(ctx context.Context, n sandbox.Notification) error {
	sends := 1
	if !n.Decided {
		d := Decision{}
		if w.decide != nil {
			d = w.decide(n)
		}
		switch d.Action {
		case Drop:
			return w.record(n, func(n *sandbox.Notification, _ time.Time) {
				n.Decided, n.State, n.NextAttempt = true, sandbox.NotificationDropped, time.Time{}
			})
		case Delay:
			return w.record(n, func(n *sandbox.Notification, now time.Time) {
				n.Decided, n.NextAttempt = true, now.Add(d.Delay)
			})
		case Duplicate:
			sends = 2
		}
	}
	var attempts []sandbox.DeliveryAttempt
	delivered := false
	for range sends {
		a := w.post(ctx, n)
		if ctx.Err() != nil {
			return nil // shutting down: leave the entry pending for the next start
		}
		attempts = append(attempts, a)
		delivered = delivered || (a.HTTPStatus >= 200 && a.HTTPStatus < 300)
	}
	return w.record(n, func(n *sandbox.Notification, now time.Time) {
		n.Decided = true
		n.Attempts = append(n.Attempts, attempts...)
		last := &n.Attempts[len(n.Attempts)-1]
		switch {
		case delivered:
			n.State, n.NextAttempt = sandbox.NotificationDelivered, time.Time{}
		case len(n.Attempts) >= w.maxAttempts:
			n.State, n.NextAttempt = sandbox.NotificationFailed, time.Time{}
		default:
			n.NextAttempt = now.Add(Backoff(len(n.Attempts)))
			last.NextAttempt = n.NextAttempt
		}
	})
}

func (w *Worker) record(n sandbox.Notification, fn func(*sandbox.Notification, time.Time)) error {
	got, err := w.svc.UpdateNotification(n.OrderID, n.Seq, fn)
	switch {
	case errors.Is(err, sandbox.ErrNotFound):
		return nil // wiped by a reset while it was being sent
	case err != nil:
		return fmt.Errorf("record notification %s #%d: %w", n.OrderID, n.Seq, err)
	}
	w.log.Info("notification", "order_id", got.OrderID, "seq", got.Seq, "state", got.State, "attempts", len(got.Attempts))
	return nil
}

// post sends the notification once and reports how it went.
func (w *Worker) post(ctx context.Context, n sandbox.Notification) sandbox.DeliveryAttempt {
	a := sandbox.DeliveryAttempt{Time: w.clock.Now()}
	body, err := w.render(n)
	if err != nil {
		a.Error = "render the body: " + err.Error()
		return a
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.URL, bytes.NewReader(body))
	if err != nil {
		a.Error = err.Error()
		return a
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GP-Signature", sandbox.Sign(body, n.AppKey))
	req.Header.Set("User-Agent", "gpsandbox-notifier")
	resp, err := w.client.Do(req)
	if err != nil {
		a.Error = describe(err)
		return a
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // let the connection be reused
	resp.Body.Close()
	a.HTTPStatus = resp.StatusCode
	return a
}

// describe shortens a client error for the log: the URL is already in the entry.
func describe(err error) string {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			return fmt.Sprint(inner)
		}
	}
	return err.Error()
}
