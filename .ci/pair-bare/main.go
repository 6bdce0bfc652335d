// Command pair-bare is the ceiling .ci/pair measures the sandbox against: the smallest
// reasonable net/http server doing the benchmark's transport work. It drains the
// request body and answers a fixed JSON body (the bytes the sandbox itself answered),
// with no authentication, validation or state.
//
// -busy gives each request that much CPU work first, to see a server as slow as the
// sandbox with nothing else of the sandbox's; -pprof serves net/http/pprof there.
//
// -record gives each request the least durable bookkeeping an idempotent server can
// do, and nothing else: it records the request's X-GP-Idempotency key, with a
// 64-byte value, before answering. Its floor for the sandbox's own store (.ci/ceiling):
//
//	-record append:FILE  one write(2) of the record to FILE, appended, no index
//	-record buntdb:FILE  one buntdb Update setting the key with a TTL (24 hours; the
//	                     sandbox keeps its keys 48); buntdb's own file compaction is off,
//	                     as the sandbox compacts by its own rule (sandbox/README.md)
//	-record buntdb:      the same buntdb Update, in memory only (no file)
//	-record chunks:FILE  one buntdb Update per key too, laid out as the sandbox keeps
//	                     keys: appended 8 to an item (so a key rewrites the newest
//	                     item), the file fsynced once a second beside the writer
//	                     rather than under buntdb's lock
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/pprof"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/buntdb"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	bodyFile := flag.String("body", "", "file holding the JSON to answer")
	busy := flag.Duration("busy", 0, "CPU work per request before answering")
	record := flag.String("record", "", "record each request's idempotency key: append:FILE, buntdb:FILE, buntdb: (in memory) or chunks:FILE")
	pprofAddr := flag.String("pprof", "", "serve net/http/pprof on this address")
	flag.Parse()
	if *pprofAddr != "" {
		go servePprof(*pprofAddr)
	}
	body, err := os.ReadFile(*bodyFile)
	if err != nil {
		log.Fatalf("pair-bare: %v", err)
	}
	recordKey, err := openRecorder(*record)
	if err != nil {
		log.Fatalf("pair-bare: -record: %v", err)
	}
	length := strconv.Itoa(len(body))
	mux := http.NewServeMux()
	mux.HandleFunc("POST /transactions/{id}/adjustment", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		for start := time.Now(); time.Since(start) < *busy; {
		}
		if recordKey != nil {
			if err := recordKey(r.Header.Get("X-Gp-Idempotency")); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
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

// recordValue stands for what a key's record holds (the sandbox's compact record
// of a key is of this order: its app, its request's fingerprint, its answer's place).
var recordValue = strings.Repeat("r", 64)

// openRecorder returns the function that records a key durably, nil for "".
func openRecorder(spec string) (func(key string) error, error) {
	kind, path, _ := strings.Cut(spec, ":")
	switch kind {
	case "":
		return nil, nil
	case "append":
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|os.O_EXCL, 0o600)
		if err != nil {
			return nil, err
		}
		return func(key string) error {
			_, err := f.Write([]byte(key + " " + recordValue + "\n"))
			return err
		}, nil
	case "buntdb", "chunks":
		if path == "" && kind == "chunks" {
			return nil, fmt.Errorf("%q: chunks needs a FILE (its fsync runs by path)", spec)
		}
		if path == "" {
			path = ":memory:"
		}
		db, err := openBuntdb(path, kind == "chunks")
		if err != nil {
			return nil, err
		}
		if kind == "chunks" {
			return chunkRecorder(db), nil
		}
		return func(key string) error {
			return db.Update(func(tx *buntdb.Tx) error {
				_, _, err := tx.Set("idem:"+key, recordValue, keepKey)
				return err
			})
		}, nil
	}
	return nil, fmt.Errorf("%q: want append:FILE, buntdb:FILE, buntdb: or chunks:FILE", spec)
}

// keepKey is the time to live of a key's record: GP's 24-hour window. The sandbox
// keeps a key twice as long; a TTL's length costs buntdb nothing more.
var keepKey = &buntdb.SetOptions{Expires: true, TTL: 24 * time.Hour}

// openBuntdb opens path with buntdb's own compaction off; syncBeside moves its
// once-a-second fsync out of its lock, to a goroutine that fsyncs the file by path.
func openBuntdb(path string, syncBeside bool) (*buntdb.DB, error) {
	db, err := buntdb.Open(path)
	if err != nil {
		return nil, err
	}
	var cfg buntdb.Config
	if err := db.ReadConfig(&cfg); err != nil {
		return nil, err
	}
	cfg.AutoShrinkDisabled = true
	if syncBeside {
		cfg.SyncPolicy = buntdb.Never
		go func() {
			for range time.Tick(time.Second) {
				if f, err := os.Open(path); err == nil {
					_ = f.Sync()
					_ = f.Close()
				}
			}
		}()
	}
	return db, db.SetConfig(cfg)
}

// chunkRecorder appends each key's record to the newest item, 8 records to an item.
func chunkRecorder(db *buntdb.DB) func(key string) error {
	var n int
	var chunk []byte
	return func(key string) error {
		return db.Update(func(tx *buntdb.Tx) error {
			held := chunk
			if n%8 == 0 {
				held = held[:0]
			}
			held = append(append(held, key...), recordValue...)
			if _, _, err := tx.Set("idemlog:"+strconv.Itoa(n/8), string(held), keepKey); err != nil {
				return err // the item keeps what it held; so does chunk
			}
			chunk, n = held, n+1
			return nil
		})
	}
}

func servePprof(addr string) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	log.Fatal(http.ListenAndServe(addr, mux))
}
