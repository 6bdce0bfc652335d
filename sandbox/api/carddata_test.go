package api_test

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// cardSecret is a piece of card data a request carries, and every clear form of it
// that must not be found anywhere after the request.
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
		return regexp.MustCompile(`(?:^|[^0-9A-Za-z])` + secret + `(?:[^0-9A-Za-z]|$)`).Match(content)
	}
	return bytes.Contains(content, []byte(secret))
}

var sweepSecrets = []cardSecret{
	{"PAN", []string{"4263970000005262", "970000005"}},
	{"PAN with dashes", []string{"3530-1113-3330-0000", "3530111333300000", "1113-3330"}},
	{"PAN with spaces", []string{"5425 2334 3010 9903", "5425233430109903", "2334 3010"}},
	{"CVV", []string{"2468", "1357", "9753", "8642", "1593", "7319", "4826"}},
	{"PIN block", []string{"8F3A1B2C3D4E5F60"}},
	{"track data", []string{"DOE/JOHN", "2512101000000000000", "2512101999"}},
}

// cardDataSweep is a set of requests, valid and not, that carry card data.
func cardDataSweep(tok string) []struct{ name, method, path, body string } {
	orders := "/merchants/" + apitest.MerchantOne + "/orders"
	card := `{"number":"4263970000005262","cvv":"2468","expiry_month":"12","expiry_year":"29"}`
	return []struct{ name, method, path, body string }{
		{"valid order", "POST", orders, `{"payment_method":{"name":"3530-1113-3330-0000","card":` + card + `}}`},
		{"over the journal cap", "POST", orders, `{"payment_method":{"card":` + card + `}` + strings.Repeat(" ", 17<<10) + `}`},
		{"syntax error", "POST", orders, `{"payment_method":{"card":{"number":"4263970000005262","cvv":"1357",}}}`},
		{"key in capitals", "POST", orders, `{"payment_method":{"card":{"number":"4263970000005262","CVV":"9753"}}}`},
		{"pretty", "POST", orders, "{\n  \"payment_method\": {\n    \"card\": {\n      \"number\": \"4263970000005262\",\n      \"cvv\": \"8642\"\n    }\n  }\n}"},
		{"escaped key", "POST", orders, `{"payment_method":{"card":{"number":"4263970000005262","\u0063vv":"1593"}}}`},
		{"number as a number", "POST", orders, `{"payment_method":{"card":{"number":4263970000005262,"cvv":7319}}}`},
		{"spaces in an address", "POST", orders, `{"addresses":[{"functions":["SHIPPING"],"name":"5425 2334 3010 9903","line_1":"x"}]}`},
		{"track 1 in a name", "POST", orders, `{"payment_method":{"name":"%B4263970000005262^DOE/JOHN^2512101000000000000?"}}`},
		{"track 2 in a line", "POST", orders, `{"addresses":[{"name":"a","line_1":";4263970000005262=2512101999?"}]}`},
		{"PIN block", "POST", orders, `{"payment_method":{"card":{"number":"4263970000005262","pin_block":"8F3A1B2C3D4E5F60"}}}`},
		{"form body", "POST", orders, `number=4263970000005262&cvv=4826`},
		{"EMV PAN tag", "POST", "/transactions/" + apitest.CapturedOne + "/adjustment", `{"payment_method":{"card":{"tag":"5A084263970000005262"}}}`},
		{"card-present sale with a card number in its description", "POST", "/transactions",
			`{"account_name":"transaction_processing","channel":"CP","country":"US","type":"SALE","capture_mode":"LATER","amount":"100",` +
				`"currency":"USD","description":"5425 2334 3010 9903","payment_method":{"entry_mode":"MANUAL","card":` +
				`{"number":"4263970000005262","expiry_month":"12","expiry_year":"30","cvv":"826"}}}`},
		{"PAN in the path", "POST", "/transactions/4263970000005262/adjustment", `{"amount":"1"}`},
		{"card-present swipe with PIN", "POST", "/transactions", cardPresentSweepBody("SWIPE",
			`{"track":"%B4263970000005262^DOE/JOHN^2512101000000000000?;4263970000005262=2512101999?","pin_block":"8F3A1B2C3D4E5F60"}`)},
		{"card-present manual", "POST", "/transactions", cardPresentSweepBody("MANUAL", card)},
		{"card-present chip refund refused", "POST", "/transactions", strings.Replace(cardPresentSweepBody("CHIP",
			`{"track":";4263970000005262=2512101999?","tag":"5A084263970000005262","pin_block":"8F3A1B2C3D4E5F60"}`), `"SALE"`, `"REFUND"`, 1)},
		{"verification", "POST", "/verifications", cardPresentSweepBody("MANUAL", card)},
		{"PAN in an admin seed", "PUT", "/_sandbox/transactions/TRN_Seeded1", `{"id":"TRN_Seeded1","merchant_id":"` + apitest.MerchantOne +
			`","time_created":"2021-03-22T10:00:00.000Z","type":"SALE","status":"CAPTURED","amount":"100","currency":"USD","country":"US",` +
			`"reference":"4263-9700-0000-5262","payment_method":{"result":"00","message":"ok","card":{"authcode":"1","brand_reference":"b"}}}`},
	}
}

