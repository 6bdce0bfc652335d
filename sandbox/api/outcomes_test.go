package api_test

import (
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// GP's other card-present test values, as its SDK tests send them.
const (
	// e3Track is GP's E3 encrypted test swipe with its encrypted parts shortened to fit
	// the track's length limit; the envelope and the tracks in clear are GP's.
	e3Track = "&lt;E1050711%B4012001000000016^VI TEST CREDIT^251200000000000000000000?|LO04K0WFOmdkDz0um|+++++++Dbbn04ekG|11;4012001000000016=25120000000000000000?|1u2F/aEhbdoPixyAPGyIDv3gBfF|+++++++Dbbn04ekG|00|||/wECAQECAoFGAgEH2wYc|&gt;"
)

// The same track, PIN block and EMV data decline as credit and are approved as debit:
// GP's debit tests send its credit tests' cards (Java GpApiDebitTest,
// GpApiCreditCardPresentTest).
func TestFundingDecidesTestTrackOutcomes(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	chipPIN := []string{apitest.Quoted("track", apitest.VisaTrack), apitest.Quoted("tag", apitest.EMVTag), apitest.Quoted("pin_block", apitest.PINBlock)}
	expired := []string{apitest.Quoted("track", apitest.ExpiredTrack), apitest.Quoted("tag", apitest.InteracTag), apitest.Quoted("pin_block", apitest.ExpiredPINBlock)}
	encrypted := []string{apitest.Quoted("track", e3Track)}
	encryptedPIN := []string{apitest.Quoted("track", e3Track), apitest.Quoted("pin_block", apitest.PINBlock)}
	cases := []struct {
		name, card, status, result string
	}{
		{"chip with PIN, credit", apitest.CardOf("CREDIT", chipPIN...), "DECLINED", "55"},
		{"chip with PIN, no funding", apitest.CardOf("", chipPIN...), "DECLINED", "55"},
		{"chip with PIN, debit", apitest.CardOf("DEBIT", chipPIN...), "CAPTURED", "00"},
		{"expired track, credit", apitest.CardOf("CREDIT", expired...), "DECLINED", "54"},
		// Expired, declined whatever the chip names: the .NET SDK's
		// CreditTrackData_SaleSwipeChip_ExpiredCreditTrackDataDetails sends no funding and
		// expects 54 (its DebitSaleSwipe_NewDebitTrackDataDetails sends the same bytes and
		// expects CAPTURED: one answer can hold, and the card has expired).
		{"expired track, no funding", apitest.CardOf("", expired...), "DECLINED", "54"},
		{"expired track without chip data, no funding", apitest.CardOf("", apitest.Quoted("track", apitest.ExpiredTrack), apitest.Quoted("pin_block", apitest.ExpiredPINBlock)), "DECLINED", "54"},
		// The PHP SDK's DebitCardTest::testDebitSaleSwipeChip, its card unexpired.
		{"Interac chip with PIN, no funding", apitest.CardOf("", apitest.Quoted("track", ";4024720012345671=30125025432198712345?"), apitest.Quoted("tag", apitest.InteracTag), apitest.Quoted("pin_block", apitest.ExpiredPINBlock)), "CAPTURED", "00"},
		// PHP testBatchClose_ContactlessTransaction: the same unexpired card with a Visa
		// application is approved without funding, and is a credit card's wrong PIN with it.
		{"debit test card, Visa chip with PIN, no funding", apitest.CardOf("", apitest.Quoted("track", ";4024720012345671=30125025432198712345?"), apitest.Quoted("tag", apitest.EMVTag), apitest.Quoted("pin_block", apitest.ExpiredPINBlock)), "CAPTURED", "00"},
		{"debit test card, Visa chip with PIN, credit", apitest.CardOf("CREDIT", apitest.Quoted("track", ";4024720012345671=30125025432198712345?"), apitest.Quoted("tag", apitest.EMVTag), apitest.Quoted("pin_block", apitest.ExpiredPINBlock)), "DECLINED", "55"},
		{"expired track, debit", apitest.CardOf("DEBIT", expired...), "CAPTURED", "00"},
		{"encrypted swipe, credit", apitest.CardOf("CREDIT", encrypted...), "DECLINED", "14"},
		{"encrypted swipe, no funding", apitest.CardOf("", encrypted...), "DECLINED", "14"},
		{"encrypted swipe with PIN, debit", apitest.CardOf("DEBIT", encryptedPIN...), "CAPTURED", "00"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := env.MustCharge(tok, apitest.SaleBody("1202", "AUTO", tc.card))
			authcode := field(got, "payment_method", "card", "authcode")
			if got["status"] != tc.status || field(got, "payment_method", "result") != tc.result || (authcode == "") != (tc.status == "DECLINED") {
				t.Errorf("status %v result %v authcode %q; want %s %s", got["status"], field(got, "payment_method", "result"), authcode, tc.status, tc.result)
			}
			if strings.Contains(string(env.Do("GET", "/transactions/"+got["id"].(string), apitest.APIHeader(tok), "").Body), "4012001000000016") {
				t.Errorf("the encrypted track's card number is shown in clear")
			}
		})
	}
}

