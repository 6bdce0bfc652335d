package api_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// The merchants the SDKs' onboarding and account tests name, seeded by the default
// fixtures for the layout app.
const (
	sdkMerchant      = "MER_98f60f1a397c4dd7b7167bda61520292"
	sdkFundsMerchant = "MER_5096d6b88b0b49019c870392bd98ddac"
	sdkFundsAccount  = "FMA_a78b841dfbd14803b3a31e4e0c514c72"
	layoutMMA        = "MMA_00000000000000000000000000000003"
)

// boardingBody is POST /merchants as the PHP SDK's GpApiPayFacRequestBuilder writes
// it for GpApiMerchantsOnboardTest::testBoardMerchant, with the products' devices as
// the builder marks card-present ones and quantity the terminals to order.
func boardingBody(name string, terminals string) string {
	return `{"name":"` + name + `","legal_name":"Business Legal Name","dba":"Doing Business As",
"merchant_category_code":"5999","website":"https://example.com","currency":"USD","tax_id_reference":"123456789",
"notification_email":"merchant@example.com","notifications":{"status_url":"https://www.example.com/notifications/status"},
"pricing_profile":"standard","description":"Merchant Business Description","type":"MERCHANT",
"addresses":[{"line_1":"Apartment 852","line_2":"Complex 741","line_3":"Unit 4","city":"Chicago","state":"IL","postal_code":"50001","country":"US","functions":["BUSINESS"]},
 {"line_1":"Flat 456","line_2":"House 789","line_3":"Basement Flat","city":"Halifax","postal_code":"W5 9HR","country":"GB","functions":["SHIPPING"]}],
"payment_processing_statistics":{"total_monthly_sales_amount":"3000000","average_ticket_sales_amount":"50000","highest_ticket_sales_amount":"60000"},
"payment_methods":[{"functions":["PRIMARY_PAYOUT"],"card":{"number":"4111111111111111","expiry_month":"12","expiry_year":"30","cvv":"123"}},
 {"functions":["SECONDARY_PAYOUT"],"name":"Bank Account Holder Name","bank_transfer":{"account_holder_type":"Personal","account_number":"123456788","account_type":"CHECKING",
  "bank":{"name":"National Bank","code":"102000076","international_code":"","address":{"line_1":"1 Business Address","line_2":"Suite 2","line_3":"foyer","city":"Atlanta","state":"GA","postal_code":"30346","country":"US"}}},
  "notifications":{"status_url":"https://www.example.com/notifications/status"}}],
"persons":[{"functions":["APPLICANT"],"first_name":"James","middle_name":"Mason","last_name":"Doe","email":"uniqueemail@address.com",
 "date_of_birth":"1982-02-23","national_id_reference":"123456789","equity_percentage":"25","job_title":"CEO",
 "address":{"line_1":"1 Business Address","line_2":"Suite 2","line_3":"1234","city":"Atlanta","state":"GA","postal_code":"30346","country":"US"},
 "contact_phone":{"country_code":"01","subscriber_number":"8008675309"},"work_phone":{"country_code":"01","subscriber_number":"8008675309"}}],
"products":[{"device":{"quantity":` + terminals + `},"id":"PRO_TRA_CP-US-CARD-A920_SP"},{"id":"PRO_FMA_PUSH-FUNDS_PP"},{"id":"PRO_TRA_CNP_US_BANK-TRANSFER_PP"},{"id":"PRO_TRA_CNP-US-CARD_PP"}]}`
}

var merchantID = regexp.MustCompile(`^MER_[0-9a-f]{32}$`)

