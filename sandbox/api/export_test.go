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

// ChecklistItem is an item of the coverage checklist, as the code states it.
type ChecklistItem struct{ ID, Group, Title, By, Source string }

// Checklist is the coverage checklist in its order: what the report names its items
// by, and what ADMIN.md lists.
func Checklist() []ChecklistItem {
	out := make([]ChecklistItem, 0, len(checklist))
	for _, it := range checklist {
		out = append(out, ChecklistItem{ID: it.ID, Group: it.Group, Title: it.Title, By: it.By, Source: it.Source})
	}
	return out
}
