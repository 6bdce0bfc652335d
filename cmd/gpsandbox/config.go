package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
)

// config is everything the command line and environment can set.
type config struct {
	addr      string
	db        string
	fixtures  string
	reset     bool
	setAside  bool   // open a damaged database, setting its damaged records aside
	snapshot  string // restored at start
	logFormat string
	maxBody   int64

	adminToken     string
	adminOpen      bool     // serve the admin API without a token on a non-loopback address
	allowedHosts   []string // host names an open admin API answers under, beside IPs and localhost
	journalMiB     int
	notifyAttempts int
	terminalDelay  time.Duration // 0: INITIATED commands wait for a presented card
	orderStep      time.Duration // 0: orders move on the admin API only
	clock          time.Time     // zero: the wall clock
	seed           uint64
	seeded         bool
	duplicateWin   time.Duration // 0: payments are not checked for duplicates
	depositDelay   time.Duration // 0: a batch is deposited the moment it closes
	stepCounters   int           // scenario sequence counters kept at most

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
	fs := newFlagSet("serve", stderr)
	text := defineServeFlags(fs, &c, getenv)
	if err := parseFlags(fs, args); err != nil {
		return c, err
	}
	if err := checkServeFlags(&c); err != nil {
		return c, err
	}
	return c, text.convert(&c)
}

// serveText holds the flags that are read as text and converted after parsing, so
// that an environment value is checked exactly like a flag.
type serveText struct {
	maxBody, journalSize, attempts, terminalDelay, orderStep, clock, seed, allowedHosts string
	duplicateWin, stepCounters, depositDelay                                            string
	timeouts                                                                            []timeoutFlag
}

// timeoutFlag is one of the connection timeouts.
type timeoutFlag struct {
	flag, env, def, text string
	into                 *time.Duration
}

