package ui_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
)

// The back office in the inspector, on the default fixtures alone: the merchants with
// their accounts, the deposits with the transactions they paid, the disputes with
// their transaction; no card or bank account number shows, even masked payouts.
func TestBackOfficeInABrowser(t *testing.T) {
	chromium := testrun.Chromium(t)
	sb := mustStartSandbox(t)
	b := mustBrowser(t, chromium)
	const (
		onboarded = "MER_98f60f1a397c4dd7b7167bda61520292"
		deposit   = "DEP_2342423429"
		dispute   = "DIS_SAND_abcd1234"
		batched   = "TRN_BatchedSale0000000000000000001"
	)

	// Merchants: listed by name; one opened shows its accounts.
	b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/?token=" + adminToken + "#/merchants"))
	b.mustSeeText(`#merchants tbody`, "Sandbox Merchant One")
	b.mustSeeText(`#merchants tbody`, "SDK Onboarded Merchant")
	b.mustSeeText(`#resource-detail`, "Select a merchant to see")
	b.mustEval(fmt.Sprintf(`(document.querySelector('#merchants a[title=%q]').click(), 'ok')`, onboarded))
	b.mustSeeText(`#resource-detail`, "Accounts (2)")
	merchant := b.mustEval(`document.querySelector('#resource-detail').textContent`)
	for _, want := range []string{onboarded, "ACTIVE", "Business Legal Name", "TRA_98f60f1a397c4dd7b7167bda61520292", "TRANSACTION_PROCESSING", "Documents (0)"} {
		if !strings.Contains(merchant, want) {
			t.Errorf("the merchant view does not show %q: %s", want, merchant)
		}
	}
	b.mustSeeText(`.top nav a[aria-current]`, "Resources")

	// Deposits: the deposit's amount, masked bank account and the transaction it paid.
	b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/#/deposits/" + deposit))
	b.mustSeeText(`#resource-detail`, "Transactions it paid")
	b.mustSeeText(`#deposits tbody`, "DEP_2342423443")
	dep := b.mustEval(`document.querySelector('#resource-detail').textContent`)
	for _, want := range []string{deposit, "FUNDED", "Amount19.99 USD CREDIT", "Bank account…1234", "Sales19.99 USD in 1", batched} {
		if !strings.Contains(dep, want) {
			t.Errorf("the deposit view does not show %q: %s", want, dep)
		}
	}

	// Disputes: the retrieval's stage, reason and transaction, which opens from there. Its
	// answer is due 14 days after the fixtures were loaded, on the sandbox started at
	// 2021-03-22 (fixtures/settlement.yaml).
	b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/#/disputes/" + dispute))
	b.mustSeeText(`#resource-detail`, "Cardholder does not recognise the transaction")
	b.mustSeeText(`#disputes tbody`, "DIS_SAND_abcd1235")
	dis := b.mustEval(`document.querySelector('#resource-detail').textContent`)
	for _, want := range []string{dispute, "WITH_MERCHANT", "StageRETRIEVAL", "Amount19.99 USD", "FRAUD", "Respond by (sandbox)2021-04-05"} {
		if !strings.Contains(dis, want) {
			t.Errorf("the dispute view does not show %q: %s", want, dis)
		}
	}
	b.mustEval(fmt.Sprintf(`([...document.querySelectorAll('#resource-detail a')].find(a => a.textContent === %q).click(), 'ok')`, batched))
	b.mustSeeText(`#resource-detail`, "Adjustments (")
	if got := b.mustEval(`location.hash`); got != "#/transactions/"+batched {
		t.Errorf("the dispute's transaction link went to %s", got)
	}

	// An id no list holds is said so.
	b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/#/disputes/DIS_unknown"))
	b.mustSeeText(`#resource-detail`, "DIS_unknown: not found")

	// No card or bank account number, in clear or masked, on any back-office view; the
	// tables fit their columns.
	clear := regexp.MustCompile(`(^|[^A-Za-z0-9_])\d{9,19}([^0-9]|$)`)
	for _, view := range []string{"merchants/" + onboarded, "merchants/MER_34123992f0c84d70b30f8371202bd4e2", "deposits/" + deposit, "disputes/" + dispute} {
		kind := strings.Split(view, "/")[0]
		b.mustRun(chromedp.Navigate(sb.base + "/_sandbox/ui/#/" + view))
		b.mustSeeText(`#resource-detail`, strings.Split(view, "/")[1])
		text := b.mustEval(`document.querySelector('main').textContent`)
		for _, number := range []string{"4111111111111111", "411111", "123456788", "6788"} {
			if strings.Contains(text, number) {
				t.Errorf("#/%s shows %s", view, number)
			}
		}
		if m := clear.FindString(text); m != "" {
			t.Errorf("#/%s shows a long number %q", view, m)
		}
		if problems := b.mustEval(fmt.Sprintf(tableFitJS, "#"+kind)); problems != "" {
			t.Errorf("#/%s:\n%s", view, problems)
		}
	}
}
