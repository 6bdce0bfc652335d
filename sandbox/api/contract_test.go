package api_test

// The contract test: openapi.yaml is loaded and validated once, and the harness's do
// method checks every request the API test suite sends, and every answer it gets,
// against it. kin-openapi is imported here and only here (test files of sandbox/api).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// contract is the loaded document and a router over its paths.
type contract struct {
	doc    *openapi3.T
	router routers.Router
}

var (
	contractOnce   sync.Once
	sharedContract *contract
	contractErr    error
)

// mustContract loads openapi.yaml once per test binary.
func mustContract(t testing.TB) *contract {
	t.Helper()
	contractOnce.Do(func() { sharedContract, contractErr = loadContract("openapi.yaml") })
	if contractErr != nil {
		t.Fatalf("openapi.yaml: %v", contractErr)
	}
	return sharedContract
}

func loadContract(path string) (*contract, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(path)
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
	return &contract{doc: doc, router: router}, nil
}

// exchange is one request as sent and the answer as received (decompressed).
type exchange struct {
	method string
	path   string // as sent, before the sandbox folds // and drops /ucp
	header http.Header
	body   []byte
	reply  reply
}

// check validates one exchange against the document:
//   - a request for a documented operation is validated (path ids, headers, body); if
//     the document rejects it the sandbox must have refused it too (4xx), otherwise
//     the document is stricter than the code;
//   - the answer must be a documented status of that operation with a body matching
//     its schema (every GP error matches Error, every success its resource);
//   - an exchange outside the document (an unknown path, a wrong method) must be a 4xx
//     whose body is a GP Error.
func (c *contract) check(x exchange) error {
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

	route, params, err := c.router.FindRoute(req)
	if err != nil {
		if !errors.Is(err, routers.ErrPathNotFound) && !errors.Is(err, routers.ErrMethodNotAllowed) {
			return err
		}
		if x.reply.status < 400 || x.reply.status >= 500 {
			return fmt.Errorf("undocumented %s %s answered %d", x.method, x.path, x.reply.status)
		}
		return c.checkError(x.reply.body)
	}

	opts := &openapi3filter.Options{
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
		IncludeResponseStatus: true,
		MultiError:            false,
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	if reqErr := openapi3filter.ValidateRequest(ctx, in); reqErr != nil && x.reply.status < 400 {
		return fmt.Errorf("the document rejects a request the sandbox answered %d: %w", x.reply.status, reqErr)
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 x.reply.status,
		Header:                 x.reply.header,
		Options:                opts,
	}
	out.SetBodyBytes(x.reply.body)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		return fmt.Errorf("response %d: %w", x.reply.status, err)
	}
	return nil
}

// checkError validates a body against the Error schema.
func (c *contract) checkError(body []byte) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("error body is not JSON: %v", err)
	}
	return c.doc.Components.Schemas["Error"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020())
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

// TestOpenAPIDocument validates the document (structure, refs, examples) and serves it.
func TestOpenAPIDocument(t *testing.T) {
	c := mustContract(t)
	for _, path := range []string{
		"/accesstoken",
		"/transactions/{id}/adjustment",
		"/merchants/{merchant_id}/transactions/{id}/adjustment",
		"/merchants/{merchant_id}/orders",
		"/_sandbox/health",
	} {
		if c.doc.Paths.Find(path) == nil {
			t.Errorf("document lacks %s", path)
		}
	}
	env := mustSandbox(t)
	r := env.do("GET", "/_sandbox/openapi.yaml", nil, "")
	if r.status != 200 || r.header.Get("Content-Type") != "application/yaml" {
		t.Fatalf("GET /_sandbox/openapi.yaml: %d %q", r.status, r.header.Get("Content-Type"))
	}
	file, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r.body, file) {
		t.Errorf("served document differs from openapi.yaml")
	}
}

// TestOpenAPIExamplesAreGolden keeps the success examples equal to the golden
// responses of the API tests: an example marked x-golden is the file's JSON.
func TestOpenAPIExamplesAreGolden(t *testing.T) {
	c := mustContract(t)
	seen := map[string]bool{}
	for path, item := range c.doc.Paths.Map() {
		for method, op := range item.Operations() {
			for status, resp := range op.Responses.Map() {
				for _, mt := range resp.Value.Content {
					for name, ex := range mt.Examples {
						golden, ok := ex.Value.Extensions["x-golden"].(string)
						if !ok {
							continue
						}
						seen[golden] = true
						want, err := os.ReadFile(filepath.Join("testdata", golden))
						if err != nil {
							t.Fatal(err)
						}
						got, _ := json.Marshal(ex.Value.Value)
						if !jsonEqual(t, got, want) {
							t.Errorf("%s %s %s example %q differs from testdata/%s", method, path, status, name, golden)
						}
					}
				}
			}
		}
	}
	goldens, _ := filepath.Glob("testdata/*.json")
	for _, g := range goldens {
		if !seen[filepath.Base(g)] {
			t.Errorf("%s is no example of the document", g)
		}
	}
}

// TestContractCatchesDrift proves the check fails when an answer drifts from the
// document: the golden adjustment answer passes, and each tampered copy fails.
func TestContractCatchesDrift(t *testing.T) {
	c := mustContract(t)
	golden, err := os.ReadFile("testdata/adjustment.json")
	if err != nil {
		t.Fatal(err)
	}
	header := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer x"}, "X-Gp-Version": {version}}
	exchangeWith := func(status int, body []byte) exchange {
		return exchange{
			method: "POST", path: "/ucp/transactions/" + capturedOne + "/adjustment", header: header,
			body:  []byte(`{"gratuity_amount":"200"}`),
			reply: reply{status: status, header: http.Header{"Content-Type": {"application/json"}}, body: bytes.TrimSpace(body)},
		}
	}
	if err := c.check(exchangeWith(200, golden)); err != nil {
		t.Fatalf("golden answer rejected: %v", err)
	}
	tamper := func(edit func(m map[string]any)) []byte {
		var m map[string]any
		json.Unmarshal(golden, &m)
		edit(m)
		b, _ := json.Marshal(m)
		return b
	}
	for name, x := range map[string]exchange{
		"amount as a number": exchangeWith(200, tamper(func(m map[string]any) { m["amount"] = 1100 })),
		"status missing":     exchangeWith(200, tamper(func(m map[string]any) { delete(m, "status") })),
		"gratuity echoed":    exchangeWith(200, tamper(func(m map[string]any) { m["gratuity_amount"] = "200" })),
		"time without millis": exchangeWith(200, tamper(func(m map[string]any) {
			m["time_created"] = "2021-03-24T02:02:27Z"
		})),
		"undocumented status": exchangeWith(201, golden),
		"error missing a field": exchangeWith(404, []byte(
			`{"error_code":"RESOURCE_NOT_FOUND","detailed_error_description":"Transaction x not found at this location."}`)),
	} {
		if err := c.check(x); err == nil {
			t.Errorf("%s: drift not detected", name)
		}
	}
	// An unknown path must still answer a GP Error.
	x := exchange{method: "GET", path: "/nowhere", header: http.Header{}, reply: reply{status: 404, body: []byte(`{"message":"not found"}`)}}
	if err := c.check(x); err == nil {
		t.Errorf("non-GP error body on an unknown path not detected")
	}
	// A request the document rejects must not succeed.
	x = exchangeWith(200, golden)
	x.body = []byte(`{"gratuity_amount":200}`)
	if err := c.check(x); err == nil {
		t.Errorf("a 200 to a request the document rejects was not detected")
	}
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
