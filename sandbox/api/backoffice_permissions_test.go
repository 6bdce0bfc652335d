package api_test

import (
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// TestBackOfficeNeedsPermissions: settlement, deposits, disputes, actions and the
// stored-card list need the permissions a GP token lists on its settlement-reporting,
// dispute-management and tokenization accounts (a recorded token answer); an app
// whose token lacks them gets GP's 403 40212, and the default apps, which hold them,
// are answered.
func TestBackOfficeNeedsPermissions(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	denied := env.MustToken(apitest.RestrictedApp, apitest.RestrictedKey, "")
	partner := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	want := apitest.Err(403, "ACTION_NOT_AUTHORIZED", "40212", "Permission not enabled to execute action")
	for _, req := range [][3]string{
		{"GET", "/settlement/transactions", ""}, {"GET", "/settlement/deposits", ""},
		{"GET", "/settlement/deposits/DEP_2342423429", ""}, {"GET", "/settlement/disputes", ""},
		{"GET", "/disputes", ""}, {"GET", "/disputes/DIS_SAND_abcd1234", ""},
		{"POST", "/disputes/DIS_SAND_abcd1234/acceptance", ""},
		{"POST", "/disputes/DIS_SAND_abcd1234/challenge", `{"documents":[{"type":"SALES_RECEIPT","b64_content":"VGVzdGluZw=="}]}`},
		{"GET", "/actions", ""}, {"GET", "/payment-methods", ""},
	} {
		if got := env.Do(req[0], req[1], apitest.APIHeader(denied), req[2]).GPError(t); got != want {
			t.Errorf("without the permission, %s %s: %+v", req[0], req[1], got)
		}
		if req[0] == "GET" {
			if r := env.Do(req[0], req[1], apitest.APIHeader(partner), ""); r.Status != 200 {
				t.Errorf("the partner app, %s %s: %d %s", req[0], req[1], r.Status, r.Body)
			}
		}
	}
}
