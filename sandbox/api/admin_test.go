package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/api"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
)

const adminToken = "admin-secret-0001"

func withAdminToken(c *app.Config) { c.AdminToken = adminToken }

func adminHeader() map[string]string {
	return map[string]string{"Authorization": "Bearer " + adminToken, "Content-Type": "application/json"}
}

var invalidAdminToken = gpError{401, "NOT_AUTHENTICATED", "40001", "Invalid admin token"}

// adminCalls is one call of every admin endpoint, each answering 200 when allowed.
func adminCalls(orderID string) [][3]string {
	return [][3]string{
		{"GET", "/_sandbox/transactions/" + capturedOne, ""},
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

// mustPlaceOrder places an order for merchant One (see mustPlaceOrderFor).
func (env *sandboxEnv) mustPlaceOrder(tok, body string) string {
	env.t.Helper()
	return env.mustPlaceOrderFor(tok, merchantOne, body)
}

// mustPlaceOrderFor places an order for a merchant and returns its id, failing the
// test unless the order is placed: 200 and INITIATED.
func (env *sandboxEnv) mustPlaceOrderFor(tok, merchantID, body string) string {
	env.t.Helper()
	r := env.do("POST", "/merchants/"+merchantID+"/orders", apiHeader(tok), body)
	if r.status != 200 || r.json(env.t)["status"] != "INITIATED" {
		env.t.Fatalf("order: %d %s", r.status, r.body)
	}
	return r.json(env.t)["id"].(string)
}

func TestAdminTokenGuardsEveryAdminCall(t *testing.T) {
	env := mustSandbox(t, withAdminToken)
	tok := env.mustToken(partnerApp, partnerKey, "")
	for _, c := range adminCalls(env.mustPlaceOrder(tok, `{}`)) {
		for name, h := range map[string]map[string]string{
			"no token":     jsonHeader(),
			"API token":    {"Authorization": "Bearer " + tok},
			"wrong token":  {"Authorization": "Bearer admin-secret-0002"},
			"longer token": {"Authorization": "Bearer " + adminToken + "x"},
		} {
			if got := env.do(c[0], c[1], h, c[2]).gpError(t); got != invalidAdminToken {
				t.Errorf("%s %s with %s: %+v", c[0], c[1], name, got)
			}
		}
	}
	// Refused calls changed nothing: the order is still INITIATED.
	if r := env.do("GET", "/_sandbox/orders/"+env.mustPlaceOrder(tok, `{}`), adminHeader(), ""); r.status != 200 {
		t.Fatalf("with the admin token: %d %s", r.status, r.body)
	}
	orderID := env.mustPlaceOrder(tok, `{}`)
	for _, c := range adminCalls(orderID) {
		if r := env.do(c[0], c[1], adminHeader(), c[2]); r.status != 200 {
			t.Errorf("%s %s with the admin token: %d %s", c[0], c[1], r.status, r.body)
		}
	}
	// Health stays open, and the admin token opens no API call.
	if r := env.do("GET", "/_sandbox/health", nil, ""); r.status != 200 {
		t.Errorf("health: %d", r.status)
	}
	r := env.do("POST", "/merchants/"+merchantOne+"/orders", apiHeader(adminToken), `{}`)
	if got := r.gpError(t); got != (gpError{401, "NOT_AUTHENTICATED", "40001", "Invalid access token"}) {
		t.Errorf("admin token on the API: %+v", got)
	}
}

func TestAdminOpenWithoutAdminToken(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, "")
	for _, c := range adminCalls(env.mustPlaceOrder(tok, `{}`)) {
		if r := env.do(c[0], c[1], jsonHeader(), c[2]); r.status != 200 {
			t.Errorf("%s %s: %d %s", c[0], c[1], r.status, r.body)
		}
	}
}

func seededTransaction(id, amount string) string {
	return `{"id":"` + id + `","merchant_id":"` + merchantOne + `","time_created":"2021-03-20T08:00:00.000Z",` +
		`"type":"SALE","status":"CAPTURED","amount":"` + amount + `","currency":"USD","country":"US",` +
		`"reference":"seeded","batch_id":"BAT_1"}`
}

func TestAdminTransactionSeedAdjustHistory(t *testing.T) {
	env := mustSandbox(t)
	r := env.do("PUT", "/_sandbox/transactions/TRN_Seeded", jsonHeader(), seededTransaction("TRN_Seeded", "1500"))
	if r.status != 200 || r.json(t)["amount"] != "1500" {
		t.Fatalf("seed: %d %s", r.status, r.body)
	}
	tok := env.mustToken(partnerApp, partnerKey, "")
	env.clock.Advance(time.Second)
	if r := env.do("POST", "/transactions/TRN_Seeded/adjustment", apiHeader(tok), `{"amount":"1800","gratuity_amount":"300"}`); r.status != 200 {
		t.Fatalf("adjust: %d %s", r.status, r.body)
	}
	r = env.do("GET", "/_sandbox/transactions/TRN_Seeded", nil, "")
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
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatalf("%v: %s", err, r.body)
	}
	if got.Amount != "1800" || got.GratuityAmount != "300" || got.AuthorizationAmount != "1500" || len(got.Adjustments) != 1 {
		t.Fatalf("transaction: %s", r.body)
	}
	a := got.Adjustments[0]
	if a.Time != "2021-03-22T10:00:01.000Z" || a.AppID != partnerApp || !strings.HasPrefix(a.ActionID, "ACT_") ||
		a.Changes["amount"].From != "1500" || a.Changes["amount"].To != "1800" || a.Changes["gratuity_amount"].To != "300" {
		t.Errorf("history entry: %+v", a)
	}

	// Replacing starts afresh: no history.
	env.mustAdmin("PUT", "/_sandbox/transactions/TRN_Seeded", seededTransaction("TRN_Seeded", "900"))
	r = env.do("GET", "/_sandbox/transactions/TRN_Seeded", nil, "")
	if m := r.json(t); m["amount"] != "900" || len(m["adjustments"].([]any)) != 0 {
		t.Errorf("after replace: %s", r.body)
	}
}

