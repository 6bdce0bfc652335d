package api_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

func (env *sandboxEnv) mustTokenize(tok, usage string) string {
	env.T.Helper()
	return env.MustPost(tok, "/payment-methods", strings.Replace(apitest.TokenizeBody, "%s", usage, 1))["id"].(string)
}

func tokenSale(id string, extra string) string {
	return `{"account_name":"transaction_processing","channel":"CNP","type":"SALE","amount":"1999","currency":"USD",` +
		`"payment_method":{"entry_mode":"ECOM","id":"` + id + `"` + extra + `}}`
}

// A token's life: made, read, edited, charged, deleted; then unknown everywhere.
func TestPaymentMethodLifecycle(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	created := env.MustPost(tok, "/payment-methods", strings.Replace(apitest.TokenizeBody, "%s", "MULTIPLE", 1))
	id := created["id"].(string)
	if !strings.HasPrefix(id, "PMT_") || created["usage_mode"] != "MULTIPLE" || field(created, "action", "type") != "PAYMENT_METHOD_CREATE" ||
		field(created, "card", "brand") != "VISA" || field(created, "card", "masked_number_last4") != "XXXXXXXXXXXX5262" ||
		created["account_id"] != "TKA_00000000000000000000000000000001" {
		t.Errorf("tokenized: %v", created)
	}
	got := env.Do("GET", "/payment-methods/"+id, apitest.APIHeader(tok), "").JSON(t)
	if got["status"] != "ACTIVE" || field(got, "card", "number_last4") != "xxxxxxxxxxxx5262" || field(got, "card", "expiry_year") != "30" {
		t.Errorf("read: %v", got)
	}
	edited := env.Do("PATCH", "/payment-methods/"+id, apitest.APIHeader(tok), `{"usage_mode":"MULTIPLE","card":{"expiry_month":"1","expiry_year":"2031"}}`).JSON(t)
	if field(edited, "card", "expiry_month") != "01" || field(edited, "card", "expiry_year") != "31" || field(edited, "action", "type") != "PAYMENT_METHOD_EDIT" {
		t.Errorf("edited: %v", edited)
	}
	for range 2 { // multi-use: charged twice
		sale := env.MustCharge(tok, tokenSale(id, `,"card":{"cvv":"123"}`))
		if sale["status"] != "CAPTURED" || field(sale, "payment_method", "id") != id || field(sale, "payment_method", "card", "masked_number_last4") != "XXXXXXXXXXXX5262" {
			t.Errorf("token sale: %v", sale)
		}
	}
	verified := env.MustPost(tok, "/verifications", `{"channel":"CNP","currency":"USD","payment_method":{"entry_mode":"ECOM","id":"`+id+`"}}`)
	if verified["status"] != "VERIFIED" {
		t.Errorf("token verification: %v", verified)
	}
	deleted := env.Do("DELETE", "/payment-methods/"+id, apitest.APIHeader(tok), "").JSON(t)
	if deleted["status"] != "DELETED" || field(deleted, "action", "type") != "PAYMENT_METHOD_DELETE" || field(deleted, "action", "result_code") != "SUCCESS" {
		t.Errorf("deleted: %v", deleted)
	}
	// Reading it is the detail's 40118 (Java ReportStoredPaymentMethodDetailWithNonExistentId);
	// using it is 40116 (Java GpApiTokenManagementErrorTest).
	if got, want := env.Do("GET", "/payment-methods/"+id, apitest.APIHeader(tok), "").GPError(t),
		apitest.Err(404, "RESOURCE_NOT_FOUND", "40118", "PAYMENT_METHODS "+id+" not found at this /ucp/payment-methods/"+id); got != want {
		t.Errorf("read after delete: %+v", got)
	}
	gone := apitest.Err(404, "RESOURCE_NOT_FOUND", "40116", "payment_method "+id+" not found at this location.")
	for _, r := range []apitest.Reply{
		env.Do("PATCH", "/payment-methods/"+id, apitest.APIHeader(tok), `{"card":{"expiry_month":"12","expiry_year":"31"}}`),
		env.Do("DELETE", "/payment-methods/"+id, apitest.APIHeader(tok), ""),
		env.Do("POST", "/transactions", apitest.APIHeader(tok), tokenSale(id, "")),
	} {
		if e := r.GPError(t); e != gone {
			t.Errorf("after delete: %+v", e)
		}
	}
}

