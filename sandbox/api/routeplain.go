package api

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gorilla/mux"
)

// A plainRoute is a route that mux would match with a regexp but that needs none: its
// template is literal segments and {name} variables with mux's default pattern
// ([^/]+), and its only other matcher is a list of methods. It is matched here segment
// by segment, without a regexp: mux's regexp matching was a tenth of the CPU of an
// adjustment.
//
// Its answer is mux's: a segment's plain routes are only used when every route of
// the segment is plain (newPlainRoute checks each one's regexp against the one
// mux built), they are tried in mux's order, and only a full match (path and method)
// is taken from them. Everything else (404, 405, the segments with a path prefix) is
// still mux's to decide.
type plainRoute struct {
	segments []string // the template's segments after its leading slash
	names    []string // the variable name of each segment, "" for a literal one
	methods  []string
	route    *mux.Route
}

// newPlainRoute returns the plain form of route, or false when the route is not plain.
func newPlainRoute(route *mux.Route) (plainRoute, bool) {
	template, err := route.GetPathTemplate()
	if err != nil || !strings.HasPrefix(template, "/") {
		return plainRoute{}, false
	}
	methods, err := route.GetMethods()
	if err != nil || len(methods) == 0 {
		return plainRoute{}, false
	}
	if _, err := route.GetHostTemplate(); err == nil {
		return plainRoute{}, false
	}
	if queries, err := route.GetQueriesTemplates(); err == nil && len(queries) > 0 {
		return plainRoute{}, false
	}
	p := plainRoute{methods: methods, route: route}
	for seg := range strings.SplitSeq(template[1:], "/") {
		name := ""
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			name = seg[1 : len(seg)-1]
			if name == "" || strings.ContainsAny(name, ":{}") {
				return plainRoute{}, false // a pattern of its own: mux's to match
			}
		} else if strings.ContainsAny(seg, "{}") {
			return plainRoute{}, false
		}
		p.segments = append(p.segments, seg)
		p.names = append(p.names, name)
	}
	if got, err := route.GetPathRegexp(); err != nil || got != p.muxRegexp() || route.GetHandler() == nil {
		return plainRoute{}, false // mux would match it differently (a prefix, a strict slash)
	}
	return p, true
}

// muxRegexp is the regexp mux builds for the route's template when it is plain.
func (p plainRoute) muxRegexp() string {
	var b strings.Builder
	b.WriteString("^")
	vars := 0
	for i, seg := range p.segments {
		b.WriteString("/")
		if p.names[i] == "" {
			b.WriteString(regexp.QuoteMeta(seg))
			continue
		}
		b.WriteString("(?P<v" + strconv.Itoa(vars) + ">[^/]+)")
		vars++
	}
	b.WriteString("$")
	return b.String()
}

// match reports whether the route takes a request for method and escaped path, with
// its variables as mux would set them (taken from the escaped path).
func (p *plainRoute) match(method, path string) (map[string]string, bool) {
	if !slices.Contains(p.methods, method) || !p.takesPath(path) {
		return nil, false
	}
	vars := make(map[string]string, len(p.names))
	rest := path[1:]
	for _, name := range p.names {
		part, tail, _ := strings.Cut(rest, "/")
		if name != "" {
			vars[name] = part
		}
		rest = tail
	}
	return vars, true
}

// takesPath reports whether path matches the template, as mux's regexp would.
func (p *plainRoute) takesPath(path string) bool {
	if !strings.HasPrefix(path, "/") {
		return false
	}
	rest := path[1:]
	for i, seg := range p.segments {
		part, tail, more := strings.Cut(rest, "/")
		if last := i == len(p.segments)-1; more == last {
			return false // the path has more or fewer segments
		}
		if p.names[i] == "" && part != seg || p.names[i] != "" && part == "" {
			return false // a literal differs, or a variable is empty ([^/]+)
		}
		rest = tail
	}
	return true
}

// plainRoutesOf returns the plain forms of a router's routes, in mux's order, or
// false when one of them is not plain.
func plainRoutesOf(router *mux.Router) ([]plainRoute, bool) {
	var plain []plainRoute
	allPlain := true
	router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		p, ok := newPlainRoute(route)
		allPlain = allPlain && ok
		plain = append(plain, p)
		return nil
	})
	return plain, allPlain
}

// matchPlain is the first of routes that takes the request, in mux's order, and its
// variables.
func matchPlain(routes []plainRoute, method, path string) (*mux.Route, map[string]string, bool) {
	for i := range routes {
		if vars, ok := routes[i].match(method, path); ok {
			return routes[i].route, vars, true
		}
	}
	return nil, nil, false
}
