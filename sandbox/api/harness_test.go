package api_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/fixtures"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
	"github.com/gp-sandbox/gp-sandbox/sandbox/store"
	"github.com/gp-sandbox/gp-sandbox/sandbox/yamlfile"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// Default fixture credentials and ids.
const (
	partnerApp    = fixtures.DefaultAppID
	partnerKey    = fixtures.DefaultAppKey
	restrictedApp = fixtures.RestrictedAppID
	restrictedKey = fixtures.RestrictedAppKey
	merchantOne   = fixtures.MerchantOne
	merchantTwo   = fixtures.MerchantTwo
	merchantThree = fixtures.MerchantThree
	capturedOne   = fixtures.CapturedSale
	capturedTwo   = fixtures.CapturedSaleTwo
	preauthorized = fixtures.PreauthorizedSale
	batched       = fixtures.BatchedSale
	declined      = fixtures.DeclinedSale
	otherMerchant = fixtures.OtherMerchantSale
	version       = "2021-03-22"
)

var startTime = time.Date(2021, 3, 22, 10, 0, 0, 0, time.UTC)

// sandboxEnv is a sandbox served over real loopback HTTP, with a steppable clock and
// seeded ids so that responses are byte-stable.
type sandboxEnv struct {
	t       testing.TB
	URL     string
	handler http.Handler // what URL serves, to call in-process
	clock   *sandbox.VirtualClock
	db      *store.Store
	svc     *sandbox.Service
	engine  *scenario.Engine
}

func mustSandbox(t testing.TB, opts ...func(*app.Config)) *sandboxEnv {
	t.Helper()
	return mustSandboxAt(t, ":memory:", opts...)
}

func mustSandboxAt(t testing.TB, dbPath string, opts ...func(*app.Config)) *sandboxEnv {
	t.Helper()
	return mustSandboxWith(t, envOptions{dbPath: dbPath, configure: opts})
}

// envOptions vary the sandbox a test runs against.
type envOptions struct {
	dbPath    string                  // ":memory:" when empty
	fixtures  func(*sandbox.Fixtures) // edits the default fixtures, loaded again after start
	scenarios []scenario.Scenario     // the built-in scenarios when nil
	global    []string                // globally active scenarios
	log       io.Writer               // request log (JSON lines); discarded when nil
	configure []func(*app.Config)     // adjust the sandbox's configuration
}

// mustSandboxWith opens the sandbox through package app, as the binary does, with a
// frozen clock and seeded ids, and serves it on a loopback port.
func mustSandboxWith(t testing.TB, o envOptions) *sandboxEnv {
	t.Helper()
	cfg := app.Config{DB: o.dbPath, Clock: startTime, NewIDs: func() sandbox.IDs { return sandbox.NewSeededIDs(1) }, MaxBody: 64 << 10}
	if o.log != nil {
		cfg.Logger = slog.New(slog.NewJSONHandler(o.log, nil))
	}
	for _, configure := range o.configure {
		configure(&cfg)
	}
	sb, err := app.Open(cfg)
	if err != nil {
		t.Fatalf("open sandbox: %v", err)
	}
	srv := httptest.NewServer(sb.Handler())
	t.Cleanup(func() {
		srv.Close()
		sb.Close()
	})
	env := &sandboxEnv{t: t, URL: srv.URL, handler: sb.Handler(), clock: sb.Clock(), db: sb.Store(), svc: sb.Service(), engine: sb.Scenarios()}
	if o.fixtures != nil {
		env.mustReseed(o.fixtures)
	}
	if o.scenarios != nil {
		if err := env.engine.Replace(o.scenarios); err != nil {
			t.Fatalf("scenarios: %v", err)
		}
	}
	if err := env.engine.SetGlobal(o.global); err != nil {
		t.Fatalf("global scenarios: %v", err)
	}
	return env
}

// mustReseed loads the default fixtures again, as edited by edit, over everything.
func (env *sandboxEnv) mustReseed(edit func(*sandbox.Fixtures)) {
	env.t.Helper()
	fx, err := yamlfile.LoadFixtures(fixtures.FS)
	if err != nil {
		env.t.Fatalf("load fixtures: %v", err)
	}
	edit(&fx)
	if _, err := env.svc.LoadFixtures(fx, true); err != nil {
		env.t.Fatalf("seed: %v", err)
	}
}

