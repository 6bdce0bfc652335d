package api

import (
	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// listPaymentMethods is GET /payment-methods and its partner form: the stored card
// tokens, with GP's filters and paging (the SDKs' findStoredPaymentMethodsPaged) [GP].
var listPaymentMethods = read(sandbox.OpPaymentMethodList, []string{"merchant_id"}, func(s *Server, c *call) (any, error) {
	r, err := newQueryReader(c)
	if err != nil {
		return nil, err
	}
	q := sandbox.PaymentMethodQuery{Paging: r.paging(sandbox.PaymentMethodOrderings[0], "DESC", sandbox.PaymentMethodOrderings...)}
	r.text("id", &q.ID)
	r.text("number_last4", &q.NumberLast4)
	r.text("reference", &q.Reference)
	r.choice("status", &q.Status, sandbox.TokenActive, sandbox.TokenDeleted)
	r.date("from_time_created", &q.From)
	r.date("to_time_created", &q.To)
	r.date("from_time_last_updated", &q.FromUpdated)
	r.date("to_time_last_updated", &q.ToUpdated)
	if r.err != nil {
		return nil, r.err
	}
	page, err := s.svc.ListPaymentMethods(c.caller, c.vars["merchant_id"], q)
	if err != nil {
		return nil, err
	}
	return newPaymentMethodListView(page), nil
})

// searchPaymentMethods is POST /payment-methods/search and its partner form: the
// tokens of one card, which the SDKs' findStoredPaymentMethodsPaged sends when given
// a card (Java, PHP, .NET) [GP]. The answer is the list's.
var searchPaymentMethods = operation{
	op:            sandbox.OpPaymentMethodSearch,
	authenticated: true,
	pathIDs:       []string{"merchant_id"},
	handler: handle(func(s *Server, c *call, req searchPaymentMethodsBody) (any, error) {
		q := sandbox.PaymentMethodQuery{
			Paging:    sandbox.Paging{PageSize: maxPageSize, Page: 1, Order: "DESC", OrderBy: sandbox.PaymentMethodOrderings[0]},
			AccountID: req.AccountID, AccountName: req.AccountName, Reference: req.Reference,
			Card: &sandbox.CardInput{Number: req.Card.Number, ExpiryMonth: req.Card.ExpiryMonth, ExpiryYear: req.Card.ExpiryYear},
		}
		page, err := s.svc.ListPaymentMethods(c.caller, c.vars["merchant_id"], q)
		if err != nil {
			return nil, err
		}
		return newPaymentMethodListView(page), nil
	}),
}

// searchPaymentMethodsBody is a POST /payment-methods/search body: the tokenization
// account, a reference and the card. Its number is required, which the domain says
// in GP's words (": number").
type searchPaymentMethodsBody struct {
	accountBody
	Reference string `json:"reference" gp:"max=100"`
	Card      struct {
		Number      string `json:"number" gp:"digits,max=19"`
		ExpiryMonth string `json:"expiry_month" gp:"digits,max=2"`
		ExpiryYear  string `json:"expiry_year" gp:"digits,max=4"`
	} `json:"card"`
}

// paymentMethodListView is the answer of both: GP's list envelope with its
// payment_methods array [GP].
type paymentMethodListView struct {
	MerchantID   string `json:"merchant_id"`
	MerchantName string `json:"merchant_name"`
	pageHead
	PaymentMethods []paymentMethodSummaryView `json:"payment_methods"`
}

// paymentMethodSummaryView is one token of a list. Its card's number_last4 is the
// last four digits behind twelve x's, as the PHP SDK's test reads it [GP].
type paymentMethodSummaryView struct {
	ID              string           `json:"id"`
	TimeCreated     string           `json:"time_created"`
	TimeLastUpdated string           `json:"time_last_updated"`
	Status          string           `json:"status"`
	UsageMode       string           `json:"usage_mode"`
	Reference       string           `json:"reference"`
	Name            string           `json:"name"`
	Card            summaryTokenCard `json:"card"`
}

type summaryTokenCard struct {
	Brand       string `json:"brand"`
	NumberLast4 string `json:"number_last4"`
	ExpiryMonth string `json:"expiry_month"`
	ExpiryYear  string `json:"expiry_year"`
}

func newPaymentMethodListView(p sandbox.PaymentMethodPage) paymentMethodListView {
	v := paymentMethodListView{
		MerchantID: p.Merchant.ID, MerchantName: p.Merchant.Name,
		pageHead:       newPageHead(p.Query.Paging, p.Total, len(p.PaymentMethods)),
		PaymentMethods: make([]paymentMethodSummaryView, 0, len(p.PaymentMethods)),
	}
	for _, pm := range p.PaymentMethods {
		v.PaymentMethods = append(v.PaymentMethods, paymentMethodSummaryView{
			ID: pm.ID, TimeCreated: sandbox.FormatTime(pm.TimeCreated), TimeLastUpdated: sandbox.FormatTime(pm.TimeLastUpdated),
			Status: pm.Status, UsageMode: pm.UsageMode, Reference: pm.Reference, Name: pm.Name,
			Card: summaryTokenCard{
				Brand: pm.Card.Brand, NumberLast4: "xxxxxxxxxxxx" + pm.Card.Last4,
				ExpiryMonth: pm.ExpiryMonth, ExpiryYear: pm.ExpiryYear,
			},
		})
	}
	return v
}
