// Package apitest starts a sandbox for the tests of the API and of the admin API, the
// way the binary opens it (package app) but with a frozen clock and seeded ids, serves
// it on a loopback port, and checks every exchange a test makes against the OpenAPI
// document the sandbox serves. It also holds the requests both test suites build.
package apitest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
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

// Default fixture credentials and ids.
const (
	PartnerApp    = fixtures.DefaultAppID
	PartnerKey    = fixtures.DefaultAppKey
	RestrictedApp = fixtures.RestrictedAppID
	RestrictedKey = fixtures.RestrictedAppKey
	MerchantOne   = fixtures.MerchantOne
	MerchantTwo   = fixtures.MerchantTwo
	MerchantThree = fixtures.MerchantThree
	CapturedOne   = fixtures.CapturedSale
	CapturedTwo   = fixtures.CapturedSaleTwo
	Preauthorized = fixtures.PreauthorizedSale
	Batched       = fixtures.BatchedSale
	Declined      = fixtures.DeclinedSale
	OtherMerchant = fixtures.OtherMerchantSale
	Version       = "2021-03-22"
)

// StartTime is where the test sandbox's frozen clock stands.
var StartTime = time.Date(2021, 3, 22, 10, 0, 0, 0, time.UTC)

// Env is a sandbox served over real loopback HTTP, with a steppable clock and
// seeded ids so that responses are byte-stable.
type Env struct {
	T       testing.TB
	URL     string
	Handler http.Handler // what URL serves, to call in-process
	Clock   *sandbox.VirtualClock
	DB      *store.Store
	Service *sandbox.Service
	Engine  *scenario.Engine
	App     *app.App // closed when the test ends; a test that restarts closes it first
}

// New starts a sandbox on an in-memory store, as configured by opts.
func New(t testing.TB, opts ...func(*app.Config)) *Env {
	t.Helper()
	return NewAt(t, ":memory:", opts...)
}

// NewAt starts a sandbox on the database file dbPath.
func NewAt(t testing.TB, dbPath string, opts ...func(*app.Config)) *Env {
	t.Helper()
	return NewWith(t, Options{DBPath: dbPath, Configure: opts})
}

// Options vary the sandbox a test runs against.
type Options struct {
	DBPath    string                  // ":memory:" when empty
	Fixtures  func(*sandbox.Fixtures) // edits the default fixtures, loaded again after start
	Scenarios []scenario.Scenario     // the built-in scenarios when nil
	Global    []string                // globally active scenarios
	Log       io.Writer               // request log (JSON lines); discarded when nil
	Configure []func(*app.Config)     // adjust the sandbox's configuration
}

// NewWith opens the sandbox through package app, as the binary does, with a
// frozen clock and seeded ids, and serves it on a loopback port.
func NewWith(t testing.TB, o Options) *Env {
	t.Helper()
	cfg := app.Config{DB: o.DBPath, Clock: StartTime, NewIDs: func() sandbox.IDs { return sandbox.NewSeededIDs(1) }, MaxBody: 64 << 10}
	if o.Log != nil {
		cfg.Logger = slog.New(slog.NewJSONHandler(o.Log, nil))
	}
	for _, configure := range o.Configure {
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
	env := &Env{T: t, URL: srv.URL, Handler: sb.Handler(), Clock: sb.Clock(), DB: sb.Store(), Service: sb.Service(), Engine: sb.Scenarios(), App: sb}
	if o.Fixtures != nil {
		env.MustReseed(o.Fixtures)
	}
	if o.Scenarios != nil {
		if err := env.Engine.Replace(o.Scenarios); err != nil {
			t.Fatalf("scenarios: %v", err)
		}
	}
	if err := env.Engine.SetGlobal(o.Global); err != nil {
		t.Fatalf("global scenarios: %v", err)
	}
	return env
}

// MustReseed loads the default fixtures again, as edited by edit, over everything.
func (env *Env) MustReseed(edit func(*sandbox.Fixtures)) {
	env.T.Helper()
	fx, err := yamlfile.LoadFixtures(fixtures.FS, env.Clock.Now())
	if err != nil {
		env.T.Fatalf("load fixtures: %v", err)
	}
	edit(&fx)
	if _, err := env.Service.LoadFixtures(fx, true); err != nil {
		env.T.Fatalf("seed: %v", err)
	}
}

// Reply is a response as the client saw it.
type Reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON is the answer's body as a JSON object; anything else fails the test.
func (r Reply) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("response is not a JSON object: %v: %s", err, r.Body)
	}
	return m
}

