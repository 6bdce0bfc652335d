package admin_test

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gorilla/mux"
	"github.com/gp-sandbox/gp-sandbox/sandbox/admin"
	"github.com/gp-sandbox/gp-sandbox/sandbox/api"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// Every request body the server reads as JSON is documented for what clients really
// send: the Node SDK's "application/json; charset=UTF-8" and no Content-Type at all
// (read as JSON, A2) find the same schema as application/json, so that a validating
// proxy in front of the sandbox lets them through.
func TestOpenAPIRequestBodiesAcceptSDKContentTypes(t *testing.T) {
	t.Parallel()
	c := apitest.MustContract(t)
	checked := 0
	for path, item := range c.Doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.RequestBody == nil || op.RequestBody.Value == nil {
				continue
			}
			content := op.RequestBody.Value.Content
			json := content.Get("application/json")
			if json == nil {
				continue
			}
			checked++
			want, _ := stdjson.Marshal(json.Schema)
			for _, ct := range []string{"application/json; charset=UTF-8", ""} {
				got := content.Get(ct)
				if got == nil {
					t.Errorf("%s %s: Content-Type %q finds no body", method, path, ct)
					continue
				}
				if schema, _ := stdjson.Marshal(got.Schema); string(schema) != string(want) {
					t.Errorf("%s %s: Content-Type %q does not find the JSON body schema", method, path, ct)
				}
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d request bodies checked", checked)
	}
}

// The SDKs call the API under /ucp: the document's /ucp server entry matches those
// paths for a validating proxy.
func TestOpenAPIMatchesUCPPaths(t *testing.T) {
	t.Parallel()
	c := apitest.MustContract(t)
	for _, path := range []string{"/ucp/accesstoken", "/ucp/transactions/TRN_x/adjustment", "/ucp/merchants/MER_x/orders"} {
		req, _ := http.NewRequest(http.MethodPost, "http://sandbox"+path, nil)
		if _, _, err := c.Router.FindRoute(req); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
}

var pathVar = regexp.MustCompile(`\{[^}]+\}`)

// Every admin route the admin API registers is in the document.
func TestOpenAPICoversEveryRoute(t *testing.T) {
	t.Parallel()
	c := apitest.MustContract(t)
	router := api.NewRouter()
	admin.NewServer(admin.Config{Pprof: true}).Register(router)
	checked := 0
	err := router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		path, err := route.GetPathTemplate()
		if err != nil || strings.HasPrefix(path, "/_sandbox/ui") || strings.HasPrefix(path, "/_sandbox/debug") {
			return nil // the inspector's pages and pprof are not API
		}
		methods, _ := route.GetMethods()
		for _, method := range methods {
			checked++
			req, _ := http.NewRequest(method, "http://sandbox"+pathVar.ReplaceAllString(path, "X1"), nil)
			if _, _, err := c.Router.FindRoute(req); err != nil {
				t.Errorf("%s %s is not in the document: %v", method, path, errors.Unwrap(err))
			}
		}
		return nil
	})
	if err != nil || checked < 15 {
		t.Fatalf("only %d admin routes checked (%v)", checked, err)
	}
}

// TestOpenAPIDocument validates the document (structure, refs, examples) and serves it.
func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	c := apitest.MustContract(t)
	for _, path := range []string{
		"/accesstoken",
		"/transactions/{id}/adjustment",
		"/merchants/{merchant_id}/transactions/{id}/adjustment",
		"/merchants/{merchant_id}/orders",
		"/_sandbox/health",
	} {
		if c.Doc.Paths.Find(path) == nil {
			t.Errorf("document lacks %s", path)
		}
	}
	env := mustSandbox(t)
	r := env.Do("GET", "/_sandbox/openapi.yaml", nil, "")
	if r.Status != 200 || r.Header.Get("Content-Type") != "application/yaml" {
		t.Fatalf("GET /_sandbox/openapi.yaml: %d %q", r.Status, r.Header.Get("Content-Type"))
	}
	file, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r.Body, file) {
		t.Errorf("served document differs from openapi.yaml")
	}
}

// With --admin-token, the server asks for it exactly where the document says: every
// /_sandbox/ call but the health check and this document, which holds no data (a
// machine-readable contract a client generator may fetch without a secret).
func TestOpenAPIAdminSecurityIsTheServers(t *testing.T) {
	t.Parallel()
	c := apitest.MustContract(t)
	env := mustSandbox(t, withAdminToken)
	param := regexp.MustCompile(`\{[^}]+\}`)
	open := 0
	for path, item := range c.Doc.Paths.Map() {
		if !strings.HasPrefix(path, "/_sandbox/") {
			continue
		}
		for method, op := range item.Operations() {
			guarded := op.Security != nil && len(*op.Security) > 0
			r := env.Do(method, param.ReplaceAllString(path, "x"), nil, "")
			if refused := r.Status == http.StatusUnauthorized; refused != guarded {
				t.Errorf("%s %s without the admin token: %d, the document says guarded %v", method, path, r.Status, guarded)
			}
			if !guarded {
				open++
			}
		}
	}
	if r := env.Do("GET", "/_sandbox/openapi.yaml", nil, ""); r.Status != 200 || open != 2 {
		t.Errorf("GET /_sandbox/openapi.yaml without the admin token: %d; %d open calls documented, want 2 (health, this document)", r.Status, open)
	}
}
