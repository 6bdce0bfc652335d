package notify_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/fixtures"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/api"
	"github.com/gp-sandbox/gp-sandbox/sandbox/notify"
	"github.com/gp-sandbox/gp-sandbox/sandbox/store"
	"github.com/gp-sandbox/gp-sandbox/sandbox/yamlfile"
)

const (
	partnerApp  = "SandboxPartnerAppId0000000000001"
	partnerKey  = "SandboxAppKey001"
	merchantOne = "MER_00000000000000000000000000000001"
)

var startTime = time.Date(2021, 3, 22, 10, 0, 0, 0, time.UTC)

// received is one notification as the partner's listener saw it.
type received struct {
	Status string
	Action string
	ID     string
}

// listener is a partner's webhook endpoint on a real loopback port. It verifies every
// signature with the app key and answers with the next status of its script (200
// once the script is used up).
type listener struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	got    []received
	script []int
}

func mustListener(t *testing.T, script ...int) *listener {
	l := &listener{t: t, script: script}
	l.srv = httptest.NewServer(http.HandlerFunc(l.serve))
	t.Cleanup(l.srv.Close)
	return l
}

// mustMemoryListener is a listener reached through its client only, in memory: no
// socket, so that a test can run in a synctest bubble, where time stands still until
// every goroutine waits and "nothing more happens" can be checked exactly.
func mustMemoryListener(t *testing.T, script ...int) *listener {
	return &listener{t: t, script: script}
}

// memoryURL is where a memory listener is reached; the host is never resolved.
const memoryURL = "http://listener.invalid"

// client is a notification client whose every request is served by the listener.
func (l *listener) client() *http.Client {
	return &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		rec := httptest.NewRecorder()
		l.serve(rec, r)
		return rec.Result(), nil
	})}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func (l *listener) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if got, want := r.Header.Get("X-GP-Signature"), sandbox.Sign(body, partnerKey); got != want {
		l.t.Errorf("signature %q, want %q", got, want)
	}
	if r.Header.Get("Content-Type") != "application/json" || r.Method != http.MethodPost {
		l.t.Errorf("%s with Content-Type %q", r.Method, r.Header.Get("Content-Type"))
	}
	var o struct {
		ID     string
		Status string
		Action struct{ Type string }
	}
	if err := json.Unmarshal(body, &o); err != nil {
		l.t.Errorf("body is not an order: %v: %s", err, body)
	}
	l.mu.Lock()
	status := http.StatusOK
	if len(l.script) > 0 {
		status, l.script = l.script[0], l.script[1:]
	}
	if status/100 == 2 {
		l.got = append(l.got, received{Status: o.Status, Action: o.Action.Type, ID: o.ID})
	}
	l.mu.Unlock()
	w.WriteHeader(status)
}

func (l *listener) received() []received {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]received(nil), l.got...)
}

// env is a Service over a real buntdb file with a frozen sandbox clock.
type env struct {
	t      *testing.T
	path   string
	db     *store.Store
	clock  *sandbox.VirtualClock
	svc    *sandbox.Service
	caller sandbox.Caller
}

func mustEnv(t *testing.T, path string) *env {
	t.Helper()
	fx, err := yamlfile.LoadFixtures(fixtures.FS, startTime)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	clock := sandbox.NewFrozenClock(startTime)
	svc := sandbox.NewService(db, clock, sandbox.NewSeededIDs(3))
	if _, err := svc.LoadFixtures(fx, false); err != nil {
		t.Fatal(err)
	}
	issued, err := svc.IssueToken(sandbox.TokenRequest{AppID: partnerApp, Nonce: "n", Secret: sandbox.Secret("n", partnerKey)})
	if err != nil {
		t.Fatal(err)
	}
	caller, err := svc.Authenticate(issued.Token.Value)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, path: path, db: db, clock: clock, svc: svc, caller: caller}
	t.Cleanup(func() { db.Close() })
	return e
}

// start runs a worker until the test ends (or stop is called).
func (e *env) start(cfg notify.Config) (stop func()) {
	cfg.Service, cfg.Render = e.svc, api.NotificationBody // as the binary wires it
	w := notify.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(ctx)
	}()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	e.t.Cleanup(stop)
	return stop
}

