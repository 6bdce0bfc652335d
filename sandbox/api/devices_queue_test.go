package api_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// A terminal queues the commands sent while it is busy, in order; each completes in
// turn. These tests follow the official Node SDK's Meet in the Cloud tests
// (test/Integration/Gateways/Terminals/UPA/UpaMic.test.ts), which send their
// commands back to back to a terminal answering INITIATED.

const queueDevice = "DEV_00000000000000000000000000000001"

// nodeMIC is a MiC request as the Node SDK 3.10.14 writes it: the envelope of
// UpaMicInterface.ts (account_name from its configuration, reference = requestId,
// notifications without a status_url) around the UPA command of UpaController.ts.
func nodeMIC(command string, requestID int, data string) string {
	return fmt.Sprintf(`{"account_name":"transaction_processing","channel":"CP","country":"US","currency":"USD","reference":"%d",`+
		`"request":{"message":"MSG","data":{"command":%q,"requestId":"%d","data":%s}},"notifications":{}}`, requestID, command, requestID, data)
}

// nodeUpaMic is one request of UpaMic.test.ts: its test, and its UPA command and data
// with "{first}" for the device request id the test's first answer gave.
type nodeUpaMic struct {
	test, command, data string
	chained             int // the index of the request whose answer's id it names; -1 for none
}

// nodeUpaMicRequests are UpaMic.test.ts's twelve requests, in file order.
var nodeUpaMicRequests = []nodeUpaMic{
	{"credit sale", "Sale", `{"params":{"tokenRequest":"0"},"transaction":{"baseAmount":"15.00"}}`, -1},
	{"credit sale with terminal ref number", "Sale", `{"params":{"tokenRequest":"0"},"transaction":{"baseAmount":"15.00","referenceNumber":"5b0c5e9e-8d8e-4b6e-9a67-1d2f3a4b5c6d"}}`, -1},
	{"line item", "LineItemDisplay", `{"params":{"lineItemLeft":"Line Item #1","lineItemRight":"10.00"}}`, -1},
	{"credit auth", "PreAuth", `{"params":{"tokenRequest":"0"},"transaction":{"baseAmount":"10.00","referenceNumber":"1234"}}`, -1},
	{"credit auth and capture", "PreAuth", `{"params":{"tokenRequest":"0"},"transaction":{"baseAmount":"15.00","referenceNumber":"1234"}}`, -1},
	{"credit auth and capture", "AuthCompletion", `{"params":{},"transaction":{"referenceNumber":"{first}","baseAmount":"15.00"}}`, 4},
	{"credit capture randomId", "AuthCompletion", `{"params":{},"transaction":{"referenceNumber":"0c8f9d1e-2b3a-4c5d-8e7f-6a5b4c3d2e1f","baseAmount":"15.00"}}`, -1},
	{"credit refund", "Sale", `{"params":{"tokenRequest":"0"},"transaction":{"baseAmount":"10.00"}}`, -1},
	{"credit refund", "Refund", `{"params":{},"transaction":{"referenceNumber":"{first}","baseAmount":"10.00","totalAmount":"10.00"}}`, 7},
	{"credit verify", "CardVerify", `{"params":{"tokenRequest":"0"},"transaction":{}}`, -1},
	{"credit void", "Sale", `{"params":{"tokenRequest":"0"},"transaction":{"baseAmount":"10.00"}}`, -1},
	{"credit void", "Void", `{"params":{},"transaction":{"referenceNumber":"{first}"}}`, 10},
}