// GP's sandbox gives fixed authcodes where its tests assert them: 123456 for every
// card-not-present approval (Java GpApiCreditCardNotPresentTest::CreditAuthorization,
// CreditSaleWithSurcharge, CreditSaleWithIsSuccess) and VI1202 for a reauthorization
// (Java GpApiCreditCardPresentTest::CreditCardReauthorizeTransaction).
func TestFixedAuthcodes(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	cnp := strings.Replace(strings.Replace(apitest.SaleBody("1202", "LATER", apitest.ManualCard), `"CP"`, `"CNP"`, 1), `"MANUAL"`, `"ECOM"`, 1)
	if got := env.MustCharge(tok, cnp); field(got, "payment_method", "card", "authcode") != "123456" {
		t.Errorf("card-not-present authorization: authcode %v, want 123456", field(got, "payment_method", "card", "authcode"))
	}
	if got := env.MustCharge(tok, apitest.SaleBody("1202", "AUTO", apitest.ManualCard)); field(got, "payment_method", "card", "authcode") == "123456" {
		t.Errorf("a card-present sale got the card-not-present authcode")
	}
	sale := env.MustTransactionIn(tok, "REVERSED")
	got := env.MustPost(tok, "/transactions/"+sale+"/reauthorization", `{}`)
	if got["status"] != "CAPTURED" || field(got, "payment_method", "result") != "00" || field(got, "payment_method", "card", "authcode") != "VI1202" {
		t.Errorf("reauthorization: %v", got)
	}
}

// Verifying GP's expired test card answers 200 NOT_VERIFIED, not the sale's 400 40085
// (Java and .NET GpApiCreditCardPresentTest::CreditVerify_CardNumber_ExpiredCard;
// Java GpApiCreditCardNotPresentTest::CreditSale_ExpiryCard for the sale).
func TestVerifyExpiredCard(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	card := `{"number":"4000120000001154","expiry_month":"12","expiry_year":"20","cvv":"123"}` // expired by the test clock
	body := `{"account_name":"transaction_processing","channel":"CP","currency":"USD","country":"US",` +
		`"payment_method":{"entry_mode":"MANUAL","card":` + card + `}}`
	r := env.Do("POST", "/verifications", apitest.APIHeader(tok), body)
	got := r.JSON(t)
	if r.Status != 200 || got["status"] != "NOT_VERIFIED" || field(got, "action", "result_code") != "NOT_VERIFIED" {
		t.Errorf("verification of an expired card: %d %s", r.Status, r.Body)
	}
	r = env.Do("POST", "/transactions", apitest.APIHeader(tok), apitest.SaleBody("100", "AUTO", card))
	if got := r.GPError(t); got != (apitest.Err(400, "INVALID_REQUEST_DATA", "40085", "Expiry date invalid")) {
		t.Errorf("sale of an expired card: %+v", got)
	}
}