func (e *env) mustOrder(url string) string {
	e.t.Helper()
	o, err := e.svc.PlaceOrder(e.caller, merchantOne, "2021-03-22",
		sandbox.OrderRequest{StatusURL: url, Products: []sandbox.OrderProduct{{ID: "PRO_TRA_CP-US-CARD-A920_SP"}}}, sandbox.Idempotency{})
	if err != nil {
		e.t.Fatal(err)
	}
	return o.ID
}

func (e *env) mustMove(id string, statuses ...string) {
	e.t.Helper()
	for _, s := range statuses {
		if _, err := e.svc.ChangeOrderStatus(id, s); err != nil {
			e.t.Fatalf("%s → %s: %v", id, s, err)
		}
	}
}

func (e *env) notifications(orderID string) []sandbox.Notification {
	e.t.Helper()
	list, err := e.svc.Notifications(orderID)
	if err != nil {
		e.t.Fatal(err)
	}
	return list
}

// inBubble runs a test in a synctest bubble. Its last cleanup lets the bubble's clock
// pass a second after the store is closed: buntdb's background goroutine notices the
// closed database on its next one-second tick, and a bubble must end with none left.
func inBubble(test func(*testing.T)) func(*testing.T) {
	return func(t *testing.T) {
		t.Cleanup(func() { time.Sleep(2 * time.Second) })
		test(t)
	}
}

// mustBeSettled waits, in a synctest bubble, until every goroutine waits (the worker
// has done all it can without the clock moving), then checks cond.
func mustBeSettled(t *testing.T, what string, cond func() bool) {
	t.Helper()
	synctest.Wait()
	if !cond() {
		t.Fatalf("once the worker settled: no %s", what)
	}
}

func lifecycle(id string) []received {
	return []received{
		{"INITIATED", "ORDER_INITIATED", id}, {"PROCESSING", "ORDER_PROCESSING", id},
		{"SHIPPED", "ORDER_SHIPPED", id}, {"DELIVERED", "ORDER_DELIVERED", id},
	}
}

func TestDeliversEachChangeOnceInOrder(t *testing.T) {
	synctest.Test(t, inBubble(deliversEachChangeOnceInOrder))
}

func deliversEachChangeOnceInOrder(t *testing.T) {
	l := mustMemoryListener(t)
	e := mustEnv(t, ":memory:")
	// Every change is in the outbox before the worker starts, so nothing but the
	// worker's per-order ordering keeps them in order.
	a, b := e.mustOrder(memoryURL+"/a"), e.mustOrder(memoryURL+"/b")
	e.mustMove(a, sandbox.OrderProcessing, sandbox.OrderShipped)
	e.mustMove(b, sandbox.OrderProcessing)
	e.mustMove(a, sandbox.OrderDelivered)
	e.mustMove(b, sandbox.OrderShipped, sandbox.OrderDelivered)
	e.start(notify.Config{Client: l.client()})

	synctest.Wait()
	got := l.received()
	if len(got) != 8 {
		t.Fatalf("received %d notifications, want 8: %v", len(got), got)
	}
	perOrder := map[string][]received{}
	for _, r := range got {
		perOrder[r.ID] = append(perOrder[r.ID], r)
	}
	for _, id := range []string{a, b} {
		if want := lifecycle(id); !equal(perOrder[id], want) {
			t.Errorf("order %s received %v, want %v", id, perOrder[id], want)
		}
	}
	for _, n := range e.notifications("") {
		if n.State != sandbox.NotificationDelivered || len(n.Attempts) != 1 || n.Attempts[0].HTTPStatus != 200 {
			t.Errorf("%s #%d: state %s attempts %+v", n.OrderID, n.Seq, n.State, n.Attempts)
		}
	}
}

func TestRetriesAfter500OnTheSandboxClock(t *testing.T) {
	synctest.Test(t, inBubble(retriesAfter500OnTheSandboxClock))
}

