package admin_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// FuzzAdminBody sends arbitrary bodies to the admin API's writes (seeding and
// changing records, the terminal's customer, the clock, scenarios; not the reset or
// the snapshots, which act on everything or on files) and asks for a 2xx with a JSON
// object (or an empty 204) or a GP error with its three fields: never a 500 and never
// a panic. The
// first byte of an input picks the call.
func FuzzAdminBody(f *testing.F) {
	calls := []struct {
		method, path string
		seeds        []string
	}{
		{"POST", "/_sandbox/transactions", []string{`{"amount":"250"}`, `{"status":"PREAUTHORIZED"}`,
			`{"merchant_id":"` + apitest.MerchantOne + `","amount":"100","payment_method":{"result":"00","card":{"number":"4263970000005262","authcode":"5425 2334"}}}`}},
		{"PUT", "/_sandbox/transactions/TRN_Seeded1", []string{`{"merchant_id":"` + apitest.MerchantOne + `","amount":"100","status":"CAPTURED"}`}},
		{"POST", "/_sandbox/merchants/" + apitest.MerchantOne + "/status", []string{`{"status":"SUSPENDED"}`, `{"status":"ACTIVE"}`}},
		{"POST", "/_sandbox/orders/ORD_Nope/status", []string{`{"status":"SHIPPED"}`}},
		{"POST", "/_sandbox/disputes", []string{`{"transaction_id":"` + apitest.CapturedOne + `"}`, `{"transaction_id":"` + apitest.CapturedOne + `","reason_code":"104","amount":"100"}`}},
		{"POST", "/_sandbox/devices/" + deviceOne, []string{`{"mode":"INITIATED"}`, `{"mode":"COMPLETE"}`, `{"account_id":"TRA_00000000000000000000000000000001"}`}},
		{"POST", "/_sandbox/devices/" + deviceOne + "/present", []string{`{"card":"visa_contactless"}`, `{"card":"mastercard_manual","tip":"99999999999999999999"}`, `{"pin":"1234"}`, `{"card":"4263970000005262"}`}},
		{"POST", "/_sandbox/devices/" + deviceOne + "/tip", []string{`{"tip":"0250"}`}},
		{"POST", "/_sandbox/devices/" + deviceOne + "/cancel", []string{``}},
		{"POST", "/_sandbox/clock", []string{`{"advance":"1h"}`, `{"advance":"23h59m59s"}`, `{"time":"2030-01-01T00:00:00Z"}`}},
		{"POST", "/_sandbox/scenarios", []string{apitest.InstalledScenario}},
		{"PUT", "/_sandbox/scenarios/active", []string{`{"names":["my-decline"]}`, `{"names":[]}`}},
	}
	for i, c := range calls {
		for _, seed := range c.seeds {
			f.Add(append([]byte{byte(i)}, seed...))
		}
	}
	env := apitest.New(f)
	f.Fuzz(func(t *testing.T, input []byte) {
		if len(input) == 0 {
			return
		}
		c := calls[int(input[0])%len(calls)]
		req := httptest.NewRequest(c.method, "http://localhost"+c.path, bytes.NewReader(input[1:]))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		env.Handler.ServeHTTP(rec, req)
		if rec.Code == http.StatusNoContent && rec.Body.Len() == 0 {
			return
		}
		var m map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatalf("%s %s %q: %d, not a JSON object: %s", c.method, c.path, input[1:], rec.Code, rec.Body)
		}
		if rec.Code < 300 {
			return
		}
		if _, isGPError := apitest.AsGPError(rec.Body.Bytes()); rec.Code >= 500 || !isGPError {
			t.Fatalf("%s %s %q: %d %s", c.method, c.path, input[1:], rec.Code, rec.Body)
		}
	})
}
