package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
)

// config is everything the command line and environment can set.
type config struct {
	addr      string
	db        string
	fixtures  string
	reset     bool
	logFormat string
	maxBody   int64

	adminToken     string
	journalSize    int
	notifyAttempts int
	clock          time.Time // zero: the wall clock
	seed           uint64
	seeded         bool

	// scenarios are the globally active scenario names; scenariosDir replaces the
	// built-in scenario files.
	scenarios    []string
	scenariosDir string

	tls   tlsConfig
	pprof bool // serve the runtime profiles under /_sandbox/debug/pprof/

	// Connection timeouts: how long a client may take over its headers, over its whole
	// request, and how long an idle keep-alive connection is kept.
	readHeaderTimeout, readTimeout, idleTimeout time.Duration
}

// names is a repeatable flag collecting scenario names; each use may also list
// several separated by commas.
type names struct {
	list *[]string
	set  bool // given on the command line: the environment's list no longer counts
}

func (n *names) String() string {
	if n.list == nil {
		return ""
	}
	return strings.Join(*n.list, ",")
}

func (n *names) Set(v string) error {
	if !n.set {
		*n.list, n.set = nil, true
	}
	*n.list = append(*n.list, scenario.SplitNames(v)...)
	return nil
}

// tlsConfig is how the sandbox serves HTTPS: off, with a certificate generated at
// start (on, no files), or with the given certificate and key files.
type tlsConfig struct {
	on       bool
	certFile string
	keyFile  string
	caOut    string // where to write the generated CA certificate (PEM)
}

// defaultAddr is where the sandbox listens unless told otherwise.
const defaultAddr = "127.0.0.1:8080"

// envOr is the environment variable name, or def when it is unset or empty.
func envOr(getenv func(string) string, name, def string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return def
}

