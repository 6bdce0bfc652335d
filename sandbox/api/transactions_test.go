package api_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

func field(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = o[p]
	}
	return v
}

func TestCreateTransactionOutcomes(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	cases := []struct {
		name, body                        string
		status, result, entry, resultCode string
		authcode                          bool
	}{
		{"swipe sale", apitest.SaleBody("1511", "AUTO", apitest.TrackCard()), "CAPTURED", "00", "SWIPE", "SUCCESS", true},
		{"swipe debit with PIN", apitest.SaleBody("1800", "AUTO", apitest.TrackCard(`"pin_block":"`+apitest.PINBlock+`"`)), "CAPTURED", "00", "SWIPE", "SUCCESS", true},
		{"chip sale", apitest.SaleBody("1000", "AUTO", apitest.TrackCard(`"tag":"`+apitest.EMVTag+`"`)), "CAPTURED", "00", "CHIP", "SUCCESS", true},
		{"chip with PIN block", apitest.SaleBody("1000", "AUTO", apitest.TrackCard(`"tag":"`+apitest.EMVTag+`","pin_block":"`+apitest.PINBlock+`"`)), "DECLINED", "55", "CHIP", "DECLINED", false},
		{"expired track", apitest.SaleBody("1000", "AUTO", `{"track":"`+apitest.ExpiredTrack+`","tag":"`+apitest.EMVTag+`","pin_block":"`+apitest.PINBlock+`"}`), "DECLINED", "54", "CHIP", "DECLINED", false},
		{"zero chip sale", apitest.SaleBody("000", "AUTO", apitest.TrackCard(`"tag":"`+apitest.EMVTag+`"`)), "DECLINED", "13", "CHIP", "DECLINED", false},
		{"manual", apitest.SaleBody("1511", "AUTO", apitest.ManualCard), "CAPTURED", "00", "MANUAL", "SUCCESS", true},
		{"manual mastercard", apitest.SaleBody("1511", "AUTO", `{"number":"5425230000004415","expiry_month":"12","expiry_year":"30"}`), "CAPTURED", "00", "MANUAL", "SUCCESS", true},
		{"authorization", apitest.SaleBody("2500", "LATER", apitest.ManualCard), "PREAUTHORIZED", "00", "MANUAL", "SUCCESS", true},
		{"manual amex", apitest.SaleBody("1511", "AUTO", `{"number":"374101000000608","expiry_month":"12","expiry_year":"30"}`), "CAPTURED", "00", "MANUAL", "SUCCESS", true},
		{"declined test card", apitest.SaleBody("1000", "AUTO", `{"number":"4000120000001154","expiry_month":"12","expiry_year":"30"}`), "DECLINED", "101", "MANUAL", "DECLINED", false},
		{"declined test card 102", apitest.SaleBody("1000", "AUTO", `{"number":"4000130000001724","expiry_month":"12","expiry_year":"30"}`), "DECLINED", "102", "MANUAL", "DECLINED", false},
		{"declined test card 103", apitest.SaleBody("1000", "AUTO", `{"number":"4000160000004147","expiry_month":"12","expiry_year":"30"}`), "DECLINED", "103", "MANUAL", "DECLINED", false},
		{"declined test card 111", apitest.SaleBody("1000", "AUTO", `{"number":"4242420000000091","expiry_month":"12","expiry_year":"30"}`), "DECLINED", "111", "MANUAL", "DECLINED", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := env.MustCharge(tok, tc.body)
			if got["status"] != tc.status || field(got, "payment_method", "result") != tc.result ||
				field(got, "payment_method", "entry_mode") != tc.entry || field(got, "action", "result_code") != tc.resultCode {
				t.Fatalf("got status %v result %v entry %v result_code %v; want %s %s %s %s: %v",
					got["status"], field(got, "payment_method", "result"), field(got, "payment_method", "entry_mode"),
					field(got, "action", "result_code"), tc.status, tc.result, tc.entry, tc.resultCode, got)
			}
			if authcode := field(got, "payment_method", "card", "authcode"); (authcode != "") != tc.authcode {
				t.Errorf("authcode %q, want present=%v", authcode, tc.authcode)
			}
			// A captured sale is batched; so is a declined one, whose batch's close then
			// fails (the SDKs' CloseBatch_WithCardNumberDetails_DeclinedTransaction).
			batch, _ := got["batch_id"].(string)
			if (tc.status == "CAPTURED" || tc.status == "DECLINED") != strings.HasPrefix(batch, "BAT_") {
				t.Errorf("status %s with batch_id %q", tc.status, batch)
			}
		})
	}
}