func TestAdminTransactionErrors(t *testing.T) {
	env := mustSandbox(t)
	for _, tc := range []struct {
		name, method, path, body string
		want                     gpError
	}{
		{"unknown", "GET", "/_sandbox/transactions/TRN_Nope", "",
			gpError{404, "RESOURCE_NOT_FOUND", "40008", "Transaction TRN_Nope not found at this location."}},
		{"id differs from the path", "PUT", "/_sandbox/transactions/TRN_A", seededTransaction("TRN_B", "1"),
			gpError{400, "INVALID_REQUEST_DATA", "40213", "id: TRN_B is not the id of the path, TRN_A"}},
		{"unknown merchant", "PUT", "/_sandbox/transactions/TRN_A",
			strings.Replace(seededTransaction("TRN_A", "1"), merchantOne, "MER_Nope", 1),
			gpError{400, "INVALID_REQUEST_DATA", "40213", "merchant_id: unknown merchant MER_Nope"}},
		{"unquoted amount", "PUT", "/_sandbox/transactions/TRN_A",
			strings.Replace(seededTransaction("TRN_A", "1"), `"amount":"1"`, `"amount":1`, 1), gpError{}},
		{"unknown key", "PUT", "/_sandbox/transactions/TRN_A",
			strings.Replace(seededTransaction("TRN_A", "1"), `"type"`, `"kind":"x","type"`, 1), gpError{}},
	} {
		r := env.do(tc.method, tc.path, jsonHeader(), tc.body)
		got := r.gpError(t)
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
	if r := env.do("GET", "/_sandbox/transactions/TRN_A", nil, ""); r.status != 404 {
		t.Errorf("a refused PUT stored something: %d %s", r.status, r.body)
	}
}

func TestAdminOrderLifecycle(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, "")
	id := env.mustPlaceOrder(tok, `{"notifications":{"status_url":"http://127.0.0.1:1/hook"},"payment_method":{"card":{"number":"4263970000005262","cvv":"123"}}}`)
	r := env.do("GET", "/_sandbox/orders/"+id, nil, "")
	if m := r.json(t); m["status"] != "INITIATED" || m["status_url"] != "http://127.0.0.1:1/hook" || m["app_id"] != partnerApp {
		t.Errorf("order: %s", r.body)
	}
	if bytes.Contains(r.body, []byte("4263970000005262")) || bytes.Contains(r.body, []byte(`"123"`)) {
		t.Errorf("clear card data in the stored order: %s", r.body)
	}
	for i, status := range []string{"PROCESSING", "SHIPPED", "DELIVERED"} {
		env.clock.Advance(time.Minute)
		r := env.do("POST", "/_sandbox/orders/"+id+"/status", jsonHeader(), `{"status":"`+status+`"}`)
		m := r.json(t)
		action, _ := m["action"].(map[string]any)
		if r.status != 200 || m["status"] != status || action["type"] != "ORDER_"+status ||
			m["time_last_updated"] != fmt.Sprintf("2021-03-22T10:0%d:00.000Z", i+1) || action["app_id"] != partnerApp {
			t.Errorf("→ %s: %d %s", status, r.status, r.body)
		}
	}
	r = env.do("GET", "/_sandbox/orders/"+id, nil, "")
	if h := r.json(t)["history"].([]any); len(h) != 4 {
		t.Errorf("history has %d actions, want 4: %s", len(h), r.body)
	}
	// The outbox holds one notification per change.
	r = env.do("GET", "/_sandbox/notifications?order_id="+id, nil, "")
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
	if err := json.Unmarshal(r.body, &log); err != nil || len(log.Notifications) != 4 {
		t.Fatalf("notifications: %v %s", err, r.body)
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
		if want := sandbox.Sign(n.Body, partnerKey); n.Signature != want {
			t.Errorf("notification %d: signature %q, want %q", i, n.Signature, want)
		}
	}
}

