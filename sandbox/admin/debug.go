package admin

import (
	"net/http"
	"net/http/pprof"
)

// profiles serves the runtime profiles of net/http/pprof (CPU, heap, goroutines,
// ...) under /debug/pprof/. routes mounts them under /_sandbox/debug/pprof/ behind
// the admin token like every admin call, so that a sandbox under load can be
// profiled where it runs:
//
//	go tool pprof http://127.0.0.1:8080/_sandbox/debug/pprof/profile?seconds=20
func profiles() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("/debug/pprof/", pprof.Index) // named profiles: heap, goroutine, allocs...
	m.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	m.HandleFunc("/debug/pprof/profile", pprof.Profile)
	m.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	m.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return m
}
