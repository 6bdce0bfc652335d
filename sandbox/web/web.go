// Package web is what the sandbox's two HTTP surfaces share, the GP API (package api)
// and the sandbox's own admin API (package admin): the middleware every request
// passes (request id, panic recovery, canonical path, request log, and the hook of
// the request journal), the Record of a request that the handlers fill and the log
// and the journal read, reading a body within the limit and into its typed request
// (whose struct, by its gp tags, is the body's field table: Table), the one response
// writer and the HTTP status of each GP error. It routes nothing: package api builds the router,
// and both packages register their routes on it.
package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
)

// DefaultMaxBody is the request body limit when Config.MaxBody is zero.
const DefaultMaxBody = 1 << 20

// BodyKept is how much of a request body a journaled Record keeps, as received.
const BodyKept = 16 << 10

// A Record is what the middleware and the handlers learn about a request while it is
// served, for the request log and the journal. RecordOf gives a handler the request's
// own.
type Record struct {
	ID          string
	Start       time.Time
	Method      string
	Path        string // as it arrived, card data masked
	Status      int
	ErrorCode   string
	ErrorDetail string
	AppID       string
	Version     string
	Session     string // X-Sandbox-Session, when the request carries it
	Operation   string
	Cause       error // a failure of the sandbox itself
	Probe       bool  // a health probe: logged at Debug while healthy

	// For the journal.
	Journaled     bool
	Time          time.Time // sandbox time at arrival
	Body          []byte    // at most BodyKept bytes, as received
	BodyTruncated bool
	ResourceID    string // the resource an executed action created or changed
	Rule          string // the scenario rule that shaped the answer: "<scenario>#<index>"
	Step          int    // with Rule: the sequence step used, -1 for a rule without sequence
	Fault         string // the fault that rule scripted, if any
	Miss          string // scenarios were active but none matched: the closest rule and why

	Draws       []scenario.Draw // the chance draws of matching rules with a probability
	DuplicateOf string          // a payment that repeats an earlier one: the earlier's id

	// For the journal's view of the answer.
	Response       []byte      // the body as rendered, before compression
	ResponseHeader http.Header // the answer's headers as written

	maxBody int64 // the body limit ReadBody holds the request to
}

type recordKey struct{}

// RecordOf returns the request's Record, nil for a request the middleware did not
// see.
func RecordOf(r *http.Request) *Record {
	rec, _ := r.Context().Value(recordKey{}).(*Record)
	return rec
}

// NoteResource records, for the journal, the resource an executed action answered.
// An access token is a credential, not a resource to show.
func NoteResource(r *http.Request, id string) {
	if rec := RecordOf(r); rec != nil && id != "" && rec.Operation != string(sandbox.OpAccessToken) {
		rec.ResourceID = id
	}
}

// A Journal keeps the requests it chooses (package admin's request journal).
type Journal interface {
	// Wants reports whether the journal records r. It is asked before r is routed, so
	// that a recorded request's body is kept as it arrived (Record.Body); it may set
	// the Record's Operation and Time.
	Wants(r *http.Request, rec *Record) bool
	// Add records a request once it is answered.
	Add(r *http.Request, rec *Record)
}

// Config configures the middleware.
type Config struct {
	// Logger takes the request log, a line per request, and the server's events; nil
	// discards them.
	Logger  *slog.Logger
	MaxBody int64 // bytes; DefaultMaxBody when zero
	// IDs seeds the request-id salt; RandomIDs when nil. A seeded source makes request
	// ids reproducible.
	IDs sandbox.IDs
	// Journal records the requests it wants; nil records none.
	Journal Journal
}

// Handler runs the middleware chain around a router: every request gets an id and a
// Record, its path made canonical, a panic answered as SYSTEM_ERROR, and a line in
// the request log. It wraps the whole router rather than being a router's
// middleware, because gorilla/mux runs no middleware for its 404 and 405 answers,
// and those must be logged and rendered like any other.
type Handler struct {
	next    http.Handler
	log     *slog.Logger
	maxBody int64
	journal Journal
	seq     atomic.Uint64
	idSalt  string
}