// GP's AVS test cards answer their CVV and AVS results whatever the request sends
// (Java GpApiAvsCheckTest::CreditSale_CvvResult, .NET GpApiAvsCheckTestCards): the
// words in payment_method.card, the issuer's codes in card.provider.
func TestAVSTestCards(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	// card, cvv_result, avs_postal_code_result, avs_address_result, status, provider cvv, postal, address
	rows := [][8]string{
		{"5167308114614170", "MATCHED", "NOT_CHECKED", "NOT_CHECKED", "CAPTURED", "M", "U", "U"},
		{"5167300431085507", "MATCHED", "NOT_CHECKED", "NOT_CHECKED", "CAPTURED", "M", "I", "I"},
		{"5167302774869323", "MATCHED", "NOT_CHECKED", "NOT_CHECKED", "CAPTURED", "M", "P", "P"},
		{"5167308372298823", "MATCHED", "MATCHED", "MATCHED", "CAPTURED", "M", "M", "M"},
		{"5167304376624205", "MATCHED", "NOT_MATCHED", "NOT_MATCHED", "CAPTURED", "M", "N", "N"},
		{"5167305286858551", "MATCHED", "NOT_MATCHED", "MATCHED", "CAPTURED", "M", "N", "M"},
		{"5167302027021516", "MATCHED", "NOT_MATCHED", "NOT_MATCHED", "CAPTURED", "M", "N", "N"},
		{"5167300747736579", "NOT_MATCHED", "NOT_MATCHED", "MATCHED", "CAPTURED", "N", "N", "M"},
		{"5167300575629722", "NOT_MATCHED", "NOT_CHECKED", "NOT_CHECKED", "CAPTURED", "N", "U", "U"},
		{"5167305971795258", "NOT_MATCHED", "NOT_CHECKED", "NOT_CHECKED", "CAPTURED", "N", "I", "I"},
		{"5167306563324952", "NOT_MATCHED", "NOT_CHECKED", "NOT_CHECKED", "CAPTURED", "N", "P", "P"},
		{"5167305301636255", "NOT_MATCHED", "NOT_CHECKED", "MATCHED", "CAPTURED", "N", "P", "M"},
		{"5167308925965308", "NOT_MATCHED", "MATCHED", "NOT_MATCHED", "CAPTURED", "N", "M", "N"},
		{"5167308304373025", "NOT_MATCHED", "NOT_MATCHED", "NOT_MATCHED", "CAPTURED", "N", "N", "N"},
		{"4259917010910078", "NOT_CHECKED", "NOT_CHECKED", "NOT_CHECKED", "DECLINED", "I", "U", "U"},
		{"4259916460134858", "NOT_CHECKED", "NOT_CHECKED", "NOT_CHECKED", "DECLINED", "I", "I", "I"},
		{"4259910583250337", "NOT_CHECKED", "NOT_CHECKED", "NOT_CHECKED", "DECLINED", "I", "P", "P"},
		{"4259913676419876", "MATCHED", "MATCHED", "MATCHED", "DECLINED", "M", "M", "M"},
		{"4259915858684813", "NOT_CHECKED", "MATCHED", "NOT_MATCHED", "DECLINED", "I", "M", "N"},
		{"4259919754924299", "NOT_CHECKED", "NOT_MATCHED", "MATCHED", "DECLINED", "I", "N", "M"},
		{"4259917979151326", "NOT_CHECKED", "NOT_MATCHED", "NOT_MATCHED", "DECLINED", "I", "N", "N"},
		{"4259915339571613", "NOT_CHECKED", "NOT_CHECKED", "NOT_CHECKED", "DECLINED", "U", "U", "U"},
		{"4259911964632119", "NOT_CHECKED", "NOT_CHECKED", "NOT_CHECKED", "DECLINED", "U", "I", "I"},
		{"4259912262216019", "NOT_CHECKED", "NOT_CHECKED", "NOT_CHECKED", "DECLINED", "U", "P", "P"},
		{"4259912836281333", "NOT_CHECKED", "MATCHED", "MATCHED", "DECLINED", "U", "M", "M"},
		{"4259914539794240", "NOT_CHECKED", "MATCHED", "NOT_MATCHED", "DECLINED", "U", "M", "N"},
		{"4259913732291939", "NOT_CHECKED", "NOT_MATCHED", "MATCHED", "DECLINED", "U", "N", "M"},
		{"4259913622000341", "NOT_CHECKED", "NOT_MATCHED", "NOT_MATCHED", "DECLINED", "U", "N", "N"},
	}
	for _, row := range rows {
		body := strings.Replace(strings.Replace(apitest.SaleBody("101", "AUTO", `{"number":"`+row[0]+`","expiry_month":"12","expiry_year":"30",`+
			`"avs_address":"Apartment 852","avs_postal_code":"5001"}`), `"CP"`, `"CNP"`, 1), `"MANUAL"`, `"ECOM"`, 1)
		got := env.MustCharge(tok, body)
		card := func(path ...string) any { return field(got, append([]string{"payment_method", "card"}, path...)...) }
		have := [8]any{row[0], card("cvv_result"), card("avs_postal_code_result"), card("avs_address_result"), got["status"],
			card("provider", "cvv_result"), card("provider", "avs_postal_code_result"), card("provider", "avs_address_result")}
		for i := 1; i < len(row); i++ {
			if have[i] != row[i] {
				t.Errorf("%s: got %v, want %v", row[0], have, row)
				break
			}
		}
		if card("provider", "result") != field(got, "payment_method", "result") {
			t.Errorf("%s: provider.result %v, result %v", row[0], card("provider", "result"), field(got, "payment_method", "result"))
		}
	}
	// Other cards carry no AVS results.
	if got := env.MustCharge(tok, apitest.SaleBody("101", "AUTO", apitest.ManualCard)); card(got, "provider") != nil || card(got, "avs_address_result") != nil {
		t.Errorf("a card without AVS results: %v", got)
	}
}

