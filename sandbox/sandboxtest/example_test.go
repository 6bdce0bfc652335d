package sandboxtest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing/fstest"

	"github.com/gp-sandbox/gp-sandbox/sandbox/sandboxtest"
)

// A partner's test adds a tip to a captured sale through the API, as its GP client
// would, retries it with the same idempotency key, then checks what the sandbox
// stored (the gratuity, which the API does not echo, and the adjustment history) and
// what the journal saw.
func Example() {
	// In a test: srv := sandboxtest.NewServer(t), closed when the test ends. An
	// Example has no t, so it closes the server itself.
	srv := sandboxtest.NewServer(nil)
	defer srv.Close()

	token := srv.Token()
	for range 2 {
		req, _ := http.NewRequest("POST", srv.URL+"/ucp/transactions/"+sandboxtest.CapturedSale+"/adjustment",
			strings.NewReader(`{"gratuity_amount":"200"}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("X-GP-Version", sandboxtest.Version)
		req.Header.Set("X-GP-Idempotency", "tip-0001")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		var answer struct{ Status, Amount string } // empty for the 409's error body
		json.NewDecoder(resp.Body).Decode(&answer)
		resp.Body.Close()
		fmt.Println(strings.TrimSpace(fmt.Sprint(resp.StatusCode, " ", answer.Status, " ", answer.Amount)))
	}

	stored := srv.Transaction(sandboxtest.CapturedSale)
	fmt.Println("gratuity:", stored.GratuityAmount)
	for _, a := range srv.Adjustments(sandboxtest.CapturedSale) {
		c := a.Changes["gratuity_amount"]
		fmt.Printf("adjusted by %s: gratuity_amount %q -> %q\n", a.AppID, c.From, c.To)
	}
	for _, r := range srv.Requests("operation=adjustment") { // newest first
		fmt.Println("journal:", r.Status, r.ErrorCode, r.Headers["Authorization"])
	}
	// Output:
	// 200 CAPTURED 1000
	// 409
	// gratuity: 200
	// adjusted by SandboxPartnerAppId0000000000001: gratuity_amount "" -> "200"
	// journal: 409 DUPLICATE_ACTION [REDACTED]
	// journal: 200  [REDACTED]
}

// A test of a client's retry logic: with the built-in flaky-then-ok scenario active,
// the first two calls of a session answer 502 and the third passes.
func ExampleWithGlobalScenarios() {
	srv := sandboxtest.NewServer(nil, sandboxtest.WithGlobalScenarios("flaky-then-ok"))
	defer srv.Close()

	token := srv.Token()
	for range 3 {
		req, _ := http.NewRequest("POST", srv.URL+"/ucp/transactions/"+sandboxtest.CapturedSale+"/adjustment",
			strings.NewReader(`{"gratuity_amount":"200"}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("X-GP-Version", sandboxtest.Version)
		req.Header.Set("X-Sandbox-Session", "retry-test")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode, resp.Header.Get("X-Sandbox-Rule"))
	}
	// Output:
	// 502 flaky-then-ok#0
	// 502 flaky-then-ok#0
	// 200 flaky-then-ok#0
}

// A sandbox with the test's own fixtures instead of the embedded defaults.
func ExampleWithFixtures() {
	files := fstest.MapFS{"shop.yaml": {Data: []byte(`
apps:
  - id: ShopApp
    key: ShopKey
    name: shop
    merchant_id: MER_Shop
    merchants: [MER_Shop]
    accounts:
      - {id: TRA_Shop, name: transaction_processing, permissions: [TRN_POST_Adjust]}
    live: {adjustment_allowed: true}
merchants:
  - {id: MER_Shop, name: The Shop}
transactions:
  - id: TRN_Shop1
    merchant_id: MER_Shop
    time_created: 2021-03-24T02:02:27.158Z
    type: SALE
    status: CAPTURED
    amount: "4200"
    currency: EUR
    country: IE
`)}}
	srv := sandboxtest.NewServer(nil, sandboxtest.WithFixtures(files))
	defer srv.Close()

	token := srv.Token("ShopApp", "ShopKey")
	fmt.Println(len(token), srv.Transaction("TRN_Shop1").Amount)
	// Output:
	// 28 4200
}

// A partner's test of its till: a sale in one call, a tip through the API, then the
// batch closed at the end of the day; a tip after the close is refused as GP refuses it.
func ExampleServer_Charge() {
	srv := sandboxtest.NewServer(nil)
	defer srv.Close()
	token := srv.Token()
	post := func(path, body string) (int, map[string]any) {
		req, _ := http.NewRequest("POST", srv.URL+"/ucp"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("X-GP-Version", sandboxtest.Version)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		var answer map[string]any
		json.NewDecoder(resp.Body).Decode(&answer)
		return resp.StatusCode, answer
	}

	sale := srv.Charge("1000")
	fmt.Println(sale.Status, sale.Amount, sale.Card.Brand, sale.PaymentMethod.Card.MaskedNumberLast4)
	code, _ := post("/transactions/"+sale.ID+"/adjustment", `{"gratuity_amount":"150"}`)
	fmt.Println("tip:", code)
	code, closed := post("/batches/"+sale.BatchID, "")
	fmt.Println("close:", code, closed["transaction_count"], closed["amount"])
	code, refused := post("/transactions/"+sale.ID+"/adjustment", `{"gratuity_amount":"200"}`)
	fmt.Println("tip after the close:", code, refused["detailed_error_description"])
	fmt.Println(srv.Authorize("2500").Status)
	// Output:
	// CAPTURED 1000 VISA XXXXXXXXXXXX0016
	// tip: 200
	// close: 200 1 1150
	// tip after the close: 400 Cannot PROCESS Adjustment over a transaction that is in a closed batch.
	// PREAUTHORIZED
}

// A terminal ordered for a merchant arrives and takes a sale: the order is delivered,
// its terminal bound to the merchant's account (which had one already, so the new one
// came as a spare) and set to wait for the card, and the card is presented on it.
func ExampleServer_DeliverOrder() {
	srv := sandboxtest.NewServer(nil)
	defer srv.Close()
	token := srv.Token()
	post := func(path, body string) map[string]any {
		req, _ := http.NewRequest("POST", srv.URL+"/ucp"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("X-GP-Version", sandboxtest.Version)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		var answer map[string]any
		json.NewDecoder(resp.Body).Decode(&answer)
		return answer
	}

	order := post("/merchants/"+sandboxtest.MerchantOne+"/orders",
		`{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":1}}]}`)
	terminal := srv.DeliverOrder(order["id"].(string))[0]
	fmt.Println(order["status"], "->", srv.Order(terminal.OrderID).Status, "spare:", terminal.AccountID == "")
	srv.Admin("POST", "/_sandbox/devices/"+terminal.ID, map[string]string{
		"account_id": "TRA_00000000000000000000000000000001", "mode": "INITIATED"}, nil)

	sale := post("/devices", `{"channel":"CP","request":{"message":"MSG","data":{"command":"Sale","requestId":"1",`+
		`"data":{"transaction":{"baseAmount":"12.50"}}}}}`)
	fmt.Println("sale:", sale["status"])
	done := srv.PresentCard(sale["id"].(string), "visa_contactless")
	txn := srv.Transaction(done.Response.TransactionID)
	fmt.Println("card presented:", done.Status, txn.Status, txn.Amount, txn.PaymentMethod.EntryMode)
	// Output:
	// INITIATED -> DELIVERED spare: true
	// sale: INITIATED
	// card presented: COMPLETE CAPTURED 1250 CONTACTLESS_CHIP
}