func retriesAfter500OnTheSandboxClock(t *testing.T) {
	l := mustMemoryListener(t, http.StatusInternalServerError)
	e := mustEnv(t, ":memory:")
	e.start(notify.Config{Client: l.client()})
	id := e.mustOrder(memoryURL)

	mustBeSettled(t, "first attempt", func() bool { return len(e.notifications(id)[0].Attempts) == 1 })
	n := e.notifications(id)[0]
	if a := n.Attempts[0]; a.HTTPStatus != 500 || !a.NextAttempt.Equal(startTime.Add(notify.FirstRetry)) || n.State != sandbox.NotificationPending {
		t.Fatalf("after a 500: state %s attempt %+v", n.State, a)
	}
	time.Sleep(time.Hour) // the sandbox clock is frozen: no retry may happen on its own
	synctest.Wait()
	if len(l.received()) != 0 || len(e.notifications(id)[0].Attempts) != 1 {
		t.Fatal("retried before the sandbox clock reached the retry time")
	}
	e.clock.Advance(notify.FirstRetry - time.Millisecond)
	synctest.Wait()
	if len(e.notifications(id)[0].Attempts) != 1 {
		t.Fatal("retried a millisecond early")
	}
	e.clock.Advance(time.Millisecond)
	mustBeSettled(t, "retry", func() bool { return len(l.received()) == 1 })
	mustBeSettled(t, "delivery", func() bool { return e.notifications(id)[0].State == sandbox.NotificationDelivered })
	if n := e.notifications(id)[0]; len(n.Attempts) != 2 || n.Attempts[1].HTTPStatus != 200 {
		t.Errorf("attempts %+v", n.Attempts)
	}
}

func TestRetriesAfterTheListenerWasDown(t *testing.T) {
	// Find a free port, then leave it closed: the first attempt is refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	e := mustEnv(t, ":memory:")
	e.start(notify.Config{})
	id := e.mustOrder("http://" + addr + "/hook")
	testrun.WaitFor(t, "a refused attempt", func() bool { return len(e.notifications(id)[0].Attempts) == 1 })
	if a := e.notifications(id)[0].Attempts[0]; a.Error == "" || a.HTTPStatus != 0 {
		t.Fatalf("attempt %+v, want a connection error", a)
	}

	l := &listener{t: t}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(l.serve))
	if srv.Listener, err = net.Listen("tcp", addr); err != nil {
		t.Skipf("port %s was taken meanwhile: %v", addr, err)
	}
	srv.Start()
	defer srv.Close()
	e.clock.Advance(notify.FirstRetry)
	testrun.WaitFor(t, "the retry", func() bool { return len(l.received()) == 1 })
	if got := l.received()[0]; got != (received{"INITIATED", "ORDER_INITIATED", id}) {
		t.Errorf("received %+v", got)
	}
}

func TestResumesAfterRestart(t *testing.T) { synctest.Test(t, inBubble(resumesAfterRestart)) }

func resumesAfterRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbox.db")
	l := mustMemoryListener(t, 503)
	e := mustEnv(t, path)
	stop := e.start(notify.Config{Client: l.client()})
	id := e.mustOrder(memoryURL)
	mustBeSettled(t, "failed attempt", func() bool { return len(e.notifications(id)[0].Attempts) == 1 })
	stop()
	e.mustMove(id, sandbox.OrderProcessing, sandbox.OrderShipped) // written while no worker runs
	if err := e.db.Close(); err != nil {
		t.Fatal(err)
	}

	// A new process on the same file: a new store, service and worker.
	e2 := mustEnv(t, path)
	e2.clock.Set(startTime.Add(notify.FirstRetry))
	e2.start(notify.Config{Client: l.client()})
	synctest.Wait()
	if got, want := l.received(), lifecycle(id)[:3]; !equal(got, want) {
		t.Errorf("received %v, want %v", got, want)
	}
}

func TestGivesUpAfterMaxAttemptsThenDeliversTheNextChange(t *testing.T) {
	synctest.Test(t, inBubble(givesUpAfterMaxAttemptsThenDeliversTheNextChange))
}

