package admin_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/admin"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

const adminToken = "admin-secret-0001"

func withAdminToken(c *app.Config) { c.AdminToken = adminToken }

func adminHeader() map[string]string {
	return map[string]string{"Authorization": "Bearer " + adminToken, "Content-Type": "application/json"}
}

var invalidAdminToken = apitest.Err(401, "NOT_AUTHENTICATED", "40001", "Invalid admin token")

// adminCalls is one call of every admin endpoint, each answering 200 when allowed.
func adminCalls(orderID string) [][3]string {
	return [][3]string{
		{"GET", "/_sandbox/transactions/" + apitest.CapturedOne, ""},
		{"PUT", "/_sandbox/transactions/TRN_Seeded", seededTransaction("TRN_Seeded", "1500")},
		{"GET", "/_sandbox/orders/" + orderID, ""},
		{"POST", "/_sandbox/orders/" + orderID + "/status", `{"status":"CANCELLED"}`},
		{"GET", "/_sandbox/requests", ""},
		{"GET", "/_sandbox/notifications", ""},
		{"GET", "/_sandbox/clock", ""},
		{"POST", "/_sandbox/clock", `{"advance":"1s"}`},
		{"GET", "/_sandbox/scenarios", ""},
		{"PUT", "/_sandbox/scenarios/active", `{"names":[]}`},
		{"GET", "/_sandbox/transactions", ""},
		{"GET", "/_sandbox/orders", ""},
		{"GET", "/_sandbox/scenario-state", ""},
		{"POST", "/_sandbox/snapshots", `{"name":"guarded","overwrite":true}`},
		{"GET", "/_sandbox/snapshots", ""},
		{"POST", "/_sandbox/snapshots/guarded/restore", ""},
		{"GET", "/_sandbox/coverage", ""},
		{"POST", "/_sandbox/reset", ""},
	}
}

func TestAdminTokenGuardsEveryAdminCall(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t, withAdminToken)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	for _, c := range adminCalls(env.MustPlaceOrder(tok, `{}`)) {
		for name, h := range map[string]map[string]string{
			"no token":     apitest.JSONHeader(),
			"API token":    {"Authorization": "Bearer " + tok},
			"wrong token":  {"Authorization": "Bearer admin-secret-0002"},
			"longer token": {"Authorization": "Bearer " + adminToken + "x"},
		} {
			if got := env.Do(c[0], c[1], h, c[2]).GPError(t); got != invalidAdminToken {
				t.Errorf("%s %s with %s: %+v", c[0], c[1], name, got)
			}
		}
	}
	// Refused calls changed nothing: the order is still INITIATED.
	if r := env.Do("GET", "/_sandbox/orders/"+env.MustPlaceOrder(tok, `{}`), adminHeader(), ""); r.Status != 200 {
		t.Fatalf("with the admin token: %d %s", r.Status, r.Body)
	}
	orderID := env.MustPlaceOrder(tok, `{}`)
	for _, c := range adminCalls(orderID) {
		if r := env.Do(c[0], c[1], adminHeader(), c[2]); r.Status != 200 {
			t.Errorf("%s %s with the admin token: %d %s", c[0], c[1], r.Status, r.Body)
		}
	}
	// Health stays open, and the admin token opens no API call.
	if r := env.Do("GET", "/_sandbox/health", nil, ""); r.Status != 200 {
		t.Errorf("health: %d", r.Status)
	}
	r := env.Do("POST", "/merchants/"+apitest.MerchantOne+"/orders", apitest.APIHeader(adminToken), `{}`)
	if got := r.GPError(t); got != (apitest.Err(401, "NOT_AUTHENTICATED", "40001", "Invalid access token")) {
		t.Errorf("admin token on the API: %+v", got)
	}
}

func TestAdminOpenWithoutAdminToken(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	for _, c := range adminCalls(env.MustPlaceOrder(tok, `{}`)) {
		if r := env.Do(c[0], c[1], apitest.JSONHeader(), c[2]); r.Status != 200 {
			t.Errorf("%s %s: %d %s", c[0], c[1], r.Status, r.Body)
		}
	}
}

func seededTransaction(id, amount string) string {
	return `{"id":"` + id + `","merchant_id":"` + apitest.MerchantOne + `","time_created":"2021-03-20T08:00:00.000Z",` +
		`"type":"SALE","status":"CAPTURED","amount":"` + amount + `","currency":"USD","country":"US",` +
		`"reference":"seeded","batch_id":"BAT_1"}`
}

