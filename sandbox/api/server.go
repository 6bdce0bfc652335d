// Package api serves the GP API over HTTP: its routes, the pipeline every operation
// passes (authentication, headers, field tables and typed requests, scenarios) and
// the views it answers with. The use cases themselves live in package sandbox; what
// the API shares with the sandbox's own admin API (package admin), the middleware and
// the response writer, lives in package web.
package api

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/gorilla/mux"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// Config wires the API to the domain.
type Config struct {
	Service *sandbox.Service
	// Logger takes the API's warnings (a possible double charge); nil discards them.
	Logger *slog.Logger
	// Scenarios decides scripted outcomes; nil serves every request normally and
	// ignores the X-Sandbox-* headers.
	Scenarios *scenario.Engine
}

// Server serves the GP API's operations.
type Server struct {
	svc    *sandbox.Service
	log    *slog.Logger
	engine *scenario.Engine
}

// NewServer builds the API's handlers; Register puts them on a router.
func NewServer(cfg Config) *Server {
	s := &Server{svc: cfg.Service, log: cfg.Logger, engine: cfg.Scenarios}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// NewRouter is the one router of the sandbox, which the API's routes and the admin
// API's are registered on (web.Handler serves it). Paths arrive canonical
// (web.Handler): runs of slashes folded and the /ucp base-URL prefix dropped, so the
// /ucp form needs no routes of its own. The router never cleans a path (a redirect:
// SDKs do not follow redirects on POST), and matches the path as sent, so that %2F is
// never taken for a segment separator (PathVar unescapes the variables). Routes are
// registered flat: a mux subrouter with several routes answers 404 where 405 is due.
func NewRouter() *mux.Router {
	r := mux.NewRouter().SkipClean(true).UseEncodedPath()
	r.NotFoundHandler = web.NotFound
	r.MethodNotAllowedHandler = allowing(r, web.MethodNotAllowed)
	return r
}

// allowing answers a method the path does not take with next, after naming in Allow
// the methods it does take, as HTTP asks of every 405 (RFC 9110, section 15.5.6).
func allowing(router *mux.Router, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var allowed []string
		for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			probe := r.Clone(r.Context())
			probe.Method = method
			var match mux.RouteMatch
			if router.Match(probe, &match) && match.MatchErr == nil {
				allowed = append(allowed, method)
			}
		}
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		next.ServeHTTP(w, r)
	})
}

// pathVars returns the path variables of the route that matched r, unescaped: the
// router matched the escaped path. A variable that does not unescape is left as
// sent; the id checks refuse it.
func pathVars(r *http.Request) map[string]string {
	vars := mux.Vars(r)
	unescaped := make(map[string]string, len(vars))
	for name, v := range vars {
		if u, err := url.PathUnescape(v); err == nil {
			v = u
		}
		unescaped[name] = v
	}
	return unescaped
}

// PathVar returns a path variable of the route that matched r, unescaped.
func PathVar(r *http.Request, name string) string { return pathVars(r)[name] }