func givesUpAfterMaxAttemptsThenDeliversTheNextChange(t *testing.T) {
	l := mustMemoryListener(t, 500, 500)
	e := mustEnv(t, ":memory:")
	id := e.mustOrder(memoryURL)
	e.mustMove(id, sandbox.OrderProcessing)
	e.start(notify.Config{MaxAttempts: 2, Client: l.client()})
	mustBeSettled(t, "first attempt", func() bool { return len(e.notifications(id)[0].Attempts) == 1 })
	e.clock.Advance(notify.FirstRetry)
	mustBeSettled(t, "delivery of the next change", func() bool { return len(l.received()) == 1 })
	list := e.notifications(id)
	if list[0].State != sandbox.NotificationFailed || len(list[0].Attempts) != 2 || !list[0].NextAttempt.IsZero() {
		t.Errorf("first: %s %+v", list[0].State, list[0].Attempts)
	}
	if got := l.received()[0]; got.Status != "PROCESSING" {
		t.Errorf("received %+v, want the PROCESSING change", got)
	}
}

func TestDeciderDropsDuplicatesAndDelays(t *testing.T) {
	synctest.Test(t, inBubble(deciderDropsDuplicatesAndDelays))
}

func deciderDropsDuplicatesAndDelays(t *testing.T) {
	l := mustMemoryListener(t)
	e := mustEnv(t, ":memory:")
	id := e.mustOrder(memoryURL)
	e.mustMove(id, sandbox.OrderProcessing, sandbox.OrderShipped)
	decisions := map[string]notify.Decision{
		"INITIATED":  {Action: notify.Drop},
		"PROCESSING": {Action: notify.Duplicate},
		"SHIPPED":    {Action: notify.Delay, Delay: time.Minute},
	}
	e.start(notify.Config{Client: l.client(), Decide: func(n sandbox.Notification) notify.Decision { return decisions[n.Order.Status] }})
	synctest.Wait()
	if got := l.received(); len(got) != 2 || got[0].Status != "PROCESSING" || got[1].Status != "PROCESSING" {
		t.Fatalf("received %v, want PROCESSING twice and nothing else yet", got)
	}
	if n := e.notifications(id)[0]; n.State != sandbox.NotificationDropped || len(n.Attempts) != 0 {
		t.Errorf("dropped one: %s %+v", n.State, n.Attempts)
	}
	e.clock.Advance(time.Minute)
	mustBeSettled(t, "delayed delivery", func() bool { return len(l.received()) == 3 })
	if got := l.received()[2]; got.Status != "SHIPPED" {
		t.Errorf("received %+v", got)
	}
}

func TestBackoffDoublesUpToTheCap(t *testing.T) {
	want := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second}
	for i, w := range want {
		if got := notify.Backoff(i + 1); got != w {
			t.Errorf("Backoff(%d) = %v, want %v", i+1, got, w)
		}
	}
	if got := notify.Backoff(30); got != notify.MaxRetry {
		t.Errorf("Backoff(30) = %v, want the cap", got)
	}
}

// A retry planned at the latest time the sandbox clock may show is still a time GP's
// timestamps can show (the clock's horizon covers it).
func TestLastRetryIsATimestamp(t *testing.T) {
	_, latest := sandbox.ClockLimits()
	if got := sandbox.FormatTime(latest.Add(notify.MaxRetry)); got > "9999-12-31T23:59:59.999Z" || len(got) != len("9999-12-31T23:59:59.999Z") {
		t.Errorf("a retry from %s is at %s", sandbox.FormatTime(latest), got)
	}
}

