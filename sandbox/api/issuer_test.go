package api_test

import (
	"testing"
	"testing/fstest"

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
	env := mustSandboxWith(t, envOptions{scenarios: scenarios})
	return env, env.partnerToken()
}

// The issuer's answer a scenario scripts is the stored outcome: the answer, the
// transaction GET shows and the lifecycle agree, as for a test card the issuer declines.
func TestScriptedIssuerResult(t *testing.T) {
	env, tok := mustIssuerSandbox(t)
	tests := []struct {
		name, scenario, body, status, result, actionResult string
		authcode, batched                                  bool
	}{
		{"sale declined", "issuer-51", saleBody("1000", "AUTO", manualCard), "DECLINED", "51", "DECLINED", false, false},
		{"authorization declined", "issuer-51", saleBody("1000", "LATER", manualCard), "DECLINED", "51", "DECLINED", false, false},
		{"track sale declined", "issuer-51", saleBody("1000", "AUTO", trackCard()), "DECLINED", "51", "DECLINED", false, false},
		{"declined test card approved", "issuer-00", saleBody("1000", "AUTO", declinedCard), "CAPTURED", "00", "SUCCESS", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := env.do("POST", "/transactions", apiHeader(tok, "X-Sandbox-Scenario", tt.scenario), tt.body)
			if r.status != 200 {
				t.Fatalf("%d %s", r.status, r.body)
			}
			answer := r.json(t)
			stored := env.do("GET", "/transactions/"+answer["id"].(string), apiHeader(tok), "").json(t)
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
	scripted := apiHeader(tok, "X-Sandbox-Scenario", "issuer-51")
	auth := env.do("POST", "/transactions", scripted, saleBody("1000", "LATER", manualCard)).json(t)["id"].(string)
	want := env.do("POST", "/transactions/"+env.mustTransactionIn(tok, "DECLINED")+"/capture", apiHeader(tok), `{}`).gpError(t)
	if got := env.do("POST", "/transactions/"+auth+"/capture", apiHeader(tok), `{}`).gpError(t); got != want || got.Status != 400 {
		t.Errorf("capture of a scripted decline: %+v, want %+v as for a test card decline", got, want)
	}
	r := env.do("POST", "/verifications", scripted,
		`{"channel":"CP","currency":"USD","payment_method":{"entry_mode":"MANUAL","card":`+manualCard+`}}`)
	if got := r.json(t); r.status != 200 || got["status"] != "NOT_VERIFIED" || field(got, "payment_method", "result") != "51" {
		t.Errorf("scripted verification: %d %s", r.status, r.body)
	}
}

// Checks made before the issuer is asked answer first, whatever is scripted.
func TestScriptedIssuerAfterCardChecks(t *testing.T) {
	env, tok := mustIssuerSandbox(t)
	expired := `{"number":"4263970000005262","expiry_month":"01","expiry_year":"20"}`
	r := env.do("POST", "/transactions", apiHeader(tok, "X-Sandbox-Scenario", "issuer-00"), saleBody("1000", "AUTO", expired))
	if got := r.gpError(t); got.Status != 400 || got.Description != "Expiry date invalid" {
		t.Errorf("expired card with a scripted approval: %+v", got)
	}
}

// A scripted decline consumes its idempotency key like any action: the key's second
// use is the duplicate of the declined transaction, which stays declined.
func TestScriptedIssuerDeclineIsIdempotent(t *testing.T) {
	env, tok := mustIssuerSandbox(t)
	r := env.do("POST", "/transactions", apiHeader(tok, "X-Sandbox-Scenario", "issuer-51", "X-GP-Idempotency", "k-51"),
		saleBody("1000", "AUTO", manualCard))
	declined := r.json(t)
	if r.status != 200 || declined["status"] != "DECLINED" {
		t.Fatalf("scripted decline: %d %s", r.status, r.body)
	}
	id := declined["id"].(string)
	r = env.do("POST", "/transactions", apiHeader(tok, "X-GP-Idempotency", "k-51"), saleBody("1000", "AUTO", manualCard))
	want := gpError{409, "DUPLICATE_ACTION", "40039", "Idempotency Key seen before: id=" + id}
	if got := r.gpError(t); got != want {
		t.Errorf("second use of the key: %+v, want %+v", got, want)
	}
	if got := env.do("GET", "/transactions/"+id, apiHeader(tok), "").json(t); got["status"] != "DECLINED" {
		t.Errorf("stored: %v", got)
	}
}