// sendNodeUpaMic sends UpaMic.test.ts's requests back to back, checks that each is
// answered as the test expects (INITIATED, result_code SUCCESS, no response) and
// returns the device request ids in order.
func sendNodeUpaMic(t *testing.T, env *sandboxEnv, tok string) []string {
	t.Helper()
	ids := make([]string, len(nodeUpaMicRequests))
	for i, c := range nodeUpaMicRequests {
		body := nodeMIC(c.command, 20001+i, c.data)
		if c.command == "LineItemDisplay" {
			// UpaInterface.ts lineItem: a numeric requestId and the lower-case ecrId 12.
			body = strings.Replace(body, `"requestId":"20003"`, `"requestId":20003,"ecrId":12`, 1)
		}
		if c.chained >= 0 {
			body = strings.Replace(body, "{first}", ids[c.chained], 1)
		}
		r := env.Do("POST", "/devices", apitest.APIHeader(tok), body)
		d := r.JSON(t)
		if r.Status != 200 || d["status"] != "INITIATED" || apitest.Dig(d, "action.result_code") != "SUCCESS" || d["response"] != nil {
			t.Fatalf("%s (%s): %d %s", c.test, c.command, r.Status, r.Body)
		}
		ids[i] = d["id"].(string)
	}
	return ids
}

// terminalScreen reads the terminal from the Terminal view: the command on its
// screen ("" for none) and those queued behind it.
func terminalScreen(t *testing.T, env *sandboxEnv, id string) (waiting string, queue []string) {
	t.Helper()
	r := env.Do("GET", "/_sandbox/terminals", nil, "").JSON(t)
	for _, v := range r["terminals"].([]any) {
		term := v.(map[string]any)
		if term["id"] != id {
			continue
		}
		if w, ok := term["waiting"].(map[string]any); ok {
			waiting = w["device_request_id"].(string)
		}
		for _, q := range term["queued"].([]any) {
			queue = append(queue, q.(map[string]any)["device_request_id"].(string))
		}
		return waiting, queue
	}
	t.Fatalf("no terminal %s", id)
	return "", nil
}

func deviceRequestState(t *testing.T, env *sandboxEnv, id string) map[string]any {
	t.Helper()
	return env.Do("GET", "/_sandbox/device-requests/"+id, nil, "").JSON(t)
}

// Node UpaMic.test.ts, every sending test ("credit sale" through "credit void") in
// one run against a terminal answering INITIATED: twelve commands back to back, each
// answered INITIATED; then a card presented at the head of the queue completes the
// commands in order, those that need no customer (the line item, the completions,
// the linked refund, the void) as soon as they reach the head, each chained one
// acting on its original once that completed.
func TestDeviceQueueNodeUpaMic(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	env.MustAdmin("POST", "/_sandbox/devices/"+queueDevice, `{"mode":"INITIATED"}`)
	ids := sendNodeUpaMic(t, env, tok)

	waiting, queue := terminalScreen(t, env, queueDevice)
	if waiting != ids[0] || strings.Join(queue, ",") != strings.Join(ids[1:], ",") {
		t.Fatalf("the terminal holds %s then %v, want %s then %v", waiting, queue, ids[0], ids[1:])
	}
	// The customer presents a card for each command that reads one: the head each time.
	heads := []int{0, 1, 3, 4, 7, 9, 10}
	for _, h := range heads {
		if waiting, _ := terminalScreen(t, env, queueDevice); waiting != ids[h] {
			t.Fatalf("before presenting for %s: the head is %s, want %s", nodeUpaMicRequests[h].test, waiting, ids[h])
		}
		if d := env.MustAdmin("POST", "/_sandbox/devices/"+queueDevice+"/present", `{}`); d["id"] != ids[h] || d["status"] != "COMPLETE" {
			t.Fatalf("presented for %s: %v", nodeUpaMicRequests[h].test, d)
		}
	}
	if waiting, queue := terminalScreen(t, env, queueDevice); waiting != "" || len(queue) != 0 {
		t.Fatalf("after the last: %s %v", waiting, queue)
	}
	states := make([]map[string]any, len(ids))
	for i, id := range ids {
		states[i] = deviceRequestState(t, env, id)
	}
	for i, d := range states {
		want := "COMPLETE"
		if i == 6 {
			want = "DECLINED" // credit capture randomId: the host knows no such transaction
		}
		if d["status"] != want {
			t.Errorf("%s (%s): %v, want %s: %v", nodeUpaMicRequests[i].test, nodeUpaMicRequests[i].command, d["status"], want, d["response"])
		}
	}
	// Completed in order: each one's completion time is not before the previous one's,
	// and the terminal numbered the payments in the order sent.
	tranNos := []string{}
	for _, i := range []int{0, 1, 3, 4, 5, 7, 8, 9, 10, 11} {
		tranNos = append(tranNos, apitest.Dig(states[i], "response.data.host.tranNo").(string))
	}
	if got := strings.Join(tranNos, ","); got != "0001,0002,0003,0004,0005,0006,0007,0008,0009,0010" {
		t.Errorf("terminal numbers in completion order: %s", got)
	}
	txn := func(i int) map[string]any {
		return env.Do("GET", "/transactions/"+apitest.Dig(states[i], "response.data.host.referenceNumber").(string), apitest.APIHeader(tok), "").JSON(t)
	}
	if got := txn(5); got["id"] != apitest.Dig(states[4], "response.data.host.referenceNumber") || got["status"] != "CAPTURED" {
		t.Errorf("the capture of the queued authorization: %v", got)
	}
	if got := txn(3)["status"]; got != "PREAUTHORIZED" {
		t.Errorf("the authorization nobody captured: %v", got)
	}
	if got := txn(8); got["type"] != "REFUND" || got["amount"] != "1000" {
		t.Errorf("the linked refund: %v", got)
	}
	if got := txn(11)["status"]; got != "REVERSED" {
		t.Errorf("the voided sale: %v", got)
	}
}

