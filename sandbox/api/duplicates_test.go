package api_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
)

// repeatSale is a manual card-present sale of GP's approving Visa test card.
func repeatSale(amount, reference, expiryYear string) string {
	ref := ""
	if reference != "" {
		ref = `"reference":"` + reference + `",`
	}
	return `{"account_name":"transaction_processing","channel":"CP","type":"SALE","capture_mode":"AUTO",` +
		`"amount":"` + amount + `","currency":"USD","country":"US",` + ref +
		`"payment_method":{"entry_mode":"MANUAL","card":{"number":"4263970000005262","expiry_month":"12","expiry_year":"` + expiryYear + `"}}}`
}

type dupEnv struct {
	*sandboxEnv
	t   *testing.T
	tok string
	log *apitest.LockedBuffer
}

func newDupEnv(t *testing.T, o apitest.Options) *dupEnv {
	log := &apitest.LockedBuffer{}
	o.Log = log
	env := mustSandboxWith(t, o)
	return &dupEnv{sandboxEnv: env, t: t, tok: env.MustToken(apitest.PartnerApp, apitest.PartnerKey, ""), log: log}
}

// sale sends a sale under an idempotency key ("" for none) and returns the new
// transaction's id and the journal's duplicate_of for it.
func (e *dupEnv) sale(key, body string, extra ...string) (id, duplicateOf string) {
	e.t.Helper()
	h := apitest.APIHeader(e.tok, extra...)
	if key != "" {
		h["X-GP-Idempotency"] = key
	}
	r := e.Do("POST", "/transactions", h, body)
	if r.Status != 200 {
		e.t.Fatalf("sale: %d %s", r.Status, r.Body)
	}
	if m := r.JSON(e.t); m["status"] != "CAPTURED" {
		e.t.Fatalf("sale not captured: %s", r.Body)
	} else {
		id = m["id"].(string)
	}
	return id, e.lastDuplicateOf()
}

// lastDuplicateOf is the duplicate_of of the newest journaled transaction request.
func (e *dupEnv) lastDuplicateOf() string {
	e.t.Helper()
	var list struct {
		Requests []map[string]any `json:"requests"`
	}
	if err := json.Unmarshal(e.Do("GET", "/_sandbox/requests?operation=transaction&limit=1", nil, "").Body, &list); err != nil || len(list.Requests) != 1 {
		e.t.Fatalf("journal: %v", err)
	}
	s, _ := list.Requests[0]["duplicate_of"].(string)
	return s
}

