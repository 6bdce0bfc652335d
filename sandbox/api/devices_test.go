package api_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

func TestDeviceSaleWithTip(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	d := env.MIC(tok, "Sale", `{"transaction":{"baseAmount":"10.00","tipAmount":"1.00"}}`)
	want := map[string]any{
		"status": "COMPLETE", "action.result_code": "SUCCESS", "response.response": "Sale",
		"response.requestId": "10001", "response.EcrId": "13", "response.cmdResult.result": "Success",
		"response.data.host.totalAmount": "11.00", "response.data.host.tipAmount": "1.00",
		"response.data.host.baseAmount": "10.00", "response.data.host.gatewayResponseCode": "00",
		"response.data.host.tranNo": "0001", "response.data.payment.cardType": "VISA",
		"response.data.payment.maskedPan": "401200******0016", "response.data.payment.cardAcquisition": "Insert",
		"account_id": "TRA_00000000000000000000000000000001",
	}
	for path, v := range want {
		if got := apitest.Dig(d, path); got != v {
			t.Errorf("%s = %v, want %v", path, got, v)
		}
	}
	if _, ok := d["data"]; ok {
		t.Error("a device request must not have a top-level data member")
	}
	if id, _ := d["id"].(string); !strings.HasPrefix(id, "DRQ_") {
		t.Errorf("id = %q, want DRQ_...", id)
	}
	trn := apitest.Dig(d, "response.data.host.referenceNumber").(string)
	r := env.Do("GET", "/transactions/"+trn, apitest.APIHeader(tok), "")
	txn := r.JSON(t)
	for path, v := range map[string]any{
		"status": "CAPTURED", "amount": "1000", "payment_method.entry_mode": "CHIP",
		"payment_method.card.brand": "VISA", "payment_method.card.masked_number_last4": "XXXXXXXXXXXX0016",
		"payment_method.result": "00",
	} {
		if got := apitest.Dig(txn, path); got != v {
			t.Errorf("transaction %s = %v, want %v (%s)", path, got, v, r.Body)
		}
	}
	if got := apitest.Dig(txn, "payment_method.card.authcode"); got != apitest.Dig(d, "response.data.host.approvalCode") {
		t.Errorf("authcode %v, terminal approval code %v", got, apitest.Dig(d, "response.data.host.approvalCode"))
	}
}

// The SDKs' spellings: Node 3.10.10's ecrId, amount and numeric requestId; PHP's
// zero-padded amounts; the .NET path with a merchant.
func TestDeviceSpellings(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	node := `{"channel":"CP","country":"US","reference":11377,"request":{"message":"MSG","data":{"command":"Sale","requestId":11377,"ecrId":12,` +
		`"data":{"params":{"clerkId":"1234"},"transaction":{"amount":"15.00","taxAmount":1.5,"cardAcquisition":"C"}}}},"notifications":{}}`
	r := env.Do("POST", "/devices", apitest.APIHeader(tok), node)
	if r.Status != 200 {
		t.Fatalf("node: %d %s", r.Status, r.Body)
	}
	d := r.JSON(t)
	if apitest.Dig(d, "response.requestId") != "11377" || apitest.Dig(d, "response.EcrId") != "12" || apitest.Dig(d, "response.data.host.baseAmount") != "15.00" || d["currency"] != "USD" {
		t.Errorf("node spelling answered %s", r.Body)
	}
	php := strings.Replace(apitest.MICBody("Sale", `{"transaction":{"baseAmount":"0010.00","tipAmount":"001.05"}}`), `"EcrId":"13"`, `"EcrId":"1"`, 1)
	r = env.Do("POST", "/merchants/"+apitest.MerchantTwo+"/devices", apitest.APIHeader(tok), php)
	d = r.JSON(t)
	if r.Status != 200 || apitest.Dig(d, "response.data.host.totalAmount") != "11.05" || d["merchant_id"] != apitest.MerchantTwo {
		t.Errorf("php spelling on the merchant path: %d %s", r.Status, r.Body)
	}
}