// GpApiMerchantsOnboardTest::testBoardMerchant (PHP, Java, .NET): a new merchant is
// UNDER_REVIEW, "Merchant Boarding in progress", SUCCESS; then the sandbox clock's
// review makes it ACTIVE; GET /merchants/{id} shows it with the bank account masked.
func TestBoardMerchant(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(layoutApp, layoutKey, "")
	r := env.Do("POST", "/merchants", apitest.APIHeader(tok), boardingBody("CERT_Propay_1", "1"))
	m := r.JSON(t)
	if r.Status != 200 || m["status"] != "UNDER_REVIEW" || m["status_description"] != "Merchant Boarding in progress" ||
		apitest.Dig(m, "action.result_code") != "SUCCESS" || apitest.Dig(m, "action.type") != "MERCHANT_CREATE" ||
		m["name"] != "CERT_Propay_1" || m["type"] != "MERCHANT" || !merchantID.MatchString(m["id"].(string)) {
		t.Fatalf("boarded: %d %s", r.Status, r.Body)
	}
	id := m["id"].(string)
	if strings.Contains(string(r.Body), "123456788") || strings.Contains(string(r.Body), "4111111111111111") {
		t.Errorf("a bank or card number in clear: %s", r.Body)
	}
	got := env.Do("GET", "/merchants/"+id, apitest.APIHeader(tok), "").JSON(t)
	pm, _ := got["payment_methods"].([]any)
	if len(pm) != 2 || apitest.Dig(pm[1].(map[string]any), "bank_transfer.account_number") != "XXXXX6788" ||
		apitest.Dig(pm[0].(map[string]any), "card.number") != carddata.MaskNumber("4111111111111111") || apitest.Dig(got, "action.type") != "MERCHANT_SINGLE" {
		t.Errorf("GET: %v", got)
	}
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"23h59m59s"}`)
	tok = env.MustToken(layoutApp, layoutKey, "")
	if s := env.Do("GET", "/merchants/"+id, apitest.APIHeader(tok), "").JSON(t)["status"]; s != "UNDER_REVIEW" {
		t.Errorf("a second before the review is over: %v", s)
	}
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"1s"}`)
	if s := env.Do("GET", "/merchants/"+id, apitest.APIHeader(tok), "").JSON(t)["status"]; s != "ACTIVE" {
		t.Errorf("once the review is over: %v", s)
	}
}

// A merchant's persons are answered as boarded: the members GP always sends even when
// empty (functions as [], middle_name as ""), the others only when sent, phones whole.
func TestMerchantPersonsAnswered(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(layoutApp, layoutKey, "")
	body := strings.Replace(boardingBody("CERT_Persons", "1"), `"persons":[{"functions":["APPLICANT"],"first_name":"James","middle_name":"Mason",`, `"persons":[{"first_name":"James",`, 1)
	body = strings.Replace(body, `"date_of_birth":"1982-02-23","national_id_reference":"123456789","equity_percentage":"25","job_title":"CEO",`, `"job_title":"CEO",`, 1)
	m := env.Do("POST", "/merchants", apitest.APIHeader(tok), body).JSON(t)
	id, _ := m["id"].(string)
	r := env.Do("GET", "/merchants/"+id, apitest.APIHeader(tok), "")
	var got struct{ Persons []json.RawMessage }
	if err := json.Unmarshal(r.Body, &got); err != nil || len(got.Persons) != 1 {
		t.Fatalf("merchant %q: %d %s", id, r.Status, r.Body)
	}
	want := `{"functions":[],"first_name":"James","middle_name":"","last_name":"Doe","email":"uniqueemail@address.com","job_title":"CEO",` +
		`"address":{"line_1":"1 Business Address","line_2":"Suite 2","line_3":"1234","city":"Atlanta","state":"GA","postal_code":"30346","country":"US"},` +
		`"contact_phone":{"country_code":"01","subscriber_number":"8008675309"},"work_phone":{"country_code":"01","subscriber_number":"8008675309"}}`
	if string(got.Persons[0]) != want {
		t.Errorf("person\n got %s\nwant %s", got.Persons[0], want)
	}
}

// The admin API decides the review at once: POST /_sandbox/merchants/{id}/status.
func TestMerchantReviewByAdmin(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(layoutApp, layoutKey, "")
	id := env.MustPost(tok, "/merchants", boardingBody("Reviewed", "1"))["id"].(string)
	if got := env.MustAdmin("POST", "/_sandbox/merchants/"+id+"/status", `{"status":"ACTIVE"}`); got["status"] != "ACTIVE" {
		t.Errorf("admin answer: %v", got)
	}
	if s := env.Do("GET", "/merchants/"+id, apitest.APIHeader(tok), "").JSON(t)["status"]; s != "ACTIVE" {
		t.Errorf("after the admin's decision: %v", s)
	}
	r := env.Do("POST", "/_sandbox/merchants/MER_unknown/status", apitest.JSONHeader(), `{"status":"ACTIVE"}`)
	if r.Status != 404 {
		t.Errorf("unknown merchant: %d %s", r.Status, r.Body)
	}
}

