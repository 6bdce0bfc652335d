package api_test

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gp-sandbox/gp-sandbox/fixtures"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

func TestBatchCloseSettlesAndOpensANewBatch(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	sale := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))
	batch := sale["batch_id"].(string)
	second := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))
	auth := env.MustTransactionIn(tok, "PREAUTHORIZED")
	captured := env.MustPost(tok, "/transactions/"+auth+"/capture", `{"amount":"1000","gratuity":"200"}`)
	refund := env.MustPost(tok, "/transactions/"+second["id"].(string)+"/refund", `{"amount":"500"}`)
	env.MustTransactionIn(tok, "REVERSED") // in the batch, settled as nothing
	for _, got := range []map[string]any{second, captured, refund} {
		if got["batch_id"] != batch {
			t.Fatalf("%v joined %v, want the open batch %s", got["id"], got["batch_id"], batch)
		}
	}

	// Open, the admin view's summary and its totals are the batch as it stands, as
	// GET /batches/{id} answers it (the list: TestListBatches).
	standing := env.mustGet(tok, "/batches/"+batch)
	openView := env.Do("GET", "/_sandbox/batches/"+batch, nil, "").JSON(t)
	summary, _ := openView["summary"].(map[string]any)
	if standing["transaction_count"] != float64(4) || standing["amount"] != "2700" ||
		summary["transaction_count"] != standing["transaction_count"] || summary["amount"] != standing["amount"] ||
		openView["transaction_count"] != standing["transaction_count"] || openView["amount"] != standing["amount"] {
		t.Errorf("open batch: GET /batches %v, admin view %v", standing, openView)
	}

	closed := env.MustPost(tok, "/batches/"+batch, "")
	if closed["id"] != batch || closed["status"] != "CLOSED" || closed["transaction_count"] != float64(4) || closed["amount"] != "2700" {
		t.Errorf("batch summary %v: want 4 transactions, 1000+1000+1000+200-500", closed)
	}

	r := env.Do("POST", "/transactions/"+sale["id"].(string)+"/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"100"}`)
	want := apitest.Err(400, "INVALID_ACTION", "40290", "Cannot PROCESS Adjustment over a transaction that is in a closed batch.")
	if got := r.GPError(t); got != want {
		t.Errorf("tip after the close: %+v", got)
	}
	next := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))
	if next["batch_id"] == batch || next["batch_id"] == "" {
		t.Errorf("a sale after the close joined %v", next["batch_id"])
	}
	r = env.Do("POST", "/batches/"+batch, apitest.APIHeader(tok), "")
	if got := r.GPError(t); got != (apitest.Err(502, "ACTION_FAILED", "500010", "Action failed unexpectedly. Please try again ")) {
		t.Errorf("closing twice: %+v", got)
	}
	admin := env.Do("GET", "/_sandbox/batches/"+batch, nil, "").JSON(t)
	if admin["status"] != "CLOSED" || admin["closed_by"] != "request" || len(admin["transactions"].([]any)) != 5 {
		t.Errorf("admin view %v", admin)
	}
}

func TestBatchCloseErrors(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	open := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))["batch_id"].(string)
	cases := []struct {
		name, path string
		want       apitest.GPError
	}{
		{"a GUID", "/batches/8f0c5e5a-3b0e-4c1e-9d55-7d0f6c3a2b11", apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "batch_id contains unexpected data")},
		{"unknown batch", "/batches/BAT_999", apitest.Err(404, "RESOURCE_NOT_FOUND", "40118", "Batch BAT_999 not found at this location.")},
		{"another merchant's path", "/merchants/" + apitest.MerchantTwo + "/batches/" + open, apitest.Err(404, "RESOURCE_NOT_FOUND", "40118", "Batch "+open+" not found at this location.")},
		{"no id", "/batches/", apitest.Err(400, "MANDATORY_DATA_MISSING", "40223", "Request expects the batch_id")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := env.Do("POST", tc.path, apitest.APIHeader(tok), "").GPError(t); got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
	restricted := env.MustToken(apitest.RestrictedApp, apitest.RestrictedKey, "")
	if got := env.Do("POST", "/batches/"+open, apitest.APIHeader(restricted), "").GPError(t); got.Detail != "40212" {
		t.Errorf("restricted app: %+v", got)
	}
}

