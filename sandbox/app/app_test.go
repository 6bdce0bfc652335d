package app_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/fixtures"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
)

func mustOpen(t *testing.T, cfg app.Config) *app.App {
	t.Helper()
	a, err := app.Open(cfg)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// mustCall sends a request to h and returns the status and body.
func mustCall(t *testing.T, base, method, path, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("X-GP-Version", "2021-03-22")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func mustToken(t *testing.T, base string) string {
	t.Helper()
	nonce := "app-test"
	status, body := mustCall(t, base, "POST", "/accesstoken", "", `{"app_id":"`+fixtures.DefaultAppID+`","nonce":"`+nonce+
		`","secret":"`+sandbox.Secret(nonce, fixtures.DefaultAppKey)+`","grant_type":"client_credentials"}`)
	if status != 200 {
		t.Fatalf("token: %d %s", status, body)
	}
	_, rest, _ := strings.Cut(body, `"token":"`)
	tok, _, _ := strings.Cut(rest, `"`)
	return tok
}

// Run serves until its context ends and then returns nil; Close may follow twice.
func TestRunServesUntilCancelled(t *testing.T) {
	a, err := app.Open(app.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, ln) }()
	base := "http://" + ln.Addr().String()
	if status, body := mustCall(t, base, "GET", "/_sandbox/health", "", ""); status != 200 || body != `{"status":"ok"}` {
		t.Errorf("health: %d %s", status, body)
	}
	cancel()
	if err := testrun.Receive(t, "Run to return after its context ended", done); err != nil {
		t.Errorf("Run returned %v after its context ended", err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
}

func TestOpenRefusesUnknownGlobalScenario(t *testing.T) {
	_, err := app.Open(app.Config{GlobalScenarios: []string{"no-such-scenario"}})
	var unknown *scenario.UnknownError
	if !errors.As(err, &unknown) || unknown.Name != "no-such-scenario" {
		t.Errorf("err %v, want an UnknownError naming no-such-scenario", err)
	}
}

func TestOpenNamesTheBadFile(t *testing.T) {
	bad := fstest.MapFS{"broken.yaml": {Data: []byte("version: 1\nname: broken\nrules: [\n")}}
	for name, cfg := range map[string]app.Config{
		"scenarios in a caller's FS": {Scenarios: app.Files{FS: bad}},
		"fixtures in a caller's FS":  {Fixtures: app.Files{FS: bad}},
	} {
		_, err := app.Open(cfg)
		if err == nil || !strings.Contains(err.Error(), "broken.yaml:") {
			t.Errorf("%s: err %v, want a problem in broken.yaml", name, err)
		}
	}
}

// A scenario file named with a card number refuses the start, named masked.
func TestOpenRefusesAScenarioFileNamedWithACardNumber(t *testing.T) {
	dir := t.TempDir()
	doc := []byte("version: 1\nname: mine\nrules: [{when: {operation: any}, then: pass}]\n")
	if err := os.WriteFile(filepath.Join(dir, "4263970000005262.yaml"), doc, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := app.Open(app.Config{Scenarios: app.Files{Dir: dir}})
	want := filepath.Join(dir, "426397******5262.yaml") + ": the file's name holds a card number"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "4263970000005262") {
		t.Errorf("err %v, want %q and the card number nowhere in clear", err, want)
	}
}

// A reset wipes the scenario sequence counters with everything else: a sequence
// starts again from its first step.
func TestResetRestartsScenarioSequences(t *testing.T) {
	a := mustOpen(t, app.Config{GlobalScenarios: []string{"flaky-then-ok"}, Clock: time.Date(2021, 3, 22, 10, 0, 0, 0, time.UTC)})
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	adjust := func(tok string) int {
		status, _ := mustCall(t, srv.URL, "POST", "/transactions/"+fixtures.CapturedSale+"/adjustment", tok, `{"gratuity_amount":"1"}`)
		return status
	}
	tok := mustToken(t, srv.URL)
	if got := []int{adjust(tok), adjust(tok), adjust(tok)}; got[0] != 502 || got[1] != 502 || got[2] != 200 {
		t.Fatalf("before reset: %v, want 502 502 200", got)
	}
	if status, body := mustCall(t, srv.URL, "POST", "/_sandbox/reset", "", ""); status != 200 {
		t.Fatalf("reset: %d %s", status, body)
	}
	if got := adjust(mustToken(t, srv.URL)); got != 502 {
		t.Errorf("after reset: %d, want the sequence's first step (502)", got)
	}
}

// A restart over a seeded database does not read the fixture files, and says so; a
// reset does, and one in error is refused naming the file, with nothing reset.
func TestResetRefusesFixturesInError(t *testing.T) {
	dir, db := filepath.Join(t.TempDir(), "fixtures"), filepath.Join(t.TempDir(), "s.db")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	entries, err := fixtures.FS.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if data, err := fixtures.FS.ReadFile(e.Name()); err == nil && strings.HasSuffix(e.Name(), ".yaml") {
			if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	first, err := app.Open(app.Config{DB: db, Fixtures: app.Files{Dir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	first.Close()
	if err := os.WriteFile(filepath.Join(dir, "zz-broken.yaml"), []byte("transactions:\n  - id: TRN_Broken\n    amount: 4242\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	a := mustOpen(t, app.Config{DB: db, Fixtures: app.Files{Dir: dir}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if !strings.Contains(logs.String(), "level=WARN msg=\"fixtures not read: the database holds the fixtures it was started with; --reset loads them again\"") {
		t.Errorf("a restart that leaves the edited fixtures unread says nothing of it:\n%s", logs.String())
	}
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	tok := mustToken(t, srv.URL)
	if status, body := mustCall(t, srv.URL, "POST", "/transactions/"+fixtures.CapturedSale+"/adjustment", tok, `{"gratuity_amount":"123"}`); status != 200 {
		t.Fatalf("adjustment: %d %s", status, body)
	}
	status, body := mustCall(t, srv.URL, "POST", "/_sandbox/reset", "", "")
	if status != 500 || !strings.Contains(body, `"SYSTEM_ERROR"`) || !strings.Contains(body, "zz-broken.yaml:3:") || !strings.Contains(body, "nothing was reset") {
		t.Errorf("reset: %d %s, want 500 naming zz-broken.yaml:3", status, body)
	}
	if _, body := mustCall(t, srv.URL, "GET", "/_sandbox/transactions/"+fixtures.CapturedSale, "", ""); !strings.Contains(body, `"gratuity_amount":"123"`) {
		t.Errorf("after the refused reset, the adjustment is gone: %s", body)
	}
	// The folder itself gone: named as given (its end: a temporary folder's digits
	// may read as a card number, which an error masks).
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	status, body = mustCall(t, srv.URL, "POST", "/_sandbox/reset", "", "")
	if want := filepath.Base(dir) + ": no such folder"; status != 500 || !strings.Contains(body, want) || !strings.Contains(body, "nothing was reset") {
		t.Errorf("reset with the folder gone: %d %s, want 500 naming %q", status, body, want)
	}
}

func TestValidate(t *testing.T) {
	v := app.Validate(app.Config{})
	if len(v.Problems) != 0 || v.Scenarios == 0 || v.Apps == 0 || v.Merchants == 0 || v.Transactions == 0 {
		t.Errorf("embedded sets: %+v", v)
	}
	v = app.Validate(app.Config{Scenarios: app.Files{Dir: "testdata/no-such-dir"}})
	if len(v.Problems) == 0 {
		t.Errorf("a missing scenario directory: no problem")
	}
}
