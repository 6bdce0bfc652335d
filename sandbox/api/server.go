// Package api serves the GP API over HTTP: routing, header and body validation, the
// response writer and the request middleware. It is the only package that imports
// gorilla/mux; the use cases themselves live in package sandbox.
package api

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
)

// healthPath is the health probe's path, open to every caller.
const healthPath = "/_sandbox/health"

// DefaultMaxBody is the request body limit when Config.MaxBody is zero.
const DefaultMaxBody = 1 << 20

// Config wires the HTTP layer to the domain.
type Config struct {
	Service *sandbox.Service
	// Logger takes the request log, a line per request, and the server's events; nil
	// discards them.
	Logger  *slog.Logger
	MaxBody int64 // bytes; DefaultMaxBody when zero
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
	// IDs seeds the request-id salt; RandomIDs when nil. A seeded source makes request
	// ids reproducible.
	IDs sandbox.IDs
	// Scenarios decides scripted outcomes; nil serves every request normally and
	// ignores the X-Sandbox-* headers.
	Scenarios *scenario.Engine
}

// Server is the sandbox's HTTP handler.
type Server struct {
	svc     *sandbox.Service
	log     *slog.Logger
	maxBody int64
	ready   func() bool
	check   func() error
	engine  *scenario.Engine
	router  *mux.Router
	seq     atomic.Uint64
	idSalt  string

	adminToken        string
	allowedHosts      map[string]bool             // lower case, see hostAllowed
	crossOrigin       *http.CrossOriginProtection // refuses browsers' cross-origin admin writes
	journal           *journal
	fixtures          func() (sandbox.Fixtures, error)
	decodeTransaction func([]byte, string) (sandbox.Transaction, error)
	decodeScenario    func([]byte, string) (scenario.Scenario, error)
	operations        map[string]bool // the operations served, by name, for journal filters

	closing      chan struct{} // closed by CloseStreams
	streams      atomic.Int32  // live journal streams open
	closeStreams sync.Once
}

// NewServer builds the handler with every route registered.
func NewServer(cfg Config) *Server {
	s := &Server{
		svc: cfg.Service, log: cfg.Logger, maxBody: cfg.MaxBody, ready: cfg.Ready, check: cfg.Check,
		adminToken: cfg.AdminToken, crossOrigin: http.NewCrossOriginProtection(), fixtures: cfg.Fixtures,
		decodeTransaction: cfg.DecodeTransaction, engine: cfg.Scenarios,
		decodeScenario: cfg.DecodeScenario,
		operations:     map[string]bool{}, closing: make(chan struct{}),
	}
	s.allowedHosts = map[string]bool{}
	for _, h := range cfg.AllowedHosts {
		s.allowedHosts[strings.ToLower(h)] = true
	}
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxBody
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
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
		s.journal = newJournal(cfg.JournalBytes)
	}
	ids := cfg.IDs
	if ids == nil {
		ids = sandbox.RandomIDs{}
	}
	s.idSalt = ids.Alphanumeric(8)
	s.router = s.routes(cfg.Pprof)
	return s
}

// ServeHTTP runs the middleware chain around the router. The chain wraps the whole
// router rather than using Router.Use, because mux skips Use middleware for 404 and
// 405 answers, and those must be logged and rendered like any other.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	info := &requestInfo{
		id: s.nextRequestID(), start: time.Now(), path: carddata.Mask(r.URL.Path), method: r.Method,
		session: r.Header.Get("X-Sandbox-Session"),
	}
	r = r.WithContext(context.WithValue(r.Context(), infoKey{}, info))
	w.Header().Set("X-Request-Id", info.id)
	defer s.logRequest(r, info)
	defer s.recoverPanic(w, r, info)
	setCanonicalPath(r.URL)
	if action, ok := s.journaledAs(r); ok {
		info.journaled, info.operation = true, action
		info.time = s.svc.Clock().Now()
		info.headers = journaledHeaderValues(r.Header)
		s.peekBody(r, info)
	}
	if hasEncodedSlash(r.URL.RawPath) {
		// No id holds a slash: a path with %2F names nothing, even where a route's
		// {id} would take the whole segment (POST /transactions/{id}%2Fadjustment).
		s.router.NotFoundHandler.ServeHTTP(w, r)
		return
	}
	s.router.ServeHTTP(w, r)
}

