package api_test

import (
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/yamlfile"
)

const declinedCard = `{"number":"4000120000001154","expiry_month":"12","expiry_year":"30"}`

// mustTransactionIn makes a transaction in the named state through the API.
func (env *sandboxEnv) mustTransactionIn(tok, state string) string {
	env.t.Helper()
	switch state {
	case "CAPTURED":
		return env.mustCharge(tok, saleBody("1000", "AUTO", manualCard))["id"].(string)
	case "PREAUTHORIZED":
		return env.mustCharge(tok, saleBody("1000", "LATER", manualCard))["id"].(string)
	case "DECLINED":
		return env.mustCharge(tok, saleBody("1000", "AUTO", declinedCard))["id"].(string)
	case "REVERSED":
		id := env.mustTransactionIn(tok, "CAPTURED")
		env.mustPost(tok, "/transactions/"+id+"/reversal", `{}`)
		return id
	case "VERIFIED":
		r := env.do("POST", "/verifications", apiHeader(tok),
			`{"channel":"CP","currency":"USD","payment_method":{"entry_mode":"MANUAL","card":`+manualCard+`}}`)
		return r.json(env.t)["id"].(string)
	case "REFUND":
		return env.mustCharge(tok, strings.Replace(saleBody("1000", "AUTO", manualCard), `"SALE"`, `"REFUND"`, 1))["id"].(string)
	case "CLOSED_BATCH":
		return batched // a fixture: CAPTURED in a closed batch
	}
	env.t.Fatalf("no state %s", state)
	return ""
}

func (env *sandboxEnv) mustPost(tok, path, body string) map[string]any {
	env.t.Helper()
	r := env.do("POST", path, apiHeader(tok), body)
	if r.status != 200 {
		env.t.Fatalf("POST %s: %d %s", path, r.status, r.body)
	}
	return r.json(env.t)
}

