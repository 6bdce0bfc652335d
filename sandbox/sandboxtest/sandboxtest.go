// Package sandboxtest runs a gp-sandbox in-process for Go tests, the way
// net/http/httptest runs an HTTP server: NewServer starts it on a loopback port with
// an in-memory store and the embedded default fixtures, and the test's cleanup stops
// it.
//
//	func TestTip(t *testing.T) {
//		srv := sandboxtest.NewServer(t)
//		client := mygp.NewClient(srv.URL + "/ucp") // the code under test
//		...
//		txn := srv.Transaction(sandboxtest.CapturedSale)
//		if txn.GratuityAmount != "200" { ... }
//	}
//
// The server's clock stands still unless the test moves it (Server.Clock), so
// timestamps are stable and a token or an idempotency key expires only when told to.
// Everything the standalone sandbox has is there: the built-in scenarios (or the
// test's own), the request journal, the admin API under URL+"/_sandbox/" and the
// notification worker, which posts status notifications to the test's listeners.
package sandboxtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/fixtures"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/admin"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
)

// Records of the embedded default fixtures (see fixtures/README.md).
const (
	DefaultAppID      = fixtures.DefaultAppID // may adjust and order for merchants One and Two
	DefaultAppKey     = fixtures.DefaultAppKey
	RestrictedAppID   = fixtures.RestrictedAppID // live configuration enables neither action
	RestrictedAppKey  = fixtures.RestrictedAppKey
	MerchantOne       = fixtures.MerchantOne
	MerchantTwo       = fixtures.MerchantTwo
	CapturedSale      = fixtures.CapturedSale // SALE, CAPTURED, 1000 USD, open batch
	CapturedSaleTwo   = fixtures.CapturedSaleTwo
	PreauthorizedSale = fixtures.PreauthorizedSale
	DeclinedSale      = fixtures.DeclinedSale // adjusting it is 400 INVALID_ACTION
	Version           = "2021-03-22"          // the X-GP-Version current SDKs send
)

// Option configures NewServer.
type Option func(*config)

type config struct {
	fixtures  fs.FS
	scenarios fs.FS
	global    []string
	start     time.Time
	seed      uint64
	orderStep time.Duration
}

// WithFixtures replaces the embedded default fixtures with the *.yaml and *.yml files
// at the root of fsys (an os.DirFS, an embed.FS, a fstest.MapFS), in the schema the
// README describes.
func WithFixtures(fsys fs.FS) Option { return func(c *config) { c.fixtures = fsys } }

// WithScenarios replaces the built-in scenarios with the scenario files at the root of
// fsys, in the format the README describes.
func WithScenarios(fsys fs.FS) Option { return func(c *config) { c.scenarios = fsys } }

// WithGlobalScenarios activates scenarios for every request, as --scenario does.
// Server.SetScenarios changes the set while the server runs.
func WithGlobalScenarios(names ...string) Option {
	return func(c *config) { c.global = append(c.global, names...) }
}

// WithTime starts the sandbox clock at t instead of the current time.
func WithTime(t time.Time) Option { return func(c *config) { c.start = t } }

// WithSeed makes generated ids (tokens, ACT_, ORD_) a deterministic sequence, so that
// whole responses can be compared with golden files, and seeds the chance draws of
// scenario outcomes with a probability, so that the same calls fail the same way in
// every run. Seed 0 means random ids and draws.
func WithSeed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// WithOrderStep moves placed device orders along by themselves, a step each d of
// sandbox time, as --order-step does; without it orders move only when the test moves
// them (DeliverOrder, the admin API).
func WithOrderStep(d time.Duration) Option { return func(c *config) { c.orderStep = d } }

// Server is a running in-process sandbox.
type Server struct {
	// URL is the base URL, http://127.0.0.1:port, with no trailing slash. Every API
	// path is served both under it and under URL+"/ucp", the form GP SDKs are given.
	URL string
	// Clock is the sandbox clock: Advance it to expire tokens or idempotency keys.
	Clock *sandbox.VirtualClock
	// Service is the sandbox's domain service, for what the helpers do not cover.
	Service *sandbox.Service

	t    testing.TB
	http *httptest.Server
	app  *app.App
}

