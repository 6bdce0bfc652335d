package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// Every row of the error catalogue (sandbox/api/README.md §1), through HTTP, comparing the whole tuple.
func TestErrorCatalogue(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	restricted := env.MustToken(apitest.RestrictedApp, apitest.RestrictedKey, "")
	orderOnly := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, `"permissions":["MMA_POST_Order"]`)
	adjust := func(id string) string { return "/transactions/" + id + "/adjustment" }
	const tip = `{"gratuity_amount":"200"}`

	tests := []struct {
		name   string
		method string
		path   string
		header map[string]string
		body   string
		want   apitest.GPError
	}{
		{"token missing", "POST", adjust(apitest.CapturedOne), map[string]string{"X-GP-Version": apitest.Version}, tip,
			apitest.Err(401, "NOT_AUTHENTICATED", "40001", "Invalid access token")},
		{"token unknown", "POST", adjust(apitest.CapturedOne), apitest.APIHeader("nosuchtoken"), tip,
			apitest.Err(401, "NOT_AUTHENTICATED", "40001", "Invalid access token")},
		{"token malformed", "POST", adjust(apitest.CapturedOne), map[string]string{"Authorization": "Basic abc", "X-GP-Version": apitest.Version}, tip,
			apitest.Err(401, "NOT_AUTHENTICATED", "40001", "Invalid access token")},
		{"unknown app", "POST", "/accesstoken", apitest.JSONHeader(), apitest.TokenBody("NoSuchApp", apitest.PartnerKey, ""),
			apitest.Err(403, "ACTION_NOT_AUTHORIZED", "40004", "App credentials not recognized")},
		{"wrong secret", "POST", "/accesstoken", apitest.JSONHeader(), apitest.TokenBody(apitest.PartnerApp, "WrongKey", ""),
			apitest.Err(403, "ACTION_NOT_AUTHORIZED", "40004", "Credentials not recognized to create access token.")},
		{"live config without adjustment", "POST", adjust(apitest.CapturedOne), apitest.APIHeader(restricted), tip,
			apitest.Err(403, "ACTION_NOT_AUTHORIZED", "40212", "Permission not enabled to execute action")},
		{"token without TRN_POST_Adjust", "POST", adjust(apitest.CapturedOne), apitest.APIHeader(orderOnly), tip,
			apitest.Err(403, "ACTION_NOT_AUTHORIZED", "40212", "Permission not enabled to execute action")},
		{"live config without orders", "POST", "/merchants/" + apitest.MerchantOne + "/orders", apitest.APIHeader(restricted), `{}`,
			apitest.Err(403, "ACTION_NOT_AUTHORIZED", "40212", "Permission not enabled to execute action")},
		{"required field missing", "POST", "/accesstoken", apitest.JSONHeader(), `{"app_id":"x","secret":"y","grant_type":"client_credentials"}`,
			apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields nonce")},
		{"adjustment with nothing to change", "POST", adjust(apitest.CapturedOne), apitest.APIHeader(tok), `{}`,
			apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields [amount or tag or gratuityAmount]")},
		{"field of wrong type", "POST", adjust(apitest.CapturedOne), apitest.APIHeader(tok), `{"amount":1000}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "amount contains unexpected data")},
		{"path id malformed", "POST", adjust(strings.Repeat("T", 51)), apitest.APIHeader(tok), tip,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40090", "id value is invalid. Please check the format and data provided is correct.")},
		{"status_url malformed", "POST", "/merchants/" + apitest.MerchantOne + "/orders", apitest.APIHeader(tok), `{"notifications":{"status_url":"not a url"}}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40090", "notifications.status_url value is invalid. Please check the format and data provided is correct.")},
		{"unknown field", "POST", adjust(apitest.CapturedOne), apitest.APIHeader(tok), `{"amount":"10","tip":"1"}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: tip")},
		{"unknown permissions", "POST", "/accesstoken", apitest.JSONHeader(), apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, `"permissions":["TRN_POST_Adjust","NOPE_A","NOPE_B"]`),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40119", "Invalid permissions [ NOPE_A,NOPE_B ] provided in the input field - permissions")},
		{"unknown transaction", "POST", adjust("TRN_NoSuchTransaction"), apitest.APIHeader(tok), tip,
			apitest.Err(404, "RESOURCE_NOT_FOUND", "40008", "Transaction TRN_NoSuchTransaction not found at this location.")},
		{"unknown transaction read", "GET", "/transactions/TRN_NoSuchTransaction", apitest.APIHeader(tok), "",
			apitest.Err(404, "RESOURCE_NOT_FOUND", "40118", "Transactions TRN_NoSuchTransaction not found at this /ucp/transactions/TRN_NoSuchTransaction")},
		{"unknown reporting brand", "GET", "/transactions?brand=MIT", apitest.APIHeader(tok), "",
			apitest.Err(400, "INVALID_REQUEST_DATA", "40097", "Invalid Value provided in the input field - brand")},
		{"foreign reporting account", "GET", "/transactions?account_name=VWTest", apitest.APIHeader(tok), "",
			apitest.Err(400, "ACTION_NOT_AUTHORIZED", "40003", "Token does not match account_id or account_name in the request")},
		{"stored credential incomplete", "POST", "/transactions", apitest.APIHeader(tok), apitest.SaleBody("100", "AUTO", apitest.ManualCard, `"stored_credential":{"model":"RECURRING","sequence":"FIRST"}`),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40007", "Request expects the following conditionally mandatory fields initiator, model and sequence.")},
		{"surcharge over 5%", "POST", "/transactions", apitest.APIHeader(tok), apitest.SaleBody("100", "AUTO", apitest.ManualCard, `"surcharge_amount":"6"`),
			apitest.Err(400, "INVALID_REQUEST_DATA", "50020", "The surcharge amount is greater than 5% of the transaction amount")},
		{"standalone refund of zero", "POST", "/transactions", apitest.APIHeader(tok), strings.Replace(apitest.SaleBody("000", "AUTO", apitest.ManualCard), `"SALE"`, `"REFUND"`, 1),
			apitest.Err(400, "INVALID_REQUEST_DATA", "50020", "Zero negative or insufficient amount specified ")},
		{"another merchant's transaction", "POST", adjust(apitest.OtherMerchant), apitest.APIHeader(tok), tip,
			apitest.Err(404, "RESOURCE_NOT_FOUND", "40008", "Transaction "+apitest.OtherMerchant+" not found at this location.")},
		{"unknown merchant", "POST", "/merchants/MER_nosuch/orders", apitest.APIHeader(tok), `{}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40041", "Merchant configuration does not exist for the following combination: MMA_00000000000000000000000000000001 , MER_nosuch")},
		{"merchant the app may not act for", "POST", "/merchants/" + apitest.MerchantThree + "/orders", apitest.APIHeader(tok), `{}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40041", "Merchant configuration does not exist for the following combination: MMA_00000000000000000000000000000001 , "+apitest.MerchantThree)},
		{"declined transaction", "POST", adjust(apitest.Declined), apitest.APIHeader(tok), tip,
			apitest.Err(400, "INVALID_ACTION", "40290", "Cannot PROCESS Adjustment over a transaction that does not have a status of CAPTURED or PREAUTHORIZED.")},
		{"closed batch", "POST", adjust(apitest.Batched), apitest.APIHeader(tok), tip,
			apitest.Err(400, "INVALID_ACTION", "40290", "Cannot PROCESS Adjustment over a transaction that is in a closed batch.")},
		{"body not JSON", "POST", adjust(apitest.CapturedOne), apitest.APIHeader(tok), `{"amount":`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "Request body contains unexpected data")},
		{"body not an object", "POST", adjust(apitest.CapturedOne), apitest.APIHeader(tok), `["amount"]`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "Request body contains unexpected data")},
		{"body followed by more", "POST", adjust(apitest.CapturedOne), apitest.APIHeader(tok), `{"amount":"1"}{}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "Request body contains unexpected data")},
		{"body nested too deep", "POST", adjust(apitest.CapturedOne), apitest.APIHeader(tok), `{"amount":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "Request body contains unexpected data")},
		{"body over the limit", "POST", adjust(apitest.CapturedOne), apitest.APIHeader(tok), `{"amount":"` + strings.Repeat("1", 70<<10) + `"}`,
			apitest.Err(413, "INVALID_REQUEST_DATA", "40213", "Request body is larger than 65536 bytes")},
		{"unknown path", "POST", "/nowhere", apitest.JSONHeader(), `{}`,
			apitest.Err(404, "RESOURCE_NOT_FOUND", "40118", "Resource /nowhere not found")},
		{"wrong method", "GET", "/accesstoken", nil, ``,
			apitest.Err(405, "INVALID_ACTION", "40290", "Method GET not allowed for /accesstoken")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := env.Do(tt.method, tt.path, tt.header, tt.body).GPError(t)
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// A 405 names in Allow the methods its path takes, the sandbox's own paths too.
func TestMethodNotAllowedNamesTheAllowed(t *testing.T) {
	env := mustSandbox(t)
	for _, tc := range []struct{ method, path, allow string }{
		{"GET", "/accesstoken", "POST"},
		{"PUT", "/batches", "POST"},
		{"DELETE", "/transactions/" + apitest.CapturedOne, "GET"},
		{"POST", "/_sandbox/health", "GET"},
	} {
		r := env.Do(tc.method, tc.path, nil, "")
		if r.Status != 405 || r.Header.Get("Allow") != tc.allow {
			t.Errorf("%s %s: %d, Allow %q, want 405 and %q", tc.method, tc.path, r.Status, r.Header.Get("Allow"), tc.allow)
		}
	}
}

// A token known but past its life answers 40002; the clock is the sandbox's.
func TestExpiredToken(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, `"seconds_to_expire":60`)
	path := "/transactions/" + apitest.CapturedOne + "/adjustment"
	if r := env.Do("POST", path, apitest.APIHeader(tok), `{"gratuity_amount":"1"}`); r.Status != 200 {
		t.Fatalf("fresh token refused: %d %s", r.Status, r.Body)
	}
	env.Clock.Advance(60 * time.Second)
	got := env.Do("POST", path, apitest.APIHeader(tok), `{"gratuity_amount":"2"}`).GPError(t)
	want := apitest.Err(401, "NOT_AUTHENTICATED", "40002", "Access token expired")
	if got != want {
		t.Errorf("got %+v want %+v", got, want)
	}
	// 24 hours after its expiry the token is forgotten (A15).
	env.Clock.Advance(24 * time.Hour)
	got = env.Do("POST", path, apitest.APIHeader(tok), `{"gratuity_amount":"3"}`).GPError(t)
	forgotten := apitest.Err(401, "NOT_AUTHENTICATED", "40001", "Invalid access token")
	if got != forgotten {
		t.Errorf("a day after expiry: got %+v want %+v", got, forgotten)
	}
	// Forgotten means gone: setting the clock back to the token's life does not revive it.
	if r := env.Do("POST", "/_sandbox/clock", apitest.JSONHeader(), `{"set":"`+sandbox.FormatTime(apitest.StartTime)+`"}`); r.Status != 200 {
		t.Fatalf("set the clock back: %d %s", r.Status, r.Body)
	}
	got = env.Do("POST", path, apitest.APIHeader(tok), `{"gratuity_amount":"4"}`).GPError(t)
	if got != forgotten {
		t.Errorf("clock set back after the token was forgotten: got %+v want %+v", got, forgotten)
	}
}

// Every field rule of the three operations, each answered with the tuple naming the field.
func TestFieldRules(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	adjust := "/transactions/" + apitest.CapturedTwo + "/adjustment"
	order := "/merchants/" + apitest.MerchantOne + "/orders"
	invalid := func(field string) apitest.GPError {
		return apitest.Err(400, "INVALID_REQUEST_DATA", "40213", field+" contains unexpected data")
	}
	tests := []struct {
		name, path string
		header     map[string]string
		body       string
		want       apitest.GPError
	}{
		{"seconds_to_expire below range", "/accesstoken", apitest.JSONHeader(), apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, `"seconds_to_expire":59`), invalid("seconds_to_expire")},
		{"seconds_to_expire above range", "/accesstoken", apitest.JSONHeader(), apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, `"seconds_to_expire":604801`), invalid("seconds_to_expire")},
		{"seconds_to_expire fractional", "/accesstoken", apitest.JSONHeader(), apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, `"seconds_to_expire":600.5`), invalid("seconds_to_expire")},
		{"seconds_to_expire as string", "/accesstoken", apitest.JSONHeader(), apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, `"seconds_to_expire":"600"`), invalid("seconds_to_expire")},
		{"interval_to_expire unknown", "/accesstoken", apitest.JSONHeader(), apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, `"interval_to_expire":"2_DAYS"`), invalid("interval_to_expire")},
		{"grant_type other", "/accesstoken", apitest.JSONHeader(), `{"app_id":"a","nonce":"n","secret":"s","grant_type":"password"}`, invalid("grant_type")},
		{"permissions not an array", "/accesstoken", apitest.JSONHeader(), apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, `"permissions":"TRN_POST_Adjust"`), invalid("permissions")},
		{"restricted_token other", "/accesstoken", apitest.JSONHeader(), apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, `"restricted_token":"MAYBE"`), invalid("restricted_token")},
		{"app_id too long", "/accesstoken", apitest.JSONHeader(), `{"app_id":"` + strings.Repeat("a", 51) + `","nonce":"n","secret":"s","grant_type":"client_credentials"}`, invalid("app_id")},
		{"currency in small letters", "/transactions", apitest.APIHeader(tok), inCurrency(apitest.SaleBody("1000", "AUTO", apitest.ManualCard), "usd"), invalid("currency")},
		{"currency with a digit", "/transactions", apitest.APIHeader(tok), inCurrency(apitest.SaleBody("1000", "AUTO", apitest.ManualCard), "US1"), invalid("currency")},
		{"terminal's currency of no country", "/devices", apitest.APIHeader(tok), strings.Replace(apitest.MICBody("Ping", ""), `"USD"`, `"USDOLLAR"`, 1), invalid("currency")},
		{"refund's currency in small letters", "/transactions/" + apitest.CapturedTwo + "/refund", apitest.APIHeader(tok), `{"amount":"100","currency":"eur"}`, invalid("currency")},
		{"amount with letters", adjust, apitest.APIHeader(tok), `{"amount":"10.00"}`, invalid("amount")},
		{"amount negative", adjust, apitest.APIHeader(tok), `{"amount":"-5"}`, invalid("amount")},
		{"amount too long", adjust, apitest.APIHeader(tok), `{"amount":"` + strings.Repeat("9", 51) + `"}`, invalid("amount")},
		{"amount empty", adjust, apitest.APIHeader(tok), `{"amount":""}`, invalid("amount")},
		{"gratuity as number", adjust, apitest.APIHeader(tok), `{"gratuity_amount":5}`, invalid("gratuity_amount")},
		{"tag odd length", adjust, apitest.APIHeader(tok), `{"payment_method":{"card":{"tag":"9F0"}}}`, invalid("payment_method.card.tag")},
		{"tag not hex", adjust, apitest.APIHeader(tok), `{"payment_method":{"card":{"tag":"ZZ"}}}`, invalid("payment_method.card.tag")},
		{"card not an object", adjust, apitest.APIHeader(tok), `{"payment_method":{"card":"x"}}`, invalid("payment_method.card")},
		{"empty card block is absent", adjust, apitest.APIHeader(tok), `{"payment_method":{"card":{}}}`,
			apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields [amount or tag or gratuityAmount]")},
		{"nested unknown field", adjust, apitest.APIHeader(tok), `{"amount":"1","payment_method":{"card":{"tag":"9F02","number":"4111"}}}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: payment_method.card.number")},
		{"not UTF-8", adjust, apitest.APIHeader(tok), "{\"amount\":\"1\xff\"}", invalid("amount")},
		{"control character", adjust, apitest.APIHeader(tok), `{"amount":"1\u0000"}`, invalid("amount")},
		{"version missing", adjust, map[string]string{"Authorization": "Bearer " + tok}, `{"amount":"1"}`,
			apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields X-GP-Version")},
		{"version too long", adjust, apitest.APIHeader(tok, "X-GP-Version", strings.Repeat("v", 51)), `{"amount":"1"}`, invalid("X-GP-Version")},
		{"idempotency key too long", adjust, apitest.APIHeader(tok, "X-GP-Idempotency", strings.Repeat("k", 51)), `{"amount":"1"}`, invalid("X-GP-Idempotency")},
		{"idempotency key not ASCII", adjust, apitest.APIHeader(tok, "X-GP-Idempotency", "kéy"), `{"amount":"1"}`, invalid("X-GP-Idempotency")},
		{"form content type", adjust, apitest.APIHeader(tok, "Content-Type", "application/x-www-form-urlencoded"), `{"amount":"1"}`, invalid("Content-Type")},
		{"xml content type", adjust, apitest.APIHeader(tok, "Content-Type", "text/xml"), `{"amount":"1"}`, invalid("Content-Type")},
		{"order status other", order, apitest.APIHeader(tok), `{"status":"SHIPPED"}`, invalid("status")},
		{"order pricing_profile too long", order, apitest.APIHeader(tok), `{"pricing_profile":"` + strings.Repeat("p", 256) + `"}`, invalid("pricing_profile")},
		{"order products neither object nor array", order, apitest.APIHeader(tok), `{"products":"PRO_TRA_CP-US-CARD-A920_SP"}`, invalid("products")},
		{"order quantity zero", order, apitest.APIHeader(tok), `{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":0}}]}`, invalid("products.device.quantity")},
		{"order card number letters", order, apitest.APIHeader(tok), `{"payment_method":{"card":{"number":"4111abcd11111111"}}}`, invalid("payment_method.card.number")},
		{"order status_url ftp", order, apitest.APIHeader(tok), `{"notifications":{"status_url":"ftp://example.com/x"}}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40090", "notifications.status_url value is invalid. Please check the format and data provided is correct.")},
		{"order batch_close_time too long", order, apitest.APIHeader(tok), `{"batch_close_time":"` + strings.Repeat("1", 51) + `"}`, invalid("batch_close_time")},
		{"order unknown product priced", order, apitest.APIHeader(tok), `{"status":"FOR_REVIEW","products":[{"id":"PRO_NOPE"}]}`, invalid("products.id")},
		{"order unknown pricing profile", order, apitest.APIHeader(tok), `{"status":"FOR_REVIEW","pricing_profile":"nope"}`, invalid("pricing_profile")},
		{"order unknown product placed", order, apitest.APIHeader(tok), `{"products":[{"id":"PRO_NOPE","device":{"quantity":1}}]}`, invalid("products.id")},
		{"order placed with an unknown pricing profile", order, apitest.APIHeader(tok), `{"pricing_profile":"nope"}`, invalid("pricing_profile")},
		{"order unknown field", order, apitest.APIHeader(tok), `{"colour":"red"}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: colour")},
		{"merchant path id too long", "/merchants/" + strings.Repeat("M", 51) + "/orders", apitest.APIHeader(tok), `{}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40090", "merchant_id value is invalid. Please check the format and data provided is correct.")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := env.Do("POST", tt.path, tt.header, tt.body).GPError(t)
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
	// None of those requests may have changed the transaction.
	var txn sandbox.Transaction
	env.DB.View(func(tx sandbox.Tx) error {
		var err error
		txn, err = tx.Transaction(apitest.CapturedTwo)
		return err
	})
	if len(env.mustAdjustments(apitest.CapturedTwo)) != 0 || txn.Amount != "1000" || txn.GratuityAmount != "" {
		t.Errorf("rejected requests changed the transaction: %+v", txn)
	}
}
