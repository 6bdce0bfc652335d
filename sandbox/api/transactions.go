package api

import "github.com/gp-sandbox/gp-sandbox/sandbox"

// entryModes are payment_method.entry_mode values the SDKs send [GP].
var entryModes = []string{
	"MOTO", "ECOM", "IN_APP", "CHIP", "SWIPE", "MANUAL", "CONTACTLESS_CHIP", "CONTACTLESS_SWIPE", "PHONE", "MAIL",
}

// cardFields is payment_method.card as the SDKs send it for every entry mode: manual
// number and expiry, track data, EMV tag, PIN block, chip condition, funding.
var cardFields = []field{
	digits("number", 19),
	digits("expiry_month", 2),
	{name: "expiry_year", kind: kDigits, min: 2, max: 4},
	text("cvv", 10), // its length is judged with the card's brand: 40085
	enum("cvv_indicator", "PRESENT", "ILLEGIBLE", "NOT_ON_CARD", "NOT_PRESENT"),
	text("avs_address", 100),
	text("avs_postal_code", 20),
	text("track", 300),
	{name: "tag", kind: kHex, min: 2, max: 4096},
	enum("chip_condition", "PREV_SUCCESS", "PREV_FAILED"),
	{name: "pin_block", kind: kHex, min: 16, max: 64},
	enum("funding", "CREDIT", "DEBIT"),
	text("brand_reference", 100),
	text("authcode", 20),
	text("brand", 20), // PHP sends the brand of a keyed card; the number decides it
}

// paymentMethodFields is payment_method of a card request.
var paymentMethodFields = field{name: "payment_method", kind: kObject, required: true, fields: []field{
	{name: "entry_mode", kind: kEnum, enum: entryModes, required: true},
	text("name", 100),
	text("narrative", 100),
	enum("fingerprint_mode", "ALWAYS", "ON_SUCCESS"),
	enum("storage_mode", "ALWAYS", "ON_SUCCESS"),
	text("id", 50), // a token to charge (PMT_...), instead of or beside the card
	{name: "card", kind: kObject, fields: cardFields},
}}

// storedCredentialFields is what the SDKs send for stored credentials; accepted and
// not used by the sandbox.
var storedCredentialFields = []field{
	enum("initiator", "MERCHANT", "PAYER"),
	{name: "stored_credential", kind: kObject, fields: []field{
		enum("model", "UNSCHEDULED", "RECURRING", "INSTALLMENT", "SUBSCRIPTION"),
		enum("reason", "INCREMENTAL", "RESUBMISSION", "REAUTHORIZATION", "DELAYED", "NO_SHOW"),
		enum("sequence", "FIRST", "SUBSEQUENT", "LAST"),
	}},
}

// createTransaction is POST /transactions and its partner form: a sale, an
// authorization or a standalone refund.
var createTransaction = operation{
	op:            sandbox.OpTransaction,
	authenticated: true,
	pathIDs:       []string{"merchant_id"},
	body: append([]field{
		text("account_name", 100),
		text("account_id", 50),
		{name: "channel", kind: kEnum, enum: []string{sandbox.ChannelCP, sandbox.ChannelCNP}, required: true},
		{name: "type", kind: kEnum, enum: []string{sandbox.TypeSale, sandbox.TypeRefund}},
		enum("capture_mode", sandbox.CaptureAuto, sandbox.CaptureLater, sandbox.CaptureMultiple),
		enum("authorization_mode", "PARTIAL", "WHOLE"),
		{name: "amount", kind: kDigits, min: 1, max: 50, required: true},
		{name: "currency", kind: kString, min: 3, max: 3, required: true},
		{name: "country", kind: kString, min: 2, max: 2},
		text("reference", 100),
		text("description", 255),
		{name: "order", kind: kObject, fields: []field{text("reference", 100)}},
		digits("gratuity_amount", 50),
		digits("surcharge_amount", 50),
		digits("convenience_amount", 50),
		digits("cashback_amount", 50),
		text("ip_address", 50),
		text("merchant_category", 50),
		enum("masked", "YES", "NO"),
		paymentMethodFields,
	}, storedCredentialFields...),
	handler: handle(func(s *Server, c *call, req transactionBody) (any, error) {
		if err := req.PaymentMethod.check(); err != nil {
			return nil, err
		}
		t, err := s.svc.CreateTransaction(c.caller, req.domain(c))
		if err != nil {
			return nil, err
		}
		return newTransactionView(t), nil
	}),
}

// verification is POST /verifications: a card check without funds.
var verification = operation{
	op:            sandbox.OpVerification,
	authenticated: true,
	pathIDs:       []string{"merchant_id"},
	body: append([]field{
		text("account_name", 100),
		text("account_id", 50),
		{name: "channel", kind: kEnum, enum: []string{sandbox.ChannelCP, sandbox.ChannelCNP}, required: true},
		{name: "currency", kind: kString, min: 3, max: 3, required: true},
		{name: "country", kind: kString, min: 2, max: 2},
		text("reference", 100),
		paymentMethodFields,
	}, storedCredentialFields...),
	handler: handle(func(s *Server, c *call, req cardRequestBody) (any, error) {
		if err := req.PaymentMethod.check(); err != nil {
			return nil, err
		}
		t, err := s.svc.Verify(c.caller, transactionBody{cardRequestBody: req}.domain(c))
		if err != nil {
			return nil, err
		}
		return newTransactionView(t), nil
	}),
}

