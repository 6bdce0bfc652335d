package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// maxHeaderValue is the length limit of X-GP-Version, X-GP-Idempotency and path ids.
const maxHeaderValue = 50

// The GP headers' names as net/http's header map holds them: Header.Get puts a name
// in that form on every call, and allocates to do so from any other spelling.
const (
	versionKey     = "X-Gp-Version"     // X-GP-Version
	idempotencyKey = "X-Gp-Idempotency" // X-GP-Idempotency
)

// An operation describes one API operation: what the request must carry and what the
// domain does with it. Every operation is served by the same pipeline (endpoint), so
// the order of checks is the same everywhere: authenticate, headers, permission, path,
// body, then the operation's own step.
//
// Adding an operation takes four declarations, with adjustment.go as the model:
//
//   - its field table (body): GP's check order and error texts come from it, so every
//     member the body may carry is listed with its kind and limits;
//   - its typed request: a struct whose json tags mirror the table, which the checked
//     body is decoded into (checkShape refuses to start a server where the two differ;
//     embedded structs share members between operations; noBody for none);
//   - its handler, made with handle: a short sequence of steps that turns the request
//     into a domain call and the domain's typed result into a view (views.go);
//   - its route (routes.go) and its sandbox.Operation name, listed in
//     sandbox.Operations (scenarios, journal).
//
// A handler never reads the untyped body and never writes bytes: the pipeline runs
// scenarios around it and renders what it returns.
type operation struct {
	op            sandbox.Operation
	authenticated bool     // needs a bearer token and X-GP-Version
	pathIDs       []string // path variables, each 1..50 characters where the route has them
	body          []field
	bodyOptional  bool // an empty body reads as {} (GETs; a batch close sends none)
	handler       handler
}

// call is a request that passed every check, ready to execute.
type call struct {
	r        *http.Request
	caller   sandbox.Caller
	vars     map[string]string
	body     object // the checked body, as scenario conditions see it
	req      any    // the checked body decoded into the operation's typed request
	version  string
	idem     sandbox.Idempotency
	issuer   string               // the issuer result a scenario scripts; "" for the card's own
	terminal sandbox.Presentation // what a scenario scripts at the terminal; zero for its own

	refuseDuplicate bool // a scenario refuses a payment that repeats an earlier one
}

func (s *Server) endpoint(op operation) http.Handler {
	s.operations[string(op.op)] = true
	if problems := checkShape(op.body, op.handler.request); len(problems) > 0 {
		// A programming error, like a bad regexp literal: every test that starts a
		// server reports it.
		panic(fmt.Sprintf("operation %s: typed request and field table differ: %s", op.op, strings.Join(problems, "; ")))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if info := infoOf(r); info != nil {
			info.operation = string(op.op)
		}
		c, err := s.prepare(w, r, op)
		if err != nil {
			writeError(w, r, err)
			return
		}
		d, err := s.decide(r, op, c)
		if err != nil {
			writeError(w, r, err)
			return
		}
		if d.Matched() {
			s.script(w, r, op, c, d)
			return
		}
		body, err := s.execute(op, c)
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeBody(w, r, http.StatusOK, body)
	})
}

// execute runs the operation's handler and renders the view it returns, noting for
// the journal which resource it shows.
func (s *Server) execute(op operation, c *call) ([]byte, error) {
	view, err := op.handler.execute(s, c, c.req)
	if err != nil {
		return nil, err
	}
	if res, ok := view.(interface{ resourceID() string }); ok {
		noteResource(c.r, res.resourceID())
	}
	return json.Marshal(view)
}

// prepare runs every check that comes before execution. Nothing here writes to the
// store, so a request it rejects leaves no trace (and its idempotency key stays free).
func (s *Server) prepare(w http.ResponseWriter, r *http.Request, op operation) (*call, error) {
	c := &call{r: r, vars: pathVars(r)}
	idemKey, err := s.authenticate(r, op, c)
	if err != nil {
		return nil, err
	}
	for _, name := range op.pathIDs {
		v, present := c.vars[name]
		if present && (v == "" || len(v) > maxHeaderValue || !textOK(v)) {
			return nil, sandbox.InvalidURLField(name)
		}
	}
	if err := s.readRequest(w, r, op, c); err != nil {
		return nil, err
	}
	if idemKey != "" {
		c.idem = sandbox.Idempotency{Key: idemKey} // Request: see script
	}
	return c, nil
}

