package api_test

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/fixtures"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// The list is read from the store's indexes a chunk at a time: every ordering,
// either way, pages through every transaction the app may see exactly once, in the
// order the list promises (ties by id), with the same total on every page, across
// many chunks and with times that tie to the millisecond.
func TestListTransactionsPagesInEveryOrder(t *testing.T) {
	var visible []sandbox.Transaction
	env := mustSandboxWith(t, apitest.Options{Fixtures: func(fx *sandbox.Fixtures) {
		i := slices.IndexFunc(fx.Transactions, func(t sandbox.Transaction) bool { return t.ID == apitest.CapturedOne })
		model := fx.Transactions[i]
		merchants := []string{apitest.MerchantOne, apitest.MerchantTwo, fixtures.MerchantThree}
		for i := range 700 {
			t := model
			t.ID = fmt.Sprintf("TRN_List%06d", i*7919%700) // ids in another order than times
			// Three to a time, 1.5 ms apart: times that tie, to the nanosecond or
			// only to the millisecond GP shows, written with fractions of any length.
			t.TimeCreated = apitest.StartTime.Add(time.Duration(i/3) * 1500 * time.Microsecond)
			t.Status = []string{"CAPTURED", "PREAUTHORIZED", "DECLINED", "REVERSED"}[i%4]
			t.Type = []string{"SALE", "REFUND"}[i%2]
			t.MerchantID = merchants[i%3]
			fx.Transactions = append(fx.Transactions, t)
		}
		for _, t := range fx.Transactions {
			if t.MerchantID == apitest.MerchantOne || t.MerchantID == apitest.MerchantTwo {
				visible = append(visible, t)
			}
		}
	}})
	tok := env.PartnerToken()
	list := func(query url.Values) (ids []string, total float64) {
		t.Helper()
		r := env.Do("GET", "/transactions?"+query.Encode(), apitest.APIHeader(tok), "")
		if r.Status != 200 {
			t.Fatalf("GET /transactions?%s: %d %s", query.Encode(), r.Status, r.Body)
		}
		got := r.JSON(t)
		for _, v := range got["transactions"].([]any) {
			ids = append(ids, v.(map[string]any)["id"].(string))
		}
		if n := got["current_page_size"]; n != float64(len(ids)) {
			t.Errorf("%s: current_page_size %v for %d", query.Encode(), n, len(ids))
		}
		return ids, got["total_record_count"].(float64)
	}
	all := func(query url.Values) []string {
		t.Helper()
		var out []string
		var first float64
		for page := 1; ; page++ {
			query.Set("page", fmt.Sprint(page))
			ids, total := list(query)
			if page == 1 {
				first = total
			} else if total != first {
				t.Errorf("%s: total %v, %v on page 1", query.Encode(), total, first)
			}
			if len(ids) == 0 {
				if int(first) != len(out) {
					t.Errorf("%s: total_record_count %v, %d listed", query.Encode(), first, len(out))
				}
				return out
			}
			out = append(out, ids...)
		}
	}
	want := func(orderBy, order string, keep func(sandbox.Transaction) bool) []string {
		key := func(t sandbox.Transaction) string {
			switch orderBy {
			case "STATUS":
				return t.Status
			case "TYPE":
				return t.Type
			case "TIME_CREATED":
				return sandbox.FormatTime(t.TimeCreated)
			}
			return ""
		}
		list := slices.Clone(visible)
		list = slices.DeleteFunc(list, func(t sandbox.Transaction) bool { return !keep(t) })
		slices.SortFunc(list, func(a, b sandbox.Transaction) int {
			c := cmp.Or(strings.Compare(key(a), key(b)), strings.Compare(a.ID, b.ID))
			if order == "DESC" {
				return -c
			}
			return c
		})
		var ids []string
		for _, t := range list {
			ids = append(ids, t.ID)
		}
		return ids
	}
	everything := func(sandbox.Transaction) bool { return true }
	for _, orderBy := range sandbox.TransactionOrderings {
		for _, order := range []string{"ASC", "DESC"} {
			got := all(url.Values{"order_by": {orderBy}, "order": {order}, "page_size": {"97"}})
			if w := want(orderBy, order, everything); !slices.Equal(got, w) {
				t.Errorf("%s %s: %d listed, want %d; first %v, want %v", orderBy, order, len(got), len(w), got[:min(5, len(got))], w[:5])
			}
		}
	}
	captured := func(t sandbox.Transaction) bool { return t.Status == "CAPTURED" && t.Type == "SALE" }
	got := all(url.Values{"status": {"CAPTURED"}, "type": {"SALE"}, "page_size": {"7"}})
	if w := want("TIME_CREATED", "DESC", captured); !slices.Equal(got, w) {
		t.Errorf("filtered, by default order: %d listed, want %d", len(got), len(w))
	}
	partner := url.Values{"page_size": {"1000"}}
	r := env.Do("GET", "/merchants/"+apitest.MerchantTwo+"/transactions?"+partner.Encode(), apitest.APIHeader(tok), "")
	if n := r.JSON(t)["total_record_count"]; r.Status != 200 || n != float64(len(want("ID", "ASC", func(t sandbox.Transaction) bool { return t.MerchantID == apitest.MerchantTwo }))) {
		t.Errorf("merchant Two's list: %d, total %v", r.Status, n)
	}
}

// A query string that does not decode is refused, naming the problem, as on the admin
// API: Go's parsing drops such a pair, and ?status=%ZZ listed every transaction.
func TestListTransactionsRefusesAnUndecodableQuery(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	for path, problem := range map[string]string{
		"/transactions?status=%ZZ":                                       `query: invalid URL escape "%ZZ"`,
		"/transactions?page_size=1&reference=50%":                        `query: invalid URL escape "%"`,
		"/merchants/" + apitest.MerchantOne + "/transactions?status=%ZZ": `query: invalid URL escape "%ZZ"`,
		"/transactions?status=DECLINED;channel=CP":                       "query: invalid semicolon separator in query",
	} {
		want := apitest.Err(400, "INVALID_REQUEST_DATA", "40213", problem)
		if got := env.Do("GET", path, apitest.APIHeader(tok), "").GPError(t); got != want {
			t.Errorf("%s: %+v, want %+v", path, got, want)
		}
	}
	// Escaped, the same bytes are a value like any other, which no reference has.
	r := env.Do("GET", "/transactions?reference=%25ZZ", apitest.APIHeader(tok), "")
	if got := r.JSON(t); r.Status != 200 || got["total_record_count"] != float64(0) {
		t.Errorf("?reference=%%25ZZ: %d %s, want 200 and no transaction", r.Status, r.Body)
	}
}
