package api_test

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
)

// chaosRun sends 200 adjustments through a sandbox seeded with seed, where an
// adjustment fails with 502 at probability 0.3, and returns the calls (from 1) that
// failed. Every answer must be the scripted error or the normal one, as its draw says.
func chaosRun(t *testing.T, seed uint64) []int {
	t.Helper()
	p := 0.3
	fail := scenario.Outcome{Status: 502, Probability: &p,
		Error: &scenario.Error{Code: "SYSTEM_ERROR_DOWNSTREAM", Detail: "50046", Description: "chaos"}}
	log := &apitest.LockedBuffer{}
	env := mustSandboxWith(t, apitest.Options{
		Log: log,
		Scenarios: []scenario.Scenario{{Name: "chaos", Rules: []scenario.Rule{{
			When: scenario.When{Operations: []string{string(sandbox.OpAdjustment)}}, Then: &fail,
		}}}},
		Configure: []func(*app.Config){func(c *app.Config) { c.Seed, c.Seeded = seed, true }},
	})
	var listed struct{ Seed string }
	if err := json.Unmarshal(env.Do("GET", "/_sandbox/scenarios", nil, "").Body, &listed); err != nil || listed.Seed != strconv.FormatUint(seed, 10) {
		t.Fatalf("GET /_sandbox/scenarios: seed %q (%v), want %d", listed.Seed, err, seed)
	}
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	h := apitest.APIHeader(tok, "X-Sandbox-Scenario", "chaos", "X-Sandbox-Session", "ci-run")
	var failed []int
	for call := 1; call <= 200; call++ {
		r := env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", h, `{"gratuity_amount":"1"}`)
		switch {
		case r.Status == 502 && r.Header.Get("X-Sandbox-Rule") == "chaos#0":
			failed = append(failed, call)
		case r.Status == 200 && r.Header.Get("X-Sandbox-Rule") == "":
		default:
			t.Fatalf("call %d: %d (rule %q) %s", call, r.Status, r.Header.Get("X-Sandbox-Rule"), r.Body)
		}
	}
	// The journal shows the last call's draw, and it agrees with the answer.
	var list struct {
		Requests []struct {
			Status int             `json:"status"`
			Rule   string          `json:"rule"`
			Draws  []scenario.Draw `json:"draws"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(env.Do("GET", "/_sandbox/requests?operation=adjustment&limit=1", nil, "").Body, &list); err != nil || len(list.Requests) != 1 {
		t.Fatalf("journal: %v %+v", err, list)
	}
	last := list.Requests[0]
	want := scenario.Draw{Rule: "chaos#0", Step: -1, Call: 200, Probability: 0.3, Applied: slices.Contains(failed, 200)}
	if len(last.Draws) != 1 {
		t.Fatalf("journal of call 200: draws %+v, want one", last.Draws)
	}
	got := last.Draws[0]
	want.Value = got.Value
	if got != want || (got.Value < 0.3) != got.Applied || (last.Rule == "chaos#0") != got.Applied {
		t.Errorf("journal of call 200: draw %+v (rule %q, status %d), want %+v", got, last.Rule, last.Status, want)
	}
	// So does the request log.
	if line := `"draws":"` + got.String() + `"`; !strings.Contains(log.String(), line) {
		t.Errorf("the request log has no %s", line)
	}
	return failed
}

// A chaos run repeated with the same seed fails the same calls; another seed fails
// others; the share of failures is near the probability. The seed fixes every draw,
// so the bound is not a flaky one.
func TestChanceSeededThroughHTTP(t *testing.T) {
	a, b, c := chaosRun(t, 2026), chaosRun(t, 2026), chaosRun(t, 2027)
	if !slices.Equal(a, b) {
		t.Errorf("seed 2026 twice failed different calls:\n%v\n%v", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 2026 and 2027 failed the same calls: %v", a)
	}
	for _, f := range [][]int{a, c} {
		if len(f) < 40 || len(f) > 80 {
			t.Errorf("probability 0.3: %d of 200 calls failed, want 40..80", len(f))
		}
	}
}
