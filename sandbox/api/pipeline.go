package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"

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
// Adding an operation takes three declarations, with adjustment.go as the model:
//
//   - its typed request, which is also its field table: a struct whose fields are
//     the members the body may carry, in GP's check order, each named by its json
//     tag and given its kind and limits by its gp tag (web.Table: the grammar), the
//     members an SDK sends and the sandbox ignores among them (web.Ignored); shared
//     groups of members are structs embedded or nested in several; noBody for none.
//     Adding a member is adding a field with its tags. The body is checked as it is
//     read into the request, so errors name the dotted member in GP's order;
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
	bodyOptional  bool     // an empty body reads as {} (GETs; a batch close sends none)
	handler       handler
	fields        *web.Table // the typed request's field table: endpoint builds it
}

// A handler is an operation's own step: the typed request its body is read into and
// what it does with it. Make one with handle.
type handler struct {
	request reflect.Type                                          // the typed request, whose field table endpoint builds
	decode  func(fields *web.Table, body web.Object) (any, error) // body -> request (a pointer to it), checked by its tags
	execute func(s *Server, c *call, req any) (any, error)        // request -> view to send
}

// handle makes the handler of an operation whose body is read into R. The body is
// checked by R's tags as it is read, so R needs no validation of its own but for
// what tags cannot say (a handler's check: members that go together, forms the
// domain judges).
func handle[R any](fn func(s *Server, c *call, req R) (any, error)) handler {
	return handler{
		request: reflect.TypeFor[R](),
		decode: func(fields *web.Table, body web.Object) (any, error) {
			req := new(R)
			return req, fields.Decode(body, req)
		},
		execute: func(s *Server, c *call, req any) (any, error) { return fn(s, c, *req.(*R)) },
	}
}

// noBody is the typed request of an operation without a body (a GET).
type noBody struct{}

// call is a request that passed every check, ready to execute.
type call struct {
	r        *http.Request
	caller   sandbox.Caller
	vars     map[string]string
	body     web.Object // the body as decoded, as scenario conditions and the replay hash see it
	req      any        // the checked body decoded into the operation's typed request (a pointer to it)
	version  string
	idem     sandbox.Idempotency
	issuer   string                // the issuer result a scenario scripts; "" for the card's own
	rate     *sandbox.ScriptedRate // the DCC rate a scenario scripts; nil for the table's
	terminal sandbox.Presentation  // what a scenario scripts at the terminal; zero for its own

	refuseDuplicate bool   // a scenario refuses a payment that repeats an earlier one
	disputeStage    string // a scenario disputes the payment when it is deposited
}

func (s *Server) endpoint(op operation) http.Handler {
	if !slices.Contains(sandbox.Operations(), op.op) {
		panic(fmt.Sprintf("operation %s is not listed in sandbox.Operations (scenarios, journal filters)", op.op))
	}
	// A bad tag panics, like a bad regexp literal: every test that starts a server
	// reports it.
	op.fields = web.TableOf(op.handler.request)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rec := web.RecordOf(r); rec != nil {
			rec.Operation = string(op.op)
		}
		c, err := s.prepare(w, r, op)
		if err != nil {
			s.refuse(w, r, op, c, err)
			return
		}
		d, err := s.decide(r, op, c)
		if err != nil {
			s.refuse(w, r, op, c, err)
			return
		}
		if d.Matched() {
			if refusal := s.rehearse(op, c, d.Outcome); refusal != nil {
				// GP refuses the request whatever the rule scripts (A25): its refusal
				// stands, refused as without the rule, which shaped nothing and gives
				// its sequence's call back.
				if rec := web.RecordOf(r); rec != nil {
					rec.Rule, rec.Step, rec.Fault = "", -1, ""
				}
				if err := s.engine.GiveBack(d); err != nil {
					s.log.Error("a scenario call not given back", "err", err)
				}
				s.refuse(w, r, op, c, refusal)
				return
			}
			s.script(w, r, op, c, d)
			return
		}
		body, err := s.execute(op, c)
		if err != nil {
			s.refuse(w, r, op, c, err)
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
// store, so a request it rejects leaves no trace but its action record (refuse; and
// its idempotency key stays free). The call is returned with a refusal too, holding
// what the checks learnt (the caller, once authenticated).
func (s *Server) prepare(w http.ResponseWriter, r *http.Request, op operation) (*call, error) {
	c := &call{r: r, vars: pathVars(r)}
	idemKey, err := s.authenticate(r, op, c)
	if err != nil {
		return c, err
	}
	for _, name := range op.pathIDs {
		v, present := c.vars[name]
		if present && (v == "" || len(v) > maxHeaderValue || !web.ValidText(v)) {
			return c, sandbox.InvalidURLField(name)
		}
	}
	if err := s.readRequest(w, r, op, c, idemKey); err != nil {
		return c, err
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
	c.caller.Request.Version = c.version
	idemKey, err := idempotencyHeader(r)
	if err != nil {
		return "", err
	}
	return idemKey, s.svc.Authorize(c.caller, op.op)
}

// readRequest reads the body once: decoded, then checked by the operation's typed
// request's tags as it is filled in. A body whose members are refused under an
// idempotency key is answered as usedKeyFirst says.
func (s *Server) readRequest(w http.ResponseWriter, r *http.Request, op operation, c *call, idemKey string) error {
	var err error
	if c.body, err = web.ReadObject(w, r, op.bodyOptional); err != nil {
		return err
	}
	c.caller.Request.Received = received(op, c.body)
	if c.req, err = op.handler.decode(op.fields, c.body); err != nil {
		return s.usedKeyFirst(op, c, idemKey, err)
	}
	return nil
}

// usedKeyFirst answers a write whose body's members are refused: GP looks the
// idempotency key up before it validates them, so a repeat of a key that executed is
// that key's 409 whatever the members (Node CreditCardNotPresent "verify tokenized
// payment method with idempotency key") [GP]. A read consumes no key, and a failed
// lookup leaves the refusal as it was.
func (s *Server) usedKeyFirst(op operation, c *call, idemKey string, refusal error) error {
	if idemKey == "" || !op.op.Recorded() {
		return refusal
	}
	if used := s.svc.RefuseUsedKey(c.caller, idemKey); used != nil {
		if _, isGP := sandbox.AsError(used); isGP {
			return used
		}
	}
	return refusal
}

// versionHeader returns X-GP-Version: required, 1..50 printable characters. Any such
// value is accepted [SB].
func versionHeader(r *http.Request) (string, error) {
	if len(r.Header[versionKey]) > 1 {
		return "", sandbox.InvalidField("X-GP-Version") // two versions: which one? (A130)
	}
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
	if len(r.Header[idempotencyKey]) > 1 {
		// Two keys could each be seen before or not: taking either one could charge
		// twice (A130).
		return "", sandbox.InvalidField("X-GP-Idempotency")
	}
	v := r.Header.Get(idempotencyKey)
	if v != "" && (len(v) > maxHeaderValue || !web.PrintableASCII(v)) {
		return "", sandbox.InvalidField("X-GP-Idempotency")
	}
	return v, nil
}

// read declares a GET of the GP API: authenticated, its ids in the path, no body
// (an empty one reads as {}), answering what get returns.
func read(op sandbox.Operation, pathIDs []string, get func(s *Server, c *call) (any, error)) operation {
	return operation{
		op: op, authenticated: true, pathIDs: pathIDs, bodyOptional: true,
		handler: handle(func(s *Server, c *call, _ noBody) (any, error) { return get(s, c) }),
	}
}
