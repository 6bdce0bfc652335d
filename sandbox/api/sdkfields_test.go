package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// storedTransaction is the transaction's record as the store keeps it, in JSON.
func storedTransaction(t *testing.T, env *sandboxEnv, id string) string {
	t.Helper()
	var rec sandbox.Transaction
	if err := env.DB.View(func(tx sandbox.Tx) (err error) { rec, err = tx.Transaction(id); return err }); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rec)
	return string(b)
}

// What the field tables do with the members the SDKs send beyond the corpus's own
// expectations: token ids, the card's absence, lodging items in Java's naming,
// encryption, and the members no SDK sends.

func sdkSale(pm string, extra string) string {
	return `{"account_name":"transaction_processing","channel":"CP","amount":"1202","currency":"USD",` + extra + `"payment_method":` + pm + `}`
}

func TestSDKFieldsErrors(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	keyed := `{"entry_mode":"MANUAL","card":{"number":"4263970000005262","expiry_month":"12","expiry_year":"30"%s}}`
	cases := []struct {
		name, body string
		want       apitest.GPError
	}{
		{"unknown token", sdkSale(`{"entry_mode":"ECOM","id":"PMT_8b1e2f"}`, ""),
			apitest.Err(404, "RESOURCE_NOT_FOUND", "40116", "payment_method PMT_8b1e2f not found at this location.")},
		{"neither card nor id", sdkSale(`{"entry_mode":"MANUAL","name":"J"}`, ""),
			apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields payment_method.card")},
		{"malformed id with a card number", sdkSale(`{"entry_mode":"ECOM","id":"4263970000005262"}`, ""),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "payment_method.id: 426397******5262 contains unexpected data")},
		{"stored credential without sequence", sdkSale(strings.Replace(keyed, "%s", "", 1), `"initiator":"MERCHANT","stored_credential":{"model":"RECURRING"},`),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40007", "Request expects the following conditionally mandatory fields initiator, model and sequence.")},
		{"surcharge just above 5%", sdkSale(strings.Replace(keyed, "%s", "", 1), `"surcharge_amount":"61",`),
			apitest.Err(400, "INVALID_REQUEST_DATA", "50020", "The surcharge amount is greater than 5% of the transaction amount")},
		{"a member no SDK sends", sdkSale(strings.Replace(keyed, "%s", `,"colour":"red"`, 1), ""),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: payment_method.card.colour")},
		{"encryption type", sdkSale(`{"entry_mode":"SWIPE","card":{"track":"x"},"encryption":{"version":"05","type":"TEP1"}}`, ""),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "payment_method.encryption.type contains unexpected data")},
	}
	for _, c := range cases {
		r := env.Do("POST", "/transactions", apitest.APIHeader(tok), c.body)
		if got := r.GPError(t); got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
	ok := env.Do("POST", "/transactions", apitest.APIHeader(tok), sdkSale(strings.Replace(keyed, "%s", `,"brand":"MC"`, 1), `"surcharge_amount":"60",`))
	if ok.Status != 200 || ok.JSON(t)["status"] != "CAPTURED" {
		t.Errorf("a 5%% surcharge with PHP's brand: %d %s", ok.Status, ok.Body)
	}
}

func TestSDKFieldsLodgingItemsInEveryNaming(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	r := env.Do("POST", "/transactions/"+apitest.Preauthorized+"/incremental", apitest.APIHeader(tok), `{"amount":"100","lodging":{
		"charge_items":[{"Types":"NO_SHOW","Reference":"j","TotalAmount":"13.49","paymentMethodProgramCodes":["ASSURED_RESERVATION"]},
		                {"types":["MINI_BAR"],"reference":"p","total_amount":"250"}],
		"lodging.charge_items":[{"types":"PHONE","total_amount":null}]}}`)
	if r.Status != 200 {
		t.Fatalf("incremental: %d %s", r.Status, r.Body)
	}
	detail := storedTransaction(t, env, apitest.Preauthorized)
	for _, want := range []string{
		`{"types":["NO_SHOW"],"reference":"j","total_amount":"1349","payment_method_program_codes":["ASSURED_RESERVATION"]}`,
		`{"types":["MINI_BAR"],"reference":"p","total_amount":"250"}`,
		`{"types":["PHONE"]}`,
	} {
		if !strings.Contains(detail, want) {
			t.Errorf("stored lodging lacks %s:\n%s", want, detail)
		}
	}
	bad := env.Do("POST", "/transactions/"+apitest.Preauthorized+"/incremental", apitest.APIHeader(tok), `{"amount":"100","lodging":{"charge_items":[{"TotalAmount":"13.499"}]}}`)
	if got, want := bad.GPError(t), (apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "lodging.charge_items.TotalAmount contains unexpected data")); got != want {
		t.Errorf("three decimals: got %+v, want %+v", got, want)
	}
}

func TestSDKFieldsEncryptionRecorded(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	// A clear track with the encryption block: the sandbox cannot decrypt, but keeps
	// the scheme, and never the KSN.
	r := env.Do("POST", "/transactions", apitest.APIHeader(tok), sdkSale(`{"entry_mode":"SWIPE","card":{"track":";4012002000060016=30121011803939600000?","track_number":"2","chip_condition":"CHIP_FAILED_PREV_FAILED"},
		"encryption":{"version":"05","method":"KSN","info":"//89P4EAKAADiA==","type":"BINARY"}}`, ""))
	if r.Status != 200 {
		t.Fatalf("sale: %d %s", r.Status, r.Body)
	}
	id := r.JSON(t)["id"].(string)
	detail := storedTransaction(t, env, id)
	if !strings.Contains(detail, `"encryption":{"version":"05","type":"BINARY"}`) || strings.Contains(detail, "//89P4EAKAADiA==") {
		t.Errorf("encryption as stored:\n%s", detail)
	}
}
