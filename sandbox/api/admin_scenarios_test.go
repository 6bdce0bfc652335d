package api_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// The global scenario set can be listed and replaced at run time, and the new set
// shapes the very next request.
func TestAdminScenariosListAndActivate(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, "")
	var list struct {
		Scenarios []struct {
			Name, File string
			Rules      int
			Global     bool
		}
		Active []string
	}
	r := env.do("GET", "/_sandbox/scenarios", nil, "")
	if err := json.Unmarshal(r.body, &list); err != nil || r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	found := false
	for _, s := range list.Scenarios {
		if s.Name == "downstream-error" && s.File == "downstream-error.yaml" && s.Rules == 1 && !s.Global {
			found = true
		}
	}
	if !found || len(list.Scenarios) != 10 || len(list.Active) != 0 {
		t.Fatalf("listing %s", r.body)
	}

	adjust := "/transactions/" + capturedOne + "/adjustment"
	if r := env.do("PUT", "/_sandbox/scenarios/active", jsonHeader(), `{"names":["downstream-error"]}`); r.status != 200 {
		t.Fatalf("activate: %d %s", r.status, r.body)
	}
	r = env.do("POST", adjust, apiHeader(tok), `{"gratuity_amount":"1"}`)
	if got := r.gpError(t); got.Status != 502 || got.Code != "SYSTEM_ERROR_DOWNSTREAM" || r.header.Get("X-Sandbox-Rule") != "downstream-error#0" {
		t.Errorf("with downstream-error active: %+v rule %q", got, r.header.Get("X-Sandbox-Rule"))
	}

	bad := env.do("PUT", "/_sandbox/scenarios/active", jsonHeader(), `{"names":["downstream-error","no-such"]}`).gpError(t)
	if bad != (gpError{400, "INVALID_REQUEST_DATA", "40213", "names: no scenario is named no-such"}) {
		t.Errorf("unknown name: %+v", bad)
	}
	if got := env.do("PUT", "/_sandbox/scenarios/active", jsonHeader(), `{"names":"downstream-error"}`).gpError(t); got.Detail != "40213" {
		t.Errorf("names not a list: %+v", got)
	}
	// The refused call kept the set; clearing it restores normal answers.
	if r := env.do("POST", adjust, apiHeader(tok), `{"gratuity_amount":"1"}`); r.status != 502 {
		t.Errorf("set changed by a refused call: %d", r.status)
	}
	env.do("PUT", "/_sandbox/scenarios/active", jsonHeader(), `{"names":[]}`)
	if r := env.do("POST", adjust, apiHeader(tok), `{"gratuity_amount":"1"}`); r.status != 200 {
		t.Errorf("after clearing: %d %s", r.status, r.body)
	}
}

// The journal says which rule shaped an answer, or why a named scenario did not.
func TestJournalRecordsRuleAndMiss(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, "")
	env.do("POST", "/transactions/"+capturedOne+"/adjustment", apiHeader(tok, "X-Sandbox-Scenario", "downstream-error"), `{"gratuity_amount":"1"}`)
	env.do("POST", "/merchants/"+merchantOne+"/orders", apiHeader(tok, "X-Sandbox-Scenario", "adjustment-not-available"), `{}`)
	var journal struct {
		Requests []struct{ Path, Rule, Miss string }
	}
	if err := json.Unmarshal(env.do("GET", "/_sandbox/requests?limit=2", nil, "").body, &journal); err != nil || len(journal.Requests) != 2 {
		t.Fatalf("journal: %v %+v", err, journal)
	}
	order, adjust := journal.Requests[0], journal.Requests[1]
	if adjust.Rule != "downstream-error#0" || adjust.Miss != "" {
		t.Errorf("matched rule in the journal: %+v", adjust)
	}
	if order.Rule != "" || order.Miss != "adjustment-not-available#0: operation is order, want adjustment" {
		t.Errorf("closest miss in the journal: %+v", order)
	}
}

// Bodies with nothing to mask are journaled as sent; anything that could hold a card
// number or a secret, however it is spelled, is masked.
func TestJournalMasksWhateverTheSpelling(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, "")
	orders := "/merchants/" + merchantOne + "/orders"
	env.do("POST", orders, apiHeader(tok), `{"payment_method":{"card":{"\u006eumber":"4263970000005262","\u0063vv":"123"}}}`)
	env.do("POST", orders, apiHeader(tok), `{"batch_close_time":"4263970000005262"}`)
	env.do("POST", "/transactions/"+capturedOne+"/adjustment", apiHeader(tok), `{"gratuity_amount":"150"}`)
	r := env.do("GET", "/_sandbox/requests?limit=3", nil, "")
	if strings.Contains(string(r.body), "4263970000005262") || strings.Contains(string(r.body), `"123"`) {
		t.Errorf("clear card data in the journal: %s", r.body)
	}
	if !strings.Contains(string(r.body), `"body":{"gratuity_amount":"150"}`) {
		t.Errorf("plain body not journaled as sent: %s", r.body)
	}
}
