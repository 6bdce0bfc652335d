package apitest

// The contract check: the OpenAPI document the sandbox serves is loaded and validated
// once per test binary, and Env.Do checks every request a test sends, and every answer
// it gets, against it. kin-openapi is imported here and only here.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
)

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