func TestDeviceChainedCommands(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	txn := func(id string) map[string]any {
		t.Helper()
		return env.Do("GET", "/transactions/"+id, apitest.APIHeader(tok), "").JSON(t)
	}
	// PreAuth, then AuthCompletion by the device request id (the Node SDK's way).
	auth := env.MIC(tok, "PreAuth", `{"transaction":{"amount":"20.00"}}`)
	authTrn := apitest.Dig(auth, "response.data.host.referenceNumber").(string)
	if s := txn(authTrn)["status"]; s != "PREAUTHORIZED" {
		t.Fatalf("preauth status %v", s)
	}
	capture := env.MIC(tok, "AuthCompletion", fmt.Sprintf(`{"transaction":{"amount":"22.00","referenceNumber":%q}}`, auth["id"]))
	if apitest.Dig(capture, "response.cmdResult.result") != "Success" {
		t.Fatalf("capture: %v", capture)
	}
	if got := txn(authTrn); got["status"] != "CAPTURED" || got["amount"] != "2200" {
		t.Errorf("captured: %v %v", got["status"], got["amount"])
	}
	// A sale refunded by its tranNo (Java's withTerminalRefNumber) ...
	sale := env.MIC(tok, "Sale", `{"transaction":{"baseAmount":"5.00"}}`)
	saleTrn := apitest.Dig(sale, "response.data.host.referenceNumber").(string)
	refund := env.MIC(tok, "Refund", fmt.Sprintf(`{"transaction":{"totalAmount":"5.00","tranNo":%q}}`, apitest.Dig(sale, "response.data.host.tranNo")))
	refundTrn := apitest.Dig(refund, "response.data.host.referenceNumber").(string)
	if r := txn(refundTrn); r["type"] != "REFUND" || r["amount"] != "500" {
		t.Errorf("linked refund: %v", r)
	}
	// ... another voided by host.referenceNumber, its tip adjusted before.
	sale2 := env.MIC(tok, "Sale", `{"transaction":{"baseAmount":"7.00"}}`)
	trn2 := apitest.Dig(sale2, "response.data.host.referenceNumber").(string)
	tip := env.MIC(tok, "TipAdjust", fmt.Sprintf(`{"transaction":{"tipAmount":"1.50","referenceNumber":%q}}`, trn2))
	admin := env.Do("GET", "/_sandbox/transactions/"+trn2, map[string]string{}, "")
	if apitest.Dig(tip, "response.data.host.tipAmount") != "1.50" || !strings.Contains(string(admin.Body), `"gratuity_amount":"150"`) {
		t.Errorf("tip adjust: %v", tip)
	}
	env.MIC(tok, "Void", fmt.Sprintf(`{"transaction":{"referenceNumber":%q}}`, trn2))
	if s := txn(trn2)["status"]; s != "REVERSED" {
		t.Errorf("voided sale status %v", s)
	}
	// A void of something the terminal never did: the host refuses it, and the
	// command completes DECLINED with a cmdResult the SDKs parse without throwing.
	bad := env.MIC(tok, "Void", `{"transaction":{"referenceNumber":"9999"}}`)
	if bad["status"] != "DECLINED" || apitest.Dig(bad, "action.result_code") != "ERROR" || apitest.Dig(bad, "response.cmdResult.result") != "Success" ||
		apitest.Dig(bad, "response.cmdResult.errorCode") != "ERR020" || apitest.Dig(bad, "response.data.host.responseText") != "ERROR" {
		t.Errorf("void of nothing: %v", bad)
	}
	if s := txn(saleTrn)["status"]; s != "CAPTURED" {
		t.Errorf("refunded sale status %v", s)
	}
}

func TestDeviceOtherCommands(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	verify := env.MIC(tok, "CardVerify", `{"params":{"tokenRequest":"0"},"transaction":{}}`)
	trn := apitest.Dig(verify, "response.data.host.referenceNumber").(string)
	if s := env.Do("GET", "/transactions/"+trn, apitest.APIHeader(tok), "").JSON(t)["status"]; s != "VERIFIED" {
		t.Errorf("verify status %v", s)
	}
	standalone := env.MIC(tok, "Refund", `{"transaction":{"totalAmount":"3.00"}}`)
	if apitest.Dig(standalone, "response.data.payment.transactionType") != "Refund" {
		t.Errorf("standalone refund: %v", standalone)
	}
	for _, cmd := range []string{"Ping", "LineItemDisplay", "CancelTransaction"} {
		d := env.MIC(tok, cmd, "")
		if d["status"] != "COMPLETE" || apitest.Dig(d, "response.cmdResult.result") != "Success" || apitest.Dig(d, "response.response") != cmd {
			t.Errorf("%s: %v", cmd, d)
		}
	}
	env.MIC(tok, "Sale", `{"transaction":{"baseAmount":"10.00"}}`)
	report := env.MIC(tok, "GetBatchReport", "")
	// The sale and the standalone refund: 10.00 - 3.00.
	if apitest.Dig(report, "response.data.batchRecord.batchStatus") != "OPEN" || apitest.Dig(report, "response.data.batchRecord.totalCnt") != 2.0 ||
		apitest.Dig(report, "response.data.batchRecord.totalAmount") != "7.00" {
		t.Errorf("batch report: %v", report)
	}
	eod := env.MIC(tok, "EODProcessing", "")
	batch := apitest.Dig(eod, "response.data.host.batchId")
	if batch == nil || apitest.Dig(eod, "response.data.batchRecord.batchStatus") != "CLOSED" || apitest.Dig(eod, "response.data.batchRecord.totalAmount") != "7.00" {
		t.Errorf("end of day: %v", eod)
	}
	r := env.Do("GET", "/_sandbox/batches/BAT_"+batch.(string), map[string]string{}, "")
	if !strings.Contains(string(r.Body), `"CLOSED"`) {
		t.Errorf("batch after end of day: %d %s", r.Status, r.Body)
	}
	// The batch summary names the terminal whose end of day closed it.
	summary := env.Do("GET", "/batches/BAT_"+batch.(string), apitest.APIHeader(tok), "")
	if got := summary.JSON(t)["device_reference"]; summary.Status != 200 || got != "DEV_00000000000000000000000000000001" {
		t.Errorf("device_reference after end of day: %d %v", summary.Status, got)
	}
}

