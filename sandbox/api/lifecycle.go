package api

import (
	"cmp"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// The lifecycle of an existing transaction: POST /transactions/{id}/<operation> and
// the partner form. What each may do in which status is the domain's state table.

// currencyConversion is the DCC rate id: {"id": ...} from every SDK, the bare id from
// .NET on capture and reversal. Accepted and not used.
var currencyConversion = Field{name: "currency_conversion", kind: kIDOrObject, min: 1, max: 50, fields: []Field{Text("id", 50)}}

var captureOp = lifecycleOperation[captureBody](sandbox.OpCapture,
	Digits("amount", 50),
	Digits("gratuity", 50),        // the Node and PHP SDKs' name
	Digits("gratuity_amount", 50), // the name of the resource's field
	currencyConversion,
	lodgingField,                   // PHP
	ignored("capture_sequence"),    // PHP multi-capture (FIRST, SUBSEQUENT, LAST)
	ignored("total_capture_count"), // PHP multi-capture
	ignored("description"),         // .NET
	// PHP sends the chip's EMV data again; the sandbox keeps the sale's.
	Field{name: "payment_method", kind: kObject, fields: []Field{
		{name: "card", kind: kObject, fields: []Field{{name: "tag", kind: kHex, min: 2, max: 4096}}},
	}},
)

var refundOp = lifecycleOperation[refundBody](sandbox.OpRefund, Digits("amount", 50), Text("currency", 3), currencyConversion,
	ignored("description"), // .NET
)

// wholeAmount is the amount of a reversal or reauthorization: the Node SDK's
// reverse() and reauthorized() without an amount send "amount":"", which GP reads as
// the whole amount, like no amount at all.
var wholeAmount = Field{name: "amount", kind: kDigits, max: 50}

var reversalOp = lifecycleOperation[refundBody](sandbox.OpReversal, wholeAmount, Text("currency", 3), currencyConversion)

var reauthorizationOp = lifecycleOperation[reauthorizationBody](sandbox.OpReauthorization, wholeAmount, Text("description", 255))

// lodgingItemTypes and lodgingProgramCodes are a charge item's values [GP].
var (
	lodgingItemTypes    = []string{"RESTAURANT", "GIFT_SHOP", "MINI_BAR", "PHONE", "LAUNDRY", "OTHER", "NO_SHOW"}
	lodgingProgramCodes = []string{"ASSURED_RESERVATION", "CARD_DEPOSIT", "PURCHASE", "OTHER"}
)

// chargeItemFields is one lodging charge item as the SDKs send it: Node and PHP in
// GP's names, Java and .NET in their own property names (GP takes both: their
// IncrementalAuth tests pass), types as one string or an array.
var chargeItemFields = []Field{
	{name: "types", kind: kOneOrMore, elem: kEnum, max: 10, enum: lodgingItemTypes},
	{name: "Types", kind: kOneOrMore, elem: kEnum, max: 10, enum: lodgingItemTypes}, // Java, .NET
	Text("reference", 100),
	Text("Reference", 100),   // Java, .NET
	Text("total_amount", 50), // minor units; Java's TotalAmount is in major units ("13.49")
	Text("TotalAmount", 50),  // Java, .NET
	{name: "payment_method_program_codes", kind: kArray, elem: kEnum, max: 10, enum: lodgingProgramCodes},
	{name: "paymentMethodProgramCodes", kind: kArray, elem: kEnum, max: 10, enum: lodgingProgramCodes}, // Java, .NET
}

// lodgingField is the lodging data of an incremental authorization (every SDK) and of
// a capture (PHP).
var lodgingField = Field{name: "lodging", kind: kObject, fields: []Field{
	Text("booking_reference", 100),
	{name: "duration_days", kind: kCount, min: 1, max: 99999},
	Text("date_checked_in", 10),
	Text("date_checked_out", 10),
	Digits("daily_rate_amount", 50),
	{name: "charge_items", kind: kArray, elem: kObject, max: 100, fields: chargeItemFields},
	// The Node SDK writes the member with its dotted name.
	{name: "lodging.charge_items", kind: kArray, elem: kObject, max: 100, fields: chargeItemFields},
}}

var incrementalOp = lifecycleOperation[incrementalBody](sandbox.OpIncremental,
	Digits("amount", 50),
	Text("currency", 3),
	lodgingField,
)

// lifecycleBody is the typed request of one lifecycle operation: it says what of the
// domain's request its body fills.
type lifecycleBody interface {
	fill(req *sandbox.LifecycleRequest) error
}

// lifecycleOperation declares a lifecycle operation whose body decodes into B.
func lifecycleOperation[B lifecycleBody](op sandbox.Operation, body ...Field) operation {
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
	CurrencyConversion idOrObject `json:"currency_conversion" gp:"or-id"`
}

type captureBody struct {
	currencyConversionBody
	Amount         string       `json:"amount"`
	Gratuity       string       `json:"gratuity"`
	GratuityAmount string       `json:"gratuity_amount"`
	Lodging        *lodgingBody `json:"lodging"`
	PaymentMethod  struct {
		Card struct {
			Tag string `json:"tag"`
		} `json:"card"`
	} `json:"payment_method"`
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

// chargeItemBody is one charge item in either naming (chargeItemFields).
type chargeItemBody struct {
	Types            oneOrMore `json:"types"`
	JavaTypes        oneOrMore `json:"Types"`
	Reference        string    `json:"reference"`
	JavaReference    string    `json:"Reference"`
	TotalAmount      string    `json:"total_amount"`
	JavaTotalAmount  string    `json:"TotalAmount"`
	ProgramCodes     []string  `json:"payment_method_program_codes"`
	JavaProgramCodes []string  `json:"paymentMethodProgramCodes"`
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