// Bad boarding input answers GP's tuples: GpApiMerchantsOnboardTest's
// testBoardMerchant_WithoutUserName, _WithoutMerchantType, _WithoutPersons,
// _DuplicateMerchantName and _WithIdempotencyKey (PHP; .NET and Java alike).
func TestBoardMerchantRefusals(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(layoutApp, layoutKey, "")
	body := boardingBody("Refusals", "1")
	without := func(member string) string {
		return regexp.MustCompile(`"`+member+`":"[^"]*",`).ReplaceAllString(body, "")
	}
	for _, tc := range []struct {
		name, body string
		want       apitest.GPError
	}{
		{"no name", strings.Replace(body, `"name":"Refusals",`, "", 1), apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields name")},
		{"no type", without("type"), apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields type")},
		{"no persons", regexp.MustCompile(`(?s)"persons":\[.*?\}\}\],`).ReplaceAllString(body, ""), apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields : email")},
		{"unknown pricing profile", strings.Replace(body, `"standard"`, `"gold"`, 1), apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "pricing_profile contains unexpected data")},
		{"bad quantity", boardingBody("Refusals", `"many"`), apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "products.device.quantity contains unexpected data")},
	} {
		if got := env.Do("POST", "/merchants", apitest.APIHeader(tok), tc.body).GPError(t); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	key := apitest.APIHeader(tok, "X-GP-Idempotency", "board-once")
	first := env.Do("POST", "/merchants", key, body)
	if first.Status != 200 {
		t.Fatalf("first: %d %s", first.Status, first.Body)
	}
	// .NET BoardMerchant_WithIdempotency: the merchant's id and its status.
	boarded := first.JSON(t)["id"].(string)
	if got, want := env.Do("POST", "/merchants", key, body).GPError(t), apitest.Err(409, "DUPLICATE_ACTION", "40039", "Idempotency Key seen before: id="+boarded+", status=UNDER_REVIEW"); got != want {
		t.Errorf("same key: %+v", got)
	}
	want := apitest.Err(400, "INVALID_REQUEST_DATA", "40041", "Duplicate Merchant Name")
	if got := env.Do("POST", "/merchants", apitest.APIHeader(tok), body).GPError(t); got != want {
		t.Errorf("same name: %+v", got)
	}
}

// GpApiMerchantsOnboardTest::testGetMerchantInfo, _RandomId, _InvalidId (PHP, Java,
// .NET): the SDKs' fixed merchant is there; an unknown MER_ id is 40041 naming the
// token's merchant-management account, an id that is none 40042.
func TestGetMerchant(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(layoutApp, layoutKey, "")
	if m := env.Do("GET", "/merchants/"+sdkMerchant, apitest.APIHeader(tok), "").JSON(t); m["id"] != sdkMerchant || m["status"] != "ACTIVE" {
		t.Errorf("the SDKs' merchant: %v", m)
	}
	// GP dates every merchant, the default fixtures' own too: Java and .NET read an
	// empty time_created as none.
	own := env.Do("GET", "/merchants/MER_00000000000000000000000000000001", apitest.APIHeader(tok), "").JSON(t)
	if own["time_created"] != "2020-01-01T09:00:00.000Z" || own["time_last_updated"] != "2020-01-01T09:00:00.000Z" {
		t.Errorf("the app's own merchant: %v", own)
	}
	random := "MER_0123456789abcdef0123456789abcdef"
	want := apitest.Err(400, "INVALID_REQUEST_DATA", "40041", "Merchant configuration does not exist for the following combination: "+layoutMMA+" , "+random)
	if got := env.Do("GET", "/merchants/"+random, apitest.APIHeader(tok), "").GPError(t); got != want {
		t.Errorf("random id: %+v", got)
	}
	want = apitest.Err(404, "INVALID_TRANSACTION_ACTION", "40042", "Retrieve information about this transaction is not supported")
	if got := env.Do("GET", "/merchants/0b0e3c4c-6c7c-4a69-9a3c-1d2e3f4a5b6c", apitest.APIHeader(tok), "").GPError(t); got != want {
		t.Errorf("GUID: %+v", got)
	}
}

// GpApiMerchantsOnboardTest::testSearchMerchants and the edits that find their
// merchant first (PHP): the `merchants` envelope with paging and total_record_count.
func TestListMerchants(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(layoutApp, layoutKey, "")
	l := env.Do("GET", "/merchants?page=1&page_size=10", apitest.APIHeader(tok), "").JSON(t)
	ms, _ := l["merchants"].([]any)
	if l["total_record_count"] != 4.0 || len(ms) != 4 || apitest.Dig(l, "paging.page_size") != 10.0 || apitest.Dig(l, "paging.page") != 1.0 {
		t.Fatalf("list: %v", l)
	}
	l = env.Do("GET", "/merchants?page=2&page_size=1&status=ACTIVE&from_time_created="+daysAgo(env, 399), apitest.APIHeader(tok), "").JSON(t)
	ms, _ = l["merchants"].([]any)
	if l["total_record_count"] != 2.0 || len(ms) != 1 || ms[0].(map[string]any)["id"] != sdkFundsMerchant {
		t.Errorf("filtered: %v", l)
	}
	want := apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "status contains unexpected data")
	if got := env.Do("GET", "/merchants?status=OPEN", apitest.APIHeader(tok), "").GPError(t); got != want {
		t.Errorf("bad status: %+v", got)
	}
}

// GpApiMerchantsOnboardTest::testEditMerchantApplicantInfo,
// testEditPrimaryPayoutPaymentMethod, testEditMerchantBusinessInformation and the
// RemoveMerchantFromPartner ones (PHP, .NET).
func TestEditMerchant(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(layoutApp, layoutKey, "")
	r := env.Do("PATCH", "/merchants/"+sdkMerchant, apitest.APIHeader(tok),
		`{"name":"Username","dba":"Doing Business As","website":"https://abcd.com","tax_id_reference":"987654321","status":"ACTIVE",
"addresses":[{"line_1":"Apartment 852","city":"Chicago","state":"IL","postal_code":"50001","country":"US","functions":["BUSINESS"]}],
"payment_methods":[{"functions":["PRIMARY_PAYOUT"],"name":"Holder","bank_transfer":{"account_number":"987654321","account_type":"CHECKING","bank":{"name":"B","code":"102000076"}}}],
"description":"Sample Data for description"}`)
	m := r.JSON(t)
	if r.Status != 200 || apitest.Dig(m, "action.result_code") != "PENDING" || m["status"] != "UNDER_REVIEW" ||
		m["status_description"] != "Merchant Editing in progress" || m["name"] != "Username" || m["id"] != sdkMerchant {
		t.Errorf("edit: %d %s", r.Status, r.Body)
	}
	if strings.Contains(string(r.Body), `"account_number":"987654321"`) {
		t.Errorf("bank account number in clear: %s", r.Body)
	}
	want := apitest.Err(400, "MANDATORY_DATA_MISSING", "40241", "Required field is missing.")
	if got := env.Do("PATCH", "/merchants/"+sdkMerchant, apitest.APIHeader(tok), `{"status_change_reason":"REMOVE_PARTNERSHIP"}`).GPError(t); got != want {
		t.Errorf("reason alone: %+v", got)
	}
	want = apitest.Err(400, "INVALID_REQUEST_DATA", "40268", "Bad Request. The request has extra tags which are not required.")
	if got := env.Do("PATCH", "/merchants/"+sdkMerchant, apitest.APIHeader(tok), `{"name":"X","status_change_reason":"REMOVE_PARTNERSHIP"}`).GPError(t); got != want {
		t.Errorf("reason with data: %+v", got)
	}
}

// GpApiMerchantsOnboardTest::testUploadMerchantDocs, _MissingDocFormat,
// _MissingDocCategory (PHP, .NET, Java): kept by hash and size; the content is in
// none of the database file, the log, the journal.
func TestUploadMerchantDocument(t *testing.T) {
	t.Parallel()
	env := mustSinkSandbox(t, apitest.Options{})
	tok := env.MustToken(layoutApp, layoutKey, "")
	content := "U2VjcmV0RG9jdW1lbnRCeXRlc0hlcmU="
	r := env.Do("POST", "/merchants/"+sdkFundsMerchant+"/documents", apitest.APIHeader(tok),
		`{"function":"UNDERWRITING","b64_content":"`+content+`","format":"TIF"}`)
	d := r.JSON(t)
	if r.Status != 200 || apitest.Dig(d, "action.type") != "DOCUMENT_UPLOAD" || apitest.Dig(d, "action.result_code") != "SUCCESS" ||
		d["format"] != "TIF" || d["function"] != "UNDERWRITING" || d["merchant_id"] != sdkFundsMerchant || !strings.HasPrefix(d["id"].(string), "DOC_") {
		t.Errorf("upload: %d %s", r.Status, r.Body)
	}
	for _, tc := range []struct{ body, member string }{
		{`{"function":"UNDERWRITING","b64_content":"VGVzdGluZw=="}`, "format"},
		{`{"b64_content":"VGVzdGluZw==","format":"TIF"}`, "function"},
		{`{"function":"","b64_content":"VGVzdGluZw==","format":"TIF"}`, "function"}, // .NET's unset category
		{`{"function":"IDENTITY_VERIFICATION","format":"TIF"}`, "b64_content"},
	} {
		want := apitest.Err(400, "MANDATORY_DATA_MISSING", "40251", " Request expects the following fields: "+tc.member)
		if got := env.Do("POST", "/merchants/"+sdkFundsMerchant+"/documents", apitest.APIHeader(tok), tc.body).GPError(t); got != want {
			t.Errorf("without %s: %+v", tc.member, got)
		}
	}
	var doc map[string]any
	for _, m := range env.MustAdmin("GET", "/_sandbox/merchants", "")["merchants"].([]any) {
		if m.(map[string]any)["id"] == sdkFundsMerchant {
			doc = m.(map[string]any)["documents"].([]any)[0].(map[string]any)
		}
	}
	// The SHA-256 of the base64 text as sent, and its length.
	if sum := sha256.Sum256([]byte(content)); doc["sha256"] != hex.EncodeToString(sum[:]) || doc["size"] != float64(len(content)) {
		t.Errorf("kept document: %v", doc)
	}
	env.mustHoldNone(t, []string{"/_sandbox/merchants"}, true, content)
}

// Boarding with bank and card numbers keeps neither in clear anywhere.
func TestBoardingKeepsNoAccountNumber(t *testing.T) {
	t.Parallel()
	env := mustSinkSandbox(t, apitest.Options{})
	tok := env.MustToken(layoutApp, layoutKey, "")
	env.MustPost(tok, "/merchants", boardingBody("Masked", "1"))
	env.mustHoldNone(t, []string{"/_sandbox/orders", "/_sandbox/merchants"}, true, "123456788", "4111111111111111")
}

// An app without the merchant-management permissions gets GP's 403.
func TestBoardingNeedsPermissions(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.RestrictedApp, apitest.RestrictedKey, "")
	want := apitest.Err(403, "ACTION_NOT_AUTHORIZED", "40212", "Permission not enabled to execute action")
	for _, req := range [][2]string{
		{"POST", "/merchants"}, {"GET", "/merchants"}, {"GET", "/merchants/" + sdkMerchant},
		{"PATCH", "/merchants/" + sdkMerchant}, {"POST", "/merchants/" + sdkMerchant + "/documents"},
		{"GET", "/accounts"}, {"GET", "/accounts/" + sdkFundsAccount}, {"GET", "/merchants/" + sdkMerchant + "/accounts"},
		{"PATCH", "/merchants/" + sdkFundsMerchant + "/accounts/" + sdkFundsAccount}, {"GET", "/accounts/" + layoutMMA + "/addresses"},
	} {
		if got := env.Do(req[0], req[1], apitest.APIHeader(tok), "").GPError(t); got != want {
			t.Errorf("%s %s: %+v", req[0], req[1], got)
		}
	}
}