func TestCreateTransactionResource(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	got := env.MustCharge(tok, apitest.SaleBody("1511", "AUTO", apitest.TrackCard(`"tag":"`+apitest.EMVTag+`"`)))
	var keys []string
	raw := env.Do("GET", "/transactions/"+got["id"].(string), apitest.APIHeader(tok), "")
	if raw.Status != 200 {
		t.Fatalf("GET: %d %s", raw.Status, raw.Body)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw.Body)))
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	want := "id time_created type status channel capture_mode amount currency country merchant_id merchant_name account_id account_name reference batch_id payment_method action"
	if strings.Join(keys, " ") != want {
		t.Errorf("fields %v\nwant %s", keys, want)
	}
	checks := map[string]any{
		"channel": "CP", "capture_mode": "AUTO", "amount": "1511", "merchant_id": apitest.MerchantOne,
		"merchant_name": "Sandbox Merchant One", "account_id": "TRA_00000000000000000000000000000001",
		"account_name": "transaction_processing",
	}
	for k, v := range checks {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	card := field(got, "payment_method", "card").(map[string]any)
	if card["brand"] != "VISA" || card["masked_number_last4"] != "XXXXXXXXXXXX0016" || card["tag_response"] != "8A023030" {
		t.Errorf("card %v", card)
	}
	if strings.Contains(string(raw.Body), "4012002000060016") {
		t.Errorf("the card number is shown in clear: %s", raw.Body)
	}
	// A sale sent without a reference has none in its answer: no empty strings for
	// what a request left out.
	noRef := strings.Replace(apitest.SaleBody("1511", "AUTO", apitest.TrackCard()), `,"reference":"ref-1"`, "", 1)
	r := env.Do("POST", "/transactions", apitest.APIHeader(tok), noRef)
	if r.Status != 200 || strings.Contains(string(r.Body), `"reference"`) {
		t.Errorf("a sale without a reference: %d %s", r.Status, r.Body)
	}
}

