package api_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// Both forms of products (the service document's single object and the SDKs' array),
// with quantity as a digit string or an integer, place and price an order.
func TestOrderProductsObjectOrArray(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	orders := "/merchants/" + apitest.MerchantOne + "/orders"
	const product = `{"id":"PRO_TRA_CP-US-CARD-A920_SP","name":"A920","device":{"quantity":%s}}`
	forms := map[string]func(qty string) string{
		"object": func(qty string) string { return strings.Replace(product, "%s", qty, 1) },
		"array":  func(qty string) string { return "[" + strings.Replace(product, "%s", qty, 1) + "]" },
	}
	for name, form := range forms {
		for _, qty := range []string{`"2"`, `2`} {
			placed := env.Do("POST", orders, apitest.APIHeader(tok), `{"products":`+form(qty)+`}`)
			if m := placed.JSON(t); placed.Status != 200 || m["status"] != "INITIATED" {
				t.Errorf("%s, quantity %s, placed: %d %s", name, qty, placed.Status, placed.Body)
				continue
			}
			stored := env.mustOrder(placed.JSON(t)["id"].(string))
			if len(stored.Request.Products) != 1 || stored.Request.Products[0].Quantity != 2 || stored.Request.Products[0].Name != "A920" {
				t.Errorf("%s, quantity %s: stored products %+v", name, qty, stored.Request.Products)
			}
			priced := env.Do("POST", orders, apitest.APIHeader(tok), `{"status":"FOR_REVIEW","products":`+form(qty)+`}`)
			var got struct {
				Status string
				Price  struct {
					Amount string
					Lines  []struct{ Quantity int }
				}
			}
			if err := json.Unmarshal(priced.Body, &got); err != nil || priced.Status != 200 ||
				got.Status != "FOR_REVIEW" || got.Price.Amount != "59800" || len(got.Price.Lines) != 1 || got.Price.Lines[0].Quantity != 2 {
				t.Errorf("%s, quantity %s, priced: %d %s", name, qty, priced.Status, priced.Body)
			}
		}
	}
}

