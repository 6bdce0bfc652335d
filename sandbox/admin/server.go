// Package admin serves the sandbox's own API under /_sandbox/, apart from the GP
// API of package api: seeding, reset, the clock, orders and devices, the customer's
// actions on a terminal, snapshots, scenarios, the request journal and the coverage
// report read from it, the web inspector and its page (ui), the OpenAPI document, the
// health check and the runtime profiles. Its routes join the API's on the one router
// (api.NewRouter); its answers and errors are written as the API's are (package web).
package admin

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gorilla/mux"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/admin/ui"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// Config wires the admin API to the domain.
type Config struct {
	Service *sandbox.Service
	// Scenarios is the scenario engine the scenario calls read and change; nil runs
	// without scenarios.
	Scenarios *scenario.Engine
	// Ready reports whether the sandbox is ready to serve (fixtures loaded); nil means ready.
	Ready func() bool
	// Check reports a failure that keeps the sandbox from keeping its writes (the
	// database file deleted or replaced); the health check answers 503 with it. Nil
	// never fails.
	Check func() error

	// AdminToken, when set, is required as "Authorization: Bearer <token>" by every
	// /_sandbox/ call except health.
	AdminToken string
	// AllowedHosts are the host names, beside IP addresses and localhost, an open
	// admin API (no AdminToken) answers under: the names the sandbox is reached by.
	AllowedHosts []string
	// Pprof serves net/http/pprof under /_sandbox/debug/pprof/ (behind the admin
	// token), to profile a running sandbox.
	Pprof bool
	// JournalBytes bounds the memory of the request journal's entries
	// (DefaultJournalBytes when zero, no journal when negative).
	JournalBytes int
	// Fixtures reads the fixtures POST /_sandbox/reset loads again; they are read at
	// each reset rather than held in memory for good. Nil resets to no fixtures.
	Fixtures func() (sandbox.Fixtures, error)
	// DecodeTransaction validates a transaction document for PUT and POST
	// /_sandbox/transactions the way fixtures are validated, leaving the keys it
	// omits zero (yamlfile.DecodeTransactionSeed); nil refuses every document.
	DecodeTransaction func(data []byte, name string) (sandbox.Transaction, error)
	// DecodeScenario validates a scenario document for POST /_sandbox/scenarios the
	// way scenario files are validated; nil refuses every document.
	DecodeScenario func(data []byte, name string) (scenario.Scenario, error)
}

// Server serves the admin API.
type Server struct {
	svc    *sandbox.Service
	ready  func() bool
	check  func() error
	engine *scenario.Engine
	router *mux.Router // the router the routes joined, which the journal asks (terminalAction)
	pprof  bool

	adminToken        string
	allowedHosts      map[string]bool             // lower case, see hostAllowed
	crossOrigin       *http.CrossOriginProtection // refuses browsers' cross-origin admin writes
	journal           *journal
	fixtures          func() (sandbox.Fixtures, error)
	decodeTransaction func([]byte, string) (sandbox.Transaction, error)
	decodeScenario    func([]byte, string) (scenario.Scenario, error)

	closing      chan struct{} // closed by CloseStreams
	streams      atomic.Int32  // live journal streams open
	closeStreams sync.Once
}

// NewServer builds the admin API's handlers; Register puts them on the router.
func NewServer(cfg Config) *Server {
	s := &Server{
		svc: cfg.Service, ready: cfg.Ready, check: cfg.Check, engine: cfg.Scenarios, pprof: cfg.Pprof,
		adminToken: cfg.AdminToken, crossOrigin: http.NewCrossOriginProtection(), fixtures: cfg.Fixtures,
		decodeTransaction: cfg.DecodeTransaction, decodeScenario: cfg.DecodeScenario,
		allowedHosts: map[string]bool{}, closing: make(chan struct{}),
	}
	for _, h := range cfg.AllowedHosts {
		s.allowedHosts[strings.ToLower(h)] = true
	}
	if s.check == nil {
		s.check = func() error { return nil }
	}
	if s.ready == nil {
		s.ready = func() bool { return true }
	}
	if cfg.JournalBytes == 0 {
		cfg.JournalBytes = DefaultJournalBytes
	}
	if cfg.JournalBytes > 0 {
		s.journal = newJournal(cfg.JournalBytes, s)
	}
	return s
}

// Journal is the request journal, for the middleware to fill (web.Config); nil when
// the sandbox runs without one.
func (s *Server) Journal() web.Journal {
	if s.journal == nil {
		return nil // not a nil *journal in a non-nil interface
	}
	return s.journal
}

