package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// Every row of the error catalogue (sandbox/api/README.md §1), through HTTP, comparing the whole tuple.
func TestErrorCatalogue(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, "")
	restricted := env.mustToken(restrictedApp, restrictedKey, "")
	orderOnly := env.mustToken(partnerApp, partnerKey, `"permissions":["MMA_POST_Order"]`)
	adjust := func(id string) string { return "/transactions/" + id + "/adjustment" }
	const tip = `{"gratuity_amount":"200"}`

	tests := []struct {
		name   string
		method string
		path   string
		header map[string]string
		body   string
		want   gpError
	}{
		{"token missing", "POST", adjust(capturedOne), map[string]string{"X-GP-Version": version}, tip,
			gpError{401, "NOT_AUTHENTICATED", "40001", "Invalid access token"}},
		{"token unknown", "POST", adjust(capturedOne), apiHeader("nosuchtoken"), tip,
			gpError{401, "NOT_AUTHENTICATED", "40001", "Invalid access token"}},
		{"token malformed", "POST", adjust(capturedOne), map[string]string{"Authorization": "Basic abc", "X-GP-Version": version}, tip,
			gpError{401, "NOT_AUTHENTICATED", "40001", "Invalid access token"}},
		{"unknown app", "POST", "/accesstoken", jsonHeader(), tokenBody("NoSuchApp", partnerKey, ""),
			gpError{403, "ACTION_NOT_AUTHORIZED", "40004", "App credentials not recognized"}},
		{"wrong secret", "POST", "/accesstoken", jsonHeader(), tokenBody(partnerApp, "WrongKey", ""),
			gpError{403, "ACTION_NOT_AUTHORIZED", "40004", "Credentials not recognized to create access token."}},
		{"live config without adjustment", "POST", adjust(capturedOne), apiHeader(restricted), tip,
			gpError{403, "ACTION_NOT_AUTHORIZED", "40212", "Permission not enabled to execute action"}},
		{"token without TRN_POST_Adjust", "POST", adjust(capturedOne), apiHeader(orderOnly), tip,
			gpError{403, "ACTION_NOT_AUTHORIZED", "40212", "Permission not enabled to execute action"}},
		{"live config without orders", "POST", "/merchants/" + merchantOne + "/orders", apiHeader(restricted), `{}`,
			gpError{403, "ACTION_NOT_AUTHORIZED", "40212", "Permission not enabled to execute action"}},
		{"required field missing", "POST", "/accesstoken", jsonHeader(), `{"app_id":"x","secret":"y","grant_type":"client_credentials"}`,
			gpError{400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields nonce"}},
		{"adjustment with nothing to change", "POST", adjust(capturedOne), apiHeader(tok), `{}`,
			gpError{400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields [amount or tag or gratuityAmount]"}},
		{"field of wrong type", "POST", adjust(capturedOne), apiHeader(tok), `{"amount":1000}`,
			gpError{400, "INVALID_REQUEST_DATA", "40213", "amount contains unexpected data"}},
		{"path id malformed", "POST", adjust(strings.Repeat("T", 51)), apiHeader(tok), tip,
			gpError{400, "INVALID_REQUEST_DATA", "40090", "id value is invalid. Please check the format and data provided is correct."}},
		{"status_url malformed", "POST", "/merchants/" + merchantOne + "/orders", apiHeader(tok), `{"notifications":{"status_url":"not a url"}}`,
			gpError{400, "INVALID_REQUEST_DATA", "40090", "notifications.status_url value is invalid. Please check the format and data provided is correct."}},
		{"unknown field", "POST", adjust(capturedOne), apiHeader(tok), `{"amount":"10","tip":"1"}`,
			gpError{400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: tip"}},
		{"unknown permissions", "POST", "/accesstoken", jsonHeader(), tokenBody(partnerApp, partnerKey, `"permissions":["TRN_POST_Adjust","NOPE_A","NOPE_B"]`),
			gpError{400, "INVALID_REQUEST_DATA", "40119", "Invalid permissions [ NOPE_A,NOPE_B ] provided in the input field - permissions"}},
		{"unknown transaction", "POST", adjust("TRN_NoSuchTransaction"), apiHeader(tok), tip,
			gpError{404, "RESOURCE_NOT_FOUND", "40008", "Transaction TRN_NoSuchTransaction not found at this location."}},
		{"unknown transaction read", "GET", "/transactions/TRN_NoSuchTransaction", apiHeader(tok), "",
			gpError{404, "RESOURCE_NOT_FOUND", "40118", "Transactions TRN_NoSuchTransaction not found at this /ucp/transactions/TRN_NoSuchTransaction"}},
		{"unknown reporting brand", "GET", "/transactions?brand=MIT", apiHeader(tok), "",
			gpError{400, "INVALID_REQUEST_DATA", "40097", "Invalid Value provided in the input field - brand"}},
		{"foreign reporting account", "GET", "/transactions?account_name=VWTest", apiHeader(tok), "",
			gpError{400, "ACTION_NOT_AUTHORIZED", "40003", "Token does not match account_id or account_name in the request"}},
		{"stored credential incomplete", "POST", "/transactions", apiHeader(tok), saleBody("100", "AUTO", manualCard, `"stored_credential":{"model":"RECURRING","sequence":"FIRST"}`),
			gpError{400, "INVALID_REQUEST_DATA", "40007", "Request expects the following conditionally mandatory fields initiator, model and sequence."}},
		{"surcharge over 5%", "POST", "/transactions", apiHeader(tok), saleBody("100", "AUTO", manualCard, `"surcharge_amount":"6"`),
			gpError{400, "INVALID_REQUEST_DATA", "50020", "The surcharge amount is greater than 5% of the transaction amount"}},
		{"standalone refund of zero", "POST", "/transactions", apiHeader(tok), strings.Replace(saleBody("000", "AUTO", manualCard), `"SALE"`, `"REFUND"`, 1),
			gpError{400, "INVALID_REQUEST_DATA", "50020", "Zero negative or insufficient amount specified "}},
		{"another merchant's transaction", "POST", adjust(otherMerchant), apiHeader(tok), tip,
			gpError{404, "RESOURCE_NOT_FOUND", "40008", "Transaction " + otherMerchant + " not found at this location."}},
		{"unknown merchant", "POST", "/merchants/MER_nosuch/orders", apiHeader(tok), `{}`,
			gpError{400, "INVALID_REQUEST_DATA", "40041", "Merchant configuration does not exist for the following combination: MMA_00000000000000000000000000000001 , MER_nosuch"}},
		{"merchant the app may not act for", "POST", "/merchants/" + merchantThree + "/orders", apiHeader(tok), `{}`,
			gpError{400, "INVALID_REQUEST_DATA", "40041", "Merchant configuration does not exist for the following combination: MMA_00000000000000000000000000000001 , " + merchantThree}},
		{"declined transaction", "POST", adjust(declined), apiHeader(tok), tip,
			gpError{400, "INVALID_ACTION", "40290", "Cannot PROCESS Adjustment over a transaction that does not have a status of CAPTURED or PREAUTHORIZED."}},
		{"closed batch", "POST", adjust(batched), apiHeader(tok), tip,
			gpError{400, "INVALID_ACTION", "40290", "Cannot PROCESS Adjustment over a transaction that is in a closed batch."}},
		{"body not JSON", "POST", adjust(capturedOne), apiHeader(tok), `{"amount":`,
			gpError{400, "INVALID_REQUEST_DATA", "40213", "Request body contains unexpected data"}},
		{"body not an object", "POST", adjust(capturedOne), apiHeader(tok), `["amount"]`,
			gpError{400, "INVALID_REQUEST_DATA", "40213", "Request body contains unexpected data"}},
		{"body followed by more", "POST", adjust(capturedOne), apiHeader(tok), `{"amount":"1"}{}`,
			gpError{400, "INVALID_REQUEST_DATA", "40213", "Request body contains unexpected data"}},
		{"body nested too deep", "POST", adjust(capturedOne), apiHeader(tok), `{"amount":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
			gpError{400, "INVALID_REQUEST_DATA", "40213", "Request body contains unexpected data"}},
		{"body over the limit", "POST", adjust(capturedOne), apiHeader(tok), `{"amount":"` + strings.Repeat("1", 70<<10) + `"}`,
			gpError{413, "INVALID_REQUEST_DATA", "40213", "Request body is larger than 65536 bytes"}},
		{"unknown path", "POST", "/nowhere", jsonHeader(), `{}`,
			gpError{404, "RESOURCE_NOT_FOUND", "40118", "Resource /nowhere not found"}},
		{"wrong method", "GET", "/accesstoken", nil, ``,
			gpError{405, "INVALID_ACTION", "40290", "Method GET not allowed for /accesstoken"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := env.do(tt.method, tt.path, tt.header, tt.body).gpError(t)
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// A token known but past its life answers 40002; the clock is the sandbox's.
func TestExpiredToken(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, `"seconds_to_expire":60`)
	path := "/transactions/" + capturedOne + "/adjustment"
	if r := env.do("POST", path, apiHeader(tok), `{"gratuity_amount":"1"}`); r.status != 200 {
		t.Fatalf("fresh token refused: %d %s", r.status, r.body)
	}
	env.clock.Advance(60 * time.Second)
	got := env.do("POST", path, apiHeader(tok), `{"gratuity_amount":"2"}`).gpError(t)
	want := gpError{401, "NOT_AUTHENTICATED", "40002", "Access token expired"}
	if got != want {
		t.Errorf("got %+v want %+v", got, want)
	}
	// 24 hours after its expiry the token is forgotten (A15).
	env.clock.Advance(24 * time.Hour)
	got = env.do("POST", path, apiHeader(tok), `{"gratuity_amount":"3"}`).gpError(t)
	forgotten := gpError{401, "NOT_AUTHENTICATED", "40001", "Invalid access token"}
	if got != forgotten {
		t.Errorf("a day after expiry: got %+v want %+v", got, forgotten)
	}
	// Forgotten means gone: setting the clock back to the token's life does not revive it.
	if r := env.do("POST", "/_sandbox/clock", jsonHeader(), `{"set":"`+sandbox.FormatTime(startTime)+`"}`); r.status != 200 {
		t.Fatalf("set the clock back: %d %s", r.status, r.body)
	}
	got = env.do("POST", path, apiHeader(tok), `{"gratuity_amount":"4"}`).gpError(t)
	if got != forgotten {
		t.Errorf("clock set back after the token was forgotten: got %+v want %+v", got, forgotten)
	}
}

// Every field rule of the three operations, each answered with the tuple naming the field.
func TestFieldRules(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, "")
	adjust := "/transactions/" + capturedTwo + "/adjustment"
	order := "/merchants/" + merchantOne + "/orders"
	invalid := func(field string) gpError {
		return gpError{400, "INVALID_REQUEST_DATA", "40213", field + " contains unexpected data"}
	}
	tests := []struct {
		name, path string
		header     map[string]string
		body       string
		want       gpError
	}{
		{"seconds_to_expire below range", "/accesstoken", jsonHeader(), tokenBody(partnerApp, partnerKey, `"seconds_to_expire":59`), invalid("seconds_to_expire")},
		{"seconds_to_expire above range", "/accesstoken", jsonHeader(), tokenBody(partnerApp, partnerKey, `"seconds_to_expire":604801`), invalid("seconds_to_expire")},
		{"seconds_to_expire fractional", "/accesstoken", jsonHeader(), tokenBody(partnerApp, partnerKey, `"seconds_to_expire":600.5`), invalid("seconds_to_expire")},
		{"seconds_to_expire as string", "/accesstoken", jsonHeader(), tokenBody(partnerApp, partnerKey, `"seconds_to_expire":"600"`), invalid("seconds_to_expire")},
		{"interval_to_expire unknown", "/accesstoken", jsonHeader(), tokenBody(partnerApp, partnerKey, `"interval_to_expire":"2_DAYS"`), invalid("interval_to_expire")},
		{"grant_type other", "/accesstoken", jsonHeader(), `{"app_id":"a","nonce":"n","secret":"s","grant_type":"password"}`, invalid("grant_type")},
		{"permissions not an array", "/accesstoken", jsonHeader(), tokenBody(partnerApp, partnerKey, `"permissions":"TRN_POST_Adjust"`), invalid("permissions")},
		{"restricted_token other", "/accesstoken", jsonHeader(), tokenBody(partnerApp, partnerKey, `"restricted_token":"MAYBE"`), invalid("restricted_token")},
		{"app_id too long", "/accesstoken", jsonHeader(), `{"app_id":"` + strings.Repeat("a", 51) + `","nonce":"n","secret":"s","grant_type":"client_credentials"}`, invalid("app_id")},
		{"amount with letters", adjust, apiHeader(tok), `{"amount":"10.00"}`, invalid("amount")},
		{"amount negative", adjust, apiHeader(tok), `{"amount":"-5"}`, invalid("amount")},
		{"amount too long", adjust, apiHeader(tok), `{"amount":"` + strings.Repeat("9", 51) + `"}`, invalid("amount")},
		{"amount empty", adjust, apiHeader(tok), `{"amount":""}`, invalid("amount")},
		{"gratuity as number", adjust, apiHeader(tok), `{"gratuity_amount":5}`, invalid("gratuity_amount")},
		{"tag odd length", adjust, apiHeader(tok), `{"payment_method":{"card":{"tag":"9F0"}}}`, invalid("payment_method.card.tag")},
		{"tag not hex", adjust, apiHeader(tok), `{"payment_method":{"card":{"tag":"ZZ"}}}`, invalid("payment_method.card.tag")},
		{"card not an object", adjust, apiHeader(tok), `{"payment_method":{"card":"x"}}`, invalid("payment_method.card")},
		{"empty card block is absent", adjust, apiHeader(tok), `{"payment_method":{"card":{}}}`,
			gpError{400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields [amount or tag or gratuityAmount]"}},
		{"nested unknown field", adjust, apiHeader(tok), `{"amount":"1","payment_method":{"card":{"tag":"9F02","number":"4111"}}}`,
			gpError{400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: payment_method.card.number"}},
		{"not UTF-8", adjust, apiHeader(tok), "{\"amount\":\"1\xff\"}", invalid("amount")},
		{"control character", adjust, apiHeader(tok), `{"amount":"1\u0000"}`, invalid("amount")},
		{"version missing", adjust, map[string]string{"Authorization": "Bearer " + tok}, `{"amount":"1"}`,
			gpError{400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields X-GP-Version"}},
		{"version too long", adjust, apiHeader(tok, "X-GP-Version", strings.Repeat("v", 51)), `{"amount":"1"}`, invalid("X-GP-Version")},
		{"idempotency key too long", adjust, apiHeader(tok, "X-GP-Idempotency", strings.Repeat("k", 51)), `{"amount":"1"}`, invalid("X-GP-Idempotency")},
		{"idempotency key not ASCII", adjust, apiHeader(tok, "X-GP-Idempotency", "kéy"), `{"amount":"1"}`, invalid("X-GP-Idempotency")},
		{"form content type", adjust, apiHeader(tok, "Content-Type", "application/x-www-form-urlencoded"), `{"amount":"1"}`, invalid("Content-Type")},
		{"xml content type", adjust, apiHeader(tok, "Content-Type", "text/xml"), `{"amount":"1"}`, invalid("Content-Type")},
		{"order status other", order, apiHeader(tok), `{"status":"SHIPPED"}`, invalid("status")},
		{"order pricing_profile too long", order, apiHeader(tok), `{"pricing_profile":"` + strings.Repeat("p", 256) + `"}`, invalid("pricing_profile")},
		{"order products neither object nor array", order, apiHeader(tok), `{"products":"PRO_TRA_CP-US-CARD-A920_SP"}`, invalid("products")},
		{"order quantity zero", order, apiHeader(tok), `{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":0}}]}`, invalid("products.device.quantity")},
		{"order card number letters", order, apiHeader(tok), `{"payment_method":{"card":{"number":"4111abcd11111111"}}}`, invalid("payment_method.card.number")},
		{"order status_url ftp", order, apiHeader(tok), `{"notifications":{"status_url":"ftp://example.com/x"}}`,
			gpError{400, "INVALID_REQUEST_DATA", "40090", "notifications.status_url value is invalid. Please check the format and data provided is correct."}},
		{"order batch_close_time too long", order, apiHeader(tok), `{"batch_close_time":"` + strings.Repeat("1", 51) + `"}`, invalid("batch_close_time")},
		{"order unknown product priced", order, apiHeader(tok), `{"status":"FOR_REVIEW","products":[{"id":"PRO_NOPE"}]}`, invalid("products.id")},
		{"order unknown pricing profile", order, apiHeader(tok), `{"status":"FOR_REVIEW","pricing_profile":"nope"}`, invalid("pricing_profile")},
		{"order unknown field", order, apiHeader(tok), `{"colour":"red"}`,
			gpError{400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: colour"}},
		{"merchant path id too long", "/merchants/" + strings.Repeat("M", 51) + "/orders", apiHeader(tok), `{}`,
			gpError{400, "INVALID_REQUEST_DATA", "40090", "merchant_id value is invalid. Please check the format and data provided is correct."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := env.do("POST", tt.path, tt.header, tt.body).gpError(t)
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
	// None of those requests may have changed the transaction.
	var txn sandbox.Transaction
	env.db.View(func(tx sandbox.Tx) error {
		var err error
		txn, err = tx.Transaction(capturedTwo)
		return err
	})
	if len(env.mustAdjustments(capturedTwo)) != 0 || txn.Amount != "1000" || txn.GratuityAmount != "" {
		t.Errorf("rejected requests changed the transaction: %+v", txn)
	}
}
