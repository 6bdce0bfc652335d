package api

import (
	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// adjustment is POST /transactions/{id}/adjustment and its partner form
// /merchants/{merchant_id}/transactions/{id}/adjustment. Every member is optional
// here: "at least one of amount, gratuity_amount, tag" is judged by the domain once
// the transaction is found, as GP does.
var adjustment = operation{
	op:            sandbox.OpAdjustment,
	authenticated: true,
	pathIDs:       []string{"merchant_id", "id"},
	body: []Field{
		{name: "amount", kind: kDigits, min: 1, max: 50},
		{name: "gratuity_amount", kind: kDigits, min: 1, max: 50},
		{name: "payment_method", kind: kObject, fields: []Field{
			{name: "card", kind: kObject, fields: []Field{
				{name: "tag", kind: kHex, min: 2, max: 4096},
			}},
		}},
	},
	handler: handle(adjust),
}

// adjustmentRequest is a checked adjustment body. Java and .NET send
// {"payment_method":{"card":{}}} when there is no tag: an empty block decodes to an
// empty tag, which is absent, not an error.
type adjustmentRequest struct {
	Amount         string `json:"amount"`
	GratuityAmount string `json:"gratuity_amount"`
	PaymentMethod  struct {
		Card struct {
			Tag string `json:"tag"`
		} `json:"card"`
	} `json:"payment_method"`
}

func adjust(s *Server, c *call, req adjustmentRequest) (any, error) {
	t, err := s.svc.Adjust(c.caller, sandbox.AdjustRequest{
		TransactionID:  c.vars["id"],
		MerchantID:     c.vars["merchant_id"],
		Amount:         req.Amount,
		GratuityAmount: req.GratuityAmount,
		Tag:            req.PaymentMethod.Card.Tag,
		Version:        c.version,
		Idempotency:    c.idem,
	})
	if err != nil {
		return nil, err
	}
	return newTransactionView(t), nil
}
