// Package compare runs the same fixed flows of GP API calls against two servers (the
// real GP API and a sandbox, or two sandboxes) and reports, step by step, where their
// answers differ: HTTP status, error tuple, the outcome members and the set of
// response members with their JSON types. Values that differ by nature (ids, times,
// authcodes) are never compared.
package compare

// The card data the flows send: GP's public test cards only, as GP's SDK tests send
// them (the wire contract's test-card table). They are approved in GP's sandbox.
const (
	// testTrack is GP's Visa test track (tracks 1 and 2), approved swiped, by
	// contactless and by chip without a PIN.
	testTrack = "%B4012002000060016^VI TEST CREDIT^251210118039000000000396?;4012002000060016=25121011803939600000?"
	// testTag is the EMV data a chip read of it adds (TLV in hex).
	testTag = "9F4005F000F0A0019F02060000000025009F03060000000000009F2608D90A06501B48564E82027C005F3401019F360200029F0702FF009F0802008C9F0902008C9F34030403029F2701809F0D05F0400088009F0E0508000000009F0F05F0400098005F280208409F390105FFC605DC4000A800FFC7050010000000"
	// testNumber is GP's approved Visa for keyed entry.
	testNumber = "4263970000005262"
	testCVV    = "123"
)

// Secrets are the card data the flows send, for the report to prove it never holds
// them.
func Secrets() []string { return []string{testTrack, testTag, testNumber, "4012002000060016"} }

// Flow is a named sequence of steps run in order against one server. Steps of a flow
// share its values: a step's Save keeps members of its answer, which later steps
// name as ${name} in their path or body.
type Flow struct {
	Name  string
	Doc   string
	Steps []Step
}

// Step is one request. Path and Body may hold ${name} placeholders: the values an
// earlier step saved, and those of the run (app_id, nonce, secret, exp_year, run). A
// step whose placeholder has no value (the step that would have saved it failed) is
// not sent. Steps of a flow with the same Key send the same X-GP-Idempotency header.
type Step struct {
	Name   string
	Method string
	Path   string
	Body   string // JSON; empty sends no body
	Key    string
	Save   map[string]string // placeholder name -> top-level member of the answer
}

// TokenFlow is the flow every other one needs first: its token authorizes them.
const TokenFlow = "token"

// sale is a card-present sale of amount with the payment method pm.
func sale(name, amount, pm string) Step {
	return Step{
		Name: name, Method: "POST", Path: "/transactions",
		Body: `{"channel":"CP","type":"SALE","capture_mode":"AUTO","amount":"` + amount +
			`","currency":"USD","country":"US","reference":"compare-${run}","payment_method":` + pm + `}`,
		Save: map[string]string{"sale": "id", "batch": "batch_id"},
	}
}

// Payment methods, one per card-present entry mode.
const (
	swipe       = `{"entry_mode":"SWIPE","card":{"track":"` + testTrack + `","funding":"CREDIT"}}`
	chip        = `{"entry_mode":"CHIP","card":{"track":"` + testTrack + `","tag":"` + testTag + `"}}`
	contactless = `{"entry_mode":"CONTACTLESS_CHIP","card":{"track":"` + testTrack + `","tag":"` + testTag + `"}}`
	keyed       = `{"entry_mode":"MANUAL","card":{"number":"` + testNumber + `","expiry_month":"12","expiry_year":"${exp_year}","cvv":"` + testCVV + `","cvv_indicator":"PRESENT"}}`
)

// Flows is the fixed set, in the order they run. COMPARE.md's table of the flows
// documents each; change both together.
func Flows() []Flow {
	return []Flow{
		{TokenFlow, "an access token for the app (POST /accesstoken)", []Step{{
			Name: "accesstoken", Method: "POST", Path: "/accesstoken",
			Body: `{"app_id":"${app_id}","nonce":"${nonce}","secret":"${secret}","grant_type":"client_credentials"}`,
			Save: map[string]string{"token": "token"},
		}}},
		{"sale-swipe", "a card-present sale, swiped (track data)", []Step{sale("sale", "1000", swipe)}},
		{"sale-chip", "a card-present sale by chip (track and EMV data)", []Step{sale("sale", "1100", chip)}},
		{"sale-contactless", "a card-present sale by contactless chip", []Step{sale("sale", "1200", contactless)}},
		{"sale-manual", "a card-present sale of a keyed card", []Step{sale("sale", "1300", keyed)}},
		{"tip", "a swiped sale, then a tip (POST /transactions/{id}/adjustment)", []Step{
			sale("sale", "1400", swipe),
			{Name: "adjustment", Method: "POST", Path: "/transactions/${sale}/adjustment", Body: `{"gratuity_amount":"200"}`},
		}},
		{"refund", "a swiped sale, then a partial refund of it", []Step{
			sale("sale", "1500", swipe),
			{Name: "refund", Method: "POST", Path: "/transactions/${sale}/refund", Body: `{"amount":"500","currency":"USD"}`},
		}},
		{"reversal", "a swiped sale, then its reversal", []Step{
			sale("sale", "1600", swipe),
			{Name: "reversal", Method: "POST", Path: "/transactions/${sale}/reversal", Body: `{"amount":"1600"}`},
		}},
		{"batch-close", "a swiped sale, its detail (GET), then the close of its batch", []Step{
			sale("sale", "1700", swipe),
			{Name: "detail", Method: "GET", Path: "/transactions/${sale}"},
			{Name: "close", Method: "POST", Path: "/batches/${batch}"},
		}},
		{"unknown-transaction", "the detail of, and a refund of, a transaction that does not exist", []Step{
			{Name: "detail", Method: "GET", Path: "/transactions/TRN_compareUnknown${run}"},
			{Name: "refund", Method: "POST", Path: "/transactions/TRN_compareUnknown${run}/refund", Body: `{"amount":"100","currency":"USD"}`},
		}},
		{"duplicate-idempotency", "the same sale twice under one X-GP-Idempotency key", []Step{
			withKey(sale("first", "1800", swipe), "dup"),
			withKey(sale("again", "1800", swipe), "dup"),
		}},
		{"missing-fields", "a sale without currency", []Step{{
			Name: "sale", Method: "POST", Path: "/transactions",
			Body: `{"channel":"CP","type":"SALE","capture_mode":"AUTO","amount":"1000","payment_method":` + swipe + `}`,
		}}},
		{"unknown-field", "a sale with a member no GP API operation has", []Step{{
			Name: "sale", Method: "POST", Path: "/transactions",
			Body: `{"channel":"CP","type":"SALE","capture_mode":"AUTO","amount":"1000","currency":"USD","compare_unknown_member":"x","payment_method":` + swipe + `}`,
		}}},
	}
}

func withKey(s Step, key string) Step {
	s.Key = key
	return s
}