// A terminal's end of day closes its own batch, of its commands' currency, even when
// its account opened a batch in another currency since; its reports read that batch.
func TestEndOfDayClosesTheTerminalsCurrency(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	sale := env.MIC(tok, "Sale", `{"transaction":{"baseAmount":"10.00"}}`)
	terminalBatch := "BAT_" + apitest.Dig(sale, "response.data.host.batchId").(string)
	eur := env.MustCharge(tok, inCurrency(apitest.SaleBody("4600", "AUTO", apitest.ManualCard), "EUR"))
	if eur["batch_id"] == terminalBatch {
		t.Fatalf("the EUR sale joined the terminal's USD batch %s", terminalBatch)
	}
	report := env.MIC(tok, "GetBatchReport", "")
	if got := apitest.Dig(report, "response.data.batchRecord.batchId"); "BAT_"+fmt.Sprint(got) != terminalBatch {
		t.Errorf("the batch report read batch %v, want the terminal's %s", got, terminalBatch)
	}
	eod := env.MIC(tok, "EODProcessing", "")
	if got := apitest.Dig(eod, "response.data.host.batchId"); "BAT_"+fmt.Sprint(got) != terminalBatch || apitest.Dig(eod, "response.data.batchRecord.totalAmount") != "10.00" {
		t.Errorf("end of day: batch %v, total %v; want %s, 10.00", got, apitest.Dig(eod, "response.data.batchRecord.totalAmount"), terminalBatch)
	}
	if got := env.mustGet(tok, "/batches/"+eur["batch_id"].(string)); got["status"] != "OPEN" || got["amount"] != "4600" {
		t.Errorf("the EUR batch after the end of day: %v %v", got["status"], got["amount"])
	}
}