func TestAdminTransactionSeedAdjustHistory(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	r := env.Do("PUT", "/_sandbox/transactions/TRN_Seeded", apitest.JSONHeader(), seededTransaction("TRN_Seeded", "1500"))
	if r.Status != 200 || r.JSON(t)["amount"] != "1500" {
		t.Fatalf("seed: %d %s", r.Status, r.Body)
	}
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	env.Clock.Advance(time.Second)
	if r := env.Do("POST", "/transactions/TRN_Seeded/adjustment", apitest.APIHeader(tok), `{"amount":"1800","gratuity_amount":"300"}`); r.Status != 200 {
		t.Fatalf("adjust: %d %s", r.Status, r.Body)
	}
	r = env.Do("GET", "/_sandbox/transactions/TRN_Seeded", nil, "")
	var got struct {
		Amount              string
		GratuityAmount      string `json:"gratuity_amount"`
		AuthorizationAmount string `json:"authorization_amount"`
		Adjustments         []struct {
			ActionID string `json:"action_id"`
			Time     string
			AppID    string `json:"app_id"`
			Changes  map[string]struct{ From, To string }
		}
	}
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatalf("%v: %s", err, r.Body)
	}
	if got.Amount != "1800" || got.GratuityAmount != "300" || got.AuthorizationAmount != "1500" || len(got.Adjustments) != 1 {
		t.Fatalf("transaction: %s", r.Body)
	}
	a := got.Adjustments[0]
	if a.Time != "2021-03-22T10:00:01.000Z" || a.AppID != apitest.PartnerApp || !strings.HasPrefix(a.ActionID, "ACT_") ||
		a.Changes["amount"].From != "1500" || a.Changes["amount"].To != "1800" || a.Changes["gratuity_amount"].To != "300" {
		t.Errorf("history entry: %+v", a)
	}

	// Replacing starts afresh: no history.
	env.MustAdmin("PUT", "/_sandbox/transactions/TRN_Seeded", seededTransaction("TRN_Seeded", "900"))
	r = env.Do("GET", "/_sandbox/transactions/TRN_Seeded", nil, "")
	if m := r.JSON(t); m["amount"] != "900" || len(m["adjustments"].([]any)) != 0 {
		t.Errorf("after replace: %s", r.Body)
	}
}