// authorization_mode PARTIAL (every SDK's allowPartialAuth) is answered after
// capture_mode, as GP's create response has it, and shown by GET; a request without it
// has none, and neither has a refund of a partial-mode authorization.
func TestAuthorizationModeIsAnswered(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	partial := apitest.SaleBody("1202", "LATER", apitest.TrackCard(), `"authorization_mode":"PARTIAL"`)
	r := env.Do("POST", "/transactions", apitest.APIHeader(tok), partial)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"capture_mode":"LATER","authorization_mode":"PARTIAL","amount":"1202"`) {
		t.Fatalf("a PARTIAL authorization: %d %s", r.Status, r.Body)
	}
	id := r.JSON(t)["id"].(string)
	if got := env.Do("GET", "/transactions/"+id, apitest.APIHeader(tok), ""); !strings.Contains(string(got.Body), `"authorization_mode":"PARTIAL"`) {
		t.Errorf("GET of the PARTIAL authorization: %s", got.Body)
	}
	capture := env.Do("POST", "/transactions/"+id+"/capture", apitest.APIHeader(tok), `{"amount":"1202"}`)
	refund := env.Do("POST", "/transactions/"+id+"/refund", apitest.APIHeader(tok), `{"amount":"100"}`)
	if capture.Status != 200 || refund.Status != 200 || strings.Contains(string(refund.Body), "authorization_mode") {
		t.Errorf("capture %d, refund %d %s: want a refund without authorization_mode", capture.Status, refund.Status, refund.Body)
	}
	whole := env.Do("POST", "/transactions", apitest.APIHeader(tok), apitest.SaleBody("1202", "LATER", apitest.TrackCard()))
	if whole.Status != 200 || strings.Contains(string(whole.Body), "authorization_mode") {
		t.Errorf("an authorization without authorization_mode: %d %s", whole.Status, whole.Body)
	}
}

func TestCreateTransactionErrors(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	cases := []struct {
		name, body string
		want       apitest.GPError
	}{
		{"no currency", strings.Replace(apitest.SaleBody("100", "AUTO", apitest.ManualCard), `"currency":"USD",`, "", 1),
			apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields currency")},
		{"manual without expiry", apitest.SaleBody("100", "AUTO", `{"number":"4263970000005262"}`),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40007", "Request expects the following conditionally mandatory fields number,expiry_month,expiry_year.")},
		{"expired manual card", apitest.SaleBody("100", "AUTO", `{"number":"4263970000005262","expiry_month":"12","expiry_year":"20"}`),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40085", "Expiry date invalid")},
		{"expired card, the year in four digits", apitest.SaleBody("100", "AUTO", `{"number":"4263970000005262","expiry_month":"12","expiry_year":"2020"}`),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40085", "Expiry date invalid")},
		{"a year of three digits", apitest.SaleBody("100", "AUTO", `{"number":"4263970000005262","expiry_month":"12","expiry_year":"123"}`),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40085", "Expiry date invalid")},
		{"short cvv", apitest.SaleBody("100", "AUTO", `{"number":"4263970000005262","expiry_month":"12","expiry_year":"30","cvv":"12"}`),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40085", "Security Code/CVV2/CVC must be 3 digits")},
		{"chip refund with PIN", strings.Replace(apitest.SaleBody("100", "AUTO", apitest.TrackCard(`"tag":"`+apitest.EMVTag+`","pin_block":"`+apitest.PINBlock+`"`)), `"SALE"`, `"REFUND"`, 1),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40029", "34,Transaction rejected because the provided data was invalid. Online PINBlock Authentication not supported on offline transaction.")},
		{"processing error card", apitest.SaleBody("100", "AUTO", `{"number":"4009830000001985","expiry_month":"12","expiry_year":"30"}`),
			apitest.Err(502, "SYSTEM_ERROR_DOWNSTREAM", "50013", "200,eCom error—Developers are notified")},
		{"unknown account", apitest.SaleBody("100", "AUTO", apitest.ManualCard, `"account_id":"TRA_ffffffffffffffffffffffffffffffff"`),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40041", "Merchant configuration does not exist for the following combination: TRA_ffffffffffffffffffffffffffffffff , "+apitest.MerchantOne)},
		{"bad track", apitest.SaleBody("100", "AUTO", `{"track":"not a track"}`),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "payment_method.card.track contains unexpected data")},
		{"bad channel", strings.Replace(apitest.SaleBody("100", "AUTO", apitest.ManualCard), `"CP"`, `"XX"`, 1),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "channel contains unexpected data")},
		// A country has an ISO 3166 code's shape (A128): "us" would open a batch apart from "US"'s.
		{"country in lower case", strings.Replace(apitest.SaleBody("100", "AUTO", apitest.ManualCard), `"country":"US"`, `"country":"us"`, 1),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "country contains unexpected data")},
		{"country of digits", strings.Replace(apitest.SaleBody("100", "AUTO", apitest.ManualCard), `"country":"US"`, `"country":"12"`, 1),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "country contains unexpected data")},
		{"unknown field", apitest.SaleBody("100", "AUTO", apitest.ManualCard, `"tip":"1"`),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: tip")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := env.Do("POST", "/transactions", apitest.APIHeader(tok), tc.body)
			if got := r.GPError(t); got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// A fixture's order block is answered as the service document writes it, on the
// transaction and on its adjustment: its members in order, an empty one left out.
func TestFixtureOrderBlockIsAnswered(t *testing.T) {
	env := mustSandbox(t)
	env.MustReseed(func(f *sandbox.Fixtures) {
		for i := range f.Transactions {
			if f.Transactions[i].ID == apitest.CapturedOne {
				f.Transactions[i].Order = &sandbox.OrderAmounts{
					Taxes: []sandbox.Tax{{Type: "STATE", Amount: "80"}, {Type: "CITY", Amount: "5"}}, ShippingAmount: "500",
				}
			}
		}
	})
	tok := env.PartnerToken()
	const want = `{"taxes":[{"type":"STATE","amount":"80"},{"type":"CITY","amount":"5"}],"shipping_amount":"500"}`
	for _, r := range []apitest.Reply{
		env.Do("GET", "/transactions/"+apitest.CapturedOne, apitest.APIHeader(tok), ""),
		env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"100"}`),
	} {
		var answer struct{ Order json.RawMessage }
		if err := json.Unmarshal(r.Body, &answer); err != nil || r.Status != 200 || string(answer.Order) != want {
			t.Errorf("order block: %d %s", r.Status, r.Body)
		}
	}
}

