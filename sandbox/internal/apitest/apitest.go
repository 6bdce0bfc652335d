// Package apitest starts a sandbox for the tests of the API and of the admin API, the
// way the binary opens it (package app) but with a frozen clock and seeded ids, serves
// it on a loopback port, and checks every exchange a test makes against the OpenAPI
// document the sandbox serves. It also holds the one golden-file helper (go test
// -update rewrites the files) and the requests both test suites build.
package apitest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/gp-sandbox/gp-sandbox/fixtures"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/admin"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
	"github.com/gp-sandbox/gp-sandbox/sandbox/store"
	"github.com/gp-sandbox/gp-sandbox/sandbox/yamlfile"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

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
}

func New(t testing.TB, opts ...func(*app.Config)) *Env {
	t.Helper()
	return NewAt(t, ":memory:", opts...)
}

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
	env := &Env{T: t, URL: srv.URL, Handler: sb.Handler(), Clock: sb.Clock(), DB: sb.Store(), Service: sb.Service(), Engine: sb.Scenarios()}
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
	fx, err := yamlfile.LoadFixtures(fixtures.FS)
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
	Status      int
	Code        string `json:"error_code"`
	Detail      string `json:"detailed_error_code"`
	Description string `json:"detailed_error_description"`
}

func (r Reply) GPError(t testing.TB) GPError {
	t.Helper()
	var e GPError
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("not a GP error body (%v): %s", err, r.Body)
	}
	e.Status = r.Status
	return e
}

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

func JSONHeader() map[string]string { return map[string]string{"Content-Type": "application/json"} }

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

// MustMatchGolden compares got with testdata/name, rewriting it with -update.
func MustMatchGolden(t *testing.T, name string, got []byte) {
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

// Contract is the loaded document and a router over its paths.
type Contract struct {
	Doc    *openapi3.T
	Router routers.Router
}

var (
	contractOnce   sync.Once
	sharedContract *Contract
	contractErr    error
)

// MustContract loads openapi.yaml once per test binary.
func MustContract(t testing.TB) *Contract {
	t.Helper()
	contractOnce.Do(func() { sharedContract, contractErr = loadContract() })
	if contractErr != nil {
		t.Fatalf("openapi.yaml: %v", contractErr)
	}
	return sharedContract
}

// loadContract loads the document a sandbox serves at /_sandbox/openapi.yaml.
func loadContract() (*Contract, error) {
	sb, err := app.Open(app.Config{DB: ":memory:"})
	if err != nil {
		return nil, err
	}
	defer sb.Close()
	w := httptest.NewRecorder()
	sb.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/_sandbox/openapi.yaml", nil))
	if w.Code != http.StatusOK {
		return nil, fmt.Errorf("GET /_sandbox/openapi.yaml: %d", w.Code)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(w.Body.Bytes())
	if err != nil {
		return nil, err
	}
	if !doc.IsOpenAPI31OrLater() {
		return nil, fmt.Errorf("openapi %q: want 3.1", doc.OpenAPI)
	}
	// Validate checks the document's structure, its $refs and that every example
	// satisfies its schema.
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("invalid document: %w", err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	return &Contract{Doc: doc, Router: router}, nil
}

// exchange is one request as sent and the answer as received (decompressed).
type exchange struct {
	method string
	path   string // as sent, before the sandbox folds // and drops /ucp
	header http.Header
	body   []byte
	reply  Reply
}

// check validates one exchange against the document:
//   - a request for a documented operation is validated (path ids, headers, body); if
//     the document rejects it the sandbox must have refused it too (4xx), otherwise
//     the document is stricter than the code;
//   - the answer must be a documented status of that operation with a body matching
//     its schema (every GP error matches Error, every success its resource);
//   - an exchange outside the document (an unknown path, a wrong method) must be a 4xx
//     whose body is a GP Error.
func (c *Contract) check(x exchange) error {
	ctx := context.Background()
	req, err := http.NewRequest(x.method, "http://sandbox"+contractPath(x.path), bytes.NewReader(x.body))
	if err != nil {
		return err
	}
	req.Header = x.header.Clone()
	// Assumption A2: a missing or unparseable Content-Type is read as JSON.
	if _, _, err := mime.ParseMediaType(req.Header.Get("Content-Type")); err != nil && len(x.body) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}

	route, params, err := c.Router.FindRoute(req)
	if err != nil {
		if !errors.Is(err, routers.ErrPathNotFound) && !errors.Is(err, routers.ErrMethodNotAllowed) {
			return err
		}
		if x.reply.Status < 400 || x.reply.Status >= 500 {
			return fmt.Errorf("undocumented %s %s answered %d", x.method, x.path, x.reply.Status)
		}
		return c.checkError(x.reply.Body)
	}

	opts := &openapi3filter.Options{
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
		IncludeResponseStatus: true,
		MultiError:            false,
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	if reqErr := openapi3filter.ValidateRequest(ctx, in); reqErr != nil && x.reply.Status < 400 {
		return fmt.Errorf("the document rejects a request the sandbox answered %d: %w", x.reply.Status, reqErr)
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 x.reply.Status,
		Header:                 x.reply.Header,
		Options:                opts,
	}
	out.SetBodyBytes(x.reply.Body)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		return fmt.Errorf("response %d: %w", x.reply.Status, err)
	}
	return nil
}

// checkError validates a body against the Error schema.
func (c *Contract) checkError(body []byte) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("error body is not JSON: %v", err)
	}
	return c.Doc.Components.Schemas["Error"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020())
}

