package api_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// The success bodies, byte for byte, with a fixed clock and seeded ids.
func TestSuccessBodiesGolden(t *testing.T) {
	env := mustSandbox(t)
	r := env.Do("POST", "/accesstoken", apitest.JSONHeader(), apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, ""))
	if r.Status != 200 {
		t.Fatalf("token: %d %s", r.Status, r.Body)
	}
	testrun.MustMatchGolden(t, "accesstoken.json", r.Body)
	tok := r.JSON(t)["token"].(string)

	r = env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok), `{"amount":"1100","gratuity_amount":"200"}`)
	if r.Status != 200 {
		t.Fatalf("adjust: %d %s", r.Status, r.Body)
	}
	testrun.MustMatchGolden(t, "adjustment.json", r.Body)

	r = env.Do("POST", "/merchants/"+apitest.MerchantOne+"/orders", apitest.APIHeader(tok),
		`{"status":"FOR_REVIEW","products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":2}}]}`)
	if r.Status != 200 {
		t.Fatalf("order for review: %d %s", r.Status, r.Body)
	}
	testrun.MustMatchGolden(t, "order_for_review.json", r.Body)

	r = env.Do("POST", "/merchants/"+apitest.MerchantOne+"/orders", apitest.APIHeader(tok),
		`{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":1}}],"notifications":{"status_url":"https://partner.example/hooks"}}`)
	if r.Status != 200 {
		t.Fatalf("order: %d %s", r.Status, r.Body)
	}
	testrun.MustMatchGolden(t, "order.json", r.Body)
}

func TestAccessTokenScope(t *testing.T) {
	env := mustSandbox(t)
	r := env.Do("POST", "/accesstoken", apitest.JSONHeader(), apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, `"permissions":["MMA_POST_Order"],"seconds_to_expire":7200,"interval_to_expire":"1_HOUR"`))
	var got struct {
		Token string
		Scope struct {
			Accounts []sandbox.Account
		}
		SecondsToExpire json.Number `json:"seconds_to_expire"`
		TimeCreated     string      `json:"time_created"`
	}
	if err := json.Unmarshal(r.Body, &got); err != nil || r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if len(got.Token) != 28 {
		t.Errorf("token %q: want 28 characters", got.Token)
	}
	if got.SecondsToExpire != "3600" {
		t.Errorf("seconds_to_expire %s: the shorter of 7200 and 1_HOUR is 3600", got.SecondsToExpire)
	}
	if len(got.Scope.Accounts) != 1 || got.Scope.Accounts[0].Name != "merchant_management" ||
		fmt.Sprint(got.Scope.Accounts[0].Permissions) != "[MMA_POST_Order]" {
		t.Errorf("scope.accounts %+v: want only the MMA account with MMA_POST_Order", got.Scope.Accounts)
	}
	if got.TimeCreated != "2021-03-22T10:00:00.000Z" {
		t.Errorf("time_created %q", got.TimeCreated)
	}
}

// Adjustment stores amount and gratuity, keeps the status, and records a new action.
func TestAdjustmentKeepsStatusAndRecordsHistory(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	var actions []string
	for i, body := range []string{`{"gratuity_amount":"150"}`, `{"amount":"000","payment_method":{"card":{"tag":"9F0206000000001000"}}}`} {
		env.Clock.Advance(time.Second)
		r := env.Do("POST", "/ucp/transactions/"+apitest.Preauthorized+"/adjustment", apitest.APIHeader(tok), body)
		m := r.JSON(t)
		if r.Status != 200 || m["status"] != "PREAUTHORIZED" {
			t.Fatalf("adjust %d: %d %s", i, r.Status, r.Body)
		}
		actions = append(actions, m["action"].(map[string]any)["id"].(string))
	}
	if actions[0] == actions[1] || len(actions[0]) != 34 {
		t.Errorf("actions %v: want two distinct ACT_ ids of 34 characters", actions)
	}
	txn := env.mustTransaction(apitest.Preauthorized)
	if txn.Amount != "0" || txn.GratuityAmount != "150" || txn.EMVTag != "9F0206000000001000" || txn.Status != "PREAUTHORIZED" {
		t.Errorf("stored %+v", txn)
	}
	history := env.mustAdjustments(apitest.Preauthorized)
	if len(history) != 2 || history[0].Changes["gratuity_amount"].To != "150" ||
		history[1].Changes["amount"] != (sandbox.Change{From: "2500", To: "0"}) || history[1].ActionID != actions[1] {
		t.Errorf("history %+v", history)
	}
}

