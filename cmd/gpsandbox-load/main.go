// Command gpsandbox-load drives a mixed workload against a running sandbox and reports
// throughput, latency percentiles, answers by status and error code, and the server's
// resident memory.
//
//	gpsandbox-load -url http://127.0.0.1:8080 -duration 30s -conns 64 -pid $(pgrep gpsandbox)
//
// The mix: access tokens, adjustments with and without idempotency keys, device orders
// (placed and FOR_REVIEW) and a share of scenario-driven requests, whose scripted
// errors are counted apart from unscripted ones.
package main

import (
	"context"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type options struct {
	url, appID, appKey, merchant, txn, scenario string
	conns                                       int
	duration                                    time.Duration
	pid                                         int
	scenarioShare                               float64
	mix                                         string
	requests                                    int64
}

func main() {
	var o options
	flag.StringVar(&o.url, "url", "http://127.0.0.1:8080", "sandbox base URL")
	flag.IntVar(&o.conns, "conns", 64, "concurrent connections")
	flag.DurationVar(&o.duration, "duration", 30*time.Second, "how long to run (bounded: at most 1h)")
	flag.IntVar(&o.pid, "pid", 0, "sandbox process id, to report its RSS (Linux)")
	flag.StringVar(&o.appID, "app", "SandboxPartnerAppId0000000000001", "app id")
	flag.StringVar(&o.appKey, "key", "SandboxAppKey001", "app key")
	flag.StringVar(&o.merchant, "merchant", "MER_00000000000000000000000000000001", "merchant for orders")
	flag.StringVar(&o.txn, "transaction", "TRN_CapturedSale000000000000000001", "transaction to adjust")
	flag.StringVar(&o.scenario, "scenario", "flaky-then-ok", "scenario named by the scenario share")
	flag.Float64Var(&o.scenarioShare, "scenario-share", 0.05, "share of requests sent with X-Sandbox-Scenario")
	flag.StringVar(&o.mix, "mix", "mixed", "workload: mixed, adjust (adjustments without keys) or adjust-key (each with a new key)")
	flag.Int64Var(&o.requests, "requests", 0, "stop after this many requests (0: run for -duration)")
	flag.Parse()
	if o.duration > time.Hour || o.conns < 1 || o.conns > 10000 || (o.mix != "mixed" && o.mix != "adjust" && o.mix != "adjust-key") {
		fmt.Fprintln(os.Stderr, "gpsandbox-load: -duration at most 1h, -conns 1..10000, -mix mixed|adjust|adjust-key")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := runLoad(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpsandbox-load:", err)
		os.Exit(1)
	}
	rep.print(os.Stdout, o)
}

// report is what a run measured.
type report struct {
	mu        sync.Mutex
	latencies []time.Duration
	outcomes  map[string]int // "op status error_code"
	elapsed   time.Duration
	rssBefore string
	rssAfter  string
	total     atomic.Int64
}

func (r *report) record(op string, status int, code string, d time.Duration) {
	r.total.Add(1)
	r.mu.Lock()
	r.latencies = append(r.latencies, d)
	r.outcomes[fmt.Sprintf("%-12s %d %s", op, status, code)]++
	r.mu.Unlock()
}

func runLoad(ctx context.Context, o options) (*report, error) {
	client := &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: o.conns, MaxConnsPerHost: o.conns, DisableCompression: true},
	}
	base := strings.TrimRight(o.url, "/")
	token, err := issueToken(client, base, o)
	if err != nil {
		return nil, fmt.Errorf("token: %w", err)
	}
	rep := &report{outcomes: map[string]int{}, rssBefore: rss(o.pid)}
	ctx, cancel := context.WithTimeout(ctx, o.duration)
	defer cancel()
	var seq atomic.Uint64
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < o.conns; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			for ctx.Err() == nil {
				n := seq.Add(1)
				if o.requests > 0 && int64(n) > o.requests {
					return
				}
				op, req := nextRequest(rng, base, token, o, n)
				t0 := time.Now()
				status, code := send(client, req)
				if ctx.Err() != nil && status == 0 {
					return // cut off by the end of the run, not an answer
				}
				rep.record(op, status, code, time.Since(t0))
			}
		}(w)
	}
	wg.Wait()
	rep.elapsed = time.Since(start)
	rep.rssAfter = rss(o.pid)
	return rep, nil
}

