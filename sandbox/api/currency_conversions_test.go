package api_test

import (
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// rateBody is a POST /currency-conversions body as the SDKs' getDccRate builds it
// (PHP GpApiAuthorizationRequestBuilder, Java and .NET alike).
func rateBody(amount, currency, number string) string {
	body := `{"account_name":"transaction_processing","channel":"CNP","reference":"dcc-1","country":"US",` +
		`"payment_method":{"entry_mode":"ECOM","card":{"number":"` + number + `","expiry_month":"12","expiry_year":"30"}}`
	if amount != "" {
		body += `,"amount":"` + amount + `"`
	}
	if currency != "" {
		body += `,"currency":"` + currency + `"`
	}
	return body + "}"
}

// dccSale is a keyed sale naming a rate.
func dccSale(amount, captureMode, rateID string) string {
	return `{"account_name":"transaction_processing","channel":"CNP","type":"SALE","capture_mode":"` + captureMode + `",` +
		`"amount":"` + amount + `","currency":"EUR","country":"US","currency_conversion":{"id":"` + rateID + `"},` +
		`"payment_method":{"entry_mode":"ECOM","card":{"number":"4006097467207025","expiry_month":"12","expiry_year":"30"}}}`
}

// A rate looked up, then named by a sale, an authorization and its capture, and a
// refund: each answer carries its own amount converted, amount × rate rounded down
// (PHP DccCardNotPresentTest testCreditGetDccInfo, testAuthorizationThenCapture,
// testCreditDccRateRefund; Java GpApiDccCardNotPresentTest CreditGetDccInfo; Node
// DccCardNotPresent.test.ts "credit get dcc info").
func TestCurrencyConversion(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	rate := env.MustPost(tok, "/currency-conversions", rateBody("1511", "EUR", "4006097467207025"))
	id, _ := rate["id"].(string)
	if !strings.HasPrefix(id, "DCC_") || rate["status"] != "AVAILABLE" || field(rate, "action", "type") != "RATE_LOOKUP" ||
		field(rate, "action", "result_code") != "SUCCESS" || rate["exchange_rate"] != "1.1" ||
		rate["payer_currency"] != "USD" || rate["payer_amount"] != "1662" || rate["amount"] != "1511" || rate["currency"] != "EUR" {
		t.Fatalf("rate: %v", rate)
	}
	sale := env.MustCharge(tok, dccSale("1511", "AUTO", id))
	if sale["status"] != "CAPTURED" || field(sale, "currency_conversion", "id") != id ||
		field(sale, "currency_conversion", "payer_amount") != "1662" || field(sale, "currency_conversion", "exchange_rate") != "1.1" {
		t.Errorf("sale: %v", sale)
	}
	auth := env.MustCharge(tok, dccSale("1000", "LATER", id))
	capture := env.MustPost(tok, "/transactions/"+auth["id"].(string)+"/capture", `{"amount":"999","currency_conversion":{"id":"`+id+`"}}`)
	if field(auth, "currency_conversion", "payer_amount") != "1100" || field(capture, "currency_conversion", "payer_amount") != "1098" {
		t.Errorf("authorization %v, capture %v", auth["currency_conversion"], capture["currency_conversion"])
	}
	refund := env.MustPost(tok, "/transactions/"+sale["id"].(string)+"/refund", `{"amount":"1511","currency":"EUR","currency_conversion":{"id":"`+id+`"}}`)
	if field(refund, "currency_conversion", "payer_amount") != "1662" {
		t.Errorf("refund: %v", refund)
	}
	if got, _ := env.actionsOf(tok, "?type=RATE_LOOKUP&resource=CURRENCY_CONVERSIONS&resource_status=AVAILABLE"); len(got) != 1 || got[0]["resource_id"] != id {
		t.Errorf("the lookup's action: %v", got)
	}
}

// A rate looked up for a stored card, single-use here: the lookup reads the card
// (any card, not only GP's test ones) without using the token up, and the sale that
// names the rate pays with it (PHP DccCardNotPresentTest
// testCardTokenizationThenPayingWithToken; A54).
func TestCurrencyConversionStoredCard(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	stored := env.MustPost(tok, "/payment-methods", `{"account_name":"tokenization","usage_mode":"SINGLE",`+
		`"card":{"number":"4006097467207025","expiry_month":"12","expiry_year":"30"}}`)
	token := stored["id"].(string)
	byToken := strings.Replace(rateBody("1511", "EUR", "x"),
		`"card":{"number":"x","expiry_month":"12","expiry_year":"30"}`, `"id":"`+token+`","name":"James Mason"`, 1)
	rate := env.MustPost(tok, "/currency-conversions", byToken)
	if rate["status"] != "AVAILABLE" || rate["payer_amount"] != "1662" {
		t.Fatalf("rate for a stored card: %v", rate)
	}
	sale := strings.Replace(dccSale("1511", "AUTO", rate["id"].(string)),
		`"card":{"number":"4006097467207025","expiry_month":"12","expiry_year":"30"}`, `"id":"`+token+`"`, 1)
	if paid := env.MustCharge(tok, sale); paid["status"] != "CAPTURED" || field(paid, "currency_conversion", "payer_amount") != "1662" {
		t.Errorf("sale with the stored card at the rate: %v", paid)
	}
	if got := env.Do("POST", "/transactions", apitest.APIHeader(tok), sale).GPError(t); got.Status != 404 || got.Error.Detail != "40116" {
		t.Errorf("the single-use card used a second time: %+v", got)
	}
}

// GP's test card has no rate: NOT_AVAILABLE without payer amount; a sale naming it
// pays its amount in the merchant's currency (PHP testCreditGetDccInfo_RateNotAvailable,
// Node "credit get dcc info - rate not available").
func TestCurrencyConversionNotAvailable(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	for _, body := range []string{rateBody("1511", "EUR", "4263970000005262"), rateBody("1511", "JPY", "4006097467207025")} {
		rate := env.MustPost(tok, "/currency-conversions", body)
		if rate["status"] != "NOT_AVAILABLE" || rate["payer_amount"] != nil || rate["exchange_rate"] != nil {
			t.Errorf("rate: %v", rate)
		}
	}
	rate := env.MustPost(tok, "/currency-conversions", rateBody("1511", "EUR", "4263970000005262"))
	sale := env.MustCharge(tok, dccSale("1511", "AUTO", rate["id"].(string)))
	if field(sale, "currency_conversion", "payer_amount") != "1511" || field(sale, "currency_conversion", "payer_currency") != "EUR" {
		t.Errorf("sale at no rate: %v", sale["currency_conversion"])
	}
}

// GP's refusals (PHP testCreditGetDccInfo_InvalidCardNUmber, _WithoutAmount,
// _WithoutCurrency, _WithIdempotencyKey; Java CreditGetDccInfo_InvalidCardNumber,
// _WithoutAmount, _WithoutCurrency).
func TestCurrencyConversionErrors(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	cases := []struct {
		body string
		want apitest.GPError
	}{
		{rateBody("1511", "EUR", "4000000000005262"), apitest.Err(400, "INVALID_REQUEST_DATA", "40090", "card.number value is invalid. Please check the format and data provided is correct.")},
		{rateBody("", "EUR", "4006097467207025"), apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields : amount")},
		{rateBody("1511", "", "4006097467207025"), apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields : currency")},
		{strings.TrimSuffix(rateBody("", "EUR", "4006097467207025"), "}") + `,"amount":""}`, apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields : amount")},
		{rateBody("1511", "EURO", "4006097467207025"), apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "currency contains unexpected data")},
		{strings.Replace(rateBody("1511", "EUR", "4006097467207025"), `"country":"US"`, `"country":"gb"`, 1), apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "country contains unexpected data")},
	}
	for _, c := range cases {
		if got := env.Do("POST", "/currency-conversions", apitest.APIHeader(tok), c.body).GPError(t); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.body, got, c.want)
		}
	}
	keyed := apitest.APIHeader(tok, "X-GP-Idempotency", "dcc-key-1")
	first := env.Do("POST", "/currency-conversions", keyed, rateBody("1511", "EUR", "4006097467207025")).JSON(t)
	want := apitest.Err(409, "DUPLICATE_ACTION", "40039", "Idempotency Key seen before: id="+first["id"].(string)+", status=AVAILABLE")
	if got := env.Do("POST", "/currency-conversions", keyed, rateBody("1511", "EUR", "4006097467207025")).GPError(t); got != want {
		t.Errorf("repeated key: %+v, want %+v", got, want)
	}
	unknown := apitest.Err(404, "RESOURCE_NOT_FOUND", "40008", "Currency conversion DCC_nope not found at this location.")
	if got := env.Do("POST", "/transactions", apitest.APIHeader(tok), dccSale("100", "AUTO", "DCC_nope")).GPError(t); got != unknown {
		t.Errorf("unknown rate: %+v", got)
	}
	if got, _ := env.actionsOf(tok, "?resource=CURRENCY_CONVERSIONS&http_response_code=400"); len(got) != 5 {
		t.Errorf("refused lookups recorded: %v", got)
	}
}

