package api_test

import (
	"testing"
	"testing/fstest"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
	"github.com/gp-sandbox/gp-sandbox/sandbox/yamlfile"
)

// issuerScenarios script the issuer's answer to card payments and verifications.
const issuerScenarios = `version: 1
name: issuer-51
rules:
  - when: {operation: [transaction, verification]}
    then: {issuer: {result: "51"}}
---
version: 1
name: issuer-00
rules:
  - when: {operation: transaction}
    then: {issuer: {result: "00"}}
`

func mustIssuerSandbox(t *testing.T) (*sandboxEnv, string) {
	t.Helper()
	scenarios, err := yamlfile.LoadScenarios(fstest.MapFS{"issuer.yaml": {Data: []byte(issuerScenarios)}})
	if err != nil {
		t.Fatal(err)
	}
	env := mustSandboxWith(t, apitest.Options{Scenarios: scenarios})
	return env, env.PartnerToken()
}

// The issuer's answer a scenario scripts is the stored outcome: the answer, the
// transaction GET shows and the lifecycle agree, as for a test card the issuer declines.
func TestScriptedIssuerResult(t *testing.T) {
	env, tok := mustIssuerSandbox(t)
	tests := []struct {
		name, scenario, body, status, result, actionResult string
		authcode, batched                                  bool
	}{
		{"sale declined", "issuer-51", apitest.SaleBody("1000", "AUTO", apitest.ManualCard), "DECLINED", "51", "DECLINED", false, false},
		{"authorization declined", "issuer-51", apitest.SaleBody("1000", "LATER", apitest.ManualCard), "DECLINED", "51", "DECLINED", false, false},
		{"track sale declined", "issuer-51", apitest.SaleBody("1000", "AUTO", apitest.TrackCard()), "DECLINED", "51", "DECLINED", false, false},
		{"declined test card approved", "issuer-00", apitest.SaleBody("1000", "AUTO", apitest.DeclinedCard), "CAPTURED", "00", "SUCCESS", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := env.Do("POST", "/transactions", apitest.APIHeader(tok, "X-Sandbox-Scenario", tt.scenario), tt.body)
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
			answer := r.JSON(t)
			stored := env.Do("GET", "/transactions/"+answer["id"].(string), apitest.APIHeader(tok), "").JSON(t)
			for name, got := range map[string]map[string]any{"answer": answer, "stored": stored} {
				authcode, _ := field(got, "payment_method", "card", "authcode").(string)
				batch, _ := got["batch_id"].(string)
				if got["status"] != tt.status || field(got, "payment_method", "result") != tt.result ||
					field(got, "action", "result_code") != tt.actionResult ||
					(authcode != "") != tt.authcode || (batch != "") != tt.batched {
					t.Errorf("%s: %v", name, got)
				}
			}
		})
	}
}

// A scripted decline is a decline: the authorization cannot be captured, and a
// verification does not verify.
func TestScriptedIssuerDeclineLifecycle(t *testing.T) {
	env, tok := mustIssuerSandbox(t)
	scripted := apitest.APIHeader(tok, "X-Sandbox-Scenario", "issuer-51")
	auth := env.Do("POST", "/transactions", scripted, apitest.SaleBody("1000", "LATER", apitest.ManualCard)).JSON(t)["id"].(string)
	want := env.Do("POST", "/transactions/"+env.MustTransactionIn(tok, "DECLINED")+"/capture", apitest.APIHeader(tok), `{}`).GPError(t)
	if got := env.Do("POST", "/transactions/"+auth+"/capture", apitest.APIHeader(tok), `{}`).GPError(t); got != want || got.Status != 400 {
		t.Errorf("capture of a scripted decline: %+v, want %+v as for a test card decline", got, want)
	}
	r := env.Do("POST", "/verifications", scripted,
		`{"channel":"CP","currency":"USD","payment_method":{"entry_mode":"MANUAL","card":`+apitest.ManualCard+`}}`)
	if got := r.JSON(t); r.Status != 200 || got["status"] != "NOT_VERIFIED" || field(got, "payment_method", "result") != "51" {
		t.Errorf("scripted verification: %d %s", r.Status, r.Body)
	}
}

// Checks made before the issuer is asked answer first, whatever is scripted.
func TestScriptedIssuerAfterCardChecks(t *testing.T) {
	env, tok := mustIssuerSandbox(t)
	expired := `{"number":"4263970000005262","expiry_month":"01","expiry_year":"20"}`
	r := env.Do("POST", "/transactions", apitest.APIHeader(tok, "X-Sandbox-Scenario", "issuer-00"), apitest.SaleBody("1000", "AUTO", expired))
	if got := r.GPError(t); got.Status != 400 || got.Description != "Expiry date invalid" {
		t.Errorf("expired card with a scripted approval: %+v", got)
	}
}

// A scripted decline consumes its idempotency key like any action: the key's second
// use is the duplicate of the declined transaction, which stays declined.
func TestScriptedIssuerDeclineIsIdempotent(t *testing.T) {
	env, tok := mustIssuerSandbox(t)
	r := env.Do("POST", "/transactions", apitest.APIHeader(tok, "X-Sandbox-Scenario", "issuer-51", "X-GP-Idempotency", "k-51"),
		apitest.SaleBody("1000", "AUTO", apitest.ManualCard))
	declined := r.JSON(t)
	if r.Status != 200 || declined["status"] != "DECLINED" {
		t.Fatalf("scripted decline: %d %s", r.Status, r.Body)
	}
	id := declined["id"].(string)
	r = env.Do("POST", "/transactions", apitest.APIHeader(tok, "X-GP-Idempotency", "k-51"), apitest.SaleBody("1000", "AUTO", apitest.ManualCard))
	want := apitest.Err(409, "DUPLICATE_ACTION", "40039", "Idempotency Key seen before: id="+id)
	if got := r.GPError(t); got != want {
		t.Errorf("second use of the key: %+v, want %+v", got, want)
	}
	if got := env.Do("GET", "/transactions/"+id, apitest.APIHeader(tok), "").JSON(t); got["status"] != "DECLINED" {
		t.Errorf("stored: %v", got)
	}
}