func TestPartnerPathIsScopedToItsMerchant(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	r := env.Do("POST", "/merchants/"+apitest.MerchantOne+"/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"5"}`)
	if r.Status != 200 {
		t.Fatalf("own merchant: %d %s", r.Status, r.Body)
	}
	got := env.Do("POST", "/merchants/"+apitest.MerchantTwo+"/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"5"}`).GPError(t)
	if got.Status != 404 || got.Detail != "40008" {
		t.Errorf("other merchant's path: %+v", got)
	}
}

func TestOrderStoredInitiatedAndReviewNotStored(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	body := `{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":"3"}}],
		"payment_method":{"name":"Jane","card":{"number":"4263970000005262","cvv":"123","expiry_month":"12","expiry_year":"2030"}}}`
	r := env.Do("POST", "/merchants/"+apitest.MerchantOne+"/orders", apitest.APIHeader(tok), body)
	m := r.JSON(t)
	if r.Status != 200 || m["status"] != "INITIATED" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	o := env.mustOrder(m["id"].(string))
	if o.Request.PaymentMethod.MaskedNumber != "426397******5262" || o.Request.Products[0].Quantity != 3 {
		t.Errorf("stored order %+v", o.Request)
	}
	raw, _ := json.Marshal(o)
	if strings.Contains(string(raw), "4263970000005262") || strings.Contains(string(raw), `"123"`) {
		t.Errorf("card number or CVV stored in clear: %s", raw)
	}

	r = env.Do("POST", "/merchants/"+apitest.MerchantOne+"/orders", apitest.APIHeader(tok), `{"status":"FOR_REVIEW","products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":2}}]}`)
	m = r.JSON(t)
	if r.Status != 200 || m["status"] != "FOR_REVIEW" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	price := m["price"].(map[string]any)
	if price["amount"] != "59800" || price["currency"] != "USD" {
		t.Errorf("price %v: want 2 x 29900 USD", price)
	}
	if err := env.findOrder(m["id"].(string)); err != sandbox.ErrNotFound {
		t.Errorf("FOR_REVIEW order was stored (err %v)", err)
	}
}

// The idempotency key belongs to the app, spans endpoints, and is consumed only by a
// request that executed.
func TestIdempotencyConflictMode(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	adjust := "/transactions/" + apitest.CapturedOne + "/adjustment"
	key := func(k string) map[string]string { return apitest.APIHeader(tok, "X-GP-Idempotency", k) }

	// Rejected before execution: the key stays free.
	if r := env.Do("POST", adjust, key("k1"), `{"amount":"abc"}`); r.Status != 400 {
		t.Fatalf("invalid body: %d", r.Status)
	}
	if r := env.Do("POST", "/transactions/TRN_missing/adjustment", key("k1"), `{"amount":"1"}`); r.Status != 404 {
		t.Fatalf("unknown transaction: %d", r.Status)
	}
	if r := env.Do("POST", adjust, map[string]string{"Authorization": "Bearer stale", "X-GP-Version": apitest.Version, "X-GP-Idempotency": "k1"}, `{"amount":"1"}`); r.Status != 401 {
		t.Fatalf("bad token: %d", r.Status)
	}
	first := env.Do("POST", adjust, key("k1"), `{"amount":"1500"}`)
	if first.Status != 200 {
		t.Fatalf("first use: %d %s", first.Status, first.Body)
	}
	want := apitest.Err(409, "DUPLICATE_ACTION", "40039", "Idempotency Key seen before: id="+apitest.CapturedOne)
	for _, body := range []string{`{"amount":"1500"}`, `{"amount":"1600"}`} {
		if got := env.Do("POST", adjust, key("k1"), body).GPError(t); got != want {
			t.Errorf("repeat with %s: %+v", body, got)
		}
	}
	// Across endpoints.
	if got := env.Do("POST", "/merchants/"+apitest.MerchantOne+"/orders", key("k1"), `{}`).GPError(t); got != want {
		t.Errorf("same key on orders: %+v", got)
	}
	// Orders name their status.
	o := env.Do("POST", "/merchants/"+apitest.MerchantOne+"/orders", key("k2"), `{}`).JSON(t)
	wantOrder := apitest.Err(409, "DUPLICATE_ACTION", "40039", "Idempotency Key seen before: id="+o["id"].(string)+", status=INITIATED")
	if got := env.Do("POST", "/merchants/"+apitest.MerchantOne+"/orders", key("k2"), `{}`).GPError(t); got != wantOrder {
		t.Errorf("order repeat: %+v", got)
	}
	// Another app may use the same key.
	other := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	if other == tok {
		t.Fatal("tokens repeat")
	}
	// After 24 hours the key is free again.
	env.Clock.Advance(24 * time.Hour)
	tok = env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	if r := env.Do("POST", adjust, apitest.APIHeader(tok, "X-GP-Idempotency", "k1"), `{"amount":"1700"}`); r.Status != 200 {
		t.Errorf("key after 24h: %d %s", r.Status, r.Body)
	}
}

// 50 requests with one key at the same moment: exactly one executes.
func TestIdempotencyConcurrent(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	var wg sync.WaitGroup
	statuses := make(chan int, 50)
	start := make(chan struct{})
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			r := env.Do("POST", "/transactions/"+apitest.CapturedTwo+"/adjustment", apitest.APIHeader(tok, "X-GP-Idempotency", "same-key"), fmt.Sprintf(`{"gratuity_amount":"%d"}`, i+1))
			statuses <- r.Status
		}(i)
	}
	close(start)
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[200] != 1 || count[409] != 49 {
		t.Errorf("statuses %v: want one 200 and 49 409", count)
	}
	if n := len(env.mustAdjustments(apitest.CapturedTwo)); n != 1 {
		t.Errorf("%d adjustments stored, want 1", n)
	}
}

