package api_test

import (
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// cashback_amount is kept on the transaction and answered wherever the transaction
// is: the sale's answer, its detail and the list, which the Java and PHP SDKs'
// transaction-summary mappers read (GpApiMapping mapTransactionSummary). It follows
// amount; a transaction without cashback has no such member.
func TestCashbackAmountIsAnsweredOnSaleDetailAndList(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	sale := env.MustCharge(tok, apitest.SaleBody("2000", "AUTO", apitest.ManualCard, `"cashback_amount":"0500"`))
	id := sale["id"].(string)
	detail := env.Do("GET", "/transactions/"+id, apitest.APIHeader(tok), "")
	list := env.Do("GET", "/transactions?id="+id, apitest.APIHeader(tok), "")
	if detail.Status != 200 || list.Status != 200 {
		t.Fatalf("GET: %d %s; list: %d %s", detail.Status, detail.Body, list.Status, list.Body)
	}
	listed := list.JSON(t)["transactions"].([]any)
	if len(listed) != 1 {
		t.Fatalf("list of %s: %s", id, list.Body)
	}
	for name, got := range map[string]map[string]any{"sale": sale, "detail": detail.JSON(t), "list": listed[0].(map[string]any)} {
		if got["cashback_amount"] != "500" {
			t.Errorf("%s: cashback_amount %v, want \"500\" (leading zeros dropped, as for amounts)", name, got["cashback_amount"])
		}
	}
	if !strings.Contains(string(detail.Body), `"amount":"2000","cashback_amount":"500","currency":"USD"`) {
		t.Errorf("cashback_amount does not follow amount: %s", detail.Body)
	}

	// The cash went out with the sale: its refund has none.
	refund := env.MustPost(tok, "/transactions/"+id+"/refund", `{"amount":"2000"}`)
	if _, ok := refund["cashback_amount"]; ok || refund["type"] != "REFUND" {
		t.Errorf("refund of a sale with cashback: %v", refund)
	}
	// An operation on the payment itself answers the payment, cashback and all.
	auth := env.MustCharge(tok, apitest.SaleBody("2000", "LATER", apitest.ManualCard, `"cashback_amount":"300"`))
	capture := env.MustPost(tok, "/transactions/"+auth["id"].(string)+"/capture", `{}`)
	if capture["status"] != "CAPTURED" || capture["cashback_amount"] != "300" {
		t.Errorf("capture of an authorization with cashback: %v", capture)
	}
	// A standalone refund that sends one keeps it, as it keeps its amount (A126).
	standalone := env.MustCharge(tok, strings.Replace(
		apitest.SaleBody("2000", "AUTO", apitest.ManualCard, `"cashback_amount":"0400"`), `"type":"SALE"`, `"type":"REFUND"`, 1))
	if standalone["type"] != "REFUND" || standalone["cashback_amount"] != "400" {
		t.Errorf("standalone refund with cashback: %v", standalone)
	}
	plain := env.MustCharge(tok, apitest.SaleBody("2000", "AUTO", apitest.ManualCard))
	if _, ok := plain["cashback_amount"]; ok {
		t.Errorf("a sale without cashback answers one: %v", plain)
	}
}

// A fixture's transaction (here seeded as the admin API takes a fixture document)
// answers its cashback_amount on GET and in the list.
func TestCashbackAmountFromAFixtureDocument(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	const id = "TRN_CashbackFixture0001"
	env.MustSeed("PUT", "/_sandbox/transactions/"+id, `{"amount":"3000","cashback_amount":"1000"}`)
	detail := env.Do("GET", "/transactions/"+id, apitest.APIHeader(tok), "")
	if detail.Status != 200 || detail.JSON(t)["cashback_amount"] != "1000" {
		t.Errorf("GET: %d %s", detail.Status, detail.Body)
	}
	list := env.Do("GET", "/transactions?id="+id, apitest.APIHeader(tok), "").JSON(t)["transactions"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["cashback_amount"] != "1000" {
		t.Errorf("list: %v", list)
	}
}

// cashback_amount keeps its check and its place in the request's order: a value not
// of digits is named, before a bad member that follows it (ip_address), after one
// that precedes it (surcharge_amount).
func TestCashbackAmountIsChecked(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	long := `"ip_address":"` + strings.Repeat("1", 51) + `"`
	cases := []struct{ name, extra, member string }{
		{"not digits", `"cashback_amount":"5.00"`, "cashback_amount"},
		{"before a later member", `"cashback_amount":"x",` + long, "cashback_amount"},
		{"after an earlier member", `"surcharge_amount":"x","cashback_amount":"x"`, "surcharge_amount"},
	}
	for _, tc := range cases {
		r := env.Do("POST", "/transactions", apitest.APIHeader(tok), apitest.SaleBody("2000", "AUTO", apitest.ManualCard, tc.extra))
		want := apitest.Err(400, "INVALID_REQUEST_DATA", "40213", tc.member+" contains unexpected data")
		if got := r.GPError(t); got != want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, want)
		}
	}
}