func TestAdminOrderTransitionErrors(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, "")
	id := env.mustPlaceOrder(tok, `{}`)
	move := func(status string) gpError {
		return env.do("POST", "/_sandbox/orders/"+id+"/status", jsonHeader(), `{"status":"`+status+`"}`).gpError(t)
	}
	invalid := func(from, to string) gpError {
		return gpError{400, "INVALID_ACTION", "40290", "Cannot change the status of an Order from " + from + " to " + to + "."}
	}
	if got := move("SHIPPED"); got != invalid("INITIATED", "SHIPPED") {
		t.Errorf("skipping a step: %+v", got)
	}
	if got := move("INITIATED"); got != invalid("INITIATED", "INITIATED") {
		t.Errorf("same status: %+v", got)
	}
	env.mustAdmin("POST", "/_sandbox/orders/"+id+"/status", `{"status":"PROCESSING"}`)
	env.mustAdmin("POST", "/_sandbox/orders/"+id+"/status", `{"status":"SHIPPED"}`)
	if got := move("CANCELLED"); got != invalid("SHIPPED", "CANCELLED") {
		t.Errorf("cancel after shipping: %+v", got)
	}
	if got := move("LOST"); got != (gpError{400, "INVALID_REQUEST_DATA", "40213", "status contains unexpected data"}) {
		t.Errorf("unknown status: %+v", got)
	}
	r := env.do("POST", "/_sandbox/orders/"+id+"/status", jsonHeader(), `{}`)
	if got := r.gpError(t); got != (gpError{400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields status"}) {
		t.Errorf("no status: %+v", got)
	}
	r = env.do("POST", "/_sandbox/orders/ORD_Nope/status", jsonHeader(), `{"status":"PROCESSING"}`)
	if got := r.gpError(t); got != (gpError{404, "RESOURCE_NOT_FOUND", "40008", "Order ORD_Nope not found at this location."}) {
		t.Errorf("unknown order: %+v", got)
	}
	// A cancellation before shipping is fine.
	id2 := env.mustPlaceOrder(tok, `{}`)
	if r := env.do("POST", "/_sandbox/orders/"+id2+"/status", jsonHeader(), `{"status":"CANCELLED"}`); r.status != 200 {
		t.Errorf("cancel: %d %s", r.status, r.body)
	}
}

