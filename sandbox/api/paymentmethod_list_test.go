package api_test

import (
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// paymentMethodsOf lists GET path, failing the test on anything but 200.
func (env *sandboxEnv) paymentMethodsOf(tok, method, path, body string) ([]map[string]any, map[string]any) {
	env.T.Helper()
	r := env.Do(method, path, apitest.APIHeader(tok), body)
	if r.Status != 200 {
		env.T.Fatalf("%s %s: %d %s", method, path, r.Status, r.Body)
	}
	got := r.JSON(env.T)
	var list []map[string]any
	for _, p := range got["payment_methods"].([]any) {
		list = append(list, p.(map[string]any))
	}
	return list, got
}

// The stored cards, listed and filtered (Java GpApiReportingStoredPaymentMethodsTest
// ReportFindStoredPaymentMethodsPaged_By_Id, _By_RandomId, _By_Reference, _By_Status,
// _OrderBy_TimeCreated_*; PHP ReportingStoredPaymentMethodsTest testFindStoredPaymentMethod_By_Id,
// _By_RandomId, _By_StartDateAndEndDate).
func TestPaymentMethodList(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	first := env.mustTokenize(tok, "MULTIPLE")
	env.Clock.Advance(60e9)
	second := env.MustPost(tok, "/payment-methods", `{"account_name":"tokenization","reference":"ref-2","usage_mode":"SINGLE",`+
		`"card":{"number":"4242424242424242","expiry_month":"1","expiry_year":"2031"}}`)["id"].(string)

	all, body := env.paymentMethodsOf(tok, "GET", "/payment-methods", "")
	if body["total_record_count"] != 2.0 || len(all) != 2 || all[0]["id"] != second || all[1]["id"] != first ||
		body["merchant_id"] != apitest.MerchantOne || field(body, "paging", "order") != "DESC" {
		t.Fatalf("all: %v", body)
	}
	if c := all[1]["card"].(map[string]any); c["number_last4"] != "xxxxxxxxxxxx5262" || c["brand"] != "VISA" ||
		c["expiry_month"] != "12" || c["expiry_year"] != "30" || all[1]["status"] != "ACTIVE" {
		t.Errorf("first token: %v", all[1])
	}
	asc, _ := env.paymentMethodsOf(tok, "GET", "/payment-methods?order_by=TIME_CREATED&order=ASC", "")
	if asc[0]["id"] != first {
		t.Errorf("ascending: %v", asc)
	}
	for query, want := range map[string]int{
		"?id=" + first: 1, "?id=PMT_0b7e2b8e-6c41-4c3e-9d8a-1f0d5c2b9a77": 0, "?reference=ref-2": 1,
		"?status=ACTIVE": 2, "?status=DELETED": 0, "?number_last4=4242": 1, "?number_last4=0000": 0,
		"?from_time_created=2021-03-22&to_time_created=2021-03-22": 2, "?from_time_created=2021-03-23": 0,
		"?from_time_last_updated=2021-03-22": 2, "?page=2&page_size=1": 1, "?page=3&page_size=1": 0,
	} {
		if got, body := env.paymentMethodsOf(tok, "GET", "/payment-methods"+query, ""); len(got) != want {
			t.Errorf("GET /payment-methods%s: %d, want %d: %v", query, len(got), want, body)
		}
	}
	if got, _ := env.paymentMethodsOf(tok, "GET", "/merchants/"+apitest.MerchantOne+"/payment-methods", ""); len(got) != 2 {
		t.Errorf("partner form: %v", got)
	}
	if got := env.Do("GET", "/payment-methods?status=GONE", apitest.APIHeader(tok), "").GPError(t); got != apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "status contains unexpected data") {
		t.Errorf("bad status: %+v", got)
	}
}

// The tokens of one card (PHP ReportingStoredPaymentMethodsTest
// testFindStoredPaymentMethod_By_CardInfo, _By_OnlyCardNumberInfo,
// _By_WithoutMandatoryCardNumber; the body as PHP's report builder sends it).
func TestPaymentMethodSearch(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	id := env.mustTokenize(tok, "MULTIPLE")
	search := func(card string) []map[string]any {
		got, _ := env.paymentMethodsOf(tok, "POST", "/payment-methods/search",
			`{"account_name":"tokenization","account_id":null,"reference":null,"card":`+card+`}`)
		return got
	}
	found := search(`{"number":"4263970000005262","expiry_month":"12","expiry_year":"30"}`)
	if len(found) != 1 || found[0]["id"] != id || field(found[0], "card", "number_last4") != "xxxxxxxxxxxx5262" ||
		field(found[0], "card", "expiry_month") != "12" || field(found[0], "card", "expiry_year") != "30" {
		t.Errorf("by card: %v", found)
	}
	if got := search(`{"number":"4263970000005262","expiry_month":"11","expiry_year":"30"}`); len(got) != 0 {
		t.Errorf("another expiry: %v", got)
	}
	if got := search(`{"number":"4242424242424242","expiry_month":"12","expiry_year":"30"}`); len(got) != 0 {
		t.Errorf("another card: %v", got)
	}
	want := apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields : number")
	if got := env.Do("POST", "/payment-methods/search", apitest.APIHeader(tok), `{"account_name":"tokenization","card":{"expiry_month":"12","expiry_year":"30"}}`).GPError(t); got != want {
		t.Errorf("no number: %+v", got)
	}
	if got, _ := env.actionsOf(tok, "?resource=PAYMENT_METHODS"); len(got) != 1 {
		t.Errorf("searches recorded: %v", got)
	}
}