// A single-use token pays once; a test card keeps its outcome when tokenized.
func TestPaymentMethodSingleUseAndOutcome(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	id := env.mustTokenize(tok, "SINGLE")
	if sale := env.MustCharge(tok, tokenSale(id, "")); sale["status"] != "CAPTURED" {
		t.Errorf("first use: %v", sale)
	}
	want := apitest.Err(404, "RESOURCE_NOT_FOUND", "40116", "payment_method "+id+" not found at this location.")
	if got := env.Do("POST", "/transactions", apitest.APIHeader(tok), tokenSale(id, "")).GPError(t); got != want {
		t.Errorf("second use: %+v", got)
	}
	declining := env.MustPost(tok, "/payment-methods", `{"usage_mode":"MULTIPLE","card":{"number":"4000120000001154","expiry_month":"12","expiry_year":"30"}}`)["id"].(string)
	if sale := env.MustCharge(tok, tokenSale(declining, "")); sale["status"] != "DECLINED" || field(sale, "payment_method", "result") != "101" {
		t.Errorf("GP's declined test card, tokenized: %v", sale)
	}
	// Nothing of the number but its first six and last four is kept.
	admin := string(env.Do("GET", "/_sandbox/transactions?limit=500", nil, "").Body)
	if strings.Contains(admin, "4000120000001154") || strings.Contains(admin, "4263970000005262") {
		t.Errorf("a card number in clear: %s", admin)
	}
}

// A payment with a storage_mode stores its card as a multi-use token, answered as
// payment_method.id (the SDKs' requestMultiUseToken): ON_SUCCESS only when approved,
// ALWAYS also when declined. The token pays as any other does.
func TestPaymentStoresItsCard(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	sale := func(number, mode string) map[string]any {
		if mode != "" {
			mode = `"storage_mode":"` + mode + `",`
		}
		return env.MustCharge(tok, `{"account_name":"transaction_processing","channel":"CP","type":"SALE","amount":"1999","currency":"USD","reference":"keep-1",`+
			`"payment_method":{"entry_mode":"MANUAL","name":"James Mason",`+mode+`"card":{"number":"`+number+`","expiry_month":"12","expiry_year":"30","cvv":"123"}}}`)
	}
	approved := sale("4263970000005262", "ON_SUCCESS")
	id, _ := field(approved, "payment_method", "id").(string)
	if approved["status"] != "CAPTURED" || !strings.HasPrefix(id, "PMT_") {
		t.Fatalf("approved with ON_SUCCESS: %v", approved)
	}
	stored := env.Do("GET", "/payment-methods/"+id, apitest.APIHeader(tok), "").JSON(t)
	if stored["status"] != "ACTIVE" || stored["usage_mode"] != "MULTIPLE" || stored["name"] != "James Mason" || stored["reference"] != "keep-1" ||
		field(stored, "card", "number_last4") != "xxxxxxxxxxxx5262" || field(stored, "card", "expiry_year") != "30" {
		t.Errorf("the stored card: %v", stored)
	}
	if again := env.MustCharge(tok, tokenSale(id, "")); again["status"] != "CAPTURED" || field(again, "payment_method", "id") != id {
		t.Errorf("paid with the stored card: %v", again)
	}
	const declining = "4000120000001154" // GP's declined test card
	if d := sale(declining, "ON_SUCCESS"); d["status"] != "DECLINED" || field(d, "payment_method", "id") != nil {
		t.Errorf("declined with ON_SUCCESS keeps no card: %v", d)
	}
	d := sale(declining, "ALWAYS")
	kept, _ := field(d, "payment_method", "id").(string)
	if d["status"] != "DECLINED" || !strings.HasPrefix(kept, "PMT_") {
		t.Errorf("declined with ALWAYS keeps the card: %v", d)
	}
	for _, mode := range []string{"", "OFF", "PROMPT"} { // .NET's StorageMode sends all four
		if plain := sale("4263970000005262", mode); field(plain, "payment_method", "id") != nil {
			t.Errorf("storage_mode %q keeps no card: %v", mode, plain)
		}
	}
	// The token's creation is an action of its own, as a tokenization is. Both were
	// made at the frozen clock's one time, which orders them no further.
	created, _ := env.actionsOf(tok, "?type=PAYMENT_METHOD_CREATE")
	if len(created) != 2 || !slices.ContainsFunc(created, func(a map[string]any) bool { return a["resource_id"] == kept }) ||
		!slices.ContainsFunc(created, func(a map[string]any) bool { return a["resource_id"] == id }) {
		t.Errorf("the tokens' actions: %v", created)
	}
	card := `"card":{"number":"4263970000005262","expiry_month":"12","expiry_year":"30"}`
	verified := env.MustPost(tok, "/verifications", `{"channel":"CP","currency":"USD","payment_method":{"entry_mode":"MANUAL","storage_mode":"ON_SUCCESS",`+card+`}}`)
	if got, _ := field(verified, "payment_method", "id").(string); verified["status"] != "VERIFIED" || !strings.HasPrefix(got, "PMT_") {
		t.Errorf("a verification keeps the card: %v", verified)
	}
	refund := env.MustCharge(tok, `{"channel":"CP","type":"REFUND","amount":"500","currency":"USD","payment_method":{"entry_mode":"MANUAL","storage_mode":"ALWAYS",`+card+`}}`)
	if refund["status"] != "CAPTURED" || field(refund, "payment_method", "id") != nil {
		t.Errorf("a refund keeps no card: %v", refund)
	}
	// A single-use token paid with and a storage_mode: the card is stored anew as a
	// multi-use token (Java, .NET, PHP CardTokenizationThenPayingWithToken_SingleToMultiUse);
	// a multi-use token stays the token.
	single := env.mustTokenize(tok, "SINGLE")
	multi, _ := field(env.MustCharge(tok, tokenSale(single, `,"storage_mode":"ON_SUCCESS"`)), "payment_method", "id").(string)
	if multi == "" || multi == single {
		t.Fatalf("a single-use token turned multi-use: %q", multi)
	}
	for range 2 {
		if again := env.MustCharge(tok, tokenSale(multi, `,"storage_mode":"ON_SUCCESS"`)); field(again, "payment_method", "id") != multi {
			t.Errorf("the multi-use token charged again: %v", again)
		}
	}
	// A token that may not tokenize pays, and keeps no card; paying with a single-use
	// token, the answer still names it.
	payOnly := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, `"permissions":["TRN_POST_Authorize"]`)
	if d := env.MustCharge(payOnly, `{"channel":"CP","type":"SALE","amount":"500","currency":"USD","payment_method":{"entry_mode":"MANUAL","storage_mode":"ALWAYS",`+card+`}}`); d["status"] != "CAPTURED" || field(d, "payment_method", "id") != nil {
		t.Errorf("without the permission to tokenize: %v", d)
	}
	single = env.mustTokenize(tok, "SINGLE")
	if d := env.MustCharge(payOnly, tokenSale(single, `,"storage_mode":"ON_SUCCESS"`)); d["status"] != "CAPTURED" || field(d, "payment_method", "id") != single {
		t.Errorf("a single-use token, without the permission to tokenize: %v", d)
	}
}

