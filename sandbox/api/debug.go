package api

import (
	"net/http"
	"net/http/pprof"
)

// debugRoutes mounts the runtime profiles of net/http/pprof under
// /_sandbox/debug/pprof/ (CPU, heap, goroutines, ...), behind the admin token like
// every admin call, so that a sandbox under load can be profiled where it runs:
//
//	go tool pprof http://127.0.0.1:8080/_sandbox/debug/pprof/profile?seconds=20
func (s *Server) debugRoutes(r *routeTable) {
	profiles := http.NewServeMux()
	profiles.HandleFunc("/debug/pprof/", pprof.Index) // named profiles: heap, goroutine, allocs...
	profiles.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	profiles.HandleFunc("/debug/pprof/profile", pprof.Profile)
	profiles.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	profiles.HandleFunc("/debug/pprof/trace", pprof.Trace)
	r.PathPrefix("/_sandbox/debug/pprof/").Handler(s.adminOnly(http.StripPrefix("/_sandbox", profiles)))
}
