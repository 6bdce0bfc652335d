package api_test

import (
	"strings"
	"testing"
)

const deviceOne = "DEV_00000000000000000000000000000001"

// mustWaitingSale sets terminal one to INITIATED and sends it a sale of 10.00 with the
// given transaction members; returns the waiting device request's id.
func (env *sandboxEnv) mustWaitingSale(tok, transaction string) string {
	env.t.Helper()
	env.mustAdmin("POST", "/_sandbox/devices/"+deviceOne, `{"mode":"INITIATED"}`)
	d := env.mic(tok, "Sale", `{"transaction":{"baseAmount":"10.00"`+transaction+`}}`)
	if d["status"] != "INITIATED" {
		env.t.Fatalf("the sale does not wait: %v", d)
	}
	return d["id"].(string)
}

// terminalOne is terminal one as GET /_sandbox/terminals shows it.
func (env *sandboxEnv) terminalOne() map[string]any {
	env.t.Helper()
	r := env.do("GET", "/_sandbox/terminals", map[string]string{}, "")
	for _, t := range r.json(env.t)["terminals"].([]any) {
		if m := t.(map[string]any); m["id"] == deviceOne {
			return m
		}
	}
	env.t.Fatalf("no terminal %s: %s", deviceOne, r.body)
	return nil
}

// A sale that asks for the tip on the terminal: the screen shows it waiting with the
// tip prompt; the customer chooses a tip, then presents a card; the terminal is idle
// again with the approved sale as its last answer, and the journal has both actions.
func TestTerminalTipAndCard(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, "")
	if got := env.terminalOne(); got["screen"] != "IDLE" || got["waiting"] != nil || got["last"] != nil {
		t.Errorf("before any command: %v", got)
	}
	id := env.mustWaitingSale(tok, "")

	term := env.terminalOne()
	if term["screen"] != "WAITING_FOR_CARD" || dig(term, "waiting.device_request_id") != id ||
		dig(term, "waiting.base_amount") != "1000" || dig(term, "waiting.tip_prompt") != true || dig(term, "waiting.tip_amount") != nil {
		t.Errorf("waiting: %v", term)
	}
	cards := env.do("GET", "/_sandbox/terminals", map[string]string{}, "")
	if strings.Contains(string(cards.body), "4012002000060016") || !strings.Contains(string(cards.body),
		`{"name":"visa_contactless","brand":"VISA","entry_mode":"CONTACTLESS_CHIP","masked_number":"401200******0016"}`) {
		t.Errorf("the test cards are not listed by name and masked number alone: %s", cards.body)
	}

	tip := env.do("POST", "/_sandbox/devices/"+deviceOne+"/tip", jsonHeader(), `{"tip":"0250"}`)
	if d := tip.json(t); tip.status != 200 || d["id"] != id || d["status"] != "INITIATED" {
		t.Fatalf("tip: %d %s", tip.status, tip.body)
	}
	if got := dig(env.terminalOne(), "waiting.tip_amount"); got != "250" {
		t.Errorf("the screen shows tip %v, want 250", got)
	}

	done := env.do("POST", "/_sandbox/devices/"+deviceOne+"/present", jsonHeader(), `{"card":"visa_contactless"}`)
	d := done.json(t)
	if done.status != 200 || d["id"] != id || d["status"] != "COMPLETE" || dig(d, "response.data.host.tipAmount") != "2.50" ||
		dig(d, "response.data.host.totalAmount") != "12.50" || dig(d, "response.data.payment.cardAcquisition") != "Contactless" {
		t.Fatalf("presented: %d %s", done.status, done.body)
	}
	trn := dig(d, "response.data.host.referenceNumber").(string)
	stored := env.do("GET", "/_sandbox/transactions/"+trn, map[string]string{}, "").json(t)
	if stored["gratuity_amount"] != "250" || stored["amount"] != "1000" || dig(stored, "payment_method.entry_mode") != "CONTACTLESS_CHIP" ||
		dig(stored, "payment_method.card.masked_number_last4") != "XXXXXXXXXXXX0016" {
		t.Errorf("the transaction: %v", stored)
	}

	term = env.terminalOne()
	if term["screen"] != "IDLE" || term["waiting"] != nil || dig(term, "last.device_request_id") != id ||
		dig(term, "last.status") != "COMPLETE" || dig(term, "last.response.host.total_amount") != "1250" ||
		dig(term, "last.response.payment.masked_pan") != "401200******0016" {
		t.Errorf("after the sale: %v", term)
	}

	for op, body := range map[string]string{"terminal_tip": `{"tip":"0250"}`, "terminal_present": `{"card":"visa_contactless"}`} {
		r := env.do("GET", "/_sandbox/requests?operation="+op, map[string]string{}, "").json(t)
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
	if n := env.do("GET", "/_sandbox/requests/count", map[string]string{}, "").json(t)["count"]; n != float64(4) {
		t.Errorf("%v journal entries, want 4", n)
	}
}

