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

// A transaction shows one set of facts in its detail and in the list: a member the
// detail leaves out (a fixture's record has no channel, account, entry mode or card)
// is left out of the list too, never sent as "", and one the detail shows has the
// same value in the list.
func TestListAndDetailAgree(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	sale := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.TrackCard()))["id"].(string)
	declined := env.MustTransactionIn(tok, "DECLINED")
	members := [][]string{
		{"channel"}, {"merchant_id"}, {"merchant_name"}, {"account_id"}, {"account_name"}, {"reference"}, {"batch_id"},
		{"payment_method", "entry_mode"}, {"payment_method", "result"}, {"payment_method", "card", "brand"},
		{"payment_method", "card", "masked_number_first6last4"}, {"payment_method", "card", "authcode"},
	}
	for _, id := range []string{apitest.CapturedOne, sale, declined} {
		detail := env.Do("GET", "/transactions/"+id, apitest.APIHeader(tok), "").JSON(t)
		list := env.Do("GET", "/transactions?id="+id, apitest.APIHeader(tok), "").JSON(t)
		rows, _ := list["transactions"].([]any)
		if len(rows) != 1 {
			t.Fatalf("%s listed %d times: %v", id, len(rows), list)
		}
		listed := rows[0].(map[string]any)
		for _, path := range members {
			inDetail, inList := field(detail, path...), field(listed, path...)
			if inDetail == nil && path[0] == "merchant_id" {
				continue // every list entry names its merchant; a fixture's detail has the document's shape
			}
			if inList != inDetail {
				t.Errorf("%s %v: detail %v, list %v", id, path, inDetail, inList)
			}
		}
	}
	// A fixture's record in the list names what it knows, and no more.
	fixture := env.Do("GET", "/transactions?id="+apitest.CapturedOne, apitest.APIHeader(tok), "").JSON(t)["transactions"].([]any)[0].(map[string]any)
	for _, absent := range []string{"channel", "merchant_name", "account_id", "account_name"} {
		if _, ok := fixture[absent]; ok {
			t.Errorf("the fixture's list entry sends %s: %v", absent, fixture)
		}
	}
}

// A verification is not listed by GET /transactions: GP's transaction statuses know
// no VERIFIED (its Transactions schema; Java's TransactionStatus), no SDK reporting
// test finds one, and GP gives verifications a resource of their own. The list's
// total leaves it out too; its detail is still read by id.
func TestVerificationsAreNotListed(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	total := func(query string) any {
		return env.Do("GET", "/transactions"+query, apitest.APIHeader(tok), "").JSON(t)["total_record_count"]
	}
	before := total("")
	verified := env.MustTransactionIn(tok, "VERIFIED")
	if got := total(""); got != before {
		t.Errorf("total after a verification: %v, want %v", got, before)
	}
	if got := total("?id=" + verified); got != 0.0 {
		t.Errorf("the verification by id: %v listed", got)
	}
	if got := total("?status=VERIFIED"); got != 0.0 {
		t.Errorf("status=VERIFIED: %v listed", got)
	}
	if r := env.Do("GET", "/transactions/"+verified, apitest.APIHeader(tok), ""); r.Status != 200 || r.JSON(t)["status"] != "VERIFIED" {
		t.Errorf("the verification's detail: %d %s", r.Status, r.Body)
	}
	env.MustTransactionIn(tok, "CAPTURED")
	if got := total(""); got != before.(float64)+1 {
		t.Errorf("total after a sale: %v, want %v", got, before.(float64)+1)
	}
}

// A stored card's number_last4 is twelve lower-case x and the last four digits, as GP
// sends it (the Java SDK's MapStoredPaymentMethodSummaryTest: "xxxxxxxxxxxx1111";
// ReportFindStoredPaymentMethodsPaged_By_NumberLast4 asserts "xxxxxxxxxxxx" + last4).
func TestStoredCardNumberLast4AsGPSendsIt(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	card := `{"number":"4111111111111111","expiry_month":"12","expiry_year":"30"}`
	id := env.MustPost(tok, "/payment-methods", `{"account_name":"tokenization","usage_mode":"MULTIPLE","card":`+card+`}`)["id"].(string)
	got := env.Do("GET", "/payment-methods/"+id, apitest.APIHeader(tok), "").JSON(t)
	if field(got, "card", "number_last4") != "xxxxxxxxxxxx1111" || field(got, "card", "masked_number_last4") != "XXXXXXXXXXXX1111" {
		t.Errorf("stored card: %v", got["card"])
	}
}

// A restricted access token is shown the account id truncated, as GP shows it: the
// PHP SDK's testGenerateRestrictedAccessToken tokenizes with a restricted token (its
// raw request, no account named) and finds "TKA_" and 28 X in the answer;
// testGenerateUnrestrictedAccessToken finds them not with an unrestricted one.
func TestRestrictedTokenShowsTruncatedAccountIDs(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	const body = `{"usage_mode":"SINGLE","reference":"merchant-ref-123","name":"James Mason",` +
		`"card":{"number":"4263970000005262","expiry_month":"12","expiry_year":"30","cvv":"987"}}`
	needle := "TKA_" + strings.Repeat("X", 28)
	for _, restricted := range []string{"YES", "NO"} {
		tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, `"permissions":["PMT_POST_Create_Single"],"restricted_token":"`+restricted+`"`)
		r := env.Do("POST", "/payment-methods", apitest.APIHeader(tok), body)
		if r.Status != 200 {
			t.Fatalf("restricted %s: %d %s", restricted, r.Status, r.Body)
		}
		got := r.JSON(t)["account_id"]
		want := "TKA_00000000000000000000000000000001"
		if restricted == "YES" {
			want = needle + "0001"
		}
		if got != want || strings.Contains(string(r.Body), needle) != (restricted == "YES") {
			t.Errorf("restricted %s: account_id %v, want %v: %s", restricted, got, want, r.Body)
		}
	}
}
