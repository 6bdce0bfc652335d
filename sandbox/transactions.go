package sandbox

import (
	"cmp"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// The card-present operations, named as scenarios and the apps' live configuration
// name them.
const (
	OpTransaction       Operation = "transaction"        // POST /transactions
	OpTransactionDetail Operation = "transaction_detail" // GET /transactions/{id}
	OpTransactionList   Operation = "transaction_list"   // GET /transactions
	OpCapture           Operation = "capture"
	OpRefund            Operation = "refund"
	OpReversal          Operation = "reversal"
	OpReauthorization   Operation = "reauthorization"
	OpIncremental       Operation = "incremental"
	OpVerification      Operation = "verification"
	OpBatchClose        Operation = "batch_close"
	OpBatchDetail       Operation = "batch_detail" // GET /batches/{id}

	OpPaymentMethodCreate Operation = "payment_method_create" // POST /payment-methods
	OpPaymentMethodDetail Operation = "payment_method_detail" // GET /payment-methods/{id}
	OpPaymentMethodEdit   Operation = "payment_method_edit"   // PATCH /payment-methods/{id}
	OpPaymentMethodDelete Operation = "payment_method_delete" // DELETE /payment-methods/{id}
)

// CardPresentOperations lists the operations an app's live configuration can allow.
var CardPresentOperations = []Operation{
	OpTransaction, OpTransactionDetail, OpTransactionList, OpCapture, OpRefund, OpReversal,
	OpReauthorization, OpIncremental, OpVerification, OpBatchClose, OpBatchDetail, OpDevice,
	OpPaymentMethodCreate, OpPaymentMethodDetail, OpPaymentMethodEdit, OpPaymentMethodDelete,
}

// operationPermissions is the token permission each card-present operation needs.
// GP names the permissions; which one guards reauthorization, incremental,
// verification and the batch close is ours [SB].
var operationPermissions = map[Operation]string{
	OpTransaction:       PermAuthorize,
	OpTransactionDetail: PermGetSingle,
	OpTransactionList:   PermGetList,
	OpCapture:           PermCapture,
	OpRefund:            PermRefund,
	OpReversal:          PermReverse,
	OpReauthorization:   PermAuthorize,
	OpIncremental:       PermAuthorize,
	OpVerification:      PermAuthorize,
	OpBatchClose:        PermCapture,
	OpBatchDetail:       PermGetSingle,

	OpPaymentMethodCreate: PermTokenize,
	OpPaymentMethodDetail: PermTokenGet,
	OpPaymentMethodEdit:   PermTokenEdit,
	OpPaymentMethodDelete: PermTokenDelete,
	OpDevice:              PermAuthorize, // a terminal command may take a payment [SB]
}

// authorizeCardPresent checks a card-present operation: the token must carry its
// permission and the app's live configuration must allow it. Other operations pass.
func authorizeCardPresent(c Caller, op Operation) error {
	perm, ok := operationPermissions[op]
	if !ok {
		return nil
	}
	allowed := c.App.Live.Operations == nil || slices.Contains(c.App.Live.Operations, string(op))
	if (c.Token.Has(perm) || perm == PermTokenize && c.Token.Has(PermTokenizeSingle)) && allowed {
		return nil
	}
	return PermissionDenied()
}

// TransactionRequest is a validated POST /transactions (or /verifications) body.
type TransactionRequest struct {
	MerchantID  string // the partner path's merchant; else the app's own
	AccountID   string
	AccountName string
	Channel     string
	Type        string // SALE or REFUND
	CaptureMode string // AUTO, LATER or MULTIPLE
	// AuthorizationMode is PARTIAL when the merchant accepts an approval for less than
	// the amount; recorded and answered, as GP echoes it. The sandbox's issuer approves
	// every amount in full.
	AuthorizationMode string
	Amount            string
	Currency          string
	Country           string
	Reference         string
	GratuityAmount    string
	ExtraAmounts
	// SurchargeAmount may be at most 5% of Amount [GP].
	SurchargeAmount string
	Card            CardInput
	TokenID         string      // payment_method.id: pay with a stored payment method (tokenCard)
	StorageMode     string      // payment_method.storage_mode: store the card as a token (keepCard)
	FingerprintMode string      // payment_method.fingerprint_mode: answer the card's fingerprint (cardFingerprint)
	RateID          string      // currency_conversion.id: a looked-up DCC rate (dcc.go)
	Encryption      *Encryption // an encrypted track's scheme, recorded on the transaction
	IssuerResult    string      // a scenario's scripted issuer result ("00" approves); "" for the card's own
	Version         string
	Idempotency     Idempotency
	// RefuseDuplicate refuses a payment that repeats an approved one (a scenario's
	// choice) instead of flagging it; see checkDuplicate.
	RefuseDuplicate bool
	// DisputeStage disputes the payment at this stage when it is deposited (a
	// scenario's dispute outcome), as the dispute test cards do.
	DisputeStage string
}

// CreateTransaction takes a payment: a sale (capture_mode AUTO, CAPTURED), an
// authorization (LATER or MULTIPLE, PREAUTHORIZED) or a standalone refund. The
// issuer's answer comes from the card, or from a scenario (see decideCard); a decline
// is stored and answered like an approval, with status DECLINED.
func (s *Service) CreateTransaction(c Caller, req TransactionRequest) (Transaction, error) {
	action := actionSale
	switch {
	case req.Type == TypeRefund:
		action = actionRefund
	case req.CaptureMode == CaptureLater || req.CaptureMode == CaptureMultiple:
		action = actionAuthorize
	}
	v, _, err := execute(s, c, req.Idempotency, "transaction", func(tx Tx, now time.Time) (string, Transaction, error) {
		t, err := s.takePayment(tx, c, req, action, now)
		return t.ID, t, err
	})
	return v, err
}

// takePayment makes and stores a transaction inside a store transaction: the one
// code path of a payment, whether an API request or a terminal asked for it.
func (s *Service) takePayment(tx Tx, c Caller, req TransactionRequest, action cardAction, now time.Time) (Transaction, error) {
	t, card, err := s.newTransaction(tx, c, req, action, now)
	if err != nil {
		return Transaction{}, err
	}
	if err := s.checkDuplicate(tx, &t, card, req.TokenID, req.RefuseDuplicate, now); err != nil {
		return Transaction{}, err
	}
	t.DisputeStage = req.DisputeStage
	if t.Status == StatusCaptured || declinedSale(t) {
		if err := s.joinBatch(tx, &t, now); err != nil {
			return Transaction{}, err
		}
	}
	return t, tx.PutTransaction(t)
}

// Verify checks a card without moving funds: VERIFIED, or DECLINED.
func (s *Service) Verify(c Caller, req TransactionRequest) (Transaction, error) {
	v, _, err := execute(s, c, req.Idempotency, "transaction", func(tx Tx, now time.Time) (string, Transaction, error) {
		t, err := s.takePayment(tx, c, req, actionVerify, now)
		return t.ID, t, err
	})
	return v, err
}

// Encryption is what the sandbox keeps of payment_method.encryption: the scheme's
// version and type, never the key serial number or key block.
type Encryption struct {
	Version string `json:"version,omitempty"`
	Type    string `json:"type,omitempty"`
}

// newTransaction builds a transaction from a request: its merchant and account, the
// issuer's answer, the card as the sandbox keeps it; and returns the card as read.
func (s *Service) newTransaction(tx Tx, c Caller, req TransactionRequest, action cardAction, now time.Time) (Transaction, cardData, error) {
	if err := checkTransaction(req, action); err != nil {
		return Transaction{}, cardData{}, err
	}
	m, acct, err := s.transactionAccount(tx, c, req)
	if err != nil {
		return Transaction{}, cardData{}, err
	}
	var token PaymentMethod // the stored card paid with, if any
	if req.TokenID != "" {
		if req.Card, token, err = tokenCard(tx, c, req.MerchantID, req.TokenID, req.Card); err != nil {
			return Transaction{}, cardData{}, err
		}
	}
	card, o, err := decideCard(action, req.Card, req.Amount, req.IssuerResult, now)
	if err != nil {
		return Transaction{}, cardData{}, err
	}
	t := Transaction{
		ID: "TRN_" + s.ids.Alphanumeric(30), Holder: HolderOf(m, acct), TimeCreated: now,
		Type: TypeSale, Status: statusOf(action, o), Channel: req.Channel, CaptureMode: req.CaptureMode,
		AuthorizationMode: req.AuthorizationMode, Amount: NormalizeAmount(req.Amount), Currency: req.Currency, Country: req.Country,
		Reference: req.Reference, AppID: c.App.ID,
		GratuityAmount: NormalizeAmount(req.GratuityAmount), ExtraAmounts: req.ExtraAmounts.normalized(),
		Card: card.stored(req.Card.Funding), Encryption: req.Encryption,
	}
	t.Card.Name = req.Card.Name
	if action == actionRefund {
		t.Type = TypeRefund
	}
	if action == actionVerify {
		t.Amount, t.CaptureMode = "0", ""
	}
	if t.Amount == "" {
		t.Amount = "0"
	}
	t.AuthorizationAmount = t.Amount
	if t.CurrencyConversion, err = convertWithRate(tx, c, req.MerchantID, req.RateID, t.Amount); err != nil {
		return Transaction{}, cardData{}, err
	}
	t.PaymentMethod = s.paymentResult(req.Channel, req.Card, t.Card, o, now)
	t.PaymentMethod.ID = req.TokenID
	t.PaymentMethod.Fingerprint = cardFingerprint(req.FingerprintMode, t.MerchantID, t.Card, card, o.approved)
	// A card paid for in clear, or with a single-use token the payment used up, is
	// stored anew; a multi-use token stays the card's token [GP: Java, .NET and PHP
	// CardTokenizationThenPayingWithToken_SingleToMultiUse].
	if (token.ID == "" || token.UsageMode == UsageSingle) && keepsCard(req.StorageMode, action, o.approved) {
		kept, err := s.keepCard(tx, c, req, card, now)
		if err != nil {
			return Transaction{}, cardData{}, err
		}
		t.PaymentMethod.ID = cmp.Or(kept, t.PaymentMethod.ID) // none kept: the token paid with, if any
	}
	t.Action = s.newAction(c, actionType(action), now)
	if !o.approved {
		t.Action.ResultCode = StatusDeclined
		if action == actionVerify {
			t.Action.ResultCode = StatusNotVerified
		}
	}
	return t, card, nil
}

// ExtraAmounts are the amounts beside its amount that a payment request carries and
// its transaction keeps and answers, without leading zeros as the amount is kept. The
// API's request block (extraAmountsBody) converts to it whole and every transaction
// view embeds it (MoneyView), so a member added here, to normalized and to that block
// is kept and answered; its JSON tag is both the record's and the answer's name [GP].
type ExtraAmounts struct {
	CashbackAmount string `json:"cashback_amount,omitempty"`
}

// normalized is e with each amount without leading zeros, as the amount is kept.
func (e ExtraAmounts) normalized() ExtraAmounts {
	e.CashbackAmount = NormalizeAmount(e.CashbackAmount)
	return e
}

// checkTransaction refuses what GP refuses in a payment request before it looks at
// the card: a surcharge above 5% of the amount, a standalone refund of nothing [GP].
// (Stored credentials without initiator, model or sequence are the api's check, the
// same for verifications.)
func checkTransaction(req TransactionRequest, action cardAction) error {
	// surcharge*20 > amount is surcharge > 5% of amount, in whole minor units.
	if surcharge := bigAmount(req.SurchargeAmount); new(big.Int).Mul(surcharge, big.NewInt(20)).Cmp(bigAmount(req.Amount)) > 0 {
		return SurchargeOverLimit()
	}
	if action == actionRefund && bigAmount(req.Amount).Sign() == 0 {
		return AmountInsufficient()
	}
	return nil
}

func statusOf(action cardAction, o outcome) string {
	switch {
	case !o.approved && action == actionVerify:
		return StatusNotVerified
	case !o.approved:
		return StatusDeclined
	case action == actionAuthorize:
		return StatusPreauthorized
	case action == actionVerify:
		return StatusVerified
	}
	return StatusCaptured
}

// declinedSale reports whether t is a sale the issuer declined: GP gives it the open
// batch's id, as the Java, .NET and PHP SDKs' batch tests close that batch by it
// (CloseBatch_WithCardNumberDetails_DeclinedTransaction); it counts in no total [GP].
func declinedSale(t Transaction) bool {
	return t.Status == StatusDeclined && t.Type == TypeSale && t.CaptureMode == CaptureAuto
}

// actionType is the action a card request records, as GP's answers name it: a sale
// is GP's AUTHORIZE, an authorization to capture later its PREAUTHORIZE [GP].
func actionType(action cardAction) string {
	switch action {
	case actionAuthorize:
		return ActionPreauthorize
	case actionRefund:
		return ActionRefund
	case actionVerify:
		return ActionVerify
	}
	return ActionAuthorize
}

// paymentResult is payment_method of the response: the issuer's answer and the card
// as GP shows it. A decline has an empty authcode [GP]; an approval on the
// card-not-present channel GP's fixed one [GP].
func (s *Service) paymentResult(channel string, in CardInput, card StoredCard, o outcome, now time.Time) PaymentResult {
	pr := PaymentResult{
		Result: o.result, Message: o.message, EntryMode: in.EntryMode,
		Card: CardResult{
			Brand: card.Brand, MaskedNumberLast4: card.MaskedLast4(), TagResponse: tagResponse(in, o),
			CVVResult: o.cvvResult, Funding: card.Funding,
		},
	}
	if a := o.avs; a != nil {
		pr.Card.AVSAddressResult, pr.Card.AVSPostalResult = checkWord(a.address), checkWord(a.postalCode)
		pr.Card.Provider = &CardProvider{Result: o.result, CVVResult: a.cvv, AVSAddressResult: a.address, AVSPostalResult: a.postalCode}
	}
	if o.approved {
		pr.Card.Authcode = in.Authcode
		if pr.Card.Authcode == "" && channel == ChannelCNP {
			pr.Card.Authcode = CNPAuthcode
		}
		if pr.Card.Authcode == "" {
			pr.Card.Authcode = s.ids.Alphanumeric(6)
		}
		pr.Card.BrandReference = s.ids.Alphanumeric(15)
		pr.Card.BrandTimeCreated = FormatTime(now)
	}
	return pr
}

// transactionAccount finds the merchant a transaction is for and the
// transaction-processing account it goes through. The merchant is the partner path's
// or the app's own; the account is the app's one the request names (by id or name),
// else the merchant's own one it names by id (merchantsOwnAccount), else the app's
// first transaction_processing account. An account or merchant the app does not hold
// is GP's 40041; a partner path's id that is no merchant id, GP's 40042.
func (s *Service) transactionAccount(tx Tx, c Caller, req TransactionRequest) (Merchant, Account, error) {
	merchantID := req.MerchantID
	if merchantID == "" {
		merchantID = c.App.MerchantID
	} else if !merchantIDForm(merchantID) {
		return Merchant{}, Account{}, RetrieveNotSupported()
	}
	var acct Account
	found := false
	for _, a := range c.App.Accounts {
		if !hasPermission(a, PermAuthorize) {
			continue
		}
		if (req.AccountID == "" || a.ID == req.AccountID) && (req.AccountName == "" || a.Name == req.AccountName) {
			acct, found = a, true
			break
		}
	}
	if !found {
		acct, found = merchantsOwnAccount(tx, c, merchantID, req)
	}
	notConfigured := MerchantNotConfigured(orDefault(req.AccountID, req.AccountName, accountFor(c.App, PermAuthorize)), merchantID)
	if !found || !c.App.ActsFor(merchantID) {
		return Merchant{}, Account{}, notConfigured
	}
	m, err := tx.Merchant(merchantID)
	if err != nil {
		return Merchant{}, Account{}, notFoundAs(err, notConfigured)
	}
	return m, acct, nil
}

// merchantsOwnAccount is the merchant's own transaction-processing account that a
// request names by id, as a partner app charges for a merchant it acts for: the SDKs
// find it among the merchant's accounts (GET /accounts) and send it as account_id
// (.NET GpApiCreditWithMerchantIdTest). The app must itself be able to take payments;
// the account takes the permissions of the app's account that can.
func merchantsOwnAccount(tx Tx, c Caller, merchantID string, req TransactionRequest) (Account, bool) {
	if req.AccountID == "" {
		return Account{}, false
	}
	a, err := tx.MerchantAccount(req.AccountID)
	if err != nil || a.MerchantID != merchantID || a.Type != AccountTransactionProcessing || a.Status != MerchantActive ||
		req.AccountName != "" && req.AccountName != a.Name {
		return Account{}, false
	}
	own, ok := appAccount(c.App, PermAuthorize)
	return Account{ID: a.ID, Name: a.Name, Permissions: own.Permissions}, ok
}

func hasPermission(a Account, perm string) bool { return slices.Contains(a.Permissions, perm) }

func orDefault(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// Transaction statuses the sandbox distinguishes.
const (
	StatusCaptured      = "CAPTURED"
	StatusPreauthorized = "PREAUTHORIZED"
	StatusDeclined      = "DECLINED"
	StatusReversed      = "REVERSED"
	StatusVerified      = "VERIFIED"
	StatusNotVerified   = "NOT_VERIFIED"
)

// Transaction types, channels and capture modes [GP].
const (
	TypeSale   = "SALE"
	TypeRefund = "REFUND"

	ChannelCP  = "CP"
	ChannelCNP = "CNP"

	CaptureAuto     = "AUTO"
	CaptureLater    = "LATER"
	CaptureMultiple = "MULTIPLE"
)

// Transaction is a stored card-present transaction with everything the Transaction
// resource shows plus the sandbox's own state (gratuity, batch, history).
type Transaction struct {
	ID string `json:"id"`
	Holder
	TimeCreated         time.Time     `json:"time_created"`
	Type                string        `json:"type"`
	Status              string        `json:"status"`
	Amount              string        `json:"amount"`
	AuthorizationAmount string        `json:"authorization_amount,omitempty"`
	GratuityAmount      string        `json:"gratuity_amount,omitempty"`
	Currency            string        `json:"currency"`
	Country             string        `json:"country"`
	Reference           string        `json:"reference"`
	PaymentMethod       PaymentResult `json:"payment_method"`
	Order               *OrderAmounts `json:"order,omitempty"`
	BatchID             string        `json:"batch_id"`
	BatchClosed         bool          `json:"batch_closed"`
	EMVTag              string        `json:"emv_tag,omitempty"`          // masked (applyAdjustment); stored, never echoed
	AdjustmentCount     int           `json:"adjustment_count,omitempty"` // adjustments ever made: numbers the history
	Action              Action        `json:"action"`
	Scenarios           []string      `json:"scenarios,omitempty"`
	DisputeStage        string        `json:"dispute_stage,omitempty"` // a scenario's dispute when deposited

	// Set for transactions made through the API (and fixtures that say so).
	Channel           string      `json:"channel,omitempty"`
	CaptureMode       string      `json:"capture_mode,omitempty"`
	AuthorizationMode string      `json:"authorization_mode,omitempty"` // as the request sent it
	AppID             string      `json:"app_id,omitempty"`             // the app that created it
	ParentID          string      `json:"parent_id,omitempty"`          // a refund's original transaction
	RefundedAmount    string      `json:"refunded_amount,omitempty"`    // refunds made against it
	CapturedAmount    string      `json:"captured_amount,omitempty"`    // captures of a MULTIPLE authorization
	ReversedStatus    string      `json:"reversed_status,omitempty"`    // the status a reversal ended
	ReauthorizedBy    string      `json:"reauthorized_by,omitempty"`    // the one reauthorization made of it
	Card              StoredCard  `json:"card,omitempty"`
	Encryption        *Encryption `json:"encryption,omitempty"` // an encrypted track's scheme
	Lodging           *Lodging    `json:"lodging,omitempty"`    // the last incremental authorization's
	// The conversion of its amount at the DCC rate the request named (dcc.go).
	CurrencyConversion *Conversion `json:"currency_conversion,omitempty"`

	// DuplicateOf names the earlier approved payment this one repeats (same card,
	// amount, currency and reference within the duplicate window) [SB].
	DuplicateOf string `json:"duplicate_of,omitempty"`

	// The request's other amounts, answered after the amount (views.go MoneyView).
	ExtraAmounts
}

// Listed reports whether GET /transactions lists t. A verification is not listed:
// GP's transaction statuses (its Transactions schema and every SDK's reporting enum)
// know no VERIFIED or NOT_VERIFIED, no SDK's reporting test finds a verification, and
// GP's schema gives verifications a resource of their own. Its detail can still be
// read by id [SB].
func (t Transaction) Listed() bool {
	return t.Status != StatusVerified && t.Status != StatusNotVerified
}

// CurrencyProblem says why code is not a currency the sandbox takes, or "" when it
// is: three capital letters, the shape of an ISO 4217 code, as the SDKs send one
// [SB]. One in small letters would open a batch and a deposit apart from its capital
// twin's. Which codes are in use is not checked: no table at hand is current (the
// standard library has none, and golang.org/x/text's is of 2017, without VES or ZWG).
func CurrencyProblem(code string) string {
	if !capitals(code, 3) {
		return "must be an ISO 4217 currency code in capitals, like USD"
	}
	return ""
}

// CountryProblem is what is wrong with a country code, "" when it has the shape of an
// ISO 3166 alpha-2 code: two capital letters (A128). A batch is a merchant's, account's,
// currency's and country's: "us" would open one apart from "US"'s.
func CountryProblem(code string) string {
	if !capitals(code, 2) {
		return "must be an ISO 3166 country code in capitals, like US"
	}
	return ""
}

// capitals reports whether s is n capital ASCII letters.
func capitals(s string, n int) bool {
	return len(s) == n && strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
}

// SettledAmount is what a batch close settles of t, in minor units: a refund's
// amount, or a payment's with its tip. Batch totals, deposits and the settlement
// report's rows count it, so that the rows add up to their deposit [SB].
func (t Transaction) SettledAmount() string {
	if t.Type == TypeRefund {
		return NormalizeAmount(t.Amount)
	}
	return add(t.Amount, t.GratuityAmount)
}

// withCardMembersMasked is t with each of its card members as the sandbox keeps
// them, for a transaction built whole outside a card request (a fixture, an admin
// seed, a Go test's record): its EMV data masked as carddata.MaskEMV does, the
// card's first six and last four digits no more than six and four, and
// masked_number_last4 an X for every character but the last four. A transaction a
// request makes is built so (cardData.stored, paymentResult, applyAdjustment). Its
// other members are the sandbox's own or kept as sent.
func (t Transaction) withCardMembersMasked() Transaction {
	if t.EMVTag != "" {
		t.EMVTag = carddata.MaskEMV(t.EMVTag)
	}
	if n := len(t.Card.First6); n > 6 {
		t.Card.First6 = t.Card.First6[:6]
	}
	if n := len(t.Card.Last4); n > 4 {
		t.Card.Last4 = t.Card.Last4[n-4:]
	}
	if shown := t.PaymentMethod.Card.MaskedNumberLast4; len(shown) > 4 {
		t.PaymentMethod.Card.MaskedNumberLast4 = MaskAccountNumber(shown)
	}
	return t
}

// PaymentResult is the payment_method block of a Transaction response.
type PaymentResult struct {
	ID           string      `json:"id,omitempty"` // the token charged, if any
	Result       string      `json:"result"`
	Message      string      `json:"message"`
	EntryMode    string      `json:"entry_mode,omitempty"`
	*Fingerprint             // what the request's fingerprint_mode asked for: nil without one
	Card         CardResult  `json:"card"`
	BNPL         *BNPLResult `json:"bnpl,omitempty"`
}

// CardResult is payment_method.card of a Transaction response.
type CardResult struct {
	Brand             string        `json:"brand,omitempty"`
	MaskedNumberLast4 string        `json:"masked_number_last4,omitempty"`
	Authcode          string        `json:"authcode"`
	BrandReference    string        `json:"brand_reference"`
	BrandTimeCreated  string        `json:"brand_time_created,omitempty"`
	TagResponse       string        `json:"tag_response,omitempty"`
	CVVResult         string        `json:"cvv_result,omitempty"`
	AVSAddressResult  string        `json:"avs_address_result,omitempty"`
	AVSPostalResult   string        `json:"avs_postal_code_result,omitempty"`
	Provider          *CardProvider `json:"provider,omitempty"`
	Funding           string        `json:"funding,omitempty"`
}

// CardProvider is payment_method.card.provider: the issuer's own codes, which GP
// shows for its AVS test cards [GP].
type CardProvider struct {
	Result           string `json:"result"`
	CVVResult        string `json:"cvv_result"`
	AVSAddressResult string `json:"avs_address_result"`
	AVSPostalResult  string `json:"avs_postal_code_result"`
}

// BNPLResult is payment_method.bnpl of a Transaction response.
type BNPLResult struct {
	Provider string `json:"provider"`
}

// OrderAmounts is the order block of a Transaction response.
type OrderAmounts struct {
	Taxes          []Tax  `json:"taxes,omitempty"`
	DutyAmount     string `json:"duty_amount,omitempty"`
	ShippingAmount string `json:"shipping_amount,omitempty"`
}

// Tax is one tax line of a transaction's order block.
type Tax struct {
	Type   string `json:"type"`
	Amount string `json:"amount"`
}