// A second sale of the same card, amount, currency and reference within the window is
// flagged, under another key or none: the journal names the first, a warning in the
// log names both, the answer is the normal one; the card number is nowhere in the log.
func TestDuplicateChargeFlagged(t *testing.T) {
	e := newDupEnv(t, apitest.Options{})
	first, dup := e.sale("key-1", repeatSale("1000", "order-7", "30"))
	if dup != "" {
		t.Fatalf("the first sale is flagged as a duplicate of %s", dup)
	}
	e.Clock.Advance(9 * time.Minute)
	second, dup := e.sale("key-2", repeatSale("1000", "order-7", "30"))
	if dup != first {
		t.Errorf("second sale under another key: duplicate_of %q, want %q", dup, first)
	}
	if _, dup := e.sale("", repeatSale("1000", "order-7", "30")); dup != second {
		t.Errorf("third sale without a key: duplicate_of %q, want %q (the one before)", dup, second)
	}
	var warned bool
	for _, line := range strings.Split(e.log.String(), "\n") {
		if strings.Contains(line, `"level":"WARN"`) && strings.Contains(line, "possible double charge") &&
			strings.Contains(line, `"transaction_id":"`+second+`"`) && strings.Contains(line, `"duplicate_of":"`+first+`"`) {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning names %s and %s:\n%s", second, first, e.log.String())
	}
	if strings.Contains(e.log.String(), "4263970000005262") {
		t.Error("the log holds the card number in clear")
	}
}

// Not a duplicate: outside the window, another amount, reference, currency or
// expiry, a replay of the same idempotency key; two sales without a reference are
// alike.
func TestDuplicateChargeNotFlagged(t *testing.T) {
	e := newDupEnv(t, apitest.Options{})
	e.sale("a-1", repeatSale("1000", "r", "30"))
	for _, tc := range []struct{ name, body string }{
		{"another amount", repeatSale("1001", "r", "30")},
		{"another reference", repeatSale("1000", "r2", "30")},
		{"another expiry", repeatSale("1000", "r", "31")},
		{"another currency", strings.Replace(repeatSale("1000", "r", "30"), `"USD"`, `"EUR"`, 1)},
	} {
		if _, dup := e.sale("k-"+tc.name, tc.body); dup != "" {
			t.Errorf("%s: flagged as a duplicate of %s", tc.name, dup)
		}
	}
	// The same key again is GP's idempotency answer, not a second charge.
	if r := e.Do("POST", "/transactions", apitest.APIHeader(e.tok, "X-GP-Idempotency", "a-1"), repeatSale("1000", "r", "30")); r.Status != 409 {
		t.Errorf("same key: %d %s", r.Status, r.Body)
	}
	if dup := e.lastDuplicateOf(); dup != "" {
		t.Errorf("same key: flagged as a duplicate of %s", dup)
	}
	replay := []string{"X-Sandbox-Scenario", "idempotency-replay"}
	e.sale("replay-1", repeatSale("500", "", "30"), replay...)
	if _, dup := e.sale("replay-1", repeatSale("500", "", "30"), replay...); dup != "" {
		t.Errorf("replay of the same key: flagged as a duplicate of %s", dup)
	}
	// Both without a reference: the same charge.
	first, _ := e.sale("n-1", repeatSale("700", "", "30"))
	if _, dup := e.sale("n-2", repeatSale("700", "", "30")); dup != first {
		t.Errorf("two sales without reference: duplicate_of %q, want %q", dup, first)
	}
	// Past the window (10 minutes of sandbox time by default).
	e.Clock.Advance(10*time.Minute + time.Millisecond)
	if _, dup := e.sale("n-3", repeatSale("700", "", "30")); dup != "" {
		t.Errorf("past the window: flagged as a duplicate of %s", dup)
	}
}

// The window is configurable, and a negative one turns the check off.
func TestDuplicateChargeWindow(t *testing.T) {
	for _, tc := range []struct {
		window, wait time.Duration
		flagged      bool
	}{
		{time.Minute, 59 * time.Second, true},
		{time.Minute, 61 * time.Second, false},
		{-1, 0, false},
	} {
		e := newDupEnv(t, apitest.Options{Configure: []func(*app.Config){func(c *app.Config) { c.DuplicateWindow = tc.window }}})
		e.sale("w-1", repeatSale("1000", "w", "30"))
		e.Clock.Advance(tc.wait)
		if _, dup := e.sale("w-2", repeatSale("1000", "w", "30")); (dup != "") != tc.flagged {
			t.Errorf("window %v, second sale %v later: duplicate_of %q, want flagged %v", tc.window, tc.wait, dup, tc.flagged)
		}
	}
}

// A scenario with duplicate_charge: refuse answers the repeat with 409
// DUPLICATE_ACTION 40039 naming the first, and writes nothing: no transaction, the
// idempotency key stays free, and the first stays the one a later repeat names.
func TestDuplicateChargeRefusedByScenario(t *testing.T) {
	e := newDupEnv(t, apitest.Options{Scenarios: []scenario.Scenario{{Name: "no-double-charge", Rules: []scenario.Rule{{
		When: scenario.When{Operations: []string{string(sandbox.OpTransaction)}},
		Then: &scenario.Outcome{DuplicateCharge: scenario.DuplicateRefuse},
	}}}}})
	refuse := []string{"X-Sandbox-Scenario", "no-double-charge"}
	first, _ := e.sale("r-1", repeatSale("1000", "order-9", "30"), refuse...)
	count := func() int {
		n := 0
		if err := e.DB.View(func(tx sandbox.Tx) error {
			var err error
			n, err = tx.CountTransactions(apitest.MerchantOne)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	r := e.Do("POST", "/transactions", apitest.APIHeader(e.tok, append(refuse, "X-GP-Idempotency", "r-2")...), repeatSale("1000", "order-9", "30"))
	want := apitest.Err(409, "DUPLICATE_ACTION", "40039", "Duplicate transaction seen before: id="+first)
	if got := r.GPError(t); got != want {
		t.Errorf("refused repeat: %+v, want %+v", got, want)
	}
	if r.Header.Get("X-Sandbox-Rule") != "no-double-charge#0" {
		t.Errorf("refused repeat: X-Sandbox-Rule %q", r.Header.Get("X-Sandbox-Rule"))
	}
	if after := count(); after != before {
		t.Errorf("the refused repeat wrote a transaction: %d, then %d", before, after)
	}
	// The key is free: the same key without the scenario charges, flagged against the first.
	if _, dup := e.sale("r-2", repeatSale("1000", "order-9", "30")); dup != first {
		t.Errorf("after the refusal: duplicate_of %q, want %q", dup, first)
	}
	// A payment that repeats nothing passes the scenario.
	e.sale("r-3", repeatSale("2000", "order-9", "30"), refuse...)
}