// defineServeFlags declares the flags of serve on fs, writing into c, with their
// environment fallbacks read through getenv.
func defineServeFlags(fs *flag.FlagSet, c *config, getenv func(string) string) *serveText {
	env := func(name, def string) string { return envOr(getenv, name, def) }
	fs.StringVar(&c.addr, "addr", env("GPSANDBOX_ADDR", defaultAddr), "listen address (GPSANDBOX_ADDR)")
	fs.StringVar(&c.db, "db", env("GPSANDBOX_DB", "gpsandbox.db"), "database file, or :memory: to keep nothing (GPSANDBOX_DB)")
	fs.StringVar(&c.fixtures, "fixtures", env("GPSANDBOX_FIXTURES", ""), "fixtures directory instead of the embedded defaults (GPSANDBOX_FIXTURES)")
	fs.BoolVar(&c.reset, "reset", false, "wipe the database and reload fixtures at start")
	fs.BoolVar(&c.setAside, "set-aside-damaged", false, "open a damaged database file: move records that do not decode into a file beside it, open one cut short with what is left")
	fs.StringVar(&c.snapshot, "snapshot", env("GPSANDBOX_SNAPSHOT", ""), "restore this snapshot at start, after the fixtures (GPSANDBOX_SNAPSHOT)")
	fs.StringVar(&c.logFormat, "log-format", env("GPSANDBOX_LOG_FORMAT", "text"), "request log format: text or json (GPSANDBOX_LOG_FORMAT)")
	c.scenarios = scenario.SplitNames(getenv("GPSANDBOX_SCENARIOS"))
	fs.Var(&names{list: &c.scenarios}, "scenario", "activate a scenario for every request; repeatable (GPSANDBOX_SCENARIOS=a,b)")
	fs.StringVar(&c.scenariosDir, "scenarios", env("GPSANDBOX_SCENARIOS_DIR", ""), "scenario folder replacing the built-in scenarios (none of them is loaded beside it), reloaded on change (GPSANDBOX_SCENARIOS_DIR)")
	fs.BoolVar(&c.tls.on, "tls", envBool(getenv, "GPSANDBOX_TLS"), "serve HTTPS with a certificate generated at start (GPSANDBOX_TLS)")
	fs.StringVar(&c.tls.certFile, "tls-cert", env("GPSANDBOX_TLS_CERT", ""), "serve HTTPS with this PEM certificate (chain) file instead (GPSANDBOX_TLS_CERT)")
	fs.StringVar(&c.tls.keyFile, "tls-key", env("GPSANDBOX_TLS_KEY", ""), "PEM private key of --tls-cert (GPSANDBOX_TLS_KEY)")
	fs.StringVar(&c.tls.caOut, "tls-ca-out", env("GPSANDBOX_TLS_CA_OUT", ""), "write the generated CA certificate (PEM) to this file, for clients to trust (GPSANDBOX_TLS_CA_OUT)")
	fs.BoolVar(&c.pprof, "pprof", envBool(getenv, "GPSANDBOX_PPROF"), "serve runtime profiles under /_sandbox/debug/pprof/, behind the admin token (GPSANDBOX_PPROF)")
	fs.StringVar(&c.adminToken, "admin-token", env("GPSANDBOX_ADMIN_TOKEN", ""), "token required by /_sandbox/ calls; empty leaves them open (GPSANDBOX_ADMIN_TOKEN)")
	fs.BoolVar(&c.adminOpen, "admin-open", envBool(getenv, "GPSANDBOX_ADMIN_OPEN"), "serve /_sandbox/ without --admin-token on a non-loopback --addr, on purpose (GPSANDBOX_ADMIN_OPEN)")

	t := &serveText{timeouts: []timeoutFlag{
		{flag: "read-header-timeout", env: "GPSANDBOX_READ_HEADER_TIMEOUT", def: "5s", into: &c.readHeaderTimeout},
		{flag: "read-timeout", env: "GPSANDBOX_READ_TIMEOUT", def: "30s", into: &c.readTimeout},
		{flag: "idle-timeout", env: "GPSANDBOX_IDLE_TIMEOUT", def: "90s", into: &c.idleTimeout},
	}}
	fs.StringVar(&t.maxBody, "max-body", env("GPSANDBOX_MAX_BODY", "1MiB"), "request body limit, bytes or with KiB/MiB suffix (GPSANDBOX_MAX_BODY)")
	fs.StringVar(&t.journalSize, "journal-size", env("GPSANDBOX_JOURNAL_SIZE", "64"), "MiB the request journal may hold; the oldest requests are evicted (GPSANDBOX_JOURNAL_SIZE)")
	fs.StringVar(&t.attempts, "notify-attempts", env("GPSANDBOX_NOTIFY_ATTEMPTS", "8"), "delivery attempts per notification (GPSANDBOX_NOTIFY_ATTEMPTS)")
	fs.StringVar(&t.terminalDelay, "terminal-delay", env("GPSANDBOX_TERMINAL_DELAY", "2s"), "sandbox time after which the command waiting at the head of a terminal's queue completes with its default card; 0 waits for a presented card (GPSANDBOX_TERMINAL_DELAY)")
	fs.StringVar(&t.orderStep, "order-step", env("GPSANDBOX_ORDER_STEP", "24h"), "sandbox time a device order stays INITIATED, PROCESSING and SHIPPED before it moves on by itself; 0 moves orders on the admin API only (GPSANDBOX_ORDER_STEP)")
	fs.StringVar(&t.clock, "clock", env("GPSANDBOX_CLOCK", ""), "start the sandbox clock frozen at this time, e.g. 2021-03-22T10:00:00.000Z (GPSANDBOX_CLOCK)")
	fs.StringVar(&t.allowedHosts, "allowed-hosts", env("GPSANDBOX_ALLOWED_HOSTS", ""), "comma-separated host names the admin API answers under without --admin-token, beside IP addresses, localhost and the host of --addr, e.g. a compose service name (GPSANDBOX_ALLOWED_HOSTS)")
	fs.StringVar(&t.seed, "seed", env("GPSANDBOX_SEED", ""), "seed for reproducible ids, tokens and scenario chance draws (GPSANDBOX_SEED)")
	fs.StringVar(&t.duplicateWin, "duplicate-window", env("GPSANDBOX_DUPLICATE_WINDOW", "10m"), "sandbox time within which a payment with the same card, amount, currency and reference as an earlier one is flagged as a duplicate; 0 turns the check off (GPSANDBOX_DUPLICATE_WINDOW)")
	fs.StringVar(&t.depositDelay, "deposit-delay", env("GPSANDBOX_DEPOSIT_DELAY", "24h"), "sandbox time from a batch close (or a chargeback) to the deposit that pays it, which the settlement reports show from that day on; 0 deposits on the same day (GPSANDBOX_DEPOSIT_DELAY)")
	fs.StringVar(&t.stepCounters, "step-counters", env("GPSANDBOX_STEP_COUNTERS", strconv.Itoa(scenario.DefaultMaxStepCounters)), "scenario step counters (of sequences and probability draws, one per session or app and counted rule) kept at most; beyond it the oldest is dropped (GPSANDBOX_STEP_COUNTERS)")
	for i := range t.timeouts {
		to := &t.timeouts[i]
		fs.StringVar(&to.text, to.flag, env(to.env, to.def), "connection timeout, a Go duration ("+to.env+")")
	}
	return t
}

