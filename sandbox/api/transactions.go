package api

import "github.com/gp-sandbox/gp-sandbox/sandbox"

// entryModes are payment_method.entry_mode values the SDKs send [GP].
var entryModes = []string{
	"MOTO", "ECOM", "IN_APP", "CHIP", "SWIPE", "MANUAL", "CONTACTLESS_CHIP", "CONTACTLESS_SWIPE", "PHONE", "MAIL",
}

func digits(name string, max int) field { return field{name: name, kind: kDigits, min: 1, max: max} }

func enum(name string, values ...string) field { return field{name: name, kind: kEnum, enum: values} }

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
}

// paymentMethodFields is payment_method of a card request.
var paymentMethodFields = field{name: "payment_method", kind: kObject, required: true, fields: []field{
	{name: "entry_mode", kind: kEnum, enum: entryModes, required: true},
	text("name", 100),
	text("narrative", 100),
	enum("fingerprint_mode", "ALWAYS", "ON_SUCCESS"),
	enum("storage_mode", "ALWAYS", "ON_SUCCESS"),
	{name: "card", kind: kObject, required: true, fields: cardFields},
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
	execute: func(s *Server, c *call) (sandbox.Result, error) {
		return s.svc.CreateTransaction(c.caller, transactionRequest(c))
	},
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
	execute: func(s *Server, c *call) (sandbox.Result, error) {
		return s.svc.Verify(c.caller, transactionRequest(c))
	},
}

// transactionRequest converts a checked body into the domain's request. Card data
// travels only inside it and is never stored as sent (see sandbox.CardInput).
func transactionRequest(c *call) sandbox.TransactionRequest {
	b := c.body
	req := sandbox.TransactionRequest{
		MerchantID: c.vars["merchant_id"], AccountID: str(b, "account_id"), AccountName: str(b, "account_name"),
		Channel: str(b, "channel"), Type: str(b, "type"), CaptureMode: str(b, "capture_mode"),
		Amount: str(b, "amount"), Currency: str(b, "currency"), Country: str(b, "country"),
		Reference: str(b, "reference"), GratuityAmount: str(b, "gratuity_amount"),
		Version: c.version, Idempotency: c.idem,
		Card: sandbox.CardInput{
			EntryMode: str(b, "payment_method", "entry_mode"), Name: str(b, "payment_method", "name"),
			Number: str(b, "payment_method", "card", "number"), ExpiryMonth: str(b, "payment_method", "card", "expiry_month"),
			ExpiryYear: str(b, "payment_method", "card", "expiry_year"), CVV: str(b, "payment_method", "card", "cvv"),
			Track: str(b, "payment_method", "card", "track"), Tag: str(b, "payment_method", "card", "tag"),
			PINBlock: str(b, "payment_method", "card", "pin_block"), ChipCondition: str(b, "payment_method", "card", "chip_condition"),
			Funding: str(b, "payment_method", "card", "funding"), Authcode: str(b, "payment_method", "card", "authcode"),
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
		req.Reference = str(b, "order", "reference")
	}
	return req
}

// getTransaction is GET /transactions/{id}.
var getTransaction = operation{
	op:            sandbox.OpTransactionDetail,
	authenticated: true,
	pathIDs:       []string{"merchant_id", "id"},
	bodyOptional:  true,
	execute: func(s *Server, c *call) (sandbox.Result, error) {
		return s.svc.GetTransaction(c.caller, c.vars["merchant_id"], c.vars["id"])
	},
}
