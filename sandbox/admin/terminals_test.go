package admin_test

import (
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

const deviceOne = "DEV_00000000000000000000000000000001"

// mustWaitingSale sets terminal one to INITIATED and sends it a sale of 10.00 with the
// given transaction members; returns the waiting device request's id.
func (env *sandboxEnv) mustWaitingSale(tok, transaction string) string {
	env.T.Helper()
	env.MustAdmin("POST", "/_sandbox/devices/"+deviceOne, `{"mode":"INITIATED"}`)
	d := env.MIC(tok, "Sale", `{"transaction":{"baseAmount":"10.00"`+transaction+`}}`)
	if d["status"] != "INITIATED" {
		env.T.Fatalf("the sale does not wait: %v", d)
	}
	return d["id"].(string)
}

// terminalOne is terminal one as GET /_sandbox/terminals shows it.
func (env *sandboxEnv) terminalOne() map[string]any {
	env.T.Helper()
	r := env.Do("GET", "/_sandbox/terminals", map[string]string{}, "")
	for _, t := range r.JSON(env.T)["terminals"].([]any) {
		if m := t.(map[string]any); m["id"] == deviceOne {
			return m
		}
	}
	env.T.Fatalf("no terminal %s: %s", deviceOne, r.Body)
	return nil
}

// A sale that asks for the tip on the terminal: the screen shows it waiting with the
// tip prompt; the customer chooses a tip, then presents a card; the terminal is idle
// again with the approved sale as its last answer, and the journal has both actions.
func TestTerminalTipAndCard(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	if got := env.terminalOne(); got["screen"] != "IDLE" || got["waiting"] != nil || got["last"] != nil {
		t.Errorf("before any command: %v", got)
	}
	id := env.mustWaitingSale(tok, "")

	term := env.terminalOne()
	if term["screen"] != "WAITING_FOR_CARD" || apitest.Dig(term, "waiting.device_request_id") != id ||
		apitest.Dig(term, "waiting.base_amount") != "1000" || apitest.Dig(term, "waiting.tip_prompt") != true || apitest.Dig(term, "waiting.tip_amount") != nil {
		t.Errorf("waiting: %v", term)
	}
	cards := env.Do("GET", "/_sandbox/terminals", map[string]string{}, "")
	if strings.Contains(string(cards.Body), "4012002000060016") || !strings.Contains(string(cards.Body),
		`{"name":"visa_contactless","brand":"VISA","entry_mode":"CONTACTLESS_CHIP","masked_number":"401200******0016"}`) {
		t.Errorf("the test cards are not listed by name and masked number alone: %s", cards.Body)
	}

	tip := env.Do("POST", "/_sandbox/devices/"+deviceOne+"/tip", apitest.JSONHeader(), `{"tip":"0250"}`)
	if d := tip.JSON(t); tip.Status != 200 || d["id"] != id || d["status"] != "INITIATED" {
		t.Fatalf("tip: %d %s", tip.Status, tip.Body)
	}
	if got := apitest.Dig(env.terminalOne(), "waiting.tip_amount"); got != "250" {
		t.Errorf("the screen shows tip %v, want 250", got)
	}

	done := env.Do("POST", "/_sandbox/devices/"+deviceOne+"/present", apitest.JSONHeader(), `{"card":"visa_contactless"}`)
	d := done.JSON(t)
	if done.Status != 200 || d["id"] != id || d["status"] != "COMPLETE" || apitest.Dig(d, "response.data.host.tipAmount") != "2.50" ||
		apitest.Dig(d, "response.data.host.totalAmount") != "12.50" || apitest.Dig(d, "response.data.payment.cardAcquisition") != "Contactless" {
		t.Fatalf("presented: %d %s", done.Status, done.Body)
	}
	trn := apitest.Dig(d, "response.data.host.referenceNumber").(string)
	stored := env.Do("GET", "/_sandbox/transactions/"+trn, map[string]string{}, "").JSON(t)
	if stored["gratuity_amount"] != "250" || stored["amount"] != "1000" || apitest.Dig(stored, "payment_method.entry_mode") != "CONTACTLESS_CHIP" ||
		apitest.Dig(stored, "payment_method.card.masked_number_last4") != "XXXXXXXXXXXX0016" {
		t.Errorf("the transaction: %v", stored)
	}

	term = env.terminalOne()
	if term["screen"] != "IDLE" || term["waiting"] != nil || apitest.Dig(term, "last.device_request_id") != id ||
		apitest.Dig(term, "last.status") != "COMPLETE" || apitest.Dig(term, "last.response.host.total_amount") != "1250" ||
		apitest.Dig(term, "last.response.payment.masked_pan") != "401200******0016" {
		t.Errorf("after the sale: %v", term)
	}

	for op, body := range map[string]string{"terminal_tip": `{"tip":"0250"}`, "terminal_present": `{"card":"visa_contactless"}`} {
		r := env.Do("GET", "/_sandbox/requests?operation="+op, map[string]string{}, "").JSON(t)
		entries := r["requests"].([]any)
		if len(entries) != 1 {
			t.Errorf("%s: %d journal entries, want 1", op, len(entries))
			continue
		}
		e := entries[0].(map[string]any)
		if e["resource_id"] != id || e["status"] != float64(200) || !strings.Contains(e["path"].(string), deviceOne) ||
			!strings.Contains(string(mustJSON(t, e["body"])), strings.Split(body, ":")[1]) {
			t.Errorf("%s journaled as %v", op, e)
		}
	}
	// The token, the sale and the two actions; no other admin call.
	if n := env.Do("GET", "/_sandbox/requests/count", map[string]string{}, "").JSON(t)["count"]; n != float64(4) {
		t.Errorf("%v journal entries, want 4", n)
	}
}

// The customer cancels: the terminal answers Failed, no transaction is made, the
// journal has the cancel.
func TestTerminalCancel(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	id := env.mustWaitingSale(tok, "")
	r := env.Do("POST", "/_sandbox/devices/"+deviceOne+"/cancel", map[string]string{}, "")
	d := r.JSON(t)
	if r.Status != 200 || d["id"] != id || d["status"] != "DECLINED" || apitest.Dig(d, "response.cmdResult.errorCode") != "ERR018" {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	term := env.terminalOne()
	if term["screen"] != "IDLE" || apitest.Dig(term, "last.status") != "DECLINED" ||
		apitest.Dig(term, "last.response.error_message") != "TRANSACTION CANCELLED BY CUSTOMER" {
		t.Errorf("after the cancel: %v", term)
	}
	if n := env.Do("GET", "/_sandbox/transactions", map[string]string{}, "").JSON(t)["transactions"]; strings.Contains(string(mustJSON(t, n)), `"reference":"10001"`) {
		t.Errorf("a cancelled sale made a transaction: %v", n)
	}
	if n := env.Do("GET", "/_sandbox/requests/count?operation=terminal_cancel", map[string]string{}, "").JSON(t)["count"]; n != float64(1) {
		t.Errorf("%v cancels journaled, want 1", n)
	}
}

// Each refusal of a customer's action, GP-shaped, and nothing changed by it.
func TestTerminalActionErrors(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	dev := "/_sandbox/devices/" + deviceOne
	nothing := apitest.Err(400, "INVALID_ACTION", "40290", "Device "+deviceOne+" has no command waiting for the customer")
	unknown := apitest.Err(404, "RESOURCE_NOT_FOUND", "40118", "Device DEV_Nope not found at this location.")
	idle := []struct {
		name, path, body string
		want             apitest.GPError
	}{
		{"unknown device: tip", "/_sandbox/devices/DEV_Nope/tip", `{"tip":"100"}`, unknown},
		{"unknown device: present", "/_sandbox/devices/DEV_Nope/present", `{"card":"visa_chip"}`, unknown},
		{"unknown device: cancel", "/_sandbox/devices/DEV_Nope/cancel", ``, unknown},
		{"nothing waiting: tip", dev + "/tip", `{"tip":"100"}`, nothing},
		{"nothing waiting: present", dev + "/present", `{"card":"visa_chip"}`, nothing},
		{"nothing waiting: cancel", dev + "/cancel", ``, nothing},
	}
	for _, tt := range idle {
		if got := env.Do("POST", tt.path, apitest.JSONHeader(), tt.body).GPError(t); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}

	id := env.mustWaitingSale(tok, "")
	waiting := []struct {
		name, path, body string
		want             apitest.GPError
	}{
		{"unknown card name", dev + "/present", `{"card":"visa_gold"}`, apitest.Err(400, "INVALID_REQUEST_DATA", "40213",
			"card contains unexpected data: visa_gold is not a terminal test card (visa_chip, visa_contactless, visa_swipe, visa_chip_pin_decline, expired_swipe, mastercard_manual, amex_manual) or a card number")},
		{"unknown card name by device request", "/_sandbox/device-requests/" + id + "/present", `{"card":"visa_gold"}`, apitest.Err(400, "INVALID_REQUEST_DATA", "40213",
			"card contains unexpected data: visa_gold is not a terminal test card (visa_chip, visa_contactless, visa_swipe, visa_chip_pin_decline, expired_swipe, mastercard_manual, amex_manual) or a card number")},
		{"unknown card name longer than a card number", dev + "/present", `{"card":"visa_chip_pin_declined"}`, apitest.Err(400, "INVALID_REQUEST_DATA", "40213",
			"card contains unexpected data: visa_chip_pin_declined is not a terminal test card (visa_chip, visa_contactless, visa_swipe, visa_chip_pin_decline, expired_swipe, mastercard_manual, amex_manual) or a card number")},
		{"tip in major units", dev + "/tip", `{"tip":"2.50"}`, apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "tip contains unexpected data")},
		{"negative tip", dev + "/tip", `{"tip":"-100"}`, apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "tip contains unexpected data")},
		{"tip as a number", dev + "/tip", `{"tip":100}`, apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "tip contains unexpected data")},
		{"no tip", dev + "/tip", `{}`, apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields tip")},
		{"tip over the base amount", dev + "/tip", `{"tip":"1001"}`, apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "tip contains unexpected data: 1001 is more than the base amount 1000")},
	}
	for _, tt := range waiting {
		if got := env.Do("POST", tt.path, apitest.JSONHeader(), tt.body).GPError(t); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
	if term := env.terminalOne(); apitest.Dig(term, "waiting.device_request_id") != id || apitest.Dig(term, "waiting.tip_amount") != nil {
		t.Errorf("a refused action changed the waiting command: %v", term)
	}
	if n := env.Do("GET", "/_sandbox/requests/count?operation=terminal_tip&status=400", map[string]string{}, "").JSON(t)["count"]; n != float64(6) {
		t.Errorf("%v refused tips journaled, want 6", n)
	}
	// An unknown path that ends like an action is no action, nor is another method on
	// an action's path: none is journaled.
	count := func(op string) any {
		return env.Do("GET", "/_sandbox/requests/count?operation="+op, map[string]string{}, "").JSON(t)["count"]
	}
	tips, cancels := count("terminal_tip"), count("terminal_cancel")
	for _, p := range []struct{ method, path string }{
		{"POST", dev + "/x/present"},
		{"POST", "/_sandbox/device-requests/" + id + "/tip"},
		{"POST", "/_sandbox/device-requests/" + id + "/cancel"},
		{"GET", dev + "/present"},
	} {
		if r := env.Do(p.method, p.path, apitest.JSONHeader(), `{}`); r.Status != 404 && r.Status != 405 {
			t.Errorf("%s %s: %d", p.method, p.path, r.Status)
		}
	}
	if count("terminal_tip") != tips || count("terminal_cancel") != cancels {
		t.Errorf("tips %v -> %v, cancels %v -> %v journaled by requests to no action",
			tips, count("terminal_tip"), cancels, count("terminal_cancel"))
	}
	if n := env.Do("GET", "/_sandbox/requests/count?operation=terminal_present", map[string]string{}, "").JSON(t)["count"]; n != float64(5) {
		t.Errorf("%v presentations journaled, want the 5 refused", n)
	}

	// A sale that names its tip shows no tip screen.
	env.Do("POST", dev+"/cancel", map[string]string{}, "")
	id = env.mustWaitingSale(tok, `,"tipAmount":"0.00"`)
	want := apitest.Err(400, "INVALID_ACTION", "40290", "Device request "+id+" asks for no tip on the terminal: only a sale without tipAmount does")
	if got := env.Do("POST", dev+"/tip", apitest.JSONHeader(), `{"tip":"100"}`).GPError(t); got != want {
		t.Errorf("tip for a sale with its tip: %+v, want %+v", got, want)
	}
	if got := apitest.Dig(env.terminalOne(), "waiting.tip_prompt"); got != false {
		t.Errorf("tip_prompt %v for a sale with its tip", got)
	}
}
