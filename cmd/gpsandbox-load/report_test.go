package main

import (
	"net/http"
	"net/http/httptest"
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
	for _, want := range []string{"latency     p50 2ms", "latency by 1h0m0s window", "0s-1h0m0s", "0 req  no requests", "1h0m0s-2h0m0s", "1 req  p50 2ms"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

// A refund's 404 for a sale a reset wiped is the sandbox being right, not an error;
// a 404 without a reset in between is one.
func TestRefundOfAWipedSaleIsNoError(t *testing.T) {
	r := &report{outcomes: map[string]int{}}
	r.record("refund", answer{status: 404, code: "RESOURCE_NOT_FOUND", reset: true}, time.Millisecond)
	if n := r.unscripted(); n != 0 {
		t.Errorf("%d unscripted errors for a refund of a wiped sale", n)
	}
	r.record("refund", answer{status: 404, code: "RESOURCE_NOT_FOUND"}, time.Millisecond)
	if n := r.unscripted(); n != 1 {
		t.Errorf("%d unscripted errors for a refund's 404 without a reset, want 1", n)
	}
}

// The mix remembers the sale it made for its refunds, forgets it at a reset, and
// tells a refund of a sale made before a reset from one made after.
func TestRefundsAcrossAReset(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/transactions":
			w.Write([]byte(`{"id":"TRN_1"}`))
		case "/transactions/TRN_1/refund":
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error_code":"RESOURCE_NOT_FOUND"}`))
		}
	}))
	defer srv.Close()
	c := &loadClient{client: srv.Client(), base: srv.URL}
	rep := &report{outcomes: map[string]int{}}
	c.once(op{name: "sale", path: "/transactions"}, 1, "")
	made := c.lastSale.Load()
	if made == nil || made.id != "TRN_1" {
		t.Fatalf("the sale was not remembered: %+v", made)
	}
	refund := op{name: "refund", path: "/transactions/TRN_1/refund", sale: made}
	if a := c.once(refund, 2, ""); a.status != http.StatusNotFound || a.reset {
		t.Errorf("a 404 with no reset in between: %+v, want an error", a)
	}
	c.reset(rep)
	if c.lastSale.Load() != nil {
		t.Error("the sale is still remembered after a reset")
	}
	if a := c.once(refund, 3, ""); !a.reset {
		t.Errorf("a refund of a sale made before the reset: %+v, want it told apart", a)
	}
}