func TestAdminTransactionErrors(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	for _, tc := range []struct {
		name, method, path, body string
		want                     apitest.GPError
	}{
		{"unknown", "GET", "/_sandbox/transactions/TRN_Nope", "",
			apitest.Err(404, "RESOURCE_NOT_FOUND", "40008", "Transaction TRN_Nope not found at this location.")},
		{"id differs from the path", "PUT", "/_sandbox/transactions/TRN_A", seededTransaction("TRN_B", "1"),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "id: TRN_B is not the id of the path, TRN_A")},
		{"unknown merchant", "PUT", "/_sandbox/transactions/TRN_A",
			strings.Replace(seededTransaction("TRN_A", "1"), apitest.MerchantOne, "MER_Nope", 1),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "merchant_id: unknown merchant MER_Nope")},
		{"unquoted amount", "PUT", "/_sandbox/transactions/TRN_A",
			strings.Replace(seededTransaction("TRN_A", "1"), `"amount":"1"`, `"amount":1`, 1), apitest.GPError{}},
		{"unknown key", "PUT", "/_sandbox/transactions/TRN_A",
			strings.Replace(seededTransaction("TRN_A", "1"), `"type"`, `"kind":"x","type"`, 1), apitest.GPError{}},
	} {
		r := env.Do(tc.method, tc.path, apitest.JSONHeader(), tc.body)
		got := r.GPError(t)
		if tc.want.Code == "" { // a fixture problem: body:line:col: ...
			if got.Status != 400 || got.Detail != "40213" || !strings.HasPrefix(got.Description, "body:1:") {
				t.Errorf("%s: %+v", tc.name, got)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if r := env.Do("GET", "/_sandbox/transactions/TRN_A", nil, ""); r.Status != 404 {
		t.Errorf("a refused PUT stored something: %d %s", r.Status, r.Body)
	}
}

func TestAdminOrderLifecycle(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	id := env.MustPlaceOrder(tok, `{"notifications":{"status_url":"http://127.0.0.1:1/hook"},"payment_method":{"card":{"number":"4263970000005262","cvv":"123"}}}`)
	r := env.Do("GET", "/_sandbox/orders/"+id, nil, "")
	if m := r.JSON(t); m["status"] != "INITIATED" || m["status_url"] != "http://127.0.0.1:1/hook" || m["app_id"] != apitest.PartnerApp {
		t.Errorf("order: %s", r.Body)
	}
	if bytes.Contains(r.Body, []byte("4263970000005262")) || bytes.Contains(r.Body, []byte(`"123"`)) {
		t.Errorf("clear card data in the stored order: %s", r.Body)
	}
	for i, status := range []string{"PROCESSING", "SHIPPED", "DELIVERED"} {
		env.Clock.Advance(time.Minute)
		r := env.Do("POST", "/_sandbox/orders/"+id+"/status", apitest.JSONHeader(), `{"status":"`+status+`"}`)
		m := r.JSON(t)
		action, _ := m["action"].(map[string]any)
		if r.Status != 200 || m["status"] != status || action["type"] != "ORDER_"+status ||
			m["time_last_updated"] != fmt.Sprintf("2021-03-22T10:0%d:00.000Z", i+1) || action["app_id"] != apitest.PartnerApp {
			t.Errorf("→ %s: %d %s", status, r.Status, r.Body)
		}
	}
	r = env.Do("GET", "/_sandbox/orders/"+id, nil, "")
	if h := r.JSON(t)["history"].([]any); len(h) != 4 {
		t.Errorf("history has %d actions, want 4: %s", len(h), r.Body)
	}
	// The outbox holds one notification per change.
	r = env.Do("GET", "/_sandbox/notifications?order_id="+id, nil, "")
	var log struct {
		Notifications []struct {
			Seq         int
			OrderStatus string `json:"order_status"`
			State       string
			URL         string
			Body        json.RawMessage
			Signature   string
		}
	}
	if err := json.Unmarshal(r.Body, &log); err != nil || len(log.Notifications) != 4 {
		t.Fatalf("notifications: %v %s", err, r.Body)
	}
	for i, n := range log.Notifications {
		var body map[string]any
		if err := json.Unmarshal(n.Body, &body); err != nil {
			t.Fatal(err)
		}
		if n.Seq != i+1 || n.State != "PENDING" || body["status"] != n.OrderStatus || n.URL != "http://127.0.0.1:1/hook" {
			t.Errorf("notification %d: %+v", i, n)
		}
		// The header the listener gets: SHA-512 of the body as sent, then the app key.
		if want := sandbox.Sign(n.Body, apitest.PartnerKey); n.Signature != want {
			t.Errorf("notification %d: signature %q, want %q", i, n.Signature, want)
		}
	}
}

func TestAdminOrderTransitionErrors(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	id := env.MustPlaceOrder(tok, `{}`)
	move := func(status string) apitest.GPError {
		return env.Do("POST", "/_sandbox/orders/"+id+"/status", apitest.JSONHeader(), `{"status":"`+status+`"}`).GPError(t)
	}
	invalid := func(from, to string) apitest.GPError {
		return apitest.Err(400, "INVALID_ACTION", "40290", "Cannot change the status of an Order from "+from+" to "+to+".")
	}
	if got := move("SHIPPED"); got != invalid("INITIATED", "SHIPPED") {
		t.Errorf("skipping a step: %+v", got)
	}
	if got := move("INITIATED"); got != invalid("INITIATED", "INITIATED") {
		t.Errorf("same status: %+v", got)
	}
	env.MustAdmin("POST", "/_sandbox/orders/"+id+"/status", `{"status":"PROCESSING"}`)
	env.MustAdmin("POST", "/_sandbox/orders/"+id+"/status", `{"status":"SHIPPED"}`)
	if got := move("CANCELLED"); got != invalid("SHIPPED", "CANCELLED") {
		t.Errorf("cancel after shipping: %+v", got)
	}
	if got := move("LOST"); got != (apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "status contains unexpected data")) {
		t.Errorf("unknown status: %+v", got)
	}
	r := env.Do("POST", "/_sandbox/orders/"+id+"/status", apitest.JSONHeader(), `{}`)
	if got := r.GPError(t); got != (apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields status")) {
		t.Errorf("no status: %+v", got)
	}
	r = env.Do("POST", "/_sandbox/orders/ORD_Nope/status", apitest.JSONHeader(), `{"status":"PROCESSING"}`)
	if got := r.GPError(t); got != (apitest.Err(404, "RESOURCE_NOT_FOUND", "40008", "Order ORD_Nope not found at this location.")) {
		t.Errorf("unknown order: %+v", got)
	}
	// A cancellation before shipping is fine.
	id2 := env.MustPlaceOrder(tok, `{}`)
	if r := env.Do("POST", "/_sandbox/orders/"+id2+"/status", apitest.JSONHeader(), `{"status":"CANCELLED"}`); r.Status != 200 {
		t.Errorf("cancel: %d %s", r.Status, r.Body)
	}
}

func TestAdminReset(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok, "X-GP-Idempotency", "k1"), `{"amount":"5"}`)
	id := env.MustPlaceOrder(tok, `{}`)
	env.MustAdmin("PUT", "/_sandbox/transactions/TRN_Seeded", seededTransaction("TRN_Seeded", "1"))

	// A call that takes no options refuses some rather than act without them.
	for _, call := range [][2]string{{"POST", "/_sandbox/reset"}, {"POST", "/_sandbox/snapshots/none/restore"}, {"DELETE", "/_sandbox/requests"}} {
		if got := env.Do(call[0], call[1], apitest.JSONHeader(), `{"keep":"transactions"}`).GPError(t); got.Status != 400 || got.Detail != "40043" || got.Description != "Request contains unexpected fields: keep" {
			t.Errorf("%s %s with options: %+v", call[0], call[1], got)
		}
	}
	if r := env.Do("GET", "/_sandbox/transactions/TRN_Seeded", nil, ""); r.Status != 200 {
		t.Errorf("the refused reset reset: %d", r.Status)
	}
	if r := env.Do("DELETE", "/_sandbox/requests", apitest.APIHeader("", "Content-Type", "application/x-www-form-urlencoded"), ""); r.Status != 200 {
		t.Errorf("an empty body under a form's Content-Type (curl -d ''): %d %s", r.Status, r.Body)
	}
	if r := env.Do("DELETE", "/_sandbox/requests", apitest.JSONHeader(), "[]"); r.Status != 200 {
		t.Errorf("PHP's empty payload, []: %d %s", r.Status, r.Body)
	}
	if got := env.Do("DELETE", "/_sandbox/requests", apitest.JSONHeader(), "[1]").GPError(t); got.Status != 400 || got.Detail != "40213" {
		t.Errorf("a non-empty array: %+v", got)
	}
	if r := env.Do("POST", "/_sandbox/reset", apitest.JSONHeader(), "{}"); r.Status != 200 || string(r.Body) != `{"status":"reset"}` {
		t.Fatalf("reset: %d %s", r.Status, r.Body)
	}
	r := env.Do("GET", "/_sandbox/transactions/"+apitest.CapturedOne, nil, "")
	if m := r.JSON(t); m["amount"] != "1000" || len(m["adjustments"].([]any)) != 0 {
		t.Errorf("fixture transaction after reset: %s", r.Body)
	}
	for _, path := range []string{"/_sandbox/orders/" + id, "/_sandbox/transactions/TRN_Seeded"} {
		if r := env.Do("GET", path, nil, ""); r.Status != 404 {
			t.Errorf("%s after reset: %d", path, r.Status)
		}
	}
	r = env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok), `{"amount":"5"}`)
	if r.Status != 401 {
		t.Errorf("token survived the reset: %d %s", r.Status, r.Body)
	}
	tok = env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	if r := env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok, "X-GP-Idempotency", "k1"), `{"amount":"5"}`); r.Status != 200 {
		t.Errorf("idempotency key survived the reset: %d %s", r.Status, r.Body)
	}
}

