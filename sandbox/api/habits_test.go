package api_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
	"github.com/gp-sandbox/gp-sandbox/sandbox/yamlfile"
)

// The wire habits of the official SDKs that differ from one another: what one SDK
// sends must be read as GP reads it.

// pretty re-indents a compact JSON body the way the PHP SDK sends it.
func pretty(t *testing.T, compact string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(compact), "", "    "); err != nil {
		t.Fatalf("indent %s: %v", compact, err)
	}
	return b.String() + "\n"
}

// The PHP SDK sends an empty payload as the JSON array []: GP reads it as {}. Any
// other array stays "unexpected data".
func TestEmptyArrayBodyIsEmptyObject(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	ops := []struct {
		name, path string
		header     map[string]string
	}{
		{"accesstoken", "/accesstoken", apitest.JSONHeader()},
		{"adjustment", "/transactions/" + apitest.CapturedOne + "/adjustment", apitest.APIHeader(tok)},
		{"order", "/merchants/" + apitest.MerchantOne + "/orders", apitest.APIHeader(tok)},
	}
	// What the PHP SDK sends as [] most: capture, refund, reverse, reauthorize with no
	// amount (here of an unknown transaction, so that the answers are stateless).
	for _, action := range []string{"capture", "refund", "reversal", "reauthorization", "incremental", "adjustment"} {
		ops = append(ops, struct {
			name, path string
			header     map[string]string
		}{action + " of an unknown transaction", "/transactions/TRN_doesnotexist/" + action, apitest.APIHeader(tok)})
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			want := env.Do("POST", op.path, op.header, `{}`)
			for _, body := range []string{`[]`, " [ \n\t] \n"} {
				got := env.Do("POST", op.path, op.header, body)
				if got.Status != want.Status {
					t.Errorf("%q: %d %s, want as {}: %d %s", body, got.Status, got.Body, want.Status, want.Body)
					continue
				}
				if want.Status != 200 && !bytes.Equal(got.Body, want.Body) {
					t.Errorf("%q: %s, want as {}: %s", body, got.Body, want.Body)
				}
			}
			for _, body := range []string{`[1]`, `[{}]`, `[[]]`, `[] []`, `[null]`} {
				got := env.Do("POST", op.path, op.header, body).GPError(t)
				if got != (apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "Request body contains unexpected data")) {
					t.Errorf("%q: %+v", body, got)
				}
			}
		})
	}
}

// Pretty-printed bodies get, byte for byte, the answers compact ones get.
func TestPrettyBodiesAnswerAsCompact(t *testing.T) {
	env := mustSandbox(t)
	r := env.Do("POST", "/accesstoken", apitest.JSONHeader(), pretty(t, apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, "")))
	if r.Status != 200 {
		t.Fatalf("token: %d %s", r.Status, r.Body)
	}
	testrun.MustMatchGolden(t, "accesstoken.json", r.Body)
	tok := r.JSON(t)["token"].(string)

	steps := []struct {
		path, body, golden string
	}{
		{"/transactions/" + apitest.CapturedOne + "/adjustment", `{"amount":"1100","gratuity_amount":"200"}`, "adjustment.json"},
		{"/merchants/" + apitest.MerchantOne + "/orders", `{"status":"FOR_REVIEW","products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":2}}]}`, "order_for_review.json"},
		{"/merchants/" + apitest.MerchantOne + "/orders", `{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":1}}],"notifications":{"status_url":"https://partner.example/hooks"}}`, "order.json"},
	}
	for _, s := range steps {
		r := env.Do("POST", s.path, apitest.APIHeader(tok), pretty(t, s.body))
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", s.golden, r.Status, r.Body)
		}
		testrun.MustMatchGolden(t, s.golden, r.Body)
	}

	// Errors name the same field whatever the layout.
	got := env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok), pretty(t, `{"payment_method":{"card":{"tag":"XYZ"}}}`)).GPError(t)
	if got != (apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "payment_method.card.tag contains unexpected data")) {
		t.Errorf("pretty error: %+v", got)
	}
}

// A scenario's body condition matches a pretty-printed body as it matches a compact one.
func TestScenarioBodyMatchIgnoresLayout(t *testing.T) {
	scenarios, err := yamlfile.LoadScenarios(fstest.MapFS{"picky.yaml": {Data: []byte(`version: 1
name: picky
rules:
  - when:
      operation: adjustment
      body: {amount: "1234", payment_method: {card: {tag: "9F02"}}}
    then:
      status: 502
      error: {code: SYSTEM_ERROR_DOWNSTREAM, detail: "50046"}
`)}})
	if err != nil {
		t.Fatal(err)
	}
	env := mustSandboxWith(t, apitest.Options{Scenarios: scenarios})
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	h := apitest.APIHeader(tok, "X-Sandbox-Scenario", "picky")
	path := "/transactions/" + apitest.CapturedOne + "/adjustment"
	for _, body := range []string{
		`{"amount":"1234","payment_method":{"card":{"tag":"9F02"}}}`,
		pretty(t, `{"payment_method":{"card":{"tag":"9F02"}},"amount":"1234"}`),
	} {
		if r := env.Do("POST", path, h, body); r.Status != 502 || r.Header.Get("X-Sandbox-Rule") != "picky#0" {
			t.Errorf("%q: %d %s, want the scripted 502", body, r.Status, r.Body)
		}
	}
	if r := env.Do("POST", path, h, pretty(t, `{"amount":"1235"}`)); r.Status != 200 {
		t.Errorf("other amount: %d %s, want no match", r.Status, r.Body)
	}
}