func TestAdminReset(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, "")
	env.do("POST", "/transactions/"+capturedOne+"/adjustment", apiHeader(tok, "X-GP-Idempotency", "k1"), `{"amount":"5"}`)
	id := env.mustPlaceOrder(tok, `{}`)
	env.mustAdmin("PUT", "/_sandbox/transactions/TRN_Seeded", seededTransaction("TRN_Seeded", "1"))

	if r := env.do("POST", "/_sandbox/reset", nil, ""); r.status != 200 || string(r.body) != `{"status":"reset"}` {
		t.Fatalf("reset: %d %s", r.status, r.body)
	}
	r := env.do("GET", "/_sandbox/transactions/"+capturedOne, nil, "")
	if m := r.json(t); m["amount"] != "1000" || len(m["adjustments"].([]any)) != 0 {
		t.Errorf("fixture transaction after reset: %s", r.body)
	}
	for _, path := range []string{"/_sandbox/orders/" + id, "/_sandbox/transactions/TRN_Seeded"} {
		if r := env.do("GET", path, nil, ""); r.status != 404 {
			t.Errorf("%s after reset: %d", path, r.status)
		}
	}
	r = env.do("POST", "/transactions/"+capturedOne+"/adjustment", apiHeader(tok), `{"amount":"5"}`)
	if r.status != 401 {
		t.Errorf("token survived the reset: %d %s", r.status, r.body)
	}
	tok = env.mustToken(partnerApp, partnerKey, "")
	if r := env.do("POST", "/transactions/"+capturedOne+"/adjustment", apiHeader(tok, "X-GP-Idempotency", "k1"), `{"amount":"5"}`); r.status != 200 {
		t.Errorf("idempotency key survived the reset: %d %s", r.status, r.body)
	}
}

func TestAdminClock(t *testing.T) {
	env := mustSandbox(t)
	clock := func(body string) reply {
		if body == "" {
			return env.do("GET", "/_sandbox/clock", nil, "")
		}
		return env.do("POST", "/_sandbox/clock", jsonHeader(), body)
	}
	for _, tc := range []struct{ body, want string }{
		{"", `{"now":"2021-03-22T10:00:00.000Z","frozen":true}`},
		{`{"advance":"25h"}`, `{"now":"2021-03-23T11:00:00.000Z","frozen":true}`},
		{`{"set":"2027-01-01T00:00:00.000Z"}`, `{"now":"2027-01-01T00:00:00.000Z","frozen":true}`},
		{`{"advance":"1500ms"}`, `{"now":"2027-01-01T00:00:01.500Z","frozen":true}`},
	} {
		if r := clock(tc.body); r.status != 200 || string(r.body) != tc.want {
			t.Errorf("%s: %d %s, want %s", tc.body, r.status, r.body, tc.want)
		}
	}
	// Unfrozen, it runs from where it stood.
	r := clock(`{"freeze":false}`)
	var v struct {
		Now    string
		Frozen bool
	}
	json.Unmarshal(r.body, &v)
	now, err := time.Parse(time.RFC3339Nano, v.Now)
	if v.Frozen || err != nil || now.Before(time.Date(2027, 1, 1, 0, 0, 1, 500e6, time.UTC)) || now.After(time.Date(2027, 1, 1, 0, 1, 0, 0, time.UTC)) {
		t.Errorf("unfrozen: %s", r.body)
	}
	if r := clock(`{"freeze":true}`); r.json(t)["frozen"] != true {
		t.Errorf("freeze: %s", r.body)
	}
	for body, want := range map[string]gpError{
		`{"advance":"-1h"}`:    {400, "INVALID_REQUEST_DATA", "40213", "advance contains unexpected data"},
		`{"advance":"a day"}`:  {400, "INVALID_REQUEST_DATA", "40213", "advance contains unexpected data"},
		`{"set":"yesterday"}`:  {400, "INVALID_REQUEST_DATA", "40213", "set contains unexpected data"},
		`{"freeze":"yes"}`:     {400, "INVALID_REQUEST_DATA", "40213", "freeze contains unexpected data"},
		`{}`:                   {400, "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields [advance or set or freeze]"},
		`{"rewind":"1h"}`:      {400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: rewind"},
		`{"advance":"1h"} xyz`: {400, "INVALID_REQUEST_DATA", "40213", "Request body contains unexpected data"},
	} {
		if got := clock(body).gpError(t); got != want {
			t.Errorf("%s: %+v, want %+v", body, got, want)
		}
	}
}

// TestClockMovesTokenExpiryAndIdempotencyWindow drives time through the admin API.
func TestClockMovesTokenExpiryAndIdempotencyWindow(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, `"seconds_to_expire":3600`)
	adjust := func(tok string) reply {
		return env.do("POST", "/transactions/"+capturedOne+"/adjustment", apiHeader(tok, "X-GP-Idempotency", "tip-1"), `{"gratuity_amount":"100"}`)
	}
	if r := adjust(tok); r.status != 200 {
		t.Fatalf("adjust: %d %s", r.status, r.body)
	}
	env.mustAdmin("POST", "/_sandbox/clock", `{"advance":"59m59s"}`)
	if got := adjust(tok).gpError(t); got.Code != "DUPLICATE_ACTION" {
		t.Errorf("key reused within the window: %+v", got)
	}
	env.mustAdmin("POST", "/_sandbox/clock", `{"advance":"1s"}`)
	if got := adjust(tok).gpError(t); got != (gpError{401, "NOT_AUTHENTICATED", "40002", "Access token expired"}) {
		t.Errorf("after the token's life: %+v", got)
	}
	tok = env.mustToken(partnerApp, partnerKey, "")
	if got := adjust(tok).gpError(t); got.Code != "DUPLICATE_ACTION" {
		t.Errorf("key reused after 1 h: %+v", got)
	}
	env.mustAdmin("POST", "/_sandbox/clock", `{"advance":"23h"}`)
	if r := adjust(tok); r.status != 200 {
		t.Errorf("key reused after 24 h: %d %s", r.status, r.body)
	}
}