// NewHandler wraps next, the router, in the middleware chain.
func NewHandler(next http.Handler, cfg Config) *Handler {
	h := &Handler{next: next, log: cfg.Logger, maxBody: cfg.MaxBody, journal: cfg.Journal}
	if h.maxBody <= 0 {
		h.maxBody = DefaultMaxBody
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	ids := cfg.IDs
	if ids == nil {
		ids = sandbox.RandomIDs{}
	}
	h.idSalt = ids.Alphanumeric(8)
	return h
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &Record{
		ID: h.nextRequestID(), Start: time.Now(), Path: carddata.Mask(r.URL.Path), Method: r.Method,
		Session: r.Header.Get(SessionHeader), maxBody: h.maxBody,
	}
	r = r.WithContext(context.WithValue(r.Context(), recordKey{}, rec))
	w.Header().Set("X-Request-Id", rec.ID)
	defer h.logRequest(r, rec)
	defer h.recoverPanic(w, r, rec)
	emptySegment := hasEmptySegment(r.URL.EscapedPath())
	setCanonicalPath(r.URL)
	if h.journal != nil && h.journal.Wants(r, rec) {
		rec.Journaled = true
		peekBody(r, rec)
	}
	if emptySegment {
		WriteError(w, r, WithStatus(http.StatusNotFound, sandbox.EmptyPathSegment()))
		return
	}
	if hasEncodedSlash(r.URL.RawPath) {
		// No id holds a slash: a path with %2F names nothing, even where a route's
		// {id} would take the whole segment (POST /transactions/{id}%2Fadjustment).
		NotFound.ServeHTTP(w, r)
		return
	}
	h.next.ServeHTTP(w, r)
}

// NotFound answers a path no route takes: 404 RESOURCE_NOT_FOUND naming it.
var NotFound = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	WriteError(w, r, sandbox.UnknownPath(r.URL.EscapedPath()))
})

// MethodNotAllowed answers a method the path does not take: 405, with the GP error
// that names both.
var MethodNotAllowed = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	WriteError(w, r, WithStatus(http.StatusMethodNotAllowed, sandbox.MethodNotAllowed(r.Method, r.URL.EscapedPath())))
})

// hasEmptySegment reports whether a GP API path has an empty segment inside it, an
// id left out (/disputes//documents/DOC_…). Slashes doubled at its start or after
// /ucp (a base URL ending in a slash) and at its end are read as one [SB]; the
// sandbox's own paths are not concerned.
func hasEmptySegment(p string) bool {
	p = strings.TrimLeft(p, "/")
	if rest, ok := strings.CutPrefix(p, "ucp/"); ok {
		p = strings.TrimLeft(rest, "/")
	}
	return !strings.HasPrefix(p, "_sandbox/") && strings.Contains(strings.TrimRight(p, "/"), "//")
}

// setCanonicalPath makes u's path canonical in both its forms. The router matches the
// escaped form (mux's UseEncodedPath), so an encoded slash stays part of its path
// segment: "/transactions/X%2Fadjustment" is an unknown path, never an adjustment.
// Each segment is escaped again the standard way, so that "adjustmen%74" still
// reads "adjustment" while "%2F" stays escaped.
func setCanonicalPath(u *url.URL) {
	segments := strings.Split(CanonicalPath(u.EscapedPath()), "/")
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

// CanonicalPath folds runs of slashes and drops the /ucp base-URL prefix, so that
// "http://host/ucp" and "http://host/ucp/" both work as an SDK's base URL. Doubled
// slashes are served, not redirected: SDKs do not follow redirects on POST. (One
// inside a GP API path, an id left out, is refused before this: hasEmptySegment.)
func CanonicalPath(p string) string {
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

func (h *Handler) recoverPanic(w http.ResponseWriter, r *http.Request, rec *Record) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v) // a deliberate abort (connection reset fault): let net/http handle it
	}
	h.log.Error("panic serving request", "request_id", rec.ID, "panic", v)
	if rec.Status == 0 {
		WriteError(w, r, sandbox.SystemError())
	}
}

func (h *Handler) nextRequestID() string {
	return "REQ_" + h.idSalt + "_" + strconv.FormatUint(h.seq.Add(1), 10)
}
