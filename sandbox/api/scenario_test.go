package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
	"github.com/gp-sandbox/gp-sandbox/sandbox/yamlfile"
)

const (
	adjustPath = "/ucp/transactions/" + apitest.CapturedOne + "/adjustment"
	orderPath  = "/ucp/merchants/" + apitest.MerchantOne + "/orders"
	orderBody  = `{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":1}}]}`
)

// gratuity reads a transaction's stored gratuity, to tell whether an action was applied.
func (env *sandboxEnv) gratuity(id string) string {
	env.T.Helper()
	var g string
	err := env.DB.View(func(tx sandbox.Tx) error {
		t, err := tx.Transaction(id)
		g = t.GratuityAmount
		return err
	})
	if err != nil {
		env.T.Fatal(err)
	}
	return g
}

// attempt sends a request with a client of its own (no connection reuse, the given
// timeout) and returns the client's error instead of failing: faults are client errors.
func (env *sandboxEnv) attempt(timeout time.Duration, path string, header map[string]string, body string) (apitest.Reply, error) {
	req, _ := http.NewRequest("POST", env.URL+path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	req.Header.Set("Accept-Encoding", "identity")
	client := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return apitest.Reply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return apitest.Reply{Status: resp.StatusCode, Header: resp.Header, Body: b}, err
}

func mustRule(t *testing.T, r apitest.Reply, want string) {
	t.Helper()
	if got := r.Header.Get("X-Sandbox-Rule"); got != want {
		t.Errorf("X-Sandbox-Rule = %q, want %q (status %d %s)", got, want, r.Status, r.Body)
	}
}

// A scripted error stands in for an action GP would have taken: a request GP refuses
// whatever a scenario says (an unknown transaction, another merchant's, one whose state
// the action refuses) gets that refusal, as without the scenario; one GP would take
// gets the scripted error, with nothing written and its idempotency key still free
// (A25).
func TestScriptedErrorAfterGPsOwnRefusals(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	scripted := apitest.APIHeader(tok, "X-Sandbox-Scenario", "downstream-error")
	adjust := func(id string) string { return "/transactions/" + id + "/adjustment" }
	for _, tc := range []struct{ name, method, path, body string }{
		{"unknown transaction", "POST", adjust("TRN_DoesNotExist"), `{"gratuity_amount":"100"}`},
		{"another merchant's", "POST", adjust(apitest.OtherMerchant), `{"gratuity_amount":"100"}`},
		{"declined", "POST", adjust(apitest.Declined), `{"gratuity_amount":"100"}`},
		{"in a closed batch", "POST", adjust(apitest.Batched), `{"gratuity_amount":"100"}`},
		{"capture of a captured sale", "POST", "/transactions/" + apitest.CapturedTwo + "/capture", `{"amount":"100"}`},
		{"unknown transaction read", "GET", "/transactions/TRN_DoesNotExist", ""},
		{"unknown batch", "POST", "/batches/BAT_9999999", ""},
		{"a dispute search by an unknown arn", "GET", "/disputes?arn=00000000000000000000000", ""},
		{"a dispute's unknown document", "GET", "/disputes/DIS_SAND_abcd1234/documents/DOC_NoSuchDocument", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := env.Do(tc.method, tc.path, apitest.APIHeader(tok), tc.body).GPError(t)
			if want.Status == 502 || want.Status < 400 {
				t.Fatalf("without the scenario: %+v, want GP's refusal", want)
			}
			r := env.Do(tc.method, tc.path, scripted, tc.body)
			if got := r.GPError(t); got != want || r.Header.Get("X-Sandbox-Rule") != "" {
				t.Errorf("with the scenario: %+v, rule %q; want GP's refusal %+v and no rule", got, r.Header.Get("X-Sandbox-Rule"), want)
			}
		})
	}
	// The refusal is recorded as without the scenario: two failed captures, one each way.
	if failed, _ := env.actionsOf(tok, "?type=CAPTURE&http_response_code=400"); len(failed) != 2 {
		t.Errorf("failed captures recorded: %d, want 2", len(failed))
	}
	// A refused request gives its sequence's call back: flaky-then-ok's two failures
	// are still the next two valid requests'.
	flaky := apitest.APIHeader(tok, "X-Sandbox-Scenario", "flaky-then-ok", "X-Sandbox-Session", "refused-first")
	if r := env.Do("POST", adjust("TRN_DoesNotExist"), flaky, `{"gratuity_amount":"1"}`); r.Status != 404 {
		t.Errorf("a refused request under flaky-then-ok: %d %s", r.Status, r.Body)
	}
	var seen []int
	for range 3 {
		seen = append(seen, env.Do("POST", adjust(apitest.CapturedTwo), flaky, `{"gratuity_amount":"1"}`).Status)
	}
	if seen[0] != 502 || seen[1] != 502 || seen[2] != 200 {
		t.Errorf("after a refused request, flaky-then-ok answered %v, want 502 502 200", seen)
	}
	// GP checks the token and the permission before it looks anything up: a scripted
	// 403 stands on an unknown transaction.
	forbidden := env.Do("POST", adjust("TRN_DoesNotExist"), apitest.APIHeader(tok, "X-Sandbox-Scenario", "adjustment-not-available"), `{"gratuity_amount":"100"}`)
	if got := forbidden.GPError(t); got.Status != 403 || got.Detail != "40212" {
		t.Errorf("a scripted 403 on an unknown transaction: %+v", got)
	}
	before := env.gratuity(apitest.CapturedTwo)
	keyed := apitest.APIHeader(tok, "X-Sandbox-Scenario", "downstream-error", "X-GP-Idempotency", "scripted-once")
	r := env.Do("POST", adjust(apitest.CapturedTwo), keyed, `{"gratuity_amount":"4321"}`)
	if got := r.GPError(t); got.Status != 502 || got.Detail != "50046" {
		t.Errorf("a valid adjustment: %+v, want the scripted 502", got)
	}
	if got := env.gratuity(apitest.CapturedTwo); got != before {
		t.Errorf("the scripted error wrote the adjustment: gratuity %q, was %q", got, before)
	}
	r = env.Do("POST", adjust(apitest.CapturedTwo), apitest.APIHeader(tok, "X-GP-Idempotency", "scripted-once"), `{"gratuity_amount":"4321"}`)
	if r.Status != 200 || env.gratuity(apitest.CapturedTwo) != "4321" {
		t.Errorf("the key after the scripted error: %d %s", r.Status, r.Body)
	}
}