func TestJournalRecordsMasksAndFilters(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, "")
	body := `{"payment_method":{"card":{"number":"4263970000005262","cvv":"123","expiry_month":"12","expiry_year":"29"}},"notifications":{"status_url":"http://127.0.0.1:1/h"}}`
	env.do("POST", "/merchants/"+merchantOne+"/orders", apiHeader(tok, "X-Sandbox-Session", "s-1", "X-GP-Signature", "abc"), body)
	env.do("POST", "/transactions/"+declined+"/adjustment", apiHeader(tok, "X-Sandbox-Session", "s-1"), `{"amount":"1"}`)
	env.do("GET", "/nowhere", nil, "")
	env.do("GET", "/_sandbox/clock", nil, "") // admin calls are not journaled

	r := env.do("GET", "/_sandbox/requests", nil, "")
	for _, secret := range []string{"4263970000005262", `"123"`, tok, "abc", sandbox.Secret("nonce-123", partnerKey)} {
		if bytes.Contains(r.body, []byte(secret)) {
			t.Errorf("journal holds %q in clear: %s", secret, r.body)
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
	if err := json.Unmarshal(r.body, &j); err != nil {
		t.Fatal(err)
	}
	if len(j.Requests) != 4 {
		t.Fatalf("%d entries, want 4 (token, order, adjustment, unknown path): %s", len(j.Requests), r.body)
	}
	unknown, adjust, order, token := j.Requests[0], j.Requests[1], j.Requests[2], j.Requests[3]
	if unknown.Path != "/nowhere" || unknown.Status != 404 || unknown.ErrorCode != "RESOURCE_NOT_FOUND" {
		t.Errorf("newest first: %+v", unknown)
	}
	if adjust.Operation != "adjustment" || adjust.Status != 400 || adjust.ErrorCode != "INVALID_ACTION" || adjust.Session != "s-1" {
		t.Errorf("adjustment: %+v", adjust)
	}
	if order.Operation != "order" || order.Status != 200 || order.AppID != partnerApp || order.Version != version ||
		order.Headers["Authorization"] != "[REDACTED]" || order.Headers["X-GP-Signature"] != "[REDACTED]" ||
		order.Headers["X-GP-Version"] != version || order.Rule == nil || *order.Rule != "" || order.Miss == nil ||
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
		r := env.do("GET", "/_sandbox/requests"+query, nil, "")
		if n := len(r.json(t)["requests"].([]any)); n != want {
			t.Errorf("%s: %d entries, want %d", query, n, want)
		}
	}
	for _, query := range []string{"?limit=0", "?limit=x", "?status=2000"} {
		if r := env.do("GET", "/_sandbox/requests"+query, nil, ""); r.status != 400 {
			t.Errorf("%s: %d", query, r.status)
		}
	}
}

