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

// The batch rules the SDKs' batch tests show: a declined sale carries the open batch's
// id, and closing a batch that holds declined sales only is GP's 500010 (PHP
// testBatchClose_WithCardNumberDetails_DeclinedTransaction); a verification carries
// none (PHP testBatchClose_Verify_MissingBatchId: 40223); 32 hex digits are an unknown
// batch, 404 40118 (Java CloseBatch_WithInvalidBatchReference), a dashed GUID is 400
// 40213 (PHP testBatchClose_WithInvalidBatchReference); the batch of a card-not-present
// sale has no configuration to close (PHP testBatchClose_CardNotPresentChannel).
func TestBatchRulesOfTheSDKs(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	close := func(batch string) apitest.GPError {
		return env.Do("POST", "/batches/"+batch, apitest.APIHeader(tok), "").GPError(t)
	}
	declined := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", `{"number":"38865000000705","expiry_month":"12","expiry_year":"30","cvv":"852"}`))
	batch, _ := declined["batch_id"].(string)
	if declined["status"] != "DECLINED" || field(declined, "payment_method", "result") != "14" || !strings.HasPrefix(batch, "BAT_") {
		t.Fatalf("declined sale (.NET CloseBatch_WithCardNumberDetails_DeclinedTransaction: result 14, a batch): %v", declined)
	}
	if got, want := close(batch), apitest.Err(502, "ACTION_FAILED", "500010", "Action failed unexpectedly. Please try again "); got != want {
		t.Errorf("close of the declined sale's batch: %+v, want %+v", got, want)
	}
	// The batch stays open: an approved sale joins it and it closes.
	sale := env.MustCharge(tok, apitest.SaleBody("500", "AUTO", apitest.ManualCard))
	if sale["batch_id"] != batch {
		t.Fatalf("the next sale's batch %v, want %s", sale["batch_id"], batch)
	}
	if closed := env.MustPost(tok, "/batches/"+batch, `{}`); closed["transaction_count"] != 1.0 || closed["amount"] != "500" {
		t.Errorf("closed with a decline in it: %v %v", closed["transaction_count"], closed["amount"])
	}

	verified := env.Do("POST", "/verifications", apitest.APIHeader(tok), `{"channel":"CP","currency":"USD","payment_method":{"entry_mode":"SWIPE","card":{"track":"`+apitest.VisaTrack+`"}}}`).JSON(t)
	if b, ok := verified["batch_id"]; ok && b != "" {
		t.Errorf("a verification's batch: %v", b)
	}
	for name, tc := range map[string]struct {
		path string
		want apitest.GPError
	}{
		"no batch id":   {"/batches/", apitest.Err(400, "MANDATORY_DATA_MISSING", "40223", "Request expects the batch_id")},
		"32 hex digits": {"/batches/0f8e6b2c4d1a4e3f9b7c5a2d8e6f4b1c", apitest.Err(404, "RESOURCE_NOT_FOUND", "40118", "Batch 0f8e6b2c4d1a4e3f9b7c5a2d8e6f4b1c not found at this location.")},
		"a dashed GUID": {"/batches/0f8e6b2c-4d1a-4e3f-9b7c-5a2d8e6f4b1c", apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "batch_id contains unexpected data")},
	} {
		if got := env.Do("POST", tc.path, apitest.APIHeader(tok), "").GPError(t); got != tc.want {
			t.Errorf("%s: %+v, want %+v", name, got, tc.want)
		}
	}

	cnp := env.MustCharge(tok, `{"account_name":"transaction_processing","channel":"CNP","country":"US","type":"SALE","capture_mode":"AUTO",`+
		`"amount":"1000","currency":"USD","payment_method":{"entry_mode":"ECOM","card":`+apitest.ManualCard+`}}`)
	cnpBatch, _ := cnp["batch_id"].(string)
	if cnp["status"] != "CAPTURED" || !strings.HasPrefix(cnpBatch, "BAT_") || cnpBatch == batch {
		t.Fatalf("card-not-present sale: %v", cnp)
	}
	want := apitest.Err(400, "INVALID_REQUEST_DATA", "40041", "Merchant configuration does not exist for the following combination: country - US, channel - CNP, currency - USD")
	if got := close(cnpBatch); got != want {
		t.Errorf("close of the card-not-present batch: %+v, want %+v", got, want)
	}
}

