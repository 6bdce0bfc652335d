package api_test

import (
	"encoding/json"
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
