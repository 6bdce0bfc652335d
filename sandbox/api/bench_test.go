package api_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// benchConns is the number of concurrent client connections of the benchmarks.
const benchConns = 64

// BenchmarkAdjustment measures the adjustment endpoint over real loopback HTTP with a
// file-backed store, an idempotency key on every request and parallel clients.
func BenchmarkAdjustment(b *testing.B) {
	env := mustSandboxAt(b, filepath.Join(b.TempDir(), "bench.db"))
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	url := env.URL + "/transactions/" + apitest.CapturedOne + "/adjustment"
	client := benchClient()
	var seq atomic.Uint64
	b.SetParallelism(benchConns / 2) // 32 x GOMAXPROCS(2) clients
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			mustSend(b, client, adjustmentRequest(url, tok, seq.Add(1)))
		}
	})
}

// BenchmarkAdjustmentServer measures the sandbox's own work for one adjustment with
// a fresh idempotency key, without the network: the handler is called in-process, a
// request at a time, with a file-backed store and a text request log written as the
// binary writes it. Its ns/op (cpu-ns/op on a busy machine) and allocs/op are what
// the profile of a loaded server splits.
//
//	go test -run '^$' -bench AdjustmentServer -benchmem -cpuprofile cpu.out ./sandbox/api/
func BenchmarkAdjustmentServer(b *testing.B) {
	benchAdjustmentServer(b, filepath.Join(b.TempDir(), "bench.db"), nil)
}

// BenchmarkAdjustmentServerMemory is BenchmarkAdjustmentServer with an in-memory
// store: without the file's writes, its ns/op varies less with the machine's disk
// and load, which makes the HTTP layer's share easier to compare between changes.
func BenchmarkAdjustmentServerMemory(b *testing.B) {
	benchAdjustmentServer(b, "", nil)
}

// BenchmarkAdjustmentServerLarge is BenchmarkAdjustmentServer over a store of
// 60,000 transactions (benchListSize), the size at which the work a write does per
// transaction in the store shows.
func BenchmarkAdjustmentServerLarge(b *testing.B) {
	benchAdjustmentServer(b, filepath.Join(b.TempDir(), "bench.db"), seedTransactions(benchListSize))
}

func benchAdjustmentServer(b *testing.B, dbPath string, fixtures func(*sandbox.Fixtures)) {
	// The request log goes to a file, as the binary's stderr does when a test suite
	// or a load test keeps it.
	logFile, err := os.Create(filepath.Join(b.TempDir(), "log"))
	if err != nil {
		b.Fatal(err)
	}
	defer logFile.Close()
	env := mustSandboxWith(b, apitest.Options{
		DBPath:   dbPath,
		Fixtures: fixtures,
		Configure: []func(*app.Config){func(c *app.Config) {
			c.Logger = slog.New(slog.NewTextHandler(logFile, nil)) // as the binary logs by default
		}},
	})
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	url := env.URL + "/transactions/" + apitest.CapturedOne + "/adjustment"
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, ok := processCPU()
	for i := range b.N {
		w := httptest.NewRecorder()
		env.Handler.ServeHTTP(w, adjustmentRequest(url, tok, uint64(i)))
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	reportCPU(b, cpu0, ok)
}

// reportCPU reports the process's CPU time per op since cpu0, the collector's
// included: on a machine shared with other work it varies much less than ns/op,
// which counts the time the benchmark waited for a core.
func reportCPU(b *testing.B, cpu0 time.Duration, ok bool) {
	if cpu, ok1 := processCPU(); ok && ok1 {
		b.ReportMetric(float64(cpu-cpu0)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkVersusBaseline runs a minimal net/http handler that reads the body and
// writes a ~900-byte transaction JSON, then the sandbox's own endpoints doing their
// real work, all with the same client and 64 connections, and reports each one's
// throughput, p99 latency and ratio to the baseline.
//
//	go test -run '^$' -bench VersusBaseline -benchtime 20000x ./sandbox/api/
func BenchmarkVersusBaseline(b *testing.B) {
	rates := map[string]float64{}
	baseline := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(baselineBody)
	}))
	defer baseline.Close()
	run := func(name string, newRequest func(i uint64) *http.Request) {
		b.Run(name, func(b *testing.B) {
			rps, p99 := driveLoad(b, benchClient(), b.N, newRequest)
			b.ReportMetric(rps, "req/s")
			b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
			rates[name] = rps
		})
	}
	run("baseline", func(uint64) *http.Request {
		req, _ := http.NewRequest("POST", baseline.URL+"/transactions/x/adjustment", strings.NewReader(`{"gratuity_amount":"150"}`))
		return req
	})

	env := mustSandboxAt(b, filepath.Join(b.TempDir(), "bench.db"))
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	adjustURL := env.URL + "/transactions/" + apitest.CapturedOne + "/adjustment"
	run("adjustment", func(i uint64) *http.Request { return adjustmentRequest(adjustURL, tok, i) })
	run("accesstoken", func(uint64) *http.Request {
		req, _ := http.NewRequest("POST", env.URL+"/accesstoken", strings.NewReader(apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, "")))
		req.Header.Set("Content-Type", "application/json")
		return req
	})
	orderURL := env.URL + "/merchants/" + apitest.MerchantOne + "/orders"
	run("order", func(i uint64) *http.Request {
		req, _ := http.NewRequest("POST", orderURL, strings.NewReader(`{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":1}}]}`))
		apitest.SetAPIHeaders(req, tok, i)
		return req
	})
	if base := rates["baseline"]; base > 0 {
		for _, name := range []string{"adjustment", "accesstoken", "order"} {
			// Printed, not logged: benchmark logs show only with -v.
			fmt.Printf("%-11s %8.0f req/s = %.2f x baseline (%.0f req/s)\n", name, rates[name], rates[name]/base, base)
		}
	}
}