// Errors name a member of products by the same path in both forms.
func TestOrderProductsErrorsNameTheField(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	orders := "/merchants/" + apitest.MerchantOne + "/orders"
	tests := []struct {
		name, body string
		want       apitest.GPError
	}{
		{"object, bad quantity", `{"products":{"device":{"quantity":"two"}}}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "products.device.quantity contains unexpected data")},
		{"array, bad quantity", `{"products":[{"device":{"quantity":"two"}}]}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "products.device.quantity contains unexpected data")},
		{"object, quantity zero", `{"products":{"device":{"quantity":0}}}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "products.device.quantity contains unexpected data")},
		{"object, unknown member", `{"products":{"id":"x","colour":"red","device":{"size":1}}}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: products.colour, products.device.size")},
		{"array, unknown member", `{"products":[{"colour":"red"},{"device":{"size":1}}]}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: products.colour, products.device.size")},
		{"object, id too long", `{"products":{"id":"` + strings.Repeat("P", 51) + `"}}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "products.id contains unexpected data")},
		{"array of strings", `{"products":["PRO_TRA_CP-US-CARD-A920_SP"]}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "products contains unexpected data")},
		{"a number", `{"products":1}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "products contains unexpected data")},
		{"priced object, unknown product", `{"status":"FOR_REVIEW","products":{"id":"PRO_NOPE"}}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "products.id contains unexpected data")},
	}
	for _, tt := range tests {
		if got := env.Do("POST", orders, apitest.APIHeader(tok), tt.body).GPError(t); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// A key the app already consumed (here by an adjustment) is refused on a FOR_REVIEW
// order too, naming the first resource; pricing with a fresh key leaves it free.
func TestForReviewRefusesAConsumedKey(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	orders := "/merchants/" + apitest.MerchantOne + "/orders"
	used := apitest.APIHeader(tok, "X-GP-Idempotency", "used-by-an-adjustment")
	if r := env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", used, `{"gratuity_amount":"5"}`); r.Status != 200 {
		t.Fatalf("adjustment: %d %s", r.Status, r.Body)
	}
	got := env.Do("POST", orders, used, `{"status":"FOR_REVIEW","products":{"id":"PRO_TRA_CP-US-CARD-A920_SP"}}`).GPError(t)
	if want := (apitest.Err(409, "DUPLICATE_ACTION", "40039", "Idempotency Key seen before: id="+apitest.CapturedOne)); got != want {
		t.Errorf("priced with a consumed key: %+v, want %+v", got, want)
	}

	// A key consumed by a placed order names the order and its status.
	placedKey := apitest.APIHeader(tok, "X-GP-Idempotency", "used-by-an-order")
	placed := env.Do("POST", orders, placedKey, `{}`)
	id, _ := placed.JSON(t)["id"].(string)
	got = env.Do("POST", orders, placedKey, `{"status":"FOR_REVIEW"}`).GPError(t)
	if want := (apitest.Err(409, "DUPLICATE_ACTION", "40039", "Idempotency Key seen before: id="+id+", status=INITIATED")); got != want {
		t.Errorf("priced with an order's key: %+v, want %+v", got, want)
	}

	fresh := apitest.APIHeader(tok, "X-GP-Idempotency", "fresh")
	for range 2 {
		if r := env.Do("POST", orders, fresh, `{"status":"FOR_REVIEW"}`); r.Status != 200 {
			t.Errorf("priced with a fresh key: %d %s", r.Status, r.Body)
		}
	}
	if r := env.Do("POST", orders, fresh, `{}`); r.Status != 200 {
		t.Errorf("placed after pricing with the key: %d %s", r.Status, r.Body)
	}
}

// The transaction is looked up before the "at least one field" check: an empty
// change of an unknown transaction is 404, of a known one 40005.
func TestAdjustmentLooksUpBeforeEmptyCheck(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	notFound := func(id string) apitest.GPError {
		return apitest.Err(404, "RESOURCE_NOT_FOUND", "40008", "Transaction "+id+" not found at this location.")
	}
	empty := apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields [amount or tag or gratuityAmount]")
	restricted := env.MustToken(apitest.RestrictedApp, apitest.RestrictedKey, "")
	tests := []struct {
		name, path, body string
		token            string
		want             apitest.GPError
	}{
		{"unknown, {}", "/transactions/TRN_doesnotexist/adjustment", `{}`, tok, notFound("TRN_doesnotexist")},
		{"unknown, []", "/transactions/TRN_doesnotexist/adjustment", `[]`, tok, notFound("TRN_doesnotexist")},
		{"unknown, empty card", "/transactions/TRN_doesnotexist/adjustment", `{"payment_method":{"card":{}}}`, tok, notFound("TRN_doesnotexist")},
		{"another merchant's, {}", "/transactions/" + apitest.OtherMerchant + "/adjustment", `{}`, tok, notFound(apitest.OtherMerchant)},
		{"partner path of another merchant, {}", "/merchants/" + apitest.MerchantTwo + "/transactions/" + apitest.CapturedOne + "/adjustment", `{}`, tok, notFound(apitest.CapturedOne)},
		{"known, {}", "/transactions/" + apitest.CapturedOne + "/adjustment", `{}`, tok, empty},
		{"known, []", "/transactions/" + apitest.CapturedOne + "/adjustment", `[]`, tok, empty},
		{"known and declined, {}", "/transactions/" + apitest.Declined + "/adjustment", `{}`, tok, empty},
		{"permission first", "/transactions/TRN_doesnotexist/adjustment", `{}`, restricted,
			apitest.Err(403, "ACTION_NOT_AUTHORIZED", "40212", "Permission not enabled to execute action")},
		{"body checks first", "/transactions/TRN_doesnotexist/adjustment", `{"amount":"x"}`, tok,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "amount contains unexpected data")},
	}
	for _, tt := range tests {
		if got := env.Do("POST", tt.path, apitest.APIHeader(tt.token), tt.body).GPError(t); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// A member a fixture leaves out is left out of the answer, never sent as "", while
// batch_id is "" until the transaction is batched, as GP sends it.
func TestAbsentFixtureFieldsLeftOut(t *testing.T) {
	env := mustSandboxWith(t, apitest.Options{Fixtures: func(fx *sandbox.Fixtures) {
		for i := range fx.Transactions {
			if fx.Transactions[i].ID == apitest.Preauthorized {
				fx.Transactions[i].Reference = ""
				fx.Transactions[i].PaymentMethod = sandbox.PaymentResult{Result: "00"}
			}
		}
	}})
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	r := env.Do("POST", "/transactions/"+apitest.Preauthorized+"/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"1"}`)
	if r.Status != 200 {
		t.Fatalf("adjust: %d %s", r.Status, r.Body)
	}
	if bytes.Contains(bytes.ReplaceAll(r.Body, []byte(`"batch_id":""`), nil), []byte(`""`)) {
		t.Errorf("an empty string other than batch_id: %s", r.Body)
	}
	m := r.JSON(t)
	for _, absent := range []string{"reference"} {
		if _, ok := m[absent]; ok {
			t.Errorf("%s present: %s", absent, r.Body)
		}
	}
	if pm := m["payment_method"].(map[string]any); len(pm) != 1 || pm["result"] != "00" {
		t.Errorf("payment_method %v, want only result", pm)
	}
	if b, ok := m["batch_id"]; !ok || b != "" {
		t.Errorf(`batch_id %v (present %v), want "" until batched`, b, ok)
	}
}