// A scenario's rate replaces the table's: another exchange rate, which the payment
// naming it follows, or NOT_AVAILABLE (scenarios/README.md, rate).
func TestCurrencyConversionScenario(t *testing.T) {
	env := mustSandbox(t)
	if r := env.MustInstallScenario(`version: 1
name: dcc-rates
rules:
  - when: {operation: currency_conversion, body: {currency: EUR}}
    then: {rate: {exchange_rate: "0.857"}}
  - when: {operation: currency_conversion}
    then: {rate: {status: NOT_AVAILABLE}}
`); r.Status != 200 {
		t.Fatalf("install: %d %s", r.Status, r.Body)
	}
	tok := env.PartnerToken()
	h := apitest.APIHeader(tok, "X-Sandbox-Scenario", "dcc-rates")
	rate := env.Do("POST", "/currency-conversions", h, rateBody("1511", "EUR", "4006097467207025")).JSON(t)
	if rate["status"] != "AVAILABLE" || rate["exchange_rate"] != "0.857" || rate["payer_amount"] != "1294" {
		t.Fatalf("scripted rate: %v", rate)
	}
	sale := env.MustCharge(tok, dccSale("1511", "AUTO", rate["id"].(string)))
	if field(sale, "currency_conversion", "payer_amount") != "1294" { // 1511 × 0.857 = 1294.927, rounded down
		t.Errorf("sale at the scripted rate: %v", sale["currency_conversion"])
	}
	none := env.Do("POST", "/currency-conversions", h, rateBody("1000", "USD", "4006097467207025")).JSON(t)
	if none["status"] != "NOT_AVAILABLE" || none["exchange_rate"] != nil {
		t.Errorf("scripted NOT_AVAILABLE: %v", none)
	}
	bad := env.Do("POST", "/_sandbox/scenarios", map[string]string{"Content-Type": "application/yaml"}, `version: 1
name: bad-rate
rules:
  - when: {operation: transaction}
    then: {rate: {exchange_rate: "0.8571"}}
`)
	want := `body:5:18: rules[0].then.rate: rate.exchange_rate: must be a rate of at most three decimals such as \"0.857\", got \"0.8571\"; ` +
		`body:5:18: rules[0].then.rate: rate applies only to the currency_conversion operation (POST /currency-conversions), not transaction`
	if got := bad.GPError(t); got != apitest.Err(400, "INVALID_REQUEST_DATA", "40213", strings.ReplaceAll(want, `\"`, `"`)) {
		t.Errorf("a bad rate outcome: %d %s", bad.Status, bad.Body)
	}
}