// isAdminPath reports whether p is under /_sandbox/: admin calls are not journaled,
// so the journal shows what clients sent to the API and, of the admin calls, only
// the customer's actions on a terminal (terminalAction).
func isAdminPath(p string) bool { return strings.HasPrefix(p, "/_sandbox/") }

// journaledAs reports whether the journal records the request: every API request,
// and of the admin calls only a customer's action on a terminal, whose operation it
// names.
func (s *Server) journaledAs(r *http.Request) (action string, ok bool) {
	switch {
	case s.journal == nil:
		return "", false
	case !isAdminPath(r.URL.EscapedPath()):
		return "", true
	case r.Method != http.MethodPost:
		return "", false // every terminal action is a POST: no need to ask the router
	}
	action = s.terminalAction(r)
	return action, action != ""
}

// setCanonicalPath makes u's path canonical in both its forms. The router matches the
// escaped form (mux's UseEncodedPath), so an encoded slash stays part of its path
// segment: "/transactions/X%2Fadjustment" is an unknown path, never an adjustment.
// Each segment is escaped again the standard way, so that "adjustmen%74" still
// reads "adjustment" while "%2F" stays escaped.
func setCanonicalPath(u *url.URL) {
	segments := strings.Split(canonicalPath(u.EscapedPath()), "/")
	for i, seg := range segments {
		if s, err := url.PathUnescape(seg); err == nil {
			segments[i] = url.PathEscape(s)
		}
	}
	escaped := strings.Join(segments, "/")
	path, err := url.PathUnescape(escaped)
	if err != nil {
		return // cannot happen: every segment was escaped just above
	}
	u.Path, u.RawPath = path, escaped
}

// hasEncodedSlash reports whether an escaped path holds %2F in either case.
func hasEncodedSlash(escaped string) bool {
	return strings.Contains(escaped, "%2F") || strings.Contains(escaped, "%2f")
}

// canonicalPath folds runs of slashes and drops the /ucp base-URL prefix, so that
// "http://host/ucp" and "http://host/ucp/" both work as an SDK's base URL. Doubled
// slashes are served, not redirected: SDKs do not follow redirects on POST.
func canonicalPath(p string) string {
	if strings.Contains(p, "//") {
		var b strings.Builder
		for i := 0; i < len(p); i++ {
			if p[i] == '/' && i > 0 && p[i-1] == '/' {
				continue
			}
			b.WriteByte(p[i])
		}
		p = b.String()
	}
	if p == "/ucp" {
		return "/"
	}
	if strings.HasPrefix(p, "/ucp/") {
		return p[len("/ucp"):]
	}
	return p
}

func (s *Server) recoverPanic(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v) // a deliberate abort (connection reset fault): let net/http handle it
	}
	s.log.Error("panic serving request", "request_id", info.id, "panic", v)
	if info.status == 0 {
		writeError(w, r, sandbox.SystemError())
	}
}

func (s *Server) nextRequestID() string {
	return "REQ_" + s.idSalt + "_" + strconv.FormatUint(s.seq.Add(1), 10)
}

// requestInfo is what the middleware learns about a request while it is served, for
// the request log (and the journal).
type requestInfo struct {
	id          string
	start       time.Time
	path        string
	status      int
	errorCode   string
	errorDetail string
	appID       string
	version     string
	cause       error

	// For the journal.
	journaled     bool
	method        string
	time          time.Time // sandbox time at arrival
	operation     string
	headers       requestHeaderValues
	body          []byte // at most journalBodyCap bytes, as received
	bodyTruncated bool
	resourceID    string // the resource an executed action created or changed
	session       string // X-Sandbox-Session, when the request carries it
	rule          string // the scenario rule that shaped the answer: "<scenario>#<index>"
	step          int    // with rule: the sequence step used, -1 for a rule without sequence
	fault         string // the fault that rule scripted, if any
	miss          string // scenarios were active but none matched: the closest rule and why

	draws       []scenario.Draw // the chance draws of matching rules with a probability
	duplicateOf string          // a payment that repeats an earlier one: the earlier's id

	// For the journal's view of the answer.
	response       []byte      // the body as rendered, before compression
	responseHeader http.Header // the answer's headers as written
}

type infoKey struct{}

func infoOf(r *http.Request) *requestInfo {
	info, _ := r.Context().Value(infoKey{}).(*requestInfo)
	return info
}
