package main

import (
	"fmt"
	"io"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// report is what a run measured.
type report struct {
	mu        sync.Mutex
	latencies []time.Duration
	outcomes  map[string]int // "op status error_code [scripted]"
	errors    int            // unscripted errors and transport failures
	reauths   int

	notifications atomic.Int64
	resets        atomic.Int64
	resetFailures atomic.Int64

	elapsed    time.Duration
	start, end sample
}

func (r *report) record(op string, a answer, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.latencies = append(r.latencies, d)
	key := fmt.Sprintf("%-12s %d %s", op, a.status, a.code)
	if a.scripted {
		key += " (scripted)"
	}
	r.outcomes[key]++
	if a.reauth {
		r.reauths++
	}
	if a.status != 200 && !a.scripted {
		r.errors++
	}
}

func (r *report) unscripted() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.errors + int(r.resetFailures.Load())
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
	fmt.Fprintf(w, "requests    %d in %v with %d connections\n", n, r.elapsed.Round(time.Millisecond), o.conns)
	fmt.Fprintf(w, "throughput  %.0f req/s\n", float64(n)/r.elapsed.Seconds())
	fmt.Fprintf(w, "latency     p50 %v  p99 %v  max %v\n", pct(50), pct(99), pct(100))
	fmt.Fprintf(w, "server      start: %s\n            end:   %s\n", r.start, r.end)
	if o.notify {
		fmt.Fprintf(w, "notifications received %d\n", r.notifications.Load())
	}
	if o.resetEvery > 0 {
		fmt.Fprintf(w, "resets      %d (%d failed); re-authentications %d\n", r.resets.Load(), r.resetFailures.Load(), r.reauths)
	}
	fmt.Fprintf(w, "unscripted errors %d\n", r.unscripted())
	keys := make([]string, 0, len(r.outcomes))
	for k := range r.outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintln(w, "answers (operation status error_code):")
	for _, k := range keys {
		fmt.Fprintf(w, "  %-56s %d\n", k, r.outcomes[k])
	}
}