// reply is a response as the client saw it.
type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("response is not a JSON object: %v: %s", err, r.body)
	}
	return m
}

// gpError is the tuple every GP error carries, compared whole.
type gpError struct {
	Status      int
	Code        string `json:"error_code"`
	Detail      string `json:"detailed_error_code"`
	Description string `json:"detailed_error_description"`
}

func (r reply) gpError(t testing.TB) gpError {
	t.Helper()
	var e gpError
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("not a GP error body (%v): %s", err, r.body)
	}
	e.Status = r.status
	return e
}

func (env *sandboxEnv) do(method, path string, header map[string]string, body string) reply {
	env.t.Helper()
	req, err := http.NewRequest(method, env.URL+path, strings.NewReader(body))
	if err != nil {
		env.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	// Go's transport adds gzip and decodes it silently; we want to see the wire.
	if req.Header.Get("Accept-Encoding") == "" {
		req.Header.Set("Accept-Encoding", "identity")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		env.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		env.t.Fatal(err)
	}
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			env.t.Fatalf("bad gzip: %v", err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			env.t.Fatalf("bad gzip: %v", err)
		}
	}
	rep := reply{status: resp.StatusCode, header: resp.Header, body: b}
	// Every exchange of the suite is checked against openapi.yaml (contract_test.go).
	x := exchange{method: method, path: path, header: req.Header, body: []byte(body), reply: rep}
	if err := mustContract(env.t).check(x); err != nil {
		env.t.Errorf("contract: %s %s: %v", method, path, err)
	}
	return rep
}

// mustAdmin makes an admin call with a JSON body and fails the test unless it
// answers 200: a setup call that failed would make the test check something else.
func (env *sandboxEnv) mustAdmin(method, path, body string) map[string]any {
	env.t.Helper()
	r := env.do(method, path, jsonHeader(), body)
	if r.status != 200 {
		env.t.Fatalf("%s %s: %d %s", method, path, r.status, r.body)
	}
	return r.json(env.t)
}

// mustInstallScenario installs a scenario document (YAML, or JSON, which is YAML)
// with POST /_sandbox/scenarios and fails the test unless it answers 200.
func (env *sandboxEnv) mustInstallScenario(doc string) reply {
	env.t.Helper()
	r := env.do("POST", "/_sandbox/scenarios", map[string]string{"Content-Type": "application/yaml"}, doc)
	if r.status != 200 {
		env.t.Fatalf("install scenario: %d %s", r.status, r.body)
	}
	return r
}

func tokenBody(appID, key string, extra string) string {
	nonce := "nonce-123"
	body := `{"app_id":"` + appID + `","nonce":"` + nonce + `","secret":"` + sandbox.Secret(nonce, key) + `","grant_type":"client_credentials"`
	if extra != "" {
		body += "," + extra
	}
	return body + "}"
}

// mustToken issues a token for the app (with optional extra body members).
func (env *sandboxEnv) mustToken(appID, key, extra string) string {
	env.t.Helper()
	r := env.do("POST", "/accesstoken", jsonHeader(), tokenBody(appID, key, extra))
	if r.status != 200 {
		env.t.Fatalf("token: %d %s", r.status, r.body)
	}
	return r.json(env.t)["token"].(string)
}

func jsonHeader() map[string]string { return map[string]string{"Content-Type": "application/json"} }

func apiHeader(token string, extra ...string) map[string]string {
	h := map[string]string{
		"Content-Type":  "application/json",
		"Authorization": "Bearer " + token,
		"X-GP-Version":  version,
	}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	return h
}

// mustMatchGolden compares got with testdata/name, rewriting it with -update.
func mustMatchGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run go test -update)", path, err)
	}
	if !bytes.Equal(bytes.TrimSpace(want), got) {
		t.Errorf("%s differs from golden\n got: %s\nwant: %s", name, got, want)
	}
}
