package api_test

import (
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
	"github.com/gp-sandbox/gp-sandbox/sandbox/yamlfile"
)

// The state machine: every operation from every state, through HTTP.
func TestTransactionStateTable(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	notIn := func(op, statuses string) string {
		return "400 INVALID_ACTION 40290 Cannot PROCESS " + op + " over a transaction that does not have a status of " + statuses + "."
	}
	var (
		capture     = notIn("Capture", "PREAUTHORIZED")
		refund      = notIn("Refund", "CAPTURED")
		reversal    = notIn("Reversal", "CAPTURED or PREAUTHORIZED")
		incremental = notIn("Incremental Authorization", "PREAUTHORIZED")
		adjustment  = notIn("Adjustment", "CAPTURED or PREAUTHORIZED")
		reauth      = "400 INVALID_REQUEST_DATA 40044 36, Invalid original transaction for reauthorization-"
		closed      = func(op string) string {
			return "400 INVALID_ACTION 40290 Cannot PROCESS " + op + " over a transaction that is in a closed batch."
		}
	)
	// Each cell: the status the answer shows, or the refusal (a prefix of the tuple).
	table := map[string]map[string]string{
		"CAPTURED":      {"capture": capture, "refund": "CAPTURED", "reversal": "REVERSED", "reauthorization": reauth, "incremental": incremental, "adjustment": "CAPTURED"},
		"PREAUTHORIZED": {"capture": "CAPTURED", "refund": refund, "reversal": "REVERSED", "reauthorization": reauth, "incremental": "PREAUTHORIZED", "adjustment": "PREAUTHORIZED"},
		"DECLINED":      {"capture": capture, "refund": refund, "reversal": reversal, "reauthorization": reauth, "incremental": incremental, "adjustment": adjustment},
		"REVERSED":      {"capture": capture, "refund": refund, "reversal": reversal, "reauthorization": "CAPTURED", "incremental": incremental, "adjustment": adjustment},
		"VERIFIED":      {"capture": capture, "refund": refund, "reversal": reversal, "reauthorization": reauth, "incremental": incremental, "adjustment": adjustment},
		"REFUND":        {"capture": capture, "refund": refund, "reversal": "REVERSED", "reauthorization": "400 INVALID_REQUEST_DATA 40213 type contains unexpected data", "incremental": incremental, "adjustment": "CAPTURED"},
		"CLOSED_BATCH":  {"capture": capture, "refund": "CAPTURED", "reversal": closed("Reversal"), "reauthorization": reauth, "incremental": incremental, "adjustment": closed("Adjustment")},
	}
	bodies := map[string]string{"incremental": `{"amount":"100"}`, "adjustment": `{"gratuity_amount":"100"}`}
	for state, row := range table {
		for op, want := range row {
			t.Run(state+"/"+op, func(t *testing.T) {
				id := env.MustTransactionIn(tok, state)
				body := bodies[op]
				if body == "" {
					body = `{}`
				}
				r := env.Do("POST", "/transactions/"+id+"/"+op, apitest.APIHeader(tok), body)
				if r.Status == 200 {
					if got := r.JSON(t)["status"]; got != want {
						t.Errorf("200 with status %v, want %s", got, want)
					}
					return
				}
				e := r.GPError(t)
				got := strings.Join([]string{itoa(e.Status), e.Code, e.Detail, e.Description}, " ")
				if !strings.HasPrefix(got, want) {
					t.Errorf("got  %s\nwant %s", got, want)
				}
			})
		}
	}
}