func TestEmptyBatchStaysOpen(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	sale := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))
	env.MustPost(tok, "/transactions/"+sale["id"].(string)+"/reversal", `{}`)
	batch := sale["batch_id"].(string)
	r := env.Do("POST", "/batches/"+batch, apitest.APIHeader(tok), "{}")
	if got := r.GPError(t); got.Detail != "40017" {
		t.Fatalf("closing a batch with nothing to settle: %+v", got)
	}
	if got := env.Do("GET", "/_sandbox/batches/"+batch, nil, "").JSON(t)["status"]; got != "OPEN" {
		t.Errorf("status %v after a refused close", got)
	}
	if next := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard)); next["batch_id"] != batch {
		t.Errorf("the next sale joined %v, want the still open %s", next["batch_id"], batch)
	}
}

// An order's batch_close_time closes the merchant's open batch every day at that time
// on the sandbox clock.
func TestBatchCloseTime(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	orders := "/merchants/" + apitest.MerchantOne + "/orders"
	r := env.Do("POST", orders, apitest.APIHeader(tok), `{"batch_close_time":"25:00"}`)
	if got := r.GPError(t); got != (apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "batch_close_time contains unexpected data")) {
		t.Errorf("bad close time: %+v", got)
	}
	env.MustPost(tok, orders, `{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":1}}],"batch_close_time":"23:00"}`)
	sale := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard)) // 10:00
	batch := sale["batch_id"].(string)
	env.Clock.Set(apitest.StartTime.Add(13 * time.Hour)) // 23:00: closed
	r = env.Do("POST", "/transactions/"+sale["id"].(string)+"/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"100"}`)
	if got := r.GPError(t); got.Description != "Cannot PROCESS Adjustment over a transaction that is in a closed batch." {
		t.Errorf("tip after the daily close: %+v", got)
	}
	admin := env.Do("GET", "/_sandbox/batches/"+batch, nil, "").JSON(t)
	if admin["status"] != "CLOSED" || admin["closed_by"] != "batch_close_time" || admin["time_closed"] != "2021-03-22T23:00:00.000Z" {
		t.Errorf("admin view %v", admin)
	}
	next := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))
	if next["batch_id"] == batch {
		t.Errorf("a sale after the daily close joined the closed batch")
	}
	nextBatch := next["batch_id"].(string)
	for _, step := range []struct {
		at   time.Duration
		want string
	}{
		{36*time.Hour + time.Minute, "OPEN"}, // the next day, 22:01
		{37 * time.Hour, "CLOSED"},           // the next day, 23:00
	} {
		env.Clock.Set(apitest.StartTime.Add(step.at))
		if got := env.Do("GET", "/_sandbox/batches/"+nextBatch, nil, "").JSON(t)["status"]; got != step.want {
			t.Errorf("at +%v: status %v, want %s", step.at, got, step.want)
		}
	}
}