// GPError is the tuple every GP error carries, compared whole.
type GPError struct {
	Status int
	sandbox.Error
}

// AsGPError reads body as a GP error: its three members, each set, and nothing else.
func AsGPError(body []byte) (sandbox.Error, bool) {
	var e sandbox.Error
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	ok := dec.Decode(&e) == nil && !dec.More() && e.Code != "" && e.Detail != "" && e.Description != ""
	return e, ok
}

// GPError is the answer as a GP error, its status included; a body that is not
// exactly a GP error (AsGPError) fails the test.
func (r Reply) GPError(t testing.TB) GPError {
	t.Helper()
	e, ok := AsGPError(r.Body)
	if !ok {
		t.Fatalf("not a GP error body: %s", r.Body)
	}
	return GPError{Status: r.Status, Error: e}
}

// Do sends a request over HTTP and returns the answer as the client saw it,
// decompressed; the exchange is checked against the OpenAPI document.
func (env *Env) Do(method, path string, header map[string]string, body string) Reply {
	env.T.Helper()
	req, err := http.NewRequest(method, env.URL+path, strings.NewReader(body))
	if err != nil {
		env.T.Fatal(err)
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
		env.T.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		env.T.Fatal(err)
	}
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			env.T.Fatalf("bad gzip: %v", err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			env.T.Fatalf("bad gzip: %v", err)
		}
	}
	rep := Reply{Status: resp.StatusCode, Header: resp.Header, Body: b}
	// Every exchange of the suite is checked against openapi.yaml (contract_test.go).
	x := exchange{method: method, path: path, header: req.Header, body: []byte(body), reply: rep}
	if err := MustContract(env.T).check(x); err != nil {
		env.T.Errorf("contract: %s %s: %v", method, path, err)
	}
	return rep
}

// MustAdmin makes an admin call with a JSON body and fails the test unless it
// answers 200: a setup call that failed would make the test check something else.
func (env *Env) MustAdmin(method, path, body string) map[string]any {
	env.T.Helper()
	r := env.Do(method, path, JSONHeader(), body)
	if r.Status != 200 {
		env.T.Fatalf("%s %s: %d %s", method, path, r.Status, r.Body)
	}
	return r.JSON(env.T)
}

// MustInstallScenario installs a scenario document (YAML, or JSON, which is YAML)
// with POST /_sandbox/scenarios and fails the test unless it answers 200.
func (env *Env) MustInstallScenario(doc string) Reply {
	env.T.Helper()
	r := env.Do("POST", "/_sandbox/scenarios", map[string]string{"Content-Type": "application/yaml"}, doc)
	if r.Status != 200 {
		env.T.Fatalf("install scenario: %d %s", r.Status, r.Body)
	}
	return r
}

// TokenBody is a POST /accesstoken body for the app, with extra members.
func TokenBody(appID, key string, extra string) string {
	nonce := "nonce-123"
	body := `{"app_id":"` + appID + `","nonce":"` + nonce + `","secret":"` + sandbox.Secret(nonce, key) + `","grant_type":"client_credentials"`
	if extra != "" {
		body += "," + extra
	}
	return body + "}"
}

// MustToken issues a token for the app (with optional extra body members).
func (env *Env) MustToken(appID, key, extra string) string {
	env.T.Helper()
	r := env.Do("POST", "/accesstoken", JSONHeader(), TokenBody(appID, key, extra))
	if r.Status != 200 {
		env.T.Fatalf("token: %d %s", r.Status, r.Body)
	}
	return r.JSON(env.T)["token"].(string)
}

// JSONHeader is the header of a JSON body.
func JSONHeader() map[string]string { return map[string]string{"Content-Type": "application/json"} }

// APIHeader is the header of an API call with the token, and extra header pairs.
func APIHeader(token string, extra ...string) map[string]string {
	h := map[string]string{
		"Content-Type":  "application/json",
		"Authorization": "Bearer " + token,
		"X-GP-Version":  Version,
	}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	return h
}
