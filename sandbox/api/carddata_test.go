package api_test

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// cardSecret is a piece of card data a request carries, and every clear form of it
// that must not be found after the request.
type cardSecret struct {
	name  string
	clear []string
}

// inClear reports whether content holds secret in clear. A CVV is looked for as a
// number of its own, between characters that are neither letters nor digits ('_'
// included, so that cvv_2468 is found): its four digits inside a longer run of
// letters and digits (a random id, a port) are not a CVV.
func inClear(content []byte, name, secret string) bool {
	if name == "CVV" {
		// Whole digits only: not inside a longer number, nor a decimal's fraction
		// (a duration of 1.073 ms is no CVV).
		return regexp.MustCompile(`(?:^|[^0-9A-Za-z.])` + secret + `(?:[^0-9A-Za-z.]|$)`).Match(content)
	}
	return bytes.Contains(content, []byte(secret))
}

// cardMemberSecrets are sent in card members (a number, a CVV, a track, a PIN block,
// an EMV tag, a card keyed at a terminal, a fixture's card): masked or dropped where
// the record is built, they are in clear nowhere, not in the database file, a
// snapshot, an answer, the log, the journal or the inspector.
// A three-digit CVV starts with 0: no length or count the sandbox writes does, and a
// fraction (a duration's) is not read as one.
var cardMemberSecrets = []cardSecret{
	{"PAN", []string{"4263970000005262", "970000005"}},
	{"PAN of a token edit", []string{"5114610000004778", "610000004"}},
	{"CVV", []string{"2468", "1357", "9753", "8642", "1593", "7319", "4826", "073", "3141", "5820", "6071", "6193", "2971"}},
	{"PIN block", []string{"8F3A1B2C3D4E5F60", "62A1C3F0E1D2B495"}},
	{"track data", []string{"DOE/JOHN", "2512101000000000000", "2512101999"}},
}

// freeTextSecrets are card data a client typed into free text (a cardholder's name,
// an address, a description, an authcode): no card member, kept and echoed as sent,
// but in clear nowhere a person reads the sandbox, the log, the journal and the
// inspector.
var freeTextSecrets = []cardSecret{
	{"PAN with dashes", []string{"3530-1113-3330-0000", "3530111333300000", "1113-3330"}},
	{"PAN with spaces", []string{"5425 2334 3010 9903", "5425233430109903", "2334 3010"}},
	{"track data in free text", []string{"ROE/JANE", "2612101000000000000", "2612101888"}},
}

// sweepRequest is a request of the sweep: any answer but a failure of the sandbox
// will do, but an admin call must succeed.
type sweepRequest struct{ name, method, path, body string }

