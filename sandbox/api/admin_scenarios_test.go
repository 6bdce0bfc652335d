package api_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
	"github.com/gp-sandbox/gp-sandbox/sandbox/yamlfile"
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
	if !found || len(list.Scenarios) != 12 || len(list.Active) != 0 {
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
	// An unknown name is echoed masked: it may be a card number.
	if got := env.do("PUT", "/_sandbox/scenarios/active", jsonHeader(), `{"names":["4263970000005262"]}`).gpError(t); got.Description != "names: no scenario is named 426397******5262" {
		t.Errorf("a card number as a name: %+v", got)
	}
	if got := env.do("DELETE", "/_sandbox/scenarios/4263970000005262", nil, "").gpError(t); got != (gpError{404, "RESOURCE_NOT_FOUND", "40008", "Scenario 426397******5262 not found at this location."}) {
		t.Errorf("removing a card number as a name: %+v", got)
	}
	if got := env.do("PUT", "/_sandbox/scenarios/active", jsonHeader(), `{"names":"downstream-error"}`).gpError(t); got.Detail != "40213" {
		t.Errorf("names not a list: %+v", got)
	}
	// The refused call kept the set; clearing it restores normal answers.
	if r := env.do("POST", adjust, apiHeader(tok), `{"gratuity_amount":"1"}`); r.status != 502 {
		t.Errorf("set changed by a refused call: %d", r.status)
	}
	env.mustAdmin("PUT", "/_sandbox/scenarios/active", `{"names":[]}`)
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

const installedYAML = `version: 1
name: my-decline
description: Adjustments fail as when a system behind GP is down.
rules:
  - when: {operation: adjustment}
    then:
      status: 502
      error: {code: SYSTEM_ERROR_DOWNSTREAM, detail: "50046"}
`

// A test suite installs the scenario it needs over HTTP, uses it, and removes it.
func TestInstallScenarioOverHTTP(t *testing.T) {
	env := mustSandbox(t)
	tok := env.mustToken(partnerApp, partnerKey, "")
	adjust := "/transactions/" + capturedOne + "/adjustment"
	yamlHeader := map[string]string{"Content-Type": "application/yaml"}

	r := env.mustInstallScenario(installedYAML)
	if !strings.Contains(string(r.body), `"name":"my-decline","description":"Adjustments fail as when a system behind GP is down.","file":"","installed":true,"rules":1,"global":false,"replaced":false`) {
		t.Fatalf("install: %d %s", r.status, r.body)
	}
	r = env.do("POST", adjust, apiHeader(tok, "X-Sandbox-Scenario", "my-decline"), `{"amount":"1"}`)
	if got := r.gpError(t); got.Status != 502 || r.header.Get("X-Sandbox-Rule") != "my-decline#0" {
		t.Errorf("installed scenario not applied: %+v", got)
	}
	if r := env.do("GET", "/_sandbox/scenarios", nil, ""); !strings.Contains(string(r.body), `"name":"my-decline"`) {
		t.Errorf("not listed: %s", r.body)
	}
	// JSON is YAML: the same scenario as JSON replaces it.
	asJSON := `{"version":1,"name":"my-decline","rules":[{"when":{"operation":"adjustment"},"then":{"status":400,"error":{"code":"INVALID_REQUEST_DATA","detail":"40213"}}}]}`
	if r := env.do("POST", "/_sandbox/scenarios", jsonHeader(), asJSON); r.status != 200 || !strings.Contains(string(r.body), `"replaced":true`) {
		t.Errorf("replace with JSON: %d %s", r.status, r.body)
	}
	if r := env.do("POST", adjust, apiHeader(tok, "X-Sandbox-Scenario", "my-decline"), `{"amount":"1"}`); r.status != 400 {
		t.Errorf("replaced scenario not applied: %d %s", r.status, r.body)
	}

	if r := env.do("DELETE", "/_sandbox/scenarios/my-decline", nil, ""); r.status != 200 || strings.Contains(string(r.body), "my-decline") {
		t.Errorf("remove: %d %s", r.status, r.body)
	}
	if got := env.do("POST", adjust, apiHeader(tok, "X-Sandbox-Scenario", "my-decline"), `{"amount":"1"}`).gpError(t); got.Detail != "40213" {
		t.Errorf("removed scenario still known: %+v", got)
	}
	tests := []struct {
		method, path, body string
		want               gpError
	}{
		{"DELETE", "/_sandbox/scenarios/my-decline", "", gpError{404, "RESOURCE_NOT_FOUND", "40008", "Scenario my-decline not found at this location."}},
		{"DELETE", "/_sandbox/scenarios/downstream-error", "", gpError{400, "INVALID_REQUEST_DATA", "40213",
			`scenario "downstream-error" is loaded from the file downstream-error.yaml: change the file instead`}},
		{"POST", "/_sandbox/scenarios", strings.Replace(installedYAML, "my-decline", "downstream-error", 1), gpError{400, "INVALID_REQUEST_DATA", "40213",
			`name: scenario "downstream-error" is loaded from the file downstream-error.yaml: change the file instead`}},
		{"POST", "/_sandbox/scenarios", "", gpError{400, "INVALID_REQUEST_DATA", "40213", "body: no scenario: the file is empty"}},
		{"POST", "/_sandbox/scenarios", installedYAML + "---\n" + strings.Replace(installedYAML, "my-decline", "other", 1), gpError{400, "INVALID_REQUEST_DATA", "40213",
			"body:11:7: name: expected one scenario document, found a second one"}},
	}
	for _, tt := range tests {
		if got := env.do(tt.method, tt.path, yamlHeader, tt.body).gpError(t); got != tt.want {
			t.Errorf("%s %s: %+v, want %+v", tt.method, tt.path, got, tt.want)
		}
	}
}

// A scenario body over the size limit of a scenario file is refused naming the limit,
// even when the server takes larger bodies.
func TestInstallScenarioSizeLimit(t *testing.T) {
	env := mustSandbox(t, func(c *app.Config) { c.MaxBody = 1 << 20 })
	body := installedYAML + "# " + strings.Repeat("x", 128<<10) + "\n"
	want := gpError{400, "INVALID_REQUEST_DATA", "40213", fmt.Sprintf("body: %d bytes, over the limit of 128 KiB per scenario file", len(body))}
	if got := env.do("POST", "/_sandbox/scenarios", nil, body).gpError(t); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// A scenario body is checked exactly as a file: the same problems, at the same
// lines and columns.
func TestInstallScenarioProblemsAreAFilesProblems(t *testing.T) {
	env := mustSandbox(t)
	broken := []string{
		"version: 1\nname: x\nrules:\n  - when: {operation: adjustment}\n    then: {status: 42}\n",
		"version: 1\nname: Bad Name\nrules: []\n",
		"version: 1\nname: x\nrules:\n  - when: {operation: nope}\n    then: pass\n  - when: {operation: order\n",
		"version: 2\nname: x\nrules:\n  - when: {operation: adjustment}\n    then: {fault: reset, delay: forever}\n",
	}
	for _, doc := range broken {
		_, fileErr := yamlfile.LoadScenarios(fstest.MapFS{"x.yaml": {Data: []byte(doc)}})
		if fileErr == nil {
			t.Fatalf("not broken as a file: %q", doc)
		}
		want := strings.ReplaceAll(strings.ReplaceAll(fileErr.Error(), "x.yaml", "body"), "\n", "; ")
		if got := env.do("POST", "/_sandbox/scenarios", nil, doc).gpError(t); got.Status != 400 || got.Description != want {
			t.Errorf("%q:\n got %+v\nwant %s", doc, got, want)
		}
	}
}

// The seed member of GET /_sandbox/scenarios is the chance draws' seed as a decimal
// string: the start option's value when one is given (0 too, and every digit past
// 2^53), else the seed the sandbox drew and logged at start. Admin calls leave it as it
// is, and PUT /_sandbox/scenarios/active and DELETE /_sandbox/scenarios/{name} answer
// with it as well.
func TestAdminScenariosSeed(t *testing.T) {
	seedMember := func(env *sandboxEnv) string {
		t.Helper()
		r := env.do("GET", "/_sandbox/scenarios", nil, "")
		var view map[string]json.RawMessage
		if err := json.Unmarshal(r.body, &view); err != nil || r.status != 200 {
			t.Fatalf("GET /_sandbox/scenarios: %d %s", r.status, r.body)
		}
		return string(view["seed"])
	}
	for _, seed := range []uint64{0, 2026, math.MaxUint64} {
		env := mustSandbox(t, func(c *app.Config) { c.Seed, c.Seeded = seed, true })
		if got, want := seedMember(env), `"`+strconv.FormatUint(seed, 10)+`"`; got != want {
			t.Errorf("started with seed %d: seed %s, want %s", seed, got, want)
		}
	}

	log := &lockedBuffer{}
	env := mustSandboxWith(t, envOptions{log: log})
	var logged *uint64
	for line := range strings.Lines(log.String()) {
		var entry struct {
			Msg  string  `json:"msg"`
			Seed *uint64 `json:"seed"`
		}
		if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "scenarios ready" {
			logged = entry.Seed
		}
	}
	if logged == nil {
		t.Fatalf("no scenarios ready line with a seed in the log:\n%s", log)
	}
	want := strconv.FormatUint(*logged, 10)
	if got := seedMember(env); got != `"`+want+`"` {
		t.Fatalf("started without a seed: seed %s, want the logged %s", got, want)
	}
	env.mustAdmin("POST", "/_sandbox/reset", "")
	env.mustAdmin("POST", "/_sandbox/clock", `{"advance":"1h"}`)
	env.mustAdmin("POST", "/_sandbox/snapshots", `{"name":"before"}`)
	env.mustInstallScenario("version: 1\nname: extra\nrules: [{when: {operation: order}, then: pass}]\n")
	if got := env.mustAdmin("PUT", "/_sandbox/scenarios/active", `{"names":["extra"]}`)["seed"]; got != want {
		t.Errorf("PUT /_sandbox/scenarios/active: seed %v, want %s", got, want)
	}
	if got := env.mustAdmin("DELETE", "/_sandbox/scenarios/extra", "")["seed"]; got != want {
		t.Errorf("DELETE /_sandbox/scenarios/extra: seed %v, want %s", got, want)
	}
	env.mustAdmin("POST", "/_sandbox/snapshots/before/restore", "")
	if got := seedMember(env); got != `"`+want+`"` {
		t.Errorf("after reset, clock, snapshot, install, activation, removal and restore: seed %s, want %s", got, want)
	}
}

// A scenario is named as it is written in listings, headers, the log and the journal:
// one named with a card number, however written, is refused naming the rule, and the
// number is kept nowhere in clear.
func TestInstallScenarioNamedWithCardNumber(t *testing.T) {
	env := mustSinkSandbox(t, envOptions{})
	yamlHeader := map[string]string{"Content-Type": "application/yaml"}
	names := []string{panVisa, "4263-9700-0000-5262", "x.4263970000005262"}
	for _, name := range names {
		body := strings.Replace(installedYAML, "name: my-decline", `name: "`+name+`"`, 1)
		want := gpError{400, "INVALID_REQUEST_DATA", "40213", "body:2:7: name: " + scenario.NameRule}
		if got := env.do("POST", "/_sandbox/scenarios", yamlHeader, body).gpError(t); got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	// Each refusal was logged (an admin call is not journaled: the sweep of the journal
	// finds the requests made beside it), and nothing was installed.
	env.mu.Lock()
	logged := strings.Count(env.logs.String(), `"path":"/_sandbox/scenarios"`)
	env.mu.Unlock()
	if logged != len(names) {
		t.Errorf("%d refused installs logged, want %d", logged, len(names))
	}
	env.mustHoldNone(t, []string{"/_sandbox/scenarios"}, panVisa, "4263-9700-0000-5262", panMiddle)
}
