package api_test

import (
	stdjson "encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/api"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
)

// Every request body the server reads as JSON is documented for what clients really
// send: the Node SDK's "application/json; charset=UTF-8" and no Content-Type at all
// (read as JSON, A2) find the same schema as application/json, so that a validating
// proxy in front of the sandbox lets them through.
func TestOpenAPIRequestBodiesAcceptSDKContentTypes(t *testing.T) {
	c := mustContract(t)
	checked := 0
	for path, item := range c.doc.Paths.Map() {
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
	c := mustContract(t)
	for _, path := range []string{"/ucp/accesstoken", "/ucp/transactions/TRN_x/adjustment", "/ucp/merchants/MER_x/orders"} {
		req, _ := http.NewRequest(http.MethodPost, "http://sandbox"+path, nil)
		if _, _, err := c.router.FindRoute(req); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
}

var pathVar = regexp.MustCompile(`\{[^}]+\}`)

// Every admin route the server registers is in the document.
func TestOpenAPICoversEveryRoute(t *testing.T) {
	c := mustContract(t)
	sb, err := app.Open(app.Config{DB: ":memory:"})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	routes := api.RoutesOf(sb.Handler())
	if len(routes) < 15 {
		t.Fatalf("only %d routes: %v", len(routes), routes)
	}
	for _, r := range routes {
		if !strings.HasPrefix(r.Path, "/_sandbox/") || strings.HasPrefix(r.Path, "/_sandbox/ui") || strings.HasPrefix(r.Path, "/_sandbox/debug") {
			continue // the inspector's pages and pprof are not API
		}
		req, _ := http.NewRequest(r.Method, "http://sandbox"+pathVar.ReplaceAllString(r.Path, "X1"), nil)
		if _, _, err := c.router.FindRoute(req); err != nil {
			t.Errorf("%s %s is not in the document: %v", r.Method, r.Path, errors.Unwrap(err))
		}
	}
}
