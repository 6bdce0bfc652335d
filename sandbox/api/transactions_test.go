package api_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// GP's card-present test values.
const (
	visaTrack    = "%B4012002000060016^VI TEST CREDIT^251210118039000000000396?;4012002000060016=25121011803939600000?"
	expiredTrack = ";4024720012345671=18125025432198712345?"
	pinBlock     = "32539F50C245A6A93D123412324000AA"
	emvTag       = "9F4005F000F0A0019F02060000000025009F2701809F0D05F040008800"
)

// swipe, chip, manual and so on build POST /transactions bodies as the Node SDK
// sends them.
func saleBody(amount, captureMode, card string, extra ...string) string {
	entry := "SWIPE"
	switch {
	case strings.Contains(card, `"tag"`):
		entry = "CHIP"
	case strings.Contains(card, `"number"`):
		entry = "MANUAL"
	}
	more := ""
	for _, e := range extra {
		more += "," + e
	}
	return fmt.Sprintf(`{"account_name":"transaction_processing","channel":"CP","country":"US","type":"SALE",`+
		`"capture_mode":%q,"amount":%q,"currency":"USD","reference":"ref-1"%s,`+
		`"payment_method":{"entry_mode":%q,"card":%s}}`, captureMode, amount, more, entry, card)
}

func trackCard(extra ...string) string {
	s := `{"track":"` + visaTrack + `"`
	for _, e := range extra {
		s += "," + e
	}
	return s + `,"funding":"CREDIT"}`
}

const manualCard = `{"number":"4263970000005262","expiry_month":"12","expiry_year":"30","cvv":"123"}`

// mustCharge takes a payment through POST /transactions and returns the response.
func (env *sandboxEnv) mustCharge(tok, body string) map[string]any {
	env.t.Helper()
	r := env.do("POST", "/transactions", apiHeader(tok), body)
	if r.status != 200 {
		env.t.Fatalf("POST /transactions: %d %s", r.status, r.body)
	}
	return r.json(env.t)
}

func (env *sandboxEnv) partnerToken() string {
	env.t.Helper()
	return env.mustToken(partnerApp, partnerKey, "")
}

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
	tok := env.partnerToken()
	cases := []struct {
		name, body                        string
		status, result, entry, resultCode string
		authcode                          bool
	}{
		{"swipe sale", saleBody("1511", "AUTO", trackCard()), "CAPTURED", "00", "SWIPE", "SUCCESS", true},
		{"swipe debit with PIN", saleBody("1800", "AUTO", trackCard(`"pin_block":"`+pinBlock+`"`)), "CAPTURED", "00", "SWIPE", "SUCCESS", true},
		{"chip sale", saleBody("1000", "AUTO", trackCard(`"tag":"`+emvTag+`"`)), "CAPTURED", "00", "CHIP", "SUCCESS", true},
		{"chip with PIN block", saleBody("1000", "AUTO", trackCard(`"tag":"`+emvTag+`","pin_block":"`+pinBlock+`"`)), "DECLINED", "55", "CHIP", "DECLINED", false},
		{"expired track", saleBody("1000", "AUTO", `{"track":"`+expiredTrack+`","tag":"`+emvTag+`","pin_block":"`+pinBlock+`"}`), "DECLINED", "54", "CHIP", "DECLINED", false},
		{"zero chip sale", saleBody("000", "AUTO", trackCard(`"tag":"`+emvTag+`"`)), "DECLINED", "13", "CHIP", "DECLINED", false},
		{"manual", saleBody("1511", "AUTO", manualCard), "CAPTURED", "00", "MANUAL", "SUCCESS", true},
		{"manual mastercard", saleBody("1511", "AUTO", `{"number":"5425230000004415","expiry_month":"12","expiry_year":"30"}`), "CAPTURED", "00", "MANUAL", "SUCCESS", true},
		{"authorization", saleBody("2500", "LATER", manualCard), "PREAUTHORIZED", "00", "MANUAL", "SUCCESS", true},
		{"manual amex", saleBody("1511", "AUTO", `{"number":"374101000000608","expiry_month":"12","expiry_year":"30"}`), "CAPTURED", "00", "MANUAL", "SUCCESS", true},
		{"declined test card", saleBody("1000", "AUTO", `{"number":"4000120000001154","expiry_month":"12","expiry_year":"30"}`), "DECLINED", "101", "MANUAL", "DECLINED", false},
		{"declined test card 102", saleBody("1000", "AUTO", `{"number":"4000130000001724","expiry_month":"12","expiry_year":"30"}`), "DECLINED", "102", "MANUAL", "DECLINED", false},
		{"declined test card 103", saleBody("1000", "AUTO", `{"number":"4000160000004147","expiry_month":"12","expiry_year":"30"}`), "DECLINED", "103", "MANUAL", "DECLINED", false},
		{"declined test card 111", saleBody("1000", "AUTO", `{"number":"4242420000000091","expiry_month":"12","expiry_year":"30"}`), "DECLINED", "111", "MANUAL", "DECLINED", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := env.mustCharge(tok, tc.body)
			if got["status"] != tc.status || field(got, "payment_method", "result") != tc.result ||
				field(got, "payment_method", "entry_mode") != tc.entry || field(got, "action", "result_code") != tc.resultCode {
				t.Fatalf("got status %v result %v entry %v result_code %v; want %s %s %s %s: %v",
					got["status"], field(got, "payment_method", "result"), field(got, "payment_method", "entry_mode"),
					field(got, "action", "result_code"), tc.status, tc.result, tc.entry, tc.resultCode, got)
			}
			if authcode := field(got, "payment_method", "card", "authcode"); (authcode != "") != tc.authcode {
				t.Errorf("authcode %q, want present=%v", authcode, tc.authcode)
			}
			batch, _ := got["batch_id"].(string)
			if (tc.status == "CAPTURED") != strings.HasPrefix(batch, "BAT_") {
				t.Errorf("status %s with batch_id %q", tc.status, batch)
			}
		})
	}
}

