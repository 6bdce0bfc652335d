package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
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
	body          []Field  // the hand-written field table, until the typed request's tags replace it
	bodyOptional  bool     // an empty body reads as {} (GETs; a batch close sends none)
	handler       handler
	fields        *web.Table // the typed request's field table, built by endpoint
}

// call is a request that passed every check, ready to execute.
type call struct {
	r        *http.Request
	caller   sandbox.Caller
	vars     map[string]string
	body     object // the checked body, as scenario conditions see it
	req      any    // the checked body decoded into the operation's typed request (a pointer to it)
	version  string
	idem     sandbox.Idempotency
	issuer   string               // the issuer result a scenario scripts; "" for the card's own
	terminal sandbox.Presentation // what a scenario scripts at the terminal; zero for its own

	refuseDuplicate bool // a scenario refuses a payment that repeats an earlier one
}

func (s *Server) endpoint(op operation) http.Handler {
	if !slices.Contains(sandbox.Operations(), op.op) {
		panic(fmt.Sprintf("operation %s is not listed in sandbox.Operations (scenarios, journal filters)", op.op))
	}
	if op.body == nil {
		op.fields = web.TableOf(op.handler.request) // panics on a bad tag: every test that starts a server reports it
	} else if problems := checkShape(op.body, op.handler.request); len(problems) > 0 {
		// A programming error, like a bad regexp literal: every test that starts a
		// server reports it.
		panic(fmt.Sprintf("operation %s: typed request and field table differ: %s", op.op, strings.Join(problems, "; ")))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rec := web.RecordOf(r); rec != nil {
			rec.Operation = string(op.op)
		}
		c, err := s.prepare(w, r, op)
		if err != nil {
			web.WriteError(w, r, err)
			return
		}
		d, err := s.decide(r, op, c)
		if err != nil {
			web.WriteError(w, r, err)
			return
		}
		if d.Matched() {
			s.script(w, r, op, c, d)
			return
		}
		body, err := s.execute(op, c)
		if err != nil {
			web.WriteError(w, r, err)
			return
		}
		web.WriteBody(w, r, http.StatusOK, body)
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
		web.NoteResource(c.r, res.resourceID())
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
		if present && (v == "" || len(v) > maxHeaderValue || !web.ValidText(v)) {
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
	if c.caller, err = s.svc.Authenticate(web.BearerToken(r)); err != nil {
		return "", err
	}
	rec := web.RecordOf(r)
	rec.AppID = c.caller.App.ID
	if c.version, err = versionHeader(r); err != nil {
		return "", err
	}
	rec.Version = c.version
	idemKey, err := idempotencyHeader(r)
	if err != nil {
		return "", err
	}
	return idemKey, s.svc.Authorize(c.caller, op.op)
}

// readRequest reads the body, checks it against the operation's field table and
// decodes it into the operation's typed request.
func (s *Server) readRequest(w http.ResponseWriter, r *http.Request, op operation, c *call) error {
	var err error
	if c.body, err = web.ReadObject(w, r, op.bodyOptional); err != nil {
		return err
	}
	if op.body == nil {
		c.req, err = op.handler.fill(op.fields, c.body)
		return err
	}
	if err := checkBody(c.body, op.body); err != nil {
		return err
	}
	c.req, err = op.handler.decode(c.body)
	return err
}

// versionHeader returns X-GP-Version: required, 1..50 printable characters. Any such
// value is accepted [SB].
func versionHeader(r *http.Request) (string, error) {
	v := r.Header.Get(versionKey)
	if v == "" {
		return "", sandbox.MissingFields("X-GP-Version")
	}
	if len(v) > maxHeaderValue || !web.PrintableASCII(v) {
		return "", sandbox.InvalidField("X-GP-Version")
	}
	return v, nil
}

// idempotencyHeader returns X-GP-Idempotency: optional, 1..50 printable characters.
func idempotencyHeader(r *http.Request) (string, error) {
	v := r.Header.Get(idempotencyKey)
	if v != "" && (len(v) > maxHeaderValue || !web.PrintableASCII(v)) {
		return "", sandbox.InvalidField("X-GP-Idempotency")
	}
	return v, nil
}
