package api

import (
	"cmp"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// The lifecycle of an existing transaction: POST /transactions/{id}/<operation> and
// the partner form. What each may do in which status is the domain's state table.

var (
	captureOp         = lifecycleOperation[captureBody](sandbox.OpCapture)
	refundOp          = lifecycleOperation[refundBody](sandbox.OpRefund)
	reversalOp        = lifecycleOperation[reversalBody](sandbox.OpReversal)
	reauthorizationOp = lifecycleOperation[reauthorizationBody](sandbox.OpReauthorization)
	incrementalOp     = lifecycleOperation[incrementalBody](sandbox.OpIncremental)
)

// lifecycleBody is the typed request of one lifecycle operation: it says what of the
// domain's request its body fills.
type lifecycleBody interface {
	fill(req *sandbox.LifecycleRequest) error
}

// lifecycleOperation declares a lifecycle operation whose body decodes into B.
func lifecycleOperation[B lifecycleBody](op sandbox.Operation) operation {
	return operation{
		op:            op,
		authenticated: true,
		pathIDs:       []string{"merchant_id", "id"},
		handler: handle(func(s *Server, c *call, b B) (any, error) {
			req := sandbox.LifecycleRequest{
				Operation: op, TransactionID: c.vars["id"], MerchantID: c.vars["merchant_id"],
				Version: c.version, Idempotency: c.idem,
			}
			if err := b.fill(&req); err != nil {
				return nil, err
			}
			if conv, ok := any(b).(interface{ rateID() string }); ok {
				req.RateID = conv.rateID()
			}
			t, err := s.svc.ChangeTransaction(c.caller, req)
			if err != nil {
				return nil, err
			}
			return newTransactionView(t), nil
		}),
	}
}

// currencyConversionBody is the DCC rate id: {"id": ...} from every SDK, the bare id
// from .NET on capture and reversal. The payment echoes its amount converted at it.
type currencyConversionBody struct {
	CurrencyConversion struct {
		ID string `json:"id" gp:"max=50"`
	} `json:"currency_conversion" gp:"or-id"`
}

func (b currencyConversionBody) rateID() string { return b.CurrencyConversion.ID }

type captureBody struct {
	Amount         string `json:"amount" gp:"digits,max=50"`
	Gratuity       string `json:"gratuity" gp:"digits,max=50"`        // the Node and PHP SDKs' name
	GratuityAmount string `json:"gratuity_amount" gp:"digits,max=50"` // the name of the resource's field
	currencyConversionBody
	Lodging           *lodgingBody `json:"lodging"`             // PHP
	CaptureSequence   web.Ignored  `json:"capture_sequence"`    // PHP multi-capture (FIRST, SUBSEQUENT, LAST)
	TotalCaptureCount web.Ignored  `json:"total_capture_count"` // PHP multi-capture
	Description       web.Ignored  `json:"description"`         // .NET
	// PHP sends the chip's EMV data again; the sandbox keeps the sale's.
	PaymentMethod chipDataRequest `json:"payment_method"`
}

func (b captureBody) fill(req *sandbox.LifecycleRequest) error {
	req.Amount, req.GratuityAmount = b.Amount, b.GratuityAmount
	if b.Gratuity != "" {
		req.GratuityAmount = b.Gratuity
	}
	return fillLodging(req, b.Lodging)
}

// amountBody is the amount of a body whose other members the domain does not use:
// its fill is theirs.
type amountBody struct {
	Amount string `json:"amount" gp:"digits,max=50"`
}

func (b amountBody) fill(req *sandbox.LifecycleRequest) error {
	req.Amount = b.Amount
	return nil
}

// wholeAmountBody is the amount of a reversal or reauthorization: the Node SDK's
// reverse() and reauthorized() without an amount send "amount":"", which GP reads as
// the whole amount, like no amount at all.
type wholeAmountBody struct {
	Amount string `json:"amount" gp:"digits,min=0,max=50"`
}

func (b wholeAmountBody) fill(req *sandbox.LifecycleRequest) error { return amountBody(b).fill(req) }

type refundBody struct {
	amountBody
	Currency string `json:"currency" gp:"currency"`
	currencyConversionBody
	Description web.Ignored `json:"description"` // .NET
}

type reversalBody struct {
	wholeAmountBody
	Currency string `json:"currency" gp:"currency"`
	currencyConversionBody
}

type reauthorizationBody struct {
	wholeAmountBody
	Description string `json:"description" gp:"max=255"`
}

// incrementalBody is an incremental authorization: its lodging data from every SDK.
type incrementalBody struct {
	Amount   string       `json:"amount" gp:"digits,max=50"`
	Currency string       `json:"currency" gp:"currency"`
	Lodging  *lodgingBody `json:"lodging"`
}

// lodgingBody is the lodging data of an incremental authorization (every SDK) and of
// a capture (PHP).
type lodgingBody struct {
	BookingReference string           `json:"booking_reference" gp:"max=100"`
	DurationDays     int              `json:"duration_days" gp:"or-string,min=1,max=99999"`
	DateCheckedIn    string           `json:"date_checked_in" gp:"max=10"`
	DateCheckedOut   string           `json:"date_checked_out" gp:"max=10"`
	DailyRateAmount  string           `json:"daily_rate_amount" gp:"digits,max=50"`
	ChargeItems      []chargeItemBody `json:"charge_items" gp:"max=100"`
	DottedItems      []chargeItemBody `json:"lodging.charge_items" gp:"max=100"` // the Node SDK writes the member with its dotted name
}

// chargeItemBody is one lodging charge item as the SDKs send it: Node and PHP in GP's
// names, Java and .NET in their own property names (GP takes both: their
// IncrementalAuth tests pass), types as one string or an array [GP].
type chargeItemBody struct {
	Types            []string `json:"types" gp:"or-one,max=10,enum=RESTAURANT|GIFT_SHOP|MINI_BAR|PHONE|LAUNDRY|OTHER|NO_SHOW"`
	JavaTypes        []string `json:"Types" gp:"or-one,max=10,enum=RESTAURANT|GIFT_SHOP|MINI_BAR|PHONE|LAUNDRY|OTHER|NO_SHOW"`
	Reference        string   `json:"reference" gp:"max=100"`
	JavaReference    string   `json:"Reference" gp:"max=100"`
	TotalAmount      string   `json:"total_amount" gp:"max=50"` // minor units; Java's TotalAmount is in major units ("13.49")
	JavaTotalAmount  string   `json:"TotalAmount" gp:"max=50"`
	ProgramCodes     []string `json:"payment_method_program_codes" gp:"max=10,enum=ASSURED_RESERVATION|CARD_DEPOSIT|PURCHASE|OTHER"`
	JavaProgramCodes []string `json:"paymentMethodProgramCodes" gp:"max=10,enum=ASSURED_RESERVATION|CARD_DEPOSIT|PURCHASE|OTHER"`
}

// domain is the item in GP's naming. A total is minor units; Java sends its
// TotalAmount in major units ("13.49"), which is converted. path names the items'
// member for an error.
func (b chargeItemBody) domain(path string) (sandbox.LodgingItem, error) {
	it := sandbox.LodgingItem{
		Types:        append([]string(b.Types), b.JavaTypes...),
		Reference:    cmp.Or(b.Reference, b.JavaReference),
		TotalAmount:  cmp.Or(b.TotalAmount, b.JavaTotalAmount),
		ProgramCodes: append(b.ProgramCodes, b.JavaProgramCodes...),
	}
	total, ok := minorUnits(it.TotalAmount)
	if !ok {
		member := "total_amount"
		if b.TotalAmount == "" {
			member = "TotalAmount"
		}
		return it, sandbox.InvalidField(path + "." + member)
	}
	it.TotalAmount = total
	return it, nil
}

// minorUnits reads an amount in minor units ("1349") or in major units with a
// decimal point and at most two decimals ("13.49"); "" stays "".
func minorUnits(s string) (string, bool) {
	whole, frac, decimal := strings.Cut(s, ".")
	if !decimal {
		return s, s == "" || sandbox.AllDigits(s)
	}
	if whole == "" || !sandbox.AllDigits(whole) || len(frac) > 2 || (frac != "" && !sandbox.AllDigits(frac)) {
		return "", false
	}
	return sandbox.NormalizeAmount(whole + (frac + "00")[:2]), true
}

func (b incrementalBody) fill(req *sandbox.LifecycleRequest) error {
	req.Amount = b.Amount
	return fillLodging(req, b.Lodging)
}

func fillLodging(req *sandbox.LifecycleRequest, b *lodgingBody) error {
	if b == nil {
		return nil
	}
	l, err := b.domain()
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
	for i, items := range [][]chargeItemBody{b.ChargeItems, b.DottedItems} {
		path := []string{"lodging.charge_items", "lodging.lodging.charge_items"}[i]
		for _, it := range items {
			item, err := it.domain(path)
			if err != nil {
				return l, err
			}
			l.ChargeItems = append(l.ChargeItems, item)
		}
	}
	return l, nil
}
