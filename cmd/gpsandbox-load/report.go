package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// report is what a run measured.
type report struct {
	mu sync.Mutex
	// windows holds the latencies by the window (of -window) in which each request
	// ended, so that a tail that comes and goes shows; all of them in one when
	// window is 0.
	window   time.Duration
	started  time.Time
	windows  [][]time.Duration
	outcomes map[string]int // "op status error_code [scripted]"
	errors   int            // unscripted errors and transport failures
	reauths  int

	notifications atomic.Int64
	resets        atomic.Int64
	resetFailures atomic.Int64

	elapsed    time.Duration
	start, end sample
}

func (r *report) record(op string, a answer, d time.Duration) {
	ended := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	i := 0
	if r.window > 0 {
		i = int(ended.Sub(r.started) / r.window)
	}
	for len(r.windows) <= i {
		r.windows = append(r.windows, nil)
	}
	r.windows[i] = append(r.windows[i], d)
	key := fmt.Sprintf("%-12s %d %s", op, a.status, a.code)
	switch {
	case a.scripted:
		key += " (scripted)"
	case a.reset:
		key += " (its sale wiped by a reset)"
	}
	r.outcomes[key]++
	if a.reauth {
		r.reauths++
	}
	if a.status != 200 && !a.scripted && !a.reset {
		r.errors++
	}
}

func (r *report) unscripted() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.errors + int(r.resetFailures.Load())
}

func (r *report) print(w io.Writer, o options) {
	all := slices.Concat(r.windows...)
	n := len(all)
	fmt.Fprintf(w, "requests    %d in %v with %d connections\n", n, r.elapsed.Round(time.Millisecond), o.conns)
	fmt.Fprintf(w, "throughput  %.0f req/s\n", float64(n)/r.elapsed.Seconds())
	fmt.Fprintf(w, "latency     %s\n", percentiles(all))
	if len(r.windows) > 1 {
		fmt.Fprintf(w, "latency by %v window (by when the request ended):\n", r.window)
		for i, lat := range r.windows {
			from := time.Duration(i) * r.window
			fmt.Fprintf(w, "  %6v-%-6v %8d req  %s\n", from, from+r.window, len(lat), percentiles(lat))
		}
	}
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

// percentiles sorts lat and describes it: p50, p99, p99.9 and max.
func percentiles(lat []time.Duration) string {
	if len(lat) == 0 {
		return "no requests"
	}
	slices.Sort(lat)
	at := func(perMille int) time.Duration { return lat[(len(lat)-1)*perMille/1000].Round(10 * time.Microsecond) }
	return fmt.Sprintf("p50 %v  p99 %v  p99.9 %v  max %v", at(500), at(990), at(999), at(1000))
}