// checkServeFlags checks the flags that depend on each other.
func checkServeFlags(c *config) error {
	if err := checkAddr(c.addr); err != nil {
		return usageError(err.Error())
	}
	if strings.TrimSpace(c.db) == "" {
		// buntdb would keep an empty path in memory, under a banner naming a folder.
		return usageError("--db is empty: name a database file, or :memory: to keep nothing")
	}
	if c.logFormat != "text" && c.logFormat != "json" {
		return usageError(fmt.Sprintf("--log-format %q: want text or json", c.logFormat))
	}
	if (c.tls.certFile == "") != (c.tls.keyFile == "") {
		return usageError("--tls-cert and --tls-key go together")
	}
	if c.tls.certFile != "" {
		c.tls.on = true
	}
	if c.tls.caOut != "" && (!c.tls.on || c.tls.certFile != "") {
		return usageError("--tls-ca-out writes the CA of the certificate generated by --tls (without --tls-cert)")
	}
	return checkAdminExposure(c)
}

// checkAdminExposure refuses an admin API without a token on an address other
// machines can reach: whoever reaches it can reset the state, rewrite transactions,
// move the clock and read the journal. On loopback it stays open with no setup.
func checkAdminExposure(c *config) error {
	if c.adminToken != "" || c.adminOpen || isLoopback(c.addr) {
		return nil
	}
	return usageError(fmt.Sprintf("--addr %s is reachable from other machines, and the admin API (/_sandbox/) would be open to them: "+
		"set --admin-token (GPSANDBOX_ADMIN_TOKEN), or --admin-open (GPSANDBOX_ADMIN_OPEN=1) to leave it open on purpose", c.addr))
}

// checkAddr checks that addr is host:port, as net.Listen needs it: "localhost" alone
// lacks its port and would otherwise be refused only after the database is open (or
// taken for an address other machines can reach).
func checkAddr(addr string) error {
	_, _, err := net.SplitHostPort(addr)
	if err == nil {
		return nil
	}
	reason := err.Error()
	if ae, ok := errors.AsType[*net.AddrError](err); ok {
		reason = ae.Err
	}
	return fmt.Errorf("--addr %q: %s; want host:port, e.g. --addr 127.0.0.1:8080 (GPSANDBOX_ADDR)", addr, reason)
}

