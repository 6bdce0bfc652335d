// Command pair-bare is the ceiling .ci/pair measures the sandbox against: the smallest
// reasonable net/http server doing the benchmark's transport work. It drains the
// request body and answers a fixed JSON body (the bytes the sandbox itself answered),
// with no authentication, validation or state.
package main

import (
	"flag"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	bodyFile := flag.String("body", "", "file holding the JSON to answer")
	flag.Parse()
	body, err := os.ReadFile(*bodyFile)
	if err != nil {
		log.Fatalf("pair-bare: %v", err)
	}
	length := strconv.Itoa(len(body))
	mux := http.NewServeMux()
	mux.HandleFunc("POST /transactions/{id}/adjustment", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", length)
		_, _ = w.Write(body)
	})
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	log.Fatal(http.ListenAndServe(*addr, mux))
}
