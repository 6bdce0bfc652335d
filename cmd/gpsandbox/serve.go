package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/fixtures"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/api"
	"github.com/gp-sandbox/gp-sandbox/sandbox/notify"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
	"github.com/gp-sandbox/gp-sandbox/sandbox/store"
	"github.com/gp-sandbox/gp-sandbox/sandbox/yamlfile"
)

// Server timeouts beside the configurable ones (config.readHeaderTimeout, ...): a
// client that dawdles over its headers, its body or an idle connection cannot pin a
// connection (or a goroutine) for ever.
const (
	writeTimeout    = 60 * time.Second
	shutdownTimeout = 15 * time.Second
)

func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseServeFlags(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	logger := newLogger(cfg.logFormat, stderr)

	db, err := store.Open(cfg.db)
	if err != nil {
		return fmt.Errorf("open %s: %w", cfg.db, err)
	}
	defer db.Close()
	svc, ids := newService(cfg, db)
	engine, err := prepareState(ctx, cfg, svc, db, logger)
	if err != nil {
		return err
	}
	srv, err := newHTTPServer(cfg, logger, api.NewServer(api.Config{
		Service: svc, Logger: logger, MaxBody: cfg.maxBody, IDs: ids,
		AdminToken: cfg.adminToken, JournalSize: cfg.journalSize, Pprof: cfg.pprof,
		Fixtures: func() (sandbox.Fixtures, error) {
			fx, _, err := loadFixtures(cfg)
			return fx, err
		},
		DecodeTransaction: yamlfile.DecodeTransaction, Scenarios: engine,
	}))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	scheme := "http"
	if srv.TLSConfig != nil {
		scheme = "https"
	}
	fmt.Fprintf(stdout, "gpsandbox %s listening on %s://%s\n", version, scheme, ln.Addr())

	// The worker stops after the HTTP server (no request can write a new entry) and
	// before the store closes (deferred above, so it runs last).
	stopWorker := startWorker(notify.New(notify.Config{
		Service: svc, MaxAttempts: cfg.notifyAttempts, Logger: logger,
		Decide: notificationScenarios(engine, svc, logger),
	}))
	defer stopWorker()
	return serveUntilDone(ctx, srv, ln, logger)
}

// newService wires the domain to the store, the clock (--clock) and the id source
// (--seed).
func newService(cfg config, db *store.Store) (*sandbox.Service, sandbox.IDs) {
	clock := sandbox.NewVirtualClock()
	if !cfg.clock.IsZero() {
		clock = sandbox.NewFrozenClock(cfg.clock)
	}
	var ids sandbox.IDs = sandbox.RandomIDs{}
	if cfg.seeded {
		ids = sandbox.NewSeededIDs(cfg.seed)
	}
	return sandbox.NewService(db, clock, ids), ids
}

// prepareState seeds the store, loads the scenarios (and starts watching their
// directory) and activates the global ones.
func prepareState(ctx context.Context, cfg config, svc *sandbox.Service, db *store.Store, logger *slog.Logger) (*scenario.Engine, error) {
	bindings, loaded, err := seed(cfg, svc)
	if err != nil {
		return nil, err
	}
	logger.Info("store ready", "db", cfg.db, "fixtures_loaded", loaded, "reset", cfg.reset)
	scs, err := loadScenarios(cfg, bindings)
	if err != nil {
		return nil, err
	}
	engine, err := scenario.NewEngine(db, scs)
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	if err := engine.SetGlobal(cfg.scenarios); err != nil {
		return nil, usageError(fmt.Sprintf("--scenario: %v", err))
	}
	logger.Info("scenarios ready", "count", len(scs), "dir", cfg.scenariosDir, "global", strings.Join(cfg.scenarios, ","))
	if cfg.scenariosDir != "" {
		go watchScenarios(ctx, cfg.scenariosDir, engine, logger, reloadInterval)
	}
	return engine, nil
}

// newHTTPServer sets the timeouts that keep a slow or idle client from pinning a
// connection, and TLS when asked for.
func newHTTPServer(cfg config, logger *slog.Logger, handler http.Handler) (*http.Server, error) {
	tlsCfg, err := serverTLS(cfg.tls, cfg.addr, time.Now())
	if err != nil {
		return nil, err
	}
	if tlsCfg != nil && cfg.tls.caOut != "" {
		logger.Info("wrote the CA certificate clients should trust", "path", cfg.tls.caOut)
	}
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: cfg.readHeaderTimeout,
		ReadTimeout:       cfg.readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       cfg.idleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		TLSConfig:         tlsCfg,
	}, nil
}

// startWorker runs the notification worker and returns what stops it and waits.
func startWorker(worker *notify.Worker) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		worker.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// serveUntilDone serves until the listener fails or ctx ends (SIGINT, SIGTERM); then
// it stops accepting and lets in-flight requests finish.
func serveUntilDone(ctx context.Context, srv *http.Server, ln net.Listener, logger *slog.Logger) error {
	errc := make(chan error, 1)
	go func() {
		if srv.TLSConfig != nil {
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
	logger.Info("shutting down: finishing in-flight requests")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	return srv.Shutdown(sctx)
}

// seed loads the fixtures into a new database, or over everything with --reset. Over
// a database that has them already it reads no fixture file: a restart keeps what the
// API changed and is ready in milliseconds whatever the size of the fixture set
// (`gpsandbox validate` checks the files). It returns the fixtures' scenario bindings
// when it read them, and whether it loaded.
func seed(cfg config, svc *sandbox.Service) ([]yamlfile.ScenarioBinding, bool, error) {
	already, err := svc.FixturesLoaded()
	if err != nil {
		return nil, false, fmt.Errorf("open %s: %w", cfg.db, err)
	}
	var fx sandbox.Fixtures
	var bindings []yamlfile.ScenarioBinding
	if cfg.reset || !already {
		if fx, bindings, err = loadFixtures(cfg); err != nil {
			return nil, false, err
		}
		// Decoding and storing a large set leaves a great deal of garbage behind (YAML
		// node trees, encoded records): give that memory back once it is done.
		defer debug.FreeOSMemory()
	}
	// Over loaded fixtures this writes nothing; it only learns what the store holds.
	loaded, err := svc.LoadFixtures(fx, cfg.reset)
	if err != nil {
		return nil, false, fmt.Errorf("load fixtures: %w", err)
	}
	return bindings, loaded, nil
}

// loadFixtures reads the fixture files. Decoding a large set makes a great deal of
// short-lived garbage (the YAML node trees), so the collector runs less often while it
// lasts.
func loadFixtures(cfg config) (sandbox.Fixtures, []yamlfile.ScenarioBinding, error) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	fx, bindings, err := yamlfile.LoadFixturesWithBindings(fixtureFS(cfg.fixtures))
	if err != nil {
		return fx, nil, fmt.Errorf("fixtures: %w", err)
	}
	return fx, bindings, nil
}

// fixtureFS is the fixtures directory when one is given, else the embedded defaults.
func fixtureFS(dir string) fs.FS {
	if dir == "" {
		return fixtures.FS
	}
	return os.DirFS(dir)
}

func newLogger(format string, w io.Writer) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}