func card(m map[string]any, path ...string) any {
	return field(m, append([]string{"payment_method", "card"}, path...)...)
}

// What GP refuses in a payment request before it asks an issuer (Java
// GpApiCreditCardNotPresentTest::CreditSale_MissingStoredCredentialInitiator, _Type,
// _Sequence, CreditSaleWithSurcharge, CreditSaleWithExceededSurcharge,
// CreditRefund_ZeroAmount).
func TestPaymentRequestChecks(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	gbp := func(amount string, extra ...string) string {
		return strings.Replace(apitest.SaleBody(amount, "AUTO", apitest.ManualCard, extra...), `"USD"`, `"GBP"`, 1)
	}
	storedCredential := func(initiator, model, sequence string) []string {
		var parts []string
		for name, v := range map[string]string{"model": model, "sequence": sequence} {
			if v != "" {
				parts = append(parts, apitest.Quoted(name, v))
			}
		}
		parts = append(parts, apitest.Quoted("reason", "INCREMENTAL"))
		out := []string{`"stored_credential":{` + strings.Join(parts, ",") + `}`}
		if initiator != "" {
			out = append(out, apitest.Quoted("initiator", initiator))
		}
		return out
	}
	incomplete := apitest.Err(400, "INVALID_REQUEST_DATA", "40007", "Request expects the following conditionally mandatory fields initiator, model and sequence.")
	surcharge := apitest.Err(400, "INVALID_REQUEST_DATA", "50020", "The surcharge amount is greater than 5% of the transaction amount")
	zero := apitest.Err(400, "INVALID_REQUEST_DATA", "50020", "Zero negative or insufficient amount specified ")
	cases := []struct {
		name, path, body string
		want             apitest.GPError // zero: approved
	}{
		{"stored credential complete", "/transactions", apitest.SaleBody("100", "AUTO", apitest.ManualCard, storedCredential("MERCHANT", "RECURRING", "SUBSEQUENT")...), apitest.GPError{}},
		{"stored credential without initiator", "/transactions", apitest.SaleBody("100", "AUTO", apitest.ManualCard, storedCredential("", "RECURRING", "SUBSEQUENT")...), incomplete},
		{"stored credential without model", "/transactions", apitest.SaleBody("100", "AUTO", apitest.ManualCard, storedCredential("MERCHANT", "", "SUBSEQUENT")...), incomplete},
		{"stored credential without sequence", "/transactions", apitest.SaleBody("100", "AUTO", apitest.ManualCard, storedCredential("MERCHANT", "RECURRING", "")...), incomplete},
		{"verification, stored credential without sequence", "/verifications",
			`{"channel":"CP","currency":"USD","payment_method":{"entry_mode":"MANUAL","card":` + apitest.ManualCard + `},` +
				strings.Join(storedCredential("MERCHANT", "RECURRING", ""), ",") + `}`, incomplete},
		{"surcharge 3 of 69", "/transactions", gbp("6900", `"surcharge_amount":"300"`), apitest.GPError{}},
		{"surcharge exactly 5%", "/transactions", gbp("2000", `"surcharge_amount":"100"`), apitest.GPError{}},
		{"surcharge 4 of 69", "/transactions", gbp("6900", `"surcharge_amount":"400"`), surcharge},
		{"standalone refund of zero", "/transactions", strings.Replace(apitest.SaleBody("000", "AUTO", apitest.ManualCard), `"SALE"`, `"REFUND"`, 1), zero},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := env.Do("POST", tc.path, apitest.APIHeader(tok), tc.body)
			if tc.want == (apitest.GPError{}) {
				if r.Status != 200 {
					t.Fatalf("%d %s", r.Status, r.Body)
				}
				return
			}
			if got := r.GPError(t); got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// GP's test cards brand by brand: the issuer's declines with an empty authcode, the
// payments that fail downstream, and the card type GP does not process (Java and .NET
// GpApiSdkCertificationTest::CreditCard_*_Declined_*, CreditCard_*_Processing_Error,
// CreditCard_UATP_Transaction_Not_Supported_Error).
func TestDeclinesPerCard(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	cnp := func(number, cvv string) string {
		card := `{"number":"` + number + `","expiry_month":"12","expiry_year":"30","cvv":"` + cvv + `"}`
		return strings.Replace(strings.Replace(apitest.SaleBody("1025", "AUTO", card), `"CP"`, `"CNP"`, 1), `"MANUAL"`, `"ECOM"`, 1)
	}
	for number, result := range map[string]string{
		"4000120000001154": "101", "4000130000001724": "102", "4000160000004147": "103", "4242420000000091": "111",
		"5114610000004778": "101", "5114630000009791": "102", "5121220000006921": "103", "5100000000000131": "111",
		"376525000000010": "101", "375425000000907": "102", "343452000000306": "103", "374205502001004": "111",
		"36256000000998": "101", "36256000000634": "102", "38865000000705": "103",
		"6011000000001010": "101", "6011000000001028": "102", "6011000000001036": "103",
		"3566000000001016": "101", "3566000000001024": "102", "3566000000001032": "103",
	} {
		cvv := "123"
		if number[0] == '3' && (number[1] == '4' || number[1] == '7') {
			cvv = "1234"
		}
		got := env.MustCharge(tok, cnp(number, cvv))
		if got["status"] != "DECLINED" || field(got, "payment_method", "result") != result || card(got, "authcode") != "" {
			t.Errorf("%s: status %v result %v authcode %v; want DECLINED %s, no authcode", number, got["status"],
				field(got, "payment_method", "result"), card(got, "authcode"), result)
		}
	}
	downstream := apitest.Err(502, "SYSTEM_ERROR_DOWNSTREAM", "50013", "200,eCom error—Developers are notified")
	for _, number := range []string{"4009830000001985", "5135020000005871", "372349000000852", "30450000000985", "6011000000002000", "3566000000002006"} {
		cvv := "123"
		if number[1] == '7' {
			cvv = "1234"
		}
		if got := env.Do("POST", "/transactions", apitest.APIHeader(tok), cnp(number, cvv)).GPError(t); got != downstream {
			t.Errorf("%s: %+v", number, got)
		}
	}
	unsupported := apitest.Err(400, "INVALID_REQUEST_DATA", "50020", "Transaction not supported Please contact support ")
	if got := env.Do("POST", "/transactions", apitest.APIHeader(tok), cnp("135400000007187", "123")).GPError(t); got != unsupported {
		t.Errorf("UATP: %+v", got)
	}
}
