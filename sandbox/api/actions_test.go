package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// actionsOf lists GET /actions with query, failing the test on anything but 200.
func (env *sandboxEnv) actionsOf(tok, query string) ([]map[string]any, map[string]any) {
	env.T.Helper()
	r := env.Do("GET", "/actions"+query, apitest.APIHeader(tok), "")
	if r.Status != 200 {
		env.T.Fatalf("GET /actions%s: %d %s", query, r.Status, r.Body)
	}
	body := r.JSON(env.T)
	var list []map[string]any
	for _, a := range body["actions"].([]any) {
		list = append(list, a.(map[string]any))
	}
	return list, body
}

// Every action is in GET /actions with what GP's ActionSummary carries; a refused
// request too, with its HTTP status; reads are not (Java GpApiReportingActionsTest
// ReportFindActionsPaged_By_ResourceId / _By_HttpResponseCode, PHP ReportingActionsTest
// testFindActions_FilterBy_ResourceId / _HttpResponseCode).
func TestActionsRecordEveryAction(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	sale := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))
	saleID := sale["id"].(string)
	env.mustTokenize(tok, "MULTIPLE")
	refused := env.Do("POST", "/transactions/TRN_NoSuchTransaction/capture", apitest.APIHeader(tok), `{}`)
	if refused.Status != 404 {
		t.Fatalf("capture of an unknown transaction: %d %s", refused.Status, refused.Body)
	}
	env.Do("GET", "/transactions/"+saleID, apitest.APIHeader(tok), "") // a read: not recorded

	all, body := env.actionsOf(tok, "")
	if body["total_record_count"] != 3.0 || body["current_page_size"] != 3.0 || len(all) != 3 ||
		body["merchant_id"] != apitest.MerchantOne || field(body, "paging", "order_by") != "TIME_CREATED" {
		t.Fatalf("all actions: %v", body)
	}

	bySale, _ := env.actionsOf(tok, "?resource=TRANSACTIONS&resource_id="+saleID)
	if len(bySale) != 1 {
		t.Fatalf("by resource_id: %v", bySale)
	}
	a := bySale[0]
	// The sale answered action.type AUTHORIZE, GP's name for it; its record says the same.
	want := map[string]any{
		"id": field(sale, "action", "id"), "type": "AUTHORIZE", "resource": "TRANSACTIONS", "resource_id": saleID,
		"resource_status": "CAPTURED", "version": apitest.Version, "http_response_code": "200", "response_code": "SUCCESS",
		"app_id": apitest.PartnerApp, "app_name": "sandbox_partner", "merchant_name": "Sandbox Merchant One",
		"account_name": "transaction_processing",
	}
	for k, v := range want {
		if a[k] != v {
			t.Errorf("sale's action %s = %v, want %v", k, a[k], v)
		}
	}

	failed, _ := env.actionsOf(tok, "?http_response_code=404")
	if len(failed) != 1 || failed[0]["type"] != "CAPTURE" || failed[0]["resource"] != "TRANSACTIONS" ||
		failed[0]["response_code"] != "RESOURCE_NOT_FOUND" || failed[0]["resource_id"] != "" {
		t.Errorf("the refused capture: %v", failed)
	}
	tokens, _ := env.actionsOf(tok, "?type=PAYMENT_METHOD_CREATE&account_name=tokenization")
	if len(tokens) != 1 || tokens[0]["resource"] != "PAYMENT_METHODS" || tokens[0]["resource_status"] != "ACTIVE" {
		t.Errorf("the token's action: %v", tokens)
	}
	for _, q := range []string{"?type=USERS", "?version=2020-05-10", "?id=ACT_nope", "?http_response_code=502", "?app_name=other"} {
		if got, body := env.actionsOf(tok, q); len(got) != 0 || body["total_record_count"] != 0.0 {
			t.Errorf("GET /actions%s: %v", q, body)
		}
	}
}

// The detail carries what the request sent, card members masked, and what its answer
// said (PHP ReportingActionsTest testReportActionDetail reads both).
func TestActionDetail(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	sale := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))
	id := field(sale, "action", "id").(string)
	got := env.Do("GET", "/actions/"+id, apitest.APIHeader(tok), "").JSON(t)
	received, sent := got["message_received"].(string), got["message_sent"].(string)
	if got["id"] != id || got["resource_id"] != sale["id"] || !strings.Contains(received, `"amount":"1000"`) ||
		!strings.Contains(sent, sale["id"].(string)) {
		t.Errorf("detail: %v", got)
	}
	if strings.Contains(received, "4263970000005262") || strings.Contains(received, `"cvv":"123"`) {
		t.Errorf("card data in clear in message_received: %s", received)
	}
}