func TestGetTransactionOfAnotherMerchant(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	r := env.Do("GET", "/transactions/"+apitest.OtherMerchant, apitest.APIHeader(tok), "")
	want := apitest.Err(404, "RESOURCE_NOT_FOUND", "40118", "Transactions "+apitest.OtherMerchant+" not found at this /ucp/transactions/"+apitest.OtherMerchant)
	if got := r.GPError(t); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	sale := env.MustCharge(tok, apitest.SaleBody("100", "AUTO", apitest.ManualCard))
	r = env.Do("GET", "/merchants/"+apitest.MerchantTwo+"/transactions/"+sale["id"].(string), apitest.APIHeader(tok), "")
	if r.Status != 404 {
		t.Errorf("partner path of another merchant: %d %s", r.Status, r.Body)
	}
}

func TestCardPresentPermissions(t *testing.T) {
	env := mustSandbox(t)
	denied := apitest.Err(403, "ACTION_NOT_AUTHORIZED", "40212", "Permission not enabled to execute action")
	partner := env.PartnerToken()
	sale := env.MustCharge(partner, apitest.SaleBody("100", "AUTO", apitest.ManualCard))["id"].(string)
	restricted := env.MustToken(apitest.RestrictedApp, apitest.RestrictedKey, "")
	captureOnly := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, `"permissions":["TRN_POST_Capture"]`)
	cases := []struct {
		name, tok, method, path, body string
		want                          int
	}{
		{"live configuration forbids sales", restricted, "POST", "/transactions", apitest.SaleBody("100", "AUTO", apitest.ManualCard), 403},
		{"live configuration allows reads", restricted, "GET", "/transactions/" + apitest.CapturedOne, "", 200},
		{"token without TRN_POST_Authorize", captureOnly, "POST", "/transactions", apitest.SaleBody("100", "AUTO", apitest.ManualCard), 403},
		{"token without TRN_GET_Single", captureOnly, "GET", "/transactions/" + sale, "", 403},
		{"verification without TRN_POST_Authorize", captureOnly, "POST", "/verifications", apitest.SaleBody("100", "AUTO", apitest.ManualCard), 403},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := env.Do(tc.method, tc.path, apitest.APIHeader(tc.tok), tc.body)
			if tc.want == 200 {
				if r.Status != 200 {
					t.Fatalf("%d %s", r.Status, r.Body)
				}
				return
			}
			if got := r.GPError(t); got != denied {
				t.Errorf("got %+v, want %+v", got, denied)
			}
		})
	}
}

func TestVerification(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	body := func(card string) string {
		return `{"account_name":"transaction_processing","channel":"CP","currency":"USD","country":"US","reference":"v-1",` +
			`"payment_method":{"entry_mode":"MANUAL","card":` + card + `}}`
	}
	for card, want := range map[string]string{
		apitest.ManualCard: "VERIFIED",
		`{"number":"30450000000985","expiry_month":"12","expiry_year":"30","cvv":"123"}`: "NOT_VERIFIED",
	} {
		r := env.Do("POST", "/verifications", apitest.APIHeader(tok), body(card))
		got := r.JSON(t)
		if r.Status != 200 || got["status"] != want || field(got, "action", "result_code") != map[string]string{"VERIFIED": "SUCCESS", "NOT_VERIFIED": "NOT_VERIFIED"}[want] {
			t.Errorf("%s: %d %s", card, r.Status, r.Body)
		}
		if got["batch_id"] != "" {
			t.Errorf("a verification joined batch %v", got["batch_id"])
		}
	}
}