func TestDeviceErrors(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	restricted := env.MustToken(apitest.RestrictedApp, apitest.RestrictedKey, "")
	sale := apitest.MICBody("Sale", `{"transaction":{"baseAmount":"10.00"}}`)
	tests := []struct {
		name string
		tok  string
		body string
		want apitest.GPError
	}{
		{"no request", tok, `{"channel":"CP"}`, apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields request")},
		{"no command", tok, strings.Replace(sale, `"command":"Sale",`, "", 1),
			apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields request.data.command")},
		{"no requestId", tok, strings.Replace(sale, `"requestId":"10001",`, "", 1),
			apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields request.data.requestId")},
		{"not a UPA command", tok, apitest.MICBody("Teleport", ""),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "request.data.command contains unexpected data")},
		{"amount not an amount", tok, apitest.MICBody("Sale", `{"transaction":{"baseAmount":"10.001"}}`),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "request.data.data.transaction.baseAmount contains unexpected data")},
		{"sale without amount", tok, apitest.MICBody("Sale", `{"transaction":{}}`),
			apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields request.data.data.transaction.baseAmount")},
		{"unknown UPA member", tok, apitest.MICBody("Sale", `{"transaction":{"baseAmount":"1.00","pan":"4111"}}`),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: request.data.data.transaction.pan")},
		{"live configuration without devices", restricted, sale,
			apitest.Err(403, "ACTION_NOT_AUTHORIZED", "40212", "Permission not enabled to execute action")},
	}
	for _, tc := range tests {
		r := env.Do("POST", "/devices", apitest.APIHeader(tc.tok), tc.body)
		if got := r.GPError(t); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if n := len(env.mustDevices("")); n != 5 {
		t.Fatalf("devices: %d, want the fixtures' 5", n)
	}

	// An inactive terminal, then none at all.
	env.MustAdmin("POST", "/_sandbox/devices/DEV_00000000000000000000000000000001", `{"status":"INACTIVE"}`)
	if got := env.Do("POST", "/devices", apitest.APIHeader(tok), sale).GPError(t); got != (apitest.Err(400, "INVALID_ACTION", "40290", "Device DEV_00000000000000000000000000000001 is not active")) {
		t.Errorf("inactive: %+v", got)
	}
	env.MustReseed(func(f *sandbox.Fixtures) { f.Devices = nil })
	tok = env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	want := apitest.Err(404, "RESOURCE_NOT_FOUND", "40118", "Device for account TRA_00000000000000000000000000000001 of merchant MER_00000000000000000000000000000001 not found at this location.")
	if got := env.Do("POST", "/devices", apitest.APIHeader(tok), sale).GPError(t); got != want {
		t.Errorf("no device: %+v", got)
	}
}

// INITIATED mode: the answer comes before the card; a command sent meanwhile waits
// its turn; an idempotency key is consumed like elsewhere.
func TestDeviceInitiatedMode(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	r := env.Do("POST", "/_sandbox/devices/DEV_00000000000000000000000000000001", apitest.JSONHeader(), `{"mode":"INITIATED"}`)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"mode":"INITIATED"`) {
		t.Fatalf("set mode: %d %s", r.Status, r.Body)
	}
	sale := apitest.MICBody("Sale", `{"transaction":{"baseAmount":"10.00","tipAmount":"2.00"}}`)
	first := env.Do("POST", "/devices", apitest.APIHeader(tok, "X-GP-Idempotency", "mic-1"), sale)
	d := first.JSON(t)
	if first.Status != 200 || d["status"] != "INITIATED" || apitest.Dig(d, "action.result_code") != "SUCCESS" || d["response"] != nil {
		t.Fatalf("initiated: %d %s", first.Status, first.Body)
	}
	again := env.Do("POST", "/devices", apitest.APIHeader(tok, "X-GP-Idempotency", "mic-1"), sale)
	if got := again.GPError(t); got.Code != "DUPLICATE_ACTION" || !strings.Contains(got.Description, d["id"].(string)) {
		t.Errorf("repeat key: %+v", got)
	}
	ping := env.MIC(tok, "Ping", "")
	if ping["status"] != "INITIATED" || ping["response"] != nil {
		t.Errorf("a ping behind the sale: %v", ping)
	}
	if got := env.Do("POST", "/_sandbox/device-requests/"+ping["id"].(string)+"/present", apitest.JSONHeader(), `{}`).GPError(t); got !=
		apitest.Err(400, "INVALID_ACTION", "40290", "Device request "+ping["id"].(string)+" is waiting behind "+d["id"].(string)+" on device DEV_00000000000000000000000000000001") {
		t.Errorf("presenting for a queued command: %+v", got)
	}
	c := env.MustAdmin("POST", "/_sandbox/device-requests/"+d["id"].(string)+"/present", `{"card":"mastercard_manual","tip":"300"}`)
	if c["status"] != "COMPLETE" || apitest.Dig(c, "response.data.payment.cardType") != "MASTERCARD" || apitest.Dig(c, "response.data.host.totalAmount") != "13.00" {
		t.Errorf("presented: %v", c)
	}
	if got := env.Do("GET", "/_sandbox/device-requests/"+ping["id"].(string), nil, "").JSON(t); got["status"] != "COMPLETE" || apitest.Dig(got, "response.cmdResult.result") != "Success" {
		t.Errorf("the ping once the sale completed: %v", got)
	}
	if got := env.Do("POST", "/_sandbox/device-requests/"+d["id"].(string)+"/present", apitest.JSONHeader(), `{}`).GPError(t); got.Detail != "40290" {
		t.Errorf("second presentation: %+v", got)
	}
}

// mustDevices lists the terminals GET /_sandbox/devices answers for query: "" for
// every one, "order_id=ORD_..." for those an order delivered. Any answer but a 200
// with a list fails the test.
func (env *sandboxEnv) mustDevices(query string) []map[string]any {
	env.T.Helper()
	path := "/_sandbox/devices"
	if query != "" {
		path += "?" + query
	}
	r := env.Do("GET", path, nil, "")
	var list struct {
		Devices []map[string]any `json:"devices"`
	}
	if err := json.Unmarshal(r.Body, &list); err != nil || r.Status != 200 || list.Devices == nil {
		env.T.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
	}
	return list.Devices
}

// mustDevice reads one terminal from GET /_sandbox/devices.
func (env *sandboxEnv) mustDevice(id string) map[string]any {
	env.T.Helper()
	devices := env.mustDevices("")
	for _, d := range devices {
		if d["id"] == id {
			return d
		}
	}
	env.T.Fatalf("no device %s in %v", id, devices)
	return nil
}

// hook is a status_url listener: each notification's body and signature.
type hook struct {
	URL   string
	posts chan [2]string
}

func mustHook(t *testing.T) hook {
	t.Helper()
	h := hook{posts: make(chan [2]string, 8)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.posts <- [2]string{string(b), r.Header.Get("X-GP-Signature")}
	}))
	t.Cleanup(srv.Close)
	h.URL = srv.URL + "/hook"
	return h
}

// next waits for the next notification, failing when the test's time runs out.
func (h hook) next(t *testing.T) (body, signature string) {
	t.Helper()
	p := testrun.Receive(t, "a notification", h.posts)
	return p[0], p[1]
}

func micBodyNotified(command, data, statusURL string) string {
	return strings.Replace(apitest.MICBody(command, data), `"notifications":{}`, `"notifications":{"status_url":"`+statusURL+`"}`, 1)
}

// A command that completes notifies its status_url with the device request as POST
// /devices answered it, signed like order notifications.
func TestDeviceNotification(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	h := mustHook(t)
	r := env.Do("POST", "/devices", apitest.APIHeader(tok), micBodyNotified("Sale", `{"transaction":{"baseAmount":"10.00"}}`, h.URL))
	if r.Status != 200 {
		t.Fatalf("sale: %d %s", r.Status, r.Body)
	}
	body, signature := h.next(t)
	if body != string(r.Body) {
		t.Errorf("notification body\n%s\nwant the answer\n%s", body, r.Body)
	}
	if want := sandbox.Sign([]byte(body), apitest.PartnerKey); signature != want {
		t.Errorf("X-GP-Signature %q, want %q", signature, want)
	}
	id := r.JSON(t)["id"].(string)
	list := env.Do("GET", "/_sandbox/notifications?order_id="+id, map[string]string{}, "").JSON(t)
	n, _ := list["notifications"].([]any)
	if len(n) != 1 || apitest.Dig(n[0].(map[string]any), "order_status") != "COMPLETE" || apitest.Dig(n[0].(map[string]any), "action") != "PROCESS_DEVICE_COMMAND" {
		t.Errorf("admin notifications: %v", list)
	}
}

// In INITIATED mode a waiting command completes by itself with the terminal's default
// card once the terminal delay has passed on the sandbox clock, and notifies.
func TestDeviceTerminalDelay(t *testing.T) {
	env := mustSandbox(t, func(c *app.Config) { c.TerminalDelay = 2 * time.Second })
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	h := mustHook(t)
	env.MustAdmin("POST", "/_sandbox/devices/DEV_00000000000000000000000000000001", `{"mode":"INITIATED"}`)
	r := env.Do("POST", "/devices", apitest.APIHeader(tok), micBodyNotified("Sale", `{"transaction":{"baseAmount":"10.00"}}`, h.URL))
	if d := r.JSON(t); r.Status != 200 || d["status"] != "INITIATED" {
		t.Fatalf("sale: %d %s", r.Status, r.Body)
	}
	id := r.JSON(t)["id"].(string)
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"1s"}`)
	if got := env.Do("GET", "/_sandbox/device-requests/"+id, map[string]string{}, "").JSON(t); got["status"] != "INITIATED" {
		t.Errorf("after 1s of a 2s delay: %v", got["status"])
	}
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"1s"}`)
	body, signature := h.next(t)
	state := env.Do("GET", "/_sandbox/device-requests/"+id, map[string]string{}, "")
	if body != string(state.Body) {
		t.Errorf("notification body\n%s\nwant the device request\n%s", body, state.Body)
	}
	if want := sandbox.Sign([]byte(body), apitest.PartnerKey); signature != want {
		t.Errorf("X-GP-Signature %q, want %q", signature, want)
	}
	d := state.JSON(t)
	if d["status"] != "COMPLETE" || apitest.Dig(d, "response.data.payment.cardAcquisition") != "Insert" || apitest.Dig(d, "response.data.host.baseAmount") != "10.00" {
		t.Errorf("completed by itself: %s", state.Body)
	}
	if got := env.Do("POST", "/_sandbox/device-requests/"+id+"/present", apitest.JSONHeader(), `{}`).GPError(t); got.Detail != "40290" {
		t.Errorf("presenting after the delay: %+v", got)
	}
}

// A snapshot restore that brings back a waiting command wakes the terminal delay: with
// the clock frozen past the command's delay, nothing else would, and the command would
// wait for a card for good. The log shows each completion.
func TestDeviceTerminalDelayAfterRestore(t *testing.T) {
	log := &apitest.LockedBuffer{}
	env := mustSandboxWith(t, apitest.Options{Log: log, Configure: []func(*app.Config){func(c *app.Config) { c.TerminalDelay = 2 * time.Second }}})
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	env.MustAdmin("POST", "/_sandbox/devices/DEV_00000000000000000000000000000001", `{"mode":"INITIATED"}`)
	id := env.MIC(tok, "Sale", `{"transaction":{"baseAmount":"10.00"}}`)["id"].(string)
	env.MustAdmin("POST", "/_sandbox/snapshots", `{"name":"waiting"}`)
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"2s"}`)
	completed := `"msg":"terminal delay","device_request_id":"` + id + `"`
	awaitLog(t, log, completed, 1) // the worker has nothing left to wait for

	env.MustAdmin("POST", "/_sandbox/snapshots/waiting/restore", "")
	awaitLog(t, log, completed, 2)
	if d := env.Do("GET", "/_sandbox/device-requests/"+id, nil, "").JSON(t); d["status"] != "COMPLETE" {
		t.Errorf("after the restore and the delay: %v", d["status"])
	}
}

// awaitLog waits until the log holds line n times.
func awaitLog(t *testing.T, log *apitest.LockedBuffer, line string, n int) {
	t.Helper()
	testrun.WaitForValue(t, fmt.Sprintf("%q %d times in the log", line, n), func() int { return strings.Count(log.String(), line) },
		func(count int) bool { return count >= n })
}

// A scenario's terminal outcome chooses what happens at the terminal: the card and
// tip, a customer who cancels, a busy terminal, a host decline; a sequence step per
// command, matched on the UPA command by body.
func TestDeviceScenarioTerminal(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	const scenarios = `version: 1
name: terminal-script
rules:
  - when: {operation: device, body: {request: {data: {command: Sale}}}}
    sequence:
      - then: {terminal: {card: mastercard_manual, tip: "300"}}
      - then: {terminal: {outcome: customer_cancels}}
      - then: {terminal: {outcome: terminal_busy}}
      - then: {terminal: {outcome: host_decline}}
      - then: {terminal: {card: visa_swipe, entry_mode: CONTACTLESS_CHIP}}
`
	env.MustInstallScenario(scenarios)
	header := apitest.APIHeader(tok, "X-Sandbox-Scenario", "terminal-script")
	sale := apitest.MICBody("Sale", `{"transaction":{"baseAmount":"10.00"}}`)
	send := func() map[string]any {
		r := env.Do("POST", "/devices", header, sale)
		if r.Status != 200 {
			t.Fatalf("sale: %d %s", r.Status, r.Body)
		}
		return r.JSON(t)
	}
	if d := send(); apitest.Dig(d, "response.data.payment.cardType") != "MASTERCARD" || apitest.Dig(d, "response.data.host.totalAmount") != "13.00" {
		t.Errorf("card and tip: %v", d["response"])
	}
	if d := send(); d["status"] != "DECLINED" || apitest.Dig(d, "response.cmdResult.errorCode") != "ERR018" {
		t.Errorf("customer cancels: %v", d)
	}
	if got := env.Do("POST", "/devices", header, sale).GPError(t); got.Detail != "40290" || !strings.Contains(got.Description, "is busy") {
		t.Errorf("terminal busy: %+v", got)
	}
	if d := send(); d["status"] != "DECLINED" || apitest.Dig(d, "response.data.host.responseCode") != "05" {
		t.Errorf("host decline: %v", d)
	}
	if d := send(); apitest.Dig(d, "response.data.payment.cardAcquisition") != "Contactless" {
		t.Errorf("entry mode: %v", d["response"])
	}
	// Other commands are not matched: a Ping passes.
	if r := env.Do("POST", "/devices", header, apitest.MICBody("Ping", "")); r.Status != 200 || !strings.Contains(string(r.Body), `"result":"Success"`) {
		t.Errorf("ping: %d %s", r.Status, r.Body)
	}
	bad := strings.Replace(scenarios, "operation: device", "operation: transaction", 1)
	if r := env.Do("POST", "/_sandbox/scenarios", map[string]string{"Content-Type": "application/yaml"}, bad); r.Status != 400 || !strings.Contains(string(r.Body), "terminal applies only to the device operation") {
		t.Errorf("terminal on another operation: %d %s", r.Status, r.Body)
	}
}

// A card number keyed in at a waiting terminal is read once and kept only masked: not
// in the database file, the journal, the log or the admin views of terminals and
// device requests. A terminal's default card and a scenario's choice, which are kept
// until a command runs, take only test card names.
func TestDeviceKeyedCardIsNotKept(t *testing.T) {
	env := mustSinkSandbox(t, apitest.Options{})
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	const dev = "/_sandbox/devices/DEV_00000000000000000000000000000001"
	if r := env.Do("POST", dev, apitest.JSONHeader(), `{"mode":"INITIATED"}`); r.Status != 200 {
		t.Fatalf("set mode: %d %s", r.Status, r.Body)
	}
	cards := "(visa_chip, visa_contactless, visa_swipe, visa_chip_pin_decline, expired_swipe, mastercard_manual, amex_manual)"
	for card, want := range map[string]string{
		panVisa:                  "card contains unexpected data: " + carddata.Mask(panVisa) + " is not a terminal test card " + cards,
		"visa_chip_pin_declined": "card contains unexpected data: visa_chip_pin_declined is not a terminal test card " + cards,
	} {
		if got := env.Do("POST", dev, apitest.JSONHeader(), `{"card":"`+card+`"}`).GPError(t); got != apitest.Err(400, "INVALID_REQUEST_DATA", "40213", want) {
			t.Errorf("%s as the default card: %+v, want 40213 %s", carddata.Mask(card), got, want)
		}
	}
	// The longest test card name is a default card like any other.
	if got := env.MustAdmin("POST", dev, `{"card":"visa_chip_pin_decline"}`); got["card"] != "visa_chip_pin_decline" {
		t.Errorf("the wrong-PIN card as the default card: %v", got)
	}
	env.MustAdmin("POST", dev, `{"card":"visa_chip"}`)
	d := env.Do("POST", "/devices", apitest.APIHeader(tok), apitest.MICBody("Sale", `{"transaction":{"baseAmount":"10.00"}}`)).JSON(t)
	if c := env.MustAdmin("POST", "/_sandbox/device-requests/"+d["id"].(string)+"/present", `{"card":"`+panVisa+`"}`); c["status"] != "COMPLETE" || apitest.Dig(c, "response.data.payment.cardType") != "VISA" {
		t.Fatalf("presented: %v", c)
	}
	env.mustHoldNone(t, []string{"/_sandbox/devices", "/_sandbox/device-requests/" + d["id"].(string)}, true, panVisa)
}

// A wrong PIN keyed at the terminal, scripted by a scenario or presented through the
// admin API, is the issuer's 55 (incorrect PIN): a DECLINED transaction. A pin the
// terminal cannot key is refused.
func TestDeviceWrongPIN(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	const scenarios = `version: 1
name: wrong-pin
rules:
  - when: {operation: device}
    then: {terminal: {card: visa_contactless, pin: wrong}}
`
	env.MustInstallScenario(scenarios)
	sale := apitest.MICBody("Sale", `{"transaction":{"baseAmount":"10.00"}}`)
	r := env.Do("POST", "/devices", apitest.APIHeader(tok, "X-Sandbox-Scenario", "wrong-pin"), sale)
	d := r.JSON(t)
	if d["status"] != "DECLINED" || apitest.Dig(d, "response.data.host.responseCode") != "55" || apitest.Dig(d, "response.data.payment.cardAcquisition") != "Contactless" {
		t.Fatalf("scripted wrong PIN: %d %s", r.Status, r.Body)
	}
	txn := env.Do("GET", "/transactions/"+apitest.Dig(d, "response.data.host.referenceNumber").(string), apitest.APIHeader(tok), "").JSON(t)
	if txn["status"] != "DECLINED" || apitest.Dig(txn, "payment_method.result") != "55" {
		t.Errorf("the transaction: %v", txn)
	}

	env.MustAdmin("POST", "/_sandbox/devices/DEV_00000000000000000000000000000001", `{"mode":"INITIATED"}`)
	id := env.MIC(tok, "Sale", `{"transaction":{"baseAmount":"10.00"}}`)["id"].(string)
	if got := env.Do("POST", "/_sandbox/device-requests/"+id+"/present", apitest.JSONHeader(), `{"pin":"1234"}`).GPError(t); got.Detail != "40213" {
		t.Errorf("pin 1234: %+v", got)
	}
	done := env.MustAdmin("POST", "/_sandbox/device-requests/"+id+"/present", `{"pin":"wrong"}`)
	if done["status"] != "DECLINED" || apitest.Dig(done, "response.data.host.responseCode") != "55" {
		t.Errorf("presented with a wrong PIN: %v", done)
	}
	bad := strings.Replace(scenarios, "pin: wrong", "pin: right", 1)
	if r := env.Do("POST", "/_sandbox/scenarios", map[string]string{"Content-Type": "application/yaml"}, bad); r.Status != 400 || !strings.Contains(string(r.Body), `pin \"right\": want wrong`) {
		t.Errorf("pin: right: %d %s", r.Status, r.Body)
	}
}

// A tip presented with the card is held to the base amount, as the tip screen's is,
// and refusing it leaves the command waiting.
func TestPresentedTipWithinBase(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	env.MustAdmin("POST", "/_sandbox/devices/DEV_00000000000000000000000000000001", `{"mode":"INITIATED"}`)
	d := env.Do("POST", "/devices", apitest.APIHeader(tok), apitest.MICBody("Sale", `{"transaction":{"baseAmount":"10.00"}}`)).JSON(t)
	id := d["id"].(string)
	over := env.Do("POST", "/_sandbox/device-requests/"+id+"/present", apitest.JSONHeader(), `{"card":"mastercard_manual","tip":"99999999999999999999"}`)
	if got := over.GPError(t); got != (apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "tip contains unexpected data: 99999999999999999999 is more than the base amount 1000")) {
		t.Errorf("tip over the base: %+v", got)
	}
	if c := env.MustAdmin("POST", "/_sandbox/device-requests/"+id+"/present", `{"card":"mastercard_manual","tip":"1000"}`); c["status"] != "COMPLETE" || apitest.Dig(c, "response.data.host.totalAmount") != "20.00" {
		t.Errorf("tip of the whole base: %v", c)
	}
}

