package api_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

const (
	a920           = "PRO_TRA_CP-US-CARD-A920_SP"
	partnerAccount = "TRA_00000000000000000000000000000001"
)

// terminalOrder orders quantity A920 terminals, notified at statusURL when one is given.
func terminalOrder(quantity int, statusURL string) string {
	body := `{"products":[{"id":"` + a920 + `","device":{"quantity":` + strconv.Itoa(quantity) + `}}]`
	if statusURL != "" {
		body += `,"notifications":{"status_url":"` + statusURL + `"}`
	}
	return body + `}`
}

// orderState reads an order through the admin API.
func (env *sandboxEnv) orderState(id string) map[string]any {
	env.T.Helper()
	return env.MustAdmin("GET", "/_sandbox/orders/"+id, "")
}

// mustDeliver moves a placed order on to DELIVERED through the admin API.
func (env *sandboxEnv) mustDeliver(id string) {
	env.T.Helper()
	for _, s := range []string{"PROCESSING", "SHIPPED", "DELIVERED"} {
		env.MustAdmin("POST", "/_sandbox/orders/"+id+"/status", `{"status":"`+s+`"}`)
	}
}

// withoutDevicesOf drops a merchant's terminals from the fixtures.
func withoutDevicesOf(merchantID string) func(*sandbox.Fixtures) {
	return func(fx *sandbox.Fixtures) {
		var kept []sandbox.Device
		for _, d := range fx.Devices {
			if d.MerchantID != merchantID {
				kept = append(kept, d)
			}
		}
		fx.Devices = kept
	}
}

