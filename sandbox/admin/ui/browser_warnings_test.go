package ui_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
)

// The inspector shows a request's chance draws and a possible double charge: a sale
// repeated under another idempotency key, with a scenario that draws for every sale.
func TestInspectorShowsDrawsAndDuplicates(t *testing.T) {
	chromium := testrun.Chromium(t)
	sb := mustStartSandbox(t)
	admin := map[string]string{"Authorization": "Bearer " + adminToken}
	status, m := sb.call("POST", "/_sandbox/scenarios", admin, `{"version":1,"name":"chaos","rules":[`+
		`{"when":{"operation":"transaction"},"then":{"delay":"10ms","probability":1}}]}`)
	if status != 200 {
		t.Fatalf("install: %d %v", status, m)
	}
	tok := sb.mustToken()
	sale := `{"channel":"CP","type":"SALE","amount":"4321","currency":"USD","reference":"till-9",` +
		`"payment_method":{"entry_mode":"MANUAL","card":{"number":"4263970000005262","expiry_month":"12","expiry_year":"30"}}}`
	var ids []string
	for _, key := range []string{"pay-1", "pay-2"} {
		status, m := sb.call("POST", "/transactions", apiHeader(tok, "X-GP-Idempotency", key, "X-Sandbox-Scenario", "chaos"), sale)
		if status != 200 {
			t.Fatalf("sale %s: %d %v", key, status, m)
		}
		ids = append(ids, m["id"].(string))
	}
	_, journal := sb.call("GET", "/_sandbox/requests?operation=transaction&limit=1", admin, "")
	newest := journal["requests"].([]any)[0].(map[string]any)
	if newest["duplicate_of"] != ids[0] {
		t.Fatalf("the repeat's journal entry: duplicate_of %v, want %s", newest["duplicate_of"], ids[0])
	}

	b := mustBrowser(t, chromium)
	b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/?token=" + adminToken + "#/requests"))
	b.mustSeeText(`#requests tbody`, "duplicate")
	b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/#/requests/" + newest["request_id"].(string)))
	b.mustSeeText(`#request-detail`, "possible double charge")
	detail := b.mustEval(`document.querySelector('#request-detail').textContent`)
	for _, want := range []string{ids[0], "Chance draw of chaos#0 (call 2)", "against probability 1", "applied"} {
		if !strings.Contains(detail, want) {
			t.Errorf("the request detail does not show %q: %s", want, detail)
		}
	}
	// The scenarios view shows the seed that repeats the draws.
	b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/#/scenarios"))
	b.mustSeeText(`main`, "Chance seed14")
}
