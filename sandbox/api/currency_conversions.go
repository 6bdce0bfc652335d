package api

import (
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// currencyConversion is POST /currency-conversions and its partner form: a DCC rate
// looked up for a card and an amount (the SDKs' getDccRate) [GP].
var currencyConversion = operation{
	op:            sandbox.OpCurrencyConversion,
	authenticated: true,
	pathIDs:       []string{"merchant_id"},
	handler: handle(func(s *Server, c *call, req rateLookupBody) (any, error) {
		if err := req.check(); err != nil {
			return nil, err
		}
		card := req.transaction().domain(c).Card
		r, err := s.svc.LookUpRate(c.caller, sandbox.RateLookupRequest{
			MerchantID: c.vars["merchant_id"], AccountID: req.AccountID, AccountName: req.AccountName,
			Channel: req.Channel, Amount: req.Amount, Currency: req.Currency, Country: req.Country,
			Reference: req.Reference, Card: card, TokenID: req.PaymentMethod.ID, Idempotency: c.idem, Scripted: c.rate,
		})
		if err != nil {
			return nil, err
		}
		return newRateLookupView(r), nil
	}),
}

// rateLookupBody is a POST /currency-conversions body, as PHP, Java, .NET and Node
// build it: the transaction processing account, channel, amount, currency, country,
// reference and the card (or a token). Amount and currency are checked by the
// handler, after the body's shape, in GP's spelling of the missing member: an empty
// one, as Node sends it, is missing (its DccCardNotPresent test expects 40005).
type rateLookupBody struct {
	accountBody
	Channel       string            `json:"channel" gp:"enum=CP|CNP"`
	Amount        string            `json:"amount" gp:"digits,min=0,max=50"` // Node sends "" when given none
	Currency      string            `json:"currency" gp:"currency,min=0"`
	Country       string            `json:"country" gp:"country"`
	Reference     string            `json:"reference" gp:"max=100"`
	PaymentMethod paymentMethodBody `json:"payment_method" gp:"required"`
	Payer         web.Ignored       `json:"payer"` // PHP's DTO
}

// check refuses what the tags cannot say: GP names a missing amount or currency
// after a colon (": amount") [GP], and a card request's own rules.
func (b rateLookupBody) check() error {
	switch {
	case b.Amount == "":
		return sandbox.MissingFields(": amount")
	case b.Currency == "":
		return sandbox.MissingFields(": currency")
	case len(b.Currency) != 3:
		return sandbox.InvalidField("currency")
	}
	return checkCardRequest(b.PaymentMethod, storedCredentialBody{})
}

// transaction is the lookup as the transaction body whose card members it shares.
func (b rateLookupBody) transaction() transactionBody {
	return transactionBody{accountBody: b.accountBody, Channel: b.Channel, PaymentMethod: b.PaymentMethod}
}

// rateLookupView is the answer of a rate lookup: GP's resource, its action
// RATE_LOOKUP, which the SDKs' mappers look for [GP].
type rateLookupView struct {
	ID          string `json:"id"`
	TimeCreated string `json:"time_created"`
	Status      string `json:"status"`
	Channel     string `json:"channel"`
	MoneyView
	Reference string `json:"reference"`
	merchantAccountView
	sandbox.ConversionFigures
	Action actionView `json:"action"`
}

func (v rateLookupView) resourceID() string { return v.ID }

func newRateLookupView(r sandbox.RateLookup) rateLookupView {
	figures := r.ConvertAt(r.Amount).ConversionFigures
	if r.Status != sandbox.RateAvailable {
		figures = sandbox.ConversionFigures{} // nothing converted: the SDKs read no payer amount [GP]
	}
	return rateLookupView{
		ID: r.ID, TimeCreated: sandbox.FormatTime(r.TimeCreated), Status: r.Status, Channel: r.Channel,
		MoneyView: MoneyView{Amount: r.Amount, Currency: r.Currency, Country: r.Country}, Reference: r.Reference,
		merchantAccountView: merchantAccountView(r.Holder),
		ConversionFigures:   figures, Action: newActionView(r.Action),
	}
}

// conversionView is a payment's currency_conversion: the rate it named, and its own
// amount converted at it.
type conversionView struct {
	ID       string `json:"id"`
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
	sandbox.ConversionFigures
}

func newConversionView(c *sandbox.Conversion) *conversionView {
	if c == nil {
		return nil
	}
	return &conversionView{ID: c.ID, Amount: c.Amount, Currency: c.Currency, ConversionFigures: c.ConversionFigures}
}