// GpApiMerchantAccountsTest (PHP, .NET, Java): testFindAccountsInfo,
// _SearchByStatusActive/_Inactive, _SearchByName, _SearchById, testAccountDetails,
// _RandomId, _NullId; the merchant form of the list.
func TestAccounts(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(layoutApp, layoutKey, "")
	get := func(path string) map[string]any {
		t.Helper()
		r := env.Do("GET", path, apitest.APIHeader(tok), "")
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", path, r.Status, r.Body)
		}
		return r.JSON(t)
	}
	// The fixture accounts were made within the last year of the sandbox clock.
	base := "/accounts?page=1&page_size=10&order=ASC&order_by=TIME_CREATED&from_time_created=" + daysAgo(env, 365) + "&to_time_created=" + daysAgo(env, 0)
	l := get(base + "&status=ACTIVE")
	if l["total_record_count"] != 5.0 || apitest.Dig(l, "accounts") == nil {
		t.Errorf("active: %v", l)
	}
	for _, a := range l["accounts"].([]any) {
		if a.(map[string]any)["status"] != "ACTIVE" {
			t.Errorf("not ACTIVE: %v", a)
		}
	}
	if l := get(base + "&status=INACTIVE"); len(l["accounts"].([]any)) != 0 {
		t.Errorf("inactive: %v", l)
	}
	if l := get(base + "&name=Sandbox%20FMA"); len(l["accounts"].([]any)) != 1 || apitest.Dig(l["accounts"].([]any)[0].(map[string]any), "id") != sdkFundsAccount {
		t.Errorf("by name: %v", l)
	}
	if l := get(base + "&id=FMA_a07e67cdfdc641c4a5fe77a7f9f96cdd"); len(l["accounts"].([]any)) != 1 {
		t.Errorf("by id: %v", l)
	}
	if l := get("/merchants/" + sdkFundsMerchant + "/accounts"); l["total_record_count"] != 3.0 {
		t.Errorf("the merchant's: %v", l)
	}
	if a := get("/accounts/" + sdkFundsAccount); a["id"] != sdkFundsAccount || a["type"] != "FUND_MANAGEMENT" {
		t.Errorf("detail: %v", a)
	}
	if a := get("/merchants/" + sdkFundsMerchant + "/accounts/" + sdkFundsAccount); a["id"] != sdkFundsAccount {
		t.Errorf("the merchant's detail: %v", a)
	}
	want := apitest.Err(404, "INVALID_TRANSACTION_ACTION", "40042", "Retrieve information about this transaction is not supported")
	if got := env.Do("GET", "/accounts/0b0e3c4c-6c7c-4a69-9a3c-1d2e3f4a5b6c", apitest.APIHeader(tok), "").GPError(t); got != want {
		t.Errorf("GUID: %+v", got)
	}
	want = apitest.Err(400, "INVALID_REQUEST_DATA", "40041", "Account details does not exist for null")
	if got := env.Do("GET", "/accounts/null", apitest.APIHeader(tok), "").GPError(t); got != want {
		t.Errorf("null: %+v", got)
	}
}

