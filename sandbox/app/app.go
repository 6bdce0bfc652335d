// Package app opens, wires, runs and closes a sandbox: the store, the domain service,
// the scenario engine, the HTTP handler, the notification worker and the scenario
// watcher, from one Config. The gpsandbox command, package sandboxtest and the API
// tests all start the sandbox through Open, so that what a test exercises is what the
// binary serves.
//
// Reading flags and the environment is the command's job: a Config holds values only.
package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/admin"
	"github.com/gp-sandbox/gp-sandbox/sandbox/api"
	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
	"github.com/gp-sandbox/gp-sandbox/sandbox/notify"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
	"github.com/gp-sandbox/gp-sandbox/sandbox/store"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
	"github.com/gp-sandbox/gp-sandbox/sandbox/yamlfile"
)

// Server timeouts that are not configurable: a handler cannot write for ever, and a
// shutdown gives in-flight requests this long to finish.
const (
	WriteTimeout    = 60 * time.Second
	ShutdownTimeout = 15 * time.Second
)

// Config is everything that makes one sandbox differ from another. The zero Config
// is a sandbox on an in-memory store with the embedded fixtures and built-in
// scenarios, on a running clock.
type Config struct {
	// DB is the database file; ":memory:" (or empty) keeps nothing.
	DB string
	// Reset wipes the database and loads the fixtures again. Without it, fixtures are
	// read only into a new database, so a restart keeps what the API changed.
	Reset bool
	// SetAsideDamaged opens a damaged database file anyway: records that do not decode
	// are moved into a file beside it, and a file cut short or changed since its clean
	// close opens as it is (store.Options.SetAside); the log says what was done.
	SetAsideDamaged bool
	// Snapshot names a snapshot restored at start, after the fixtures; one that does
	// not exist stops the start.
	Snapshot string

	// Fixtures and Scenarios say where the YAML files are read from.
	Fixtures  Files
	Scenarios Files
	// GlobalScenarios are active for every request, in this order.
	GlobalScenarios []string
	// StepLifetime is how long a sequence counter is kept after its scope's last
	// step (scenario.DefaultStepLifetime when zero).
	StepLifetime time.Duration
	// MaxStepCounters is how many sequence counters are kept at most, the oldest
	// dropped first (scenario.DefaultMaxStepCounters when zero).
	MaxStepCounters int

	// Clock, when not zero, starts the sandbox clock frozen at that instant; the zero
	// time runs the clock from the wall clock.
	Clock time.Time
	// NewIDs makes a source of ids, tokens and request-id salts: random when nil, a
	// seeded source for reproducible responses. The service and the HTTP layer each
	// draw from their own source, so that the one's draws never shift the other's.
	NewIDs func() sandbox.IDs
	// Seed seeds the chance draws of scenario outcomes with a probability, so that a
	// run repeated with the same seed and the same calls fails the same calls. Without
	// Seeded a seed is chosen at random and logged at start, to repeat the run with.
	Seed   uint64
	Seeded bool
	// DuplicateWindow is how long, in sandbox time, a second payment with the same
	// card, amount, currency and reference is flagged as a duplicate of the first
	// (sandbox.DefaultDuplicateWindow when zero; negative checks nothing).
	DuplicateWindow time.Duration
	// DepositDelay is how long, in sandbox time, after a batch closes its deposit is
	// made (sandbox.DefaultDepositDelay when zero; negative: the same moment).
	DepositDelay time.Duration

	// Logger receives the request log and the sandbox's events; nil discards them.
	Logger *slog.Logger
	// MaxBody bounds a request body in bytes (web.DefaultMaxBody when zero).
	MaxBody int64
	// AdminToken, when set, is required by every /_sandbox/ call except health.
	AdminToken string
	// AllowedHosts are the host names an open admin API answers under, beside IP
	// addresses and localhost (admin.Config.AllowedHosts).
	AllowedHosts []string
	// JournalBytes bounds the memory of the request journal's entries
	// (admin.DefaultJournalBytes when zero).
	JournalBytes int
	// NotifyAttempts is how often a notification is tried (notify.DefaultAttempts
	// when zero).
	NotifyAttempts int
	// TerminalDelay is how long, in sandbox time, the command waiting for the customer
	// at the head of a terminal's queue waits before it completes by itself with the
	// terminal's default card; zero leaves it waiting for a card presented through the
	// admin API.
	TerminalDelay time.Duration
	// OrderStep is how long, in sandbox time, a placed device order stays in each of
	// INITIATED, PROCESSING and SHIPPED before it moves on by itself; zero leaves
	// orders where the admin API puts them.
	OrderStep time.Duration
	// Pprof serves the runtime profiles under /_sandbox/debug/pprof/.
	Pprof bool

	// HTTP is how Run serves connections.
	HTTP HTTPConfig
}

