package admin_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/admin"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// mustJournalCount answers GET /_sandbox/requests/count with query.
func mustJournalCount(t *testing.T, env *sandboxEnv, query string) int {
	t.Helper()
	r := env.Do("GET", "/_sandbox/requests/count"+query, nil, "")
	if r.Status != 200 {
		t.Fatalf("count%s: %d %s", query, r.Status, r.Body)
	}
	return int(r.JSON(t)["count"].(float64))
}

// Each filter narrows the journal as documented; the count agrees with the list.
func TestJournalFiltersAndCount(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	order := env.Do("POST", "/ucp/merchants/"+apitest.MerchantOne+"/orders", apitest.APIHeader(tok, "X-Sandbox-Session", "s-1"), `{}`)
	orderID, _ := order.JSON(t)["id"].(string)
	env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok, "X-Sandbox-Session", "s-1"), `{"amount":"900"}`)
	env.Clock.Advance(time.Hour)
	env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok, "X-Sandbox-Scenario", "downstream-error"), `{"amount":"800"}`)
	env.Do("GET", "/nowhere", nil, "")

	tests := []struct {
		query string
		want  int
	}{
		{"", 5},
		{"?operation=adjustment", 2},
		{"?operation=accesstoken", 1},
		{"?status=200", 3},
		{"?status=5xx", 1},
		{"?status=4xx", 1},
		{"?method=GET", 1},
		{"?app_id=" + apitest.PartnerApp, 3},
		{"?session=s-1", 2},
		{"?transaction_id=" + apitest.CapturedOne, 2},
		{"?transaction_id=" + apitest.CapturedOne + "&status=200", 1},
		{"?order_id=" + orderID, 1},
		{"?scenario=downstream-error", 1},
		{"?rule=downstream-error%230", 1},
		{"?rule=downstream-error%231", 0},
		{"?path=/merchants/" + apitest.MerchantOne + "/orders", 1},
		{"?path=/ucp/merchants/" + apitest.MerchantOne + "/orders", 1},
		{"?path=/transactions/*", 2},
		{"?since=2021-03-22T10:30:00.000Z", 2},
		{"?until=2021-03-22T10:30:00Z", 3},
		{"?since=2021-03-22T10:00:00.000Z&until=2021-03-22T10:00:00.001Z", 3},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			if got := mustJournalCount(t, env, tt.query); got != tt.want {
				t.Errorf("count: %d, want %d", got, tt.want)
			}
			sep := "?"
			if tt.query != "" {
				sep = "&"
			}
			list := env.Do("GET", "/_sandbox/requests"+tt.query+sep+"limit=100", nil, "")
			if n := len(list.JSON(t)["requests"].([]any)); n != tt.want {
				t.Errorf("list: %d entries, want %d", n, tt.want)
			}
		})
	}
}

// A filter the journal does not know, or a value it cannot match, is refused naming
// the parameter rather than silently matching everything or nothing.
func TestJournalRefusesUnknownFilters(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tests := []struct {
		path, detail, names string
	}{
		{"/_sandbox/requests?paht=/x", "40043", "paht"},
		{"/_sandbox/requests?operation=bogus", "40213", "operation"},
		{"/_sandbox/requests?operation=", "40213", "operation"},
		{"/_sandbox/requests?status=600", "40213", "status"},
		{"/_sandbox/requests?status=6xx", "40213", "status"},
		{"/_sandbox/requests?status=200&status=404", "40213", "status"},
		{"/_sandbox/requests?since=yesterday", "40213", "since"},
		{"/_sandbox/requests?until=2021-03-22", "40213", "until"},
		{"/_sandbox/requests?path=transactions", "40213", "path"},
		{"/_sandbox/requests?limit=0", "40213", "limit"},
		{"/_sandbox/requests/count?limit=5", "40043", "limit"},
		{"/_sandbox/requests/count?operation=bogus", "40213", "operation"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			e := env.Do("GET", tt.path, nil, "").GPError(t)
			if e.Status != 400 || e.Code != "INVALID_REQUEST_DATA" || e.Detail != tt.detail || !strings.Contains(e.Description, tt.names) {
				t.Errorf("got %+v, want 400 %s naming %s", e, tt.detail, tt.names)
			}
		})
	}
}