// contractPath is the path as the document names it: the sandbox serves every path
// also under /ucp and with doubled slashes folded (assumption A1, the wire contract, sandbox/api/README.md §0).
func contractPath(p string) string {
	for strings.Contains(p, "//") {
		p = strings.ReplaceAll(p, "//", "/")
	}
	if p == "/ucp" {
		return "/"
	}
	return strings.TrimPrefix(p, "/ucp")
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return bytes.Equal(ja, jb)
}

// AdminTransaction is the part of an admin transaction view the seeding tests read.
type AdminTransaction struct {
	ID, Type, Status, Amount, Currency, Country string
	MerchantID                                  string                           `json:"merchant_id"`
	TimeCreated                                 string                           `json:"time_created"`
	AuthorizationAmount                         string                           `json:"authorization_amount"`
	BatchID                                     string                           `json:"batch_id"`
	BatchClosed                                 bool                             `json:"batch_closed"`
	PaymentMethod                               struct{ Result, Message string } `json:"payment_method"`
	Action                                      struct{ ID, Type string }
}

// MustSeed sends a transaction document to the admin API (PUT or POST
// /_sandbox/transactions) and fails the test unless it answers 200.
func (env *Env) MustSeed(method, path, body string) AdminTransaction {
	env.T.Helper()
	return env.MustSeedAs(method, path, JSONHeader(), body)
}

// MustSeedAs is MustSeed with the request's headers.
func (env *Env) MustSeedAs(method, path string, header map[string]string, body string) AdminTransaction {
	env.T.Helper()
	r := env.Do(method, path, header, body)
	if r.Status != 200 {
		env.T.Fatalf("%s %s %s: %d %s", method, path, body, r.Status, r.Body)
	}
	var v AdminTransaction
	if err := json.Unmarshal(r.Body, &v); err != nil {
		env.T.Fatalf("%s %s: %v", method, path, err)
	}
	return v
}

// MustPlaceOrder places an order for merchant One (see mustPlaceOrderFor).
func (env *Env) MustPlaceOrder(tok, body string) string {
	env.T.Helper()
	return env.MustPlaceOrderFor(tok, MerchantOne, body)
}

