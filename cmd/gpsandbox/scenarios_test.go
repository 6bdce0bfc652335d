package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
)

func TestValidate(t *testing.T) {
	noEnv := func(string) string { return "" }
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"validate/broken-scenarios.golden", []string{"--scenarios", "testdata/validate/broken-scenarios", "--fixtures", "testdata/validate/fixtures"}},
		{"validate/unknown-binding.golden", []string{"--scenarios", "testdata/validate/good-scenarios", "--fixtures", "testdata/validate/fixtures"}},
		{"validate/broken-fixtures.golden", []string{"--scenarios", "testdata/validate/good-scenarios", "--fixtures", "testdata/validate/broken-fixtures"}},
	} {
		var out bytes.Buffer
		err := run(context.Background(), append([]string{"validate"}, tc.args...), noEnv, &out, io.Discard)
		if err == nil || exitCode(err) != 1 {
			t.Errorf("%s: err %v, want exit status 1", tc.golden, err)
		}
		testrun.MustMatchGolden(t, tc.golden, out.Bytes())
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"validate"}, noEnv, &out, io.Discard); err != nil {
		t.Fatalf("built-ins: %v\n%s", err, out.String())
	}
	if got := out.String(); !strings.HasPrefix(got, "ok: 12 scenarios; fixtures: ") || strings.Count(got, "\n") != 1 {
		t.Errorf("summary %q", got)
	}
	if err := run(context.Background(), []string{"validate", "extra"}, noEnv, io.Discard, io.Discard); exitCode(err) != 2 {
		t.Errorf("stray argument: %v", err)
	}
}

// validate reads the fixtures' relative times from --clock, as serve does: a dispute
// opened three days back and due at a fixed time is in order now, not in 2040.
func TestValidateAtClock(t *testing.T) {
	dir := t.TempDir()
	fixture := `apps:
  - {id: app1, key: k, name: a, merchant_id: MER_1, merchants: [MER_1], accounts: [{id: TRA_1, name: transaction_processing}]}
merchants:
  - {id: MER_1, name: One}
disputes:
  - {id: DIS_1, merchant_id: MER_1, time_created: now-3d, time_to_respond_by: 2031-03-26T10:24:43.999Z, stage: CHARGEBACK, status: WITH_MERCHANT, amount: "1", currency: USD}
`
	if err := os.WriteFile(filepath.Join(dir, "f.yaml"), []byte(fixture), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, status := mustRunCLI(t, "validate", "--fixtures", dir, "--clock", "2026-12-07T10:00:00.000Z"); status != 0 {
		t.Errorf("in order at 2026: %d %s\n%s", status, errOut, out)
	}
	out, errOut, status := mustRunCLI(t, "validate", "--fixtures", dir, "--clock", "2040-01-01T00:00:00.000Z")
	if status != 1 || !strings.Contains(out, "disputes[0].time_to_respond_by: 2031-03-26T10:24:43.999Z is before its time_created") {
		t.Errorf("out of order in 2040: %d %s\n%s", status, errOut, out)
	}
	if _, errOut, status := mustRunCLI(t, "validate", "--fixtures", dir, "--clock", "yesterday"); status != 2 {
		t.Errorf("a clock that is no time: %d %s", status, errOut)
	}
}

func TestScenarioFlags(t *testing.T) {
	env := map[string]string{"GPSANDBOX_SCENARIOS": "slow-network, downstream-error", "GPSANDBOX_SCENARIOS_DIR": "/tmp/s"}
	getenv := func(k string) string { return env[k] }
	cfg, err := parseServeFlags(nil, getenv, io.Discard)
	if err != nil || strings.Join(cfg.scenarios, ",") != "slow-network,downstream-error" || cfg.scenariosDir != "/tmp/s" {
		t.Errorf("from the environment: %+v %v", cfg, err)
	}
	cfg, err = parseServeFlags([]string{"--scenario", "a", "--scenario", "b,c"}, getenv, io.Discard)
	if err != nil || strings.Join(cfg.scenarios, ",") != "a,b,c" {
		t.Errorf("flags replace the environment: %+v %v", cfg, err)
	}
	err = run(context.Background(), []string{"--db", ":memory:", "--addr", "127.0.0.1:0", "--scenario", "no-such"},
		func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), "no-such") {
		t.Errorf("unknown global scenario: %v", err)
	}
}

func TestGlobalScenario(t *testing.T) {
	base, stop := mustRun(t, "--db", ":memory:", "--scenario", "order-merchant-not-configured")
	defer stop()
	tok := mustIssueToken(t, base)
	status, body := post(t, base+"/ucp/merchants/MER_00000000000000000000000000000001/orders", tok, `{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP"}]}`)
	if status != 400 || body["detailed_error_code"] != "40041" {
		t.Errorf("order: %d %v", status, body)
	}
}

