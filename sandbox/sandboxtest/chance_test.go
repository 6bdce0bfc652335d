package sandboxtest_test

import (
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gp-sandbox/gp-sandbox/sandbox/sandboxtest"
)

// flakyAdjustments answers 30 adjustments of a server seeded with seed, where half
// the adjustments fail by chance, and returns the statuses in order.
func flakyAdjustments(t *testing.T, seed uint64) string {
	t.Helper()
	srv := sandboxtest.NewServer(t, sandboxtest.WithSeed(seed), sandboxtest.WithGlobalScenarios("flaky"),
		sandboxtest.WithScenarios(fstest.MapFS{"flaky.yaml": {Data: []byte(`version: 1
name: flaky
rules:
  - when: {operation: adjustment}
    then: {status: 502, error: {code: SYSTEM_ERROR_DOWNSTREAM, detail: "50046"}, probability: 0.5}
`)}}))
	tok := srv.Token()
	var statuses []string
	for range 30 {
		req, _ := http.NewRequest("POST", srv.URL+"/transactions/"+sandboxtest.CapturedSale+"/adjustment", strings.NewReader(`{"gratuity_amount":"1"}`))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("X-GP-Version", sandboxtest.Version)
		req.Header.Set("Content-Type", "application/json")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		statuses = append(statuses, resp.Status[:3])
	}
	return strings.Join(statuses, " ")
}

// WithSeed makes a scenario's chance draws repeat: the same seed fails the same calls.
func TestWithSeedRepeatsChanceDraws(t *testing.T) {
	a, b, c := flakyAdjustments(t, 3), flakyAdjustments(t, 3), flakyAdjustments(t, 4)
	if a != b {
		t.Errorf("seed 3 twice:\n%s\n%s", a, b)
	}
	if a == c {
		t.Errorf("seeds 3 and 4 answered alike: %s", a)
	}
	if !strings.Contains(a, "502") || !strings.Contains(a, "200") {
		t.Errorf("seed 3: %s, want failures and successes", a)
	}
}