// envBool reads a boolean environment variable: 1, true, yes or on (any case) is true.
func envBool(getenv func(string) string, name string) bool {
	switch strings.ToLower(getenv(name)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// parseServeFlags reads flags, each falling back to its GPSANDBOX_ environment variable
// and then to its default.
func parseServeFlags(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("gpsandbox serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	env := func(name, def string) string { return envOr(getenv, name, def) }
	fs.StringVar(&c.addr, "addr", env("GPSANDBOX_ADDR", defaultAddr), "listen address (GPSANDBOX_ADDR)")
	fs.StringVar(&c.db, "db", env("GPSANDBOX_DB", "gpsandbox.db"), "database file, or :memory: to keep nothing (GPSANDBOX_DB)")
	fs.StringVar(&c.fixtures, "fixtures", env("GPSANDBOX_FIXTURES", ""), "fixtures directory instead of the embedded defaults (GPSANDBOX_FIXTURES)")
	fs.BoolVar(&c.reset, "reset", false, "wipe the database and reload fixtures at start")
	fs.StringVar(&c.logFormat, "log-format", env("GPSANDBOX_LOG_FORMAT", "text"), "request log format: text or json (GPSANDBOX_LOG_FORMAT)")
	c.scenarios = scenario.SplitNames(getenv("GPSANDBOX_SCENARIOS"))
	fs.Var(&names{list: &c.scenarios}, "scenario", "activate a scenario for every request; repeatable (GPSANDBOX_SCENARIOS=a,b)")
	fs.StringVar(&c.scenariosDir, "scenarios", env("GPSANDBOX_SCENARIOS_DIR", ""), "scenario directory instead of the built-in scenarios, reloaded on change (GPSANDBOX_SCENARIOS_DIR)")
	fs.BoolVar(&c.tls.on, "tls", envBool(getenv, "GPSANDBOX_TLS"), "serve HTTPS with a certificate generated at start (GPSANDBOX_TLS)")
	fs.StringVar(&c.tls.certFile, "tls-cert", env("GPSANDBOX_TLS_CERT", ""), "serve HTTPS with this PEM certificate (chain) file instead (GPSANDBOX_TLS_CERT)")
	fs.StringVar(&c.tls.keyFile, "tls-key", env("GPSANDBOX_TLS_KEY", ""), "PEM private key of --tls-cert (GPSANDBOX_TLS_KEY)")
	fs.StringVar(&c.tls.caOut, "tls-ca-out", env("GPSANDBOX_TLS_CA_OUT", ""), "write the generated CA certificate (PEM) to this file, for clients to trust (GPSANDBOX_TLS_CA_OUT)")
	fs.BoolVar(&c.pprof, "pprof", envBool(getenv, "GPSANDBOX_PPROF"), "serve runtime profiles under /_sandbox/debug/pprof/, behind the admin token (GPSANDBOX_PPROF)")
	maxBody := fs.String("max-body", env("GPSANDBOX_MAX_BODY", "1MiB"), "request body limit, bytes or with KiB/MiB suffix (GPSANDBOX_MAX_BODY)")
	fs.StringVar(&c.adminToken, "admin-token", env("GPSANDBOX_ADMIN_TOKEN", ""), "token required by /_sandbox/ calls; empty leaves them open (GPSANDBOX_ADMIN_TOKEN)")
	journalSize := fs.String("journal-size", env("GPSANDBOX_JOURNAL_SIZE", "10000"), "requests kept in the journal (GPSANDBOX_JOURNAL_SIZE)")
	attempts := fs.String("notify-attempts", env("GPSANDBOX_NOTIFY_ATTEMPTS", "8"), "delivery attempts per notification (GPSANDBOX_NOTIFY_ATTEMPTS)")
	clock := fs.String("clock", env("GPSANDBOX_CLOCK", ""), "start the sandbox clock frozen at this time, e.g. 2021-03-22T10:00:00.000Z (GPSANDBOX_CLOCK)")
	seed := fs.String("seed", env("GPSANDBOX_SEED", ""), "seed for reproducible ids and tokens (GPSANDBOX_SEED)")
	timeouts := []struct {
		flag, env, def string
		into           *time.Duration
	}{
		{"read-header-timeout", "GPSANDBOX_READ_HEADER_TIMEOUT", "5s", &c.readHeaderTimeout},
		{"read-timeout", "GPSANDBOX_READ_TIMEOUT", "30s", &c.readTimeout},
		{"idle-timeout", "GPSANDBOX_IDLE_TIMEOUT", "90s", &c.idleTimeout},
	}
	timeoutText := make([]*string, len(timeouts))
	for i, t := range timeouts {
		timeoutText[i] = fs.String(t.flag, env(t.env, t.def), "connection timeout, a Go duration ("+t.env+")")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, usageError(err.Error())
	}
	if fs.NArg() > 0 {
		return c, usageError(fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	if c.logFormat != "text" && c.logFormat != "json" {
		return c, usageError(fmt.Sprintf("--log-format %q: want text or json", c.logFormat))
	}
	if (c.tls.certFile == "") != (c.tls.keyFile == "") {
		return c, usageError("--tls-cert and --tls-key go together")
	}
	if c.tls.certFile != "" {
		c.tls.on = true
	}
	if c.tls.caOut != "" && (!c.tls.on || c.tls.certFile != "") {
		return c, usageError("--tls-ca-out writes the CA of the certificate generated by --tls (without --tls-cert)")
	}
	var err error
	if c.maxBody, err = parseSize(*maxBody); err != nil {
		return c, usageError(fmt.Sprintf("--max-body %q: %v", *maxBody, err))
	}
	if c.journalSize, err = strconv.Atoi(*journalSize); err != nil || c.journalSize < 1 || c.journalSize > 10_000_000 {
		return c, usageError(fmt.Sprintf("--journal-size %q: want 1..10000000", *journalSize))
	}
	if c.notifyAttempts, err = strconv.Atoi(*attempts); err != nil || c.notifyAttempts < 1 || c.notifyAttempts > 100 {
		return c, usageError(fmt.Sprintf("--notify-attempts %q: want 1..100", *attempts))
	}
	for i, t := range timeouts {
		d, err := time.ParseDuration(*timeoutText[i])
		if err != nil || d <= 0 || d > time.Hour {
			return c, usageError(fmt.Sprintf("--%s %q: want a duration from 1ms to 1h such as 5s", t.flag, *timeoutText[i]))
		}
		*t.into = d
	}
	if *clock != "" {
		if c.clock, err = time.Parse(time.RFC3339Nano, *clock); err != nil {
			return c, usageError(fmt.Sprintf("--clock %q: want a time such as 2021-03-22T10:00:00.000Z", *clock))
		}
	}
	if *seed != "" {
		if c.seed, err = strconv.ParseUint(*seed, 10, 64); err != nil {
			return c, usageError(fmt.Sprintf("--seed %q: want a non-negative integer", *seed))
		}
		c.seeded = true
	}
	return c, nil
}

// parseSize reads "1048576", "512KiB" or "1MiB".
func parseSize(s string) (int64, error) {
	mult := int64(1)
	for suffix, m := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if strings.HasSuffix(s, suffix) {
			s, mult = strings.TrimSuffix(s, suffix), m
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > (1<<40)/mult {
		return 0, errors.New("want a positive size such as 1048576, 512KiB or 1MiB")
	}
	return n * mult, nil
}