func TestAdminClock(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	clock := func(body string) apitest.Reply {
		if body == "" {
			return env.Do("GET", "/_sandbox/clock", nil, "")
		}
		return env.Do("POST", "/_sandbox/clock", apitest.JSONHeader(), body)
	}
	for _, tc := range []struct{ body, want string }{
		{"", `{"now":"2021-03-22T10:00:00.000Z","frozen":true}`},
		{`{"advance":"25h"}`, `{"now":"2021-03-23T11:00:00.000Z","frozen":true}`},
		{`{"set":"2027-01-01T00:00:00.000Z"}`, `{"now":"2027-01-01T00:00:00.000Z","frozen":true}`},
		{`{"advance":"1500ms"}`, `{"now":"2027-01-01T00:00:01.500Z","frozen":true}`},
	} {
		if r := clock(tc.body); r.Status != 200 || string(r.Body) != tc.want {
			t.Errorf("%s: %d %s, want %s", tc.body, r.Status, r.Body, tc.want)
		}
	}
	// Unfrozen, it runs from where it stood.
	r := clock(`{"freeze":false}`)
	var v struct {
		Now    string
		Frozen bool
	}
	json.Unmarshal(r.Body, &v)
	now, err := time.Parse(time.RFC3339Nano, v.Now)
	if v.Frozen || err != nil || now.Before(time.Date(2027, 1, 1, 0, 0, 1, 500e6, time.UTC)) || now.After(time.Date(2027, 1, 1, 0, 1, 0, 0, time.UTC)) {
		t.Errorf("unfrozen: %s", r.Body)
	}
	if r := clock(`{"freeze":true}`); r.JSON(t)["frozen"] != true {
		t.Errorf("freeze: %s", r.Body)
	}
	for body, want := range map[string]apitest.GPError{
		`{"advance":"-1h"}`:    apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "advance contains unexpected data: a positive duration, like 90s, 25h or 1h30m"),
		`{"advance":"a day"}`:  apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "advance contains unexpected data: a positive duration, like 90s, 25h or 1h30m"),
		`{"set":"yesterday"}`:  apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "set contains unexpected data: a time with its zone, like 2021-03-22T10:00:00.000Z"),
		`{"set":"2020-01-01"}`: apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "set contains unexpected data: a time with its zone, like 2021-03-22T10:00:00.000Z"),
		`{"freeze":"yes"}`:     apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "freeze contains unexpected data"),
		`{}`:                   apitest.Err(400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields [advance or set or freeze]"),
		`{"rewind":"1h"}`:      apitest.Err(400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: rewind"),
		`{"advance":"1h"} xyz`: apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "Request body contains unexpected data"),
	} {
		if got := clock(body).GPError(t); got != want {
			t.Errorf("%s: %+v, want %+v", body, got, want)
		}
	}
}