func TestCreateTransactionResource(t *testing.T) {
	env := mustSandbox(t)
	tok := env.partnerToken()
	got := env.mustCharge(tok, saleBody("1511", "AUTO", trackCard(`"tag":"`+emvTag+`"`)))
	var keys []string
	raw := env.do("GET", "/transactions/"+got["id"].(string), apiHeader(tok), "")
	if raw.status != 200 {
		t.Fatalf("GET: %d %s", raw.status, raw.body)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw.body)))
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
		"channel": "CP", "capture_mode": "AUTO", "amount": "1511", "merchant_id": merchantOne,
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
	if strings.Contains(string(raw.body), "4012002000060016") {
		t.Errorf("the card number is shown in clear: %s", raw.body)
	}
	// A sale sent without a reference has none in its answer: no empty strings for
	// what a request left out.
	noRef := strings.Replace(saleBody("1511", "AUTO", trackCard()), `,"reference":"ref-1"`, "", 1)
	r := env.do("POST", "/transactions", apiHeader(tok), noRef)
	if r.status != 200 || strings.Contains(string(r.body), `"reference"`) {
		t.Errorf("a sale without a reference: %d %s", r.status, r.body)
	}
}

func TestCreateTransactionErrors(t *testing.T) {
	env := mustSandbox(t)
	tok := env.partnerToken()
	cases := []struct {
		name, body string
		want       gpError
	}{
		{"no currency", strings.Replace(saleBody("100", "AUTO", manualCard), `"currency":"USD",`, "", 1),
			gpError{400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields currency"}},
		{"manual without expiry", saleBody("100", "AUTO", `{"number":"4263970000005262"}`),
			gpError{400, "INVALID_REQUEST_DATA", "40007", "Request expects the following conditionally mandatory fields number,expiry_month,expiry_year."}},
		{"expired manual card", saleBody("100", "AUTO", `{"number":"4263970000005262","expiry_month":"12","expiry_year":"20"}`),
			gpError{400, "INVALID_REQUEST_DATA", "40085", "Expiry date invalid"}},
		{"short cvv", saleBody("100", "AUTO", `{"number":"4263970000005262","expiry_month":"12","expiry_year":"30","cvv":"12"}`),
			gpError{400, "INVALID_REQUEST_DATA", "40085", "Security Code/CVV2/CVC must be 3 digits"}},
		{"chip refund with PIN", strings.Replace(saleBody("100", "AUTO", trackCard(`"tag":"`+emvTag+`","pin_block":"`+pinBlock+`"`)), `"SALE"`, `"REFUND"`, 1),
			gpError{400, "INVALID_REQUEST_DATA", "40029", "34,Transaction rejected because the provided data was invalid. Online PINBlock Authentication not supported on offline transaction."}},
		{"processing error card", saleBody("100", "AUTO", `{"number":"4009830000001985","expiry_month":"12","expiry_year":"30"}`),
			gpError{502, "SYSTEM_ERROR_DOWNSTREAM", "50013", "200,eCom error—Developers are notified"}},
		{"unknown account", saleBody("100", "AUTO", manualCard, `"account_id":"TRA_ffffffffffffffffffffffffffffffff"`),
			gpError{400, "INVALID_REQUEST_DATA", "40041", "Merchant configuration does not exist for the following combination: TRA_ffffffffffffffffffffffffffffffff , " + merchantOne}},
		{"bad track", saleBody("100", "AUTO", `{"track":"not a track"}`),
			gpError{400, "INVALID_REQUEST_DATA", "40213", "payment_method.card.track contains unexpected data"}},
		{"bad channel", strings.Replace(saleBody("100", "AUTO", manualCard), `"CP"`, `"XX"`, 1),
			gpError{400, "INVALID_REQUEST_DATA", "40213", "channel contains unexpected data"}},
		{"unknown field", saleBody("100", "AUTO", manualCard, `"tip":"1"`),
			gpError{400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: tip"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := env.do("POST", "/transactions", apiHeader(tok), tc.body)
			if got := r.gpError(t); got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestGetTransactionOfAnotherMerchant(t *testing.T) {
	env := mustSandbox(t)
	tok := env.partnerToken()
	r := env.do("GET", "/transactions/"+otherMerchant, apiHeader(tok), "")
	want := gpError{404, "RESOURCE_NOT_FOUND", "40118", "Transactions " + otherMerchant + " not found at this /ucp/transactions/" + otherMerchant}
	if got := r.gpError(t); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	sale := env.mustCharge(tok, saleBody("100", "AUTO", manualCard))
	r = env.do("GET", "/merchants/"+merchantTwo+"/transactions/"+sale["id"].(string), apiHeader(tok), "")
	if r.status != 404 {
		t.Errorf("partner path of another merchant: %d %s", r.status, r.body)
	}
}

func TestCardPresentPermissions(t *testing.T) {
	env := mustSandbox(t)
	denied := gpError{403, "ACTION_NOT_AUTHORIZED", "40212", "Permission not enabled to execute action"}
	partner := env.partnerToken()
	sale := env.mustCharge(partner, saleBody("100", "AUTO", manualCard))["id"].(string)
	restricted := env.mustToken(restrictedApp, restrictedKey, "")
	captureOnly := env.mustToken(partnerApp, partnerKey, `"permissions":["TRN_POST_Capture"]`)
	cases := []struct {
		name, tok, method, path, body string
		want                          int
	}{
		{"live configuration forbids sales", restricted, "POST", "/transactions", saleBody("100", "AUTO", manualCard), 403},
		{"live configuration allows reads", restricted, "GET", "/transactions/" + capturedOne, "", 200},
		{"token without TRN_POST_Authorize", captureOnly, "POST", "/transactions", saleBody("100", "AUTO", manualCard), 403},
		{"token without TRN_GET_Single", captureOnly, "GET", "/transactions/" + sale, "", 403},
		{"verification without TRN_POST_Authorize", captureOnly, "POST", "/verifications", saleBody("100", "AUTO", manualCard), 403},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := env.do(tc.method, tc.path, apiHeader(tc.tok), tc.body)
			if tc.want == 200 {
				if r.status != 200 {
					t.Fatalf("%d %s", r.status, r.body)
				}
				return
			}
			if got := r.gpError(t); got != denied {
				t.Errorf("got %+v, want %+v", got, denied)
			}
		})
	}
}

func TestVerification(t *testing.T) {
	env := mustSandbox(t)
	tok := env.partnerToken()
	body := func(card string) string {
		return `{"account_name":"transaction_processing","channel":"CP","currency":"USD","country":"US","reference":"v-1",` +
			`"payment_method":{"entry_mode":"MANUAL","card":` + card + `}}`
	}
	for card, want := range map[string]string{
		manualCard: "VERIFIED",
		`{"number":"30450000000985","expiry_month":"12","expiry_year":"30","cvv":"123"}`: "NOT_VERIFIED",
	} {
		r := env.do("POST", "/verifications", apiHeader(tok), body(card))
		got := r.json(t)
		if r.status != 200 || got["status"] != want || field(got, "action", "result_code") != map[string]string{"VERIFIED": "SUCCESS", "NOT_VERIFIED": "NOT_VERIFIED"}[want] {
			t.Errorf("%s: %d %s", card, r.status, r.body)
		}
		if got["batch_id"] != "" {
			t.Errorf("a verification joined batch %v", got["batch_id"])
		}
	}
}

func TestListTransactions(t *testing.T) {
	env := mustSandbox(t)
	tok := env.partnerToken()
	var ids []string
	for i, amount := range []string{"100", "200", "300"} {
		env.clock.Set(startTime.Add(time.Duration(i) * time.Minute))
		ids = append(ids, env.mustCharge(tok, saleBody(amount, "AUTO", manualCard))["id"].(string))
	}
	auth := env.mustCharge(tok, saleBody("400", "LATER", trackCard()))["id"].(string)
	list := func(query string) map[string]any {
		t.Helper()
		r := env.do("GET", "/transactions"+query, apiHeader(tok), "")
		if r.status != 200 {
			t.Fatalf("GET /transactions%s: %d %s", query, r.status, r.body)
		}
		return r.json(t)
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
	if got := idsOf(list("?to_time_created=2021-03-21")); len(got) != 0 {
		t.Errorf("nothing was made by 2021-03-21: %v", got)
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
		if id == otherMerchant {
			t.Errorf("another merchant's transaction is listed")
		}
	}
	for _, q := range []string{"page_size=0", "page=x", "order=UP", "from_time_created=22-03-2021", "channel=XX"} {
		r := env.do("GET", "/transactions?"+q, apiHeader(tok), "")
		name, _, _ := strings.Cut(q, "=")
		if got := r.gpError(t); got != (gpError{400, "INVALID_REQUEST_DATA", "40213", name + " contains unexpected data"}) {
			t.Errorf("%s: %+v", q, got)
		}
	}
}

// A request refused at authentication is refused before anything about the operation
// is checked: a bad body or an unknown batch id still answers 40001.
func TestCardPresentAuthenticationFirst(t *testing.T) {
	env := mustSandbox(t)
	want := gpError{401, "NOT_AUTHENTICATED", "40001", "Invalid access token"}
	for _, req := range []struct{ method, path, body string }{
		{"POST", "/verifications", `{"nonsense":true}`},
		{"POST", "/transactions", `[1]`},
		{"POST", "/transactions/TRN_unknown/capture", `{"amount":"x"}`},
		{"POST", "/batches/not-a-batch", ""},
		{"GET", "/transactions?page_size=0", ""},
	} {
		if got := env.do(req.method, req.path, apiHeader("badtoken"), req.body).gpError(t); got != want {
			t.Errorf("%s %s: %+v", req.method, req.path, got)
		}
	}
}

func TestCreateTransactionPartnerPath(t *testing.T) {
	env := mustSandbox(t)
	tok := env.partnerToken()
	r := env.do("POST", "/merchants/"+merchantTwo+"/transactions", apiHeader(tok), saleBody("100", "AUTO", manualCard))
	got := r.json(t)
	if r.status != 200 || got["merchant_id"] != merchantTwo || got["merchant_name"] != "Sandbox Merchant Two" {
		t.Errorf("partner path: %d %s", r.status, r.body)
	}
	r = env.do("POST", "/merchants/"+merchantThree+"/transactions", apiHeader(tok), saleBody("100", "AUTO", manualCard))
	want := gpError{400, "INVALID_REQUEST_DATA", "40041", "Merchant configuration does not exist for the following combination: transaction_processing , " + merchantThree}
	if got := r.gpError(t); got != want {
		t.Errorf("a merchant the app may not act for: %+v", got)
	}
}
