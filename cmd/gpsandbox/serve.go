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
	"time"

	"github.com/gp-sandbox/gp-sandbox/fixtures"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/api"
	"github.com/gp-sandbox/gp-sandbox/sandbox/store"
	"github.com/gp-sandbox/gp-sandbox/sandbox/yamlfile"
)

// Server timeouts: a client that dawdles over its headers or sits idle cannot pin a
// connection (or a goroutine) for ever.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 60 * time.Second
	idleTimeout       = 90 * time.Second
	shutdownTimeout   = 15 * time.Second
	sweepInterval     = time.Minute
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

	fx, err := yamlfile.LoadFixtures(fixtureFS(cfg.fixtures))
	if err != nil {
		return fmt.Errorf("fixtures: %w", err)
	}
	db, err := store.Open(cfg.db)
	if err != nil {
		return fmt.Errorf("open %s: %w", cfg.db, err)
	}
	defer db.Close()

	svc := sandbox.NewService(db, sandbox.WallClock{}, sandbox.RandomIDs{})
	loaded, err := svc.LoadFixtures(fx, cfg.reset)
	if err != nil {
		return fmt.Errorf("load fixtures: %w", err)
	}
	logger.Info("store ready", "db", cfg.db, "fixtures_loaded", loaded, "reset", cfg.reset)

	tlsCfg, err := serverTLS(cfg.tls, time.Now())
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           api.NewServer(api.Config{Service: svc, Logger: logger, MaxBody: cfg.maxBody}),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		TLSConfig:         tlsCfg,
	}
	scheme := "http"
	if tlsCfg != nil {
		scheme = "https"
		if cfg.tls.caOut != "" {
			logger.Info("wrote the CA certificate clients should trust", "path", cfg.tls.caOut)
		}
	}
	fmt.Fprintf(stdout, "gpsandbox %s listening on %s://%s\n", version, scheme, ln.Addr())

	go sweep(ctx, svc, logger)
	errc := make(chan error, 1)
	go func() {
		if tlsCfg != nil {
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

// sweep forgets long-expired tokens and idempotency keys past their window, so the
// database does not grow without bound.
func sweep(ctx context.Context, svc *sandbox.Service, logger *slog.Logger) {
	t := time.NewTicker(sweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n, err := svc.Sweep(); err != nil {
				logger.Error("sweep failed", "error", err)
			} else if n > 0 {
				logger.Info("swept expired records", "count", n)
			}
		}
	}
}
