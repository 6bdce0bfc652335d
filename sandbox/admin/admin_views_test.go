package admin_test

import (
	"testing"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// The admin transaction answers, byte for byte: the members of the public blocks it
// embeds, in their place, and the admin API's own after them. The OpenAPI examples
// marked x-golden are these files (TestOpenAPIExamplesAreGolden).
func TestAdminTransactionGolden(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	seed := `{"id":"TRN_MyTest0001","merchant_id":"` + apitest.MerchantOne + `","time_created":"2021-03-21T09:00:00.000Z",` +
		`"type":"SALE","status":"CAPTURED","amount":"2000","currency":"USD","country":"US","reference":"my-test","batch_id":"BAT_100"}`
	r := env.Do("PUT", "/_sandbox/transactions/TRN_MyTest0001", apitest.JSONHeader(), seed)
	if r.Status != 200 {
		t.Fatalf("seed: %d %s", r.Status, r.Body)
	}
	testrun.MustMatchGolden(t, "admin_transaction_seeded.json", r.Body)

	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	adjust := `{"gratuity_amount":"300","payment_method":{"card":{"tag":"9F270180"}}}`
	if r := env.Do("POST", "/transactions/TRN_MyTest0001/adjustment", apitest.APIHeader(tok), adjust); r.Status != 200 {
		t.Fatalf("adjust: %d %s", r.Status, r.Body)
	}
	r = env.Do("GET", "/_sandbox/transactions/TRN_MyTest0001", nil, "")
	if r.Status != 200 {
		t.Fatalf("get: %d %s", r.Status, r.Body)
	}
	testrun.MustMatchGolden(t, "admin_transaction_adjusted.json", r.Body)
}