// MustPlaceOrderFor places an order for a merchant and returns its id, failing the
// test unless the order is placed: 200 and INITIATED.
func (env *Env) MustPlaceOrderFor(tok, merchantID, body string) string {
	env.T.Helper()
	r := env.Do("POST", "/merchants/"+merchantID+"/orders", APIHeader(tok), body)
	if r.Status != 200 || r.JSON(env.T)["status"] != "INITIATED" {
		env.T.Fatalf("order: %d %s", r.Status, r.Body)
	}
	return r.JSON(env.T)["id"].(string)
}

func SetAPIHeaders(req *http.Request, tok string, _ uint64) {
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("X-GP-Version", Version)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GP-Idempotency", fmt.Sprintf("bench-%d", benchKeys.Add(1)))
}

// MICBody is a MiC request as the Java and .NET SDKs send it, around one UPA command.
func MICBody(command, data string) string {
	inner := `"command":"` + command + `","requestId":"10001","EcrId":"13"`
	if data != "" {
		inner += `,"data":` + data
	}
	return `{"account_name":"transaction_processing","channel":"CP","country":"US","currency":"USD","reference":"10001",` +
		`"request":{"message":"MSG","data":{` + inner + `}},"notifications":{}}`
}

// MIC sends a command and returns the device request, failing unless it is 200.
func (env *Env) MIC(tok, command, data string) map[string]any {
	env.T.Helper()
	r := env.Do("POST", "/devices", APIHeader(tok), MICBody(command, data))
	if r.Status != 200 {
		env.T.Fatalf("%s: %d %s", command, r.Status, r.Body)
	}
	return r.JSON(env.T)
}

// Dig walks a decoded JSON object by dotted path.
func Dig(m map[string]any, path string) any {
	var v any = m
	for _, k := range strings.Split(path, ".") {
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = o[k]
	}
	return v
}

// LockedBuffer is a log sink the server writes while the test reads.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (env *Env) MustJournal(query string) []admin.JournalEntry {
	env.T.Helper()
	r := env.Do("GET", "/_sandbox/requests"+query, nil, "")
	var page JournalPage
	if r.Status != 200 || json.Unmarshal(r.Body, &page) != nil {
		env.T.Fatalf("journal%s: %d %s", query, r.Status, r.Body)
	}
	return page.Requests
}

const DeclinedCard = `{"number":"4000120000001154","expiry_month":"12","expiry_year":"30"}`

// MustTransactionIn makes a transaction in the named state through the API.
func (env *Env) MustTransactionIn(tok, state string) string {
	env.T.Helper()
	switch state {
	case "CAPTURED":
		return env.MustCharge(tok, SaleBody("1000", "AUTO", ManualCard))["id"].(string)
	case "PREAUTHORIZED":
		return env.MustCharge(tok, SaleBody("1000", "LATER", ManualCard))["id"].(string)
	case "DECLINED":
		return env.MustCharge(tok, SaleBody("1000", "AUTO", DeclinedCard))["id"].(string)
	case "REVERSED":
		id := env.MustTransactionIn(tok, "CAPTURED")
		env.MustPost(tok, "/transactions/"+id+"/reversal", `{}`)
		return id
	case "VERIFIED":
		r := env.Do("POST", "/verifications", APIHeader(tok),
			`{"channel":"CP","currency":"USD","payment_method":{"entry_mode":"MANUAL","card":`+ManualCard+`}}`)
		return r.JSON(env.T)["id"].(string)
	case "REFUND":
		return env.MustCharge(tok, strings.Replace(SaleBody("1000", "AUTO", ManualCard), `"SALE"`, `"REFUND"`, 1))["id"].(string)
	case "CLOSED_BATCH":
		return Batched // a fixture: CAPTURED in a closed batch
	}
	env.T.Fatalf("no state %s", state)
	return ""
}

func (env *Env) MustPost(tok, path, body string) map[string]any {
	env.T.Helper()
	r := env.Do("POST", path, APIHeader(tok), body)
	if r.Status != 200 {
		env.T.Fatalf("POST %s: %d %s", path, r.Status, r.Body)
	}
	return r.JSON(env.T)
}

