package api

import (
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// listTransactions is GET /transactions and its partner form: the query carries
// paging, ordering and the filters of the SDKs' reporting builders.
var listTransactions = operation{
	op:            sandbox.OpTransactionList,
	authenticated: true,
	pathIDs:       []string{"merchant_id"},
	bodyOptional:  true,
	handler: handle(func(s *Server, c *call, _ noBody) (any, error) {
		q, err := transactionQuery(c.r.URL.Query())
		if err != nil {
			return nil, err
		}
		q.MerchantID = c.vars["merchant_id"]
		page, err := s.svc.ListTransactions(c.caller, q)
		if err != nil {
			return nil, err
		}
		return newTransactionListView(page), nil
	}),
}

// Paging defaults and limits [SB].
const (
	defaultPageSize = 5
	maxPageSize     = 1000
)

// transactionQuery reads the query string. A parameter with a value it cannot have
// is 40213 naming it [SB]; parameters the sandbox does not know are ignored, as GP's
// reporting endpoints ignore the SDKs' empty ones.
func transactionQuery(v url.Values) (sandbox.TransactionQuery, error) {
	q := sandbox.TransactionQuery{
		Page: 1, PageSize: defaultPageSize, OrderBy: "TIME_CREATED", Order: "DESC",
		ID: v.Get("id"), Type: v.Get("type"), Channel: v.Get("channel"), Status: v.Get("status"),
		Amount: v.Get("amount"), Currency: v.Get("currency"), Country: v.Get("country"),
		BatchID: v.Get("batch_id"), EntryMode: v.Get("entry_mode"), Reference: v.Get("reference"),
		AccountName: v.Get("account_name"), Brand: v.Get("brand"), BrandReference: v.Get("brand_reference"),
		Authcode: v.Get("authcode"), NumberFirst6: v.Get("number_first6"), NumberLast4: v.Get("number_last4"),
	}
	number := func(name string, dst *int, max int) error {
		if s := v.Get(name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 || n > max {
				return sandbox.InvalidField(name)
			}
			*dst = n
		}
		return nil
	}
	date := func(name string, dst *time.Time) error {
		if s := v.Get(name); s != "" {
			t, err := time.Parse(time.DateOnly, s)
			if err != nil {
				return sandbox.InvalidField(name)
			}
			*dst = t
		}
		return nil
	}
	choice := func(name string, dst *string, values ...string) error {
		if s := v.Get(name); s != "" {
			if !slices.Contains(values, s) {
				return sandbox.InvalidField(name)
			}
			*dst = s
		}
		return nil
	}
	for _, err := range []error{
		number("page", &q.Page, 1_000_000), number("page_size", &q.PageSize, maxPageSize),
		choice("order_by", &q.OrderBy, sandbox.TransactionOrderings...), choice("order", &q.Order, "ASC", "DESC"),
		date("from_time_created", &q.From), date("to_time_created", &q.To),
		choice("type", &q.Type, sandbox.TypeSale, sandbox.TypeRefund),
		choice("channel", &q.Channel, sandbox.ChannelCP, sandbox.ChannelCNP),
	} {
		if err != nil {
			return q, err
		}
	}
	return q, nil
}

// transactionListView is a page of transactions as GP's reporting answers it.
type transactionListView struct {
	MerchantID       string                   `json:"merchant_id"`
	MerchantName     string                   `json:"merchant_name"`
	AccountID        string                   `json:"account_id"`
	AccountName      string                   `json:"account_name"`
	Paging           pagingView               `json:"paging"`
	TotalRecordCount int                      `json:"total_record_count"`
	CurrentPageSize  int                      `json:"current_page_size"`
	Transactions     []transactionSummaryView `json:"transactions"`
}

type pagingView struct {
	PageSize int    `json:"page_size"`
	Page     int    `json:"page"`
	Order    string `json:"order"`
	OrderBy  string `json:"order_by"`
}

// transactionSummaryView is one transaction of a list: the resource's members, with
// the card as reporting shows it (first six and last four digits).
type transactionSummaryView struct {
	ID               string             `json:"id"`
	TimeCreated      string             `json:"time_created"`
	Type             string             `json:"type"`
	Status           string             `json:"status"`
	Channel          string             `json:"channel"`
	Amount           string             `json:"amount"`
	Currency         string             `json:"currency"`
	Country          string             `json:"country"`
	MerchantID       string             `json:"merchant_id"`
	MerchantName     string             `json:"merchant_name"`
	AccountID        string             `json:"account_id"`
	AccountName      string             `json:"account_name"`
	Reference        string             `json:"reference"`
	ParentResourceID string             `json:"parent_resource_id,omitempty"`
	BatchID          string             `json:"batch_id"`
	PaymentMethod    summaryPaymentView `json:"payment_method"`
}

type summaryPaymentView struct {
	Result    string          `json:"result"`
	Message   string          `json:"message"`
	EntryMode string          `json:"entry_mode"`
	Card      summaryCardView `json:"card"`
}

type summaryCardView struct {
	Brand                   string `json:"brand"`
	MaskedNumberFirst6Last4 string `json:"masked_number_first6last4"`
	Authcode                string `json:"authcode"`
	BrandReference          string `json:"brand_reference"`
}

func newTransactionListView(p sandbox.TransactionPage) transactionListView {
	v := transactionListView{
		MerchantID: p.Merchant.ID, MerchantName: p.Merchant.Name, AccountID: p.Account.ID, AccountName: p.Account.Name,
		Paging:           pagingView{PageSize: p.Query.PageSize, Page: p.Query.Page, Order: p.Query.Order, OrderBy: p.Query.OrderBy},
		TotalRecordCount: p.Total, CurrentPageSize: len(p.Transactions),
		Transactions: make([]transactionSummaryView, 0, len(p.Transactions)),
	}
	for _, t := range p.Transactions {
		masked := ""
		if t.Card.First6 != "" {
			masked = t.Card.First6 + "XXXXXX" + t.Card.Last4
		}
		v.Transactions = append(v.Transactions, transactionSummaryView{
			ID: t.ID, TimeCreated: sandbox.FormatTime(t.TimeCreated), Type: t.Type, Status: t.Status,
			Channel: t.Channel, Amount: t.Amount, Currency: t.Currency, Country: t.Country,
			MerchantID: t.MerchantID, MerchantName: t.MerchantName, AccountID: t.AccountID,
			AccountName: t.AccountName, Reference: t.Reference, ParentResourceID: t.ParentID, BatchID: t.BatchID,
			PaymentMethod: summaryPaymentView{
				Result: t.PaymentMethod.Result, Message: t.PaymentMethod.Message, EntryMode: t.PaymentMethod.EntryMode,
				Card: summaryCardView{
					Brand: t.Card.Brand, MaskedNumberFirst6Last4: masked,
					Authcode: t.PaymentMethod.Card.Authcode, BrandReference: t.PaymentMethod.Card.BrandReference,
				},
			},
		})
	}
	return v
}
