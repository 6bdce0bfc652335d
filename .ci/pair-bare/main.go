// Command pair-bare is the ceiling .ci/pair measures the sandbox against: the smallest
// reasonable net/http server doing the benchmark's transport work. It drains the
// request body and answers a fixed JSON body (the bytes the sandbox itself answered),
// with no authentication, validation or state. Standard library only.
//
// -busy gives each request that much CPU work first, to see a server as slow as the
// sandbox with nothing else of the sandbox's; -pprof serves net/http/pprof there.
package main

import (
	"flag"
	"io"
	"log"
	"net/http"
	"net/http/pprof"
	"os"
	"strconv"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	bodyFile := flag.String("body", "", "file holding the JSON to answer")
	busy := flag.Duration("busy", 0, "CPU work per request before answering")
	pprofAddr := flag.String("pprof", "", "serve net/http/pprof on this address")
	flag.Parse()
	if *pprofAddr != "" {
		go servePprof(*pprofAddr)
	}
	body, err := os.ReadFile(*bodyFile)
	if err != nil {
		log.Fatalf("pair-bare: %v", err)
	}
	length := strconv.Itoa(len(body))
	mux := http.NewServeMux()
	mux.HandleFunc("POST /transactions/{id}/adjustment", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		for start := time.Now(); time.Since(start) < *busy; {
		}
		h := w.Header()
		h["Content-Type"] = []string{"application/json"}
		h["Content-Length"] = []string{length}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	})
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	log.Fatal(http.ListenAndServe(*addr, mux))
}

func servePprof(addr string) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	log.Fatal(http.ListenAndServe(addr, mux))
}