// Every built-in scenario, switched on by header, does what the README says.
func TestBuiltinScenarios(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	with := func(name string, extra ...string) map[string]string {
		return apitest.APIHeader(tok, append([]string{"X-Sandbox-Scenario", name}, extra...)...)
	}

	t.Run("adjustment-not-available", func(t *testing.T) {
		r := env.Do("POST", adjustPath, with("adjustment-not-available"), `{"gratuity_amount":"111"}`)
		if got := r.GPError(t); got != (apitest.Err(403, "ACTION_NOT_AUTHORIZED", "40212", "Permission not enabled to execute action")) {
			t.Errorf("got %+v", got)
		}
		mustRule(t, r, "adjustment-not-available#0")
		if g := env.gratuity(apitest.CapturedOne); g == "111" {
			t.Error("the refused adjustment was stored")
		}
		// Orders are not concerned.
		r = env.Do("POST", orderPath, with("adjustment-not-available"), orderBody)
		if r.Status != 200 || r.Header.Get("X-Sandbox-Rule") != "" {
			t.Errorf("order: %d %s", r.Status, r.Body)
		}
	})
	t.Run("downstream-error", func(t *testing.T) {
		want := apitest.Err(502, "SYSTEM_ERROR_DOWNSTREAM", "50046", "Unable to process your request due to an error with a system down stream.")
		r := env.Do("POST", "/accesstoken", map[string]string{"X-Sandbox-Scenario": "downstream-error"}, apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, ""))
		if got := r.GPError(t); got != want {
			t.Errorf("token: %+v", got)
		}
		r = env.Do("POST", orderPath, with("downstream-error"), orderBody)
		if got := r.GPError(t); got != want {
			t.Errorf("order: %+v", got)
		}
	})
	t.Run("batch-closed", func(t *testing.T) {
		r := env.Do("POST", adjustPath, with("batch-closed"), `{"amount":"1"}`)
		if got := r.GPError(t); got != (apitest.Err(400, "INVALID_ACTION", "40290", "Cannot PROCESS Adjustment over a transaction that is in a closed batch.")) {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("order-merchant-not-configured", func(t *testing.T) {
		r := env.Do("POST", orderPath, with("order-merchant-not-configured"), orderBody)
		if got := r.GPError(t); got.Status != 400 || got.Code != "INVALID_REQUEST_DATA" || got.Detail != "40041" ||
			!strings.HasPrefix(got.Description, "Merchant configuration does not exist") {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("declined-adjustment", func(t *testing.T) {
		r := env.Do("POST", "/transactions/"+apitest.CapturedTwo+"/adjustment", with("declined-adjustment"), `{"gratuity_amount":"42"}`)
		m := r.JSON(t)
		pm, _ := m["payment_method"].(map[string]any)
		if r.Status != 200 || m["status"] != "DECLINED" || pm["result"] != "55" || pm["card"] == nil {
			t.Errorf("got %d %s", r.Status, r.Body)
		}
		// The merge keeps GP's field order.
		if !bytes.HasPrefix(r.Body, []byte(`{"id":"`+apitest.CapturedTwo+`","time_created":`)) {
			t.Errorf("field order lost: %s", r.Body)
		}
		if g := env.gratuity(apitest.CapturedTwo); g != "42" {
			t.Errorf("stored gratuity %q, want the executed change", g)
		}
	})
	t.Run("idempotency-replay", func(t *testing.T) {
		h := with("idempotency-replay", "X-GP-Idempotency", "replay-1")
		first := env.Do("POST", orderPath, h, orderBody)
		again := env.Do("POST", orderPath, h, orderBody)
		if first.Status != 200 || again.Status != 200 || !bytes.Equal(first.Body, again.Body) {
			t.Errorf("replay: %d %s / %d %s", first.Status, first.Body, again.Status, again.Body)
		}
		other := env.Do("POST", orderPath, h, `{"products":[{"id":"PRO_TRA_CP-US-CARD-A80_SP"}]}`)
		if got := other.GPError(t); got.Status != 409 || got.Code != "DUPLICATE_ACTION" {
			t.Errorf("other body: %+v", got)
		}
		// Without the scenario the same key is a plain 409.
		if r := env.Do("POST", orderPath, apitest.APIHeader(tok, "X-GP-Idempotency", "replay-1"), orderBody); r.Status != 409 {
			t.Errorf("without replay: %d %s", r.Status, r.Body)
		}
		// The request is known by its masked form: nothing kept is derived from the
		// clear card number or CVV, so a repeat differing only in them is the same
		// request, and one differing in what is shown is another.
		sale := func(number, cvv, amount string) string {
			return `{"channel":"CP","type":"SALE","amount":"` + amount + `","currency":"USD","payment_method":{"entry_mode":"MANUAL","card":{"number":"` +
				number + `","expiry_month":"12","expiry_year":"30","cvv":"` + cvv + `"}}}`
		}
		hs := with("idempotency-replay", "X-GP-Idempotency", "replay-card")
		charged := env.Do("POST", "/transactions", hs, sale("4263970000005262", "123", "1000"))
		for _, repeat := range []string{sale("4263970000005262", "456", "1000"), sale("4263971234565262", "123", "1000")} {
			if r := env.Do("POST", "/transactions", hs, repeat); r.Status != 200 || !bytes.Equal(r.Body, charged.Body) {
				t.Errorf("a repeat differing in hidden digits: %d %s, want the first answer %s", r.Status, r.Body, charged.Body)
			}
		}
		if got := env.Do("POST", "/transactions", hs, sale("4263970000005262", "123", "1001")).GPError(t); got.Status != 409 {
			t.Errorf("a repeat of another amount: %+v", got)
		}
		// Another card swiped under the key is another request, though both tracks are
		// masked whole.
		swipe := func(track string) string {
			return `{"channel":"CP","type":"SALE","amount":"1000","currency":"USD","payment_method":{"entry_mode":"SWIPE","card":{"track":"` + track + `"}}}`
		}
		hw := with("idempotency-replay", "X-GP-Idempotency", "replay-swipe")
		if r := env.Do("POST", "/transactions", hw, swipe("%B4012002000060016^VI TEST CREDIT^251210118039000000000396?")); r.Status != 200 {
			t.Fatalf("swipe: %d %s", r.Status, r.Body)
		}
		if got := env.Do("POST", "/transactions", hw, swipe("%B5473500000000014^MC TEST CARD^251210199998888777766665555444?")).GPError(t); got.Status != 409 {
			t.Errorf("another card's track under the key: %+v", got)
		}
		// A key first used outside replay mode has no answer kept to replay: 409, not
		// an empty 200.
		env.Do("POST", orderPath, apitest.APIHeader(tok, "X-GP-Idempotency", "replay-2"), orderBody)
		late := env.Do("POST", orderPath, with("idempotency-replay", "X-GP-Idempotency", "replay-2"), orderBody)
		if got := late.GPError(t); got.Status != 409 || got.Code != "DUPLICATE_ACTION" {
			t.Errorf("replay of a key used before replay mode: %+v", got)
		}
	})
	t.Run("flaky-then-ok", func(t *testing.T) {
		var got []int
		for range 4 {
			got = append(got, env.Do("POST", orderPath, with("flaky-then-ok", "X-Sandbox-Session", "flaky"), orderBody).Status)
		}
		if fmt.Sprint(got) != "[502 502 200 200]" {
			t.Errorf("statuses %v", got)
		}
	})
	t.Run("token-expired", func(t *testing.T) {
		h := with("token-expired", "X-Sandbox-Session", "expiry", "X-GP-Idempotency", "expiry-1")
		r := env.Do("POST", adjustPath, h, `{"amount":"900"}`)
		if got := r.GPError(t); got != (apitest.Err(401, "NOT_AUTHENTICATED", "40002", "Access token expired")) {
			t.Errorf("first call: %+v", got)
		}
		// The client re-authenticates and resends with the same idempotency key.
		h["Authorization"] = "Bearer " + env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
		if r := env.Do("POST", adjustPath, h, `{"amount":"900"}`); r.Status != 200 {
			t.Errorf("resend: %d %s", r.Status, r.Body)
		}
	})
	t.Run("slow-network", func(t *testing.T) {
		start := time.Now()
		r := env.Do("POST", orderPath, with("slow-network"), orderBody)
		if d := time.Since(start); r.Status != 200 || d < time.Second {
			t.Errorf("status %d after %v, want 200 after at least 1s", r.Status, d)
		}
	})
	t.Run("timeout-after-commit", func(t *testing.T) {
		// The rule stores the change, then holds the connection 10 s and drops it
		// without an answer. The change is stored while the request is still held,
		// so that a client that gives up and retries meets it done: it is seen while
		// the request is not yet journaled (an entry is written once its answer, or
		// its dropped connection, is done) and its connection is still open.
		journaled := func() string {
			return string(env.Do("GET", "/_sandbox/requests/count?scenario=timeout-after-commit", nil, "").Body)
		}
		before := journaled()
		ctx, giveUp := context.WithCancel(context.Background())
		defer giveUp()
		req, _ := http.NewRequestWithContext(ctx, "POST", env.URL+"/transactions/"+apitest.Preauthorized+"/adjustment",
			strings.NewReader(`{"gratuity_amount":"77"}`))
		for k, v := range with("timeout-after-commit") {
			req.Header.Set(k, v)
		}
		ended := make(chan error, 1)
		go func() {
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			ended <- err
		}()
		testrun.WaitForValue(t, "the stored gratuity 77", func() string { return env.gratuity(apitest.Preauthorized) },
			func(g string) bool { return g == "77" })
		if now := journaled(); now != before {
			t.Errorf("the request was journaled (%s, then %s) by the time its change was stored: stored after the hold, not before it", before, now)
		}
		select {
		case err := <-ended:
			t.Errorf("the connection ended (%v) before the change was seen", err)
		default:
			giveUp() // as a client would
			if err := <-ended; !errors.Is(err, context.Canceled) {
				t.Errorf("the client gave up, then got %v", err)
			}
		}
	})
}

func faultScenarios(t *testing.T) []scenario.Scenario {
	t.Helper()
	src := `version: 1
name: faults
rules:
  - when: {operation: adjustment, body: {gratuity_amount: "1"}}
    then: {fault: reset}
  - when: {operation: adjustment, body: {gratuity_amount: "2"}}
    then: {fault: timeout, delay: 100ms, apply: true}
  - when: {operation: adjustment, body: {gratuity_amount: "3"}}
    then: {fault: empty}
  - when: {operation: adjustment, body: {gratuity_amount: "4"}}
    then: {fault: malformed, apply: true}
  - when: {operation: adjustment, body: {gratuity_amount: "5"}}
    then: {fault: malformed, status: 502, error: {code: SYSTEM_ERROR_DOWNSTREAM, detail: "50046"}}
`
	scs, err := yamlfile.LoadScenarios(mapFS("faults.yaml", src))
	if err != nil {
		t.Fatal(err)
	}
	return scs
}

// Every fault kind, as a real client sees it.
func TestFaultsSeenByClient(t *testing.T) {
	env := mustSandboxWith(t, apitest.Options{Scenarios: faultScenarios(t)})
	h := apitest.APIHeader(env.MustToken(apitest.PartnerApp, apitest.PartnerKey, ""), "X-Sandbox-Scenario", "faults")
	path := "/transactions/" + apitest.CapturedOne + "/adjustment"

	if _, err := env.attempt(time.Until(testrun.Deadline(t)), path, h, `{"gratuity_amount":"1"}`); err == nil {
		t.Error("reset: the client got an answer")
	} else if g := env.gratuity(apitest.CapturedOne); g == "1" {
		t.Error("reset without apply stored the change")
	}

	start := time.Now()
	_, err := env.attempt(time.Until(testrun.Deadline(t)), path, h, `{"gratuity_amount":"2"}`)
	var netErr interface{ Timeout() bool }
	if err == nil || (errors.As(err, &netErr) && netErr.Timeout()) || time.Since(start) < 100*time.Millisecond {
		t.Errorf("timeout: want the server to close after 100ms, got %v after %v", err, time.Since(start))
	}
	if g := env.gratuity(apitest.CapturedOne); g != "2" {
		t.Errorf("timeout with apply: stored gratuity %q, want 2", g)
	}

	r, err := env.attempt(time.Until(testrun.Deadline(t)), path, h, `{"gratuity_amount":"3"}`)
	if err != nil || r.Status != 200 || len(r.Body) != 0 || r.Header.Get("X-Sandbox-Rule") != "faults#2" {
		t.Errorf("empty: %v %d %q", err, r.Status, r.Body)
	}
	if g := env.gratuity(apitest.CapturedOne); g != "2" {
		t.Errorf("empty without apply stored the change: %q", g)
	}

	r, err = env.attempt(time.Until(testrun.Deadline(t)), path, h, `{"gratuity_amount":"4"}`)
	if err != nil || r.Status != 200 || len(r.Body) == 0 || json.Valid(r.Body) || !bytes.HasPrefix(r.Body, []byte(`{"id":"`)) {
		t.Errorf("malformed: %v %d %q", err, r.Status, r.Body)
	}
	if g := env.gratuity(apitest.CapturedOne); g != "4" {
		t.Errorf("malformed with apply: stored gratuity %q, want 4", g)
	}

	r, err = env.attempt(time.Until(testrun.Deadline(t)), path, h, `{"gratuity_amount":"5"}`)
	if err != nil || r.Status != 502 || json.Valid(r.Body) || !bytes.HasPrefix(r.Body, []byte(`{"error_code":"SYSTEM_`)) {
		t.Errorf("malformed error: %v %d %q", err, r.Status, r.Body)
	}
}

// Header, fixture binding and global activation, and their precedence.
func TestScenarioActivation(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	env := mustSandboxWith(t, apitest.Options{
		Global: []string{"downstream-error"},
		Fixtures: func(fx *sandbox.Fixtures) {
			for i := range fx.Transactions {
				if fx.Transactions[i].ID == apitest.CapturedTwo {
					fx.Transactions[i].Scenarios = []string{"batch-closed"}
				}
			}
		},
		Log: lockedWriter{&mu, &logs},
	})
	// The global scenario also covers /accesstoken; a header naming another scenario
	// replaces it.
	if r := env.Do("POST", "/accesstoken", apitest.JSONHeader(), apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, "")); r.Status != 502 {
		t.Fatalf("global on accesstoken: %d %s", r.Status, r.Body)
	}
	r := env.Do("POST", "/accesstoken", map[string]string{"X-Sandbox-Scenario": "adjustment-not-available, batch-closed"}, apitest.TokenBody(apitest.PartnerApp, apitest.PartnerKey, ""))
	if r.Status != 200 {
		t.Fatalf("header replaces global: %d %s", r.Status, r.Body)
	}
	tok := r.JSON(t)["token"].(string)

	// Bound to the transaction: its binding beats the global scenario.
	r = env.Do("POST", "/transactions/"+apitest.CapturedTwo+"/adjustment", apitest.APIHeader(tok), `{"amount":"1"}`)
	if got := r.GPError(t); got.Detail != "40290" {
		t.Errorf("fixture binding: %+v", got)
	}
	mustRule(t, r, "batch-closed#0")
	// Another transaction: the global scenario.
	r = env.Do("POST", adjustPath, apitest.APIHeader(tok), `{"amount":"1"}`)
	mustRule(t, r, "downstream-error#0")
	// The header beats the binding.
	r = env.Do("POST", "/transactions/"+apitest.CapturedTwo+"/adjustment", apitest.APIHeader(tok, "X-Sandbox-Scenario", "adjustment-not-available"), `{"amount":"1"}`)
	mustRule(t, r, "adjustment-not-available#0")
	// An unknown name in the header is the client's mistake, named after the header,
	// with the unknown name and the known ones.
	r = env.Do("POST", adjustPath, apitest.APIHeader(tok, "X-Sandbox-Scenario", "adjustment-not-available,no-such"), `{"amount":"1"}`)
	if got := r.GPError(t); got != (apitest.Err(400, "INVALID_REQUEST_DATA", "40213", `X-Sandbox-Scenario contains unexpected data: unknown scenario "no-such"; `+
		"known: adjustment-not-available, batch-closed, capture-over-limit, declined-adjustment, declined-sale, downstream-error, flaky-then-ok, "+
		"idempotency-replay, order-merchant-not-configured, slow-network, timeout-after-commit, token-expired")) {
		t.Errorf("unknown name: %+v", got)
	}
	// A card number sent as a name is not echoed in clear.
	r = env.Do("POST", adjustPath, apitest.APIHeader(tok, "X-Sandbox-Scenario", "4263970000005262"), `{"amount":"1"}`)
	if got := r.GPError(t); strings.Contains(got.Description, "4263970000005262") || !strings.Contains(got.Description, "unknown scenario") {
		t.Errorf("card number as a name: %+v", got)
	}
	// Past 20 loaded scenarios the answer says where to list them instead.
	for i := range 9 {
		yaml := fmt.Sprintf("version: 1\nname: extra-%d\nrules: [{when: {operation: order}, then: pass}]\n", i)
		env.MustInstallScenario(yaml)
	}
	r = env.Do("POST", adjustPath, apitest.APIHeader(tok, "X-Sandbox-Scenario", "no-such"), `{"amount":"1"}`)
	if got := r.GPError(t); got.Description != `X-Sandbox-Scenario contains unexpected data: unknown scenario "no-such"; 21 are loaded, GET /_sandbox/scenarios lists them` {
		t.Errorf("unknown name among many: %+v", got)
	}
	// A session name longer than 100 characters is refused, naming the header.
	r = env.Do("POST", adjustPath, apitest.APIHeader(tok, "X-Sandbox-Session", strings.Repeat("s", 101)), `{"amount":"1"}`)
	if got := r.GPError(t); got != (apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "X-Sandbox-Session contains unexpected data")) {
		t.Errorf("long session: %+v", got)
	}
	// A named scenario that matches nothing: the request passes and the log says why.
	r = env.Do("POST", orderPath, apitest.APIHeader(tok, "X-Sandbox-Scenario", "batch-closed", "X-Sandbox-Session", "s-1"), orderBody)
	if r.Status != 200 || r.Header.Get("X-Sandbox-Rule") != "" {
		t.Errorf("miss: %d %s", r.Status, r.Body)
	}

	mu.Lock()
	defer mu.Unlock()
	var sawRule, sawMiss bool
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec["rule"] == "batch-closed#0" {
			sawRule = true
		}
		if rec["miss"] == "batch-closed#0: operation is order, want adjustment" && rec["session"] == "s-1" {
			sawMiss = true
		}
	}
	if !sawRule || !sawMiss {
		t.Errorf("request log lacks the rule (%v) or the miss with its session (%v):\n%s", sawRule, sawMiss, logs.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Two test suites running the same sequence in parallel, each in its own session,
// see the whole sequence each; concurrent requests of one session share its steps.
func TestParallelSessions(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	var wg sync.WaitGroup
	results := make([]string, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := apitest.APIHeader(tok, "X-Sandbox-Scenario", "flaky-then-ok", "X-Sandbox-Session", fmt.Sprintf("suite-%d", i))
			var got []int
			for range 5 {
				r, err := env.attempt(time.Until(testrun.Deadline(t)), orderPath, h, orderBody)
				if err != nil {
					t.Error(err)
					return
				}
				got = append(got, r.Status)
			}
			results[i] = fmt.Sprint(got)
		}()
	}
	var mu sync.Mutex
	failures := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := apitest.APIHeader(tok, "X-Sandbox-Scenario", "flaky-then-ok", "X-Sandbox-Session", "shared")
			r, err := env.attempt(time.Until(testrun.Deadline(t)), orderPath, h, orderBody)
			if err != nil {
				t.Error(err)
				return
			}
			if r.Status == 502 {
				mu.Lock()
				failures++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for i, got := range results {
		if got != "[502 502 200 200 200]" {
			t.Errorf("suite %d saw %s", i, got)
		}
	}
	if failures != 2 {
		t.Errorf("shared session: %d failures, want exactly 2", failures)
	}
	// Without a session header the scope is the token's app, apart from the sessions.
	if r := env.Do("POST", orderPath, apitest.APIHeader(tok, "X-Sandbox-Scenario", "flaky-then-ok"), orderBody); r.Status != 502 {
		t.Errorf("app scope first call: %d", r.Status)
	}
}

func mapFS(name, content string) fstest.MapFS {
	return fstest.MapFS{name: &fstest.MapFile{Data: []byte(content)}}
}

// A sequence counter is kept for the step lifetime after its scope's last step, the
// repeating last step included, and then goes by itself: the session starts over.
// The counters expire in real time (buntdb's TTL), not on the sandbox clock, so the
// test sleeps: a lifetime of 4 s leaves each check a second to spare on a loaded
// machine.
func TestSequenceCountersExpire(t *testing.T) {
	const lifetime = 4 * time.Second
	env := mustSandbox(t, func(c *app.Config) { c.StepLifetime = lifetime })
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	header := apitest.APIHeader(tok, "X-Sandbox-Scenario", "flaky-then-ok", "X-Sandbox-Session", "ttl")
	statuses := func(n int) string {
		var got []int
		for range n {
			got = append(got, env.Do("POST", orderPath, header, orderBody).Status)
		}
		return fmt.Sprint(got)
	}
	steps := func() []sandbox.ScenarioStep {
		var st struct{ Steps []sandbox.ScenarioStep }
		if r := env.Do("GET", "/_sandbox/scenario-state", nil, ""); r.Status != 200 || json.Unmarshal(r.Body, &st) != nil {
			t.Fatalf("scenario state: %d %s", r.Status, r.Body)
		}
		return st.Steps
	}
	if got := statuses(3); got != "[502 502 200]" {
		t.Fatalf("statuses %s", got)
	}
	time.Sleep(lifetime / 2)
	if got := statuses(1); got != "[200]" {
		t.Fatalf("within the lifetime: %s", got)
	}
	time.Sleep(lifetime * 3 / 4) // past the first steps' lifetime, not the last one's
	if got := statuses(1); got != "[200]" || len(steps()) != 1 {
		t.Fatalf("the last step kept the counter: %s, %+v", got, steps())
	}
	time.Sleep(lifetime * 3 / 2)
	if got := steps(); len(got) != 0 {
		t.Errorf("counters past their lifetime: %+v", got)
	}
	if got := statuses(3); got != "[502 502 200]" {
		t.Errorf("after the lifetime: %s, want the sequence again", got)
	}
}

// A sequence with scope: transaction counts its steps per transaction: the second
// adjustment of each transaction fails, not only the second of the session.
func TestSequenceScopedPerTransaction(t *testing.T) {
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	const doc = `version: 1
name: second-adjustment-fails
rules:
  - when: {operation: adjustment}
    scope: transaction
    sequence:
      - {then: pass}
      - {then: {status: 400, error: {code: INVALID_REQUEST_DATA, detail: "40213", description: adjusted twice}}}
`
	env.MustInstallScenario(doc)
	h := apitest.APIHeader(tok, "X-Sandbox-Scenario", "second-adjustment-fails", "X-Sandbox-Session", "per-txn")
	var got []int
	for _, id := range []string{apitest.CapturedOne, apitest.CapturedTwo} {
		for range 2 {
			r := env.Do("POST", "/transactions/"+id+"/adjustment", h, `{"amount":"1"}`)
			got = append(got, r.Status)
		}
	}
	if fmt.Sprint(got) != "[200 400 200 400]" {
		t.Errorf("statuses = %v, want [200 400 200 400]", got)
	}
	// The counters are per transaction within the session: another session starts over.
	r := env.Do("POST", adjustPath, apitest.APIHeader(tok, "X-Sandbox-Scenario", "second-adjustment-fails", "X-Sandbox-Session", "other"), `{"amount":"1"}`)
	if r.Status != 200 {
		t.Errorf("another session: %d %s", r.Status, r.Body)
	}
}
