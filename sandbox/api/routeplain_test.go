package api

import (
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gorilla/mux"
)

// mustServerRoutes returns the route table a server with pprof builds, compiled.
func mustServerRoutes(t testing.TB) *routeTable {
	t.Helper()
	s := &Server{operations: map[string]bool{}}
	table := s.routes()
	s.debugRoutes(table)
	table.compile()
	return table
}

// mustMatchLikeMux fails unless the plain routes answer a request as mux does: the
// same route with the same variables when they take it, and no full match from mux
// when they do not (mux then answers 404 or 405 itself).
func mustMatchLikeMux(t *testing.T, table *routeTable, method, rawPath string) {
	t.Helper()
	u, err := url.Parse(rawPath)
	if err != nil || u.Path == "" && u.RawPath == "" || u.Host != "" || u.Scheme != "" || u.RawQuery != "" {
		return // not a path the server would route
	}
	path := u.EscapedPath()
	seg := firstSegment(path)
	routes, plain := table.plain[seg]
	if !plain {
		return
	}
	router, ok := table.bySegment[seg]
	if !ok {
		t.Fatalf("segment %q: plain routes but no router", seg)
	}
	var want mux.RouteMatch
	router.Match(&http.Request{Method: method, URL: u}, &want)
	muxMatched := want.Route != nil && want.MatchErr == nil
	got, vars, ok := matchPlain(routes, method, path)
	switch {
	case ok && !muxMatched:
		tpl, _ := got.GetPathTemplate()
		t.Errorf("%s %s: plain route %s takes it, mux does not (%v)", method, path, tpl, want.MatchErr)
	case !ok && muxMatched:
		tpl, _ := want.Route.GetPathTemplate()
		t.Errorf("%s %s: mux matches %s, no plain route does", method, path, tpl)
	case ok && (got != want.Route || !maps.Equal(vars, want.Vars)):
		gotTpl, _ := got.GetPathTemplate()
		wantTpl, _ := want.Route.GetPathTemplate()
		t.Errorf("%s %s: plain %s %v, mux %s %v", method, path, gotTpl, vars, wantTpl, want.Vars)
	}
}

// The hot paths must stay plain, or every request goes back to mux's regexps.
func TestPlainRoutesCoverTheAPI(t *testing.T) {
	table := mustServerRoutes(t)
	for _, seg := range []string{"accesstoken", "transactions", "merchants", "verifications", "batches"} {
		if _, ok := table.plain[seg]; !ok {
			t.Errorf("segment %q: not plain", seg)
		}
	}
	if _, ok := table.plain["_sandbox"]; ok {
		t.Error(`segment "_sandbox" has path prefixes: it must be left to mux`)
	}
}

var routeMethods = []string{"GET", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS", "get", "Post", ""}

var routeValues = []string{"X", "TRN_1", "MER_7e3e2c7d", "a%2Fb", "%41", "a.b", "a+b", "%", "{id}", "..", " ", "\x00", "é"}

// pathsFrom returns paths built from a template, every variable set to each value,
// and their variants.
func pathsFrom(template string) []string {
	var paths []string
	for _, v := range routeValues {
		var p strings.Builder
		for seg := range strings.SplitSeq(template, "/") {
			if strings.HasPrefix(seg, "{") {
				seg = v
			}
			p.WriteString(seg + "/")
		}
		paths = append(paths, pathVariants(strings.TrimSuffix(p.String(), "/"))...)
	}
	return paths
}

// pathVariants returns p, and p with a trailing slash, a segment less, a segment more,
// doubled slashes and its letters in upper case.
func pathVariants(p string) []string {
	last := strings.LastIndex(p, "/")
	return []string{p, p + "/", p + "/x", strings.ReplaceAll(p, "/", "//"), strings.ToUpper(p),
		strings.TrimSuffix(p, "/"), p[:last+1], p[:max(last, 0)]}
}
func TestPlainRoutesMatchLikeMux(t *testing.T) {
	table := mustServerRoutes(t)
	var templates []string
	table.walk(func(r *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		tpl, err := r.GetPathTemplate()
		if err == nil {
			templates = append(templates, tpl)
		}
		return nil
	})
	for _, tpl := range templates {
		for _, path := range pathsFrom(tpl) {
			for _, method := range routeMethods {
				mustMatchLikeMux(t, table, method, path)
			}
		}
	}
	for _, path := range []string{"/", "", "//", "/transactions", "/transactions/", "/merchants//orders",
		"/merchants/M/transactions//adjustment", "/batches/", "/batches//", "/accesstoken/"} {
		for _, method := range routeMethods {
			mustMatchLikeMux(t, table, method, path)
		}
	}
}

// Random paths made of the templates' own segments and of odd values.
func TestPlainRoutesMatchLikeMuxRandom(t *testing.T) {
	table := mustServerRoutes(t)
	pieces := append([]string{"", "transactions", "merchants", "adjustment", "orders", "batches", "capture",
		"refund", "reversal", "verifications", "accesstoken", "incremental", "reauthorization"}, routeValues...)
	rng := rand.New(rand.NewPCG(7, 13))
	for range 50000 {
		var b strings.Builder
		for range 1 + rng.IntN(6) {
			b.WriteString("/" + pieces[rng.IntN(len(pieces))])
		}
		mustMatchLikeMux(t, table, routeMethods[rng.IntN(len(routeMethods))], b.String())
	}
}

// A route whose template has a pattern of its own, a prefix or no method list is left
// to mux.
func TestNewPlainRouteRefusesWhatMuxMatchesOtherwise(t *testing.T) {
	r := mux.NewRouter()
	h := http.NotFoundHandler()
	refused := map[string]*mux.Route{
		"a pattern":     r.Handle("/transactions/{id:[0-9]+}", h).Methods("GET"),
		"a prefix":      r.PathPrefix("/transactions/").Handler(h).Methods("GET"),
		"no methods":    r.Handle("/transactions/{id}", h),
		"a query":       r.Handle("/transactions", h).Methods("GET").Queries("a", "b"),
		"a host":        r.Handle("/transactions", h).Methods("GET").Host("example.com"),
		"a strict path": mux.NewRouter().StrictSlash(true).Handle("/transactions/", h).Methods("GET"),
	}
	for name, route := range refused {
		if _, ok := newPlainRoute(route); ok {
			t.Errorf("%s: taken as plain", name)
		}
	}
	if _, ok := newPlainRoute(r.Handle("/transactions/{id}/capture", h).Methods("POST")); !ok {
		t.Error("a plain route refused")
	}
}

// BenchmarkRouteMatch matches an adjustment's path with the plain routes and with
// mux alone.
//
//	go test -run '^$' -bench RouteMatch -benchmem ./sandbox/api/
func BenchmarkRouteMatch(b *testing.B) {
	compiled := mustServerRoutes(b)
	muxOnly := *compiled
	muxOnly.plain = nil
	req, _ := http.NewRequest("POST", "/transactions/TRN_CapturedSale000000000000000001/adjustment", nil)
	for name, table := range map[string]*routeTable{"plain": compiled, "mux": &muxOnly} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, vars := table.match(req); vars["id"] == "" {
					b.Fatal("no id")
				}
			}
		})
	}
}
