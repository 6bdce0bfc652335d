package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
)

// serve is "gpsandbox [serve] [flags]": it reads the configuration, opens the sandbox,
// listens, and serves until ctx ends.
func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseServeFlags(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	// The log format is decided once, here: this one logger writes the request log
	// and every event of the sandbox.
	logger := newLogger(cfg.logFormat == "json", stderr)
	if cfg.adminOpen && cfg.adminToken == "" && !isLoopback(cfg.addr) {
		logger.Warn("the admin API is open to every client that reaches --addr, as --admin-open asks", "addr", cfg.addr)
	}
	appCfg, err := appConfig(cfg, logger)
	if err != nil {
		return err
	}
	// Listen before the sandbox opens its database: a start on a busy port must leave
	// the file as it was (app.Open writes to it, the fixtures and --reset first).
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	sb, err := app.Open(appCfg)
	var unknown *scenario.UnknownError
	if errors.As(err, &unknown) {
		known := "no scenario is loaded"
		if len(unknown.Known) > 0 {
			known = "known: " + strings.Join(unknown.Known, ", ")
		}
		err = usageError(fmt.Sprintf("--scenario: %v; %s", unknown, known))
	}
	if err != nil {
		ln.Close()
		return explainDBAccess(err, cfg.db)
	}
	defer sb.Close() // after Run: no request can write once the worker and store stop
	fmt.Fprintln(stdout, startLine(appCfg.HTTP.TLS != nil, ln.Addr().String(), cfg.db))
	return sb.Run(ctx, ln)
}

// startLine is the line serve prints once it listens: where it listens first (tests
// and scripts read the first word after "listening on"), then the base URL a GP
// client is given, the inspector and the database file.
func startLine(https bool, addr, db string) string {
	base := "http://" + addr
	if https {
		base = "https://" + addr
	}
	if abs, err := filepath.Abs(db); err == nil && db != ":memory:" {
		db = abs
	}
	return fmt.Sprintf("gpsandbox %s listening on %s (API %s/ucp, inspector %s/_sandbox/ui/, database %s)", version, base, base, base, db)
}

// appConfig turns the command line into the sandbox's configuration: the clock, the
// id source and the HTTPS certificate are made here.
func appConfig(cfg config, logger *slog.Logger) (app.Config, error) {
	fixtureFiles, err := folderFlag("fixtures", "fixtures", cfg.fixtures, false)
	if err != nil {
		return app.Config{}, err
	}
	scenarioFiles, err := folderFlag("scenarios", "scenarios", cfg.scenariosDir, false)
	if err != nil {
		return app.Config{}, err
	}
	if noYAMLFiles(scenarioFiles) {
		// Not an error: the folder is watched, and files saved into it later are loaded.
		logger.Warn("no scenario files (*.yaml, *.yml) in the --scenarios folder: no scenario until some are added; the built-in ones are not loaded", "dir", cfg.scenariosDir)
	}
	tlsCfg, err := serverTLS(cfg.tls, cfg.addr, time.Now())
	if err != nil {
		return app.Config{}, err
	}
	if tlsCfg != nil && cfg.tls.caOut != "" {
		logger.Info("wrote the CA certificate clients should trust", "path", cfg.tls.caOut)
	}
	var newIDs func() sandbox.IDs
	if cfg.seeded {
		newIDs = func() sandbox.IDs { return sandbox.NewSeededIDs(cfg.seed) }
	}
	return app.Config{
		DB:              cfg.db,
		Reset:           cfg.reset,
		SetAsideDamaged: cfg.setAside,
		Snapshot:        cfg.snapshot,
		Fixtures:        fixtureFiles,
		Scenarios:       scenarioFiles,
		GlobalScenarios: cfg.scenarios,
		MaxStepCounters: cfg.stepCounters,
		Clock:           cfg.clock,
		NewIDs:          newIDs,
		Seed:            cfg.seed,
		Seeded:          cfg.seeded,
		Logger:          logger,
		MaxBody:         cfg.maxBody,
		AdminToken:      cfg.adminToken,
		AllowedHosts:    adminHosts(cfg),
		JournalBytes:    cfg.journalMiB << 20,
		NotifyAttempts:  cfg.notifyAttempts,
		TerminalDelay:   cfg.terminalDelay,
		OrderStep:       cfg.orderStep,
		DuplicateWindow: duplicateWindow(cfg.duplicateWin),
		DepositDelay:    depositDelay(cfg.depositDelay),
		Pprof:           cfg.pprof,
		HTTP: app.HTTPConfig{
			TLS:               tlsCfg,
			ReadHeaderTimeout: cfg.readHeaderTimeout,
			ReadTimeout:       cfg.readTimeout,
			IdleTimeout:       cfg.idleTimeout,
		},
	}, nil
}

// duplicateWindow is --duplicate-window as app.Config takes it: 0 turns the check
// off, which the Config says with a negative window.
func duplicateWindow(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// depositDelay is --deposit-delay as app.Config takes it: 0 deposits at the close,
// which the Config says with a negative delay (zero is its default).
func depositDelay(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// adminHosts are the host names an open admin API answers under: --allowed-hosts and
// the host of --addr when it is a name (IP addresses and localhost always pass).
func adminHosts(cfg config) []string {
	hosts := append([]string(nil), cfg.allowedHosts...)
	if host, _, err := net.SplitHostPort(cfg.addr); err == nil && host != "" && net.ParseIP(host) == nil {
		hosts = append(hosts, host)
	}
	return hosts
}

// newLogger writes JSON lines when jsonLines is true, slog's text lines otherwise.
func newLogger(jsonLines bool, w io.Writer) *slog.Logger {
	if jsonLines {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}
