package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// At either edge of the sandbox clock every operation answers as on any other day,
// and a time past the edge is refused naming the last one it takes: no
// 500 from a token expiry, a retry or an order step the timestamps cannot show.
func TestClockEdgesAnswerNo500(t *testing.T) {
	base, stop := mustRun(t, "--db", ":memory:")
	defer stop()
	dead := "http://127.0.0.1:1/hook" // a listener that is never there: a retry is planned
	status, body := post(t, base+"/_sandbox/clock", "", `{"set":"9999-12-31T23:59:59.999Z"}`)
	if desc, _ := body["detailed_error_description"].(string); status != 400 || body["detailed_error_code"] != "40213" ||
		!strings.Contains(desc, "to 9998-12-31T23:59:59.999Z") {
		t.Errorf("set to GP's last timestamp: %d %v, want 400 40213 naming 9998-12-31T23:59:59.999Z", status, body)
	}
	for _, edge := range []string{"9998-12-31T23:59:59.999Z", "0001-01-01T00:00:00.000Z"} {
		if status, body := post(t, base+"/_sandbox/reset", "", ``); status != 200 {
			t.Fatalf("reset: %d %v", status, body)
		}
		if status, body := post(t, base+"/_sandbox/clock", "", `{"set":"`+edge+`","freeze":true}`); status != 200 || body["now"] != edge {
			t.Fatalf("set to %s: %d %v", edge, status, body)
		}
		status, body := post(t, base+"/ucp/accesstoken", "", `{"app_id":"`+partnerApp+`","nonce":"edge","secret":"`+
			sandbox.Secret("edge", partnerKey)+`","grant_type":"client_credentials","seconds_to_expire":604800}`)
		if status != 200 {
			t.Fatalf("%s: token %d %v", edge, status, body)
		}
		tok := body["token"].(string)
		for _, call := range []struct {
			path, body string
			refusable  bool // a GP error answer (not a 5xx) is right: a card of 2030 has expired in 9998
		}{
			{"/transactions/TRN_CapturedSale000000000000000001/adjustment", `{"gratuity_amount":"100"}`, false},
			{"/transactions", `{"account_name":"transaction_processing","channel":"CP","type":"SALE","amount":"500","currency":"USD","country":"US","reference":"edge","payment_method":{"entry_mode":"MANUAL","card":{"number":"4263970000005262","expiry_month":"12","expiry_year":"30"}}}`, true},
			{"/merchants/" + merchantOne + "/orders", `{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP"}],"notifications":{"status_url":"` + dead + `"}}`, false},
			{"/batches/BAT_1136475", `{}`, false},
		} {
			if status, body := post(t, base+"/ucp"+call.path, tok, call.body); status >= 500 || status != 200 && !call.refusable {
				t.Errorf("%s: POST %s: %d %v", edge, call.path, status, body)
			}
		}
		for _, path := range []string{"/ucp/transactions/TRN_CapturedSale000000000000000001", "/_sandbox/notifications", "/_sandbox/transactions", "/_sandbox/orders"} {
			req, _ := http.NewRequest("GET", base+path, nil)
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("X-GP-Version", "2021-03-22")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("%s: GET %s: %d", edge, path, resp.StatusCode)
			}
		}
	}
}