// CardOf is payment_method.card with the given members and funding ("" sends none,
// as the PHP SDK and .NET's track data do).
func CardOf(funding string, members ...string) string {
	if funding != "" {
		members = append(members, `"funding":"`+funding+`"`)
	}
	return "{" + strings.Join(members, ",") + "}"
}

func Quoted(name, value string) string { return `"` + name + `":"` + value + `"` }

const TokenizeBody = `{"account_name":"tokenization","usage_mode":"%s","card":` + ManualCard + `}`

// swipe, chip, manual and so on build POST /transactions bodies as the Node SDK
// sends them.
func SaleBody(amount, captureMode, card string, extra ...string) string {
	entry := "SWIPE"
	switch {
	case strings.Contains(card, `"tag"`):
		entry = "CHIP"
	case strings.Contains(card, `"number"`):
		entry = "MANUAL"
	}
	more := ""
	for _, e := range extra {
		more += "," + e
	}
	return fmt.Sprintf(`{"account_name":"transaction_processing","channel":"CP","country":"US","type":"SALE",`+
		`"capture_mode":%q,"amount":%q,"currency":"USD","reference":"ref-1"%s,`+
		`"payment_method":{"entry_mode":%q,"card":%s}}`, captureMode, amount, more, entry, card)
}

func TrackCard(extra ...string) string {
	s := `{"track":"` + VisaTrack + `"`
	for _, e := range extra {
		s += "," + e
	}
	return s + `,"funding":"CREDIT"}`
}

const ManualCard = `{"number":"4263970000005262","expiry_month":"12","expiry_year":"30","cvv":"123"}`

// MustCharge takes a payment through POST /transactions and returns the response.
func (env *Env) MustCharge(tok, body string) map[string]any {
	env.T.Helper()
	r := env.Do("POST", "/transactions", APIHeader(tok), body)
	if r.Status != 200 {
		env.T.Fatalf("POST /transactions: %d %s", r.Status, r.Body)
	}
	return r.JSON(env.T)
}

func (env *Env) PartnerToken() string {
	env.T.Helper()
	return env.MustToken(PartnerApp, PartnerKey, "")
}

// JournalPage is GET /_sandbox/requests decoded.
type JournalPage struct {
	Requests []admin.JournalEntry
	Next     string
}

// benchKeys numbers idempotency keys across every run of every benchmark: a
// benchmark function runs several times against the same store.
var benchKeys atomic.Uint64

// Err is the GP error a test expects: its HTTP status and its three members.
func Err(status int, code, detail, description string) GPError {
	return GPError{Status: status, Code: code, Detail: detail, Description: description}
}

// InstalledScenario is a scenario document the tests install over the admin API.
const InstalledScenario = `version: 1
name: my-decline
description: Adjustments fail as when a system behind GP is down.
rules:
  - when: {operation: adjustment}
    then:
      status: 502
      error: {code: SYSTEM_ERROR_DOWNSTREAM, detail: "50046"}
`

// GP's card-present test values.
const (
	VisaTrack       = "%B4012002000060016^VI TEST CREDIT^251210118039000000000396?;4012002000060016=25121011803939600000?"
	ExpiredTrack    = ";4024720012345671=18125025432198712345?"
	PINBlock        = "32539F50C245A6A93D123412324000AA"
	ExpiredPINBlock = "AFEC374574FC90623D010000116001EE"
	EMVTag          = "9F4005F000F0A0019F02060000000025009F2701809F0D05F040008800"
	InteracTag      = "82021C008407A0000002771010950580000000009A031709289C01005F280201245F2A0201245F3401019F02060000000010009F03060000000000009F080200019F090200019F100706010A03A420009F1A0201249F26089CC473F4A4CE18D39F2701809F3303E0F8C89F34030100029F3501229F360200639F370435EFED379F410400000019"
)