// cardDataSweep is a set of requests, valid and not, through every operation that
// can carry card data.
func cardDataSweep() []sweepRequest {
	orders := "/merchants/" + apitest.MerchantOne + "/orders"
	card := `{"number":"4263970000005262","cvv":"2468","expiry_month":"12","expiry_year":"29"}`
	return []sweepRequest{
		{"order with a card", "POST", orders, `{"payment_method":{"name":"3530-1113-3330-0000","card":` + card + `}}`},
		{"quote with a card", "POST", orders, `{"status":"FOR_REVIEW","products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":1}}],"payment_method":{"card":` + card + `}}`},
		{"over the journal cap", "POST", orders, `{"payment_method":{"card":` + card + `}` + strings.Repeat(" ", 17<<10) + `}`},
		{"syntax error", "POST", orders, `{"payment_method":{"card":{"number":"4263970000005262","cvv":"1357",}}}`},
		{"key in capitals", "POST", orders, `{"payment_method":{"card":{"number":"4263970000005262","CVV":"9753"}}}`},
		{"pretty", "POST", orders, "{\n  \"payment_method\": {\n    \"card\": {\n      \"number\": \"4263970000005262\",\n      \"cvv\": \"8642\"\n    }\n  }\n}"},
		{"escaped key", "POST", orders, `{"payment_method":{"card":{"number":"4263970000005262","\u0063vv":"1593"}}}`},
		{"number as a number", "POST", orders, `{"payment_method":{"card":{"number":4263970000005262,"cvv":7319}}}`},
		{"spaces in an address", "POST", orders, `{"addresses":[{"functions":["SHIPPING"],"name":"5425 2334 3010 9903","line_1":"x"}]}`},
		{"track 1 in a name", "POST", orders, `{"payment_method":{"name":"%B3530111333300000^ROE/JANE^2612101000000000000?"}}`},
		{"track 2 in a line", "POST", orders, `{"addresses":[{"name":"a","line_1":";3530111333300000=2612101888?"}]}`},
		{"PIN block", "POST", orders, `{"payment_method":{"card":{"number":"4263970000005262","pin_block":"8F3A1B2C3D4E5F60"}}}`},
		{"form body", "POST", orders, `number=4263970000005262&cvv=4826`},
		{"form members by index", "POST", orders, `card[number][0]=4263970000005262&card[cvv][0]=6193&cvv[value]=2971`},
		// A card member of any shape is masked, the refusal's recorded action included.
		{"card members as an array and an object", "POST", "/transactions", cardPresentSweepBody("MANUAL",
			`{"number":"4263970000005262","expiry_month":"12","expiry_year":"29","cvv":["5820"],"pin_block":{"value":"62A1C3F0E1D2B495"}}`)},
		{"a card as an array, its number failing the check", "POST", "/transactions", cardPresentSweepBody("MANUAL",
			`[{"number":"4263970000005263","cvv":"6071"}]`)},
		{"EMV tag", "POST", "/transactions/" + apitest.CapturedOne + "/adjustment",
			`{"payment_method":{"card":{"tag":"7010` + `5A084263970000005262` + `5F2403251231` + `770C570A4263970000005262D251"}}}`},
		{"sale with a card number in its description", "POST", "/transactions",
			`{"account_name":"transaction_processing","channel":"CP","country":"US","type":"SALE","capture_mode":"LATER","amount":"100",` +
				`"currency":"USD","description":"5425 2334 3010 9903","payment_method":{"entry_mode":"MANUAL","name":"3530 1113 3330 0000","card":` +
				`{"number":"4263970000005262","expiry_month":"12","expiry_year":"30","cvv":"826","authcode":"5425-2334-3010-9903"}}}`},
		{"PAN in the path", "POST", "/transactions/4263970000005262/adjustment", `{"amount":"1"}`},
		{"swipe with PIN", "POST", "/transactions", cardPresentSweepBody("SWIPE",
			`{"track":"%B4263970000005262^DOE/JOHN^2512101000000000000?;4263970000005262=2512101999?","pin_block":"8F3A1B2C3D4E5F60"}`)},
		{"manual", "POST", "/transactions", cardPresentSweepBody("MANUAL", card)},
		{"chip refund refused", "POST", "/transactions", strings.Replace(cardPresentSweepBody("CHIP",
			`{"track":";4263970000005262=2512101999?","tag":"5A084263970000005262","pin_block":"8F3A1B2C3D4E5F60"}`), `"SALE"`, `"REFUND"`, 1)},
		{"verification", "POST", "/verifications", cardPresentSweepBody("MANUAL", card)},
		{"seed with card data in free text", "PUT", "/_sandbox/transactions/TRN_Seeded1", `{"merchant_id":"` + apitest.MerchantOne +
			`","amount":"100","payment_method":{"result":"00","message":"ok","card":{"authcode":"5425 2334 3010 9903","brand_reference":"b"}}}`},
		{"terminal in INITIATED mode", "POST", "/_sandbox/devices/DEV_00000000000000000000000000000001", `{"mode":"INITIATED"}`},
		{"MiC sale with a security code", "POST", "/devices", strings.Replace(apitest.MICBody("Sale", `{"transaction":{"baseAmount":"10.00"}}`),
			`"EcrId":"13"`, `"EcrId":"13","params":{"securityCode":"3141"}`, 1)},
		{"card number keyed at the terminal", "POST", "/_sandbox/devices/DEV_00000000000000000000000000000001/present", `{"card":"4263970000005262"}`},
		{"MiC sale", "POST", "/devices", apitest.MICBody("Sale", `{"transaction":{"baseAmount":"11.00"}}`)},
		{"card number mistyped at the terminal", "POST", "/_sandbox/devices/DEV_00000000000000000000000000000001/present", `{"card":"4263970000005263"}`},
	}
}

func cardPresentSweepBody(entryMode, card string) string {
	return `{"channel":"CP","type":"SALE","amount":"100","currency":"USD","payment_method":{"entry_mode":"` +
		entryMode + `","card":` + card + `}}`
}