func TestListTransactions(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	var ids []string
	for i, amount := range []string{"100", "200", "300"} {
		env.Clock.Set(apitest.StartTime.Add(time.Duration(i) * time.Minute))
		ids = append(ids, env.MustCharge(tok, apitest.SaleBody(amount, "AUTO", apitest.ManualCard))["id"].(string))
	}
	auth := env.MustCharge(tok, apitest.SaleBody("400", "LATER", apitest.TrackCard()))["id"].(string)
	list := func(query string) map[string]any {
		t.Helper()
		r := env.Do("GET", "/transactions"+query, apitest.APIHeader(tok), "")
		if r.Status != 200 {
			t.Fatalf("GET /transactions%s: %d %s", query, r.Status, r.Body)
		}
		return r.JSON(t)
	}
	idsOf := func(m map[string]any) []string {
		var out []string
		for _, v := range m["transactions"].([]any) {
			out = append(out, v.(map[string]any)["id"].(string))
		}
		return out
	}
	got := list("?channel=CP&status=CAPTURED&order_by=TIME_CREATED&order=ASC&page=1&page_size=2")
	if fmt.Sprint(idsOf(got)) != fmt.Sprint(ids[:2]) || got["total_record_count"] != float64(3) {
		t.Errorf("first page %v of %v, want %v of 3", idsOf(got), got["total_record_count"], ids[:2])
	}
	if got := list("?channel=CP&status=CAPTURED&order=ASC&page=2&page_size=2"); fmt.Sprint(idsOf(got)) != fmt.Sprint(ids[2:]) {
		t.Errorf("second page %v, want %v", idsOf(got), ids[2:])
	}
	if got := idsOf(list("?status=PREAUTHORIZED&number_last4=0016&brand=VISA")); fmt.Sprint(got) != fmt.Sprint([]string{auth}) {
		t.Errorf("filtered %v, want the authorization", got)
	}
	if got := idsOf(list("?amount=200")); fmt.Sprint(got) != fmt.Sprint(ids[1:2]) {
		t.Errorf("amount filter %v", got)
	}
	if got := idsOf(list("?to_time_created=2021-03-08")); len(got) != 0 { // the oldest fixture is of 2021-03-09
		t.Errorf("nothing was made by 2021-03-08: %v", got)
	}
	if got := list("?from_time_created=2021-03-22&to_time_created=2021-03-22"); got["total_record_count"] != float64(4) {
		t.Errorf("made on 2021-03-22: %v, want the 4 sales of the test", idsOf(got))
	}
	card := field(list("?id="+ids[0]), "transactions")
	if c := field(card.([]any)[0].(map[string]any), "payment_method", "card", "masked_number_first6last4"); c != "426397XXXXXX5262" {
		t.Errorf("masked number %v", c)
	}
	// Another merchant's transactions are not listed.
	for _, id := range idsOf(list("?page_size=1000")) {
		if id == apitest.OtherMerchant {
			t.Errorf("another merchant's transaction is listed")
		}
	}
	for _, q := range []string{"page_size=0", "page=x", "order=UP", "from_time_created=22-03-2021", "channel=XX",
		"status=captured", "entry_mode=TAP", "currency=usd", "country=us", "amount=10.00"} {
		r := env.Do("GET", "/transactions?"+q, apitest.APIHeader(tok), "")
		name, _, _ := strings.Cut(q, "=")
		if got := r.GPError(t); got != (apitest.Err(400, "INVALID_REQUEST_DATA", "40213", name+" contains unexpected data")) {
			t.Errorf("%s: %+v", q, got)
		}
	}
}

// A request refused at authentication is refused before anything about the operation
// is checked: a bad body or an unknown batch id still answers 40001.
func TestCardPresentAuthenticationFirst(t *testing.T) {
	env := mustSandbox(t)
	want := apitest.Err(401, "NOT_AUTHENTICATED", "40001", "Invalid access token")
	for _, req := range []struct{ method, path, body string }{
		{"POST", "/verifications", `{"nonsense":true}`},
		{"POST", "/transactions", `[1]`},
		{"POST", "/transactions/TRN_unknown/capture", `{"amount":"x"}`},
		{"POST", "/batches/not-a-batch", ""},
		{"GET", "/transactions?page_size=0", ""},
	} {
		if got := env.Do(req.method, req.path, apitest.APIHeader("badtoken"), req.body).GPError(t); got != want {
			t.Errorf("%s %s: %+v", req.method, req.path, got)
		}
	}
}

func TestCreateTransactionPartnerPath(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	r := env.Do("POST", "/merchants/"+apitest.MerchantTwo+"/transactions", apitest.APIHeader(tok), apitest.SaleBody("100", "AUTO", apitest.ManualCard))
	got := r.JSON(t)
	if r.Status != 200 || got["merchant_id"] != apitest.MerchantTwo || got["merchant_name"] != "Sandbox Merchant Two" {
		t.Errorf("partner path: %d %s", r.Status, r.Body)
	}
	r = env.Do("POST", "/merchants/"+apitest.MerchantThree+"/transactions", apitest.APIHeader(tok), apitest.SaleBody("100", "AUTO", apitest.ManualCard))
	want := apitest.Err(400, "INVALID_REQUEST_DATA", "40041", "Merchant configuration does not exist for the following combination: transaction_processing , "+apitest.MerchantThree)
	if got := r.GPError(t); got != want {
		t.Errorf("a merchant the app may not act for: %+v", got)
	}
}
