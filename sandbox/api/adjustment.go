package api

import "github.com/gp-sandbox/gp-sandbox/sandbox"

// adjustment is POST /transactions/{id}/adjustment and its partner form
// /merchants/{merchant_id}/transactions/{id}/adjustment (the wire contract, sandbox/api/README.md §3).
var adjustment = operation{
	op:            sandbox.OpAdjustment,
	authenticated: true,
	pathIDs:       []string{"merchant_id", "id"},
	body: []field{
		{name: "amount", kind: kDigits, min: 1, max: 50},
		{name: "gratuity_amount", kind: kDigits, min: 1, max: 50},
		{name: "payment_method", kind: kObject, fields: []field{
			{name: "card", kind: kObject, fields: []field{
				{name: "tag", kind: kHex, min: 2, max: 4096},
			}},
		}},
	},
	execute: func(s *Server, c *call) (sandbox.Result, error) {
		req := sandbox.AdjustRequest{
			TransactionID:  c.vars["id"],
			MerchantID:     c.vars["merchant_id"],
			Amount:         str(c.body, "amount"),
			GratuityAmount: str(c.body, "gratuity_amount"),
			Tag:            sandbox.MaskEMVData(str(c.body, "payment_method", "card", "tag")),
			Version:        c.version,
			Idempotency:    c.idem,
		}
		// Java and .NET send {"payment_method":{"card":{}}} when there is no tag: an
		// empty block is absent, not an error.
		if req.Amount == "" && req.GratuityAmount == "" && req.Tag == "" {
			return sandbox.Result{}, sandbox.MissingFields("[amount or tag or gratuityAmount]")
		}
		return s.svc.Adjust(c.caller, req)
	},
}
