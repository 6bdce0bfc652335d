package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
)

// SIGTERM with nothing in flight: the process exits without waiting for what runs in
// the background (the scenario watcher, a notification waiting for its retry, the
// store's sync) or for an idle keep-alive connection. The sandbox clock is frozen,
// so the pending retry never falls due: a process that waited for it never exits.
// Nothing is timed; how promptly it exits is BenchmarkSigtermWhenIdle's measure.
func TestSigtermWhenIdleExitsPromptly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenarios := filepath.Join(dir, "scenarios")
	if err := os.Mkdir(scenarios, 0o755); err != nil {
		t.Fatal(err)
	}
	mustWriteFile(t, filepath.Join(scenarios, "quiet.yaml"), []byte("version: 1\nname: quiet\nrules:\n  - when: {operation: order}\n    then: pass\n"))
	var attempts atomic.Int32
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		attempts.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer failing.Close()

	bin := testrun.Build(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"memory", []string{"--db", ":memory:"}},
		{"file, watcher, pending retry", []string{"--db", filepath.Join(dir, "idle.db"), "--scenarios", scenarios}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proc, base := testrun.Serve(t, bin, append(tc.args, "--clock", "2021-03-22T10:00:00.000Z")...)
			tok := mustIssueToken(t, base) // leaves an idle keep-alive connection
			before := attempts.Load()
			status, m, err := postJSON(http.DefaultClient, base+"/merchants/MER_00000000000000000000000000000001/orders", tok, "",
				`{"notifications":{"status_url":"`+failing.URL+`/hook"}}`)
			if err != nil || status != 200 {
				t.Fatalf("order: %d %v %v", status, m, err)
			}
			testrun.WaitFor(t, "the notification's first attempt", func() bool { return attempts.Load() > before })
			if err := proc.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- proc.Wait() }()
			if err := testrun.Receive(t, "the exit after SIGTERM (a process waiting for the pending retry, which never falls due, never exits)", exited); err != nil {
				t.Errorf("exit after SIGTERM: %v", err)
			}
		})
	}
}

// BenchmarkSigtermWhenIdle measures how long an idle sandbox takes to exit after
// SIGTERM, with a keep-alive connection open: a background worker that noticed the
// signal only at its next tick (the store's sync each second, the scenario
// watcher's 500 ms) shows here.
func BenchmarkSigtermWhenIdle(b *testing.B) {
	bin := testrun.Build(b)
	var total time.Duration
	for b.Loop() {
		proc, _ := testrun.Serve(b, bin, "--db", ":memory:")
		start := time.Now()
		if err := proc.Process.Signal(syscall.SIGTERM); err != nil {
			b.Fatal(err)
		}
		if err := proc.Wait(); err != nil {
			b.Fatalf("exit after SIGTERM: %v", err)
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "exit-ms")
}