// A rule may name one UPA command: device.sale applies to a Sale, whichever SDK spelled
// it, and not to a Refund; device still applies to every command.
func TestDeviceScenarioPerCommand(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	env.MustInstallScenario(`version: 1
name: sale-only
rules:
  - when: {operation: device.sale}
    then: {terminal: {card: mastercard_manual}}
`)
	env.MustInstallScenario(`version: 1
name: every-command
rules:
  - when: {operation: device}
    then: {terminal: {card: amex_manual}}
`)
	sale := apitest.MICBody("Sale", `{"transaction":{"baseAmount":"10.00"}}`)
	node := `{"channel":"CP","country":"US","reference":11377,"request":{"message":"MSG","data":{"command":"Sale","requestId":11377,"ecrId":12,` +
		`"data":{"transaction":{"amount":"15.00","cardAcquisition":"C"}}}},"notifications":{}}`
	refund := apitest.MICBody("Refund", `{"transaction":{"totalAmount":"5.00"}}`)
	for _, c := range []struct {
		scenario, name, body, rule, brand string
	}{
		{"sale-only", "sale", sale, "sale-only#0", "MASTERCARD"},
		{"sale-only", "node sale", node, "sale-only#0", "MASTERCARD"},
		{"sale-only", "refund", refund, "", "VISA"},
		{"every-command", "sale", sale, "every-command#0", "AMEX"},
		{"every-command", "refund", refund, "every-command#0", "AMEX"},
	} {
		r := env.Do("POST", "/devices", apitest.APIHeader(tok, "X-Sandbox-Scenario", c.scenario), c.body)
		if r.Status != 200 {
			t.Fatalf("%s %s: %d %s", c.scenario, c.name, r.Status, r.Body)
		}
		if got := r.Header.Get("X-Sandbox-Rule"); got != c.rule {
			t.Errorf("%s %s: rule %q, want %q", c.scenario, c.name, got, c.rule)
		}
		if got := apitest.Dig(r.JSON(t), "response.data.payment.cardType"); got != c.brand {
			t.Errorf("%s %s: card %v, want %s", c.scenario, c.name, got, c.brand)
		}
	}
}