func TestPaymentMethodErrors(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	id := env.mustTokenize(tok, "MULTIPLE")
	tokenizeOnly := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, `"permissions":["PMT_POST_Create_Single"]`)
	const randomToken = "PMT_2b1c3e4f-5a6b-7c8d-9e0f-a1b2c3d4e5f6"
	cases := []struct {
		name, method, path, tok, body string
		want                          apitest.GPError
	}{
		{"tokenize without number", "POST", "/payment-methods", tok, `{"card":{"expiry_month":"12","expiry_year":"30"}}`,
			apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields : number")},
		{"tokenize without card", "POST", "/payment-methods", tok, `{"usage_mode":"SINGLE"}`,
			apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields card")},
		{"tokenize an expired card", "POST", "/payment-methods", tok, `{"card":{"number":"4263970000005262","expiry_month":"12","expiry_year":"19"}}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40085", "Expiry date invalid")},
		{"tokenize an expired card, the year in four digits", "POST", "/payment-methods", tok, `{"card":{"number":"4263970000005262","expiry_month":"12","expiry_year":"2019"}}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40085", "Expiry date invalid")},
		{"tokenize with a year of three digits", "POST", "/payment-methods", tok, `{"card":{"number":"4263970000005262","expiry_month":"12","expiry_year":123}}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40085", "Expiry date invalid")},
		{"tokenize into a transaction account", "POST", "/payment-methods", tok, `{"account_name":"transaction_processing","card":` + apitest.ManualCard + `}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40041", "Merchant configuration does not exist for the following combination: transaction_processing , "+apitest.MerchantOne)},
		{"usage mode unknown", "POST", "/payment-methods", tok, `{"usage_mode":"TWICE","card":` + apitest.ManualCard + `}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "usage_mode contains unexpected data")},
		{"edit to single use", "PATCH", "/payment-methods/" + id, tok, `{"usage_mode":"SINGLE","card":{"expiry_month":"12","expiry_year":"31"}}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "50020", "TokenType can only be MULTI")},
		{"edit saying nothing", "PATCH", "/payment-methods/" + id, tok, `{"name":"James"}`,
			apitest.Err(400, "MANDATORY_DATA_MISSING", "50021", "Mandatory Fields missing [card ExpDate] See Developers Guide")},
		// GP reads the body before it looks the token up (Java CardTokenizationThenUpdate*).
		{"edit a random id to single use", "PATCH", "/payment-methods/" + randomToken, tok, `{"usage_mode":"SINGLE"}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "50020", "TokenType can only be MULTI")},
		{"edit a random id saying nothing", "PATCH", "/payment-methods/" + randomToken, tok, `{}`,
			apitest.Err(400, "MANDATORY_DATA_MISSING", "50021", "Mandatory Fields missing [card ExpDate] See Developers Guide")},
		{"edit a random id's expiry", "PATCH", "/payment-methods/" + randomToken, tok, `{"card":{"expiry_month":"12","expiry_year":"31"}}`,
			apitest.Err(404, "RESOURCE_NOT_FOUND", "40116", "payment_method "+randomToken+" not found at this location.")},
		{"read a random id", "GET", "/payment-methods/" + randomToken, tok, "",
			apitest.Err(404, "RESOURCE_NOT_FOUND", "40118", "PAYMENT_METHODS "+randomToken+" not found at this /ucp/payment-methods/"+randomToken)},
		{"malformed id", "GET", "/payment-methods/This_is_not_a_payment_id", tok, "",
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "payment_method.id: This_is_not_a_payment_id contains unexpected data")},
		{"sale with a malformed id", "POST", "/transactions", tok, tokenSale("TRN_x", ""),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "payment_method.id: TRN_x contains unexpected data")},
		{"sale with neither card nor token", "POST", "/transactions", tok, `{"channel":"CP","amount":"100","currency":"USD","payment_method":{"entry_mode":"MANUAL"}}`,
			apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields payment_method.card")},
		{"another merchant's path", "GET", "/merchants/" + apitest.MerchantTwo + "/payment-methods/" + id, tok, "",
			apitest.Err(404, "RESOURCE_NOT_FOUND", "40118", "PAYMENT_METHODS "+id+" not found at this /ucp/merchants/"+apitest.MerchantTwo+"/payment-methods/"+id)},
		{"another merchant's path, deleting", "DELETE", "/merchants/" + apitest.MerchantTwo + "/payment-methods/" + id, tok, "",
			apitest.Err(404, "RESOURCE_NOT_FOUND", "40116", "payment_method "+id+" not found at this location.")},
		{"restricted token reads", "GET", "/payment-methods/" + id, tokenizeOnly, "",
			apitest.Err(403, "ACTION_NOT_AUTHORIZED", "40212", "Permission not enabled to execute action")},
		{"restricted token charges", "POST", "/transactions", tokenizeOnly, tokenSale(id, ""),
			apitest.Err(403, "ACTION_NOT_AUTHORIZED", "40212", "Permission not enabled to execute action")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := env.Do(tc.method, tc.path, apitest.APIHeader(tc.tok), tc.body).GPError(t); got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
	// The restricted token of a browser (PMT_POST_Create_Single) tokenizes, and its
	// scope names the tokenization account only.
	if r := env.Do("POST", "/payment-methods", apitest.APIHeader(tokenizeOnly), strings.Replace(apitest.TokenizeBody, "%s", "SINGLE", 1)); r.Status != 200 {
		t.Errorf("restricted token tokenizes: %d %s", r.Status, r.Body)
	}
	again := env.Do("POST", "/payment-methods", apitest.APIHeader(tok, "X-GP-Idempotency", "k1"), strings.Replace(apitest.TokenizeBody, "%s", "MULTIPLE", 1)).JSON(t)
	if got := env.Do("POST", "/payment-methods", apitest.APIHeader(tok, "X-GP-Idempotency", "k1"), strings.Replace(apitest.TokenizeBody, "%s", "MULTIPLE", 1)).GPError(t); got != (apitest.Err(409, "DUPLICATE_ACTION", "40039", "Idempotency Key seen before: id="+again["id"].(string))) {
		t.Errorf("same idempotency key: %+v", got)
	}
}
