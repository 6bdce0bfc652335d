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
	_ = h.(*Server).router.Walk(func(r *mux.Route, _ *mux.Router, _ []*mux.Route) error {
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

// WithoutToken is the journal's redaction of an answer's token.
var WithoutToken = withoutToken

// ChecklistRows are the coverage checklist's items as ADMIN.md's table rows.
func ChecklistRows() []string {
	out := make([]string, 0, len(checklist))
	for _, it := range checklist {
		out = append(out, "| `"+it.ID+"` | "+it.Title+" | "+it.By+" | "+it.Source+" |")
	}
	return out
}
