package api

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/gorilla/mux"
)

// A routeTable is the sandbox's routes split by the first segment of their path
// ("transactions", "merchants", "_sandbox", ...), one flat mux router per segment.
// mux tries a router's routes in order, a regexp each, so a single router made every
// adjustment pay for the routes listed before it; split this way a request is tried
// only against the routes that could match its path. The answers stay those of one
// router: every path template starts with a literal segment, so a path can only match
// (or be refused with 405 by) routes of its own segment, and a segment no route has
// is 404 as it was.
type routeTable struct {
	bySegment               map[string]*mux.Router
	plain                   map[string][]plainRoute // by segment, once compiled; see plainRoute
	notFound, methodRefused http.Handler
}

func newRouteTable(notFound, methodRefused http.Handler) *routeTable {
	return &routeTable{bySegment: map[string]*mux.Router{}, notFound: notFound, methodRefused: methodRefused}
}

func (t *routeTable) newRouter() *mux.Router {
	r := mux.NewRouter()
	r.SkipClean(true) // never redirect: SDKs do not follow redirects on POST
	// Match the path as sent, so that %2F is never taken for a segment separator;
	// path variables are unescaped once a route matched (see match).
	r.UseEncodedPath()
	r.NotFoundHandler, r.MethodNotAllowedHandler = t.notFound, t.methodRefused
	return r
}

// Handle registers a route, as mux.Router.Handle does.
func (t *routeTable) Handle(path string, h http.Handler) *mux.Route {
	return t.routerFor(path).Handle(path, h)
}

// HandleFunc registers a route, as mux.Router.HandleFunc does.
func (t *routeTable) HandleFunc(path string, f func(http.ResponseWriter, *http.Request)) *mux.Route {
	return t.routerFor(path).HandleFunc(path, f)
}

// PathPrefix registers a route for every path under prefix, as mux.Router.PathPrefix does.
func (t *routeTable) PathPrefix(prefix string) *mux.Route {
	return t.routerFor(prefix).PathPrefix(prefix)
}

// routerFor returns the router of a path template's first segment, made on first use.
func (t *routeTable) routerFor(template string) *mux.Router {
	seg := firstSegment(template)
	if strings.ContainsAny(seg, "{}") {
		// A programming error: such a route would need every router.
		panic(fmt.Sprintf("route %s: the first path segment must be literal", template))
	}
	r, ok := t.bySegment[seg]
	if !ok {
		r = t.newRouter()
		t.bySegment[seg] = r
	}
	return r
}

// match finds the handler of a request whose path is canonical (setCanonicalPath),
// with its path variables unescaped: the router matched the escaped path. A variable
// that does not unescape is left as sent; the id checks refuse it. A path no route
// serves gets the 404 handler, a method its path does not take the 405 handler.
func (t *routeTable) match(r *http.Request) (http.Handler, map[string]string) {
	path := r.URL.EscapedPath()
	seg := firstSegment(path)
	if routes, ok := t.plain[seg]; ok {
		if route, vars, ok := matchPlain(routes, r.Method, path); ok {
			return route.GetHandler(), unescapeVars(vars)
		}
	}
	router, ok := t.bySegment[seg]
	if !ok {
		return t.notFound, nil // a segment no route has
	}
	var m mux.RouteMatch
	if !router.Match(r, &m) {
		return t.notFound, nil // cannot happen: every router has a 404 handler
	}
	return m.Handler, unescapeVars(m.Vars)
}

// unescapeVars unescapes path variables in place; one that does not unescape is
// left as sent.
func unescapeVars(vars map[string]string) map[string]string {
	for name, v := range vars {
		if u, err := url.PathUnescape(v); err == nil {
			vars[name] = u
		}
	}
	return vars
}

// compile lets match take the full matches of the segments whose routes are all plain
// without mux's regexps (see plainRoute). It is called once every route is registered;
// a table never compiled leaves every request to mux.
func (t *routeTable) compile() {
	t.plain = map[string][]plainRoute{}
	for seg, router := range t.bySegment {
		if routes, ok := plainRoutesOf(router); ok {
			t.plain[seg] = routes
		}
	}
}

// firstSegment returns the first segment of a path: "transactions" for
// "/transactions/X/adjustment", "" for "/".
func firstSegment(path string) string {
	path = strings.TrimPrefix(path, "/")
	seg, _, _ := strings.Cut(path, "/")
	return seg
}