// The fixtures' open batch closes like one the API opened, and the tip that follows
// is refused as GP refuses it.
func TestFixtureBatchCloses(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	closed := env.MustPost(tok, "/batches/BAT_1136475", "")
	if closed["transaction_count"] != float64(2) || closed["amount"] != "2000" {
		t.Errorf("fixture batch summary %v: want the two captured fixture sales", closed)
	}
	r := env.Do("POST", "/transactions/"+apitest.CapturedOne+"/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"100"}`)
	if got := r.GPError(t); got.Description != "Cannot PROCESS Adjustment over a transaction that is in a closed batch." {
		t.Errorf("tip after the close: %+v", got)
	}
	if got := env.Do("POST", "/batches/BAT_1136474", apitest.APIHeader(tok), "").GPError(t); got.Detail != "500010" {
		t.Errorf("the fixtures' closed batch: %+v", got)
	}
}

// The close answers the summary the Java, .NET and PHP SDKs read, totals by brand
// included, and keeps it for GET /batches/{id} and the admin view.
func TestBatchSummaryMembers(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	sale := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))
	batch := sale["batch_id"].(string)
	mc := `{"number":"5425230000004415","expiry_month":"12","expiry_year":"30"}`
	env.MustCharge(tok, apitest.SaleBody("2000", "AUTO", mc))
	env.MustPost(tok, "/transactions/"+sale["id"].(string)+"/adjustment", `{"gratuity_amount":"150"}`)
	env.MustPost(tok, "/transactions/"+sale["id"].(string)+"/refund", `{"amount":"400"}`)

	closed := env.MustPost(tok, "/batches/"+batch, "")
	want := map[string]any{
		"status": "CLOSED", "transaction_count": 3.0, "count": 3.0, "amount": "2750", "gratuity_amount": "150",
		"sales.count": 2.0, "sales.amount": "3150", "refunds.count": 1.0, "refunds.amount": "400",
		"funding_credit.amount": "3150", "funding_debit.amount": "400", "device_reference": "",
		"host_breakdown.amount": "2750", "host_breakdown.count": 3.0, "action.type": "CLOSE",
		"brand_breakdown.1.brand": "VISA", "brand_breakdown.1.amount": "750", "brand_breakdown.1.count": 2.0,
		"brand_breakdown.1.gratuity_amount": "150", "brand_breakdown.0.brand": "MASTERCARD", "brand_breakdown.0.sales.amount": "2000",
	}
	for path, w := range want {
		if got := member(closed, path); got != w {
			t.Errorf("%s = %v, want %v", path, got, w)
		}
	}
	if closed["open_action_id"] != field(sale, "action", "id") || closed["close_action_id"] != field(closed, "action", "id") || closed["time_closed"] == nil {
		t.Errorf("action ids and close time: %v", closed)
	}
	// A read answers its own BATCH_SINGLE action (GP's Batches schema); the close
	// stays close_action_id.
	read := env.Do("GET", "/batches/"+batch, apitest.APIHeader(tok), "").JSON(t)
	if a := read["action"].(map[string]any); a["type"] != "BATCH_SINGLE" || a["id"] == closed["close_action_id"] {
		t.Errorf("GET's action: %v", a)
	}
	read["action"], closed["action"] = nil, nil
	if fmt.Sprint(read) != fmt.Sprint(closed) {
		t.Errorf("GET after the close:\n got %v\nwant %v", read, closed)
	}
	admin := env.Do("GET", "/_sandbox/batches/"+batch, nil, "").JSON(t)
	if member(admin, "summary.brand_breakdown.0.brand") != "MASTERCARD" {
		t.Errorf("admin view: %v", admin)
	}
	// An open batch reads with its totals so far, and no close.
	next := env.MustCharge(tok, apitest.SaleBody("500", "AUTO", apitest.ManualCard))["batch_id"].(string)
	open := env.Do("GET", "/batches/"+next, apitest.APIHeader(tok), "").JSON(t)
	if open["status"] != "OPEN" || open["amount"] != "500" || open["close_action_id"] != nil || field(open, "action", "type") != "BATCH_SINGLE" ||
		len(open["brand_breakdown"].([]any)) != 1 {
		t.Errorf("open batch: %v", open)
	}
}

