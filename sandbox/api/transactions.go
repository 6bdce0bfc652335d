package api

import (
	"unicode/utf8"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// entryModes are payment_method.entry_mode values the SDKs send [GP].
var entryModes = []string{
	"MOTO", "ECOM", "IN_APP", "CHIP", "SWIPE", "MANUAL", "CONTACTLESS_CHIP", "CONTACTLESS_SWIPE", "PHONE", "MAIL",
}

// cardFields is payment_method.card as the SDKs send it for every entry mode: manual
// number and expiry, track data, EMV tag, PIN block, chip condition, funding.
var cardFields = []Field{
	Digits("number", 19),
	Digits("expiry_month", 2),
	{name: "expiry_year", kind: kDigits, min: 2, max: 4},
	Text("cvv", 10), // its length is judged with the card's brand: 40085
	Enum("cvv_indicator", "PRESENT", "ILLEGIBLE", "NOT_ON_CARD", "NOT_PRESENT"),
	Text("avs_address", 100),
	Text("avs_postal_code", 20),
	// A track in clear is at most 300 characters; an encrypted one (with
	// payment_method.encryption, or an E3 envelope) up to 2048 [SB]: cardRequestBody.check.
	Text("track", maxEncryptedTrack),
	{name: "tag", kind: kHex, min: 2, max: 4096},
	// Java's keyed and track paths send its enum's own names; see chipCondition.
	Enum("chip_condition", "PREV_SUCCESS", "PREV_FAILED", "CHIP_FAILED_PREV_SUCCESS", "CHIP_FAILED_PREV_FAILED", "UNKNOWN"),
	{name: "pin_block", kind: kHex, min: 16, max: 64},
	Enum("funding", "CREDIT", "DEBIT"),
	Text("brand_reference", 100),
	Text("authcode", 20),
	// PHP sends the card type it guessed from the number (VISA, MC, AMEX, DISC...) with
	// every keyed card; GP names the brand from the number itself [SB: not cross-checked].
	Text("brand", 20),
	ignored("track_number"), // Java: which track an encrypted track is (1, 2)
	ignored("category"),     // Java: commercial card type (CORPORATE, PURCHASING...)
}

// The longest track in clear and encrypted [SB]: tracks 1 and 2 together are under
// 200 characters; ciphertext and an E3 envelope are longer than the tracks they hold.
const (
	maxClearTrack     = 300
	maxEncryptedTrack = 2048
)

// encryptionFields is payment_method.encryption of an encrypted track (Java, .NET,
// PHP): the sandbox records version and type; the KSN or KTB in info is not kept.
var encryptionFields = []Field{
	{name: "version", kind: kDigits, min: 2, max: 2},
	Enum("method", "KSN", "KTB", "KBT"), // PHP spells KTB as KBT
	Text("info", 200),
	Enum("type", "BINARY", "ASCII"), // Java only
}

// paymentMethodFields is payment_method of a card request: a card, or a stored
// payment method by id (a token sale).
var paymentMethodFields = Field{name: "payment_method", kind: kObject, required: true, fields: []Field{
	{name: "entry_mode", kind: kEnum, enum: entryModes, required: true},
	Text("id", 100), // its form is judged in paymentMethodBody.check: 40213 naming the id
	Text("name", 100),
	Text("narrative", 100),
	Enum("fingerprint_mode", "ALWAYS", "ON_SUCCESS"),
	Enum("storage_mode", "ALWAYS", "ON_SUCCESS"),
	{name: "card", kind: kObject, fields: cardFields}, // required without id: check
	{name: "encryption", kind: kObject, fields: encryptionFields},
	ignored("first_name"),     // Java payer details, PHP customer data
	ignored("last_name"),      // Java payer details, PHP customer data
	ignored("usage_mode"),     // PHP's DTO, usually null
	ignored("authentication"), // all SDKs with 3DS (CNP only)
}}

// storedCredentialFields is what the SDKs send for stored credentials: initiator,
// model and sequence go together (storedCredential.check).
var storedCredentialFields = []Field{
	Enum("initiator", "MERCHANT", "PAYER"),
	{name: "stored_credential", kind: kObject, fields: []Field{
		Enum("model", "UNSCHEDULED", "RECURRING", "INSTALLMENT", "SUBSCRIPTION"),
		Enum("reason", "INCREMENTAL", "RESUBMISSION", "REAUTHORIZATION", "DELAYED", "NO_SHOW"),
		Enum("sequence", "FIRST", "SUBSEQUENT", "LAST"),
		ignored("contract_reference"), // Java, .NET; PHP for MXN in MX
	}},
}

// createTransaction is POST /transactions and its partner form: a sale, an
// authorization or a standalone refund.
var createTransaction = operation{
	op:            sandbox.OpTransaction,
	authenticated: true,
	pathIDs:       []string{"merchant_id"},
	body: append([]Field{
		Text("account_name", 100),
		Text("account_id", 50),
		{name: "channel", kind: kEnum, enum: []string{sandbox.ChannelCP, sandbox.ChannelCNP}, required: true},
		{name: "type", kind: kEnum, enum: []string{sandbox.TypeSale, sandbox.TypeRefund}},
		Enum("capture_mode", sandbox.CaptureAuto, sandbox.CaptureLater, sandbox.CaptureMultiple),
		Enum("authorization_mode", "PARTIAL", "WHOLE"),
		{name: "amount", kind: kDigits, min: 1, max: 50, required: true},
		{name: "currency", kind: kString, min: 3, max: 3, required: true},
		{name: "country", kind: kString, min: 2, max: 2},
		Text("reference", 100),
		Text("description", 255),
		{name: "order", kind: kObject, fields: []Field{
			Text("reference", 100),
			// Java's commercial (Level II) data, and Visa AFT data from Java, PHP, Node.
			ignored("taxes"), ignored("local_tax_percentage"), ignored("buyer_recipient_name"),
			ignored("state_tax_id_reference"), ignored("merchant_tax_id_reference"), ignored("supplementary_data"),
		}},
		Digits("gratuity_amount", 50),
		Digits("surcharge_amount", 50),
		Digits("convenience_amount", 50),
		Digits("cashback_amount", 50),
		Text("ip_address", 50),
		Text("merchant_category", 50),
		Enum("masked", "YES", "NO"),
		paymentMethodFields,
		currencyConversion,
		ignored("payer"),                 // PHP always (id), .NET with a customer id, Java's Level II payer
		ignored("risk_assessment"),       // all SDKs with a fraud filter
		ignored("link"),                  // all SDKs with a pay-by-link id
		ignored("tax_amount"),            // Java commercial data
		ignored("tax_mode"),              // Java commercial data
		ignored("purchase_order_number"), // Java commercial data
		ignored("installment"),           // Java, .NET, PHP; not card-present
	}, storedCredentialFields...),
	handler: handle(func(s *Server, c *call, req transactionBody) (any, error) {
		if err := req.check(); err != nil {
			return nil, err
		}
		t, err := s.svc.CreateTransaction(c.caller, req.domain(c))
		if err != nil {
			return nil, err
		}
		s.noteDuplicate(c.r, t)
		return newTransactionView(t), nil
	}),
}

// verification is POST /verifications: a card check without funds.
var verification = operation{
	op:            sandbox.OpVerification,
	authenticated: true,
	pathIDs:       []string{"merchant_id"},
	body: append([]Field{
		Text("account_name", 100),
		Text("account_id", 50),
		{name: "channel", kind: kEnum, enum: []string{sandbox.ChannelCP, sandbox.ChannelCNP}, required: true},
		{name: "currency", kind: kString, min: 3, max: 3, required: true},
		{name: "country", kind: kString, min: 2, max: 2},
		Text("reference", 100),
		paymentMethodFields,
		ignored("fingerprint_mode"), // Java and .NET on track verifications, beside payment_method's
	}, storedCredentialFields...),
	handler: handle(func(s *Server, c *call, req cardRequestBody) (any, error) {
		if err := req.check(); err != nil {
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
	StoredCredential *struct {
		Model    string `json:"model"`
		Reason   string `json:"reason"`
		Sequence string `json:"sequence"`
	} `json:"stored_credential"`
}

// check judges what the field table cannot: a card or a payment method id, a
// well-formed id, and a stored credential's initiator, model and sequence together
// (GP's 40007 names all three whichever is missing).
func (b cardRequestBody) check() error {
	pm := b.PaymentMethod
	switch {
	case pm.ID != "" && !sandbox.ValidPaymentMethodID(pm.ID):
		return sandbox.InvalidPaymentMethodID(pm.ID)
	case pm.ID == "" && pm.Card == nil:
		return sandbox.MissingFields("payment_method.card")
	case pm.Card != nil && utf8.RuneCountInString(pm.Card.Track) > maxClearTrack && !sandbox.EncryptedTrack(pm.Card.Track, pm.Encryption != nil):
		return sandbox.InvalidField("payment_method.card.track")
	}
	if b.Initiator == "" && b.StoredCredential == nil {
		return nil
	}
	if sc := b.StoredCredential; b.Initiator == "" || sc == nil || sc.Model == "" || sc.Sequence == "" {
		return sandbox.ConditionalFieldsMissing("initiator, model and sequence")
	}
	return nil
}

type paymentMethodBody struct {
	EntryMode       string `json:"entry_mode"`
	ID              string `json:"id"`
	Name            string `json:"name"`
	Narrative       string `json:"narrative"`
	FingerprintMode string `json:"fingerprint_mode"`
	StorageMode     string `json:"storage_mode"`
	Encryption      *struct {
		Version string `json:"version"`
		Method  string `json:"method"`
		Info    string `json:"info"`
		Type    string `json:"type"`
	} `json:"encryption"`
	Card *struct {
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
	} `json:"card"`
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
	currencyConversionBody
}

// domain converts a checked body into the domain's request. Card data travels only
// inside it and is never stored as sent (see sandbox.CardInput).
func (b transactionBody) domain(c *call) sandbox.TransactionRequest {
	req := sandbox.TransactionRequest{
		MerchantID: c.vars["merchant_id"], AccountID: b.AccountID, AccountName: b.AccountName,
		Channel: b.Channel, Type: b.Type, CaptureMode: b.CaptureMode,
		Amount: b.Amount, Currency: b.Currency, Country: b.Country,
		Reference: b.Reference, GratuityAmount: b.GratuityAmount, SurchargeAmount: b.SurchargeAmount,
		TokenID: b.PaymentMethod.ID,
		Version: c.version, Idempotency: c.idem, IssuerResult: c.issuer, RefuseDuplicate: c.refuseDuplicate,
		Card: sandbox.CardInput{EntryMode: b.PaymentMethod.EntryMode, Name: b.PaymentMethod.Name},
	}
	if card := b.PaymentMethod.Card; card != nil {
		in := &req.Card
		in.Number, in.ExpiryMonth, in.ExpiryYear, in.CVV = card.Number, card.ExpiryMonth, card.ExpiryYear, card.CVV
		in.Track, in.Tag, in.PINBlock, in.ChipCondition = card.Track, card.Tag, card.PINBlock, chipCondition(card.ChipCondition)
		in.Funding, in.Authcode = card.Funding, card.Authcode
		in.Encrypted = b.PaymentMethod.Encryption != nil
	}
	if e := b.PaymentMethod.Encryption; e != nil {
		req.Encryption = &sandbox.Encryption{Version: e.Version, Type: e.Type} // never the KSN or KTB
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

// chipCondition is GP's name for a chip condition: Java sends its enum's own names
// on keyed cards and UNKNOWN on tracks, which GP reads as none.
func chipCondition(v string) string {
	switch v {
	case "CHIP_FAILED_PREV_SUCCESS":
		return "PREV_SUCCESS"
	case "CHIP_FAILED_PREV_FAILED":
		return "PREV_FAILED"
	case "UNKNOWN":
		return ""
	}
	return v
}

// getTransaction is GET /transactions/{id}.
var getTransaction = operation{
	op:            sandbox.OpTransactionDetail,
	authenticated: true,
	pathIDs:       []string{"merchant_id", "id"},
	bodyOptional:  true,
	handler: handle(func(s *Server, c *call, _ noBody) (any, error) {
		// GP names the path under its /ucp base, which the sandbox's canonical path
		// has dropped; asked at the root, the answer is the same [SB].
		t, err := s.svc.GetTransaction(c.caller, c.vars["merchant_id"], c.vars["id"], "/ucp"+c.r.URL.EscapedPath())
		if err != nil {
			return nil, err
		}
		return newTransactionDetailView(t), nil
	}),
}
