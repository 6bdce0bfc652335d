package api_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// An idempotency record written before records stopped repeating their app and key
// (the value holding app_id and key beside the rest) still answers its duplicate after
// a restart: 409 naming the transaction, and for an order its status as it is now.
func TestIdempotencyRecordInTheOldShape(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbox.db")
	first := mustSandboxAt(t, path)
	order := first.MustPlaceOrder(first.PartnerToken(), `{}`)
	first.MustAdmin("POST", "/_sandbox/orders/"+order+"/status", `{"status":"PROCESSING"}`)
	first.DB.Close()

	// The records as the sandbox wrote them then, appended as buntdb appends a set
	// with a TTL; the later set of a key is the one read.
	old := func(key, id, kind string) string {
		name := "idem:" + apitest.PartnerApp + ":" + key
		value := fmt.Sprintf(`{"app_id":%q,"key":%q,"resource_id":%q,"kind":%q,"time":%q}`,
			apitest.PartnerApp, key, id, kind, apitest.StartTime.Format(time.RFC3339Nano))
		return fmt.Sprintf("*5\r\n$3\r\nset\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$2\r\nex\r\n$5\r\n86400\r\n", len(name), name, len(value), value)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(old("old-shape-txn", apitest.CapturedOne, "transaction") + old("old-shape-order", order, "order")); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	second := mustSandboxAt(t, path)
	tok := second.PartnerToken()
	adjust := second.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok, "X-GP-Idempotency", "old-shape-txn"), `{"gratuity_amount":"100"}`)
	if got, want := adjust.GPError(t), (apitest.Err(409, "DUPLICATE_ACTION", "40039", "Idempotency Key seen before: id="+apitest.CapturedOne)); got != want {
		t.Errorf("the transaction's key again: %+v, want %+v", got, want)
	}
	again := second.Do("POST", "/merchants/"+apitest.MerchantOne+"/orders", apitest.APIHeader(tok, "X-GP-Idempotency", "old-shape-order"), `{}`)
	if got, want := again.GPError(t), (apitest.Err(409, "DUPLICATE_ACTION", "40039", "Idempotency Key seen before: id="+order+", status=PROCESSING")); got != want {
		t.Errorf("the order's key again: %+v, want %+v", got, want)
	}
	if txn := second.mustTransaction(apitest.CapturedOne); txn.GratuityAmount != "" {
		t.Errorf("the refused adjustment changed the transaction: gratuity %q", txn.GratuityAmount)
	}
}

// GP looks an idempotency key up before it validates the body: a repeat of a key that
// executed is 409 naming what it made, whatever the body, while a body refused under
// a fresh key is refused for itself and leaves the key free.
func TestUsedKeyRefusedBeforeTheBody(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	path := "/transactions/" + apitest.CapturedOne + "/adjustment"
	with := func(key string) map[string]string { return apitest.APIHeader(tok, "X-GP-Idempotency", key) }
	if r := env.Do("POST", path, with("used-key"), `{"gratuity_amount":"100"}`); r.Status != 200 {
		t.Fatalf("first adjustment: %d %s", r.Status, r.Body)
	}
	bad := `{"gratuity_amount":"1.00"}`
	if got, want := env.Do("POST", path, with("used-key"), bad).GPError(t),
		apitest.Err(409, "DUPLICATE_ACTION", "40039", "Idempotency Key seen before: id="+apitest.CapturedOne); got != want {
		t.Errorf("a bad body under the used key: %+v, want %+v", got, want)
	}
	if got, want := env.Do("POST", path, with("fresh-key"), bad).GPError(t),
		apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "gratuity_amount contains unexpected data"); got != want {
		t.Errorf("a bad body under a fresh key: %+v, want %+v", got, want)
	}
	if r := env.Do("POST", path, with("fresh-key"), `{"gratuity_amount":"200"}`); r.Status != 200 {
		t.Errorf("the fresh key after its refused body: %d %s, want 200", r.Status, r.Body)
	}
	// What is refused before the members are read stays refused for itself, and a read
	// consumes no key: neither becomes the key's 409.
	plain := with("used-key")
	plain["Content-Type"] = "text/plain"
	if got, want := env.Do("POST", path, plain, `{"gratuity_amount":"100"}`).GPError(t),
		apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "Content-Type contains unexpected data"); got != want {
		t.Errorf("a refused Content-Type under the used key: %+v, want %+v", got, want)
	}
	if got, want := env.Do("POST", "/payment-methods/search", with("used-key"), `{"number":"42x"}`).GPError(t),
		apitest.Err(400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: number"); got != want {
		t.Errorf("a search's refused body under the used key: %+v, want %+v", got, want)
	}
}
