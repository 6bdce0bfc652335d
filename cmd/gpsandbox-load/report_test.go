package main

import (
	"strings"
	"testing"
	"time"
)

func TestPercentiles(t *testing.T) {
	thousand := make([]time.Duration, 1000)
	for i := range thousand {
		thousand[len(thousand)-1-i] = time.Duration(i+1) * time.Millisecond // unsorted on purpose
	}
	for _, tc := range []struct {
		name string
		lat  []time.Duration
		want string
	}{
		{"none", nil, "no requests"},
		{"one", []time.Duration{3 * time.Millisecond}, "p50 3ms  p99 3ms  p99.9 3ms  max 3ms"},
		{"1..1000 ms", thousand, "p50 500ms  p99 990ms  p99.9 999ms  max 1s"},
	} {
		if got := percentiles(tc.lat); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// Each request lands in the window in which it ended, and the report prints one line
// per window.
func TestReportWindows(t *testing.T) {
	r := &report{outcomes: map[string]int{}, window: time.Hour, started: time.Now().Add(-90 * time.Minute)}
	r.record("token", answer{status: 200}, 2*time.Millisecond)
	if len(r.windows) != 2 || len(r.windows[0]) != 0 || len(r.windows[1]) != 1 {
		t.Fatalf("windows %v: want the request in the second hour", r.windows)
	}
	var out strings.Builder
	r.elapsed = 90 * time.Minute
	r.print(&out, options{conns: 1})
	for _, want := range []string{"latency by 1h0m0s window", "0s-1h0m0s", "0 req  no requests", "1h0m0s-2h0m0s", "1 req  p50 2ms"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}
