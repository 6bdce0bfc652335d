package admin_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

func mustSeedYAML(t *testing.T, env *sandboxEnv, path, body string) apitest.AdminTransaction {
	t.Helper()
	return env.MustSeedAs("PUT", path, map[string]string{"Content-Type": "application/yaml"}, body)
}

var (
	batchIDShape = regexp.MustCompile(`^BAT_[0-9]+$`)
	generatedTRN = regexp.MustCompile(`^TRN_[A-Za-z0-9]{30}$`)
)

// A test gives only what it is about; the rest gets the documented defaults, and the
// transaction works with the API like a fixture's.
func TestSeedTransactionWithDefaults(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	got := env.MustSeed("PUT", "/_sandbox/transactions/TRN_Seeded0001", `{"amount":"1000","status":"CAPTURED"}`)
	if got.ID != "TRN_Seeded0001" || got.MerchantID != apitest.MerchantOne || got.TimeCreated != "2021-03-22T10:00:00.000Z" ||
		got.Type != "SALE" || got.Status != "CAPTURED" || got.Amount != "1000" || got.AuthorizationAmount != "1000" ||
		got.Currency != "USD" || got.Country != "US" || !batchIDShape.MatchString(got.BatchID) || got.BatchClosed ||
		got.PaymentMethod.Result != "00" || !strings.HasPrefix(got.Action.ID, "ACT_") || got.Action.Type != "AUTHORIZE" {
		t.Errorf("defaults: %+v", got)
	}
	second := env.MustSeed("POST", "/_sandbox/transactions", `{"amount":"250"}`)
	if !generatedTRN.MatchString(second.ID) || second.BatchID != got.BatchID || second.Status != "CAPTURED" {
		t.Errorf("a second captured seed joins the open batch with a generated id: %+v (first in %s)", second, got.BatchID)
	}
	pre := env.MustSeed("POST", "/_sandbox/transactions", `{"status":"PREAUTHORIZED"}`)
	if pre.BatchID != "" || pre.Amount != "0" || pre.ID == second.ID {
		t.Errorf("a preauthorization is in no batch: %+v", pre)
	}
	if empty := env.MustSeed("POST", "/_sandbox/transactions", ``); !generatedTRN.MatchString(empty.ID) {
		t.Errorf("empty body: %+v", empty)
	}
	yaml := mustSeedYAML(t, env, "/_sandbox/transactions/TRN_Seeded0002", "amount: \"700\"\nmerchant_id: "+apitest.MerchantOne+"\nreference: my-test\n")
	if yaml.Amount != "700" || yaml.MerchantID != apitest.MerchantOne {
		t.Errorf("YAML body: %+v", yaml)
	}

	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	if r := env.Do("POST", "/transactions/TRN_Seeded0001/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"150"}`); r.Status != 200 {
		t.Errorf("adjusting a seeded transaction: %d %s", r.Status, r.Body)
	}
	if r := env.Do("GET", "/_sandbox/transactions/"+second.ID, nil, ""); r.Status != 200 {
		t.Errorf("reading a generated id: %d %s", r.Status, r.Body)
	}
}

// Bad input answers a GP error naming the field, and stores nothing.
func TestSeedTransactionRefusesBadInput(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tests := []struct {
		method, path, body string
		detail, names      string
	}{
		{"PUT", "/_sandbox/transactions/TRN_Bad0001", `{"amount":"ten"}`, "40213", "body:1:11: amount"},
		{"PUT", "/_sandbox/transactions/TRN_Bad0001", `{"status":"NOPE"}`, "40213", "body:1:11: status"},
		{"PUT", "/_sandbox/transactions/TRN_Bad0001", `{"amonut":"1"}`, "40213", `unknown key "amonut"`},
		{"PUT", "/_sandbox/transactions/TRN_Bad0001", `{"time_created":"yesterday"}`, "40213", "time_created"},
		{"PUT", "/_sandbox/transactions/TRN_Bad0001", `{"merchant_id":"MER_unknown"}`, "40213", "merchant_id: unknown merchant MER_unknown"},
		{"PUT", "/_sandbox/transactions/TRN_Bad0001", `{"id":"TRN_Other"}`, "40213", "id: TRN_Other is not the id of the path"},
		{"PUT", "/_sandbox/transactions/TRN_Bad0001", `{"currency":"JPY"}`, "40005", "country"},
		{"PUT", "/_sandbox/transactions/TRN_Bad0001", `{"payment_method":{"bnpl":{}}}`, "40213", "provider"},
		{"PUT", "/_sandbox/transactions/TRN_Bad0001", `[1]`, "40213", "body:1:1"},
		{"POST", "/_sandbox/transactions", `{"id":"TRN_Mine"}`, "40213", "id: the sandbox generates it"},
		// Bound to a scenario no one loaded, as a fixture's binding is refused at start.
		{"PUT", "/_sandbox/transactions/TRN_Bad0001", `{"scenarios":["nope"]}`, "40213", `scenarios: unknown scenario "nope"`},
		{"POST", "/_sandbox/transactions", `{"scenarios":["nope"]}`, "40213", `scenarios: unknown scenario "nope"`},
		// An id a list could not place nor a path name: not UTF-8, or too long.
		{"PUT", "/_sandbox/transactions/TRN_%FFx", `{}`, "40213", "id: must contain only letters, digits"},
		{"PUT", "/_sandbox/transactions/TRN_a%20b", `{}`, "40213", "id: must contain only letters, digits"},
		{"PUT", "/_sandbox/transactions/TRN_" + strings.Repeat("x", 47), `{}`, "40213", "id: must be 1 to 50 characters long, got 51"},
		// Closed in a batch the sandbox keeps open: refused every change, yet counted by the close.
		{"PUT", "/_sandbox/transactions/TRN_Bad0001", `{"batch_id":"BAT_1136475","batch_closed":true}`, "40213", "batch_closed: true, but batch BAT_1136475 is open"},
	}
	for _, tt := range tests {
		t.Run(tt.path+" "+tt.body, func(t *testing.T) {
			e := env.Do(tt.method, tt.path, apitest.JSONHeader(), tt.body).GPError(t)
			if e.Status != 400 || e.Detail != tt.detail || !strings.Contains(e.Description, tt.names) {
				t.Errorf("got %+v, want 400 %s naming %q", e, tt.detail, tt.names)
			}
		})
	}
	if r := env.Do("GET", "/_sandbox/transactions/TRN_Bad0001", nil, ""); r.Status != 404 {
		t.Errorf("a refused seed was stored: %d %s", r.Status, r.Body)
	}
}