// Register puts the admin API's routes on r, the router the API's are on.
func (s *Server) Register(r *mux.Router) {
	s.router = r
	r.Handle("/_sandbox/batches/{id}", s.admin(s.adminGetBatch)).Methods(http.MethodGet)
	r.HandleFunc("/_sandbox/health", s.health).Methods(http.MethodGet)
	r.HandleFunc("/_sandbox/openapi.yaml", s.openapi).Methods(http.MethodGet)
	r.Handle("/_sandbox/reset", s.admin(s.adminReset)).Methods(http.MethodPost)
	r.Handle("/_sandbox/transactions/{id}", s.adminRecords(s.adminGetTransaction)).Methods(http.MethodGet)
	r.Handle("/_sandbox/transactions/{id}", s.adminRecords(s.adminPutTransaction)).Methods(http.MethodPut)
	r.Handle("/_sandbox/transactions", s.adminRecords(s.adminPostTransaction)).Methods(http.MethodPost)
	r.Handle("/_sandbox/orders/{id}", s.adminRecords(s.adminGetOrder)).Methods(http.MethodGet)
	r.Handle("/_sandbox/orders/{id}/status", s.adminRecords(s.adminOrderStatus)).Methods(http.MethodPost)
	r.Handle("/_sandbox/disputes", s.adminRecords(s.adminRaiseDispute)).Methods(http.MethodPost)
	r.Handle("/_sandbox/devices", s.adminRecords(s.adminListDevices, "merchant_id", "order_id")).Methods(http.MethodGet)
	r.Handle("/_sandbox/devices/{id}", s.adminRecords(s.adminChangeDevice)).Methods(http.MethodPost)
	r.Handle("/_sandbox/device-requests/{id}", s.adminRecords(s.adminGetDeviceRequest)).Methods(http.MethodGet)
	// The customer's actions on a terminal, named by their journal operation
	// (terminalAction); the two present routes share one, and no URL is built by name.
	r.Handle("/_sandbox/device-requests/{id}/present", s.adminRecords(s.adminPresentCard)).Methods(http.MethodPost).Name(opTerminalPresent)
	r.Handle("/_sandbox/devices/{id}/present", s.adminRecords(s.adminPresentOnDevice)).Methods(http.MethodPost).Name(opTerminalPresent)
	r.Handle("/_sandbox/devices/{id}/tip", s.adminRecords(s.adminChooseTip)).Methods(http.MethodPost).Name(opTerminalTip)
	r.Handle("/_sandbox/devices/{id}/cancel", s.adminRecords(s.adminCancelOnDevice)).Methods(http.MethodPost).Name(opTerminalCancel)
	r.Handle("/_sandbox/requests", s.admin(s.adminRequests, journalQueryParams(true)...)).Methods(http.MethodGet)
	r.Handle("/_sandbox/requests", s.admin(s.adminClearRequests)).Methods(http.MethodDelete)
	r.Handle("/_sandbox/requests/count", s.admin(s.adminCountRequests, journalQueryParams(false)...)).Methods(http.MethodGet)
	r.Handle("/_sandbox/notifications", s.admin(s.adminNotifications, "order_id")).Methods(http.MethodGet)
	r.Handle("/_sandbox/clock", s.admin(s.adminGetClock)).Methods(http.MethodGet)
	r.Handle("/_sandbox/clock", s.admin(s.adminPostClock)).Methods(http.MethodPost)
	r.Handle("/_sandbox/scenarios", s.admin(s.adminScenarios)).Methods(http.MethodGet)
	r.Handle("/_sandbox/scenarios", s.admin(s.adminInstallScenario)).Methods(http.MethodPost)
	r.Handle("/_sandbox/scenarios/active", s.admin(s.adminSetActiveScenarios)).Methods(http.MethodPut)
	r.Handle("/_sandbox/scenarios/{name}", s.admin(s.adminRemoveScenario)).Methods(http.MethodDelete)
	r.Handle("/_sandbox/snapshots", s.admin(s.adminSaveSnapshot)).Methods(http.MethodPost)
	r.Handle("/_sandbox/snapshots", s.admin(s.adminListSnapshots)).Methods(http.MethodGet)
	r.Handle("/_sandbox/snapshots/{name}/restore", s.admin(s.adminRestoreSnapshot)).Methods(http.MethodPost)
	r.Handle("/_sandbox/snapshots/{name}", s.admin(s.adminDeleteSnapshot)).Methods(http.MethodDelete)
	r.Handle("/_sandbox/coverage", s.admin(s.adminCoverage)).Methods(http.MethodGet)
	s.registerMerchants(r)
	s.registerBackOffice(r)

	// The web inspector: its page and assets (which hold no data, so need no token),
	// and the admin calls only it needs.
	r.Handle("/_sandbox/ui", http.RedirectHandler("/_sandbox/ui/", http.StatusMovedPermanently)).Methods(http.MethodGet)
	r.PathPrefix("/_sandbox/ui/").Handler(http.StripPrefix("/_sandbox/ui", ui.Handler())).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/_sandbox/requests/stream", s.adminOnly(queried(journalStreamParams(), http.HandlerFunc(s.adminRequestStream)))).Methods(http.MethodGet)
	r.Handle("/_sandbox/transactions", s.adminRecords(s.adminListTransactions, pageQueryParams...)).Methods(http.MethodGet)
	r.Handle("/_sandbox/orders", s.adminRecords(s.adminListOrders, pageQueryParams...)).Methods(http.MethodGet)
	r.Handle("/_sandbox/batches", s.admin(s.adminListBatches, pageQueryParams...)).Methods(http.MethodGet)
	r.Handle("/_sandbox/scenario-state", s.admin(s.adminScenarioState)).Methods(http.MethodGet)
	r.Handle("/_sandbox/terminals", s.adminRecords(s.adminTerminals)).Methods(http.MethodGet)
	if s.pprof {
		r.PathPrefix("/_sandbox/debug/pprof/").Handler(s.adminOnly(http.StripPrefix("/_sandbox", profiles())))
	}
}

// GET /_sandbox/health, open to every caller: 200 once the fixtures are loaded, 503
// while starting or once the sandbox can no longer keep its writes.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	if rec := web.RecordOf(r); rec != nil {
		rec.Probe = true // a container probes every second: its healthy answers log at Debug
	}
	if !s.ready() {
		web.WriteBody(w, r, http.StatusServiceUnavailable, []byte(`{"status":"starting"}`))
		return
	}
	if err := s.check(); err != nil {
		problem := err.Error()
		if gp, ok := sandbox.AsError(err); ok {
			problem = gp.Description
		}
		body, _ := json.Marshal(healthView{Status: "failing", Problem: problem})
		web.WriteBody(w, r, http.StatusServiceUnavailable, body)
		return
	}
	web.WriteBody(w, r, http.StatusOK, []byte(`{"status":"ok"}`))
}