// The customer cancels: the terminal answers Failed, no transaction is made, the
// journal has the cancel.
func TestTerminalCancel(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, "")
	id := env.mustWaitingSale(tok, "")
	r := env.do("POST", "/_sandbox/devices/"+deviceOne+"/cancel", map[string]string{}, "")
	d := r.json(t)
	if r.status != 200 || d["id"] != id || d["status"] != "DECLINED" || dig(d, "response.cmdResult.errorCode") != "ERR018" {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	term := env.terminalOne()
	if term["screen"] != "IDLE" || dig(term, "last.status") != "DECLINED" ||
		dig(term, "last.response.error_message") != "TRANSACTION CANCELLED BY CUSTOMER" {
		t.Errorf("after the cancel: %v", term)
	}
	if n := env.do("GET", "/_sandbox/transactions", map[string]string{}, "").json(t)["transactions"]; strings.Contains(string(mustJSON(t, n)), `"reference":"10001"`) {
		t.Errorf("a cancelled sale made a transaction: %v", n)
	}
	if n := env.do("GET", "/_sandbox/requests/count?operation=terminal_cancel", map[string]string{}, "").json(t)["count"]; n != float64(1) {
		t.Errorf("%v cancels journaled, want 1", n)
	}
}

// Each refusal of a customer's action, GP-shaped, and nothing changed by it.
func TestTerminalActionErrors(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, "")
	dev := "/_sandbox/devices/" + deviceOne
	nothing := gpError{400, "INVALID_ACTION", "40290", "Device " + deviceOne + " has no command waiting for a card"}
	unknown := gpError{404, "RESOURCE_NOT_FOUND", "40118", "Device DEV_Nope not found at this location."}
	idle := []struct {
		name, path, body string
		want             gpError
	}{
		{"unknown device: tip", "/_sandbox/devices/DEV_Nope/tip", `{"tip":"100"}`, unknown},
		{"unknown device: present", "/_sandbox/devices/DEV_Nope/present", `{"card":"visa_chip"}`, unknown},
		{"unknown device: cancel", "/_sandbox/devices/DEV_Nope/cancel", ``, unknown},
		{"nothing waiting: tip", dev + "/tip", `{"tip":"100"}`, nothing},
		{"nothing waiting: present", dev + "/present", `{"card":"visa_chip"}`, nothing},
		{"nothing waiting: cancel", dev + "/cancel", ``, nothing},
	}
	for _, tt := range idle {
		if got := env.do("POST", tt.path, jsonHeader(), tt.body).gpError(t); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}

	id := env.mustWaitingSale(tok, "")
	waiting := []struct {
		name, path, body string
		want             gpError
	}{
		{"unknown card name", dev + "/present", `{"card":"visa_gold"}`, gpError{400, "INVALID_REQUEST_DATA", "40213",
			"card contains unexpected data: visa_gold is not a terminal test card (visa_chip, visa_contactless, visa_swipe, visa_chip_pin_decline, expired_swipe, mastercard_manual, amex_manual) or a card number"}},
		{"unknown card name by device request", "/_sandbox/device-requests/" + id + "/present", `{"card":"visa_gold"}`, gpError{400, "INVALID_REQUEST_DATA", "40213",
			"card contains unexpected data: visa_gold is not a terminal test card (visa_chip, visa_contactless, visa_swipe, visa_chip_pin_decline, expired_swipe, mastercard_manual, amex_manual) or a card number"}},
		{"tip in major units", dev + "/tip", `{"tip":"2.50"}`, gpError{400, "INVALID_REQUEST_DATA", "40213", "tip contains unexpected data"}},
		{"negative tip", dev + "/tip", `{"tip":"-100"}`, gpError{400, "INVALID_REQUEST_DATA", "40213", "tip contains unexpected data"}},
		{"tip as a number", dev + "/tip", `{"tip":100}`, gpError{400, "INVALID_REQUEST_DATA", "40213", "tip contains unexpected data"}},
		{"no tip", dev + "/tip", `{}`, gpError{400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields tip"}},
		{"tip over the base amount", dev + "/tip", `{"tip":"1001"}`, gpError{400, "INVALID_REQUEST_DATA", "40213", "tip contains unexpected data: 1001 is more than the base amount 1000"}},
	}
	for _, tt := range waiting {
		if got := env.do("POST", tt.path, jsonHeader(), tt.body).gpError(t); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
	if term := env.terminalOne(); dig(term, "waiting.device_request_id") != id || dig(term, "waiting.tip_amount") != nil {
		t.Errorf("a refused action changed the waiting command: %v", term)
	}
	if n := env.do("GET", "/_sandbox/requests/count?operation=terminal_tip&status=400", map[string]string{}, "").json(t)["count"]; n != float64(6) {
		t.Errorf("%v refused tips journaled, want 6", n)
	}
	// An unknown path that ends like an action is no action, nor is another method on
	// an action's path: none is journaled.
	count := func(op string) any {
		return env.do("GET", "/_sandbox/requests/count?operation="+op, map[string]string{}, "").json(t)["count"]
	}
	tips, cancels := count("terminal_tip"), count("terminal_cancel")
	for _, p := range []struct{ method, path string }{
		{"POST", dev + "/x/present"},
		{"POST", "/_sandbox/device-requests/" + id + "/tip"},
		{"POST", "/_sandbox/device-requests/" + id + "/cancel"},
		{"GET", dev + "/present"},
	} {
		if r := env.do(p.method, p.path, jsonHeader(), `{}`); r.status != 404 && r.status != 405 {
			t.Errorf("%s %s: %d", p.method, p.path, r.status)
		}
	}
	if count("terminal_tip") != tips || count("terminal_cancel") != cancels {
		t.Errorf("tips %v -> %v, cancels %v -> %v journaled by requests to no action",
			tips, count("terminal_tip"), cancels, count("terminal_cancel"))
	}
	if n := env.do("GET", "/_sandbox/requests/count?operation=terminal_present", map[string]string{}, "").json(t)["count"]; n != float64(4) {
		t.Errorf("%v presentations journaled, want the 4 refused", n)
	}

	// A sale that names its tip shows no tip screen.
	env.do("POST", dev+"/cancel", map[string]string{}, "")
	id = env.mustWaitingSale(tok, `,"tipAmount":"0.00"`)
	want := gpError{400, "INVALID_ACTION", "40290", "Device request " + id + " asks for no tip on the terminal: only a sale without tipAmount does"}
	if got := env.do("POST", dev+"/tip", jsonHeader(), `{"tip":"100"}`).gpError(t); got != want {
		t.Errorf("tip for a sale with its tip: %+v, want %+v", got, want)
	}
	if got := dig(env.terminalOne(), "waiting.tip_prompt"); got != false {
		t.Errorf("tip_prompt %v for a sale with its tip", got)
	}
}