// Test cards as the SDKs' tests read them.
func TestTestCardsAsTheSDKsRead(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	cnpBody := func(card string) string {
		return `{"account_name":"transaction_processing","channel":"CNP","country":"US","currency":"USD",` +
			`"payment_method":{"entry_mode":"ECOM","card":` + card + `}}`
	}
	// PHP AccessTokenTest (2026): a verification of 4263970000005262 expiring 05/2025 is
	// VERIFIED: GP does not judge a verification by its expiry.
	v := env.Do("POST", "/verifications", apitest.APIHeader(tok), cnpBody(`{"number":"4263970000005262","expiry_month":"05","expiry_year":"25","cvv":"852"}`)).JSON(t)
	if v["status"] != "VERIFIED" {
		t.Errorf("expired 4263970000005262 verified: %v", v)
	}
	// Java/.NET CreditVerify_CardNumber_ExpiredCard: the declined card expired in 2021
	// is NOT_VERIFIED, by its decline.
	v = env.Do("POST", "/verifications", apitest.APIHeader(tok), cnpBody(`{"number":"4000120000001154","expiry_month":"12","expiry_year":"21"}`)).JSON(t)
	if v["status"] != "NOT_VERIFIED" || field(v, "action", "result_code") != "NOT_VERIFIED" {
		t.Errorf("expired declined card: %v", v)
	}
	// Java CreditVerify_NotNumericCVV.
	r := env.Do("POST", "/verifications", apitest.APIHeader(tok), cnpBody(`{"number":"4263970000005262","expiry_month":"12","expiry_year":"30","cvv":"SMA"}`))
	if got, want := r.GPError(t), apitest.Err(502, "SYSTEM_ERROR_DOWNSTREAM", "50018",
		"The line number 12 which contains '         [number] XXX [/number] ' does not conform to the schema"); got != want {
		t.Errorf("non-numeric CVV: %+v, want %+v", got, want)
	}
	// .NET CreditTrackData_SaleSwipeChip_ExpiredCreditTrackDataDetails: DECLINED, 54.
	expired := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", `{"track":";4024720012345671=18125025432198712345?",`+
		`"pin_block":"AFEC374574FC90623D010000116001EE","tag":"82021C008407A0000002771010950580000000009A031709289C01005F280201245F2A0201245F3401019F02060000000010009F03060000000000009F080200019F090200019F100706010A03A420009F1A0201249F26089CC473F4A4CE18D39F2701809F3303E0F8C89F34030100029F3501229F360200639F370435EFED379F410400000019"}`))
	if expired["status"] != "DECLINED" || field(expired, "payment_method", "result") != "54" {
		t.Errorf("expired track: %v %v", expired["status"], field(expired, "payment_method", "result"))
	}
	// .NET GpApiCreditCardNotPresentTest.CreditAuthorization: the capture's authcode.
	auth := env.MustCharge(tok, strings.Replace(cnpBody(apitest.ManualCard), `"currency"`, `"type":"SALE","capture_mode":"LATER","amount":"1000","currency"`, 1))
	captured := env.MustPost(tok, "/transactions/"+auth["id"].(string)+"/capture", `{"amount":"1100"}`)
	if field(auth, "payment_method", "card", "authcode") != "123456" || field(captured, "payment_method", "card", "authcode") != "000000" {
		t.Errorf("authorization %v, capture %v", field(auth, "payment_method", "card", "authcode"), field(captured, "payment_method", "card", "authcode"))
	}
	// Java CreditCardReauthorizeTransaction_Refund.
	refund := env.MustTransactionIn(tok, "REFUND")
	if got, want := env.Do("POST", "/transactions/"+refund+"/reauthorization", apitest.APIHeader(tok), `{}`).GPError(t),
		apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "An error occurred on the server."); got != want {
		t.Errorf("reauthorization of a refund: %+v, want %+v", got, want)
	}
	// Node "credit sale with contactless swipe": an EMV tag, no track, entry mode SWIPE.
	const tag = "9F4005F000F0A0019F02060000000025009F03060000000000009F2608D90A06501B48564E82027C005F3401019F360200029F0702FF009F0802008C9F0902008C9F34030403029F2701809F0D05F0400088009F0E0508000000009F0F05F0400098005F280208409F390191FFC605DC4000A800FFC7050010000000FFC805DC4004F8009F3303E0B8C89F1A0208409F350122950500000080005F2A0208409A031409109B02E8009F21030811539C01009F37045EED3A8E4F07A00000000310109F0607A00000000310108407A00000000310109F100706010A03A400029F410400000001"
	swipe := env.MustCharge(tok, strings.Replace(apitest.SaleBody("1000", "AUTO", `{"tag":"`+tag+`"}`), `"entry_mode":"CHIP"`, `"entry_mode":"SWIPE"`, 1))
	if swipe["status"] != "CAPTURED" || field(swipe, "payment_method", "entry_mode") != "SWIPE" {
		t.Errorf("contactless swipe: %v", swipe)
	}
}
