package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

const (
	e2eAdminToken = "e2e-admin-token"
	partnerApp    = "SandboxPartnerAppId0000000000001"
	partnerKey    = "SandboxAppKey001"
	merchantOne   = "MER_00000000000000000000000000000001"
)

// exchange is one request of a script and the answer as the client saw it.
type exchange struct {
	status int
	header http.Header
	body   []byte
}

// client talks to one running sandbox.
type client struct {
	t    *testing.T
	base string
}

func (c client) do(method, path string, header map[string]string, body string) exchange {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept-Encoding", "identity")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return exchange{resp.StatusCode, resp.Header, b}
}

func (c client) admin(method, path, body string) exchange {
	c.t.Helper()
	x := c.do(method, path, map[string]string{"Authorization": "Bearer " + e2eAdminToken}, body)
	if x.status != 200 {
		c.t.Fatalf("%s %s: %d %s", method, path, x.status, x.body)
	}
	return x
}

func (c client) api(tok, path, idemKey, body string) exchange {
	c.t.Helper()
	h := map[string]string{"Authorization": "Bearer " + tok, "X-GP-Version": "2021-03-22"}
	if idemKey != "" {
		h["X-GP-Idempotency"] = idemKey
	}
	return c.do("POST", "/ucp"+path, h, body)
}

func (c client) token() string {
	c.t.Helper()
	x := c.do("POST", "/ucp/accesstoken", nil, `{"app_id":"`+partnerApp+`","nonce":"n1","secret":"`+
		sandbox.Secret("n1", partnerKey)+`","grant_type":"client_credentials"}`)
	var v struct{ Token string }
	if x.status != 200 || json.Unmarshal(x.body, &v) != nil {
		c.t.Fatalf("token: %d %s", x.status, x.body)
	}
	return v.Token
}

func field(t *testing.T, body []byte, name string) any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return m[name]
}

// TestSameSeedSameClockSameBytes runs the same script against two sandboxes started
// with the same flags: every answer (status, headers but Date, body) is identical.
func TestSameSeedSameClockSameBytes(t *testing.T) {
	script := func() []exchange {
		base, stop := mustRun(t, "--db", ":memory:", "--seed", "42", "--clock", "2021-03-22T10:00:00.000Z")
		defer stop()
		c := client{t, base}
		var out []exchange
		rec := func(x exchange) exchange { out = append(out, x); return x }
		tok := c.token()
		rec(c.do("POST", "/ucp/accesstoken", nil, `{"app_id":"`+partnerApp+`","nonce":"n2","secret":"`+
			sandbox.Secret("n2", partnerKey)+`","grant_type":"client_credentials","seconds_to_expire":600}`))
		rec(c.api(tok, "/transactions/TRN_CapturedSale000000000000000001/adjustment", "k1", `{"gratuity_amount":"200"}`))
		rec(c.api(tok, "/transactions/TRN_CapturedSale000000000000000001/adjustment", "k1", `{"gratuity_amount":"200"}`))
		rec(c.api(tok, "/merchants/"+merchantOne+"/orders", "", `{"status":"FOR_REVIEW","products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP"}]}`))
		order := rec(c.api(tok, "/merchants/"+merchantOne+"/orders", "k2", `{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP"}]}`))
		id, _ := field(t, order.body, "id").(string)
		rec(c.do("POST", "/_sandbox/clock", nil, `{"advance":"90s"}`))
		rec(c.do("POST", "/_sandbox/orders/"+id+"/status", nil, `{"status":"PROCESSING"}`))
		rec(c.api(tok, "/merchants/"+merchantOne+"/orders", "", `{"bogus":1}`))
		rec(c.do("GET", "/_sandbox/orders/"+id, nil, ""))
		rec(c.do("GET", "/_sandbox/transactions/TRN_CapturedSale000000000000000001", nil, ""))
		rec(c.do("GET", "/_sandbox/requests", nil, ""))
		return append([]exchange{{200, nil, []byte(tok)}}, out...)
	}
	first, second := script(), script()
	if len(first) != len(second) {
		t.Fatalf("%d and %d answers", len(first), len(second))
	}
	// The journal's duration_ms is wall-clock time, the one value a seed cannot fix
	// (and with it the length of the journal's answer).
	wallClock := regexp.MustCompile(`"duration_ms":[0-9.e+-]+`)
	for i := range first {
		a, b := first[i], second[i]
		if wallClock.Match(a.body) {
			a.body = wallClock.ReplaceAll(a.body, []byte(`"duration_ms":0`))
			b.body = wallClock.ReplaceAll(b.body, []byte(`"duration_ms":0`))
			a.header, b.header = a.header.Clone(), b.header.Clone()
			a.header.Del("Content-Length")
			b.header.Del("Content-Length")
		}
		if a.status != b.status || !bytes.Equal(a.body, b.body) || headers(a.header) != headers(b.header) {
			t.Errorf("answer %d differs:\n%d %s %s\n%d %s %s", i, a.status, headers(a.header), a.body, b.status, headers(b.header), b.body)
		}
	}
	// The run is not trivially stable: it issued tokens and ids.
	if !bytes.Contains(first[5].body, []byte(`"id":"ORD_`)) || len(first[0].body) != 28 {
		t.Errorf("unexpected script answers: %s / %s", first[0].body, first[5].body)
	}
}