// Every admin call refuses a query parameter it does not read, naming it, rather than
// answering as if it had matched: a mistyped filter would list everything, and a wipe
// given a filter would wipe more than asked.
func TestAdminRefusesQueryParametersItDoesNotRead(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.PartnerToken()
	env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"5"}`)
	countAdjustments := func() string {
		return string(env.Do("GET", "/_sandbox/requests/count?operation=adjustment", nil, "").Body)
	}
	before := countAdjustments()
	for _, call := range []struct{ method, path, names string }{
		{"GET", "/_sandbox/devices?merchant=MER_1", "merchant"},
		{"GET", "/_sandbox/devices?merchant_id=MER_1&status=ACTIVE", "status"},
		{"GET", "/_sandbox/notifications?order=ORD_1", "order"},
		{"GET", "/_sandbox/merchants?limit=1", "limit"},
		{"GET", "/_sandbox/transactions?limit=1&sort=id", "sort"},
		{"GET", "/_sandbox/clock?zone=UTC", "zone"},
		{"DELETE", "/_sandbox/requests?operation=adjustment", "operation"},
		{"POST", "/_sandbox/reset?keep=transactions&also=orders", "also, keep"},
		{"GET", "/_sandbox/devices?order_id=O&order_id=P&zone=1", "zone"},
		{"GET", "/_sandbox/requests/stream?operation=bogus&zz=1&yy=2", "yy, zz"},
		{"GET", "/_sandbox/requests/stream?before=5", "before"},
		{"GET", "/_sandbox/clock?=1", `""`},
		{"GET", "/_sandbox/devices?4263970000005262=1", "426397******5262"},
	} {
		want := apitest.Err(400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: "+call.names)
		if got := env.Do(call.method, call.path, nil, "").GPError(t); got != want {
			t.Errorf("%s %s: %+v, want %+v", call.method, call.path, got, want)
		}
	}
	for _, path := range []string{"/_sandbox/devices?merchant_id=MER_1&merchant_id=MER_2", "/_sandbox/transactions?limit=1&limit=2"} {
		name := path[strings.Index(path, "?")+1 : strings.Index(path, "=")]
		want := apitest.Err(400, "INVALID_REQUEST_DATA", "40213", name+" contains unexpected data")
		if got := env.Do("GET", path, nil, "").GPError(t); got != want {
			t.Errorf("GET %s: %+v, want %+v", path, got, want)
		}
	}
	if after := countAdjustments(); after != before || after == `{"count":0}` {
		t.Errorf("the refused DELETE with a filter changed the journal: %s, then %s", before, after)
	}
	for _, path := range []string{"/_sandbox/devices?merchant_id=MER_1&order_id=ORD_1", "/_sandbox/notifications?order_id=ORD_1",
		"/_sandbox/transactions?limit=1&after=TRN_", "/_sandbox/orders?limit=1", "/_sandbox/batches?after=BAT_",
		"/_sandbox/requests?operation=adjustment&limit=1&before=100", "/_sandbox/requests/count?app_id=x&status=200"} {
		if r := env.Do("GET", path, nil, ""); r.Status != 200 {
			t.Errorf("GET %s: %d %s", path, r.Status, r.Body)
		}
	}
}

// DELETE /_sandbox/requests and a reset both empty the journal; it fills again after.
func TestJournalClearedByDeleteAndReset(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	for _, clear := range []struct{ method, path string }{
		{"DELETE", "/_sandbox/requests"}, {"POST", "/_sandbox/reset"},
	} {
		env.Do("GET", "/nowhere", nil, "")
		if n := mustJournalCount(t, env, ""); n != 1 {
			t.Fatalf("before %s: %d entries, want 1", clear.method, n)
		}
		if r := env.Do(clear.method, clear.path, nil, ""); r.Status != 200 {
			t.Fatalf("%s %s: %d %s", clear.method, clear.path, r.Status, r.Body)
		}
		if n := mustJournalCount(t, env, ""); n != 0 {
			t.Errorf("after %s %s: %d entries, want 0", clear.method, clear.path, n)
		}
		if list := env.Do("GET", "/_sandbox/requests", nil, ""); string(list.Body) != `{"requests":[]}` {
			t.Errorf("after %s %s: %s", clear.method, clear.path, list.Body)
		}
	}
}

// The journal keeps a body as sent when it is JSON, card data masked, and as a JSON
// string otherwise, whether or not the handler parsed it: a blank body that an
// operation reads as {} is still a blank string.
func TestJournalBodyAsSent(t *testing.T) {
	t.Parallel()
	env := mustSandbox(t)
	tok := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, "")
	env.Do("GET", "/transactions/"+apitest.CapturedOne, apitest.APIHeader(tok), " \n")
	env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok), `{ "gratuity_amount" : "150" }`)
	env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok), `{"amount":"4263970000005262"}`)
	env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok), `{"amount":"1"} x`)
	want := []string{`"{\"amount\":\"1\"} x"`, `{"amount":"426397******5262"}`, `{"gratuity_amount":"150"}`, `" \n"`}
	entries := env.MustJournal("?limit=4")
	if len(entries) != len(want) {
		t.Fatalf("%d entries, want %d", len(entries), len(want))
	}
	for i, e := range entries {
		if string(e.Body) != want[i] {
			t.Errorf("%s %s: body %s, want %s", e.Method, e.Path, e.Body, want[i])
		}
	}
}

// The journal keeps a token answer without its token, members sorted as json.Marshal
// writes a map; an answer without a token member, or not an object, as it is.
func TestJournalWithoutToken(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"token":"secret","type":"Bearer","app_id":"A"}`:         `{"app_id":"A","token":"[REDACTED]","type":"Bearer"}`,
		`{"token":{"nested":"x"},"scope":{"b":1, "a":[1]}}`:       `{"scope":{"b":1,"a":[1]},"token":"[REDACTED]"}`,
		`{"error_code":"X","detailed_error_description":"token"}`: `{"error_code":"X","detailed_error_description":"token"}`,
		`{"a":"token"}`:  `{"a":"token"}`,
		`["token"]`:      `["token"]`,
		`{"token":"x"`:   `{"token":"x"`,
		`{"id":"TRN_1"}`: `{"id":"TRN_1"}`,
	} {
		if got := string(admin.WithoutToken([]byte(body))); got != want {
			t.Errorf("withoutToken(%s) = %s, want %s", body, got, want)
		}
	}
}
