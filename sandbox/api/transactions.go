package api

import (
	"unicode/utf8"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// createTransaction is POST /transactions and its partner form: a sale, an
// authorization or a standalone refund.
var createTransaction = operation{
	op:            sandbox.OpTransaction,
	authenticated: true,
	pathIDs:       []string{"merchant_id"},
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
	handler: handle(func(s *Server, c *call, req verificationBody) (any, error) {
		if err := req.check(); err != nil {
			return nil, err
		}
		t, err := s.svc.Verify(c.caller, req.transaction().domain(c))
		if err != nil {
			return nil, err
		}
		return newTransactionView(t), nil
	}),
}

// transactionBody is a POST /transactions body.
type transactionBody struct {
	accountBody
	Channel           string `json:"channel" gp:"required,enum=CP|CNP"`
	Type              string `json:"type" gp:"enum=SALE|REFUND"`
	CaptureMode       string `json:"capture_mode" gp:"enum=AUTO|LATER|MULTIPLE"`
	AuthorizationMode string `json:"authorization_mode" gp:"enum=PARTIAL|WHOLE"`
	Amount            string `json:"amount" gp:"required,digits,max=50"`
	Currency          string `json:"currency" gp:"required,currency"`
	Country           string `json:"country" gp:"country"`
	Reference         string `json:"reference" gp:"max=100"`
	Description       string `json:"description" gp:"max=255"`
	Order             struct {
		Reference string `json:"reference" gp:"max=100"`
		// Java's commercial (Level II) data, and Visa AFT data from Java, PHP, Node.
		Taxes                  web.Ignored `json:"taxes"`
		LocalTaxPercentage     web.Ignored `json:"local_tax_percentage"`
		BuyerRecipientName     web.Ignored `json:"buyer_recipient_name"`
		StateTaxIDReference    web.Ignored `json:"state_tax_id_reference"`
		MerchantTaxIDReference web.Ignored `json:"merchant_tax_id_reference"`
		SupplementaryData      web.Ignored `json:"supplementary_data"`
	} `json:"order"`
	GratuityAmount    string `json:"gratuity_amount" gp:"digits,max=50"`
	SurchargeAmount   string `json:"surcharge_amount" gp:"digits,max=50"`
	ConvenienceAmount string `json:"convenience_amount" gp:"digits,max=50"`
	extraAmountsBody
	IPAddress        string            `json:"ip_address" gp:"max=50"`
	MerchantCategory string            `json:"merchant_category" gp:"max=50"`
	Masked           string            `json:"masked" gp:"enum=YES|NO"`
	PaymentMethod    paymentMethodBody `json:"payment_method" gp:"required"`
	currencyConversionBody
	Payer               web.Ignored `json:"payer"`                 // PHP always (id), .NET with a customer id, Java's Level II payer
	RiskAssessment      web.Ignored `json:"risk_assessment"`       // all SDKs with a fraud filter
	Link                web.Ignored `json:"link"`                  // all SDKs with a pay-by-link id
	TaxAmount           web.Ignored `json:"tax_amount"`            // Java commercial data
	TaxMode             web.Ignored `json:"tax_mode"`              // Java commercial data
	PurchaseOrderNumber web.Ignored `json:"purchase_order_number"` // Java commercial data
	Installment         web.Ignored `json:"installment"`           // Java, .NET, PHP; not card-present
	storedCredentialBody
}

// extraAmountsBody is the request's sandbox.ExtraAmounts: the same members in the same
// order, with their checks, converted whole (domain), so the two cannot drift apart.
type extraAmountsBody struct {
	CashbackAmount string `json:"cashback_amount" gp:"digits,max=50"`
}

// verificationBody is a POST /verifications body.
type verificationBody struct {
	accountBody
	Channel         string            `json:"channel" gp:"required,enum=CP|CNP"`
	Currency        string            `json:"currency" gp:"required,currency"`
	Country         string            `json:"country" gp:"country"`
	Reference       string            `json:"reference" gp:"max=100"`
	PaymentMethod   paymentMethodBody `json:"payment_method" gp:"required"`
	FingerprintMode web.Ignored       `json:"fingerprint_mode"` // Java and .NET on track verifications, beside payment_method's
	storedCredentialBody
}

// transaction is the verification as the transaction body whose members it shares,
// for the domain request both make.
func (b verificationBody) transaction() transactionBody {
	return transactionBody{
		accountBody: b.accountBody, Channel: b.Channel, Currency: b.Currency, Country: b.Country,
		Reference: b.Reference, PaymentMethod: b.PaymentMethod, storedCredentialBody: b.storedCredentialBody,
	}
}

// accountBody names the account a request acts on, by name or id.
type accountBody struct {
	AccountName string `json:"account_name" gp:"max=100"`
	AccountID   string `json:"account_id" gp:"max=50"`
}

// paymentMethodBody is payment_method of a card request: a card, or a stored payment
// method by id (a token sale).
type paymentMethodBody struct {
	EntryMode       string    `json:"entry_mode" gp:"required,enum=MOTO|ECOM|IN_APP|CHIP|SWIPE|MANUAL|CONTACTLESS_CHIP|CONTACTLESS_SWIPE|PHONE|MAIL"`
	ID              string    `json:"id" gp:"max=100"` // its form is judged in check: 40213 naming the id
	Name            string    `json:"name" gp:"max=100"`
	Narrative       string    `json:"narrative" gp:"max=100"`
	FingerprintMode string    `json:"fingerprint_mode" gp:"enum=ALWAYS|ON_SUCCESS,own-name"` // GP's 40213 names it alone (Java and Node tests)
	StorageMode     string    `json:"storage_mode" gp:"enum=ALWAYS|ON_SUCCESS|OFF|PROMPT"`   // .NET's StorageMode has all four
	Card            *cardBody `json:"card"`                                                  // required without id: check
	// An encrypted track's (Java, .NET, PHP): the sandbox records version and type;
	// the KSN or KTB in info is not kept.
	Encryption *struct {
		Version string `json:"version" gp:"digits,min=2,max=2"`
		Method  string `json:"method" gp:"enum=KSN|KTB|KBT"` // PHP spells KTB as KBT
		Info    string `json:"info" gp:"max=200"`
		Type    string `json:"type" gp:"enum=BINARY|ASCII"` // Java only
	} `json:"encryption"`
	FirstName      web.Ignored `json:"first_name"`     // Java payer details, PHP customer data
	LastName       web.Ignored `json:"last_name"`      // Java payer details, PHP customer data
	UsageMode      web.Ignored `json:"usage_mode"`     // PHP's DTO, usually null
	Authentication web.Ignored `json:"authentication"` // all SDKs with 3DS (CNP only)
}

// cardBody is payment_method.card as the SDKs send it for every entry mode: manual
// number and expiry, track data, EMV tag, PIN block, chip condition, funding.
type cardBody struct {
	Number        string `json:"number" gp:"digits,max=19"`
	ExpiryMonth   string `json:"expiry_month" gp:"digits,max=2"`
	ExpiryYear    string `json:"expiry_year" gp:"digits,min=2,max=4"`
	CVV           string `json:"cvv" gp:"max=10"` // its length is judged with the card's brand: 40085
	CVVIndicator  string `json:"cvv_indicator" gp:"enum=PRESENT|ILLEGIBLE|NOT_ON_CARD|NOT_PRESENT"`
	AVSAddress    string `json:"avs_address" gp:"max=100"`
	AVSPostalCode string `json:"avs_postal_code" gp:"max=20"`
	// A track in clear is at most maxClearTrack characters; an encrypted one (with
	// payment_method.encryption, or an E3 envelope) up to 2048 [SB]: check.
	Track string `json:"track" gp:"max=2048"`
	Tag   string `json:"tag" gp:"hex,min=2,max=4096"`
	// Java's keyed and track paths send its enum's own names; see chipCondition.
	ChipCondition  string `json:"chip_condition" gp:"enum=PREV_SUCCESS|PREV_FAILED|CHIP_FAILED_PREV_SUCCESS|CHIP_FAILED_PREV_FAILED|UNKNOWN"`
	PINBlock       string `json:"pin_block" gp:"hex,min=16,max=64"`
	Funding        string `json:"funding" gp:"enum=CREDIT|DEBIT"`
	BrandReference string `json:"brand_reference" gp:"max=100"`
	Authcode       string `json:"authcode" gp:"max=20"`
	// PHP sends the card type it guessed from the number (VISA, MC, AMEX, DISC...) with
	// every keyed card; GP names the brand from the number itself [SB: not cross-checked].
	Brand       string      `json:"brand" gp:"max=20"`
	TrackNumber web.Ignored `json:"track_number"` // Java: which track an encrypted track is (1, 2)
	Category    web.Ignored `json:"category"`     // Java: commercial card type (CORPORATE, PURCHASING...)
}

// The longest track in clear [SB]: tracks 1 and 2 together are under 200 characters;
// ciphertext and an E3 envelope are longer than the tracks they hold (cardBody.Track).
const maxClearTrack = 300

// storedCredentialBody is what the SDKs send for stored credentials: initiator, model
// and sequence go together (check).
type storedCredentialBody struct {
	Initiator        string `json:"initiator" gp:"enum=MERCHANT|PAYER"`
	StoredCredential *struct {
		Model             string      `json:"model" gp:"enum=UNSCHEDULED|RECURRING|INSTALLMENT|SUBSCRIPTION"`
		Reason            string      `json:"reason" gp:"enum=INCREMENTAL|RESUBMISSION|REAUTHORIZATION|DELAYED|NO_SHOW"`
		Sequence          string      `json:"sequence" gp:"enum=FIRST|SUBSEQUENT|LAST"`
		ContractReference web.Ignored `json:"contract_reference"` // Java, .NET; PHP for MXN in MX
	} `json:"stored_credential"`
}

func (b transactionBody) check() error {
	return checkCardRequest(b.PaymentMethod, b.storedCredentialBody)
}
func (b verificationBody) check() error {
	return checkCardRequest(b.PaymentMethod, b.storedCredentialBody)
}

// checkCardRequest judges what the tags cannot: a card or a payment method id, a
// well-formed id, and a stored credential's initiator, model and sequence together
// (GP's 40007 names all three whichever is missing).
func checkCardRequest(pm paymentMethodBody, b storedCredentialBody) error {
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

// domain converts a checked body into the domain's request. Card data travels only
// inside it and is never stored as sent (see sandbox.CardInput).
func (b transactionBody) domain(c *call) sandbox.TransactionRequest {
	req := sandbox.TransactionRequest{
		MerchantID: c.vars["merchant_id"], AccountID: b.AccountID, AccountName: b.AccountName,
		Channel: b.Channel, Type: b.Type, CaptureMode: b.CaptureMode, AuthorizationMode: b.AuthorizationMode,
		Amount: b.Amount, Currency: b.Currency, Country: b.Country,
		Reference: b.Reference, GratuityAmount: b.GratuityAmount, SurchargeAmount: b.SurchargeAmount,
		ExtraAmounts: sandbox.ExtraAmounts(b.extraAmountsBody), TokenID: b.PaymentMethod.ID, StorageMode: b.PaymentMethod.StorageMode, RateID: b.CurrencyConversion.ID,
		FingerprintMode: b.PaymentMethod.FingerprintMode,
		Version:         c.version, Idempotency: c.idem, IssuerResult: c.issuer, RefuseDuplicate: c.refuseDuplicate,
		DisputeStage: c.disputeStage,
		Card:         sandbox.CardInput{EntryMode: b.PaymentMethod.EntryMode, Name: b.PaymentMethod.Name},
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
var getTransaction = read(sandbox.OpTransactionDetail, []string{"merchant_id", "id"}, func(s *Server, c *call) (any, error) {
	// GP names the path under its /ucp base, which the sandbox's canonical path
	// has dropped; asked at the root, the answer is the same [SB].
	t, err := s.svc.GetTransaction(c.caller, c.vars["merchant_id"], c.vars["id"], "/ucp"+c.r.URL.EscapedPath())
	if err != nil {
		return nil, err
	}
	t.Action = s.svc.ReadAction(c.caller, sandbox.ActionTransactionOne) // not the last one stored [GP]
	return newTransactionDetailView(t), nil
})