// The journal is bounded in bytes: large requests evict the oldest ones, and what is
// kept is the newest, in order, within the bound.
func TestJournalKeepsOnlyTheNewest(t *testing.T) {
	const bound = 1 << 20
	env := mustSandbox(t, func(c *app.Config) { c.JournalBytes = bound })
	body := `{"x":"` + strings.Repeat("a", 15000) + `"}`
	var ids []string
	for range 200 {
		r := env.do("POST", "/accesstoken", jsonHeader(), body)
		ids = append(ids, r.header.Get("X-Request-Id"))
	}
	kept := journalPages(t, env, "/_sandbox/requests?limit=1000")
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
	env := mustSandbox(t)
	body := `{"x":"` + strings.Repeat("a", 15000) + `"}`
	const sent = 700 // about 11 MiB journaled
	for i := range sent {
		env.do("POST", fmt.Sprintf("/accesstoken?n=%d", i), jsonHeader(), body)
	}
	r := env.do("GET", "/_sandbox/requests?limit=10000&path=/accesstoken", nil, "")
	var page journalPage
	if err := json.Unmarshal(r.body, &page); err != nil || r.status != 200 {
		t.Fatalf("%d %v", r.status, err)
	}
	if len(r.body) > 9<<20 || len(page.Requests) >= sent || page.Next == "" {
		t.Errorf("first page: %d bytes, %d entries, next %q", len(r.body), len(page.Requests), page.Next)
	}
	all := journalPages(t, env, "/_sandbox/requests?limit=10000&path=/accesstoken")
	for i, e := range all {
		if want := uint64(sent - i); e.Seq != want {
			t.Fatalf("entry %d is number %d, want %d", i, e.Seq, want)
		}
	}
	if len(all) != sent {
		t.Errorf("%d entries read, want %d", len(all), sent)
	}
	for i := range 1001 {
		env.do("GET", fmt.Sprintf("/nowhere/%d", i), nil, "")
	}
	r = env.do("GET", "/_sandbox/requests?limit=5000&path=/nowhere/*", nil, "")
	if err := json.Unmarshal(r.body, &page); err != nil || len(page.Requests) != 1000 || !strings.Contains(page.Next, "before=") {
		t.Errorf("limit=5000: %d entries, next %q", len(page.Requests), page.Next)
	}
}

// journalPages reads the journal from path on, following next links.
func journalPages(t *testing.T, env *sandboxEnv, path string) []api.JournalEntry {
	t.Helper()
	var out []api.JournalEntry
	for path != "" {
		r := env.do("GET", path, nil, "")
		var page journalPage
		if err := json.Unmarshal(r.body, &page); err != nil || r.status != 200 {
			t.Fatalf("%s: %d %v", path, r.status, err)
		}
		out = append(out, page.Requests...)
		path = page.Next
	}
	return out
}

func TestJournalTruncatesLargeBodies(t *testing.T) {
	env := mustSandbox(t)
	big := `{"x":"` + strings.Repeat("a", 20<<10) + `"}`
	env.do("POST", "/accesstoken", jsonHeader(), big)
	r := env.do("GET", "/_sandbox/requests", nil, "")
	var j struct {
		Requests []struct {
			Status        int
			Body          string
			BodyTruncated bool `json:"body_truncated"`
		}
	}
	if err := json.Unmarshal(r.body, &j); err != nil || len(j.Requests) != 1 {
		t.Fatalf("%v %s", err, r.body)
	}
	e := j.Requests[0]
	if !e.BodyTruncated || len(e.Body) != 16<<10 || e.Status != 400 {
		t.Errorf("truncated %v, %d bytes kept, status %d", e.BodyTruncated, len(e.Body), e.Status)
	}
}