// An ordered terminal's whole story through HTTP: placed INITIATED, moved on by the
// admin API and then by the sandbox clock's schedule, each step notified; once
// DELIVERED its first unit is the terminal of the merchant's account (which had none)
// and takes a sale on a card presented to it, a real transaction.
func TestOrderedDeviceTakesASale(t *testing.T) {
	env := mustSandboxWith(t, apitest.Options{
		Fixtures:  withoutDevicesOf(apitest.MerchantTwo),
		Configure: []func(*app.Config){func(c *app.Config) { c.OrderStep = 24 * time.Hour }},
	})
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	h := mustHook(t)
	id := env.MustPlaceOrderFor(tok, apitest.MerchantTwo, terminalOrder(2, h.URL))
	env.MustAdmin("POST", "/_sandbox/orders/"+id+"/status", `{"status":"PROCESSING"}`)
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"23h59m59s"}`)
	if got := env.orderState(id)["status"]; got != "PROCESSING" {
		t.Errorf("a second before its step: %v", got)
	}
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"1s"}`)
	if got := env.orderState(id)["status"]; got != "SHIPPED" {
		t.Errorf("a step after PROCESSING: %v", got)
	}
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"24h"}`)
	o := env.orderState(id)
	if o["status"] != "DELIVERED" || apitest.Dig(o, "action.type") != "ORDER_DELIVERED" || apitest.Dig(o, "action.time_created") != "2021-03-24T10:00:00.000Z" {
		t.Errorf("delivered: %v", o)
	}
	for _, want := range []string{"ORDER_INITIATED", "ORDER_PROCESSING", "ORDER_SHIPPED", "ORDER_DELIVERED"} {
		body, _ := h.next(t)
		var n map[string]any
		json.Unmarshal([]byte(body), &n)
		if apitest.Dig(n, "action.type") != want {
			t.Errorf("notification %s, want %s", body, want)
		}
	}

	devices := env.mustDevices("order_id=" + id)
	if len(devices) != 2 {
		t.Fatalf("devices of the order: %v", devices)
	}
	bound, spare := devices[0], devices[1]
	if bound["account_id"] == "" {
		bound, spare = spare, bound
	}
	for _, d := range devices {
		if d["merchant_id"] != apitest.MerchantTwo || d["order_id"] != id || d["product_id"] != a920 || d["status"] != "ACTIVE" ||
			d["time_created"] != "2021-03-24T10:00:00.000Z" || !strings.HasPrefix(d["id"].(string), "DEV_") {
			t.Errorf("delivered device: %v", d)
		}
	}
	if bound["account_id"] != partnerAccount || spare["account_id"] != "" {
		t.Errorf("binding: bound %v, spare %v", bound, spare)
	}

	devID := bound["id"].(string)
	env.MustAdmin("POST", "/_sandbox/devices/"+devID, `{"mode":"INITIATED"}`)
	tok = env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "") // the first expired with the days
	sale := strings.Replace(apitest.MICBody("Sale", `{"transaction":{"baseAmount":"10.00"}}`), `{`, `{"merchant_id":"`+apitest.MerchantTwo+`",`, 1)
	r := env.Do("POST", "/devices", apitest.APIHeader(tok), sale)
	if d := r.JSON(t); r.Status != 200 || d["status"] != "INITIATED" || d["merchant_id"] != apitest.MerchantTwo {
		t.Fatalf("sale: %d %s", r.Status, r.Body)
	}
	drq := r.JSON(t)["id"].(string)
	if got := env.mustDevice(devID)["pending"]; got != drq {
		t.Errorf("pending on the delivered terminal: %v, want %s", got, drq)
	}
	done := env.MustAdmin("POST", "/_sandbox/device-requests/"+drq+"/present", `{"card":"visa_contactless"}`)
	trn, _ := apitest.Dig(done, "response.data.host.referenceNumber").(string)
	if done["status"] != "COMPLETE" || trn == "" {
		t.Fatalf("presented: %v", done)
	}
	txn := env.Do("GET", "/transactions/"+trn, apitest.APIHeader(tok), "").JSON(t)
	for path, want := range map[string]any{
		"status": "CAPTURED", "amount": "1000", "merchant_id": apitest.MerchantTwo,
		"payment_method.entry_mode": "CONTACTLESS_CHIP", "payment_method.result": "00",
	} {
		if got := apitest.Dig(txn, path); got != want {
			t.Errorf("transaction %s = %v, want %v", path, got, want)
		}
	}
	if got := env.mustDevice(devID)["tran_no"]; got != 1.0 {
		t.Errorf("tran_no of the delivered terminal: %v", got)
	}
}

// One advance of the clock carries an order through every step due, each as of the
// time it fell due, and delivers its devices once; a sandbox without an order step
// leaves orders to the admin API.
func TestOrderScheduleOnTheClock(t *testing.T) {
	env := mustSandbox(t, func(c *app.Config) { c.OrderStep = 24 * time.Hour })
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	id := env.MustPlaceOrderFor(tok, apitest.MerchantOne, terminalOrder(1, ""))
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"100h"}`)
	o := env.orderState(id)
	var times []string
	for _, a := range o["history"].([]any) {
		times = append(times, apitest.Dig(a.(map[string]any), "type").(string)+"@"+apitest.Dig(a.(map[string]any), "time_created").(string))
	}
	want := "ORDER_INITIATED@2021-03-22T10:00:00.000Z ORDER_PROCESSING@2021-03-23T10:00:00.000Z " +
		"ORDER_SHIPPED@2021-03-24T10:00:00.000Z ORDER_DELIVERED@2021-03-25T10:00:00.000Z"
	if got := strings.Join(times, " "); got != want {
		t.Errorf("history\n%s\nwant\n%s", got, want)
	}
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"100h"}`)
	if got := env.mustDevices("order_id=" + id); len(got) != 1 || got[0]["account_id"] != "" {
		t.Errorf("devices after a second advance: %v (merchant One's account has a terminal: a spare)", got)
	}

	// A clock moved without the admin API (a Go test's Clock.Advance) is seen by the
	// schedule's worker.
	tok = env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	id = env.MustPlaceOrderFor(tok, apitest.MerchantOne, terminalOrder(1, ""))
	env.Clock.Advance(72 * time.Hour)
	testrun.WaitFor(t, "the order DELIVERED after Clock.Advance(72h)", func() bool { return env.orderState(id)["status"] == "DELIVERED" })

	off := mustSandbox(t)
	tok = off.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	id = off.MustPlaceOrderFor(tok, apitest.MerchantOne, terminalOrder(1, ""))
	off.MustAdmin("POST", "/_sandbox/clock", `{"advance":"1000h"}`)
	if got := off.orderState(id)["status"]; got != "INITIATED" {
		t.Errorf("without an order step: %v", got)
	}
}

// A delivered spare is bound to an account by the admin API; the terminal bound there
// until then becomes the spare, and MiC requests of that account reach the new one.
func TestDeliveredSpareBoundByTheAdminAPI(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	id := env.MustPlaceOrderFor(tok, apitest.MerchantOne, terminalOrder(1, ""))
	env.mustDeliver(id)
	devices := env.mustDevices("order_id=" + id)
	if len(devices) != 1 || devices[0]["account_id"] != "" {
		t.Fatalf("merchant One's account has a terminal, so the delivered one is a spare: %v", devices)
	}
	devID := devices[0]["id"].(string)
	r := env.Do("POST", "/_sandbox/devices/"+devID, apitest.JSONHeader(), `{"account_id":"`+partnerAccount+`"}`)
	if d := r.JSON(t); r.Status != 200 || d["account_id"] != partnerAccount {
		t.Fatalf("bind: %d %s", r.Status, r.Body)
	}
	const old = "DEV_00000000000000000000000000000001"
	if got := env.mustDevice(old)["account_id"]; got != "" {
		t.Errorf("the terminal bound before: account %v, want a spare", got)
	}
	env.MIC(tok, "Sale", `{"transaction":{"baseAmount":"5.00"}}`)
	if n, o := env.mustDevice(devID)["tran_no"], env.mustDevice(old)["tran_no"]; n != 1.0 || o != 0.0 {
		t.Errorf("tran_no: new %v, old %v", n, o)
	}
}

// The errors of moving orders and binding devices: each names what it refuses and
// changes nothing.
func TestDeviceOrderErrors(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	id := env.MustPlaceOrderFor(tok, apitest.MerchantTwo, terminalOrder(1, ""))
	env.mustDeliver(id)
	devID := env.mustDevices("order_id=" + id)[0]["id"].(string)
	for name, c := range map[string]struct {
		path, body string
		want       apitest.GPError
	}{
		"unknown order": {"/_sandbox/orders/ORD_Nope/status", `{"status":"PROCESSING"}`,
			apitest.Err(404, "RESOURCE_NOT_FOUND", "40008", "Order ORD_Nope not found at this location.")},
		"delivered again": {"/_sandbox/orders/" + id + "/status", `{"status":"DELIVERED"}`,
			apitest.Err(400, "INVALID_ACTION", "40290", "Cannot change the status of an Order from DELIVERED to DELIVERED.")},
		"unknown device": {"/_sandbox/devices/DEV_Nope", `{"account_id":"` + partnerAccount + `"}`,
			apitest.Err(404, "RESOURCE_NOT_FOUND", "40118", "Device DEV_Nope not found at this location.")},
		// The restricted app's account acts for merchant One only.
		"a device of another merchant": {"/_sandbox/devices/" + devID, `{"account_id":"TRA_00000000000000000000000000000002","mode":"INITIATED"}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40041", "Merchant configuration does not exist for the following combination: TRA_00000000000000000000000000000002 , "+apitest.MerchantTwo)},
		"unknown account": {"/_sandbox/devices/" + devID, `{"account_id":"TRA_Nope"}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40041", "Merchant configuration does not exist for the following combination: TRA_Nope , "+apitest.MerchantTwo)},
		"not a processing account": {"/_sandbox/devices/" + devID, `{"account_id":"MMA_00000000000000000000000000000001"}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40041", "Merchant configuration does not exist for the following combination: MMA_00000000000000000000000000000001 , "+apitest.MerchantTwo)},
	} {
		if got := env.Do("POST", c.path, apitest.JSONHeader(), c.body).GPError(t); got != c.want {
			t.Errorf("%s: %+v\nwant %+v", name, got, c.want)
		}
	}
	if d := env.mustDevices("order_id=" + id); len(d) != 1 || d[0]["account_id"] != "" || d[0]["mode"] != "COMPLETE" {
		t.Errorf("after the refusals: %v", d)
	}
	if got := env.mustDevice("DEV_00000000000000000000000000000002")["account_id"]; got != partnerAccount {
		t.Errorf("merchant Two's own terminal: %v", got)
	}
}

// A restored snapshot brings back orders the schedule had already carried to
// DELIVERED: the schedule reads the orders again, and moves them on as the clock goes.
func TestOrderScheduleAfterARestore(t *testing.T) {
	env := mustSandbox(t, func(c *app.Config) { c.OrderStep = time.Hour })
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	id := env.MustPlaceOrderFor(tok, apitest.MerchantOne, terminalOrder(1, ""))
	env.MustAdmin("POST", "/_sandbox/snapshots", `{"name":"placed"}`)
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"5h"}`)
	if got := env.orderState(id)["status"]; got != "DELIVERED" {
		t.Fatalf("before the restore: %v", got)
	}
	env.MustAdmin("POST", "/_sandbox/snapshots/placed/restore", ``)
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"1m"}`)
	if got := env.orderState(id)["status"]; got != "DELIVERED" {
		t.Errorf("after the restore and an advance: %v, want DELIVERED (its steps are due)", got)
	}
}