// Each terminal outcome works with a device.<command> rule; host_decline declines
// with the rule's result code, 05 when it names none; terminal_busy stores nothing.
func TestDeviceScenarioPerCommandOutcomes(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	const scenarios = `version: 1
name: per-command
rules:
  - when: {operation: device.sale}
    sequence:
      - then: {terminal: {card: visa_swipe, entry_mode: CONTACTLESS_CHIP, tip: "200"}}
      - then: {terminal: {pin: wrong}}
      - then: {terminal: {outcome: customer_cancels}}
      - then: {terminal: {outcome: terminal_timeout}}
      - then: {terminal: {outcome: terminal_busy}}
      - then: {terminal: {outcome: host_decline, result: "51"}}
  - when: {operation: device.refund}
    then: {terminal: {outcome: host_decline}}
`
	env.MustInstallScenario(scenarios)
	header := apitest.APIHeader(tok, "X-Sandbox-Scenario", "per-command")
	sale := apitest.MICBody("Sale", `{"transaction":{"baseAmount":"10.00"}}`)
	send := func(body string) map[string]any {
		t.Helper()
		r := env.Do("POST", "/devices", header, body)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		return r.JSON(t)
	}
	if d := send(sale); apitest.Dig(d, "response.data.payment.cardAcquisition") != "Contactless" || apitest.Dig(d, "response.data.host.tipAmount") != "2.00" {
		t.Errorf("card, entry mode and tip: %v", d["response"])
	}
	if d := send(sale); d["status"] != "DECLINED" || apitest.Dig(d, "response.data.host.responseCode") != "55" {
		t.Errorf("wrong pin: %v", d)
	}
	if d := send(sale); apitest.Dig(d, "response.cmdResult.errorCode") != "ERR018" {
		t.Errorf("customer cancels: %v", d)
	}
	if d := send(sale); apitest.Dig(d, "response.cmdResult.errorCode") != "ERR019" {
		t.Errorf("terminal timeout: %v", d)
	}
	before := env.Do("GET", "/_sandbox/devices", nil, "").Body
	r := env.Do("POST", "/devices", header, sale)
	if got := r.GPError(t); r.Status != 400 || got.Code != "INVALID_ACTION" || got.Detail != "40290" || !strings.Contains(got.Description, "is busy with another command") {
		t.Errorf("terminal busy: %d %+v", r.Status, got)
	}
	if after := env.Do("GET", "/_sandbox/devices", nil, "").Body; string(after) != string(before) {
		t.Errorf("a busy terminal changed: %s, was %s", after, before)
	}
	d := send(sale)
	if d["status"] != "DECLINED" || apitest.Dig(d, "response.data.host.responseCode") != "51" {
		t.Errorf("host decline 51: %v", d)
	}
	trn, _ := apitest.Dig(d, "response.data.host.referenceNumber").(string)
	if got := apitest.Dig(env.Do("GET", "/transactions/"+trn, apitest.APIHeader(tok), "").JSON(t), "status"); got != "DECLINED" {
		t.Errorf("the declined sale's transaction is %v", got)
	}
	if d := send(apitest.MICBody("Refund", `{"transaction":{"totalAmount":"5.00"}}`)); d["status"] != "DECLINED" || apitest.Dig(d, "response.data.host.responseCode") != "05" {
		t.Errorf("host decline on a refund: %v", d)
	}
	// A void reads no card: the sale's rule leaves it alone.
	if d := send(apitest.MICBody("Void", `{"transaction":{"referenceNumber":"`+trn+`"}}`)); apitest.Dig(d, "response.response") != "Void" {
		t.Errorf("void: %v", d)
	}
}