// TestClockMovesTokenExpiryAndIdempotencyWindow drives time through the admin API.
func TestClockMovesTokenExpiryAndIdempotencyWindow(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, `"seconds_to_expire":3600`)
	adjust := func(tok string) apitest.Reply {
		return env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok, "X-GP-Idempotency", "tip-1"), `{"gratuity_amount":"100"}`)
	}
	if r := adjust(tok); r.Status != 200 {
		t.Fatalf("adjust: %d %s", r.Status, r.Body)
	}
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"59m59s"}`)
	if got := adjust(tok).GPError(t); got.Code != "DUPLICATE_ACTION" {
		t.Errorf("key reused within the window: %+v", got)
	}
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"1s"}`)
	if got := adjust(tok).GPError(t); got != (apitest.Err(401, "NOT_AUTHENTICATED", "40002", "Access token expired")) {
		t.Errorf("after the token's life: %+v", got)
	}
	tok = env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	if got := adjust(tok).GPError(t); got.Code != "DUPLICATE_ACTION" {
		t.Errorf("key reused after 1 h: %+v", got)
	}
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"23h"}`)
	if r := adjust(tok); r.Status != 200 {
		t.Errorf("key reused after 24 h: %d %s", r.Status, r.Body)
	}
}

func TestJournalRecordsMasksAndFilters(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	body := `{"payment_method":{"card":{"number":"4263970000005262","cvv":"123","expiry_month":"12","expiry_year":"29"}},"notifications":{"status_url":"http://127.0.0.1:1/h"}}`
	env.Do("POST", "/merchants/"+apitest.MerchantOne+"/orders", apitest.APIHeader(tok, "X-Sandbox-Session", "s-1", "X-GP-Signature", "abc"), body)
	env.Do("POST", "/transactions/"+apitest.Declined+"/adjustment", apitest.APIHeader(tok, "X-Sandbox-Session", "s-1"), `{"amount":"1"}`)
	env.Do("GET", "/nowhere", nil, "")
	env.Do("GET", "/_sandbox/clock", nil, "") // admin calls are not journaled

	r := env.Do("GET", "/_sandbox/requests", nil, "")
	for _, secret := range []string{"4263970000005262", `"123"`, tok, "abc", sandbox.Secret("nonce-123", apitest.PartnerKey)} {
		if bytes.Contains(r.Body, []byte(secret)) {
			t.Errorf("journal holds %q in clear: %s", secret, r.Body)
		}
	}
	var j struct {
		Requests []struct {
			RequestID  string `json:"request_id"`
			Method     string
			Path       string
			Operation  string
			Status     int
			ErrorCode  string `json:"error_code"`
			Session    string
			AppID      string `json:"app_id"`
			Version    string
			Rule, Miss *string
			Headers    map[string]string
			Body       json.RawMessage
			Time       string
		}
	}
	if err := json.Unmarshal(r.Body, &j); err != nil {
		t.Fatal(err)
	}
	if len(j.Requests) != 4 {
		t.Fatalf("%d entries, want 4 (token, order, adjustment, unknown path): %s", len(j.Requests), r.Body)
	}
	unknown, adjust, order, token := j.Requests[0], j.Requests[1], j.Requests[2], j.Requests[3]
	if unknown.Path != "/nowhere" || unknown.Status != 404 || unknown.ErrorCode != "RESOURCE_NOT_FOUND" {
		t.Errorf("newest first: %+v", unknown)
	}
	if adjust.Operation != "adjustment" || adjust.Status != 400 || adjust.ErrorCode != "INVALID_ACTION" || adjust.Session != "s-1" {
		t.Errorf("adjustment: %+v", adjust)
	}
	if order.Operation != "order" || order.Status != 200 || order.AppID != apitest.PartnerApp || order.Version != apitest.Version ||
		order.Headers["Authorization"] != "[REDACTED]" || order.Headers["X-GP-Signature"] != "[REDACTED]" ||
		order.Headers["X-GP-Version"] != apitest.Version || order.Rule == nil || *order.Rule != "" || order.Miss == nil ||
		order.Time != "2021-03-22T10:00:00.000Z" || !strings.HasPrefix(order.RequestID, "REQ_") {
		t.Errorf("order: %+v", order)
	}
	if want := `{"payment_method":{"card":{"number":"426397******5262","cvv":"[REDACTED]","expiry_month":"12","expiry_year":"29"}},"notifications":{"status_url":"http://127.0.0.1:1/h"}}`; string(order.Body) != want {
		t.Errorf("order body %s, want %s", order.Body, want)
	}
	if !bytes.Contains(token.Body, []byte(`"secret":"[REDACTED]"`)) || token.Operation != "accesstoken" {
		t.Errorf("token request: %s %s", token.Operation, token.Body)
	}

	for query, want := range map[string]int{
		"?operation=order": 1, "?session=s-1": 2, "?status=200": 2, "?limit=1": 1, "?status=400&session=s-1": 1,
	} {
		r := env.Do("GET", "/_sandbox/requests"+query, nil, "")
		if n := len(r.JSON(t)["requests"].([]any)); n != want {
			t.Errorf("%s: %d entries, want %d", query, n, want)
		}
	}
	for _, query := range []string{"?limit=0", "?limit=x", "?status=2000"} {
		if r := env.Do("GET", "/_sandbox/requests"+query, nil, ""); r.Status != 400 {
			t.Errorf("%s: %d", query, r.Status)
		}
	}
}

// The journal is bounded in bytes: large requests evict the oldest ones, and what is
// kept is the newest, in order, within the bound.
func TestJournalKeepsOnlyTheNewest(t *testing.T) {
	t.Parallel()
	const bound = 1 << 20
	env := mustSandbox(t, func(c *app.Config) { c.JournalBytes = bound })
	body := `{"x":"` + strings.Repeat("a", 15000) + `"}`
	var ids []string
	for range 200 {
		r := env.Do("POST", "/accesstoken", apitest.JSONHeader(), body)
		ids = append(ids, r.Header.Get("X-Request-Id"))
	}
	kept := JournalPages(t, env, "/_sandbox/requests?limit=1000")
	if len(kept)*len(body) > bound || len(kept) < 40 {
		t.Fatalf("%d entries of %d bytes kept, want as many as %d bytes hold", len(kept), len(body), bound)
	}
	for i, e := range kept {
		if want := ids[len(ids)-1-i]; e.RequestID != want {
			t.Fatalf("entry %d: %s, want %s", i, e.RequestID, want)
		}
	}
}

// A read answers at most 1000 entries and about 8 MiB, then links to the next page:
// following the links reads the whole journal once, newest first.
func TestJournalReadsArePaged(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	body := `{"x":"` + strings.Repeat("a", 15000) + `"}`
	const sent = 700 // about 11 MiB journaled
	for i := range sent {
		env.Do("POST", fmt.Sprintf("/accesstoken?n=%d", i), apitest.JSONHeader(), body)
	}
	r := env.Do("GET", "/_sandbox/requests?limit=10000&path=/accesstoken", nil, "")
	var page apitest.JournalPage
	if err := json.Unmarshal(r.Body, &page); err != nil || r.Status != 200 {
		t.Fatalf("%d %v", r.Status, err)
	}
	if len(r.Body) > 9<<20 || len(page.Requests) >= sent || page.Next == "" {
		t.Errorf("first page: %d bytes, %d entries, next %q", len(r.Body), len(page.Requests), page.Next)
	}
	all := JournalPages(t, env, "/_sandbox/requests?limit=10000&path=/accesstoken")
	for i, e := range all {
		if want := uint64(sent - i); e.Seq != want {
			t.Fatalf("entry %d is number %d, want %d", i, e.Seq, want)
		}
	}
	if len(all) != sent {
		t.Errorf("%d entries read, want %d", len(all), sent)
	}
	for i := range 1001 {
		env.Do("GET", fmt.Sprintf("/nowhere/%d", i), nil, "")
	}
	r = env.Do("GET", "/_sandbox/requests?limit=5000&path=/nowhere/*", nil, "")
	if err := json.Unmarshal(r.Body, &page); err != nil || len(page.Requests) != 1000 || !strings.Contains(page.Next, "before=") {
		t.Errorf("limit=5000: %d entries, next %q", len(page.Requests), page.Next)
	}
}

// JournalPages reads the journal from path on, following next links.
func JournalPages(t *testing.T, env *sandboxEnv, path string) []admin.JournalEntry {
	t.Helper()
	var out []admin.JournalEntry
	for path != "" {
		r := env.Do("GET", path, nil, "")
		var page apitest.JournalPage
		if err := json.Unmarshal(r.Body, &page); err != nil || r.Status != 200 {
			t.Fatalf("%s: %d %v", path, r.Status, err)
		}
		out = append(out, page.Requests...)
		path = page.Next
	}
	return out
}

func TestJournalTruncatesLargeBodies(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	big := `{"x":"` + strings.Repeat("a", 20<<10) + `"}`
	env.Do("POST", "/accesstoken", apitest.JSONHeader(), big)
	r := env.Do("GET", "/_sandbox/requests", nil, "")
	var j struct {
		Requests []struct {
			Status        int
			Body          string
			BodyTruncated bool `json:"body_truncated"`
		}
	}
	if err := json.Unmarshal(r.Body, &j); err != nil || len(j.Requests) != 1 {
		t.Fatalf("%v %s", err, r.Body)
	}
	e := j.Requests[0]
	if !e.BodyTruncated || len(e.Body) != 16<<10 || e.Status != 400 {
		t.Errorf("truncated %v, %d bytes kept, status %d", e.BodyTruncated, len(e.Body), e.Status)
	}
}

// A card number the journal's cap cuts in two is too short to be read as one: its
// first digits are dropped with the rest, so that they cannot complete the first six
// and last four shown elsewhere.
func TestJournalCutDoesNotSplitACardNumber(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	head := `{"x":"` + strings.Repeat("a", 16<<10-len(`{"x":"","name":"`)-11) + `","name":"`
	body := head + `4525526527000006","card":{"number":"4525526527000006"}}`
	env.Do("POST", "/accesstoken", apitest.JSONHeader(), body)
	var j struct {
		Requests []struct {
			Body          string
			BodyTruncated bool `json:"body_truncated"`
		}
	}
	if r := env.Do("GET", "/_sandbox/requests", nil, ""); json.Unmarshal(r.Body, &j) != nil || len(j.Requests) != 1 {
		t.Fatalf("journal: %s", r.Body)
	}
	if e := j.Requests[0]; !e.BodyTruncated || strings.Contains(e.Body, "4525526") || !strings.HasSuffix(e.Body, `"name":"`) {
		t.Errorf("truncated %v, body ends %q", e.BodyTruncated, e.Body[max(0, len(e.Body)-40):])
	}
}