// NewServer starts a sandbox with an in-memory store and registers its Close with
// t.Cleanup. A failure to start fails the test.
//
// t may be nil where no test is at hand (an Example, TestMain): then the caller must
// Close the server, and a failure panics.
func NewServer(t testing.TB, opts ...Option) *Server {
	if t != nil {
		t.Helper()
	}
	cfg := config{start: time.Now()}
	for _, o := range opts {
		o(&cfg)
	}
	var newIDs func() sandbox.IDs
	if cfg.seed != 0 {
		newIDs = func() sandbox.IDs { return sandbox.NewSeededIDs(cfg.seed) }
	}
	s := &Server{t: t}
	var err error
	s.app, err = app.Open(app.Config{
		DB:              ":memory:",
		Fixtures:        app.Files{FS: cfg.fixtures},
		Scenarios:       app.Files{FS: cfg.scenarios},
		GlobalScenarios: cfg.global,
		Clock:           cfg.start.Truncate(time.Millisecond),
		NewIDs:          newIDs,
		Seed:            cfg.seed,
		Seeded:          cfg.seed != 0,
		OrderStep:       cfg.orderStep,
	})
	if err != nil {
		s.fatalf("sandboxtest: %v", err)
	}
	s.Clock, s.Service = s.app.Clock(), s.app.Service()
	s.http = httptest.NewServer(s.app.Handler())
	s.URL = s.http.URL
	if t != nil {
		t.Cleanup(s.Close)
	}
	return s
}

// Close stops the server, waiting for in-flight requests, and drops its state. It may
// be called more than once.
func (s *Server) Close() {
	if s.http == nil {
		return
	}
	s.http.Close()
	s.app.Close()
	s.http = nil
}

// SetScenarios replaces the globally active scenarios (PUT /_sandbox/scenarios/active).
// An unknown name fails the test.
func (s *Server) SetScenarios(names ...string) {
	if s.t != nil {
		s.t.Helper()
	}
	if err := s.app.Scenarios().SetGlobal(names); err != nil {
		s.fatalf("sandboxtest: %v", err)
	}
}

// Snapshot saves the whole state under name (POST /_sandbox/snapshots), replacing a
// snapshot of that name. The server's snapshots are kept in memory and go with it.
// A name the sandbox refuses fails the test.
func (s *Server) Snapshot(name string) {
	if s.t != nil {
		s.t.Helper()
	}
	body := map[string]any{"name": name, "overwrite": true}
	if status := s.Admin("POST", "/_sandbox/snapshots", body, nil); status != http.StatusOK {
		s.fatalf("sandboxtest: snapshot %q: status %d", name, status)
	}
}

// Restore brings back the state Snapshot saved under name
// (POST /_sandbox/snapshots/{name}/restore). An unknown name fails the test.
func (s *Server) Restore(name string) {
	if s.t != nil {
		s.t.Helper()
	}
	path := "/_sandbox/snapshots/" + url.PathEscape(name) + "/restore"
	if status := s.Admin("POST", path, nil, nil); status != http.StatusOK {
		s.fatalf("sandboxtest: restore %q: status %d", name, status)
	}
}

// Request is one entry of the request journal (GET /_sandbox/requests): what a client
// sent and what it was answered, with secrets redacted and card data masked.
type Request = admin.JournalEntry

// Requests returns the request journal, newest first. query filters it as the admin
// call does, e.g. "operation=adjustment&status=409"; "" lists everything.
func (s *Server) Requests(query string) []Request {
	if s.t != nil {
		s.t.Helper()
	}
	var answer struct {
		Requests []Request `json:"requests"`
	}
	path := "/_sandbox/requests"
	if query != "" {
		path += "?" + query
	}
	if status := s.Admin("GET", path, nil, &answer); status != http.StatusOK {
		s.fatalf("sandboxtest: GET %s: status %d", path, status)
	}
	return answer.Requests
}

// Admin makes an admin call (a path under /_sandbox/), sending body as JSON when it is
// not nil and decoding the JSON answer into out when out is not nil. It returns the
// HTTP status; a transport failure or an answer that does not decode fails the test.
func (s *Server) Admin(method, path string, body, out any) int {
	if s.t != nil {
		s.t.Helper()
	}
	return s.call(method, path, "", body, out)
}

