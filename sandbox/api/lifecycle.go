package api

import (
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// The lifecycle of an existing transaction: POST /transactions/{id}/<operation> and
// the partner form. What each may do in which status is the domain's state table.

var currencyConversion = field{name: "currency_conversion", kind: kObject, fields: []field{text("id", 50)}}

var captureOp = lifecycleOperation[captureBody](sandbox.OpCapture,
	digits("amount", 50),
	digits("gratuity", 50),        // the Node SDK's name
	digits("gratuity_amount", 50), // the name of the resource's field
	currencyConversion,
)

var refundOp = lifecycleOperation[refundBody](sandbox.OpRefund, digits("amount", 50), text("currency", 3), currencyConversion)

// wholeAmount is the amount of a reversal or reauthorization: the Node SDK's
// reverse() and reauthorized() without an amount send "amount":"", which GP reads as
// the whole amount, like no amount at all.
var wholeAmount = field{name: "amount", kind: kDigits, max: 50}

var reversalOp = lifecycleOperation[refundBody](sandbox.OpReversal, wholeAmount, text("currency", 3), currencyConversion)

var reauthorizationOp = lifecycleOperation[reauthorizationBody](sandbox.OpReauthorization, wholeAmount, text("description", 255))

// chargeItemFields is one lodging charge item as the SDKs send it.
var chargeItemFields = []field{
	{name: "types", kind: kArray, elem: kEnum, max: 10,
		enum: []string{"RESTAURANT", "GIFT_SHOP", "MINI_BAR", "PHONE", "LAUNDRY", "OTHER", "NO_SHOW"}},
	text("reference", 100),
	digits("total_amount", 50),
	{name: "payment_method_program_codes", kind: kArray, elem: kEnum, max: 10,
		enum: []string{"ASSURED_RESERVATION", "CARD_DEPOSIT", "PURCHASE", "OTHER"}},
}

var incrementalOp = lifecycleOperation[incrementalBody](sandbox.OpIncremental,
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

// lifecycleBody is the typed request of one lifecycle operation: it says what of the
// domain's request its body fills.
type lifecycleBody interface {
	fill(req *sandbox.LifecycleRequest) error
}

// lifecycleOperation declares a lifecycle operation whose body decodes into B.
func lifecycleOperation[B lifecycleBody](op sandbox.Operation, body ...field) operation {
	return operation{
		op:            op,
		authenticated: true,
		pathIDs:       []string{"merchant_id", "id"},
		body:          body,
		handler: handle(func(s *Server, c *call, b B) (any, error) {
			req := sandbox.LifecycleRequest{
				Operation: op, TransactionID: c.vars["id"], MerchantID: c.vars["merchant_id"],
				Version: c.version, Idempotency: c.idem,
			}
			if err := b.fill(&req); err != nil {
				return nil, err
			}
			t, err := s.svc.ChangeTransaction(c.caller, req)
			if err != nil {
				return nil, err
			}
			return newTransactionView(t), nil
		}),
	}
}

type currencyConversionBody struct {
	CurrencyConversion struct {
		ID string `json:"id"`
	} `json:"currency_conversion"`
}

type captureBody struct {
	currencyConversionBody
	Amount         string `json:"amount"`
	Gratuity       string `json:"gratuity"`
	GratuityAmount string `json:"gratuity_amount"`
}

func (b captureBody) fill(req *sandbox.LifecycleRequest) error {
	req.Amount, req.GratuityAmount = b.Amount, b.GratuityAmount
	if b.Gratuity != "" {
		req.GratuityAmount = b.Gratuity
	}
	return nil
}

// amountBody is the amount of a body whose other members the domain does not use:
// its fill is theirs.
type amountBody struct {
	Amount string `json:"amount"`
}

func (b amountBody) fill(req *sandbox.LifecycleRequest) error {
	req.Amount = b.Amount
	return nil
}

// refundBody is the body of a refund and of a reversal.
type refundBody struct {
	currencyConversionBody
	amountBody
	Currency string `json:"currency"`
}

type reauthorizationBody struct {
	amountBody
	Description string `json:"description"`
}

type incrementalBody struct {
	Amount   string       `json:"amount"`
	Currency string       `json:"currency"`
	Lodging  *lodgingBody `json:"lodging"`
}

type lodgingBody struct {
	BookingReference string           `json:"booking_reference"`
	DurationDays     count            `json:"duration_days"`
	DateCheckedIn    string           `json:"date_checked_in"`
	DateCheckedOut   string           `json:"date_checked_out"`
	DailyRateAmount  string           `json:"daily_rate_amount"`
	ChargeItems      []chargeItemBody `json:"charge_items"`
	DottedItems      []chargeItemBody `json:"lodging.charge_items"` // the Node SDK's name
}

// chargeItemBody converts to sandbox.LodgingItem: the same members in the same order.
type chargeItemBody struct {
	Types        []string `json:"types"`
	Reference    string   `json:"reference"`
	TotalAmount  string   `json:"total_amount"`
	ProgramCodes []string `json:"payment_method_program_codes"`
}

func (b incrementalBody) fill(req *sandbox.LifecycleRequest) error {
	req.Amount = b.Amount
	if b.Lodging == nil {
		return nil
	}
	l, err := b.Lodging.domain()
	req.Lodging = &l
	return err
}

// domain converts checked lodging data: dates are YYYY-MM-DD and the stay does not
// end before it starts [SB].
func (b lodgingBody) domain() (sandbox.Lodging, error) {
	l := sandbox.Lodging{
		BookingReference: b.BookingReference, DurationDays: int(b.DurationDays),
		CheckedIn: b.DateCheckedIn, CheckedOut: b.DateCheckedOut, DailyRateAmount: b.DailyRateAmount,
	}
	in, inErr := time.Parse(time.DateOnly, l.CheckedIn)
	out, outErr := time.Parse(time.DateOnly, l.CheckedOut)
	switch {
	case l.CheckedIn != "" && inErr != nil:
		return l, sandbox.InvalidField("lodging.date_checked_in")
	case l.CheckedOut != "" && (outErr != nil || (inErr == nil && out.Before(in))):
		return l, sandbox.InvalidField("lodging.date_checked_out")
	}
	for _, items := range [][]chargeItemBody{b.ChargeItems, b.DottedItems} {
		for _, it := range items {
			l.ChargeItems = append(l.ChargeItems, sandbox.LodgingItem(it))
		}
	}
	return l, nil
}
