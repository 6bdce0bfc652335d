package api_test

import (
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// Every answer names its action as GP's recorded answers do (the Java SDK's
// GpApiMappingTest: MapResponseTest_CreateTransaction answers PREAUTHORIZE,
// MapResponseTest_CreateTransaction_withAvsData AUTHORIZE for a sale,
// MapTransactionSummaryTest TRANSACTION_SINGLE, MapStoredPaymentMethodSummaryTest
// PAYMENT_METHOD_SINGLE; GP's Transactions schema for REVERSE, REAUTHORIZATION,
// INCREMENT and TRANSACTION_LIST, its Batches schema for BATCH_SINGLE). A read answers
// an action of its own, never the last one the resource recorded.
func TestActionTypesAsGPAnswers(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	actionOf := func(m map[string]any) string { s, _ := field(m, "action", "type").(string); return s }

	sale := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))
	auth := env.MustCharge(tok, apitest.SaleBody("1000", "LATER", apitest.ManualCard))
	saleID, authID := sale["id"].(string), auth["id"].(string)
	incremented := env.MustPost(tok, "/transactions/"+authID+"/incremental", `{"amount":"100"}`)
	reversed := env.MustPost(tok, "/transactions/"+saleID+"/reversal", `{}`)
	reauthorized := env.MustPost(tok, "/transactions/"+saleID+"/reauthorization", `{}`)
	captured := env.MustPost(tok, "/transactions/"+authID+"/capture", `{}`)
	refund := env.MustPost(tok, "/transactions/"+reauthorized["id"].(string)+"/refund", `{}`)
	detail := env.Do("GET", "/transactions/"+authID, apitest.APIHeader(tok), "").JSON(t)
	again := env.Do("GET", "/transactions/"+authID, apitest.APIHeader(tok), "").JSON(t)
	list := env.Do("GET", "/transactions?page_size=2", apitest.APIHeader(tok), "").JSON(t)
	fixture := env.Do("GET", "/transactions/"+apitest.CapturedOne, apitest.APIHeader(tok), "").JSON(t)
	token := env.MustPost(tok, "/payment-methods", strings.Replace(apitest.TokenizeBody, "%s", "MULTIPLE", 1))
	stored := env.Do("GET", "/payment-methods/"+token["id"].(string), apitest.APIHeader(tok), "").JSON(t)
	batch := env.Do("GET", "/batches/"+captured["batch_id"].(string), apitest.APIHeader(tok), "").JSON(t)

	for name, tt := range map[string]struct {
		got  map[string]any
		want string
	}{
		"sale": {sale, "AUTHORIZE"}, "authorization": {auth, "PREAUTHORIZE"},
		"incremental": {incremented, "INCREMENT"}, "reversal": {reversed, "REVERSE"},
		"reauthorization": {reauthorized, "REAUTHORIZATION"}, "capture": {captured, "CAPTURE"},
		"refund": {refund, "REFUND"}, "detail": {detail, "TRANSACTION_SINGLE"},
		"fixture's detail": {fixture, "TRANSACTION_SINGLE"}, "list": {list, "TRANSACTION_LIST"},
		"token": {token, "PAYMENT_METHOD_CREATE"}, "token's detail": {stored, "PAYMENT_METHOD_SINGLE"},
		"batch": {batch, "BATCH_SINGLE"},
	} {
		if got := actionOf(tt.got); got != tt.want {
			t.Errorf("%s: action.type %q, want %q", name, got, tt.want)
		}
	}
	if id := field(detail, "action", "id"); id == field(captured, "action", "id") || id == field(again, "action", "id") ||
		field(detail, "action", "result_code") != "SUCCESS" || field(detail, "action", "app_name") != "sandbox_partner" {
		t.Errorf("a read's action is its own, new each time: %v then %v (capture %v)", detail["action"], again["action"], captured["action"])
	}
	if field(detail, "status") != "CAPTURED" {
		t.Errorf("the detail still shows the transaction: %v", detail)
	}
}
