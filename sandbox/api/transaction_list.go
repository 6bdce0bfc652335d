package api

import (
	"net/url"
	"reflect"
	"slices"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// listTransactions is GET /transactions and its partner form: the query carries
// paging, ordering and the filters of the SDKs' reporting builders.
var listTransactions = read(sandbox.OpTransactionList, []string{"merchant_id"}, func(s *Server, c *call) (any, error) {
	v, err := web.Query(c.r) // a filter dropped would list everything [SB]
	if err != nil {
		return nil, err
	}
	q, err := transactionQuery(v)
	if err != nil {
		return nil, err
	}
	q.MerchantID = c.vars["merchant_id"]
	page, err := s.svc.ListTransactions(c.caller, q)
	if err != nil {
		return nil, err
	}
	return newTransactionListView(page), nil
})

// Paging defaults and limits [SB].
const (
	defaultPageSize = 5
	maxPageSize     = 1000
)

// transactionQuery reads the query string. A parameter with a value it cannot have
// is 40213 naming it [SB]; parameters the sandbox does not know are ignored, as GP's
// reporting endpoints ignore the SDKs' empty ones.
func transactionQuery(v url.Values) (sandbox.TransactionQuery, error) {
	r := &queryReader{v: v}
	q := sandbox.TransactionQuery{
		Paging: r.paging("TIME_CREATED", "DESC", sandbox.TransactionOrderings...),
		ID:     v.Get("id"), Type: v.Get("type"), Channel: v.Get("channel"), Status: v.Get("status"),
		Amount: v.Get("amount"), Currency: v.Get("currency"), Country: v.Get("country"),
		BatchID: v.Get("batch_id"), EntryMode: v.Get("entry_mode"), Reference: v.Get("reference"),
		AccountName: v.Get("account_name"), Brand: v.Get("brand"), BrandReference: v.Get("brand_reference"),
		Authcode: v.Get("authcode"), NumberFirst6: v.Get("number_first6"), NumberLast4: v.Get("number_last4"),
		Name: v.Get("name"), TokenFirst6: v.Get("token_first6"), TokenLast4: v.Get("token_last4"),
	}
	r.date("from_time_created", &q.From)
	r.date("to_time_created", &q.To)
	r.choice("type", &q.Type, sandbox.TypeSale, sandbox.TypeRefund)
	r.choice("channel", &q.Channel, sandbox.ChannelCP, sandbox.ChannelCNP)
	r.choice("payment_method", &q.PaymentMethod, sandbox.ReportingPaymentMethods...)
	r.choice("status", &q.Status, listedStatuses...)
	r.choice("entry_mode", &q.EntryMode, listedEntryModes...)
	r.shaped("currency", func(s string) bool { return sandbox.CurrencyProblem(s) == "" })
	r.shaped("country", func(s string) bool { return sandbox.CountryProblem(s) == "" })
	r.shaped("amount", sandbox.AllDigits) // minor units
	r.fail(brand(v.Get("brand")))
	r.fail(tokenPaymentMethod(v))
	return q, r.err
}

// listedStatuses are the statuses a list filters by: those the SDKs' reporting
// builders name (Java and PHP TransactionStatus), and the sandbox's verification
// outcomes. A typo (captured) is refused rather than listing nothing [SB].
var listedStatuses = []string{"INITIATED", "AUTHENTICATED", "PENDING", "DECLINED", "PREAUTHORIZED", "CAPTURED",
	"BATCHED", "REVERSED", "FUNDED", "REJECTED", sandbox.StatusVerified, sandbox.StatusNotVerified}

// listedEntryModes are the entry modes a payment may have, as its request takes them.
var listedEntryModes = web.Enum(reflect.TypeFor[paymentMethodBody](), "EntryMode")

// brand refuses a card brand GP does not know with its own tuple (40097) [GP].
func brand(b string) error {
	if b != "" && !slices.Contains(sandbox.ReportingBrands, b) {
		return sandbox.InvalidFilterValue("brand")
	}
	return nil
}

// tokenPaymentMethod: the token filters are a digital wallet's, so with them any
// payment_method but DIGITAL WALLET is unexpected [GP].
func tokenPaymentMethod(v url.Values) error {
	if pm := v.Get("payment_method"); (v.Get("token_first6") != "" || v.Get("token_last4") != "") && pm != "" && pm != "DIGITAL WALLET" {
		return sandbox.UnexpectedFields([]string{"payment_method"})
	}
	return nil
}