// authenticate runs the checks of an authenticated operation that come before
// anything about the operation itself: the token first (nothing else is looked at
// without a valid one), then the headers and the permission. It returns the
// idempotency key, if any.
func (s *Server) authenticate(r *http.Request, op operation, c *call) (string, error) {
	if !op.authenticated {
		return "", nil
	}
	var err error
	if c.caller, err = s.svc.Authenticate(bearerToken(r)); err != nil {
		return "", err
	}
	info := infoOf(r)
	info.appID = c.caller.App.ID
	if c.version, err = versionHeader(r); err != nil {
		return "", err
	}
	info.version = c.version
	idemKey, err := idempotencyHeader(r)
	if err != nil {
		return "", err
	}
	return idemKey, s.svc.Authorize(c.caller, op.op)
}

// readRequest reads the body, checks it against the operation's field table and
// decodes it into the operation's typed request.
func (s *Server) readRequest(w http.ResponseWriter, r *http.Request, op operation, c *call) error {
	if err := checkContentType(r); err != nil {
		return err
	}
	raw, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	if op.bodyOptional && len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	if c.body, err = decodeObject(raw); err != nil {
		return err
	}
	if err := checkBody(c.body, op.body); err != nil {
		return err
	}
	c.req, err = op.handler.decode(c.body)
	return err
}

// bearerToken extracts the token of "Authorization: Bearer <token>" (scheme in any case).
// Ambiguous credentials are no credentials: two Authorization headers, or a token
// with spaces around or inside it, give "" (40001) rather than a guess at which was meant.
func bearerToken(r *http.Request) string {
	values := r.Header.Values("Authorization")
	if len(values) != 1 {
		return ""
	}
	scheme, token, ok := strings.Cut(values[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" || strings.ContainsAny(token, " \t") {
		return ""
	}
	if len(token) > 256 {
		return "" // no token is that long: do not even look it up
	}
	return token
}

// versionHeader returns X-GP-Version: required, 1..50 printable characters. Any such
// value is accepted [SB].
func versionHeader(r *http.Request) (string, error) {
	v := r.Header.Get(versionKey)
	if v == "" {
		return "", sandbox.MissingFields("X-GP-Version")
	}
	if len(v) > maxHeaderValue || !printableASCII(v) {
		return "", sandbox.InvalidField("X-GP-Version")
	}
	return v, nil
}

// idempotencyHeader returns X-GP-Idempotency: optional, 1..50 printable characters.
func idempotencyHeader(r *http.Request) (string, error) {
	v := r.Header.Get(idempotencyKey)
	if v != "" && (len(v) > maxHeaderValue || !printableASCII(v)) {
		return "", sandbox.InvalidField("X-GP-Idempotency")
	}
	return v, nil
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// checkContentType accepts a missing or unparseable Content-Type as JSON (the Node SDK
// sends "charset=UTF-8", which GP accepts) and refuses a clearly different media type.
func checkContentType(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" || ct == "application/json" {
		return nil // absent, or what nearly every client sends: nothing to parse
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return nil
	}
	if mt == "application/json" || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "/json") || mt == "*/*" {
		return nil
	}
	return sandbox.InvalidField("Content-Type")
}

// readBody reads at most maxBody bytes. A declared length over the limit is refused
// before a byte is read, so a 100 MiB upload costs nothing.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > s.maxBody {
		return nil, s.bodyTooLarge()
	}
	if read, ok := r.Body.(*journaledBody); ok && read.err == nil {
		return read.whole, nil // within maxBody: peekBody reads no body declared longer
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, s.bodyTooLarge()
	case err != nil:
		return nil, sandbox.BodyUnexpected() // the client went away or sent a broken chunk
	}
	return raw, nil
}

// bodyTooLarge is the answer to a body over the limit: 413, the status its error code
// does not say.
func (s *Server) bodyTooLarge() error {
	return withStatus(http.StatusRequestEntityTooLarge, sandbox.BodyTooLarge(s.maxBody))
}