// nextRequest picks the next request of the mix: 10% tokens, 50% adjustments (half
// with idempotency keys), 15% placed orders, 15% FOR_REVIEW orders, and the scenario
// share taken out of the adjustments.
func nextRequest(rng *rand.Rand, base, token string, o options, n uint64) (string, *http.Request) {
	switch o.mix {
	case "adjust":
		return "adjust", apiRequest(base+"/transactions/"+o.txn+"/adjustment", token, n, `{"gratuity_amount":"150"}`, false)
	case "adjust-key":
		return "adjust-key", apiRequest(base+"/transactions/"+o.txn+"/adjustment", token, n, `{"gratuity_amount":"150"}`, true)
	}
	p := rng.Float64()
	switch {
	case p < 0.10:
		return "accesstoken", newRequest(base+"/accesstoken", "", tokenBody(o, fmt.Sprint("load-", n)))
	case p < 0.25:
		return "order", apiRequest(base+"/merchants/"+o.merchant+"/orders", token, n,
			`{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":1}}]}`, true)
	case p < 0.40:
		return "order-review", apiRequest(base+"/merchants/"+o.merchant+"/orders", token, n,
			`{"status":"FOR_REVIEW","products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":2}}]}`, false)
	case p < 0.40+o.scenarioShare:
		req := apiRequest(base+"/transactions/"+o.txn+"/adjustment", token, n, `{"gratuity_amount":"100"}`, false)
		req.Header.Set("X-Sandbox-Scenario", o.scenario)
		req.Header.Set("X-Sandbox-Session", fmt.Sprint("load-", n%16))
		return "scenario", req
	case p < 0.70:
		return "adjust-key", apiRequest(base+"/transactions/"+o.txn+"/adjustment", token, n, `{"gratuity_amount":"150"}`, true)
	default:
		return "adjust", apiRequest(base+"/transactions/"+o.txn+"/adjustment", token, n, `{"gratuity_amount":"150"}`, false)
	}
}

func tokenBody(o options, nonce string) string {
	sum := sha512.Sum512([]byte(nonce + o.appKey))
	return `{"app_id":"` + o.appID + `","nonce":"` + nonce + `","secret":"` + hex.EncodeToString(sum[:]) + `","grant_type":"client_credentials"}`
}

func newRequest(url, token, body string) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("X-GP-Version", "2021-03-22")
	}
	return req
}

func apiRequest(url, token string, n uint64, body string, withKey bool) *http.Request {
	req := newRequest(url, token, body)
	if withKey {
		req.Header.Set("X-GP-Idempotency", fmt.Sprintf("load-%d-%d", time.Now().UnixNano(), n))
	}
	return req
}

// send returns the status and, for an error, its error_code.
func send(client *http.Client, req *http.Request) (int, string) {
	resp, err := client.Do(req)
	if err != nil {
		return 0, "transport: " + err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK {
		return resp.StatusCode, ""
	}
	var e struct {
		Code string `json:"error_code"`
	}
	json.Unmarshal(body, &e)
	return resp.StatusCode, e.Code
}

func issueToken(client *http.Client, base string, o options) (string, error) {
	resp, err := client.Do(newRequest(base+"/accesstoken", "", tokenBody(o, "load")))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var t struct{ Token string }
	if err := json.NewDecoder(resp.Body).Decode(&t); err != nil || t.Token == "" {
		return "", fmt.Errorf("status %d, no token", resp.StatusCode)
	}
	return t.Token, nil
}

// rss reads VmRSS of pid from /proc; empty when unknown.
func rss(pid int) string {
	if pid == 0 {
		return ""
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return ""
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmRSS:"))
		}
	}
	return ""
}

func (r *report) print(w io.Writer, o options) {
	sort.Slice(r.latencies, func(i, j int) bool { return r.latencies[i] < r.latencies[j] })
	n := len(r.latencies)
	pct := func(p int) time.Duration {
		if n == 0 {
			return 0
		}
		return r.latencies[(n-1)*p/100]
	}
	fmt.Fprintf(w, "requests   %d in %v with %d connections\n", n, r.elapsed.Round(time.Millisecond), o.conns)
	fmt.Fprintf(w, "throughput %.0f req/s\n", float64(n)/r.elapsed.Seconds())
	fmt.Fprintf(w, "latency    p50 %v  p99 %v  max %v\n", pct(50), pct(99), pct(100))
	if r.rssBefore != "" {
		fmt.Fprintf(w, "server RSS %s before, %s after\n", r.rssBefore, r.rssAfter)
	}
	keys := make([]string, 0, len(r.outcomes))
	for k := range r.outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintln(w, "answers (operation status error_code):")
	for _, k := range keys {
		fmt.Fprintf(w, "  %-48s %d\n", k, r.outcomes[k])
	}
}