func equal(a, b []received) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A listener that never answers holds up its own order only: another order's change
// is delivered while the first attempt still hangs.
func TestHangingListenerDelaysNoOtherOrder(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hanging.Close)
	t.Cleanup(func() { close(release) }) // runs first: lets the hanging handler return
	healthy := mustListener(t)
	e := mustEnv(t, ":memory:")
	e.start(notify.Config{Client: &http.Client{}}) // no client timeout: it hangs for good

	stuck := e.mustOrder(hanging.URL)
	<-arrived // the stuck order's attempt is under way and will not end by itself
	id := e.mustOrder(healthy.srv.URL)
	testrun.WaitFor(t, "the healthy order's notification", func() bool { return len(healthy.received()) == 1 })
	if got := healthy.received()[0]; got != (received{"INITIATED", "ORDER_INITIATED", id}) {
		t.Errorf("received %+v", got)
	}
	if n := e.notifications(stuck)[0]; n.State != sandbox.NotificationPending || len(n.Attempts) != 0 {
		t.Errorf("the stuck order's entry: %s %+v", n.State, n.Attempts)
	}
}

// With no worker running, the outbox's heads are each order's oldest pending change,
// one per order, however many changes each has.
func TestNextNotificationsAreEachOrdersOldestChange(t *testing.T) {
	e := mustEnv(t, ":memory:")
	want := map[string]int{}
	for _, moves := range [][]string{nil, {"PROCESSING"}, {"PROCESSING", "SHIPPED", "DELIVERED"}} {
		id := e.mustOrder("http://listener.invalid/hook")
		e.mustMove(id, moves...)
		want[id] = len(moves) + 1
	}
	heads, err := e.svc.NextNotifications()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, n := range heads {
		if n.Seq != 1 || n.Order.Action.Type != "ORDER_INITIATED" {
			t.Errorf("head of %s: #%d %s, want #1 ORDER_INITIATED", n.OrderID, n.Seq, n.Order.Action.Type)
		}
		got[n.OrderID]++
	}
	if len(heads) != len(want) || len(got) != len(want) {
		t.Fatalf("%d heads for %d orders, want one per order: %+v", len(heads), len(got), heads)
	}
	for id := range want {
		if got[id] != 1 {
			t.Errorf("order %s: %d heads, want 1", id, got[id])
		}
		if n := len(e.notifications(id)); n != want[id] {
			t.Errorf("order %s: %d notifications written, want %d", id, n, want[id])
		}
	}
}

func TestRetrySendsTheBytesOfTheChange(t *testing.T) {
	synctest.Test(t, inBubble(retrySendsTheBytesOfTheChange))
}

// A retry sends the body and signature of the change it notifies, byte for byte, though
// the order has moved on and the app's key has changed since: the entry keeps the order
// and the key of that change, and the body is rendered from them the same way each time.
func retrySendsTheBytesOfTheChange(t *testing.T) {
	type sent struct{ body, signature string }
	var mu sync.Mutex
	var got []sent
	client := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		got = append(got, sent{string(body), r.Header.Get("X-GP-Signature")})
		status := http.StatusOK
		if len(got) == 1 {
			status = http.StatusInternalServerError
		}
		return &http.Response{StatusCode: status, Header: http.Header{}, Body: http.NoBody}, nil
	})}
	sends := func() []sent {
		mu.Lock()
		defer mu.Unlock()
		return append([]sent(nil), got...)
	}
	e := mustEnv(t, ":memory:")
	e.start(notify.Config{Client: client})
	id := e.mustOrder(memoryURL)
	mustBeSettled(t, "failed attempt", func() bool { return len(sends()) == 1 })
	e.mustMove(id, sandbox.OrderProcessing)
	err := e.db.Update(func(tx sandbox.Tx) error {
		app, err := tx.App(partnerApp)
		if err != nil {
			return err
		}
		app.Key = "RotatedAppKey001"
		return tx.PutApp(app)
	})
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(notify.FirstRetry)
	mustBeSettled(t, "retry", func() bool { return len(sends()) >= 2 })
	first, retry := sends()[0], sends()[1]
	if retry != first {
		t.Errorf("retry sent %+v, first attempt %+v", retry, first)
	}
	var o struct{ Status string }
	if err := json.Unmarshal([]byte(first.body), &o); err != nil || o.Status != sandbox.OrderInitiated {
		t.Errorf("body %s: %v, want the order as created", first.body, err)
	}
	if first.signature != sandbox.Sign([]byte(first.body), partnerKey) {
		t.Errorf("signature %s, want the body signed with the key of the change", first.signature)
	}
}