// The terminal delay completes the head by itself, and the next command's delay
// starts when it reaches the head: with a 2 s delay on a frozen clock, each 2 s step
// completes one customer command.
func TestDeviceQueueTerminalDelay(t *testing.T) {
	env := mustSandbox(t, func(c *app.Config) { c.TerminalDelay = 2 * time.Second })
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	env.MustAdmin("POST", "/_sandbox/devices/"+queueDevice, `{"mode":"INITIATED"}`)
	sale := env.MIC(tok, "Sale", `{"transaction":{"baseAmount":"10.00"}}`)["id"].(string)
	line := env.MIC(tok, "LineItemDisplay", `{"params":{"lineItemLeft":"Coffee","lineItemRight":"3.50"}}`)["id"].(string)
	verify := env.MIC(tok, "CardVerify", `{"transaction":{}}`)["id"].(string)

	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"1s"}`)
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"1s"}`)
	awaitStatus(t, env, sale, "COMPLETE")
	awaitStatus(t, env, line, "COMPLETE")
	if got := deviceRequestState(t, env, verify)["status"]; got != "INITIATED" {
		t.Fatalf("the verify, at the head for no time yet: %v", got)
	}
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"1s"}`)
	if got := deviceRequestState(t, env, verify)["status"]; got != "INITIATED" {
		t.Errorf("the verify, 1 s at the head of a 2 s delay: %v", got)
	}
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"1s"}`)
	awaitStatus(t, env, verify, "COMPLETE")
}

// awaitStatus waits until the terminal delay's worker gave a device request status.
func awaitStatus(t *testing.T, env *sandboxEnv, id, status string) {
	t.Helper()
	testrun.WaitForValue(t, id+" "+status, func() any { return deviceRequestState(t, env, id)["status"] },
		func(got any) bool { return got == status })
}

