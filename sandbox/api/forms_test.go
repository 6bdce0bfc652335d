package api_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// Both forms of products (the service document's single object and the SDKs' array),
// with quantity as a digit string or an integer, place and price an order.
func TestOrderProductsObjectOrArray(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, "")
	orders := "/merchants/" + merchantOne + "/orders"
	const product = `{"id":"PRO_TRA_CP-US-CARD-A920_SP","name":"A920","device":{"quantity":%s}}`
	forms := map[string]func(qty string) string{
		"object": func(qty string) string { return strings.Replace(product, "%s", qty, 1) },
		"array":  func(qty string) string { return "[" + strings.Replace(product, "%s", qty, 1) + "]" },
	}
	for name, form := range forms {
		for _, qty := range []string{`"2"`, `2`} {
			placed := env.do("POST", orders, apiHeader(tok), `{"products":`+form(qty)+`}`)
			if m := placed.json(t); placed.status != 200 || m["status"] != "INITIATED" {
				t.Errorf("%s, quantity %s, placed: %d %s", name, qty, placed.status, placed.body)
				continue
			}
			stored := env.mustOrder(placed.json(t)["id"].(string))
			if len(stored.Request.Products) != 1 || stored.Request.Products[0].Quantity != 2 || stored.Request.Products[0].Name != "A920" {
				t.Errorf("%s, quantity %s: stored products %+v", name, qty, stored.Request.Products)
			}
			priced := env.do("POST", orders, apiHeader(tok), `{"status":"FOR_REVIEW","products":`+form(qty)+`}`)
			var got struct {
				Status string
				Price  struct {
					Amount string
					Lines  []struct{ Quantity int }
				}
			}
			if err := json.Unmarshal(priced.body, &got); err != nil || priced.status != 200 ||
				got.Status != "FOR_REVIEW" || got.Price.Amount != "59800" || len(got.Price.Lines) != 1 || got.Price.Lines[0].Quantity != 2 {
				t.Errorf("%s, quantity %s, priced: %d %s", name, qty, priced.status, priced.body)
			}
		}
	}
}