// The state machine: every operation from every state, through HTTP.
func TestTransactionStateTable(t *testing.T) {
	env := mustSandbox(t)
	tok := env.partnerToken()
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
				id := env.mustTransactionIn(tok, state)
				body := bodies[op]
				if body == "" {
					body = `{}`
				}
				r := env.do("POST", "/transactions/"+id+"/"+op, apiHeader(tok), body)
				if r.status == 200 {
					if got := r.json(t)["status"]; got != want {
						t.Errorf("200 with status %v, want %s", got, want)
					}
					return
				}
				e := r.gpError(t)
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
	tok := env.partnerToken()
	auth := func(amount string) string {
		return env.mustCharge(tok, saleBody(amount, "LATER", manualCard))["id"].(string)
	}
	sale := func(amount string) string {
		return env.mustCharge(tok, saleBody(amount, "AUTO", manualCard))["id"].(string)
	}
	cnpSale := func(amount string) string {
		return env.mustCharge(tok, cnpSaleBody(amount))["id"].(string)
	}
	reversed := func(amount string) string {
		id := sale(amount)
		env.mustPost(tok, "/transactions/"+id+"/reversal", `{}`)
		return id
	}
	partial := sale("5000")
	env.mustPost(tok, "/transactions/"+partial+"/refund", `{"amount":"751"}`)
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
			r := env.do("POST", tc.path, apiHeader(tok), tc.body)
			var got string
			if r.status == 200 {
				m := r.json(t)
				got = "200 " + m["status"].(string) + " " + m["amount"].(string)
			} else {
				e := r.gpError(t)
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
	tok := env.partnerToken()
	sale := env.mustTransactionIn(tok, "CAPTURED")
	refund := env.mustPost(tok, "/transactions/"+sale+"/refund", `{"amount":"500"}`)
	if refund["id"] == sale || refund["type"] != "REFUND" || refund["parent_resource_id"] != sale {
		t.Errorf("refund %v", refund)
	}
	reversed := env.mustTransactionIn(tok, "REVERSED")
	reauth := env.mustPost(tok, "/transactions/"+reversed+"/reauthorization", `{"amount":"1150"}`)
	if reauth["id"] == reversed || reauth["parent_resource_id"] != reversed || reauth["status"] != "CAPTURED" || reauth["amount"] != "1150" || reauth["batch_id"] == "" {
		t.Errorf("reauthorization %v", reauth)
	}
	auth := env.mustTransactionIn(tok, "PREAUTHORIZED")
	env.mustPost(tok, "/transactions/"+auth+"/reversal", `[]`)
	if got := env.mustPost(tok, "/transactions/"+auth+"/reauthorization", `[]`); got["status"] != "PREAUTHORIZED" || got["batch_id"] != "" {
		t.Errorf("reauthorized authorization %v", got)
	}
}

func TestMultipleCaptures(t *testing.T) {
	env := mustSandbox(t)
	tok := env.partnerToken()
	id := env.mustCharge(tok, saleBody("4200", "MULTIPLE", manualCard))["id"].(string)
	for i, want := range []string{"1000", "2000", "3000", "4000"} {
		got := env.mustPost(tok, "/transactions/"+id+"/capture", `{"amount":"1000"}`)
		if got["status"] != "CAPTURED" || got["amount"] != want {
			t.Fatalf("capture %d: %v", i+1, got)
		}
	}
	r := env.do("POST", "/transactions/"+id+"/capture", apiHeader(tok), `{"amount":"1000"}`)
	if e := r.gpError(t); e.Detail != "50020" {
		t.Errorf("a capture past 115%% of the authorization: %+v", e)
	}
}

// One idempotency key belongs to the app across operations; for transactions the 409
// names the first resource with no status suffix.
func TestIdempotencyAcrossLifecycle(t *testing.T) {
	env := mustSandbox(t)
	tok := env.partnerToken()
	withKey := func(key string) map[string]string { return apiHeader(tok, "X-GP-Idempotency", key) }
	r := env.do("POST", "/transactions", withKey("k-auth"), saleBody("1000", "LATER", manualCard))
	auth := r.json(t)["id"].(string)
	r = env.do("POST", "/transactions/"+auth+"/capture", withKey("k-auth"), `{}`)
	want := gpError{409, "DUPLICATE_ACTION", "40039", "Idempotency Key seen before: id=" + auth}
	if got := r.gpError(t); got != want {
		t.Errorf("capture with the authorization's key: %+v, want %+v", got, want)
	}
	if got := env.do("GET", "/transactions/"+auth, apiHeader(tok), "").json(t)["status"]; got != "PREAUTHORIZED" {
		t.Errorf("the refused capture executed: status %v", got)
	}
	r = env.do("POST", "/transactions", withKey("k-sale"), saleBody("1000", "AUTO", manualCard))
	sale := r.json(t)["id"].(string)
	r = env.do("POST", "/transactions/"+sale+"/refund", withKey("k-sale"), `{}`)
	if got := r.gpError(t); got.Status != 409 || got.Description != "Idempotency Key seen before: id="+sale {
		t.Errorf("refund with the sale's key: %+v", got)
	}
	// A refused operation leaves the key free.
	r = env.do("POST", "/transactions/"+sale+"/capture", withKey("k-free"), `{}`)
	if r.status != 400 {
		t.Fatalf("capture of a sale: %d %s", r.status, r.body)
	}
	if r = env.do("POST", "/transactions/"+sale+"/reversal", withKey("k-free"), `{}`); r.status != 200 {
		t.Errorf("reversal with a key a refused capture did not consume: %d %s", r.status, r.body)
	}
}

// A restart between the steps of a lifecycle keeps every acknowledged step.
func TestRestartInTheMiddleOfALifecycle(t *testing.T) {
	path := t.TempDir() + "/sandbox.db"
	first := mustSandboxAt(t, path)
	tok := first.partnerToken()
	auth := first.mustTransactionIn(tok, "PREAUTHORIZED")
	first.mustPost(tok, "/transactions/"+auth+"/incremental", `{"amount":"500"}`)
	captured := first.mustPost(tok, "/transactions/"+auth+"/capture", `{"gratuity":"200"}`)
	sale := first.mustTransactionIn(tok, "CAPTURED")
	first.mustPost(tok, "/transactions/"+sale+"/reversal", `{}`)
	first.db.Close()

	second := mustSandboxAt(t, path)
	tok = second.partnerToken()
	got := second.do("GET", "/transactions/"+auth, apiHeader(tok), "").json(t)
	if got["status"] != "CAPTURED" || got["amount"] != "1500" || got["batch_id"] != captured["batch_id"] {
		t.Errorf("after the restart: %v", got)
	}
	if got := second.do("GET", "/transactions/"+sale, apiHeader(tok), "").json(t); got["status"] != "REVERSED" {
		t.Errorf("reversal lost: %v", got)
	}
	refund := second.mustPost(tok, "/transactions/"+auth+"/refund", `{}`)
	if refund["batch_id"] != captured["batch_id"] {
		t.Errorf("the refund went to batch %v, the open batch is %v", refund["batch_id"], captured["batch_id"])
	}
}

// The test cards' outcomes and the lifecycle's rules can be scripted per request.
func TestCardPresentScenarios(t *testing.T) {
	env := mustSandbox(t)
	tok := env.partnerToken()
	r := env.do("POST", "/transactions", apiHeader(tok, "X-Sandbox-Scenario", "declined-sale"), saleBody("1000", "AUTO", manualCard))
	got := r.json(t)
	if r.status != 200 || got["status"] != "DECLINED" || field(got, "payment_method", "result") != "05" ||
		field(got, "payment_method", "card", "authcode") != "" || r.header.Get("X-Sandbox-Rule") != "declined-sale#0" {
		t.Errorf("scripted decline: %d %s", r.status, r.body)
	}
	if stored := env.do("GET", "/transactions/"+got["id"].(string), apiHeader(tok), "").json(t); stored["status"] != "DECLINED" ||
		field(stored, "payment_method", "result") != "05" || field(stored, "action", "result_code") != "DECLINED" {
		t.Errorf("the stored transaction of a scripted decline: %v", stored)
	}
	auth := env.mustTransactionIn(tok, "PREAUTHORIZED")
	r = env.do("POST", "/transactions/"+auth+"/capture", apiHeader(tok, "X-Sandbox-Scenario", "capture-over-limit"), `{}`)
	if e := r.gpError(t); e.Detail != "50020" {
		t.Errorf("scripted capture refusal: %+v", e)
	}
	if got := env.do("GET", "/transactions/"+auth, apiHeader(tok), "").json(t)["status"]; got != "PREAUTHORIZED" {
		t.Errorf("a scripted refusal executed the capture: %v", got)
	}
	journal := env.do("GET", "/_sandbox/requests?operation=capture", nil, "").json(t)
	entries, _ := journal["requests"].([]any)
	if len(entries) != 1 || field(entries[0].(map[string]any), "rule") != "capture-over-limit#0" {
		t.Errorf("journal of captures: %v", journal)
	}
}

// In replay mode a repeated sale, capture or batch close gets its first answer again,
// byte for byte, and executes once.
func TestCardPresentReplay(t *testing.T) {
	env := mustSandbox(t)
	tok := env.partnerToken()
	replay := func(key string) map[string]string {
		return apiHeader(tok, "X-GP-Idempotency", key, "X-Sandbox-Scenario", "idempotency-replay")
	}
	first := env.do("POST", "/transactions", replay("r-sale"), saleBody("1000", "LATER", manualCard))
	again := env.do("POST", "/transactions", replay("r-sale"), saleBody("1000", "LATER", manualCard))
	if first.status != 200 || string(first.body) != string(again.body) {
		t.Fatalf("replayed sale:\n%s\n%s", first.body, again.body)
	}
	auth := first.json(t)["id"].(string)
	c1 := env.do("POST", "/transactions/"+auth+"/capture", replay("r-capture"), `{}`)
	c2 := env.do("POST", "/transactions/"+auth+"/capture", replay("r-capture"), `{}`)
	if c1.status != 200 || string(c1.body) != string(c2.body) {
		t.Fatalf("replayed capture:\n%s\n%s", c1.body, c2.body)
	}
	batch := c1.json(t)["batch_id"].(string)
	b1 := env.do("POST", "/batches/"+batch, replay("r-close"), "")
	b2 := env.do("POST", "/batches/"+batch, replay("r-close"), "")
	if b1.status != 200 || string(b1.body) != string(b2.body) {
		t.Fatalf("replayed close:\n%s\n%s", b1.body, b2.body)
	}
	list := env.do("GET", "/transactions?channel=CP", apiHeader(tok), "").json(t)
	if list["total_record_count"] != float64(1) {
		t.Errorf("the replays executed again: %v transactions", list["total_record_count"])
	}
}

// cnpSaleBody is a keyed card-not-present sale of amount.
func cnpSaleBody(amount string) string {
	return strings.Replace(strings.Replace(saleBody(amount, "AUTO", manualCard), `"CP"`, `"CNP"`, 1), `"MANUAL"`, `"ECOM"`, 1)
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
	env := mustSandboxWith(t, envOptions{scenarios: refusal})
	tok := env.partnerToken()
	sale := env.mustCharge(tok, saleBody("2000", "AUTO", manualCard))["id"].(string)
	got := env.mustPost(tok, "/transactions/"+sale+"/reversal", `{"amount":"1000","currency":"USD"}`)
	if got["status"] != "CAPTURED" || got["amount"] != "1000" || field(got, "action", "type") != "REVERSAL" || field(got, "action", "result_code") != "SUCCESS" {
		t.Errorf("partial reversal: %v", got)
	}
	if d := env.do("GET", "/transactions/"+sale, apiHeader(tok), "").json(t); d["status"] != "CAPTURED" || d["amount"] != "1000" {
		t.Errorf("detail after a partial reversal: %v %v", d["status"], d["amount"])
	}
	// The refund limit is 115% of the rest now.
	if r := env.do("POST", "/transactions/"+sale+"/refund", apiHeader(tok), `{"amount":"1200"}`).gpError(t); r.Detail != "40087" {
		t.Errorf("refund over 115%% of the rest: %+v", r)
	}
	for _, body := range []string{`{"amount":"2001"}`, `{"amount":"0"}`} {
		if r := env.do("POST", "/transactions/"+sale+"/reversal", apiHeader(tok), body).gpError(t); r.Detail != "40214" {
			t.Errorf("%s: %+v", body, r)
		}
	}
	if got := env.mustPost(tok, "/transactions/"+sale+"/reversal", `{"amount":"1000"}`); got["status"] != "REVERSED" {
		t.Errorf("reversal of the rest: %v", got["status"])
	}

	auth := env.mustCharge(tok, saleBody("3000", "LATER", manualCard))["id"].(string)
	if got := env.mustPost(tok, "/transactions/"+auth+"/reversal", `{"amount":"1000"}`); got["status"] != "PREAUTHORIZED" || got["amount"] != "2000" {
		t.Errorf("partial reversal of an authorization: %v %v", got["status"], got["amount"])
	}
	if r := env.do("POST", "/transactions/"+auth+"/capture", apiHeader(tok), `{"amount":"2400"}`).gpError(t); r.Detail != "50020" {
		t.Errorf("capture over 115%% of the rest: %+v", r)
	}

	cnp := env.mustCharge(tok, cnpSaleBody("2000"))["id"].(string)
	want := gpError{400, "INVALID_REQUEST_DATA", "40214", "partial reversal not supported"}
	if got := env.do("POST", "/transactions/"+cnp+"/reversal", apiHeader(tok), `{"amount":"1000"}`).gpError(t); got != want {
		t.Errorf("card not present: %+v", got)
	}
	if d := env.do("GET", "/transactions/"+cnp, apiHeader(tok), "").json(t); d["status"] != "CAPTURED" || d["amount"] != "2000" {
		t.Errorf("a refused partial reversal changed the sale: %v %v", d["status"], d["amount"])
	}

	scripted := env.mustCharge(tok, saleBody("2000", "AUTO", manualCard))["id"].(string)
	r := env.do("POST", "/transactions/"+scripted+"/reversal", apiHeader(tok, "X-Sandbox-Scenario", "partial-reversal-refused"), `{"amount":"500"}`)
	if got := r.gpError(t); got != want {
		t.Errorf("scripted refusal: %+v", got)
	}
	if d := env.do("GET", "/transactions/"+scripted, apiHeader(tok), "").json(t); d["amount"] != "2000" {
		t.Errorf("a scripted refusal changed the sale: %v", d["amount"])
	}
}