// HTTPConfig is the connection handling of Run. Zero durations mean no limit.
type HTTPConfig struct {
	TLS               *tls.Config // serve HTTPS with it; nil serves HTTP
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	IdleTimeout       time.Duration
}

// Files is where a set of YAML files comes from: FS when set, else the directory Dir,
// else the set embedded in the binary. Dir also names the files in problem messages.
type Files struct {
	Dir string
	FS  fs.FS
}

// App is an open sandbox. Its notification worker (and the scenario watcher, when the
// scenarios come from a directory) run from Open until Close.
type App struct {
	cfg     Config
	log     *slog.Logger
	store   *store.Store
	clock   *sandbox.VirtualClock
	svc     *sandbox.Service
	engine  *scenario.Engine
	handler http.Handler // the middleware around the router of both APIs
	admin   *admin.Server

	fixtures *sandbox.Fixtures // read before the store opened, for seed; nil once loaded

	stop      context.CancelFunc
	workers   sync.WaitGroup
	closeOnce sync.Once
}

// Open opens the store, loads the fixtures when the store needs them, loads the
// scenarios and activates the global ones, builds the HTTP handler and starts the
// background work. Bind the listener before: a start that fails there must not have
// written to the database. A global scenario that does not exist is an error that wraps
// *scenario.UnknownError.
func Open(cfg Config) (*App, error) {
	if cfg.DB == "" {
		cfg.DB = ":memory:"
	}
	a := &App{cfg: cfg, log: cfg.Logger}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if !cfg.Clock.IsZero() {
		if err := sandbox.InClockRange("Clock", cfg.Clock); err != nil {
			return nil, fmt.Errorf("clock: %w", err)
		}
	}
	if cfg.Snapshot != "" {
		// Before the open, which can create, mark or (with --reset) empty the file: a
		// start refused for its snapshot leaves the file as it was.
		check := func(name string) error { return store.CheckSnapshot(cfg.DB, name) }
		if err := sandbox.CheckSnapshot(cfg.Snapshot, check); err != nil {
			// The name is refused when it holds a card number: not shown in clear.
			return nil, fmt.Errorf("--snapshot %s: %w", carddata.Mask(cfg.Snapshot), err)
		}
	}
	scs, err := a.readScenarios()
	if err != nil {
		return nil, err
	}
	if cfg.Reset || newDatabase(cfg.DB) {
		// The fixtures will be loaded: read before the file is opened, so that a start
		// refused for them leaves no file behind, nor a reset one.
		if a.fixtures, err = a.readFixtureSet(scs); err != nil {
			return nil, err
		}
	}
	a.store, err = store.OpenWith(cfg.DB, store.Options{Reset: cfg.Reset, SetAside: cfg.SetAsideDamaged})
	var damaged *store.DamagedError
	var locked *store.LockedError
	switch {
	case errors.As(err, &damaged), errors.As(err, &locked):
		return nil, err // it names the file, the byte or the process, and the way out
	case err != nil:
		return nil, fmt.Errorf("open %s: %w", cfg.DB, err)
	}
	for _, repair := range a.store.Repairs() {
		a.log.Warn("database file opened with --set-aside-damaged: "+repair, "db", cfg.DB)
	}
	a.store.OnLost(func(err error) {
		a.log.Error("the database file was deleted or replaced while the sandbox ran: every write is refused", "db", cfg.DB, "problem", err)
	})
	if err := a.wire(scs); err != nil {
		a.store.Close()
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	a.stop = stop
	a.startNotifications(ctx)
	a.startTerminalDelay(ctx)
	a.startOrderSchedule(ctx)
	a.startWatchingScenarios(ctx)
	return a, nil
}

// wire builds the service, seeds it, starts the scenario set scs and builds the
// handler.
func (a *App) wire(scs []scenario.Scenario) error {
	a.clock = sandbox.NewVirtualClock()
	if !a.cfg.Clock.IsZero() {
		a.clock = sandbox.NewFrozenClock(a.cfg.Clock)
	}
	newIDs := a.cfg.NewIDs
	if newIDs == nil {
		newIDs = func() sandbox.IDs { return sandbox.RandomIDs{} }
	}
	a.svc = sandbox.NewService(a.store, a.clock, newIDs())
	a.svc.UseSnapshots(a.store)
	a.svc.SetDuplicateWindow(a.cfg.DuplicateWindow)
	a.svc.SetDepositDelay(a.cfg.DepositDelay)
	if err := a.seed(scs); err != nil {
		return err
	}
	if a.cfg.Snapshot != "" {
		if _, err := a.svc.RestoreSnapshot(a.cfg.Snapshot); err != nil {
			return fmt.Errorf("--snapshot %s: %w", a.cfg.Snapshot, err)
		}
		a.log.Info("restored a snapshot", "snapshot", a.cfg.Snapshot)
	}
	var err error
	if a.engine, err = a.newEngine(scs); err != nil {
		return err
	}
	router := api.NewRouter()
	api.NewServer(api.Config{Service: a.svc, Logger: a.log, Scenarios: a.engine}).Register(router)
	a.admin = admin.NewServer(admin.Config{
		Service: a.svc, Scenarios: a.engine, Check: a.store.Check,
		AdminToken: a.cfg.AdminToken, AllowedHosts: a.cfg.AllowedHosts, JournalBytes: a.cfg.JournalBytes, Pprof: a.cfg.Pprof,
		Fixtures: func() (sandbox.Fixtures, error) {
			fx, _, err := a.readFixtures()
			return fx, err
		},
		DecodeTransaction: decodeTransaction, DecodeScenario: yamlfile.DecodeScenario,
	})
	a.admin.Register(router)
	a.handler = web.NewHandler(router, web.Config{
		Logger: a.log, MaxBody: a.cfg.MaxBody, IDs: newIDs(), Journal: a.admin.Journal(),
	})
	return nil
}

// Handler is the sandbox's HTTP handler, for Run or for an httptest.Server.
func (a *App) Handler() http.Handler { return a.handler }

// Service is the domain service behind the handler.
func (a *App) Service() *sandbox.Service { return a.svc }

// Store is the open store.
func (a *App) Store() *store.Store { return a.store }

// Clock is the sandbox clock, which the admin API and tests can move.
func (a *App) Clock() *sandbox.VirtualClock { return a.clock }

// Scenarios is the scenario engine.
func (a *App) Scenarios() *scenario.Engine { return a.engine }

// Run serves the handler on ln until ctx ends (SIGINT, SIGTERM in the command) or the
// listener fails. When ctx ends it stops accepting and lets in-flight requests finish
// for up to ShutdownTimeout. It does not Close the App.
func (a *App) Run(ctx context.Context, ln net.Listener) error {
	h := a.cfg.HTTP
	srv := &http.Server{
		Handler:           a.handler,
		ReadHeaderTimeout: h.ReadHeaderTimeout,
		ReadTimeout:       h.ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       h.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
		TLSConfig:         h.TLS,
	}
	srv.RegisterOnShutdown(a.admin.CloseStreams) // live journal streams never go idle
	errc := make(chan error, 1)
	go func() {
		if h.TLS != nil {
			errc <- srv.ServeTLS(ln, "", "") // certificates come from srv.TLSConfig
			return
		}
		errc <- srv.Serve(ln)
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	a.log.Info("shutting down: finishing in-flight requests")
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Close stops the background work, waiting for it, and closes the store. Stop
// serving first (end Run's context, close an httptest.Server): a request that comes
// after Close fails. It may be called more than once.
func (a *App) Close() error {
	var err error
	a.closeOnce.Do(func() {
		a.stop()
		a.workers.Wait()
		err = a.store.Close()
	})
	return err
}

// startNotifications runs the notification worker, with the scenario rules for
// notifications deciding each one's fate.
func (a *App) startNotifications(ctx context.Context) {
	worker := notify.New(notify.Config{
		Service: a.svc, Render: api.NotificationBody, MaxAttempts: a.cfg.NotifyAttempts, Logger: a.log,
		Decide: notificationScenarios(a.engine, a.svc, a.log),
	})
	a.workers.Go(func() { worker.Run(ctx) })
}