// Writing, changing and breaking a file of --scenarios DIR while the sandbox runs.
func TestScenariosHotReload(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "hot.yaml")
	write := func(detail string) {
		src := "version: 1\nname: hot\nrules:\n  - when: {operation: adjustment}\n    then: {status: 502, error: {code: SYSTEM_ERROR_DOWNSTREAM, detail: \"" + detail + "\", description: scripted}}\n"
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("50046")
	base, stop := mustRun(t, "--db", ":memory:", "--scenarios", dir)
	defer stop()
	tok := mustIssueToken(t, base)
	adjust := func() (int, string) {
		req, _ := http.NewRequest("POST", base+"/transactions/TRN_CapturedSale000000000000000001/adjustment", strings.NewReader(`{"amount":"5"}`))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("X-GP-Version", "2021-03-22")
		req.Header.Set("X-Sandbox-Scenario", "hot")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := adjust(); status != 502 || !strings.Contains(body, `"50046"`) {
		t.Fatalf("first version: %d %s", status, body)
	}

	write("5004799") // a different size, whatever the file system's time resolution
	testrun.WaitForValue(t, "the changed file's outcome", func() string { _, body := adjust(); return body },
		func(body string) bool { return strings.Contains(body, `"5004799"`) })

	if err := os.WriteFile(file, []byte("version: 1\nname: hot\nrules: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * app.ReloadInterval)
	if status, body := adjust(); status != 502 || !strings.Contains(body, `"5004799"`) {
		t.Errorf("a broken file must keep the last good set: %d %s", status, body)
	}
}

// A scenario file defining a scenario installed over the admin API is listed with its
// problem, under its own name; once the installed one is removed, the file loads.
func TestFileClashingWithAnInstalledScenario(t *testing.T) {
	dir := t.TempDir()
	doc := func(detail string) string {
		return "version: 1\nname: mine\nrules:\n  - when: {operation: adjustment}\n    then: {status: 502, error: {code: SYSTEM_ERROR_DOWNSTREAM, detail: \"" + detail + "\", description: scripted}}\n"
	}
	base, stop := mustRun(t, "--db", ":memory:", "--scenarios", dir)
	defer stop()
	c := client{t, base}
	type entry struct {
		Name, File string
		LoadError  string `json:"load_error"`
		Installed  bool
	}
	listed := func(want func(entry) bool) bool {
		var v struct{ Scenarios []entry }
		if err := json.Unmarshal(c.do("GET", "/_sandbox/scenarios", nil, "").body, &v); err != nil {
			t.Fatal(err)
		}
		for _, e := range v.Scenarios {
			if e.Installed && e.LoadError != "" {
				t.Fatalf("the installed scenario carries a file's problem: %+v", e)
			}
		}
		return slices.ContainsFunc(v.Scenarios, want)
	}
	if x := c.do("POST", "/_sandbox/scenarios", map[string]string{"Content-Type": "application/yaml"}, doc("50046")); x.status != 200 {
		t.Fatalf("install: %d %s", x.status, x.body)
	}
	if err := os.WriteFile(filepath.Join(dir, "clash.yaml"), []byte(doc("50047")), 0o644); err != nil {
		t.Fatal(err)
	}
	testrun.WaitFor(t, "the clash listed under clash.yaml", func() bool {
		return listed(func(e entry) bool {
			return e.File == "clash.yaml" && strings.Contains(e.LoadError, `"mine" is installed over the admin API`)
		})
	})
	if x := c.do("DELETE", "/_sandbox/scenarios/mine", nil, ""); x.status != 200 {
		t.Fatalf("remove: %d %s", x.status, x.body)
	}
	testrun.WaitFor(t, "the file loaded once the installed one is removed", func() bool {
		return listed(func(e entry) bool { return e.Name == "mine" && e.File == "clash.yaml" && e.LoadError == "" })
	})
}

// A file removed while its scenario is globally active is refused, the set kept and
// the way out named; once the scenario is no longer active, the folder loads.
func TestRemovedFileOfAnActiveScenarioLoadsOnceInactive(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(file, []byte("version: 1\nname: mine\nrules:\n  - when: {operation: adjustment}\n    then: pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base, stop := mustRun(t, "--db", ":memory:", "--scenarios", dir)
	defer stop()
	c := client{t, base}
	listing := func() string { return string(c.do("GET", "/_sandbox/scenarios", nil, "").body) }
	if x := c.do("PUT", "/_sandbox/scenarios/active", nil, `{"names":["mine"]}`); x.status != 200 {
		t.Fatalf("activate: %d %s", x.status, x.body)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	testrun.WaitFor(t, "the removal refused, naming the way out", func() bool {
		return strings.Contains(listing(), `is globally active and would disappear: the files are loaded once it is no longer active`)
	})
	if x := c.do("PUT", "/_sandbox/scenarios/active", nil, `{"names":[]}`); x.status != 200 {
		t.Fatalf("deactivate: %d %s", x.status, x.body)
	}
	testrun.WaitFor(t, "the folder loaded once the scenario is inactive", func() bool {
		l := listing()
		return !strings.Contains(l, `"mine"`) && !strings.Contains(l, "would disappear")
	})
}

// A --scenarios or --fixtures path that does not exist is named as given, by validate
// and serve alike, before anything is opened.
func TestMissingFolderIsNamed(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"validate", "--scenarios", missing}, "scenarios folder " + missing + " (--scenarios): no such folder"},
		{[]string{"validate", missing}, "scenarios folder " + missing + " (--scenarios): no such folder"},
		{[]string{"validate", "--fixtures", missing}, "fixtures folder " + missing + " (--fixtures): no such folder"},
		{[]string{"serve", "--db", ":memory:", "--scenarios", missing}, "scenarios folder " + missing + " (--scenarios): no such folder"},
		{[]string{"serve", "--db", ":memory:", "--fixtures", missing}, "fixtures folder " + missing + " (--fixtures): no such folder"},
		{[]string{"serve", "--db", ":memory:", "--scenarios", "../../scenarios/slow-network.yaml"}, "scenarios folder ../../scenarios/slow-network.yaml (--scenarios): not a folder"},
		{[]string{"validate", "../../go.mod"}, "scenario file ../../go.mod: not a folder, nor a *.yaml or *.yml file"},
	} {
		err := run(context.Background(), tc.args, func(string) string { return "" }, io.Discard, io.Discard)
		if err == nil || exitCode(err) != 2 || err.Error() != tc.want {
			t.Errorf("%v: %v, want exit 2 and %q", tc.args, err, tc.want)
		}
	}
}

// validate takes one scenario file as well as a folder, given alone or as --scenarios;
// its problems name the file by the path given.
func TestValidateOneFile(t *testing.T) {
	noEnv := func(string) string { return "" }
	for _, args := range [][]string{{"../../scenarios/slow-network.yaml"}, {"--scenarios", "../../scenarios/slow-network.yaml"}} {
		var out bytes.Buffer
		if err := run(context.Background(), append([]string{"validate"}, args...), noEnv, &out, io.Discard); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out.String())
		}
		if !strings.HasPrefix(out.String(), "ok: 1 scenarios; fixtures: ") {
			t.Errorf("%v: %q", args, out.String())
		}
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	other := "version: 1\nname: other\nrules: [{when: {operation: any}, then: {stauts: 1}}]\n"
	os.WriteFile(bad, []byte("version: 1\nname: x\nrules: [{when: {operation: any}, then: {stauts: 1}}]\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "other.yaml"), []byte(other), 0o644) // beside it, not read
	var out bytes.Buffer
	err := run(context.Background(), []string{"validate", bad}, noEnv, &out, io.Discard)
	if err == nil || exitCode(err) != 1 || out.String() != bad+`:3:41: rules[0].then: unknown key "stauts"`+"\n" {
		t.Errorf("err %v, output %q", err, out.String())
	}
	if err := run(context.Background(), []string{"validate", "--scenarios", bad, dir}, noEnv, io.Discard, io.Discard); exitCode(err) != 2 {
		t.Errorf("two scenario paths: %v, want exit 2", err)
	}
}

// An empty scenario folder fails validate and is a warning for serve, which watches
// the folder for files to come.
func TestEmptyScenarioFolder(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a scenario"), 0o644)
	var out bytes.Buffer
	err := run(context.Background(), []string{"validate", "--scenarios", dir}, func(string) string { return "" }, &out, io.Discard)
	if err == nil || exitCode(err) != 1 || out.String() != "no scenario files (*.yaml, *.yml) in "+dir+"\n" {
		t.Errorf("validate: err %v, output %q", err, out.String())
	}
	cfg, err := parseServeFlags([]string{"--scenarios", dir}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	if _, err := appConfig(cfg, newLogger(false, &logs)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "no scenario files") || !strings.Contains(logs.String(), dir) {
		t.Errorf("serve logged %q, want a warning naming %s", logs.String(), dir)
	}
}

// One-off sessions, a new X-Sandbox-Session per test, leave at most --step-counters
// counters behind, the oldest dropped first.
func TestOneOffSessionsLeaveBoundedCounters(t *testing.T) {
	base, stop := mustRun(t, "--db", ":memory:", "--step-counters", "10")
	defer stop()
	tok := mustIssueToken(t, base)
	for i := range 30 {
		req, _ := http.NewRequest("POST", base+"/ucp/transactions/TRN_CapturedSale000000000000000001/adjustment", strings.NewReader(`{"gratuity_amount":"5"}`))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("X-GP-Version", "2021-03-22")
		req.Header.Set("X-Sandbox-Scenario", "flaky-then-ok")
		req.Header.Set("X-Sandbox-Session", fmt.Sprintf("one-off-%02d", i))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 502 {
			t.Fatalf("session %d: %d, want the scripted first failure", i, resp.StatusCode)
		}
	}
	resp, err := http.Get(base + "/_sandbox/scenario-state")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var state struct {
		Steps []struct{ Scope string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&state); err != nil {
		t.Fatal(err)
	}
	var scopes []string
	for _, s := range state.Steps {
		scopes = append(scopes, s.Scope)
	}
	if len(scopes) > 10 || !slices.Contains(scopes, "session:one-off-29") || slices.Contains(scopes, "session:one-off-00") {
		t.Errorf("counters of %v: want at most 10, the newest kept", scopes)
	}
}