// GpApiMerchantAccountsTest::testEditAccountInformation_WithoutCardDetails,
// _WithoutAddress, _WithoutUserRef (PHP), and an edit that passes: the card masked.
func TestEditAccount(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(layoutApp, layoutKey, "")
	path := "/merchants/" + sdkFundsMerchant + "/accounts/" + sdkFundsAccount
	card := `"card":{"number":"4263970000005262","expiry_month":"05","expiry_year":"25","cvv":"852"}`
	address := `"billing_address":{"line_1":"Address 1","line_3":"foyer","city":"Atlanta","state":"GA","postal_code":"30346","country":"US"}`
	r := env.Do("PATCH", path, apitest.APIHeader(tok), `{"payer":{"payment_method":{"name":"James Mason",`+card+`},`+address+`}}`)
	if a := r.JSON(t); r.Status != 200 || apitest.Dig(a, "action.type") != "MERCHANT_EDIT" || apitest.Dig(a, "payer.payment_method.number") != carddata.MaskNumber("4263970000005262") ||
		apitest.Dig(a, "payer.payment_method.expiry_month") != "05" || strings.Contains(string(r.Body), "852") {
		t.Errorf("edit: %d %s", r.Status, r.Body)
	}
	for _, tc := range []struct {
		path, body string
		want       apitest.GPError
	}{
		{path, `{"payer":{"payment_method":{"name":null,"card":null},` + address + `}}`, apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields payer.payment_method.name")},
		{path, `{"payer":{"payment_method":{"name":"James Mason",` + card + `},"billing_address":null}}`, apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields payer.billing_address.line_1")},
		{"/accounts/" + sdkFundsAccount, `{"payer":{"payment_method":{"name":"James Mason",` + card + `},` + address + `}}`, apitest.Err(404, "INVALID_TRANSACTION_ACTION", "40042", "Retrieve information about this transaction is not supported")},
	} {
		if got := env.Do("PATCH", tc.path, apitest.APIHeader(tok), tc.body).GPError(t); got != tc.want {
			t.Errorf("%s %s: %+v", tc.path, tc.body, got)
		}
	}
}

// GpApiMerchantAccountsTest::testAccountAddressLookup, _WithoutPostalCode,
// _WithoutAddressLine1And2 (PHP, .NET).
func TestAddressLookup(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(layoutApp, layoutKey, "")
	path := "/accounts/" + layoutMMA + "/addresses?page=1&page_size=10"
	a := env.Do("GET", path+"&postal_code=CB6%201AS&line_1=2649&line_2=Primrose%20Cottage", apitest.APIHeader(tok), "").JSON(t)
	as, _ := a["addresses"].([]any)
	if len(as) == 0 || as[0].(map[string]any)["postal_code"] != "CB6 1AS" || as[0].(map[string]any)["city"] != "Ely" {
		t.Errorf("lookup: %v", a)
	}
	want := apitest.Err(400, "MANDATORY_DATA_MISSING", "40251", "Request expects the following fields:postal_code.")
	if got := env.Do("GET", path+"&line_1=2649&line_2=Primrose", apitest.APIHeader(tok), "").GPError(t); got != want {
		t.Errorf("no postal code: %+v", got)
	}
	want = apitest.Err(400, "MANDATORY_DATA_MISSING", "40251", "Request expects the following fields:line_1 or line_2.")
	if got := env.Do("GET", path+"&postal_code=CB6%201AS", apitest.APIHeader(tok), "").GPError(t); got != want {
		t.Errorf("no lines: %+v", got)
	}
}

// A boarded merchant's terminals: the card-present product with device quantity 2 is
// a device order on the order path; once DELIVERED the terminals are the merchant's
// and one takes a sale over Meet in the Cloud, like an ordered terminal
// (TestOrderedDeviceTakesASale); the merchant's accounts were opened with it.
func TestBoardedMerchantTerminalsTakeASale(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(layoutApp, layoutKey, "")
	id := env.MustPost(tok, "/merchants", boardingBody("Counter Shop", "2"))["id"].(string)

	accounts := env.Do("GET", "/merchants/"+id+"/accounts", apitest.APIHeader(tok), "").JSON(t)
	types := map[any]bool{}
	for _, a := range accounts["accounts"].([]any) {
		types[a.(map[string]any)["type"]] = true
	}
	if !types["TRANSACTION_PROCESSING"] || !types["FUND_MANAGEMENT"] || accounts["total_record_count"] != 5.0 {
		t.Errorf("accounts: %v", accounts)
	}

	orders := env.MustAdmin("GET", "/_sandbox/orders", "")["orders"].([]any)
	var order map[string]any
	for _, o := range orders {
		if o.(map[string]any)["merchant_id"] == id {
			order = o.(map[string]any)
		}
	}
	if order == nil || order["status"] != "INITIATED" {
		t.Fatalf("the boarding's order: %v", orders)
	}
	env.mustDeliver(order["id"].(string))
	devices := env.mustDevices("order_id=" + order["id"].(string))
	if len(devices) != 2 {
		t.Fatalf("terminals: %v", devices)
	}
	sale := strings.Replace(apitest.MICBody("Sale", `{"transaction":{"baseAmount":"10.00"}}`), `{`, `{"merchant_id":"`+id+`",`, 1)
	r := env.Do("POST", "/devices", apitest.APIHeader(tok), sale)
	if d := r.JSON(t); r.Status != 200 || d["merchant_id"] != id || apitest.Dig(d, "response.data.host.referenceNumber") == nil {
		t.Fatalf("sale on the boarded merchant's terminal: %d %s", r.Status, r.Body)
	}
	trn := apitest.Dig(r.JSON(t), "response.data.host.referenceNumber").(string)
	txn := env.Do("GET", "/merchants/"+id+"/transactions/"+trn, apitest.APIHeader(tok), "").JSON(t)
	if txn["status"] != "CAPTURED" || txn["merchant_id"] != id || txn["amount"] != "1000" {
		t.Errorf("the sale: %v", txn)
	}
}

// TestDocumentAndAccountEditAreActions: a document upload and an account edit answer
// an action.id, and GET /actions finds each under the resource it changed.
func TestDocumentAndAccountEditAreActions(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(layoutApp, layoutKey, "")
	doc := env.Do("POST", "/merchants/"+sdkFundsMerchant+"/documents", apitest.APIHeader(tok),
		`{"function":"UNDERWRITING","b64_content":"VGVzdGluZw==","format":"PDF"}`).JSON(t)
	edit := env.Do("PATCH", "/merchants/"+sdkFundsMerchant+"/accounts/"+sdkFundsAccount, apitest.APIHeader(tok),
		`{"payer":{"payment_method":{"name":"James Mason"},"billing_address":{"line_1":"Address 1","postal_code":"30346","country":"US"}}}`).JSON(t)
	for _, tc := range []struct {
		answer                    map[string]any
		resourceID, typ, resource string
	}{
		{doc, doc["id"].(string), "DOCUMENT_UPLOAD", "DOCUMENTS"},
		{edit, sdkFundsAccount, "MERCHANT_EDIT", "ACCOUNTS"},
	} {
		acts, _ := env.actionsOf(tok, "?resource_id="+tc.resourceID)
		if len(acts) != 1 || acts[0]["id"] != apitest.Dig(tc.answer, "action.id") || acts[0]["type"] != tc.typ ||
			acts[0]["resource"] != tc.resource || acts[0]["merchant_name"] == "" {
			t.Errorf("%s: actions %v for answer %v", tc.typ, acts, tc.answer["action"])
		}
	}
}

// A partner charges for a merchant it acts for through the merchant's own
// transaction-processing account, found among its accounts by payment method (.NET
// GpApiCreditWithMerchantIdTest); another merchant's account is 40041, as GP
// answers an account the merchant does not hold.
func TestChargeThroughTheMerchantsOwnAccount(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(layoutApp, layoutKey, "")
	since := "&from_time_created=" + daysAgo(env, 3*365)
	merchants := env.mustGet(tok, "/merchants?order_by=TIME_CREATED&order=DESC&status=ACTIVE"+since)["merchants"].([]any)
	if len(merchants) == 0 || merchants[0].(map[string]any)["id"] != sdkFundsMerchant {
		t.Fatalf("the newest active merchant of the last three years: %v", merchants)
	}
	// .NET asks under the merchant's path (GpApiReportRequestBuilder FindAccountsPaged).
	accounts := env.mustGet(tok, "/merchants/"+sdkFundsMerchant+"/accounts?order_by=TIME_CREATED&order=DESC&status=ACTIVE"+since)["accounts"].([]any)
	var own string
	for _, a := range accounts {
		a := a.(map[string]any)
		if a["type"] == "TRANSACTION_PROCESSING" && slices.Contains(a["payment_methods"].([]any), any("CARD")) {
			own = a["id"].(string)
		} else if methods := a["payment_methods"].([]any); len(methods) != 0 {
			t.Errorf("a %s account takes %v", a["type"], methods)
		}
	}
	if own != "TRA_5096d6b88b0b49019c870392bd98ddac" {
		t.Fatalf("the merchant's card account: %q in %v", own, accounts)
	}
	sale := func(account string) apitest.Reply {
		return env.Do("POST", "/merchants/"+sdkFundsMerchant+"/transactions", apitest.APIHeader(tok),
			`{"account_id":"`+account+`","channel":"CNP","type":"SALE","amount":"780","currency":"USD","reference":"own-1",`+
				`"payment_method":{"entry_mode":"ECOM","card":{"number":"4263970000005262","expiry_month":"12","expiry_year":"30"}}}`)
	}
	got := sale(own).JSON(t)
	if got["status"] != "CAPTURED" || got["account_id"] != own || got["merchant_id"] != sdkFundsMerchant {
		t.Errorf("charged through the merchant's account: %v", got)
	}
	for _, account := range []string{
		"TRA_98f60f1a397c4dd7b7167bda61520292", // merchant MER_98f60f1a…'s
		"FMA_a78b841dfbd14803b3a31e4e0c514c72", // the merchant's own, but no card account
	} {
		want := apitest.Err(400, "INVALID_REQUEST_DATA", "40041", "Merchant configuration does not exist for the following combination: "+account+" , "+sdkFundsMerchant)
		if e := sale(account).GPError(t); e != want {
			t.Errorf("%s: %+v, want %+v", account, e, want)
		}
	}
	// An app that does not act for the merchant cannot charge through its account.
	partner := env.PartnerToken()
	r := env.Do("POST", "/merchants/"+sdkFundsMerchant+"/transactions", apitest.APIHeader(partner),
		`{"account_id":"`+own+`","channel":"CNP","type":"SALE","amount":"780","currency":"USD",`+
			`"payment_method":{"entry_mode":"ECOM","card":{"number":"4263970000005262","expiry_month":"12","expiry_year":"30"}}}`)
	if e := r.GPError(t); e.Detail != "40041" {
		t.Errorf("another app: %d %s", r.Status, r.Body)
	}
}

// daysAgo is the date days before the sandbox clock's today, as the SDKs' reporting
// windows are written: the fixtures' relative times count from that clock.
func daysAgo(env *sandboxEnv, days int) string {
	return env.Clock.Now().AddDate(0, 0, -days).Format(time.DateOnly)
}
