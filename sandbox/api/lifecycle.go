package api

import (
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// The lifecycle of an existing transaction: POST /transactions/{id}/<operation> and
// the partner form. What each may do in which status is the domain's state table.

var currencyConversion = field{name: "currency_conversion", kind: kObject, fields: []field{text("id", 50)}}

var captureOp = lifecycleOperation(sandbox.OpCapture,
	digits("amount", 50),
	digits("gratuity", 50),        // the Node SDK's name
	digits("gratuity_amount", 50), // the name of the resource's field
	currencyConversion,
)

var refundOp = lifecycleOperation(sandbox.OpRefund, digits("amount", 50), text("currency", 3), currencyConversion)

var reversalOp = lifecycleOperation(sandbox.OpReversal, digits("amount", 50), text("currency", 3), currencyConversion)

var reauthorizationOp = lifecycleOperation(sandbox.OpReauthorization, digits("amount", 50), text("description", 255))

// chargeItemFields is one lodging charge item as the SDKs send it.
var chargeItemFields = []field{
	{name: "types", kind: kArray, elem: kEnum, max: 10,
		enum: []string{"RESTAURANT", "GIFT_SHOP", "MINI_BAR", "PHONE", "LAUNDRY", "OTHER", "NO_SHOW"}},
	text("reference", 100),
	digits("total_amount", 50),
	{name: "payment_method_program_codes", kind: kArray, elem: kEnum, max: 10,
		enum: []string{"ASSURED_RESERVATION", "CARD_DEPOSIT", "PURCHASE", "OTHER"}},
}

var incrementalOp = lifecycleOperation(sandbox.OpIncremental,
	digits("amount", 50),
	text("currency", 3),
	field{name: "lodging", kind: kObject, fields: []field{
		text("booking_reference", 100),
		{name: "duration_days", kind: kCount, min: 1, max: 99999},
		text("date_checked_in", 10),
		text("date_checked_out", 10),
		digits("daily_rate_amount", 50),
		{name: "charge_items", kind: kArray, elem: kObject, max: 100, fields: chargeItemFields},
		// The Node SDK writes the member with its dotted name.
		{name: "lodging.charge_items", kind: kArray, elem: kObject, max: 100, fields: chargeItemFields},
	}},
)

func lifecycleOperation(op sandbox.Operation, body ...field) operation {
	return operation{
		op:            op,
		authenticated: true,
		pathIDs:       []string{"merchant_id", "id"},
		body:          body,
		execute: func(s *Server, c *call) (sandbox.Result, error) {
			req, err := lifecycleRequest(op, c)
			if err != nil {
				return sandbox.Result{}, err
			}
			return s.svc.ChangeTransaction(c.caller, req)
		},
	}
}

func lifecycleRequest(op sandbox.Operation, c *call) (sandbox.LifecycleRequest, error) {
	req := sandbox.LifecycleRequest{
		Operation: op, TransactionID: c.vars["id"], MerchantID: c.vars["merchant_id"],
		Amount: str(c.body, "amount"), GratuityAmount: str(c.body, "gratuity_amount"),
		Version: c.version, Idempotency: c.idem,
	}
	if g := str(c.body, "gratuity"); g != "" {
		req.GratuityAmount = g
	}
	if lodging := sub(c.body, "lodging"); lodging != nil {
		l, err := lodgingData(lodging)
		if err != nil {
			return req, err
		}
		req.Lodging = &l
	}
	return req, nil
}

// lodgingData converts checked lodging data: dates are YYYY-MM-DD and the stay does
// not end before it starts [SB].
func lodgingData(o object) (sandbox.Lodging, error) {
	l := sandbox.Lodging{
		BookingReference: str(o, "booking_reference"), DurationDays: num(o, "duration_days"),
		CheckedIn: str(o, "date_checked_in"), CheckedOut: str(o, "date_checked_out"),
		DailyRateAmount: str(o, "daily_rate_amount"),
	}
	in, inErr := time.Parse(time.DateOnly, l.CheckedIn)
	out, outErr := time.Parse(time.DateOnly, l.CheckedOut)
	switch {
	case l.CheckedIn != "" && inErr != nil:
		return l, sandbox.InvalidField("lodging.date_checked_in")
	case l.CheckedOut != "" && (outErr != nil || (inErr == nil && out.Before(in))):
		return l, sandbox.InvalidField("lodging.date_checked_out")
	}
	items := append(list(o, "charge_items"), list(o, "lodging.charge_items")...)
	for _, v := range items {
		it := v.(object)
		item := sandbox.LodgingItem{Reference: str(it, "reference"), TotalAmount: str(it, "total_amount")}
		for _, t := range list(it, "types") {
			item.Types = append(item.Types, t.(string))
		}
		for _, p := range list(it, "payment_method_program_codes") {
			item.ProgramCodes = append(item.ProgramCodes, p.(string))
		}
		l.ChargeItems = append(l.ChargeItems, item)
	}
	return l, nil
}
