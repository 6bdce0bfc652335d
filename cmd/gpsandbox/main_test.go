package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/fixtures"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// TestRunEndToEnd starts the real program on port 0 and drives token → adjust →
// order over real HTTP, then shuts it down with its context as a signal would.
func TestRunEndToEnd(t *testing.T) {
	base, stop := mustRun(t, "--db", filepath.Join(t.TempDir(), "e2e.db"))
	defer stop()

	nonce := "e2e"
	status, body := post(t, base+"/ucp/accesstoken", "", `{"app_id":"SandboxPartnerAppId0000000000001","nonce":"`+nonce+
		`","secret":"`+sandbox.Secret(nonce, "SandboxAppKey001")+`","grant_type":"client_credentials"}`)
	if status != 200 {
		t.Fatalf("token: %d %v", status, body)
	}
	tok := body["token"].(string)
	status, body = post(t, base+"/ucp/transactions/TRN_CapturedSale000000000000000001/adjustment", tok, `{"gratuity_amount":"250"}`)
	if status != 200 || body["status"] != "CAPTURED" {
		t.Fatalf("adjust: %d %v", status, body)
	}
	status, body = post(t, base+"/ucp/merchants/MER_00000000000000000000000000000001/orders", tok, `{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP"}]}`)
	if status != 200 || body["status"] != "INITIATED" || !strings.HasPrefix(body["id"].(string), "ORD_") {
		t.Fatalf("order: %d %v", status, body)
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--log-format", "xml"},
		{"--max-body", "-1"},
		{"--no-such-flag"},
		{"--journal-size", "0"},
		{"--journal-size", "10000"}, // an entry count, as the flag once took
		{"--notify-attempts", "x"},
		{"--terminal-delay", "-1s"},
		{"--terminal-delay", "2"},
		{"--order-step", "-1h"},
		{"--order-step", "1"},
		{"--clock", "tomorrow"},
		{"--clock", "0000-12-31T23:59:59.999Z"},
		{"--clock", "9999-12-31T23:59:59.999-01:00"},
		{"--seed", "-3"},
		{"--duplicate-window", "-1m"},
		{"--duplicate-window", "25h"},
		{"--step-counters", "0"},
		{"--step-counters", "many"},
		{"--db", ""},
		{"--db", "  "},
		{"frobnicate"},
	} {
		err := run(context.Background(), args, func(string) string { return "" }, io.Discard, io.Discard)
		if err == nil || exitCode(err) != 2 {
			t.Errorf("%v: err %v, want a usage error", args, err)
		}
	}
}