// A web page of another origin, open in the user's browser, cannot change the sandbox
// through the open admin API: its cross-origin writes are refused and change nothing,
// while the sandbox's own pages and clients that are not browsers pass.
func TestAdminRefusesBrowsersCrossOriginWrites(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, "")
	orderID := env.mustPlaceOrder(tok, `{}`)
	refused := gpError{403, "ACTION_NOT_AUTHORIZED", "40212",
		"Cross-origin request refused: the admin API changes state only for the sandbox's own pages and non-browser clients"}
	for name, h := range map[string]map[string]string{
		"Sec-Fetch-Site cross-site": {"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"},
		"Sec-Fetch-Site same-site":  {"Content-Type": "application/json", "Sec-Fetch-Site": "same-site"},
		"foreign Origin":            {"Content-Type": "text/plain", "Origin": "https://attacker.example"},
	} {
		for _, c := range adminCalls(orderID) {
			if c[0] == "GET" {
				continue // reads change nothing, and no CORS header lets another origin read them
			}
			if got := env.do(c[0], c[1], h, c[2]).gpError(t); got != refused {
				t.Errorf("%s %s with %s: %+v, want %+v", c[0], c[1], name, got, refused)
			}
		}
	}
	// Nothing changed: the order is still there (no reset) and still INITIATED.
	r := env.do("GET", "/_sandbox/orders/"+orderID, nil, "")
	if r.status != 200 || r.json(t)["status"] != "INITIATED" {
		t.Fatalf("after the refused writes: %d %s", r.status, r.body)
	}
	for name, h := range map[string]map[string]string{
		"the sandbox's own page": {"Content-Type": "application/json", "Sec-Fetch-Site": "same-origin"},
		"a client, no browser":   jsonHeader(),
	} {
		if r := env.do("POST", "/_sandbox/clock", h, `{"advance":"1s"}`); r.status != 200 {
			t.Errorf("clock from %s: %d %s", name, r.status, r.body)
		}
	}
}

// The clock stays within GP's timestamps, years 0001 to 9999, less the year the sandbox
// may count ahead of it, frozen or running: a move past them is refused naming the
// limit and leaves the clock where it was; it never wraps around (time.Duration spans
// 292 years).
func TestAdminClockStaysInGPRange(t *testing.T) {
	env := mustSandbox(t)
	const limit = " contains unexpected data: the sandbox clock stays from 0001-01-01T00:00:00.000Z to 9998-12-31T23:59:59.999Z, so that every time it counts ahead (a token's expiry, an order's next step) is one GP's timestamps can show"
	post := func(body string) reply { return env.do("POST", "/_sandbox/clock", jsonHeader(), body) }
	now := func() string { return env.do("GET", "/_sandbox/clock", nil, "").json(t)["now"].(string) }
	for _, frozen := range []string{"true", "false"} {
		t.Run("frozen "+frozen, func(t *testing.T) {
			post(`{"set":"2021-03-22T10:00:00.000Z","freeze":` + frozen + `}`)
			r := post(`{"set":"9998-12-31T23:59:59.000Z"}`)
			if got, _ := r.json(t)["now"].(string); r.status != 200 || !strings.HasPrefix(got, "9998-12-31T23:59:59.") {
				t.Errorf("set to 9998: %d %s", r.status, r.body)
			}
			post(`{"set":"2021-03-22T10:00:00.000Z"}`)
			// Forward by 228 years at a time: to 8405, then refused, never wrapping back.
			var last string
			for i := 0; i < 40; i++ {
				r := post(`{"advance":"2000000h"}`)
				if r.status != 200 {
					if e := r.gpError(t); e != (gpError{400, "INVALID_REQUEST_DATA", "40213", "advance" + limit}) {
						t.Errorf("advance past 9999: %+v", e)
					}
					break
				}
				got := r.json(t)["now"].(string)
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
				if e := post(body).gpError(t); e != (gpError{400, "INVALID_REQUEST_DATA", "40213", member + limit}) {
					t.Errorf("%s: %+v", body, e)
				}
				if after := now(); after[:16] != before[:16] {
					t.Errorf("%s moved the clock from %s to %s", body, before, after)
				}
			}
		})
	}
}