// GP's answers to an unknown action and a foreign merchant_name (Java
// GpApiReportingActionsTest ReportActionDetailWithRandomId and
// ReportFindActionsPaged_By_RandomMerchantName; PHP testReportActionDetail_RandomId,
// testFindActions_FilterBy_RandomMerchantName).
func TestActionErrors(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	id := "ACT_0b7e2b8e-6c41-4c3e-9d8a-1f0d5c2b9a77"
	cases := []struct {
		path string
		want apitest.GPError
	}{
		{"/actions/" + id, apitest.Err(404, "RESOURCE_NOT_FOUND", "40118", "Actions "+id+" not found at this /ucp/actions/"+id)},
		{"/actions?merchant_name=Sandbox_merchant_nope", apitest.Err(403, "ACTION_NOT_AUTHORIZED", "40003", "Token does not match merchant_name in the request")},
		{"/actions?page_size=0", apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "page_size contains unexpected data")},
		{"/actions?order_by=AMOUNT", apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "order_by contains unexpected data")},
		{"/actions?from_time_created=yesterday", apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "from_time_created contains unexpected data")},
	}
	for _, c := range cases {
		if got := env.Do("GET", c.path, apitest.APIHeader(tok), "").GPError(t); got != c.want {
			t.Errorf("GET %s: %+v, want %+v", c.path, got, c.want)
		}
	}
	if got, _ := env.actionsOf(tok, ""); len(got) != 0 {
		t.Errorf("reads recorded: %v", got)
	}
}

// Order, paging and the merchant filter (Java ReportFindActionsPaged_OrderBy_TimeCreated,
// _By_MerchantName; PHP testFindActions_OrderBy_TimeCreated).
func TestActionsOrderAndPaging(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	var ids []string
	for i := range 3 {
		sale := env.MustCharge(tok, apitest.SaleBody("100"+string(rune('0'+i)), "AUTO", apitest.ManualCard))
		ids = append(ids, field(sale, "action", "id").(string))
		env.Clock.Advance(60e9)
	}
	asc, _ := env.actionsOf(tok, "?order_by=TIME_CREATED&order=ASC")
	desc, _ := env.actionsOf(tok, "?order=DESC")
	if len(asc) != 3 || asc[0]["id"] != ids[0] || asc[2]["id"] != ids[2] || desc[0]["id"] != ids[2] {
		t.Errorf("asc %v desc %v", asc, desc)
	}
	second, body := env.actionsOf(tok, "?page=2&page_size=1&order=ASC&merchant_name=Sandbox+Merchant+One")
	if len(second) != 1 || second[0]["id"] != ids[1] || body["total_record_count"] != 3.0 || field(body, "paging", "page") != 2.0 {
		t.Errorf("second page: %v", body)
	}
	if got, _ := env.actionsOf(tok, "?from_time_created=2021-03-23"); len(got) != 0 {
		t.Errorf("from tomorrow: %v", got)
	}
	if got, _ := env.actionsOf(tok, "?from_time_created=2021-03-22&to_time_created=2021-03-22"); len(got) != 3 {
		t.Errorf("today: %v", got)
	}
}

// A fixture's action is listed and read with the exact id and date it was seeded
// with, named for its app and merchant (fixtures/README.md, actions).
func TestFixtureActions(t *testing.T) {
	env := mustSandbox(t)
	env.MustReseed(func(f *sandbox.Fixtures) {
		f.Actions = append(f.Actions, sandbox.ActionRecord{
			ID: "ACT_SeededAction000000000000000001", Type: "SALE", TimeCreated: time.Date(2021, 3, 1, 8, 0, 0, 0, time.UTC),
			Resource: "TRANSACTIONS", ResourceID: apitest.CapturedOne, ResourceStatus: "CAPTURED", Version: "2021-03-22",
			HTTPResponseCode: "200", ResponseCode: "SUCCESS", AppID: apitest.PartnerApp,
			Holder:          sandbox.Holder{MerchantID: apitest.MerchantOne},
			MessageReceived: `{"card":{"number":"4263970000005262"}}`,
		})
	})
	tok := env.PartnerToken()
	got := env.Do("GET", "/actions/ACT_SeededAction000000000000000001", apitest.APIHeader(tok), "").JSON(t)
	if got["time_created"] != "2021-03-01T08:00:00.000Z" || got["app_name"] != "sandbox_partner" ||
		got["merchant_name"] != "Sandbox Merchant One" || strings.Contains(got["message_received"].(string), "4263970000005262") {
		t.Errorf("seeded action: %v", got)
	}
	if list, _ := env.actionsOf(tok, "?from_time_created=2021-03-01&to_time_created=2021-03-01"); len(list) != 1 {
		t.Errorf("by date: %v", list)
	}
}

// A refused back-office write is in GET /actions too, as a refused payment is (A121).
func TestRefusedDisputeActionIsRecorded(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(layoutApp, layoutKey, "")
	if r := env.Do("POST", "/disputes/DIS_SAND_bbbb1111/acceptance", apitest.APIHeader(tok), ""); r.Status != 400 {
		t.Fatalf("acceptance of an unknown dispute: %d %s", r.Status, r.Body)
	}
	got, _ := env.actionsOf(tok, "?type=DISPUTE_ACCEPTANCE")
	if len(got) != 1 || got[0]["resource"] != "DISPUTES" || got[0]["http_response_code"] != "400" || got[0]["response_code"] != "INVALID_DISPUTE_ACTION" {
		t.Errorf("the refused acceptance: %v", got)
	}
}