// baselineBody is a transaction JSON of about 900 bytes, the size the sandbox sends.
var baselineBody = []byte(`{"id":"TRN_CapturedSale000000000000000001","time_created":"2021-03-24T02:02:27.158Z","type":"SALE","status":"CAPTURED","amount":"1000","currency":"USD","country":"US","reference":"sandbox-sale-0001","payment_method":{"result":"00","message":"SUCCESS","card":{"authcode":"A36C21","brand_reference":"383224601004913"}},"order":{"taxes":[{"type":"STATE","amount":"80"}],"duty_amount":"0","shipping_amount":"500"},"batch_id":"BAT_1136475","action":{"id":"ACT_VrfAFR6aQ1mC6IMKOtaynKUrtPbEtU","type":"AUTHORIZE","time_created":"2026-11-22T02:21:53.426Z","result_code":"SUCCESS","app_id":"SandboxPartnerAppId0000000000001","app_name":"sandbox_partner"},"x":"` + strings.Repeat("0", 270) + `"}`)

// driveLoad sends n requests over benchConns concurrent connections and returns the
// throughput and the 99th-percentile latency.
func driveLoad(b *testing.B, client *http.Client, n int, newRequest func(i uint64) *http.Request) (float64, time.Duration) {
	var next atomic.Uint64
	latencies := make([]time.Duration, n)
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for w := 0; w < benchConns; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > uint64(n) {
					return
				}
				t0 := time.Now()
				mustSend(b, client, newRequest(i))
				latencies[i-1] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	return float64(n) / elapsed.Seconds(), latencies[(len(latencies)*99)/100]
}

func benchClient() *http.Client {
	// No gzip: the baseline does not compress, so neither may the sandbox here.
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchConns, MaxConnsPerHost: benchConns, DisableCompression: true}}
}

func adjustmentRequest(url, tok string, i uint64) *http.Request {
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"gratuity_amount":"150"}`))
	apitest.SetAPIHeaders(req, tok, i)
	return req
}

func mustSend(b *testing.B, client *http.Client, req *http.Request) {
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		b.Fatalf("%s: status %d", req.URL.Path, resp.StatusCode)
	}
}

// BenchmarkOrderNotifiedServerMemory places orders with a status_url in-process, as
// BenchmarkAdjustmentServerMemory sends adjustments, and lets the notification worker
// deliver each one to a loopback listener; the run ends once every notification has
// arrived, so ns/op holds the order and its delivery. At most benchConns notifications
// are outstanding at a time, as with that many clients each waiting for its own.
//
//	go test -run '^$' -bench OrderNotifiedServer -benchmem -cpuprofile cpu.out ./sandbox/api/
func BenchmarkOrderNotifiedServerMemory(b *testing.B) {
	var received atomic.Int64
	listener := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		received.Add(1)
	}))
	defer listener.Close()
	env := mustSandboxWith(b, apitest.Options{Configure: []func(*app.Config){func(c *app.Config) {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}}})
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	url := env.URL + "/merchants/" + apitest.MerchantOne + "/orders"
	body := `{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":1}}],"notifications":{"status_url":"` + listener.URL + `/status"}}`
	start := received.Load()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		apitest.SetAPIHeaders(req, tok, uint64(i))
		w := httptest.NewRecorder()
		env.Handler.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
		mustAwaitNotifications(b, &received, start+int64(i+1-benchConns))
	}
	mustAwaitNotifications(b, &received, start+int64(b.N))
}

// mustAwaitNotifications waits until received reaches want. The sandbox clock stands
// still in benchmarks, so a failed delivery is never retried: it fails the benchmark.
func mustAwaitNotifications(b *testing.B, received *atomic.Int64, want int64) {
	b.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for received.Load() < want {
		if time.Now().After(deadline) {
			b.Fatalf("%d notifications received, want %d", received.Load(), want)
		}
		time.Sleep(20 * time.Microsecond)
	}
}

// BenchmarkOperationServerMemory sends, in-process as BenchmarkAdjustmentServerMemory
// does, each of the other requests of a mixed workload: an access token, a FOR_REVIEW
// order, a card-present sale with a key, and a read of a transaction.
//
//	go test -run '^$' -bench OperationServer/sale -benchmem -cpuprofile cpu.out ./sandbox/api/
func BenchmarkOperationServerMemory(b *testing.B) {
	env := mustSandboxWith(b, apitest.Options{Configure: []func(*app.Config){func(c *app.Config) {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}}})
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	sale := `{"account_name":"transaction_processing","channel":"CP","type":"SALE","capture_mode":"AUTO",` +
		`"amount":"1000","currency":"USD","country":"US","reference":"load","payment_method":{"entry_mode":"SWIPE",` +
		`"card":{"track":"%B4012002000060016^VI TEST CREDIT^251210118039000000000396?;4012002000060016=25121011803939600000?","funding":"CREDIT"}}}`
	for _, op := range []struct {
		name, method, path, body string
		authenticated            bool
	}{
		{"accesstoken", "POST", "/accesstoken", apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, ""), false},
		{"order-review", "POST", "/merchants/" + apitest.MerchantOne + "/orders", `{"status":"FOR_REVIEW","products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":2}}]}`, true},
		{"sale", "POST", "/transactions", sale, true},
		{"get", "GET", "/transactions/" + apitest.CapturedOne, "", true},
	} {
		b.Run(op.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := range b.N {
				req, _ := http.NewRequest(op.method, env.URL+op.path, strings.NewReader(op.body))
				req.Header.Set("Content-Type", "application/json")
				if op.authenticated {
					apitest.SetAPIHeaders(req, tok, uint64(i))
				}
				w := httptest.NewRecorder()
				env.Handler.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}
