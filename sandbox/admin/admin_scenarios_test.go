package admin_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
	"github.com/gp-sandbox/gp-sandbox/sandbox/yamlfile"
)

// The global scenario set can be listed and replaced at run time, and the new set
// shapes the very next request.
func TestAdminScenariosListAndActivate(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	var list struct {
		Scenarios []struct {
			Name, File string
			Rules      int
			Global     bool
		}
		Active []string
	}
	r := env.Do("GET", "/_sandbox/scenarios", nil, "")
	if err := json.Unmarshal(r.Body, &list); err != nil || r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	found := false
	for _, s := range list.Scenarios {
		if s.Name == "downstream-error" && s.File == "downstream-error.yaml" && s.Rules == 1 && !s.Global {
			found = true
		}
	}
	if !found || len(list.Scenarios) != 12 || len(list.Active) != 0 {
		t.Fatalf("listing %s", r.Body)
	}

	adjust := "/transactions/" + apitest.CapturedOne + "/adjustment"
	if r := env.Do("PUT", "/_sandbox/scenarios/active", apitest.JSONHeader(), `{"names":["downstream-error"]}`); r.Status != 200 {
		t.Fatalf("activate: %d %s", r.Status, r.Body)
	}
	r = env.Do("POST", adjust, apitest.APIHeader(tok), `{"gratuity_amount":"1"}`)
	if got := r.GPError(t); got.Status != 502 || got.Code != "SYSTEM_ERROR_DOWNSTREAM" || r.Header.Get("X-Sandbox-Rule") != "downstream-error#0" {
		t.Errorf("with downstream-error active: %+v rule %q", got, r.Header.Get("X-Sandbox-Rule"))
	}

	bad := env.Do("PUT", "/_sandbox/scenarios/active", apitest.JSONHeader(), `{"names":["downstream-error","no-such"]}`).GPError(t)
	if bad != (apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "names: no scenario is named no-such")) {
		t.Errorf("unknown name: %+v", bad)
	}
	// An unknown name is echoed masked: it may be a card number.
	if got := env.Do("PUT", "/_sandbox/scenarios/active", apitest.JSONHeader(), `{"names":["4263970000005262"]}`).GPError(t); got.Description != "names: no scenario is named 426397******5262" {
		t.Errorf("a card number as a name: %+v", got)
	}
	if got := env.Do("DELETE", "/_sandbox/scenarios/4263970000005262", nil, "").GPError(t); got != (apitest.Err(404, "RESOURCE_NOT_FOUND", "40008", "Scenario 426397******5262 not found at this location.")) {
		t.Errorf("removing a card number as a name: %+v", got)
	}
	if got := env.Do("PUT", "/_sandbox/scenarios/active", apitest.JSONHeader(), `{"names":"downstream-error"}`).GPError(t); got.Detail != "40213" {
		t.Errorf("names not a list: %+v", got)
	}
	// The refused call kept the set; clearing it restores normal answers.
	if r := env.Do("POST", adjust, apitest.APIHeader(tok), `{"gratuity_amount":"1"}`); r.Status != 502 {
		t.Errorf("set changed by a refused call: %d", r.Status)
	}
	env.MustAdmin("PUT", "/_sandbox/scenarios/active", `{"names":[]}`)
	if r := env.Do("POST", adjust, apitest.APIHeader(tok), `{"gratuity_amount":"1"}`); r.Status != 200 {
		t.Errorf("after clearing: %d %s", r.Status, r.Body)
	}
}