func TestEnvironmentFallback(t *testing.T) {
	env := map[string]string{"GPSANDBOX_MAX_BODY": "2KiB", "GPSANDBOX_ADDR": "127.0.0.1:9999"}
	cfg, err := parseServeFlags(nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil || cfg.maxBody != 2048 || cfg.addr != "127.0.0.1:9999" {
		t.Errorf("cfg %+v err %v", cfg, err)
	}
	env = map[string]string{"GPSANDBOX_ADMIN_TOKEN": "adm", "GPSANDBOX_JOURNAL_SIZE": "5", "GPSANDBOX_NOTIFY_ATTEMPTS": "3",
		"GPSANDBOX_TERMINAL_DELAY": "0", "GPSANDBOX_ORDER_STEP": "1h", "GPSANDBOX_CLOCK": "2021-03-22T10:00:00.000Z", "GPSANDBOX_SEED": "7",
		"GPSANDBOX_SNAPSHOT": "before", "GPSANDBOX_DUPLICATE_WINDOW": "0", "GPSANDBOX_STEP_COUNTERS": "500"}
	cfg, err = parseServeFlags(nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil || cfg.adminToken != "adm" || cfg.snapshot != "before" || cfg.journalMiB != 5 || cfg.notifyAttempts != 3 || cfg.terminalDelay != 0 || cfg.orderStep != time.Hour ||
		!cfg.clock.Equal(time.Date(2021, 3, 22, 10, 0, 0, 0, time.UTC)) || !cfg.seeded || cfg.seed != 7 || cfg.stepCounters != 500 ||
		duplicateWindow(cfg.duplicateWin) >= 0 {
		t.Errorf("cfg %+v err %v", cfg, err)
	}
	cfg, err = parseServeFlags(nil, func(string) string { return "" }, io.Discard)
	if err != nil || cfg.journalMiB != 64 || cfg.notifyAttempts != 8 || cfg.terminalDelay != 2*time.Second || cfg.orderStep != 24*time.Hour || !cfg.clock.IsZero() || cfg.seeded ||
		duplicateWindow(cfg.duplicateWin) != 10*time.Minute || cfg.stepCounters != 10000 {
		t.Errorf("defaults %+v err %v", cfg, err)
	}
	cfg, err = parseServeFlags([]string{"--addr", ":1"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil || cfg.addr != ":1" {
		t.Errorf("flag should win over env: %+v %v", cfg, err)
	}
	cfg, err = parseServeFlags([]string{"--snapshot", "mine"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil || cfg.snapshot != "mine" {
		t.Errorf("--snapshot over GPSANDBOX_SNAPSHOT: %+v %v", cfg, err)
	}
}

// mustRun starts run on port 0 and returns its base URL once health answers ok.
func mustRun(t *testing.T, args ...string) (string, func()) {
	t.Helper()
	return mustRunWith(t, http.DefaultClient, args...)
}

// mustRunWith is mustRun polling health with client (one that trusts the sandbox's
// certificate, for --tls).
func mustRunWith(t *testing.T, client *http.Client, args ...string) (string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), func(string) string { return "" }, pw, io.Discard)
		pw.Close()
	}()
	base, err := testrun.BaseURL(pr)
	go io.Copy(io.Discard, pr)
	if err != nil {
		cancel()
		t.Fatalf("no listening line: %v (run: %v)", err, <-done)
	}
	testrun.WaitHealthy(t, client, base)
	return base, func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run returned %v after shutdown", err)
		}
	}
}

func post(t *testing.T, url, token, body string) (int, map[string]any) {
	t.Helper()
	status, m, err := postJSON(http.DefaultClient, url, token, "", body)
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return status, m
}

// postJSON sends a JSON POST (with API headers when token is set) and decodes the
// JSON object it answers.
func postJSON(client *http.Client, url, token, idempotencyKey, body string) (int, map[string]any, error) {
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("X-GP-Version", "2021-03-22")
	}
	if idempotencyKey != "" {
		req.Header.Set("X-GP-Idempotency", idempotencyKey)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		return resp.StatusCode, nil, fmt.Errorf("body not JSON: %w", err)
	}
	return resp.StatusCode, m, nil
}

// Fixture files are read into a new database (or with --reset) only: a restart over
// a seeded database starts without them, and --reset reads them again, problems
// and all.
func TestFixturesReadOnlyWhenSeeding(t *testing.T) {
	dir := t.TempDir()
	fixturesDir := filepath.Join(dir, "fixtures")
	if err := os.CopyFS(fixturesDir, fixtures.FS); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "seeded.db")
	_, stop := mustRun(t, "--db", db, "--fixtures", fixturesDir)
	stop()

	mustWriteFile(t, filepath.Join(fixturesDir, "broken.yaml"), []byte("apps:\n  - id: [not, a, string]\n"))
	base, stop := mustRun(t, "--db", db, "--fixtures", fixturesDir)
	tok := mustIssueToken(t, base) // the seeded apps are there
	stop()
	if tok == "" {
		t.Fatal("no token after restart")
	}

	err := run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--db", db, "--fixtures", fixturesDir, "--reset"},
		func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "broken.yaml:2:") {
		t.Errorf("--reset over broken fixtures: %v, want the problem with its position", err)
	}
}

// --pprof serves the runtime profiles behind the admin token; without it they are
// not there.
func TestPprofBehindAdminToken(t *testing.T) {
	base, stop := mustRun(t, "--db", ":memory:", "--pprof", "--admin-token", "adm1n")
	defer stop()
	get := func(token string) (int, string) {
		req, _ := http.NewRequest("GET", base+"/_sandbox/debug/pprof/goroutine?debug=1", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, _ := get(""); status != 401 {
		t.Errorf("without the admin token: %d", status)
	}
	if status, body := get("adm1n"); status != 200 || !strings.HasPrefix(body, "goroutine profile: total ") {
		t.Errorf("with the admin token: %d %.60s", status, body)
	}
	base2, stop2 := mustRun(t, "--db", ":memory:")
	defer stop2()
	if resp, err := http.Get(base2 + "/_sandbox/debug/pprof/goroutine"); err != nil || resp.StatusCode != 404 {
		t.Errorf("without --pprof: %v %v", resp, err)
	}
}