// member reads a dotted path of a JSON answer; a number segment indexes an array.
func member(m map[string]any, path string) any {
	var v any = m
	for _, p := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// POST /batches closes the account's open batch, as Java and .NET do without an id.
func TestBatchCloseWithoutID(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	nothing := apitest.Err(400, "MANDATORY_DATA_MISSING", "40223", "Request expects the batch_id")
	if got := env.Do("POST", "/batches", apitest.APIHeader(tok), `{"account_name":"transaction_processing"}`).GPError(t); got != nothing {
		t.Errorf("nothing open: %+v", got)
	}
	batch := env.MustCharge(tok, apitest.SaleBody("1300", "AUTO", apitest.ManualCard))["batch_id"].(string)
	cases := []struct {
		name, path, body string
		want             apitest.GPError
	}{
		{"another currency", "/batches", `{"account_name":"transaction_processing","currency":"PLN","country":"US","payment_methods":["CARD"]}`,
			apitest.Err(400, "CONFIGURATION_DOES_NOT_EXIST", "40041", "Merchant configuration does not exist for the following combination: country - US, channel - CP, currency - PLN")},
		{"card not present", "/batches", `{"channel":"CNP","currency":"USD"}`,
			apitest.Err(400, "CONFIGURATION_DOES_NOT_EXIST", "40041", "Merchant configuration does not exist for the following combination: country - US, channel - CNP, currency - USD")},
		{"an account the app lacks", "/batches", `{"account_name":"test_account_X"}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40041", "Merchant configuration does not exist for the following combination: test_account_X , "+apitest.MerchantOne)},
		{"merchant Two has nothing open", "/merchants/" + apitest.MerchantTwo + "/batches", `{"currency":"USD"}`,
			apitest.Err(400, "CONFIGURATION_DOES_NOT_EXIST", "40041", "Merchant configuration does not exist for the following combination: country - US, channel - CP, currency - USD")},
		{"country in lower case", "/batches", `{"currency":"USD","country":"us"}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "country contains unexpected data")},
		{"unknown member", "/batches", `{"batch_id":"` + batch + `"}`,
			apitest.Err(400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: batch_id")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := env.Do("POST", tc.path, apitest.APIHeader(tok), tc.body).GPError(t); got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
	closed := env.MustPost(tok, "/merchants/"+apitest.MerchantOne+"/batches", `{"account_name":"transaction_processing","channel":"CP","currency":"USD","country":"US","payment_methods":["CARD"]}`)
	if closed["id"] != batch || closed["status"] != "CLOSED" || closed["transaction_count"] != 1.0 {
		t.Errorf("closed without id: %v", closed)
	}
	if got := env.Do("POST", "/batches", apitest.APIHeader(tok), "").GPError(t); got != nothing {
		t.Errorf("after the close: %+v", got)
	}
}

// A merchant account's payments in two currencies go into two batches, one per
// merchant configuration, as GP keeps them: each batch totals its own currency, and a
// close naming a currency closes that currency's batch only.
func TestBatchPerCurrency(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	usd := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))
	gbp := env.MustCharge(tok, inCurrency(apitest.SaleBody("1300", "AUTO", apitest.ManualCard), "GBP"))
	second := env.MustCharge(tok, apitest.SaleBody("500", "AUTO", apitest.ManualCard))
	usdBatch, gbpBatch := usd["batch_id"].(string), gbp["batch_id"].(string)
	if gbpBatch == usdBatch || second["batch_id"] != usdBatch {
		t.Fatalf("batches: USD %s, GBP %s, second USD %v", usdBatch, gbpBatch, second["batch_id"])
	}
	for _, want := range []struct{ id, currency, amount string }{{usdBatch, "USD", "1500"}, {gbpBatch, "GBP", "1300"}} {
		got := env.mustGet(tok, "/batches/"+want.id)
		if got["currency"] != want.currency || got["amount"] != want.amount || got["status"] != "OPEN" {
			t.Errorf("batch %s: %v %v %v, want %s %s OPEN", want.id, got["currency"], got["amount"], got["status"], want.currency, want.amount)
		}
	}

	closed := env.MustPost(tok, "/batches", `{"account_name":"transaction_processing","currency":"USD","country":"US"}`)
	if closed["id"] != usdBatch || closed["currency"] != "USD" || closed["amount"] != "1500" || closed["transaction_count"] != 2.0 {
		t.Errorf("the USD close: %v", closed)
	}
	if got := env.mustGet(tok, "/batches/"+gbpBatch); got["status"] != "OPEN" || got["amount"] != "1300" {
		t.Errorf("the GBP batch after the USD close: %v %v", got["status"], got["amount"])
	}
	// A close naming nothing closes the batch the account opened last: GBP's.
	closed = env.MustPost(tok, "/batches", `{"account_name":"transaction_processing"}`)
	if closed["id"] != gbpBatch || closed["amount"] != "1300" || closed["transaction_count"] != 1.0 {
		t.Errorf("the close naming nothing: %v", closed)
	}
	nothing := apitest.Err(400, "MANDATORY_DATA_MISSING", "40223", "Request expects the batch_id")
	if got := env.Do("POST", "/batches", apitest.APIHeader(tok), `{"account_name":"transaction_processing"}`).GPError(t); got != nothing {
		t.Errorf("nothing open: %+v", got)
	}
}

// A database file written before batches were kept per currency names an account's
// open batch by merchant and account only: a payment in that batch's currency still
// joins it, even after one in another currency opened a batch of its own, and a close
// naming the batch's currency closes it.
func TestOpenBatchOfAnOlderFile(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	gbp := env.MustCharge(tok, inCurrency(apitest.SaleBody("1300", "AUTO", apitest.ManualCard), "GBP"))
	env.MustPost(tok, "/batches/"+gbp["batch_id"].(string), "") // the account has no open batch now
	merchant, account := gbp["merchant_id"].(string), gbp["account_id"].(string)
	older := sandbox.Batch{
		ID: "BAT_9000001", Holder: sandbox.Holder{MerchantID: merchant, AccountID: account, AccountName: "transaction_processing"},
		Status: sandbox.BatchStatusOpen, Currency: "USD", Country: "US", TimeCreated: env.Clock.Now(), Amount: "0",
	}
	if err := env.DB.Update(func(tx sandbox.Tx) error {
		if err := tx.PutBatch(older); err != nil {
			return err
		}
		return tx.PutMeta("open_batch:"+merchant+":"+account, older.ID) // the layout before
	}); err != nil {
		t.Fatal(err)
	}
	eur := env.MustCharge(tok, inCurrency(apitest.SaleBody("700", "AUTO", apitest.ManualCard), "EUR"))
	if eur["batch_id"] == older.ID {
		t.Errorf("a EUR sale joined the older file's USD batch %s", older.ID)
	}
	if usd := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard)); usd["batch_id"] != older.ID {
		t.Errorf("a USD sale after the EUR one joined %v, want the older file's open batch %s", usd["batch_id"], older.ID)
	}
	closed := env.MustPost(tok, "/batches", `{"account_name":"transaction_processing","currency":"USD"}`)
	if closed["id"] != older.ID || closed["amount"] != "1000" || closed["transaction_count"] != 1.0 {
		t.Errorf("the USD close: %v", closed)
	}
	if next := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard)); next["batch_id"] == older.ID {
		t.Errorf("a USD sale after the close joined the closed batch %v", next["batch_id"])
	}
}

