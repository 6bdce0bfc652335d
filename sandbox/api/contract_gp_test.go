package api_test

import (
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// Card-present behaviour the contract marks as the real API's, through HTTP: the
// permission of every operation GP names, and every test card of the table.

func TestGPPermissionOfEachOperation(t *testing.T) {
	env := mustSandbox(t)
	partner := env.PartnerToken()
	sale := env.MustCharge(partner, apitest.SaleBody("100", "AUTO", apitest.ManualCard))["id"].(string)
	auth := env.MustCharge(partner, apitest.SaleBody("100", "LATER", apitest.ManualCard))["id"].(string)
	authorizeOnly := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, `"permissions":["TRN_POST_Authorize"]`)
	captureOnly := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, `"permissions":["TRN_POST_Capture"]`)
	denied := apitest.Err(403, "ACTION_NOT_AUTHORIZED", "40212", "Permission not enabled to execute action")
	cases := []struct{ name, tok, method, path, body string }{
		{"list without TRN_GET_List", captureOnly, "GET", "/transactions", ""},
		{"capture without TRN_POST_Capture", authorizeOnly, "POST", "/transactions/" + auth + "/capture", `{}`},
		{"refund without TRN_POST_Refund", captureOnly, "POST", "/transactions/" + sale + "/refund", `{}`},
		{"reversal without TRN_POST_Reverse", captureOnly, "POST", "/transactions/" + sale + "/reversal", `{}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := env.Do(tc.method, tc.path, apitest.APIHeader(tc.tok), tc.body)
			if got := r.GPError(t); got != denied {
				t.Errorf("got %+v, want %+v", got, denied)
			}
		})
	}
	// Denied, nothing happened: the partner's own token still captures, refunds and reverses.
	for _, path := range []string{"/transactions/" + auth + "/capture", "/transactions/" + sale + "/refund", "/transactions/" + auth + "/reversal"} {
		if r := env.Do("POST", path, apitest.APIHeader(partner), `{}`); r.Status != 200 {
			t.Errorf("POST %s after the denials: %d %s", path, r.Status, r.Body)
		}
	}
}

func TestGPTestCards(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	card := func(number, cvv string) string {
		return `{"number":"` + number + `","expiry_month":"12","expiry_year":"30","cvv":"` + cvv + `"}`
	}
	cases := []struct{ name, card, status, result string }{
		{"amex approved", card("374101000000608", "1234"), "CAPTURED", "00"},
		{"declined 102", card("4000130000001724", "123"), "DECLINED", "102"},
		{"declined 103", card("4000160000004147", "123"), "DECLINED", "103"},
		{"declined 111", card("4242420000000091", "123"), "DECLINED", "111"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", tc.card))
			if got["status"] != tc.status || field(got, "payment_method", "result") != tc.result {
				t.Errorf("status %v result %v, want %s %s: %v", got["status"], field(got, "payment_method", "result"), tc.status, tc.result, got)
			}
			approved := tc.status != "DECLINED"
			if authcode := field(got, "payment_method", "card", "authcode"); (authcode != "") != approved {
				t.Errorf("authcode %q for status %s", authcode, tc.status)
			}
		})
	}
	r := env.Do("POST", "/transactions", apitest.APIHeader(tok), apitest.SaleBody("1000", "AUTO", card("374101000000608", "123")))
	want := apitest.Err(400, "INVALID_REQUEST_DATA", "40085", "Security Code/CVV2/CVC must be 4 digits")
	if got := r.GPError(t); got != want {
		t.Errorf("amex with a 3-digit CVV: got %+v, want %+v", got, want)
	}
}

// GP answers 404 40008 naming the id for each of these operations on an unknown
// transaction.
func TestGPUnknownTransactionEachOperation(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	const id = "TRN_NoSuchTransaction0000000000001"
	want := apitest.Err(404, "RESOURCE_NOT_FOUND", "40008", "Transaction "+id+" not found at this location.")
	for _, tc := range []struct{ op, body string }{
		{"capture", `{}`},
		{"refund", `{}`},
		{"reversal", `{}`},
		{"adjustment", `{"gratuity_amount":"100"}`},
		{"incremental", `{"amount":"100"}`},
	} {
		t.Run(tc.op, func(t *testing.T) {
			r := env.Do("POST", "/transactions/"+id+"/"+tc.op, apitest.APIHeader(tok), tc.body)
			if got := r.GPError(t); got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}