// A body whose members the masking cannot tell apart (XML, multipart) is not kept:
// its CVV and PIN block would be digits like any others.
func TestJournalKeepsNoUnreadableBody(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	xml := `<request><card><number>4115116117000008</number><cvn><number>5813</number></cvn><pinblock>0412AC89ABCDEF67</pinblock></card></request>`
	env.Do("POST", "/transactions", apitest.APIHeader("", "Content-Type", "application/xml"), xml)
	r := env.Do("GET", "/_sandbox/requests", nil, "")
	if strings.Contains(string(r.Body), "5813") || strings.Contains(string(r.Body), "0412AC89") ||
		!strings.Contains(string(r.Body), fmt.Sprintf("[%d bytes that are neither JSON nor a form: not kept", len(xml))) {
		t.Errorf("journal: %s", r.Body)
	}
}

// A card number written with URL escapes in a path, which a 404 echoes as GP's does,
// is masked in the journaled answer as in the journaled path.
func TestJournalMasksAnEscapedCardNumber(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	if r := env.Do("GET", "/transactions/4195%201961%209700%200006", apitest.APIHeader(tok), ""); r.Status != 404 {
		t.Fatalf("GET: %d %s", r.Status, r.Body)
	}
	if r := env.Do("GET", "/_sandbox/requests", nil, ""); strings.Contains(string(r.Body), "9700") || !strings.Contains(string(r.Body), "4195 19** **** 0006") {
		t.Errorf("journal: %s", r.Body)
	}
}

