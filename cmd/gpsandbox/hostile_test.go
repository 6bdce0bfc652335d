package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
)

// These tests run the real binary and treat it the way a hostile or broken client
// would. They are part of the normal suite; skipped with -short.

// Slow headers (slowloris) and slow bodies are cut off by the read timeouts, long
// before their whole drip is sent, and the sandbox goes on serving everyone else
// meanwhile: a normal client is answered while both are still connected. Nothing is
// timed: each check is an order of events.
func TestSlowClientsAreCutOff(t *testing.T) {
	t.Parallel()
	_, base := testrun.Serve(t, testrun.Build(t), "--db", ":memory:",
		"--read-header-timeout", "3s", "--read-timeout", "4s")
	addr := strings.TrimPrefix(base, "http://")
	cases := map[string]struct {
		head string // sent at once
		drip string // then one byte every 200 ms: 10 s and more, past the timeouts
	}{
		"slow headers": {"POST /accesstoken HTTP/1.1\r\nHost: x\r\n", "X-Slow: " + strings.Repeat("a", 50)},
		"slow body":    {"POST /accesstoken HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n", strings.Repeat(" ", 100)},
	}
	var wg sync.WaitGroup
	var cutOff sync.Map // name: true once the sandbox closed the connection
	connected := make(chan struct{}, len(cases))
	for name, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				connected <- struct{}{}
				return
			}
			defer conn.Close()
			conn.Write([]byte(c.head))
			connected <- struct{}{}
			closed := make(chan struct{})
			go func() { io.Copy(io.Discard, conn); close(closed) }()
			for i := 0; i < len(c.drip); i++ {
				select {
				case <-closed:
					cutOff.Store(name, true)
					return
				case <-time.After(200 * time.Millisecond):
					conn.Write([]byte{c.drip[i]})
				}
			}
			t.Errorf("%s: the sandbox waited for the whole drip", name)
		}()
	}
	for range cases {
		<-connected
	}
	if resp, err := http.Get(base + "/_sandbox/health"); err != nil || resp.StatusCode != 200 {
		t.Errorf("health during the slow clients: %v %v", resp, err)
	}
	cutOff.Range(func(name, _ any) bool {
		t.Errorf("%s was cut off before a normal client was answered: the timeouts are too short for this check, or the sandbox waited on it", name)
		return true
	})
	wg.Wait()
}

// 10,000 idle connections neither exhaust the process nor slow the others, and the
// header timeout closes them.
func TestTenThousandIdleConnections(t *testing.T) {
	bin := testrun.Build(t)
	const idle = 10_000
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < idle+500 {
		t.Fatalf("this test needs %d file descriptors; the limit is %d (%v)", idle+500, lim.Cur, err)
	}
	proc, base := testrun.Serve(t, bin, "--db", ":memory:", "--read-header-timeout", "3s")
	addr := strings.TrimPrefix(base, "http://")
	conns := make([]net.Conn, 0, idle)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for len(conns) < idle {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", len(conns), err)
		}
		conns = append(conns, c)
	}
	// A token is still issued with every connection open (how fast is the benchmarks'
	// business, not a test's).
	if tok := mustIssueToken(t, base); tok == "" {
		t.Errorf("no token with %d idle connections open", idle)
	}
	t.Logf("server RSS with %d idle connections: %s", idle, rssOf(proc.Process.Pid))

	// Past the header timeout every idle connection is closed by the server. The
	// timeout counts from the accept, which can trail the dial on a busy machine: a
	// connection is called still open only when the test's time runs out. That the
	// flag's timeout is the one applied, TestSlowClientsAreCutOff shows by the order
	// of events, with no time of its own.
	deadline := testrun.Deadline(t)
	open := 0
	buf := make([]byte, 1)
	for _, c := range conns {
		c.SetReadDeadline(deadline)
		if _, err := c.Read(buf); err != nil && !isEOF(err) {
			open++ // timed out reading: still open
		}
	}
	if open > 0 {
		t.Errorf("%d of %d idle connections still open well after the header timeout", open, idle)
	}
}

// heldCount is how many requests the held scenario's rule has counted, as
// GET /_sandbox/scenario-state says.
func heldCount(t *testing.T, base string) int {
	resp, err := http.Get(base + "/_sandbox/scenario-state")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var state struct {
		Steps []struct{ Count int } `json:"steps"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&state); err != nil || len(state.Steps) > 1 {
		t.Fatalf("scenario state: %v %+v", err, state)
	}
	if len(state.Steps) == 0 {
		return 0
	}
	return state.Steps[0].Count
}

func isEOF(err error) bool {
	return err == io.EOF || strings.Contains(err.Error(), "connection reset")
}

func rssOf(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "unknown"
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmRSS:"))
		}
	}
	return "unknown"
}

// SIGTERM under load: every request the sandbox accepted before the signal is
// answered in full, and the process exits cleanly.
func TestSigtermFinishesInFlightRequests(t *testing.T) {
	t.Parallel()
	// The scenario holds each adjustment for a second, and counts it (as a sequence's
	// step) before holding it: the signal comes once the server says it holds all of
	// them. A client having written a request is not enough: one the server has not
	// yet accepted is dropped with its listener.
	dir := t.TempDir()
	mustWriteFile(t, filepath.Join(dir, "held.yaml"), []byte(`version: 1
name: held
rules:
  - when: {operation: adjustment}
    sequence:
      - then: {delay: 1s}
`))
	proc, base := testrun.Serve(t, testrun.Build(t), "--db", ":memory:", "--scenarios", dir, "--scenario", "held")
	tok := mustIssueToken(t, base)
	const inFlight = 20
	results := make(chan error, inFlight)
	client := &http.Client{Timeout: time.Until(testrun.Deadline(t))}
	for i := 0; i < inFlight; i++ {
		go func(i int) {
			status, m, err := postJSON(client,
				base+"/transactions/TRN_CapturedSale000000000000000001/adjustment", tok, fmt.Sprint("term-", i), `{"gratuity_amount":"5"}`)
			if err == nil && (status != 200 || m["status"] != "CAPTURED") {
				err = fmt.Errorf("status %d %v", status, m)
			}
			results <- err
		}(i)
	}
	testrun.WaitForValue(t, "the sandbox holding every request", func() int { return heldCount(t, base) },
		func(count int) bool { return count == inFlight })
	if err := proc.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < inFlight; i++ {
		if err := <-results; err != nil {
			t.Errorf("request accepted before SIGTERM: %v", err)
		}
	}
	if err := proc.Wait(); err != nil {
		t.Errorf("exit after SIGTERM: %v", err)
	}
	if _, err := http.Get(base + "/_sandbox/health"); err == nil {
		t.Error("still accepting connections after SIGTERM")
	}
}
