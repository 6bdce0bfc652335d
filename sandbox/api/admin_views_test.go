package api_test

import "testing"

// The admin transaction answers, byte for byte: the members of the public blocks it
// embeds, in their place, and the admin API's own after them. The OpenAPI examples
// marked x-golden are these files (TestOpenAPIExamplesAreGolden).
func TestAdminTransactionGolden(t *testing.T) {
	env := mustSandbox(t)
	seed := `{"id":"TRN_MyTest0001","merchant_id":"` + merchantOne + `","time_created":"2021-03-21T09:00:00.000Z",` +
		`"type":"SALE","status":"CAPTURED","amount":"2000","currency":"USD","country":"US","reference":"my-test","batch_id":"BAT_100"}`
	r := env.do("PUT", "/_sandbox/transactions/TRN_MyTest0001", jsonHeader(), seed)
	if r.status != 200 {
		t.Fatalf("seed: %d %s", r.status, r.body)
	}
	mustMatchGolden(t, "admin_transaction_seeded.json", r.body)

	tok := env.mustToken(partnerApp, partnerKey, "")
	adjust := `{"gratuity_amount":"300","payment_method":{"card":{"tag":"9F270180"}}}`
	if r := env.do("POST", "/transactions/TRN_MyTest0001/adjustment", apiHeader(tok), adjust); r.status != 200 {
		t.Fatalf("adjust: %d %s", r.status, r.body)
	}
	r = env.do("GET", "/_sandbox/transactions/TRN_MyTest0001", nil, "")
	if r.status != 200 {
		t.Fatalf("get: %d %s", r.status, r.body)
	}
	mustMatchGolden(t, "admin_transaction_adjusted.json", r.body)
}