func (env *sandboxEnv) mustTransaction(id string) sandbox.Transaction {
	env.T.Helper()
	var txn sandbox.Transaction
	if err := env.DB.View(func(tx sandbox.Tx) error {
		var err error
		txn, err = tx.Transaction(id)
		return err
	}); err != nil {
		env.T.Fatalf("transaction %s: %v", id, err)
	}
	return txn
}

func (env *sandboxEnv) mustAdjustments(id string) []sandbox.Adjustment {
	env.T.Helper()
	var history []sandbox.Adjustment
	if err := env.DB.View(func(tx sandbox.Tx) error {
		var err error
		history, err = tx.Adjustments(id)
		return err
	}); err != nil {
		env.T.Fatalf("adjustments of %s: %v", id, err)
	}
	return history
}

func (env *sandboxEnv) findOrder(id string) error {
	return env.DB.View(func(tx sandbox.Tx) error {
		_, err := tx.Order(id)
		return err
	})
}

func (env *sandboxEnv) mustOrder(id string) sandbox.Order {
	env.T.Helper()
	var o sandbox.Order
	if err := env.DB.View(func(tx sandbox.Tx) error {
		var err error
		o, err = tx.Order(id)
		return err
	}); err != nil {
		env.T.Fatalf("order %s: %v", id, err)
	}
	return o
}

// A transaction remembers its newest 100 adjustments, numbered from its first.
func TestAdjustmentHistoryKeepsTheNewestHundred(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	for i := 1; i <= 105; i++ {
		if r := env.Do("POST", "/transactions/"+apitest.CapturedTwo+"/adjustment", apitest.APIHeader(tok), fmt.Sprintf(`{"gratuity_amount":"%d"}`, i)); r.Status != 200 {
			t.Fatalf("adjustment %d: %d %s", i, r.Status, r.Body)
		}
	}
	history := env.mustAdjustments(apitest.CapturedTwo)
	if len(history) != 100 || history[0].Seq != 6 || history[99].Seq != 105 ||
		history[0].Changes["gratuity_amount"] != (sandbox.Change{From: "5", To: "6"}) {
		t.Fatalf("history of %d entries, first %+v, last %+v", len(history), history[0], history[len(history)-1])
	}
	if txn := env.mustTransaction(apitest.CapturedTwo); txn.GratuityAmount != "105" || txn.AdjustmentCount != 105 {
		t.Errorf("transaction after 105 adjustments: %+v", txn)
	}
}

// A price quote executes no action, so its idempotency key stays free (A12); a
// restricted token is issued like any other.
func TestForReviewLeavesTheKeyFree(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, `"restricted_token":"YES","interval_to_expire":"10_MINUTES"`)
	orders := "/merchants/" + apitest.MerchantOne + "/orders"
	h := apitest.APIHeader(tok, "X-GP-Idempotency", "quote-then-order")
	if r := env.Do("POST", orders, h, `{"status":"FOR_REVIEW"}`); r.Status != 200 {
		t.Fatalf("quote: %d %s", r.Status, r.Body)
	}
	placed := env.Do("POST", orders, h, `{}`)
	if placed.Status != 200 || placed.JSON(t)["status"] != "INITIATED" {
		t.Fatalf("order with the quote's key: %d %s", placed.Status, placed.Body)
	}
	if got := env.Do("POST", orders, h, `{}`).GPError(t); got.Status != 409 || got.Detail != "40039" {
		t.Errorf("the placed order's key: %+v", got)
	}
}