func cardPresentSweepBody(entryMode, card string) string {
	return `{"channel":"CP","type":"SALE","amount":"100","currency":"USD","payment_method":{"entry_mode":"` +
		entryMode + `","card":` + card + `}}`
}

// No card data is found in clear in the database file, the log or the journal after
// requests carrying it in every form: valid or not, over the journal's cap, in odd
// case, pretty-printed, with separators, in free text.
func TestCardDataNeverInClear(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "sandbox.db")
	var logs bytes.Buffer
	var mu sync.Mutex
	env := mustSandboxWith(t, apitest.Options{DBPath: dbPath, Log: lockedWriter{&mu, &logs}})
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	var orderIDs []string
	for _, req := range cardDataSweep(tok) {
		r := env.Do(req.method, req.path, apitest.APIHeader(tok), req.body)
		if r.Status >= 500 || req.method == "PUT" && r.Status != 200 {
			t.Errorf("%s: %d %s", req.name, r.Status, r.Body)
		}
		if strings.HasPrefix(req.name, "card-present sale with") && r.Status != 200 {
			t.Errorf("%s: %d %s: the sweep does not reach the store", req.name, r.Status, r.Body)
		}
		if id, _ := r.JSON(t)["id"].(string); strings.HasPrefix(id, "ORD_") {
			orderIDs = append(orderIDs, id)
		}
	}
	if len(orderIDs) < 3 {
		t.Fatalf("only %d orders placed: the sweep does not reach the store", len(orderIDs))
	}
	journal := env.Do("GET", "/_sandbox/requests?limit=100", nil, "").Body
	var views []byte
	for _, id := range orderIDs {
		views = append(views, env.Do("GET", "/_sandbox/orders/"+id, nil, "").Body...)
	}
	views = append(views, env.Do("GET", "/_sandbox/transactions/TRN_Seeded1", nil, "").Body...)
	views = append(views, env.Do("GET", "/_sandbox/transactions/"+apitest.CapturedOne, nil, "").Body...)
	db := dbRecords(t, dbPath)
	mu.Lock()
	defer mu.Unlock()
	// The log's wall-clock time and a request's duration are numbers no request chose:
	// "duration":124680 or a time's nanoseconds would otherwise read as a CVV in clear.
	log := regexp.MustCompile(`"(time|duration)":("[^"]*"|[0-9]+)`).ReplaceAll(logs.Bytes(), []byte(`"$1":0`))
	places := map[string][]byte{"database file": db, "log": log, "journal": journal, "admin views": views}
	for place, content := range places {
		for _, s := range sweepSecrets {
			for _, clear := range s.clear {
				if inClear(content, s.name, clear) {
					t.Errorf("%s in clear in the %s: %q", s.name, place, clear)
				}
			}
		}
	}
	if !bytes.Contains(journal, []byte("426397******5262")) || !bytes.Contains(views, []byte("3530-11**-****-0000")) {
		t.Errorf("masked forms missing: the sweep did not reach the journal or the store\n%s\n%s", journal, views)
	}
}