// cardRequestBody is what a transaction and a verification body share.
type cardRequestBody struct {
	AccountName      string            `json:"account_name"`
	AccountID        string            `json:"account_id"`
	Channel          string            `json:"channel"`
	Currency         string            `json:"currency"`
	Country          string            `json:"country"`
	Reference        string            `json:"reference"`
	PaymentMethod    paymentMethodBody `json:"payment_method"`
	Initiator        string            `json:"initiator"`
	StoredCredential struct {
		Model    string `json:"model"`
		Reason   string `json:"reason"`
		Sequence string `json:"sequence"`
	} `json:"stored_credential"`
}

type paymentMethodBody struct {
	EntryMode       string    `json:"entry_mode"`
	Name            string    `json:"name"`
	Narrative       string    `json:"narrative"`
	FingerprintMode string    `json:"fingerprint_mode"`
	StorageMode     string    `json:"storage_mode"`
	ID              string    `json:"id"`
	Card            *cardBody `json:"card"`
}

// cardBody is payment_method.card; absent when a token is charged without a CVV.
type cardBody struct {
	Number         string `json:"number"`
	ExpiryMonth    string `json:"expiry_month"`
	ExpiryYear     string `json:"expiry_year"`
	CVV            string `json:"cvv"`
	CVVIndicator   string `json:"cvv_indicator"`
	AVSAddress     string `json:"avs_address"`
	AVSPostalCode  string `json:"avs_postal_code"`
	Track          string `json:"track"`
	Tag            string `json:"tag"`
	ChipCondition  string `json:"chip_condition"`
	PINBlock       string `json:"pin_block"`
	Funding        string `json:"funding"`
	BrandReference string `json:"brand_reference"`
	Authcode       string `json:"authcode"`
	Brand          string `json:"brand"`
}

// check asks for the card or the token a payment method needs: the card, as GP asks
// for it, when neither is sent; a token id of the wrong shape is 40213 naming it [GP].
func (p paymentMethodBody) check() error {
	switch {
	case p.ID == "" && p.Card == nil:
		return sandbox.MissingFields("payment_method.card")
	case p.ID != "" && !sandbox.ValidPaymentMethodID(p.ID):
		return sandbox.MalformedPaymentMethodID(p.ID)
	}
	return nil
}

// transactionBody is a checked POST /transactions body.
type transactionBody struct {
	cardRequestBody
	Type              string `json:"type"`
	CaptureMode       string `json:"capture_mode"`
	AuthorizationMode string `json:"authorization_mode"`
	Amount            string `json:"amount"`
	Description       string `json:"description"`
	Order             struct {
		Reference string `json:"reference"`
	} `json:"order"`
	GratuityAmount    string `json:"gratuity_amount"`
	SurchargeAmount   string `json:"surcharge_amount"`
	ConvenienceAmount string `json:"convenience_amount"`
	CashbackAmount    string `json:"cashback_amount"`
	IPAddress         string `json:"ip_address"`
	MerchantCategory  string `json:"merchant_category"`
	Masked            string `json:"masked"`
}

// domain converts a checked body into the domain's request. Card data travels only
// inside it and is never stored as sent (see sandbox.CardInput).
func (b transactionBody) domain(c *call) sandbox.TransactionRequest {
	var card cardBody
	if b.PaymentMethod.Card != nil {
		card = *b.PaymentMethod.Card
	}
	req := sandbox.TransactionRequest{
		MerchantID: c.vars["merchant_id"], AccountID: b.AccountID, AccountName: b.AccountName,
		Channel: b.Channel, Type: b.Type, CaptureMode: b.CaptureMode,
		Amount: b.Amount, Currency: b.Currency, Country: b.Country,
		Reference: b.Reference, GratuityAmount: b.GratuityAmount,
		Version: c.version, Idempotency: c.idem, IssuerResult: c.issuer, PaymentMethodID: b.PaymentMethod.ID,
		Card: sandbox.CardInput{
			EntryMode: b.PaymentMethod.EntryMode, Name: b.PaymentMethod.Name,
			Number: card.Number, ExpiryMonth: card.ExpiryMonth, ExpiryYear: card.ExpiryYear, CVV: card.CVV,
			Track: card.Track, Tag: card.Tag, PINBlock: card.PINBlock, ChipCondition: card.ChipCondition,
			Funding: card.Funding, Authcode: card.Authcode,
		},
	}
	if req.Type == "" {
		req.Type = sandbox.TypeSale
	}
	if req.CaptureMode == "" {
		req.CaptureMode = sandbox.CaptureAuto
	}
	if req.Country == "" {
		req.Country = "US" // [SB] the SDKs' default country
	}
	if req.Reference == "" {
		req.Reference = b.Order.Reference
	}
	return req
}

// getTransaction is GET /transactions/{id}.
var getTransaction = operation{
	op:            sandbox.OpTransactionDetail,
	authenticated: true,
	pathIDs:       []string{"merchant_id", "id"},
	bodyOptional:  true,
	handler: handle(func(s *Server, c *call, _ noBody) (any, error) {
		t, err := s.svc.GetTransaction(c.caller, c.vars["merchant_id"], c.vars["id"])
		if err != nil {
			return nil, err
		}
		return newTransactionView(t), nil
	}),
}