// No card data is found in clear after requests carrying it in every form through
// every operation that can carry it (valid or not, over the journal's cap, in odd
// case, pretty-printed, with separators, in free text), fixtures and an admin seed
// included: card members nowhere, not in the database file, a snapshot, an answer,
// the log, the journal or any admin view the inspector reads; free text nowhere a
// person reads the sandbox.
func TestCardDataNeverInClear(t *testing.T) {
	env := mustSinkSandbox(t, apitest.Options{Fixtures: func(f *sandbox.Fixtures) {
		// A Go test's fixture may put a card number in any card member.
		f.Transactions[1].EMVTag = "5A084263970000005262"
		f.Transactions[1].Card = sandbox.StoredCard{Brand: "VISA", First6: "4263970000005262", Last4: "4263970000005262"}
		f.Transactions[1].PaymentMethod.Card.MaskedNumberLast4 = "4263970000005262"
	}})
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	var answers []byte
	var adminPaths []string
	do := func(req sweepRequest) map[string]any {
		header := apitest.APIHeader(tok)
		if strings.HasPrefix(req.path, "/_sandbox/") {
			header = apitest.JSONHeader()
		}
		r := env.Do(req.method, req.path, header, req.body)
		if r.Status >= 500 || (strings.HasPrefix(req.path, "/_sandbox/") || strings.HasPrefix(req.name, "token")) && r.Status != 200 {
			t.Errorf("%s: %d %s", req.name, r.Status, r.Body)
		}
		if req.name != "PAN in the path" { // an id, echoed as sent in the 404 naming it
			answers = append(answers, r.Body...)
		}
		answer := r.JSON(t)
		id, _ := answer["id"].(string)
		switch {
		case strings.HasPrefix(id, "ORD_"):
			adminPaths = append(adminPaths, "/_sandbox/orders/"+id)
		case strings.HasPrefix(id, "DRQ_"):
			adminPaths = append(adminPaths, "/_sandbox/device-requests/"+id)
		case strings.HasPrefix(id, "TRN_"):
			adminPaths = append(adminPaths, "/_sandbox/transactions/"+id)
		}
		return answer
	}
	for _, req := range cardDataSweep() {
		do(req)
	}
	token, _ := do(sweepRequest{"token", "POST", "/payment-methods", `{"account_name":"tokenization","name":"3530-1113-3330-0000",` +
		`"card":{"number":"4263970000005262","expiry_month":"12","expiry_year":"30","cvv":"073"}}`})["id"].(string)
	if token == "" {
		t.Fatal("no token made")
	}
	do(sweepRequest{"token edit", "PATCH", "/payment-methods/" + token, `{"usage_mode":"MULTIPLE","card":{"number":"5114610000004778","expiry_month":"12","expiry_year":"31"}}`})
	do(sweepRequest{"token sale with a CVV", "POST", "/transactions", tokenSale(token, `,"card":{"cvv":"073"}`)})
	for _, path := range append([]string{"/transactions?limit=100", "/payment-methods/" + token, "/actions?page_size=100"}, apiReads(adminPaths)...) {
		answers = append(answers, env.Do("GET", path, apitest.APIHeader(tok), "").Body...)
	}
	if len(adminPaths) < 8 {
		t.Fatalf("only %d records made: the sweep does not reach the store", len(adminPaths))
	}
	env.MustAdmin("POST", "/_sandbox/snapshots", `{"name":"swept"}`)
	adminPaths = append(adminPaths, "/_sandbox/transactions?limit=500", "/_sandbox/orders?limit=500", "/_sandbox/terminals",
		"/_sandbox/devices", "/_sandbox/notifications", "/_sandbox/batches?limit=500", "/_sandbox/transactions/"+apitest.CapturedOne,
		"/_sandbox/transactions/TRN_Seeded1")
	places := env.places(t, adminPaths)
	snapshot, err := os.ReadFile(env.dbPath + ".snapshots/swept.db")
	if err != nil {
		t.Fatal(err)
	}
	places["snapshot"] = buntdbFraming.ReplaceAll(snapshot, []byte{0})
	places["answers"] = answers
	for place, content := range places {
		for _, s := range cardMemberSecrets {
			for _, clear := range s.clear {
				if inClear(content, s.name, clear) {
					i := bytes.Index(content, []byte(clear))
					t.Errorf("%s in clear in the %s: %q in %.200s", s.name, place, clear, content[max(i-100, 0):])
				}
			}
		}
		if place == "database file" || place == "snapshot" || place == "answers" {
			continue // free text is kept and echoed as sent
		}
		for _, s := range freeTextSecrets {
			for _, clear := range s.clear {
				if inClear(content, s.name, clear) {
					t.Errorf("%s in clear in the %s: %q", s.name, place, clear)
				}
			}
		}
	}
	for place, masked := range map[string]string{
		"journal": "426397******5262", "admin views": "3530-11**-****-0000", "database file": "5425 2334 3010 9903",
		"snapshot": `"masked_number":"426397******5262"`, "answers": `"masked_number_last4":"XXXXXXXXXXXX4778"`,
	} {
		if !bytes.Contains(places[place], []byte(masked)) {
			t.Errorf("%q not in the %s: the sweep did not reach it\n%s", masked, place, places[place])
		}
	}
}

// apiReads are the API's reads of the records the admin paths name.
func apiReads(adminPaths []string) []string {
	var out []string
	for _, p := range adminPaths {
		if id, ok := strings.CutPrefix(p, "/_sandbox/transactions/"); ok {
			out = append(out, "/transactions/"+id)
		}
	}
	return out
}
