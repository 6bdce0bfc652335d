package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox/notify"
)

// hangBound is how long the binary may take to exit after SIGTERM with nothing in
// flight before the test calls it hung: half the wait of the notification retry left
// pending, so a process that waited for it fails, while a loaded machine does not.
// How promptly it exits is BenchmarkSigtermWhenIdle's measure, not a test's.
const hangBound = notify.FirstRetry / 2

// SIGTERM with nothing in flight: the process exits at once, whatever runs in the
// background (the scenario watcher, a notification waiting for its retry, the store's
// sync) and with an idle keep-alive connection open.
func TestSigtermWhenIdleExitsPromptly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenarios := filepath.Join(dir, "scenarios")
	if err := os.Mkdir(scenarios, 0o755); err != nil {
		t.Fatal(err)
	}
	mustWriteFile(t, filepath.Join(scenarios, "quiet.yaml"), []byte("version: 1\nname: quiet\nrules:\n  - when: {operation: order}\n    then: pass\n"))
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
			proc, base := testrun.Serve(t, bin, tc.args...)
			tok := mustIssueToken(t, base) // leaves an idle keep-alive connection
			status, m, err := postJSON(http.DefaultClient, base+"/merchants/MER_00000000000000000000000000000001/orders", tok, "",
				`{"notifications":{"status_url":"`+failing.URL+`/hook"}}`)
			if err != nil || status != 200 {
				t.Fatalf("order: %d %v %v", status, m, err)
			}
			time.Sleep(100 * time.Millisecond) // the first attempt fails; the retry waits
			start := time.Now()
			if err := proc.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if err := proc.Wait(); err != nil {
				t.Errorf("exit after SIGTERM: %v", err)
			}
			took := time.Since(start)
			t.Logf("exit %v after SIGTERM", took)
			if took > hangBound {
				t.Errorf("exit took %v after SIGTERM with nothing in flight: it waited for something (the pending retry?)", took)
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