func TestLifecycleAmounts(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	auth := func(amount string) string {
		return env.MustCharge(tok, apitest.SaleBody(amount, "LATER", apitest.ManualCard))["id"].(string)
	}
	sale := func(amount string) string {
		return env.MustCharge(tok, apitest.SaleBody(amount, "AUTO", apitest.ManualCard))["id"].(string)
	}
	cnpSale := func(amount string) string {
		return env.MustCharge(tok, cnpSaleBody(amount))["id"].(string)
	}
	reversed := func(amount string) string {
		id := sale(amount)
		env.MustPost(tok, "/transactions/"+id+"/reversal", `{}`)
		return id
	}
	partial := sale("5000")
	env.MustPost(tok, "/transactions/"+partial+"/refund", `{"amount":"751"}`)
	cases := []struct {
		name, path, body string
		want             string // "200 <status> <amount>" or the tuple
	}{
		{"capture up to 115%", "/transactions/" + auth("5500") + "/capture", `{"amount":"6000"}`, "200 CAPTURED 6000"},
		{"capture over 115%", "/transactions/" + auth("3000") + "/capture", `{"amount":"4000"}`, "400 INVALID_REQUEST_DATA 50020 Can't settle for more than 115% of that which you authorised "},
		{"capture zero", "/transactions/" + auth("3000") + "/capture", `{"amount":"000"}`, "400 INVALID_REQUEST_DATA 50020 Zero negative or insufficient amount specified "},
		{"capture with gratuity", "/transactions/" + auth("3000") + "/capture", `{"amount":"3000","gratuity":"1200"}`, "200 CAPTURED 3000"},
		{"capture of the authorized amount", "/transactions/" + auth("3000") + "/capture", `[]`, "200 CAPTURED 3000"},
		{"refund over 115%", "/transactions/" + sale("5000") + "/refund", `{"amount":"6000"}`, "400 INVALID_REQUEST_DATA 40087 You may only refund up to 115% of the original amount "},
		{"partial refund", "/transactions/" + sale("5000") + "/refund", `{"amount":"751"}`, "200 CAPTURED 751"},
		{"full refund after a partial one", "/transactions/" + partial + "/refund", `{}`, "400 INVALID_REQUEST_DATA 40087 You may only refund up to 115% of the original amount "},
		{"partial reversal card present", "/transactions/" + sale("2000") + "/reversal", `{"amount":"1000"}`, "200 CAPTURED 1000"},
		{"partial reversal card not present", "/transactions/" + cnpSale("2000") + "/reversal", `{"amount":"1000"}`, "400 INVALID_REQUEST_DATA 40214 partial reversal not supported"},
		{"reversal of the whole amount", "/transactions/" + sale("2000") + "/reversal", `{"amount":"2000"}`, "200 REVERSED 2000"},
		// The Node SDK's reverse() and reauthorized() send "amount":"" for no amount.
		{"reversal with an empty amount", "/transactions/" + sale("2000") + "/reversal", `{"amount":""}`, "200 REVERSED 2000"},
		{"reauthorization with an empty amount", "/transactions/" + reversed("2000") + "/reauthorization", `{"amount":""}`, "200 CAPTURED 2000"},
		{"capture with an empty amount", "/transactions/" + auth("3000") + "/capture", `{"amount":""}`, "400 INVALID_REQUEST_DATA 40213 amount contains unexpected data"},
		{"refund with an empty amount", "/transactions/" + sale("3000") + "/refund", `{"amount":""}`, "400 INVALID_REQUEST_DATA 40213 amount contains unexpected data"},
		{"incremental", "/transactions/" + auth("5000") + "/incremental", `{"amount":"1000"}`, "200 PREAUTHORIZED 6000"},
		{"incremental of zero", "/transactions/" + auth("5000") + "/incremental", `{"amount":"000"}`, "200 PREAUTHORIZED 5000"},
		{"incremental without amount", "/transactions/" + auth("5000") + "/incremental", `{}`, "400 MANDATORY_DATA_MISSING 40005 Request expects the following fields [amount]"},
		{"incremental of an unknown id", "/transactions/TRN_unknown/incremental", `{}`, "404 RESOURCE_NOT_FOUND 40008 Transaction TRN_unknown not found at this location."},
		{"incremental with lodging", "/transactions/" + auth("5000") + "/incremental",
			`{"amount":"1000","lodging":{"booking_reference":"s9RpaDwXq1sPRkbP","duration_days":10,"date_checked_in":"2021-03-22","date_checked_out":"2021-03-29","daily_rate_amount":"1349","charge_items":[{"types":["NO_SHOW"],"reference":"item1","total_amount":"1349","payment_method_program_codes":["ASSURED_RESERVATION"]}]}}`,
			"200 PREAUTHORIZED 6000"},
		{"incremental with the Node SDK's lodging", "/transactions/" + auth("5000") + "/incremental",
			`{"amount":"1000","lodging":{"booking_reference":"b1","duration_days":10,"date_checked_in":"2021-03-22","date_checked_out":null,"daily_rate_amount":"1349","lodging.charge_items":[{"types":["MINI_BAR"],"reference":"i","total_amount":null,"payment_method_program_codes":["PURCHASE"]}]}}`,
			"200 PREAUTHORIZED 6000"},
		{"lodging with a bad date", "/transactions/" + auth("5000") + "/incremental",
			`{"amount":"1000","lodging":{"date_checked_in":"22/03/2021"}}`, "400 INVALID_REQUEST_DATA 40213 lodging.date_checked_in contains unexpected data"},
		{"lodging leaving before arriving", "/transactions/" + auth("5000") + "/incremental",
			`{"amount":"1000","lodging":{"date_checked_in":"2021-03-22","date_checked_out":"2021-03-21"}}`, "400 INVALID_REQUEST_DATA 40213 lodging.date_checked_out contains unexpected data"},
		{"lodging with an unknown item type", "/transactions/" + auth("5000") + "/incremental",
			`{"amount":"1000","lodging":{"charge_items":[{"types":["SPA"]}]}}`, "400 INVALID_REQUEST_DATA 40213 lodging.charge_items.types contains unexpected data"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := env.Do("POST", tc.path, apitest.APIHeader(tok), tc.body)
			var got string
			if r.Status == 200 {
				m := r.JSON(t)
				got = "200 " + m["status"].(string) + " " + m["amount"].(string)
			} else {
				e := r.GPError(t)
				got = strings.Join([]string{itoa(e.Status), e.Code, e.Detail, e.Description}, " ")
			}
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestRefundAndReauthorizationAreNewTransactions(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	sale := env.MustTransactionIn(tok, "CAPTURED")
	refund := env.MustPost(tok, "/transactions/"+sale+"/refund", `{"amount":"500"}`)
	if refund["id"] == sale || refund["type"] != "REFUND" || refund["parent_resource_id"] != sale {
		t.Errorf("refund %v", refund)
	}
	reversed := env.MustTransactionIn(tok, "REVERSED")
	reauth := env.MustPost(tok, "/transactions/"+reversed+"/reauthorization", `{"amount":"1150"}`)
	if reauth["id"] == reversed || reauth["parent_resource_id"] != reversed || reauth["status"] != "CAPTURED" || reauth["amount"] != "1150" || reauth["batch_id"] == "" {
		t.Errorf("reauthorization %v", reauth)
	}
	auth := env.MustTransactionIn(tok, "PREAUTHORIZED")
	env.MustPost(tok, "/transactions/"+auth+"/reversal", `[]`)
	if got := env.MustPost(tok, "/transactions/"+auth+"/reauthorization", `[]`); got["status"] != "PREAUTHORIZED" || got["batch_id"] != "" {
		t.Errorf("reauthorized authorization %v", got)
	}
}

func TestMultipleCaptures(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	id := env.MustCharge(tok, apitest.SaleBody("4200", "MULTIPLE", apitest.ManualCard))["id"].(string)
	for i, want := range []string{"1000", "2000", "3000", "4000"} {
		got := env.MustPost(tok, "/transactions/"+id+"/capture", `{"amount":"1000"}`)
		if got["status"] != "CAPTURED" || got["amount"] != want {
			t.Fatalf("capture %d: %v", i+1, got)
		}
	}
	r := env.Do("POST", "/transactions/"+id+"/capture", apitest.APIHeader(tok), `{"amount":"1000"}`)
	if e := r.GPError(t); e.Detail != "50020" {
		t.Errorf("a capture past 115%% of the authorization: %+v", e)
	}
}

// One idempotency key belongs to the app across operations; for transactions the 409
// names the first resource with no status suffix.
func TestIdempotencyAcrossLifecycle(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	withKey := func(key string) map[string]string { return apitest.APIHeader(tok, "X-GP-Idempotency", key) }
	r := env.Do("POST", "/transactions", withKey("k-auth"), apitest.SaleBody("1000", "LATER", apitest.ManualCard))
	auth := r.JSON(t)["id"].(string)
	r = env.Do("POST", "/transactions/"+auth+"/capture", withKey("k-auth"), `{}`)
	want := apitest.Err(409, "DUPLICATE_ACTION", "40039", "Idempotency Key seen before: id="+auth)
	if got := r.GPError(t); got != want {
		t.Errorf("capture with the authorization's key: %+v, want %+v", got, want)
	}
	if got := env.Do("GET", "/transactions/"+auth, apitest.APIHeader(tok), "").JSON(t)["status"]; got != "PREAUTHORIZED" {
		t.Errorf("the refused capture executed: status %v", got)
	}
	r = env.Do("POST", "/transactions", withKey("k-sale"), apitest.SaleBody("1000", "AUTO", apitest.ManualCard))
	sale := r.JSON(t)["id"].(string)
	r = env.Do("POST", "/transactions/"+sale+"/refund", withKey("k-sale"), `{}`)
	if got := r.GPError(t); got.Status != 409 || got.Description != "Idempotency Key seen before: id="+sale {
		t.Errorf("refund with the sale's key: %+v", got)
	}
	// A refused operation leaves the key free.
	r = env.Do("POST", "/transactions/"+sale+"/capture", withKey("k-free"), `{}`)
	if r.Status != 400 {
		t.Fatalf("capture of a sale: %d %s", r.Status, r.Body)
	}
	if r = env.Do("POST", "/transactions/"+sale+"/reversal", withKey("k-free"), `{}`); r.Status != 200 {
		t.Errorf("reversal with a key a refused capture did not consume: %d %s", r.Status, r.Body)
	}
}

// A restart between the steps of a lifecycle keeps every acknowledged step.
func TestRestartInTheMiddleOfALifecycle(t *testing.T) {
	path := t.TempDir() + "/sandbox.db"
	first := mustSandboxAt(t, path)
	tok := first.PartnerToken()
	auth := first.MustTransactionIn(tok, "PREAUTHORIZED")
	first.MustPost(tok, "/transactions/"+auth+"/incremental", `{"amount":"500"}`)
	captured := first.MustPost(tok, "/transactions/"+auth+"/capture", `{"gratuity":"200"}`)
	sale := first.MustTransactionIn(tok, "CAPTURED")
	first.MustPost(tok, "/transactions/"+sale+"/reversal", `{}`)
	first.DB.Close()

	second := mustSandboxAt(t, path)
	tok = second.PartnerToken()
	got := second.Do("GET", "/transactions/"+auth, apitest.APIHeader(tok), "").JSON(t)
	if got["status"] != "CAPTURED" || got["amount"] != "1500" || got["batch_id"] != captured["batch_id"] {
		t.Errorf("after the restart: %v", got)
	}
	if got := second.Do("GET", "/transactions/"+sale, apitest.APIHeader(tok), "").JSON(t); got["status"] != "REVERSED" {
		t.Errorf("reversal lost: %v", got)
	}
	refund := second.MustPost(tok, "/transactions/"+auth+"/refund", `{}`)
	if refund["batch_id"] != captured["batch_id"] {
		t.Errorf("the refund went to batch %v, the open batch is %v", refund["batch_id"], captured["batch_id"])
	}
}

// The test cards' outcomes and the lifecycle's rules can be scripted per request.
func TestCardPresentScenarios(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	r := env.Do("POST", "/transactions", apitest.APIHeader(tok, "X-Sandbox-Scenario", "declined-sale"), apitest.SaleBody("1000", "AUTO", apitest.ManualCard))
	got := r.JSON(t)
	if r.Status != 200 || got["status"] != "DECLINED" || field(got, "payment_method", "result") != "05" ||
		field(got, "payment_method", "card", "authcode") != "" || r.Header.Get("X-Sandbox-Rule") != "declined-sale#0" {
		t.Errorf("scripted decline: %d %s", r.Status, r.Body)
	}
	if stored := env.Do("GET", "/transactions/"+got["id"].(string), apitest.APIHeader(tok), "").JSON(t); stored["status"] != "DECLINED" ||
		field(stored, "payment_method", "result") != "05" || field(stored, "action", "result_code") != "DECLINED" {
		t.Errorf("the stored transaction of a scripted decline: %v", stored)
	}
	auth := env.MustTransactionIn(tok, "PREAUTHORIZED")
	r = env.Do("POST", "/transactions/"+auth+"/capture", apitest.APIHeader(tok, "X-Sandbox-Scenario", "capture-over-limit"), `{}`)
	if e := r.GPError(t); e.Detail != "50020" {
		t.Errorf("scripted capture refusal: %+v", e)
	}
	if got := env.Do("GET", "/transactions/"+auth, apitest.APIHeader(tok), "").JSON(t)["status"]; got != "PREAUTHORIZED" {
		t.Errorf("a scripted refusal executed the capture: %v", got)
	}
	journal := env.Do("GET", "/_sandbox/requests?operation=capture", nil, "").JSON(t)
	entries, _ := journal["requests"].([]any)
	if len(entries) != 1 || field(entries[0].(map[string]any), "rule") != "capture-over-limit#0" {
		t.Errorf("journal of captures: %v", journal)
	}
}

// In replay mode a repeated sale, capture or batch close gets its first answer again,
// byte for byte, and executes once.
func TestCardPresentReplay(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	replay := func(key string) map[string]string {
		return apitest.APIHeader(tok, "X-GP-Idempotency", key, "X-Sandbox-Scenario", "idempotency-replay")
	}
	first := env.Do("POST", "/transactions", replay("r-sale"), apitest.SaleBody("1000", "LATER", apitest.ManualCard))
	again := env.Do("POST", "/transactions", replay("r-sale"), apitest.SaleBody("1000", "LATER", apitest.ManualCard))
	if first.Status != 200 || string(first.Body) != string(again.Body) {
		t.Fatalf("replayed sale:\n%s\n%s", first.Body, again.Body)
	}
	auth := first.JSON(t)["id"].(string)
	c1 := env.Do("POST", "/transactions/"+auth+"/capture", replay("r-capture"), `{}`)
	c2 := env.Do("POST", "/transactions/"+auth+"/capture", replay("r-capture"), `{}`)
	if c1.Status != 200 || string(c1.Body) != string(c2.Body) {
		t.Fatalf("replayed capture:\n%s\n%s", c1.Body, c2.Body)
	}
	batch := c1.JSON(t)["batch_id"].(string)
	b1 := env.Do("POST", "/batches/"+batch, replay("r-close"), "")
	b2 := env.Do("POST", "/batches/"+batch, replay("r-close"), "")
	if b1.Status != 200 || string(b1.Body) != string(b2.Body) {
		t.Fatalf("replayed close:\n%s\n%s", b1.Body, b2.Body)
	}
	list := env.Do("GET", "/transactions?channel=CP", apitest.APIHeader(tok), "").JSON(t)
	if list["total_record_count"] != float64(1) {
		t.Errorf("the replays executed again: %v transactions", list["total_record_count"])
	}
}

// cnpSaleBody is a keyed card-not-present sale of amount.
func cnpSaleBody(amount string) string {
	return strings.Replace(strings.Replace(apitest.SaleBody(amount, "AUTO", apitest.ManualCard), `"CP"`, `"CNP"`, 1), `"MANUAL"`, `"ECOM"`, 1)
}

// A partial reversal of a card-present transaction keeps it in its status for the
// rest of its amount (the .NET SDK's CreditCard_PartialReversal); card not present
// GP refuses it (the Java, Node and PHP SDKs' CreditPartialReverseTransaction). The
// rest is what the detail, a later refund and the batch see. A scenario scripts GP's
// refusal for card present too.
func TestPartialReversalByChannel(t *testing.T) {
	refusal, err := yamlfile.LoadScenarios(mapFS("refusal.yaml", `version: 1
name: partial-reversal-refused
rules:
  - when: {operation: reversal, body: {amount: "500"}}
    then: {status: 400, error: {code: INVALID_REQUEST_DATA, detail: "40214"}}
`))
	if err != nil {
		t.Fatal(err)
	}
	env := mustSandboxWith(t, apitest.Options{Scenarios: refusal})
	tok := env.PartnerToken()
	sale := env.MustCharge(tok, apitest.SaleBody("2000", "AUTO", apitest.ManualCard))["id"].(string)
	got := env.MustPost(tok, "/transactions/"+sale+"/reversal", `{"amount":"1000","currency":"USD"}`)
	if got["status"] != "CAPTURED" || got["amount"] != "1000" || field(got, "action", "type") != "REVERSAL" || field(got, "action", "result_code") != "SUCCESS" {
		t.Errorf("partial reversal: %v", got)
	}
	if d := env.Do("GET", "/transactions/"+sale, apitest.APIHeader(tok), "").JSON(t); d["status"] != "CAPTURED" || d["amount"] != "1000" {
		t.Errorf("detail after a partial reversal: %v %v", d["status"], d["amount"])
	}
	// The refund limit is 115% of the rest now.
	if r := env.Do("POST", "/transactions/"+sale+"/refund", apitest.APIHeader(tok), `{"amount":"1200"}`).GPError(t); r.Detail != "40087" {
		t.Errorf("refund over 115%% of the rest: %+v", r)
	}
	for _, body := range []string{`{"amount":"2001"}`, `{"amount":"0"}`} {
		if r := env.Do("POST", "/transactions/"+sale+"/reversal", apitest.APIHeader(tok), body).GPError(t); r.Detail != "40214" {
			t.Errorf("%s: %+v", body, r)
		}
	}
	if got := env.MustPost(tok, "/transactions/"+sale+"/reversal", `{"amount":"1000"}`); got["status"] != "REVERSED" {
		t.Errorf("reversal of the rest: %v", got["status"])
	}

	auth := env.MustCharge(tok, apitest.SaleBody("3000", "LATER", apitest.ManualCard))["id"].(string)
	if got := env.MustPost(tok, "/transactions/"+auth+"/reversal", `{"amount":"1000"}`); got["status"] != "PREAUTHORIZED" || got["amount"] != "2000" {
		t.Errorf("partial reversal of an authorization: %v %v", got["status"], got["amount"])
	}
	if r := env.Do("POST", "/transactions/"+auth+"/capture", apitest.APIHeader(tok), `{"amount":"2400"}`).GPError(t); r.Detail != "50020" {
		t.Errorf("capture over 115%% of the rest: %+v", r)
	}

	cnp := env.MustCharge(tok, cnpSaleBody("2000"))["id"].(string)
	want := apitest.Err(400, "INVALID_REQUEST_DATA", "40214", "partial reversal not supported")
	if got := env.Do("POST", "/transactions/"+cnp+"/reversal", apitest.APIHeader(tok), `{"amount":"1000"}`).GPError(t); got != want {
		t.Errorf("card not present: %+v", got)
	}
	if d := env.Do("GET", "/transactions/"+cnp, apitest.APIHeader(tok), "").JSON(t); d["status"] != "CAPTURED" || d["amount"] != "2000" {
		t.Errorf("a refused partial reversal changed the sale: %v %v", d["status"], d["amount"])
	}

	scripted := env.MustCharge(tok, apitest.SaleBody("2000", "AUTO", apitest.ManualCard))["id"].(string)
	r := env.Do("POST", "/transactions/"+scripted+"/reversal", apitest.APIHeader(tok, "X-Sandbox-Scenario", "partial-reversal-refused"), `{"amount":"500"}`)
	if got := r.GPError(t); got != want {
		t.Errorf("scripted refusal: %+v", got)
	}
	if d := env.Do("GET", "/transactions/"+scripted, apitest.APIHeader(tok), "").JSON(t); d["amount"] != "2000" {
		t.Errorf("a scripted refusal changed the sale: %v", d["amount"])
	}
}