// The journal says which rule shaped an answer, or why a named scenario did not.
func TestJournalRecordsRuleAndMiss(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok, "X-Sandbox-Scenario", "downstream-error"), `{"gratuity_amount":"1"}`)
	env.Do("POST", "/merchants/"+apitest.MerchantOne+"/orders", apitest.APIHeader(tok, "X-Sandbox-Scenario", "adjustment-not-available"), `{}`)
	var journal struct {
		Requests []struct{ Path, Rule, Miss string }
	}
	if err := json.Unmarshal(env.Do("GET", "/_sandbox/requests?limit=2", nil, "").Body, &journal); err != nil || len(journal.Requests) != 2 {
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
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	orders := "/merchants/" + apitest.MerchantOne + "/orders"
	env.Do("POST", orders, apitest.APIHeader(tok), `{"payment_method":{"card":{"\u006eumber":"4263970000005262","\u0063vv":"123"}}}`)
	env.Do("POST", orders, apitest.APIHeader(tok), `{"batch_close_time":"4263970000005262"}`)
	env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"150"}`)
	r := env.Do("GET", "/_sandbox/requests?limit=3", nil, "")
	if strings.Contains(string(r.Body), "4263970000005262") || strings.Contains(string(r.Body), `"123"`) {
		t.Errorf("clear card data in the journal: %s", r.Body)
	}
	if !strings.Contains(string(r.Body), `"body":{"gratuity_amount":"150"}`) {
		t.Errorf("plain body not journaled as sent: %s", r.Body)
	}
}

// A test suite installs the scenario it needs over HTTP, uses it, and removes it.
func TestInstallScenarioOverHTTP(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	adjust := "/transactions/" + apitest.CapturedOne + "/adjustment"
	yamlHeader := map[string]string{"Content-Type": "application/yaml"}

	r := env.MustInstallScenario(apitest.InstalledScenario)
	if !strings.Contains(string(r.Body), `"name":"my-decline","description":"Adjustments fail as when a system behind GP is down.","file":"","installed":true,"rules":1,"global":false,"replaced":false`) {
		t.Fatalf("install: %d %s", r.Status, r.Body)
	}
	r = env.Do("POST", adjust, apitest.APIHeader(tok, "X-Sandbox-Scenario", "my-decline"), `{"amount":"1"}`)
	if got := r.GPError(t); got.Status != 502 || r.Header.Get("X-Sandbox-Rule") != "my-decline#0" {
		t.Errorf("installed scenario not applied: %+v", got)
	}
	if r := env.Do("GET", "/_sandbox/scenarios", nil, ""); !strings.Contains(string(r.Body), `"name":"my-decline"`) {
		t.Errorf("not listed: %s", r.Body)
	}
	// JSON is YAML: the same scenario as JSON replaces it.
	asJSON := `{"version":1,"name":"my-decline","rules":[{"when":{"operation":"adjustment"},"then":{"status":400,"error":{"code":"INVALID_REQUEST_DATA","detail":"40213"}}}]}`
	if r := env.Do("POST", "/_sandbox/scenarios", apitest.JSONHeader(), asJSON); r.Status != 200 || !strings.Contains(string(r.Body), `"replaced":true`) {
		t.Errorf("replace with JSON: %d %s", r.Status, r.Body)
	}
	if r := env.Do("POST", adjust, apitest.APIHeader(tok, "X-Sandbox-Scenario", "my-decline"), `{"amount":"1"}`); r.Status != 400 {
		t.Errorf("replaced scenario not applied: %d %s", r.Status, r.Body)
	}

	if r := env.Do("DELETE", "/_sandbox/scenarios/my-decline", nil, ""); r.Status != 200 || strings.Contains(string(r.Body), "my-decline") {
		t.Errorf("remove: %d %s", r.Status, r.Body)
	}
	if got := env.Do("POST", adjust, apitest.APIHeader(tok, "X-Sandbox-Scenario", "my-decline"), `{"amount":"1"}`).GPError(t); got.Detail != "40213" {
		t.Errorf("removed scenario still known: %+v", got)
	}
	tests := []struct {
		method, path, body string
		want               apitest.GPError
	}{
		{"DELETE", "/_sandbox/scenarios/my-decline", "", apitest.Err(404, "RESOURCE_NOT_FOUND", "40008", "Scenario my-decline not found at this location.")},
		{"DELETE", "/_sandbox/scenarios/downstream-error", "", apitest.Err(400, "INVALID_REQUEST_DATA", "40213",
			`scenario "downstream-error" is loaded from the file downstream-error.yaml: change the file instead`)},
		{"POST", "/_sandbox/scenarios", strings.Replace(apitest.InstalledScenario, "my-decline", "downstream-error", 1), apitest.Err(400, "INVALID_REQUEST_DATA", "40213",
			`name: scenario "downstream-error" is loaded from the file downstream-error.yaml: change the file instead`)},
		{"POST", "/_sandbox/scenarios", "", apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "body: no scenario: the file is empty")},
		{"POST", "/_sandbox/scenarios", apitest.InstalledScenario + "---\n" + strings.Replace(apitest.InstalledScenario, "my-decline", "other", 1), apitest.Err(400, "INVALID_REQUEST_DATA", "40213",
			"body:11:7: name: expected one scenario document, found a second one")},
	}
	for _, tt := range tests {
		if got := env.Do(tt.method, tt.path, yamlHeader, tt.body).GPError(t); got != tt.want {
			t.Errorf("%s %s: %+v, want %+v", tt.method, tt.path, got, tt.want)
		}
	}
}

// A scenario's description is free text: a card number in it is masked wherever the
// admin API shows it, as the install's answer and the list.
func TestScenarioDescriptionMasked(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	doc := `{"version":1,"name":"s60","description":"card 4605606607000002","rules":[{"when":{"operation":"transaction"},"then":"pass"}]}`
	installed := env.Do("POST", "/_sandbox/scenarios", apitest.JSONHeader(), doc)
	listed := env.Do("GET", "/_sandbox/scenarios", nil, "")
	for name, r := range map[string]apitest.Reply{"install": installed, "list": listed} {
		if body := string(r.Body); r.Status != 200 || strings.Contains(body, "4605606607000002") || !strings.Contains(body, `"description":"card 460560******0002"`) {
			t.Errorf("%s: %d %s", name, r.Status, body)
		}
	}
}

// A scenario body over the size limit of a scenario file is refused naming the limit,
// even when the server takes larger bodies.
func TestInstallScenarioSizeLimit(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t, func(c *app.Config) { c.MaxBody = 1 << 20 })
	body := apitest.InstalledScenario + "# " + strings.Repeat("x", 128<<10) + "\n"
	want := apitest.Err(400, "INVALID_REQUEST_DATA", "40213", fmt.Sprintf("body: %d bytes, over the limit of 128 KiB per scenario file", len(body)))
	if got := env.Do("POST", "/_sandbox/scenarios", nil, body).GPError(t); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// A scenario body is checked exactly as a file: the same problems, at the same
// lines and columns.
func TestInstallScenarioProblemsAreAFilesProblems(t *testing.T) {
	t.Parallel()
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
		if got := env.Do("POST", "/_sandbox/scenarios", nil, doc).GPError(t); got.Status != 400 || got.Description != want {
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
	t.Parallel()
	seedMember := func(env *sandboxEnv) string {
		t.Helper()
		r := env.Do("GET", "/_sandbox/scenarios", nil, "")
		var view map[string]json.RawMessage
		if err := json.Unmarshal(r.Body, &view); err != nil || r.Status != 200 {
			t.Fatalf("GET /_sandbox/scenarios: %d %s", r.Status, r.Body)
		}
		return string(view["seed"])
	}
	for _, seed := range []uint64{0, 2026, math.MaxUint64} {
		env := mustSandbox(t, func(c *app.Config) { c.Seed, c.Seeded = seed, true })
		if got, want := seedMember(env), `"`+strconv.FormatUint(seed, 10)+`"`; got != want {
			t.Errorf("started with seed %d: seed %s, want %s", seed, got, want)
		}
	}

	log := &apitest.LockedBuffer{}
	env := mustSandboxWith(t, apitest.Options{Log: log})
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
	env.MustAdmin("POST", "/_sandbox/reset", "")
	env.MustAdmin("POST", "/_sandbox/clock", `{"advance":"1h"}`)
	env.MustAdmin("POST", "/_sandbox/snapshots", `{"name":"before"}`)
	env.MustInstallScenario("version: 1\nname: extra\nrules: [{when: {operation: order}, then: pass}]\n")
	if got := env.MustAdmin("PUT", "/_sandbox/scenarios/active", `{"names":["extra"]}`)["seed"]; got != want {
		t.Errorf("PUT /_sandbox/scenarios/active: seed %v, want %s", got, want)
	}
	if got := env.MustAdmin("DELETE", "/_sandbox/scenarios/extra", "")["seed"]; got != want {
		t.Errorf("DELETE /_sandbox/scenarios/extra: seed %v, want %s", got, want)
	}
	env.MustAdmin("POST", "/_sandbox/snapshots/before/restore", "")
	if got := seedMember(env); got != `"`+want+`"` {
		t.Errorf("after reset, clock, snapshot, install, activation, removal and restore: seed %s, want %s", got, want)
	}
}