// inCurrency is body with its currency changed from USD to currency.
func inCurrency(body, currency string) string {
	return strings.Replace(body, `"currency":"USD"`, `"currency":"`+currency+`"`, 1)
}

// A transaction is in a closed batch however it got there: by the close, by a
// fixture line naming a batch another line closes, or seeded into a closed batch.
// Each is refused an adjustment as GP refuses one after the close.
func TestEveryMemberOfAClosedBatchIsClosed(t *testing.T) {
	const closedBatch = "BAT_1136474" // closed by TRN_BatchedSale0000000000000000001's line
	env := mustSandboxWith(t, apitest.Options{Fixtures: func(fx *sandbox.Fixtures) {
		late := fx.Transactions[0]
		late.ID, late.Reference, late.BatchID, late.BatchClosed = "TRN_LateBatchMember0001", "late-member", closedBatch, false
		fx.Transactions = append(fx.Transactions, late)
	}})
	env.MustSeed("PUT", "/_sandbox/transactions/TRN_SeededIntoClosed01", `{"amount":"1000","batch_id":"`+closedBatch+`"}`)
	tok := env.PartnerToken()
	want := apitest.Err(400, "INVALID_ACTION", "40290", "Cannot PROCESS Adjustment over a transaction that is in a closed batch.")
	for _, id := range []string{"TRN_BatchedSale0000000000000000001", "TRN_LateBatchMember0001", "TRN_SeededIntoClosed01"} {
		r := env.Do("POST", "/transactions/"+id+"/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"100"}`)
		if got := r.GPError(t); got != want {
			t.Errorf("%s: %+v", id, got)
		}
	}
}

// A batch the sandbox opens never takes an id that a seeded transaction already
// names: it would take in that transaction, another merchant's here.
func TestNewBatchPassesOverSeededBatchIDs(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	first := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))["batch_id"].(string)
	var n int
	if _, err := fmt.Sscanf(first, "BAT_%d", &n); err != nil {
		t.Fatalf("batch id %q: %v", first, err)
	}
	next := fmt.Sprintf("BAT_%d", n+1)
	env.MustSeed("PUT", "/_sandbox/transactions/TRN_SeededIntoNextBatch1",
		`{"amount":"700","merchant_id":"MER_00000000000000000000000000000002","batch_id":"`+next+`"}`)
	env.MustPost(tok, "/batches/"+first, "")

	second := env.MustCharge(tok, apitest.SaleBody("400", "AUTO", apitest.ManualCard))["batch_id"].(string)
	if second == first || second == next {
		t.Fatalf("the new batch is %s (first %s, seeded %s)", second, first, next)
	}
	closed := env.MustPost(tok, "/batches/"+second, "")
	if closed["transaction_count"] != float64(1) || closed["amount"] != "400" {
		t.Errorf("summary of %s: %v, want only its own sale of 400", second, closed)
	}
	if seeded := env.Do("GET", "/_sandbox/transactions/TRN_SeededIntoNextBatch1", nil, "").JSON(t); seeded["batch_closed"] != false {
		t.Errorf("the seeded transaction closed with merchant 1's batch: %v", seeded)
	}
}

