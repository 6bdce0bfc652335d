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
	handler:       handle(adjust),
}

// adjustmentRequest is an adjustment body.
type adjustmentRequest struct {
	Amount         string          `json:"amount" gp:"digits,max=50"`
	GratuityAmount string          `json:"gratuity_amount" gp:"digits,max=50"`
	PaymentMethod  chipDataRequest `json:"payment_method"`
}

// chipDataRequest is the payment_method of a card's EMV data sent again (an
// adjustment, PHP's capture). Java and .NET send {"card":{}} when there is no tag: an
// empty block decodes to an empty tag, which is absent, not an error.
type chipDataRequest struct {
	Card struct {
		Tag string `json:"tag" gp:"hex,min=2,max=4096"`
	} `json:"card"`
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