// Masking lengthens a body (pin=1 is journaled pin="[REDACTED]"), and the journal's
// 16 KiB cap holds after it: what is kept of a body under the cap, as of one over it,
// is at most 16 KiB of masked text, marked truncated when masking pushed it past.
func TestJournalCapHoldsAfterMasking(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	form := apitest.APIHeader("", "Content-Type", "application/x-www-form-urlencoded")
	for name, tc := range map[string]struct {
		header map[string]string
		body   string
	}{
		"a form of PINs over the cap":  {form, strings.Repeat("pin=1&", 2731)},
		"a form of PINs under the cap": {form, strings.Repeat("pin=1&", 2700)},
		"JSON of CVVs under the cap":   {apitest.JSONHeader(), "[" + strings.Repeat(`{"cvv":"1"},`, 1300) + `{"cvv":"1"}]`},
	} {
		t.Run(name, func(t *testing.T) {
			env.Do("DELETE", "/_sandbox/requests", nil, "")
			env.Do("POST", "/accesstoken", tc.header, tc.body)
			r := env.Do("GET", "/_sandbox/requests", nil, "")
			var j struct {
				Requests []struct {
					Body          json.RawMessage
					BodyTruncated bool `json:"body_truncated"`
				}
			}
			if err := json.Unmarshal(r.Body, &j); err != nil || len(j.Requests) != 1 {
				t.Fatalf("%v %s", err, r.Body)
			}
			e := j.Requests[0]
			var kept string
			if err := json.Unmarshal(e.Body, &kept); err != nil {
				t.Fatalf("body journaled as %.80s...: %v, want the cut text as a JSON string", e.Body, err)
			}
			if !e.BodyTruncated || len(kept) != 16<<10 || !strings.Contains(kept, `"[REDACTED]"`) || strings.Contains(kept, "=1&") || strings.Contains(kept, `"1"`) {
				t.Errorf("truncated %v, %d bytes kept: %.60s...", e.BodyTruncated, len(kept), kept)
			}
		})
	}
}