// In replay mode, a pretty-printed repeat of a compact request (members in another
// order too) is the same request: it gets the first answer again, not 409.
func TestReplayIgnoresLayout(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	h := apitest.APIHeader(tok, "X-Sandbox-Scenario", "idempotency-replay", "X-GP-Idempotency", "layout-1")
	path := "/merchants/" + apitest.MerchantOne + "/orders"
	first := env.Do("POST", path, h, `{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":"1"}}],"pricing_profile":"standard"}`)
	if first.Status != 200 {
		t.Fatalf("first: %d %s", first.Status, first.Body)
	}
	again := env.Do("POST", path, h, pretty(t, `{"pricing_profile":"standard","products":[{"device":{"quantity":"1"},"id":"PRO_TRA_CP-US-CARD-A920_SP"}]}`))
	if again.Status != 200 || !bytes.Equal(first.Body, again.Body) {
		t.Errorf("pretty repeat: %d %s, want the first answer %s", again.Status, again.Body, first.Body)
	}
	other := env.Do("POST", path, h, pretty(t, `{"pricing_profile":"standard","products":[{"device":{"quantity":"2"},"id":"PRO_TRA_CP-US-CARD-A920_SP"}]}`))
	if got := other.GPError(t); got.Status != 409 || got.Code != "DUPLICATE_ACTION" {
		t.Errorf("another body: %+v", got)
	}
}

// Without a valid token an operation is refused at authentication, whatever else is
// wrong with the request: nothing about the operation is looked at first.
func TestUnauthenticatedRefusedFirst(t *testing.T) {
	env := mustSandbox(t)
	// Every authenticated route, plain and partner form: a new route gets a row.
	type op struct{ name, method, path string }
	ops := []op{{"order", "POST", "/merchants/" + apitest.MerchantOne + "/orders"}}
	for _, prefix := range []string{"", "/merchants/" + apitest.MerchantOne} {
		txn := prefix + "/transactions/" + apitest.CapturedOne
		ops = append(ops,
			op{"adjustment", "POST", txn + "/adjustment"},
			op{"transaction", "POST", prefix + "/transactions"},
			op{"transaction detail", "GET", txn},
			op{"verification", "POST", prefix + "/verifications"},
			op{"capture", "POST", txn + "/capture"},
			op{"refund", "POST", txn + "/refund"},
			op{"reversal", "POST", txn + "/reversal"},
			op{"reauthorization", "POST", txn + "/reauthorization"},
			op{"incremental", "POST", txn + "/incremental"},
		)
	}
	long := strings.Repeat("X", 51)
	defects := []struct {
		name   string
		path   func(string) string
		header map[string]string
		body   string
	}{
		{"nothing else wrong", nil, nil, `{"amount":"1"}`},
		{"no X-GP-Version", nil, map[string]string{"X-GP-Version": ""}, `{"amount":"1"}`},
		{"X-GP-Version too long", nil, map[string]string{"X-GP-Version": long}, `{"amount":"1"}`},
		{"X-GP-Idempotency too long", nil, map[string]string{"X-GP-Idempotency": long}, `{"amount":"1"}`},
		{"X-Sandbox-Session too long", nil, map[string]string{"X-Sandbox-Session": strings.Repeat("S", 101)}, `{"amount":"1"}`},
		{"unknown scenario", nil, map[string]string{"X-Sandbox-Scenario": "no-such-scenario"}, `{"amount":"1"}`},
		{"path id too long", func(p string) string {
			return strings.ReplaceAll(strings.ReplaceAll(p, apitest.CapturedOne, long), apitest.MerchantOne, long)
		}, nil, `{"amount":"1"}`},
		{"foreign Content-Type", nil, map[string]string{"Content-Type": "text/xml"}, `<amount>1</amount>`},
		{"body not JSON", nil, nil, `{"amount":`},
		{"body an array", nil, nil, `[1]`},
		{"unknown field", nil, nil, `{"tip":"1"}`},
		{"field of wrong type", nil, nil, `{"amount":1}`},
		{"body over the limit", nil, nil, `{"amount":"` + strings.Repeat("1", 70<<10) + `"}`},
	}
	tokens := map[string]map[string]string{
		"no Authorization": {"Authorization": ""},
		"unknown token":    {"Authorization": "Bearer nosuchtoken"},
		"not a bearer":     {"Authorization": "Basic dXNlcjpwYXNz"},
	}
	want := apitest.Err(401, "NOT_AUTHENTICATED", "40001", "Invalid access token")
	for _, op := range ops {
		for _, d := range defects {
			for tokName, tokHeader := range tokens {
				path := op.path
				if d.path != nil {
					path = d.path(path)
				}
				h := map[string]string{"Content-Type": "application/json", "X-GP-Version": apitest.Version}
				for k, v := range d.header {
					h[k] = v
				}
				for k, v := range tokHeader {
					h[k] = v
				}
				for k, v := range h {
					if v == "" {
						delete(h, k)
					}
				}
				if got := env.Do(op.method, path, h, d.body).GPError(t); got != want {
					t.Errorf("%s %s, %s, %s: %+v", op.method, path, d.name, tokName, got)
				}
			}
		}
	}
}