// An unknown device.<command> is refused at load, naming the rule and the known
// commands; so is a card chosen for a command that reads none.
func TestDeviceScenarioUnknownCommand(t *testing.T) {
	env := mustSandbox(t)
	for yaml, want := range map[string]string{
		"version: 1\nname: typo\nrules:\n  - when: {operation: device.salee}\n    then: pass\n":                                `rules[0].when.operation: unknown device command \"device.salee\" (want device.sale, device.preauth, device.capture, device.refund, device.void, device.tip_adjust, device.verify, device.end_of_day, device.batch_report, device.line_item, device.ping, device.cancel, or device for every command)`,
		"version: 1\nname: ping-card\nrules:\n  - when: {operation: device.ping}\n    then: {terminal: {card: visa_swipe}}\n":  `rules[0].then.terminal: terminal: device.ping reads no card`,
		"version: 1\nname: stray-result\nrules:\n  - when: {operation: device.sale}\n    then: {terminal: {result: \"51\"}}\n": `result is the host's decline code: it needs outcome host_decline`,
	} {
		r := env.Do("POST", "/_sandbox/scenarios", map[string]string{"Content-Type": "application/yaml"}, yaml)
		if r.Status != 400 || !strings.Contains(string(r.Body), want) {
			t.Errorf("%s: %d %s, want %s", yaml, r.Status, r.Body, want)
		}
	}
}
