package api_test

import (
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// GET /transactions/{id} of a transaction the app cannot see answers GP's reporting
// tuple, naming the path under /ucp whichever base the client uses (Java, .NET and
// Node GpApiReportingTransactionsTest::ReportTransactionDetail_WrongId).
func TestTransactionDetailNotFound(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	const id = "0f4b6a9c-5c1d-4d3c-8e21-6b2e9a7f3d12" // the tests ask for a random UUID
	for _, tc := range []struct{ path, named string }{
		{"/transactions/" + id, "/ucp/transactions/" + id},
		{"/ucp/transactions/" + id, "/ucp/transactions/" + id},
		{"/transactions/" + apitest.OtherMerchant, "/ucp/transactions/" + apitest.OtherMerchant},
		{"/merchants/" + apitest.MerchantOne + "/transactions/" + id, "/ucp/merchants/" + apitest.MerchantOne + "/transactions/" + id},
	} {
		r := env.Do("GET", tc.path, apitest.APIHeader(tok), "")
		parts := tc.path[len(tc.path)-len(id):]
		if tc.path == "/transactions/"+apitest.OtherMerchant {
			parts = apitest.OtherMerchant
		}
		want := apitest.Err(404, "RESOURCE_NOT_FOUND", "40118", "Transactions "+parts+" not found at this "+tc.named)
		if got := r.GPError(t); got != want {
			t.Errorf("GET %s:\n got %+v\nwant %+v", tc.path, got, want)
		}
	}
}

// The reporting filters as the SDKs' report builders send them, and GP's answers to
// values it refuses (Java GpApiReportingTransactionsTest::
// ReportFindTransactionsPaged_By_InvalidCardBrand, _WithInvalid_AccountName,
// _By_Name, _By_RandomName, _By_Token_First6_And_Token_Last4*).
func TestListTransactionsReportingFilters(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	keyed := env.MustCharge(tok, apitest.SaleBody("100", "AUTO", apitest.ManualCard))["id"].(string)
	swiped := env.MustCharge(tok, apitest.SaleBody("200", "AUTO", apitest.TrackCard()))["id"].(string)
	// The Node SDK's keyed sales carry the cardholder's name in payment_method.name.
	body := apitest.SaleBody("300", "AUTO", apitest.ManualCard)
	body = body[:len(body)-len(`"card":`+apitest.ManualCard+`}}`)] + `"name":"James Mason","card":` + apitest.ManualCard + `}}`
	james := env.MustCharge(tok, body)["id"].(string)

	list := func(query url.Values) []string {
		t.Helper()
		r := env.Do("GET", "/transactions?"+query.Encode(), apitest.APIHeader(tok), "")
		if r.Status != 200 {
			t.Fatalf("GET /transactions?%s: %d %s", query.Encode(), r.Status, r.Body)
		}
		var ids []string
		for _, v := range r.JSON(t)["transactions"].([]any) {
			m := v.(map[string]any)
			ids = append(ids, m["id"].(string))
			if m["id"] == james && field(m, "payment_method", "name") != "James Mason" {
				t.Errorf("payment_method.name of the named sale: %v", m["payment_method"])
			}
		}
		return ids
	}
	q := func(kv ...string) url.Values {
		v := url.Values{"page": {"1"}, "page_size": {"10"}, "order_by": {"TIME_CREATED"}, "order": {"DESC"}}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	if got := list(q("name", "James Mason")); fmt.Sprint(got) != fmt.Sprint([]string{james}) {
		t.Errorf("by name: %v, want %v", got, []string{james})
	}
	if got := list(q("name", "a7f3d12b6e9a")); len(got) != 0 {
		t.Errorf("by a random name: %v", got)
	}
	sales := []string{james, swiped, keyed}
	slices.Sort(sales)
	got := list(q("account_name", "transaction_processing", "brand", "VISA", "from_time_created", "2021-03-22"))
	if slices.Sort(got); !slices.Equal(got, sales) {
		t.Errorf("the app's own account and a brand: %v, want the 3 sales %v", got, sales)
	}
	if got := list(q("payment_method", "CARD", "amount", "300")); fmt.Sprint(got) != fmt.Sprint([]string{james}) {
		t.Errorf("payment_method CARD: %v", got)
	}
	for _, query := range []url.Values{
		q("token_first6", "516730", "token_last4", "5507"),
		q("token_first6", "516730", "token_last4", "5507", "payment_method", "DIGITAL WALLET"),
		q("payment_method", "APM"),
	} {
		if got := list(query); len(got) != 0 {
			t.Errorf("%s: %v, want none (the sandbox takes no wallet or APM payments)", query.Encode(), got)
		}
	}

	cases := []struct {
		name  string
		query url.Values
		want  apitest.GPError
	}{
		{"unknown brand", q("from_time_created", "2021-03-01", "brand", "MIT"),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40097", "Invalid Value provided in the input field - brand")},
		{"another app's account", q("from_time_created", "2021-03-01", "account_name", "VWTest"),
			apitest.Err(400, "ACTION_NOT_AUTHORIZED", "40003", "Token does not match account_id or account_name in the request")},
		{"token filters with payment_method CARD", q("token_first6", "516730", "token_last4", "5507", "payment_method", "CARD"),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40043", "Request contains unexpected fields: payment_method")},
		{"unknown payment_method", q("payment_method", "CASH"),
			apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "payment_method contains unexpected data")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := env.Do("GET", "/transactions?"+tc.query.Encode(), apitest.APIHeader(tok), "")
			if got := r.GPError(t); got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// GP's transaction detail and list show the card's first six and last four digits
// with an X for each digit between, as long as the number: the SDKs' transaction
// summary mappers read it. A payment's own answer shows the last four only.
func TestTransactionDetailShowsFirst6Last4(t *testing.T) {
	env := mustSandbox(t)
	tok := env.PartnerToken()
	for number, want := range map[string]string{
		"4263970000005262": "426397XXXXXX5262", // 16 digits
		"374101000000608":  "374101XXXXX0608",  // 15 digits (AMEX)
	} {
		cvv := "123"
		if len(number) == 15 {
			cvv = "1234"
		}
		sale := env.MustCharge(tok, apitest.SaleBody("1000", "AUTO", `{"number":"`+number+`","expiry_month":"12","expiry_year":"30","cvv":"`+cvv+`"}`))
		if got := field(sale, "payment_method", "card", "masked_number_first6last4"); got != nil {
			t.Errorf("%s: the sale's answer shows %v", number, got)
		}
		id := sale["id"].(string)
		detail := env.Do("GET", "/transactions/"+id, apitest.APIHeader(tok), "").JSON(t)
		if got := field(detail, "payment_method", "card", "masked_number_first6last4"); got != want {
			t.Errorf("%s: detail shows %v, want %s", number, got, want)
		}
		list := env.Do("GET", "/transactions?id="+id, apitest.APIHeader(tok), "").JSON(t)
		items, _ := list["transactions"].([]any)
		if len(items) != 1 {
			t.Fatalf("%s: listed %v", number, list)
		}
		if got := field(items[0].(map[string]any), "payment_method", "card", "masked_number_first6last4"); got != want {
			t.Errorf("%s: list shows %v, want %s", number, got, want)
		}
	}
}