// The queue is the store's: a restart and a snapshot's restore bring it back, in
// order, and it goes on from its head.
func TestDeviceQueueSurvivesRestartAndRestore(t *testing.T) {
	path := t.TempDir() + "/sandbox.db"
	first := mustSandboxAt(t, path)
	tok := first.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	first.MustAdmin("POST", "/_sandbox/devices/"+queueDevice, `{"mode":"INITIATED"}`)
	a := first.MIC(tok, "Sale", `{"transaction":{"baseAmount":"10.00"}}`)["id"].(string)
	b := first.MIC(tok, "PreAuth", `{"transaction":{"baseAmount":"20.00"}}`)["id"].(string)
	first.MustAdmin("POST", "/_sandbox/snapshots", `{"name":"queued"}`)
	first.DB.Close()

	// Ids seeded apart from the first run's, which the store holds.
	second := mustSandboxAt(t, path, func(c *app.Config) { c.NewIDs = func() sandbox.IDs { return sandbox.NewSeededIDs(2) } })
	tok = second.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	c := second.MIC(tok, "Sale", `{"transaction":{"baseAmount":"30.00"}}`)["id"].(string)
	if waiting, queue := terminalScreen(t, second, queueDevice); waiting != a || strings.Join(queue, ",") != b+","+c {
		t.Fatalf("after the restart: %s %v, want %s [%s %s]", waiting, queue, a, b, c)
	}
	for _, id := range []string{a, b, c} {
		if d := second.MustAdmin("POST", "/_sandbox/devices/"+queueDevice+"/present", `{}`); d["id"] != id {
			t.Fatalf("completed %v, want %s", d["id"], id)
		}
	}
	second.MustAdmin("POST", "/_sandbox/snapshots/queued/restore", "")
	if waiting, queue := terminalScreen(t, second, queueDevice); waiting != a || strings.Join(queue, ",") != b {
		t.Errorf("after the restore: %s %v, want %s [%s]", waiting, queue, a, b)
	}
	if got := deviceRequestState(t, second, b)["status"]; got != "INITIATED" {
		t.Errorf("the restored queue's second command: %v", got)
	}
}

// A terminal holds at most sandbox.MaxTerminalQueue commands; one more is refused
// and stored nowhere, and the terminal takes commands again once one completed.
func TestDeviceQueueBound(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	env.MustAdmin("POST", "/_sandbox/devices/"+queueDevice, `{"mode":"INITIATED"}`)
	sale := apitest.MICBody("Sale", `{"transaction":{"baseAmount":"1.00"}}`)
	for i := range sandbox.MaxTerminalQueue {
		if r := env.Do("POST", "/devices", apitest.APIHeader(tok), sale); r.Status != 200 {
			t.Fatalf("command %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	before := env.Do("GET", "/_sandbox/terminals", nil, "").Body
	want := apitest.Err(400, "INVALID_ACTION", "40290", fmt.Sprintf("Device %s already holds %d commands: wait for some to complete", queueDevice, sandbox.MaxTerminalQueue))
	if got := env.Do("POST", "/devices", apitest.APIHeader(tok), sale).GPError(t); got != want {
		t.Errorf("one command more: %+v, want %+v", got, want)
	}
	if after := env.Do("GET", "/_sandbox/terminals", nil, "").Body; string(after) != string(before) {
		t.Error("a refused command changed the terminal")
	}
	env.MustAdmin("POST", "/_sandbox/devices/"+queueDevice+"/present", `{}`)
	if r := env.Do("POST", "/devices", apitest.APIHeader(tok), sale); r.Status != 200 {
		t.Errorf("once one completed: %d %s", r.Status, r.Body)
	}
}

// A terminal in COMPLETE mode that still holds commands (it was switched back from
// INITIATED) queues a new one behind them, answered INITIATED, rather than refusing it.
func TestDeviceQueueBehindAfterModeChange(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	env.MustAdmin("POST", "/_sandbox/devices/"+queueDevice, `{"mode":"INITIATED"}`)
	sale := env.MIC(tok, "Sale", `{"transaction":{"baseAmount":"10.00"}}`)["id"].(string)
	env.MustAdmin("POST", "/_sandbox/devices/"+queueDevice, `{"mode":"COMPLETE"}`)
	ping := env.MIC(tok, "Ping", "")
	if ping["status"] != "INITIATED" {
		t.Fatalf("a ping to a busy terminal: %v", ping)
	}
	env.MustAdmin("POST", "/_sandbox/devices/"+queueDevice+"/present", `{}`)
	if got := deviceRequestState(t, env, ping["id"].(string))["status"]; got != "COMPLETE" {
		t.Errorf("the ping after the sale %s completed: %v", sale, got)
	}
	if d := env.MIC(tok, "Ping", ""); d["status"] != "COMPLETE" {
		t.Errorf("a ping to the idle terminal: %v", d)
	}
}
