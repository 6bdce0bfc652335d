package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// The fuzz targets send arbitrary bodies through the whole handler, with a real
// store behind it: whatever comes in, the answer is 200 with a JSON object or a GP
// error of the catalogue with its three fields, never a 500 and never a panic. Their
// seeds run in every `go test`; run one for longer with e.g.
//
//	go test -run '^$' -fuzz FuzzAdjustmentBody -fuzztime 10m ./sandbox/api/

func FuzzTokenBody(f *testing.F) {
	for _, seed := range []string{
		apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, ""),
		apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, `"permissions":["MMA_POST_Order"],"seconds_to_expire":600,"interval_to_expire":"1_HOUR","restricted_token":"YES"`),
		apitest.TokenBody(apitest.PartnerApp, "wrong", ""),
		`{"app_id":"a","nonce":"n","secret":"s","grant_type":"password"}`,
		`{"seconds_to_expire":1e400}`, `[]`, `null`, `{"a":1}{}`,
	} {
		f.Add([]byte(seed))
	}
	fuzzEndpoint(f, "/accesstoken", false)
}

func FuzzAdjustmentBody(f *testing.F) {
	for _, seed := range []string{
		`{"amount":"100","gratuity_amount":"20","payment_method":{"card":{"tag":"9F02"}}}`,
		`{"payment_method":{"card":{}}}`, `{"amount":"000"}`, `{"amount":1000}`,
		"{\"amount\":\"\xff\"}", `{"gratuity_amount":"1","tip":"2"}`, `[]`, `{}`,
	} {
		f.Add([]byte(seed))
	}
	fuzzEndpoint(f, "/transactions/"+apitest.CapturedOne+"/adjustment", true)
}

func FuzzOrderBody(f *testing.F) {
	for _, seed := range []string{
		`{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":"2"}}],"status":"FOR_REVIEW"}`,
		`{"addresses":[{"functions":["SHIPPING"],"contact_phone":{"country_code":"1","subscriber_number":"5551234"}}]}`,
		`{"payment_method":{"card":{"number":"4263970000005262","cvv":"123","expiry_month":"12","expiry_year":"2030"}}}`,
		`{"notifications":{"status_url":"https://x.example/h"}}`, `{"products":[null]}`, `{"products":{}}`,
	} {
		f.Add([]byte(seed))
	}
	fuzzEndpoint(f, "/merchants/"+apitest.MerchantOne+"/orders", true)
}

func fuzzEndpoint(f *testing.F, path string, authenticated bool) {
	sb, err := app.Open(app.Config{MaxBody: 64 << 10})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { sb.Close() })
	handler := sb.Handler()
	token := ""
	if authenticated {
		rec := serve(handler, httptest.NewRequest("POST", "/accesstoken", bytes.NewBufferString(apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, ""))))
		var t struct{ Token string }
		if err := json.Unmarshal(rec.Body.Bytes(), &t); err != nil || t.Token == "" {
			f.Fatalf("token: %d %s", rec.Code, rec.Body)
		}
		token = t.Token
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req := clientRequest("POST", path, token, body)
		if token == "" {
			req.Header.Del("Authorization") // the token request itself: no credentials, no version
			req.Header.Del("X-GP-Version")
		}
		mustBeGPAnswer(t, body, serve(handler, req))
	})
}

// clientRequest is an API request with the token and headers an SDK sends.
func clientRequest(method, path, token string, body []byte) *http.Request {
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-GP-Version", apitest.Version)
	req.Header.Set("Content-Type", "application/json")
	return req
}

// serve answers req.
func serve(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// gp502s are the detailed codes of the 502s GP answers and the sandbox models: a
// batch of declined sales only closed, the processing-error test cards, a CVV that is
// no number, a failure downstream. Any other 502 is the sandbox's fault.
var gp502s = []string{"500010", "50013", "50018", "50046"}

// mustBeGPAnswer fails unless rec is a 200 with a JSON object or a GP error with its
// three fields. The only 5xx it takes are GP's own 502s (gp502s).
func mustBeGPAnswer(t *testing.T, body []byte, rec *httptest.ResponseRecorder) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("%q: answer is not a JSON object: %s", body, rec.Body.Bytes())
	}
	if rec.Code == http.StatusOK {
		return
	}
	e, isGPError := apitest.AsGPError(rec.Body.Bytes())
	gp502 := rec.Code == http.StatusBadGateway && slices.Contains(gp502s, e.Detail)
	if rec.Code >= 500 && !gp502 || !isGPError {
		t.Fatalf("%q: %d %s", body, rec.Code, rec.Body.Bytes())
	}
}

// FuzzListQuery sends arbitrary query strings to every list the API answers, the
// back office's included: whatever the filters, paging and order, the answer is a
// 200 with a JSON object or a GP error, never a 500 and never a panic. The first byte
// of an input picks the list.
func FuzzListQuery(f *testing.F) {
	lists := []string{
		"/transactions", "/actions", "/payment-methods", "/merchants", "/accounts", "/settlement/transactions",
		"/settlement/deposits", "/settlement/disputes", "/disputes", "/merchants/" + apitest.MerchantOne + "/accounts",
	}
	queries := []string{
		"page=1&page_size=5&order_by=TIME_CREATED&order=DESC&from_time_created=2021-01-01&to_time_created=2030-12-31",
		"status=CAPTURED&channel=CP&amount=100&currency=USD&card_number_first6=426397&card_number_last4=5262",
		"page=0&page_size=1001&order_by=ID&order=ASC", "account_name=transaction_processing&type=SALE&entry_mode=CHIP",
		"from_deposit_time_created=2021-03-01&to_deposit_time_created=2021-03-31&status=FUNDED&deposit_id=DEP_1",
		"stage=CHARGEBACK&adjustment_funding=CREDIT&from_stage_time_created=2021-01-01&system.mid=101023947262",
		"status=ACTIVE&from_time_created=2021-13-45&page_size=%zz&page=-1&order_by=&order=SIDEWAYS",
		"merchant_id=" + apitest.MerchantOne + "&resource=TRANSACTIONS&number_first6=4263&number_last4=1",
		"app_id=" + apitest.PartnerApp + "&resource_id=TRN_1&version=2021-03-22&merchant_name=a%26b",
		"page_size=5&page=999999999999999999999&from_time_created=0001-01-01T00:00:00Z",
	}
	for i := range lists {
		for _, query := range queries {
			f.Add(append([]byte{byte(i)}, query...))
		}
	}
	env := apitest.New(f)
	// The merchant and account lists are the boarding app's.
	partner, boarding := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, ""), env.MustToken(layoutApp, layoutKey, "")
	f.Fuzz(func(t *testing.T, input []byte) {
		if len(input) == 0 {
			return
		}
		path := lists[int(input[0])%len(lists)]
		tok := partner
		if strings.HasPrefix(path, "/merchants") || strings.HasPrefix(path, "/accounts") {
			tok = boarding
		}
		req := clientRequest("GET", "/", tok, nil)
		req.URL.Path, req.URL.RawQuery = path, string(input[1:]) // as sent: the query may not parse
		mustBeGPAnswer(t, input, serve(env.Handler, req))
	})
}
