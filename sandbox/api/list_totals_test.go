package api_test

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// An unfiltered list's total is the count the store keeps per merchant; a filter that
// every sandbox transaction matches (payment_method=CARD) makes the list count the
// records it walks instead. Every path that writes or wipes transactions keeps the
// two equal: a payment, an admin PUT that adds, replaces, changes the status of or
// moves one to another merchant, a snapshot restore and a reset. So do the orders the
// store keeps apart from the transactions: each lists what the transactions hold.
func TestListTotalsFollowEveryWrite(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	total := func(merchant string, query url.Values) int {
		t.Helper()
		query.Set("page_size", "1")
		r := env.Do("GET", "/merchants/"+merchant+"/transactions?"+query.Encode(), apitest.APIHeader(tok), "")
		n, ok := r.JSON(t)["total_record_count"].(float64)
		if r.Status != 200 || !ok {
			t.Fatalf("list of %s: %d %s", merchant, r.Status, r.Body)
		}
		return int(n)
	}
	// totals checks the kept counts and orders against the records, and returns the
	// counts.
	totals := func(step string) [2]int {
		t.Helper()
		var out [2]int
		for i, m := range []string{apitest.MerchantOne, apitest.MerchantTwo} {
			mustListInOrder(t, env, tok, step, m)
			kept, counted := total(m, url.Values{}), total(m, url.Values{"payment_method": {"CARD"}})
			if kept != counted {
				t.Errorf("%s: %s's list totals %d, but %d transactions are stored", step, m, kept, counted)
			}
			out[i] = kept
		}
		return out
	}
	want := func(step string, got, want [2]int) {
		t.Helper()
		if got != want {
			t.Errorf("%s: totals %v, want %v", step, got, want)
		}
	}
	start := totals("fixtures")
	if start[0] == 0 {
		t.Fatalf("fixtures: totals %v, want transactions of the first merchant", start)
	}

	env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))
	want("a sale", totals("a sale"), [2]int{start[0] + 1, start[1]})
	env.MustSeed("PUT", "/_sandbox/transactions/TRN_Totals0001", `{"merchant_id":"`+apitest.MerchantOne+`"}`)
	want("an admin PUT", totals("an admin PUT"), [2]int{start[0] + 2, start[1]})
	env.MustSeed("PUT", "/_sandbox/transactions/TRN_Totals0001", `{"merchant_id":"`+apitest.MerchantOne+`","amount":"5"}`)
	want("an admin PUT replacing", totals("an admin PUT replacing"), [2]int{start[0] + 2, start[1]})
	env.MustSeed("PUT", "/_sandbox/transactions/TRN_Totals0001",
		`{"merchant_id":"`+apitest.MerchantOne+`","status":"DECLINED","type":"REFUND","time_created":"2020-01-01T00:00:00.000Z"}`)
	want("an admin PUT changing the orders", totals("an admin PUT changing the orders"), [2]int{start[0] + 2, start[1]})
	env.MustSeed("PUT", "/_sandbox/transactions/TRN_Totals0001", `{"merchant_id":"`+apitest.MerchantTwo+`"}`)
	saved := totals("an admin PUT moving")
	want("an admin PUT moving", saved, [2]int{start[0] + 1, start[1] + 1})

	env.MustAdmin("POST", "/_sandbox/snapshots", `{"name":"totals"}`)
	env.MustCharge(tok, apitest.SaleBody("700", "AUTO", apitest.ManualCard))
	env.MustSeed("PUT", "/_sandbox/transactions/TRN_Totals0001", `{"merchant_id":"`+apitest.MerchantOne+`"}`)
	want("after the save", totals("after the save"), [2]int{start[0] + 3, start[1]})
	env.MustAdmin("POST", "/_sandbox/snapshots/totals/restore", "")
	want("a restore", totals("a restore"), saved)

	env.MustAdmin("POST", "/_sandbox/reset", "")
	tok = env.PartnerToken() // the reset forgot the token too
	want("a reset", totals("a reset"), start)
}

// mustListInOrder lists a merchant's transactions in each ordering, both ways, and
// checks each against the list in id order sorted by the members the ordering
// compares, then the id.
func mustListInOrder(t *testing.T, env *sandboxEnv, tok, step, merchant string) {
	t.Helper()
	list := func(orderBy, order string) []map[string]any {
		r := env.Do("GET", "/merchants/"+merchant+"/transactions?page_size=1000&order_by="+orderBy+"&order="+order, apitest.APIHeader(tok), "")
		if r.Status != 200 {
			t.Fatalf("%s: list of %s by %s: %d %s", step, merchant, orderBy, r.Status, r.Body)
		}
		var out []map[string]any
		for _, item := range r.JSON(t)["transactions"].([]any) {
			out = append(out, item.(map[string]any))
		}
		return out
	}
	ids := func(items []map[string]any) string {
		var out []string
		for _, item := range items {
			out = append(out, item["id"].(string))
		}
		return fmt.Sprint(out)
	}
	byID := list("ID", "ASC")
	for orderBy, member := range map[string]string{"TIME_CREATED": "time_created", "STATUS": "status", "TYPE": "type", "ID": "id"} {
		want := slices.Clone(byID)
		slices.SortStableFunc(want, func(a, b map[string]any) int {
			return cmp.Compare(a[member].(string), b[member].(string))
		})
		if got := ids(list(orderBy, "ASC")); got != ids(want) {
			t.Errorf("%s: %s's list by %s: %s, want %s", step, merchant, orderBy, got, ids(want))
		}
		slices.Reverse(want)
		if got := ids(list(orderBy, "DESC")); got != ids(want) {
			t.Errorf("%s: %s's list by %s descending: %s, want %s", step, merchant, orderBy, got, ids(want))
		}
	}
}
