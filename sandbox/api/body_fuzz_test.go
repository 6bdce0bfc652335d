package api

import (
	"net/http"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// FuzzRequestBodies feeds arbitrary bytes to the body decoder and the checks of each
// operation: whatever comes in, the answer is either a valid body or a 400 GP error
// naming the problem, never a panic. The seeds run in every `go test`.
func FuzzRequestBodies(f *testing.F) {
	for _, seed := range []string{
		`{"app_id":"a","nonce":"n","secret":"s","grant_type":"client_credentials","permissions":["X"],"seconds_to_expire":600}`,
		`{"amount":"100","gratuity_amount":"20","payment_method":{"card":{"tag":"9F02"}}}`,
		`{"payment_method":{"card":{}}}`,
		`{"products":[{"id":"P","device":{"quantity":"2"}}],"status":"FOR_REVIEW","addresses":[{"functions":["SHIPPING"],"contact_phone":{"country_code":"1"}}]}`,
		`{"notifications":{"status_url":"https://x.example/h"}}`,
		`[]`, `null`, `{"a":1}{}`, "{\"amount\":\"\xff\"}", `{"amount":1e400}`, `{"products":[null]}`,
	} {
		f.Add([]byte(seed))
	}
	ops := []operation{accessToken, adjustment, orders}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, op := range ops {
			obj, err := decodeObject(raw)
			if err == nil {
				err = checkBody(obj, op.body)
			}
			if err == nil {
				if op.op == sandbox.OpOrder {
					orderRequest(obj) // conversion of a checked body must not panic
				}
				continue
			}
			gp, ok := sandbox.AsError(err)
			if !ok || gp.HTTPStatus != http.StatusBadRequest || gp.Code == "" || gp.Detail == "" || gp.Description == "" {
				t.Fatalf("%s: %q gave %v", op.op, raw, err)
			}
		}
	})
}