// A web page of another origin, open in the user's browser, cannot change the sandbox
// through the open admin API: its cross-origin writes are refused and change nothing,
// while the sandbox's own pages and clients that are not browsers pass.
func TestAdminRefusesBrowsersCrossOriginWrites(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	orderID := env.MustPlaceOrder(tok, `{}`)
	refused := apitest.Err(403, "ACTION_NOT_AUTHORIZED", "40212",
		"Cross-origin request refused: the admin API changes state only for the sandbox's own pages and non-browser clients")
	for name, h := range map[string]map[string]string{
		"Sec-Fetch-Site cross-site": {"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"},
		"Sec-Fetch-Site same-site":  {"Content-Type": "application/json", "Sec-Fetch-Site": "same-site"},
		"foreign Origin":            {"Content-Type": "text/plain", "Origin": "https://attacker.example"},
	} {
		for _, c := range adminCalls(orderID) {
			if c[0] == "GET" {
				continue // reads change nothing, and no CORS header lets another origin read them
			}
			if got := env.Do(c[0], c[1], h, c[2]).GPError(t); got != refused {
				t.Errorf("%s %s with %s: %+v, want %+v", c[0], c[1], name, got, refused)
			}
		}
	}
	// Nothing changed: the order is still there (no reset) and still INITIATED.
	r := env.Do("GET", "/_sandbox/orders/"+orderID, nil, "")
	if r.Status != 200 || r.JSON(t)["status"] != "INITIATED" {
		t.Fatalf("after the refused writes: %d %s", r.Status, r.Body)
	}
	for name, h := range map[string]map[string]string{
		"the sandbox's own page": {"Content-Type": "application/json", "Sec-Fetch-Site": "same-origin"},
		"a client, no browser":   apitest.JSONHeader(),
	} {
		if r := env.Do("POST", "/_sandbox/clock", h, `{"advance":"1s"}`); r.Status != 200 {
			t.Errorf("clock from %s: %d %s", name, r.Status, r.Body)
		}
	}
}

// The clock stays within GP's timestamps, years 0001 to 9999, less the year the sandbox
// may count ahead of it, frozen or running: a move past them is refused naming the
// limit and leaves the clock where it was; it never wraps around (time.Duration spans
// 292 years).
func TestAdminClockStaysInGPRange(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	const limit = " contains unexpected data: the sandbox clock stays from 0001-01-01T00:00:00.000Z to 9998-12-31T23:59:59.999Z, so that every time it counts ahead (a token's expiry, an order's next step) is one GP's timestamps can show"
	post := func(body string) apitest.Reply { return env.Do("POST", "/_sandbox/clock", apitest.JSONHeader(), body) }
	now := func() string { return env.Do("GET", "/_sandbox/clock", nil, "").JSON(t)["now"].(string) }
	for _, frozen := range []string{"true", "false"} {
		t.Run("frozen "+frozen, func(t *testing.T) {
			post(`{"set":"2021-03-22T10:00:00.000Z","freeze":` + frozen + `}`)
			r := post(`{"set":"9998-12-31T23:59:59.000Z"}`)
			if got, _ := r.JSON(t)["now"].(string); r.Status != 200 || !strings.HasPrefix(got, "9998-12-31T23:59:59.") {
				t.Errorf("set to 9998: %d %s", r.Status, r.Body)
			}
			post(`{"set":"2021-03-22T10:00:00.000Z"}`)
			// Forward by 228 years at a time: to 8405, then refused, never wrapping back.
			var last string
			for i := 0; i < 40; i++ {
				r := post(`{"advance":"2000000h"}`)
				if r.Status != 200 {
					if e := r.GPError(t); e != (apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "advance"+limit)) {
						t.Errorf("advance past 9999: %+v", e)
					}
					break
				}
				got := r.JSON(t)["now"].(string)
				if got <= last || len(got) != len("2021-03-22T10:00:00.000Z") {
					t.Fatalf("advance %d went from %s to %s", i, last, got)
				}
				last = got
			}
			if !strings.HasPrefix(now(), last[:4]) {
				t.Errorf("a refused advance moved the clock from %s to %s", last, now())
			}
			for body, member := range map[string]string{
				`{"set":"9998-12-31T23:59:59.000-01:00"}`:               "set",
				`{"set":"0000-12-31T23:59:59.000Z"}`:                    "set",
				`{"set":"9998-12-31T23:00:00.000Z","advance":"1h"}`:     "advance",
				`{"set":"0001-01-01T00:00:00.000+01:00","freeze":true}`: "set",
			} {
				before := now()
				if e := post(body).GPError(t); e != (apitest.Err(400, "INVALID_REQUEST_DATA", "40213", member+limit)) {
					t.Errorf("%s: %+v", body, e)
				}
				if after := now(); after[:16] != before[:16] {
					t.Errorf("%s moved the clock from %s to %s", body, before, after)
				}
			}
		})
	}
}

// A list's filters are journaled with it as sent, a card number in them masked: an
// escaped & stays escaped, so that the pairs read as the client sent them.
func TestJournalKeepsTheQuery(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	env.Do("GET", "/transactions?page=1&brand=VISA&reference=4263970000005262&name=J%20Mason&batch_id=a%26b%3Dc", apitest.APIHeader(tok), "")
	var page struct {
		Requests []struct{ Path, Query string }
	}
	if err := json.Unmarshal(env.Do("GET", "/_sandbox/requests?limit=1", nil, "").Body, &page); err != nil || len(page.Requests) != 1 {
		t.Fatalf("journal: %v %+v", err, page)
	}
	got := page.Requests[0]
	if got.Path != "/transactions" || !strings.Contains(got.Query, "brand=VISA") || !strings.Contains(got.Query, "&name=J%20Mason&batch_id=a%26b%3Dc") ||
		strings.Contains(got.Query, "4263970000005262") || !strings.Contains(got.Query, "426397") {
		t.Errorf("journaled %+v, want its filters with the card number masked", got)
	}
}