// A fixture file naming the id the sandbox's numbering gives its first batch: the
// first batch the sandbox opens passes over it, and closing it counts only its own
// sale, not the fixture's transaction, which stays in its open batch.
func TestNewBatchPassesOverFixtureBatchIDs(t *testing.T) {
	plain := mustSandbox(t)
	taken := plain.MustCharge(plain.PartnerToken(), apitest.SaleBody("1000", "AUTO", apitest.ManualCard))["batch_id"].(string)

	files := fstest.MapFS{}
	names, err := fs.Glob(fixtures.FS, "*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		data, err := fs.ReadFile(fixtures.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = &fstest.MapFile{Data: data}
	}
	files["transactions.yaml"].Data = append(files["transactions.yaml"].Data, `
  - id: TRN_FixtureInFirstBatchID001
    merchant_id: MER_00000000000000000000000000000001
    time_created: 2021-03-24T06:00:00.000Z
    type: SALE
    status: CAPTURED
    amount: "700"
    currency: USD
    country: US
    batch_id: `+taken+`
`...)
	env := mustSandbox(t, func(c *app.Config) { c.Fixtures = app.Files{FS: files} })
	tok := env.PartnerToken()
	batch := env.MustCharge(tok, apitest.SaleBody("400", "AUTO", apitest.ManualCard))["batch_id"].(string)
	if batch == taken {
		t.Fatalf("the sandbox's first batch is %s, the fixture's", batch)
	}
	closed := env.MustPost(tok, "/batches/"+batch, "")
	if closed["transaction_count"] != float64(1) || closed["amount"] != "400" {
		t.Errorf("summary of %s: %v, want only its own sale of 400", batch, closed)
	}
	fixture := env.Do("GET", "/_sandbox/transactions/TRN_FixtureInFirstBatchID001", nil, "").JSON(t)
	if fixture["batch_id"] != taken || fixture["batch_closed"] != false {
		t.Errorf("the fixture's transaction after the close: %v", fixture)
	}
}

// A transaction seeded with the id of a batch is one of its members: the close counts
// it and puts it in a closed batch. Seeded again into another batch, it leaves the
// first.
func TestSeededTransactionIsABatchMember(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	batch := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", apitest.ManualCard))["batch_id"].(string)
	env.MustSeed("PUT", "/_sandbox/transactions/TRN_SeededIntoOpen01", `{"amount":"700","batch_id":"`+batch+`"}`)
	env.MustSeed("PUT", "/_sandbox/transactions/TRN_SeededThenMoved01", `{"amount":"300","batch_id":"`+batch+`"}`)
	env.MustSeed("PUT", "/_sandbox/transactions/TRN_SeededThenMoved01", `{"amount":"300","batch_id":"BAT_999999"}`)

	closed := env.MustPost(tok, "/batches/"+batch, "")
	if closed["transaction_count"] != float64(2) || closed["amount"] != "1700" {
		t.Errorf("batch summary %v: want the sale and the seeded 700, not the moved 300", closed)
	}
	want := apitest.Err(400, "INVALID_ACTION", "40290", "Cannot PROCESS Adjustment over a transaction that is in a closed batch.")
	r := env.Do("POST", "/transactions/TRN_SeededIntoOpen01/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"100"}`)
	if got := r.GPError(t); got != want {
		t.Errorf("adjusting the seeded member after the close: %+v", got)
	}
	if r := env.Do("POST", "/transactions/TRN_SeededThenMoved01/adjustment", apitest.APIHeader(tok), `{"gratuity_amount":"100"}`); r.Status != 200 {
		t.Errorf("the transaction that moved to another batch: %d %s", r.Status, r.Body)
	}
	admin := env.Do("GET", "/_sandbox/transactions/TRN_SeededIntoOpen01", nil, "").JSON(t)
	if admin["batch_closed"] != true {
		t.Errorf("admin view of the seeded member: %v", admin)
	}
}

// A batch the fixtures close answers the totals of its sale, as a batch the API
// closed does: the default set's BAT_1136474 holds TRN_BatchedSale…1, 19.99 USD.
func TestFixtureClosedBatchHasItsTotals(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	b := env.mustGet(tok, "/batches/BAT_1136474")
	if b["status"] != "CLOSED" || b["transaction_count"] != float64(1) || b["amount"] != "1999" {
		t.Errorf("fixture batch: %v", b)
	}
	if admin := env.Do("GET", "/_sandbox/batches/BAT_1136474", nil, "").JSON(t); admin["amount"] != "1999" || admin["closed_by"] != "fixtures" {
		t.Errorf("fixture batch, admin view: %v", admin)
	}
}