// headers renders every header but Date, which net/http sets from the wall clock.
func headers(h http.Header) string {
	var lines []string
	for k, v := range h {
		if k != "Date" {
			lines = append(lines, k+": "+strings.Join(v, ", "))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// hook is a partner's webhook endpoint: it verifies signatures, records what it
// accepted and answers 503 while down.
type hook struct {
	t    *testing.T
	mu   sync.Mutex
	down bool
	got  []string
}

func (h *hook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Header.Get("X-GP-Signature") != sandbox.Sign(body, partnerKey) {
		h.t.Errorf("bad signature on %s", body)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.down {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	h.got = append(h.got, fmt.Sprint(field(h.t, body, "status")))
}

func (h *hook) received() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.got...)
}

func (h *hook) setDown(down bool) {
	h.mu.Lock()
	h.down = down
	h.mu.Unlock()
}

// TestAdminWalkthroughAcrossRestart is the admin story using only documented HTTP
// calls: seed a transaction, adjust it, read its history; order a device with a
// status_url, drive it to DELIVERED and receive every signed notification once and in
// order, across a sandbox restart; advance the clock a day and reuse a key.
func TestAdminWalkthroughAcrossRestart(t *testing.T) {
	h := &hook{t: t}
	listener := httptest.NewServer(h)
	defer listener.Close()
	db := filepath.Join(t.TempDir(), "walk.db")
	flags := []string{"--db", db, "--clock", "2021-03-22T10:00:00.000Z", "--admin-token", e2eAdminToken}

	base, stop := mustRun(t, flags...)
	c := client{t, base}
	c.admin("PUT", "/_sandbox/transactions/TRN_Walk", `{"id":"TRN_Walk","merchant_id":"`+merchantOne+
		`","time_created":"2021-03-21T09:00:00.000Z","type":"SALE","status":"CAPTURED","amount":"2000","currency":"USD","country":"US"}`)
	tok := c.token()
	if x := c.api(tok, "/transactions/TRN_Walk/adjustment", "walk-1", `{"gratuity_amount":"300"}`); x.status != 200 {
		t.Fatalf("adjust: %d %s", x.status, x.body)
	}
	hist := c.admin("GET", "/_sandbox/transactions/TRN_Walk", "")
	if !bytes.Contains(hist.body, []byte(`"changes":{"gratuity_amount":{"from":"","to":"300"}}`)) {
		t.Errorf("history: %s", hist.body)
	}
	x := c.api(tok, "/merchants/"+merchantOne+"/orders", "", `{"notifications":{"status_url":"`+listener.URL+`/gp"}}`)
	id, _ := field(t, x.body, "id").(string)
	testrun.WaitFor(t, "INITIATED", func() bool { return len(h.received()) == 1 })

	h.setDown(true)
	c.admin("POST", "/_sandbox/orders/"+id+"/status", `{"status":"PROCESSING"}`)
	c.admin("POST", "/_sandbox/orders/"+id+"/status", `{"status":"SHIPPED"}`)
	testrun.WaitFor(t, "a failed attempt", func() bool {
		return bytes.Contains(c.admin("GET", "/_sandbox/notifications?order_id="+id, "").body, []byte(`"http_status":503`))
	})
	stop()
	h.setDown(false)

	base, stop = mustRun(t, flags...)
	defer stop()
	c = client{t, base}
	c.admin("POST", "/_sandbox/clock", `{"advance":"1m"}`) // past the retry
	testrun.WaitFor(t, "PROCESSING and SHIPPED", func() bool { return len(h.received()) == 3 })
	c.admin("POST", "/_sandbox/orders/"+id+"/status", `{"status":"DELIVERED"}`)
	testrun.WaitFor(t, "DELIVERED", func() bool { return len(h.received()) == 4 })
	time.Sleep(100 * time.Millisecond)
	if got := strings.Join(h.received(), ","); got != "INITIATED,PROCESSING,SHIPPED,DELIVERED" {
		t.Errorf("received %s", got)
	}
	var log struct{ Notifications []struct{ State string } }
	json.Unmarshal(c.admin("GET", "/_sandbox/notifications?order_id="+id, "").body, &log)
	for i, n := range log.Notifications {
		if n.State != "DELIVERED" {
			t.Errorf("notification %d: %s", i, n.State)
		}
	}

	c.admin("POST", "/_sandbox/clock", `{"advance":"25h"}`)
	tok = c.token() // the old one expired with the day
	if x := c.api(tok, "/transactions/TRN_Walk/adjustment", "walk-1", `{"gratuity_amount":"400"}`); x.status != 200 {
		t.Errorf("key after a day: %d %s", x.status, x.body)
	}
}