// Errors name a member of products by the same path in both forms.
func TestOrderProductsErrorsNameTheField(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, "")
	orders := "/merchants/" + merchantOne + "/orders"
	tests := []struct {
		name, body string
		want       gpError
	}{
		{"object, bad quantity", `{"products":{"device":{"quantity":"two"}}}`,
			gpError{400, "INVALID_REQUEST_DATA", "40213", "products.device.quantity contains unexpected data"}},
		{"array, bad quantity", `{"products":[{"device":{"quantity":"two"}}]}`,
			gpError{400, "INVALID_REQUEST_DATA", "40213", "products.device.quantity contains unexpected data"}},
		{"object, quantity zero", `{"products":{"device":{"quantity":0}}}`,
			gpError{400, "INVALID_REQUEST_DATA", "40213", "products.device.quantity contains unexpected data"}},
		{"object, unknown member", `{"products":{"id":"x","colour":"red","device":{"size":1}}}`,
			gpError{400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: products.colour, products.device.size"}},
		{"array, unknown member", `{"products":[{"colour":"red"},{"device":{"size":1}}]}`,
			gpError{400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: products.colour, products.device.size"}},
		{"object, id too long", `{"products":{"id":"` + strings.Repeat("P", 51) + `"}}`,
			gpError{400, "INVALID_REQUEST_DATA", "40213", "products.id contains unexpected data"}},
		{"array of strings", `{"products":["PRO_TRA_CP-US-CARD-A920_SP"]}`,
			gpError{400, "INVALID_REQUEST_DATA", "40213", "products contains unexpected data"}},
		{"a number", `{"products":1}`,
			gpError{400, "INVALID_REQUEST_DATA", "40213", "products contains unexpected data"}},
		{"priced object, unknown product", `{"status":"FOR_REVIEW","products":{"id":"PRO_NOPE"}}`,
			gpError{400, "INVALID_REQUEST_DATA", "40213", "products.id contains unexpected data"}},
	}
	for _, tt := range tests {
		if got := env.do("POST", orders, apiHeader(tok), tt.body).gpError(t); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// A key the app already consumed (here by an adjustment) is refused on a FOR_REVIEW
// order too, naming the first resource; pricing with a fresh key leaves it free.
func TestForReviewRefusesAConsumedKey(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, "")
	orders := "/merchants/" + merchantOne + "/orders"
	used := apiHeader(tok, "X-GP-Idempotency", "used-by-an-adjustment")
	if r := env.do("POST", "/transactions/"+capturedOne+"/adjustment", used, `{"gratuity_amount":"5"}`); r.status != 200 {
		t.Fatalf("adjustment: %d %s", r.status, r.body)
	}
	got := env.do("POST", orders, used, `{"status":"FOR_REVIEW","products":{"id":"PRO_TRA_CP-US-CARD-A920_SP"}}`).gpError(t)
	if want := (gpError{409, "DUPLICATE_ACTION", "40039", "Idempotency Key seen before: id=" + capturedOne}); got != want {
		t.Errorf("priced with a consumed key: %+v, want %+v", got, want)
	}

	// A key consumed by a placed order names the order and its status.
	placedKey := apiHeader(tok, "X-GP-Idempotency", "used-by-an-order")
	placed := env.do("POST", orders, placedKey, `{}`)
	id, _ := placed.json(t)["id"].(string)
	got = env.do("POST", orders, placedKey, `{"status":"FOR_REVIEW"}`).gpError(t)
	if want := (gpError{409, "DUPLICATE_ACTION", "40039", "Idempotency Key seen before: id=" + id + ", status=INITIATED"}); got != want {
		t.Errorf("priced with an order's key: %+v, want %+v", got, want)
	}

	fresh := apiHeader(tok, "X-GP-Idempotency", "fresh")
	for range 2 {
		if r := env.do("POST", orders, fresh, `{"status":"FOR_REVIEW"}`); r.status != 200 {
			t.Errorf("priced with a fresh key: %d %s", r.status, r.body)
		}
	}
	if r := env.do("POST", orders, fresh, `{}`); r.status != 200 {
		t.Errorf("placed after pricing with the key: %d %s", r.status, r.body)
	}
}

// The transaction is looked up before the "at least one field" check: an empty
// change of an unknown transaction is 404, of a known one 40005.
func TestAdjustmentLooksUpBeforeEmptyCheck(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, "")
	notFound := func(id string) gpError {
		return gpError{404, "RESOURCE_NOT_FOUND", "40008", "Transaction " + id + " not found at this location."}
	}
	empty := gpError{400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields [amount or tag or gratuityAmount]"}
	restricted := env.mustToken(restrictedApp, restrictedKey, "")
	tests := []struct {
		name, path, body string
		token            string
		want             gpError
	}{
		{"unknown, {}", "/transactions/TRN_doesnotexist/adjustment", `{}`, tok, notFound("TRN_doesnotexist")},
		{"unknown, []", "/transactions/TRN_doesnotexist/adjustment", `[]`, tok, notFound("TRN_doesnotexist")},
		{"unknown, empty card", "/transactions/TRN_doesnotexist/adjustment", `{"payment_method":{"card":{}}}`, tok, notFound("TRN_doesnotexist")},
		{"another merchant's, {}", "/transactions/" + otherMerchant + "/adjustment", `{}`, tok, notFound(otherMerchant)},
		{"partner path of another merchant, {}", "/merchants/" + merchantTwo + "/transactions/" + capturedOne + "/adjustment", `{}`, tok, notFound(capturedOne)},
		{"known, {}", "/transactions/" + capturedOne + "/adjustment", `{}`, tok, empty},
		{"known, []", "/transactions/" + capturedOne + "/adjustment", `[]`, tok, empty},
		{"known and declined, {}", "/transactions/" + declined + "/adjustment", `{}`, tok, empty},
		{"permission first", "/transactions/TRN_doesnotexist/adjustment", `{}`, restricted,
			gpError{403, "ACTION_NOT_AUTHORIZED", "40212", "Permission not enabled to execute action"}},
		{"body checks first", "/transactions/TRN_doesnotexist/adjustment", `{"amount":"x"}`, tok,
			gpError{400, "INVALID_REQUEST_DATA", "40213", "amount contains unexpected data"}},
	}
	for _, tt := range tests {
		if got := env.do("POST", tt.path, apiHeader(tt.token), tt.body).gpError(t); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// A member a fixture leaves out is left out of the answer, never sent as "", while
// batch_id is "" until the transaction is batched, as GP sends it.
func TestAbsentFixtureFieldsLeftOut(t *testing.T) {
	env := mustSandboxWith(t, envOptions{fixtures: func(fx *sandbox.Fixtures) {
		for i := range fx.Transactions {
			if fx.Transactions[i].ID == preauthorized {
				fx.Transactions[i].Reference = ""
				fx.Transactions[i].PaymentMethod = sandbox.PaymentResult{Result: "00"}
			}
		}
	}})
	tok := env.mustToken(partnerApp, partnerKey, "")
	r := env.do("POST", "/transactions/"+preauthorized+"/adjustment", apiHeader(tok), `{"gratuity_amount":"1"}`)
	if r.status != 200 {
		t.Fatalf("adjust: %d %s", r.status, r.body)
	}
	if bytes.Contains(bytes.ReplaceAll(r.body, []byte(`"batch_id":""`), nil), []byte(`""`)) {
		t.Errorf("an empty string other than batch_id: %s", r.body)
	}
	m := r.json(t)
	for _, absent := range []string{"reference"} {
		if _, ok := m[absent]; ok {
			t.Errorf("%s present: %s", absent, r.body)
		}
	}
	if pm := m["payment_method"].(map[string]any); len(pm) != 1 || pm["result"] != "00" {
		t.Errorf("payment_method %v, want only result", pm)
	}
	if b, ok := m["batch_id"]; !ok || b != "" {
		t.Errorf(`batch_id %v (present %v), want "" until batched`, b, ok)
	}
}
