package api

import (
	"net/http"

	"github.com/gorilla/mux"
)

// Route is one registered route: its path template and method.
type Route struct{ Path, Method string }

// RoutesOf lists the routes a server registers, for the test that every one is in
// the OpenAPI document.
func RoutesOf(h http.Handler) []Route {
	var out []Route
	_ = h.(*Server).router.walk(func(r *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		path, err := r.GetPathTemplate()
		if err != nil {
			return nil
		}
		methods, _ := r.GetMethods()
		for _, m := range methods {
			out = append(out, Route{path, m})
		}
		return nil
	})
	return out
}

// walk calls fn for every route, as mux.Router.Walk does.
func (t *routeTable) walk(fn mux.WalkFunc) error {
	for _, r := range t.bySegment {
		if err := r.Walk(fn); err != nil {
			return err
		}
	}
	return nil
}

// WithoutToken is the journal's redaction of an answer's token.
var WithoutToken = withoutToken