// call makes a call as Admin does; with a token, a GP API call, sent with it and the
// version header as an SDK sends them.
func (s *Server) call(method, path, token string, body, out any) int {
	if s.t != nil {
		s.t.Helper()
	}
	var payload bytes.Buffer
	if body != nil {
		if err := json.NewEncoder(&payload).Encode(body); err != nil {
			s.fatalf("sandboxtest: encode %s %s: %v", method, path, err)
		}
	}
	req, err := http.NewRequest(method, s.URL+path, &payload)
	if err != nil {
		s.fatalf("sandboxtest: %s %s: %v", method, path, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("X-GP-Version", "2021-03-22")
	}
	resp, err := s.http.Client().Do(req)
	if err != nil {
		s.fatalf("sandboxtest: %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			s.fatalf("sandboxtest: %s %s: answer: %v", method, path, err)
		}
	}
	return resp.StatusCode
}

// Client returns an HTTP client for the server (httptest's, closed with it).
func (s *Server) Client() *http.Client { return s.http.Client() }

// Token issues an access token as POST /accesstoken does, and returns it. Without
// arguments it is for the default partner app (DefaultAppID, DefaultAppKey); with two,
// they are the app id and key. A refusal fails the test.
func (s *Server) Token(appIDAndKey ...string) string {
	if s.t != nil {
		s.t.Helper()
	}
	appID, key := DefaultAppID, DefaultAppKey
	switch len(appIDAndKey) {
	case 0:
	case 2:
		appID, key = appIDAndKey[0], appIDAndKey[1]
	default:
		s.fatalf("sandboxtest: Token takes no arguments or an app id and key, got %d", len(appIDAndKey))
	}
	nonce := "sandboxtest-" + sandbox.RandomIDs{}.Alphanumeric(12)
	issued, err := s.Service.IssueToken(sandbox.TokenRequest{AppID: appID, Nonce: nonce, Secret: sandbox.Secret(nonce, key)})
	if err != nil {
		s.fatalf("sandboxtest: token for %s: %v", appID, err)
	}
	return issued.Token.Value
}

// Transaction returns the stored transaction, with what the API does not echo
// (gratuity_amount, the EMV tag). An unknown id fails the test.
func (s *Server) Transaction(id string) sandbox.Transaction {
	if s.t != nil {
		s.t.Helper()
	}
	var txn sandbox.Transaction
	s.view("transaction "+id, func(tx sandbox.Tx) (err error) { txn, err = tx.Transaction(id); return })
	return txn
}

// Adjustments returns the adjustment history of a transaction, oldest first: what
// each adjustment changed, by which app, under which X-GP-Version.
func (s *Server) Adjustments(transactionID string) []sandbox.Adjustment {
	if s.t != nil {
		s.t.Helper()
	}
	var adj []sandbox.Adjustment
	s.view("adjustments of "+transactionID, func(tx sandbox.Tx) (err error) { adj, err = tx.Adjustments(transactionID); return })
	return adj
}

// Order returns a stored device order (FOR_REVIEW orders are never stored). An
// unknown id fails the test.
func (s *Server) Order(id string) sandbox.Order {
	if s.t != nil {
		s.t.Helper()
	}
	var o sandbox.Order
	s.view("order "+id, func(tx sandbox.Tx) (err error) { o, err = tx.Order(id); return })
	return o
}

func (s *Server) view(what string, fn func(sandbox.Tx) error) {
	if s.t != nil {
		s.t.Helper()
	}
	if err := s.app.Store().View(fn); err != nil {
		if errors.Is(err, sandbox.ErrNotFound) {
			s.fatalf("sandboxtest: %s: not found", what)
		}
		s.fatalf("sandboxtest: %s: %v", what, err)
	}
}

func (s *Server) fatalf(format string, args ...any) {
	if s.t == nil {
		panic(fmt.Sprintf(format, args...))
	}
	s.t.Helper()
	s.t.Fatalf(format, args...)
}