// isLoopback reports whether a listen address accepts loopback connections only:
// "localhost" or a loopback IP. A wildcard (":8080", "0.0.0.0", "[::]"), another IP or
// another host name is not.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// convert reads the text flags into c; the first bad one is a usage error.
func (t *serveText) convert(c *config) error {
	var err error
	if c.maxBody, err = parseSize(t.maxBody); err != nil {
		return usageError(fmt.Sprintf("--max-body %q: %v", t.maxBody, err))
	}
	// MiB, at most 4 GiB: an entry count (the flag's meaning before) of 10000 is
	// refused rather than read as 10000 MiB.
	if c.journalMiB, err = parseCount(t.journalSize, 4096); err != nil {
		return usageError(fmt.Sprintf("--journal-size %q: want 1..4096 (MiB)", t.journalSize))
	}
	if c.notifyAttempts, err = parseCount(t.attempts, 100); err != nil {
		return usageError(fmt.Sprintf("--notify-attempts %q: want 1..100", t.attempts))
	}
	if c.terminalDelay, err = time.ParseDuration(t.terminalDelay); err != nil || c.terminalDelay < 0 || c.terminalDelay > 24*time.Hour {
		return usageError(fmt.Sprintf("--terminal-delay %q: want a duration from 0 to 24h such as 2s", t.terminalDelay))
	}
	if c.orderStep, err = time.ParseDuration(t.orderStep); err != nil || c.orderStep < 0 || c.orderStep > 365*24*time.Hour {
		return usageError(fmt.Sprintf("--order-step %q: want a duration from 0 to 8760h such as 24h", t.orderStep))
	}
	if c.duplicateWin, err = time.ParseDuration(t.duplicateWin); err != nil || c.duplicateWin < 0 || c.duplicateWin > 24*time.Hour {
		return usageError(fmt.Sprintf("--duplicate-window %q: want a duration from 0 to 24h such as 10m", t.duplicateWin))
	}
	if c.depositDelay, err = time.ParseDuration(t.depositDelay); err != nil || c.depositDelay < 0 || c.depositDelay > 365*24*time.Hour {
		return usageError(fmt.Sprintf("--deposit-delay %q: want a duration from 0 to 8760h such as 24h", t.depositDelay))
	}
	if c.stepCounters, err = parseCount(t.stepCounters, 1_000_000); err != nil {
		return usageError(fmt.Sprintf("--step-counters %q: want 1..1000000", t.stepCounters))
	}
	for _, to := range t.timeouts {
		d, err := time.ParseDuration(to.text)
		if err != nil || d <= 0 || d > time.Hour {
			return usageError(fmt.Sprintf("--%s %q: want a duration from 1ms to 1h such as 5s", to.flag, to.text))
		}
		*to.into = d
	}
	if c.clock, err = parseClock(t.clock); err != nil {
		return err
	}
	for _, h := range strings.Split(t.allowedHosts, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if strings.ContainsAny(h, ":/[]@ \t") {
			return usageError(fmt.Sprintf("--allowed-hosts %q: want host names without port, separated by commas, e.g. gpsandbox,sandbox.test", t.allowedHosts))
		}
		c.allowedHosts = append(c.allowedHosts, h)
	}
	if t.seed != "" {
		if c.seed, err = strconv.ParseUint(t.seed, 10, 64); err != nil {
			return usageError(fmt.Sprintf("--seed %q: want a non-negative integer", t.seed))
		}
		c.seeded = true
	}
	return nil
}

// parseCount reads an integer from 1 to most.
func parseCount(s string, most int) (int, error) {
	n, err := strconv.Atoi(s)
	if err == nil && (n < 1 || n > most) {
		err = errors.New("out of range")
	}
	return n, err
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

// parseClock reads --clock: a time within the sandbox clock's range, or none (zero)
// when text is empty.
func parseClock(text string) (time.Time, error) {
	if text == "" {
		return time.Time{}, nil
	}
	at, err := time.Parse(time.RFC3339Nano, text)
	if err == nil {
		err = sandbox.InClockRange("--clock", at)
	}
	if err != nil {
		earliest, latest := sandbox.ClockLimits()
		return time.Time{}, usageError(fmt.Sprintf("--clock %q: want a time from %s to %s, such as 2021-03-22T10:00:00.000Z "+
			"(the latest leaves room for what the sandbox counts ahead of its clock, up to a year, within GP's timestamps)",
			text, sandbox.FormatTime(earliest), sandbox.FormatTime(latest)))
	}
	return at, nil
}
