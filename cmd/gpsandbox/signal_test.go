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
)

// idleExitBound is how long the binary may take to exit after SIGTERM with nothing
// in flight. It is a correctness bound, generous for a loaded machine: a worker or
// watcher that noticed the signal only on its next tick (a second, or the 500 ms
// reload interval) would exceed it.
const idleExitBound = 500 * time.Millisecond

// SIGTERM with nothing in flight: the process exits at once, whatever runs in the
// background (the scenario watcher, a notification waiting for its retry, the store's
// sync) and with an idle keep-alive connection open.
func TestSigtermWhenIdleExitsPromptly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary; skipped with -short")
	}
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
			if took > idleExitBound {
				t.Errorf("exit took %v after SIGTERM with nothing in flight, want under %v", took, idleExitBound)
			}
		})
	}
}
